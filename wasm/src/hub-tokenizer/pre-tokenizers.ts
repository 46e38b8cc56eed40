// tokenizer.json's "pre_tokenizer": cuts each text piece into the words the model
// tokenizes one by one (Split with the Llama 3 / Qwen patterns, ByteLevel, Metaspace,
// Digits, Punctuation, WhitespaceSplit, Sequence). Semantics as Hugging Face's
// tokenizers (pre_tokenizers/*.rs).
import { GPT2_PATTERN, toByteChars } from './byte-level.js';
import { JsonField } from './json.js';
import { type Piece, SPLIT_BEHAVIORS, mapTextPieces, splitPiece } from './pieces.js';
import { charSpans, readPattern, regexSpans, translateOniguruma } from './regex.js';

export type PreTokenizer = (pieces: Piece[]) => Piece[];

const SUPPORTED = ['Sequence', 'Split', 'ByteLevel', 'Metaspace', 'Digits', 'Punctuation', 'WhitespaceSplit'] as const;
const GPT2_TRANSLATED = translateOniguruma(GPT2_PATTERN, new JsonField('ByteLevel', 'GPT-2 pattern', GPT2_PATTERN));
const GPT2_REGEX = new RegExp(GPT2_TRANSLATED.source, GPT2_TRANSLATED.flags);
const NUMERIC = /^\p{N}$/u;
// Rust's is_ascii_punctuation (ASCII symbols too) or a Unicode punctuation category.
const PUNCTUATION = /^[!-/:-@[-`{-~\p{P}]$/u;
const WHITE_SPACE = /^\p{White_Space}$/u;

/** The pre-tokenizer a tokenizer.json field describes; null when the field is null. */
export function readPreTokenizer(field: JsonField): PreTokenizer | null {
  if (field.isNull) return null;
  const type = field.type();
  switch (type) {
    case 'Sequence': {
      const steps = field
        .get('pretokenizers')
        .items()
        .map((f) => readPreTokenizer(f))
        .filter((s): s is PreTokenizer => s !== null);
      return (pieces) => steps.reduce((p, step) => step(p), pieces);
    }
    case 'Split': {
      const regex = readPattern(field.get('pattern'));
      const behavior = field.get('behavior').oneOf(SPLIT_BEHAVIORS);
      const invert = field.get('invert').boolean();
      return (pieces) =>
        mapTextPieces(pieces, (piece) => {
          const spans = regexSpans(regex, piece.text);
          return splitPiece(piece, invert ? spans.map(([s, e, m]) => [s, e, !m]) : spans, behavior);
        });
    }
    case 'ByteLevel': {
      const addPrefixSpace = field.get('add_prefix_space').boolean(true);
      const useRegex = field.get('use_regex').boolean(true);
      field.get('trim_offsets').boolean(true); // offsets only: checked, no effect on ids
      return (pieces) =>
        mapTextPieces(pieces, (piece) => {
          const text = addPrefixSpace && !piece.text.startsWith(' ') ? ' ' + piece.text : piece.text;
          const words = useRegex
            ? splitPiece({ ...piece, text }, regexSpans(GPT2_REGEX, text), 'Isolated')
            : [{ ...piece, text }];
          return words.map((w) => ({ ...w, text: toByteChars(w.text) }));
        });
    }
    case 'Metaspace': {
      const replacement = field.get('replacement').char();
      let scheme = field.get('prepend_scheme').oneOf(['first', 'never', 'always'] as const, 'always');
      const legacy = field.get('add_prefix_space');
      if (!legacy.isNull && !legacy.boolean()) {
        if (scheme !== 'never') throw legacy.bad(`is false but prepend_scheme is "${scheme}"`);
        scheme = 'never';
      }
      const split = field.get('split').boolean(true);
      return (pieces) =>
        mapTextPieces(pieces, (piece) => {
          let text = piece.text.replaceAll(' ', replacement);
          const prepend = scheme === 'always' || (scheme === 'first' && piece.atStart);
          if (prepend && !text.startsWith(replacement)) text = replacement + text;
          const replaced = { ...piece, text };
          return split
            ? splitPiece(
                replaced,
                charSpans((c) => c === replacement, text),
                'MergedWithNext',
              )
            : [replaced];
        });
    }
    case 'Digits': {
      const behavior = field.get('individual_digits').boolean(false) ? 'Isolated' : 'Contiguous';
      return (pieces) =>
        mapTextPieces(pieces, (p) =>
          splitPiece(
            p,
            charSpans((c) => NUMERIC.test(c), p.text),
            behavior,
          ),
        );
    }
    case 'Punctuation': {
      const behavior = field.get('behavior').oneOf(SPLIT_BEHAVIORS, 'Isolated');
      return (pieces) =>
        mapTextPieces(pieces, (p) =>
          splitPiece(
            p,
            charSpans((c) => PUNCTUATION.test(c), p.text),
            behavior,
          ),
        );
    }
    case 'WhitespaceSplit':
      return (pieces) =>
        mapTextPieces(pieces, (p) =>
          splitPiece(
            p,
            charSpans((c) => WHITE_SPACE.test(c), p.text),
            'Removed',
          ),
        );
    default:
      throw field.unsupported('pre-tokenizer', SUPPORTED);
  }
}
