// Defines a custom element unless the page already has one of that name: the one-tag
// element's on-demand generation script (element/generate-entry.ts) bundles its own copy
// of the generic elements it draws with, and the element's bundle has defined them first.
// Both copies are built from the same source, so either serves.
export function defineOnce(name: string, element: CustomElementConstructor): void {
  if (!customElements.get(name)) customElements.define(name, element);
}
