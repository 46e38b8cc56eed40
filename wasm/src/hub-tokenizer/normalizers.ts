// tokenizer.json's "normalizer": text -> text, applied to each stretch of text between
// added tokens (never across them), as Hugging Face's tokenizers does. Unicode forms
// are String.prototype.normalize (the runtime's ICU).
import type { JsonField } from './json.js';
import { readPattern } from './regex.js';

export type Normalizer = (text: string) => string;

const SUPPORTED = ['Sequence', 'NFC', 'NFD', 'NFKC', 'NFKD', 'Lowercase', 'Strip', 'Replace', 'Prepend'] as const;
const WHITE_SPACE_START = /^\p{White_Space}+/u;
const WHITE_SPACE_END = /\p{White_Space}+$/u;

/** Lower case one character at a time (Rust's char::to_lowercase: no final-sigma rule). */
function lowercase(text: string): string {
  let out = '';
  for (const ch of text) out += ch.toLowerCase();
  return out;
}

/** The normalizer a tokenizer.json field describes; null when the field is null. */
export function readNormalizer(field: JsonField): Normalizer | null {
  if (field.isNull) return null;
  const type = field.type();
  switch (type) {
    case 'Sequence': {
      const steps = field
        .get('normalizers')
        .items()
        .map((f) => readNormalizer(f));
      return (text) => steps.reduce((t, step) => (step ? step(t) : t), text);
    }
    case 'NFC':
    case 'NFD':
    case 'NFKC':
    case 'NFKD':
      return (text) => text.normalize(type);
    case 'Lowercase':
      return lowercase;
    case 'Strip': {
      const left = field.get('strip_left').boolean();
      const right = field.get('strip_right').boolean();
      return (text) => {
        let t = left ? text.replace(WHITE_SPACE_START, '') : text;
        if (right) t = t.replace(WHITE_SPACE_END, '');
        return t;
      };
    }
    case 'Replace': {
      const pattern = readPattern(field.get('pattern'));
      const content = field.get('content').string();
      return (text) => text.replace(pattern, () => content);
    }
    case 'Prepend': {
      const prefix = field.get('prepend').string();
      return (text) => (text === '' ? text : prefix + text);
    }
    default:
      throw field.unsupported('normalizer', SUPPORTED);
  }
}
