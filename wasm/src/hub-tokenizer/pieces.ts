// The pre-tokenized text: the input cut into pieces, some already tokens (added tokens,
// matched whole), the others plain text that normalizers and pre-tokenizers keep
// cutting, and each text piece finally tokenized by the model on its own.
import type { Span } from './regex.js';

export interface Piece {
  text: string;
  /** The added token's id, for a piece that is one; undefined for text. */
  id?: number;
  /** True when the piece starts where the input starts (Metaspace's prepend_scheme 'first'). */
  atStart: boolean;
}

/** How a split's matches join the pieces around them (tokenizers' SplitDelimiterBehavior). */
export const SPLIT_BEHAVIORS = ['Removed', 'Isolated', 'MergedWithPrevious', 'MergedWithNext', 'Contiguous'] as const;
export type SplitBehavior = (typeof SPLIT_BEHAVIORS)[number];

/** Cuts a text piece at the spans' edges, as NormalizedString::split does. Empty pieces are dropped. */
export function splitPiece(piece: Piece, spans: Span[], behavior: SplitBehavior): Piece[] {
  // [start, end, remove]
  let cuts: [number, number, boolean][];
  switch (behavior) {
    case 'Isolated':
      cuts = spans.map(([s, e]) => [s, e, false]);
      break;
    case 'Removed':
      cuts = spans.map(([s, e, m]) => [s, e, m]);
      break;
    case 'Contiguous': {
      cuts = [];
      let previous = false;
      for (const [s, e, m] of spans) {
        if (m === previous && cuts.length) cuts[cuts.length - 1][1] = e;
        else cuts.push([s, e, false]);
        previous = m;
      }
      break;
    }
    case 'MergedWithPrevious': {
      cuts = [];
      let previous = false;
      for (const [s, e, m] of spans) {
        if (m && !previous && cuts.length) cuts[cuts.length - 1][1] = e;
        else cuts.push([s, e, false]);
        previous = m;
      }
      break;
    }
    case 'MergedWithNext': {
      cuts = [];
      let previous = false;
      for (let i = spans.length - 1; i >= 0; i--) {
        const [s, e, m] = spans[i];
        if (m && !previous && cuts.length) cuts[cuts.length - 1][0] = s;
        else cuts.push([s, e, false]);
        previous = m;
      }
      cuts.reverse();
      break;
    }
  }
  const out: Piece[] = [];
  for (const [s, e, remove] of cuts) {
    if (remove || s === e) continue;
    out.push({ text: piece.text.slice(s, e), atStart: piece.atStart && s === 0 });
  }
  return out;
}

/** Applies `cut` to every text piece (added tokens stay as they are); drops empty pieces. */
export function mapTextPieces(pieces: Piece[], cut: (piece: Piece) => Piece[]): Piece[] {
  const out: Piece[] = [];
  for (const piece of pieces) {
    if (piece.id !== undefined) out.push(piece);
    else for (const p of cut(piece)) if (p.text !== '') out.push(p);
  }
  return out;
}
