// What an embed in generate mode (the <attention-playground> element's `generate`) needs of
// the Generate feature, handed over as one object once it is loaded: the panel itself
// (defined by importing this file), the names of the panel's attributes and their parse,
// which model writes (model/generation-source.ts) and the playground link. The one-file
// element gets it from its on-demand script (element/generate-entry.ts), the site's pages
// by a dynamic import, so none of it weighs on the element's own bundle (its size budget).
import './generate-panel.js';
import { GENERATION_FIELDS, attributeName, generationStateFromAttributes } from '../model/generation-state.js';
import { choiceKey, generationChoice } from '../model/generation-source.js';
import { playgroundLink } from '../settings/playground-link.js';

export const GENERATE_PART = {
  /** The panel's attributes (kebab-case), which an element in generate mode takes. */
  attributes: GENERATION_FIELDS.map(attributeName),
  fromAttributes: generationStateFromAttributes,
  choice: generationChoice,
  choiceKey,
  link: playgroundLink,
};

export type GeneratePart = typeof GENERATE_PART;
