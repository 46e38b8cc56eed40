// The branches explored (model/generation-view.ts branchTree) as a nested list of
// buttons: each opens that branch again. The branch shown is marked.
import { html, nothing } from 'lit';
import type { BranchNode } from '../model/generation-view.js';

export interface TreeOptions {
  textOf(path: number[]): string;
  /** Between two tokens of a branch's words. */
  separator: string;
  onPick(path: number[]): void;
  disabled: boolean;
  /** Branches too many for a link: the link leaves this many out. */
  dropped: number;
}

function same(a: readonly number[], b: readonly number[]) {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** A chain of single children is drawn as one button (the words of one branch), a fork as a nested list. */
function nodeView(node: BranchNode, current: readonly number[], o: TreeOptions): unknown {
  let end = node;
  const words = [o.textOf(node.path)];
  while (end.children.length === 1) {
    end = end.children[0];
    words.push(o.textOf(end.path));
  }
  const onBranch =
    current.length >= end.path.length
      ? same(current.slice(0, end.path.length), end.path)
      : same(current, end.path.slice(0, current.length)) && current.length >= node.path.length;
  return html`<li>
    <button class="branch ${onBranch ? 'current' : ''}" data-path=${end.path.join('.')} ?disabled=${o.disabled}
      @click=${() => o.onPick(end.path)}>${words.join(o.separator)}</button>
    ${end.children.length ? html`<ul>${end.children.map((c) => nodeView(c, current, o))}</ul>` : nothing}
  </li>`;
}

export function branchTreeView(root: BranchNode, current: readonly number[], o: TreeOptions) {
  if (root.children.length === 0) return nothing;
  return html`<nav class="tree" aria-label="Branches" data-testid="branch-tree">
    <h3>Branches</h3>
    <ul><li><button class="branch ${current.length === 0 ? 'current' : ''}" data-path="" ?disabled=${o.disabled}
      @click=${() => o.onPick([])}>(the prompt)</button>
      <ul>${root.children.map((c) => nodeView(c, current, o))}</ul></li></ul>
    ${
      o.dropped
        ? html`<p class="why" data-testid="tree-dropped">A link keeps this branch and the newest others: the
            ${o.dropped === 1 ? 'oldest branch is' : `${o.dropped} oldest branches are`} too long for it and left out.</p>`
        : nothing
    }
  </nav>`;
}
