// tokenizer.json's "decoder": the tokens' pieces back to text. Each decoder maps the
// list of pieces to a new list (tokenizers' decode_chain); the text is their
// concatenation. ByteLevel turns byte characters back into UTF-8 (invalid sequences as
// U+FFFD, as Rust's from_utf8_lossy and TextDecoder both do); ByteFallback turns runs
// of <0xNN> pieces into their text; Metaspace and Replace turn '▁' back into spaces.
import { byteCharsToBytes } from './byte-level.js';
import type { JsonField } from './json.js';
import { readPattern, regexSpans } from './regex.js';

export type Decoder = (pieces: string[]) => string[];

const SUPPORTED = ['ByteLevel', 'Metaspace', 'ByteFallback', 'Fuse', 'Strip', 'Replace', 'Sequence'] as const;
// ignoreBOM: a U+FEFF at the start is text, kept (TextDecoder drops it by default).
const LOSSY = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const STRICT = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const BYTE_PIECE = /^<0x([0-9A-Fa-f]{2})>$/;

function byteFallback(pieces: string[]): string[] {
  const out: string[] = [];
  let bytes: number[] = [];
  const flush = () => {
    if (bytes.length === 0) return;
    try {
      out.push(STRICT.decode(Uint8Array.from(bytes)));
    } catch {
      for (let i = 0; i < bytes.length; i++) out.push('\ufffd');
    }
    bytes = [];
  };
  for (const piece of pieces) {
    const m = BYTE_PIECE.exec(piece);
    if (m) bytes.push(parseInt(m[1], 16));
    else {
      flush();
      out.push(piece);
    }
  }
  flush();
  return out;
}

/** The decoder a tokenizer.json field describes; null when the field is null (pieces joined by spaces). */
export function readDecoder(field: JsonField): Decoder | null {
  if (field.isNull) return null;
  switch (field.type()) {
    case 'ByteLevel':
      return (pieces) => {
        const chunks = pieces.map(byteCharsToBytes);
        const all = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
        let offset = 0;
        for (const c of chunks) {
          all.set(c, offset);
          offset += c.length;
        }
        return [LOSSY.decode(all)];
      };
    case 'Metaspace': {
      const replacement = field.get('replacement').char();
      let scheme = field.get('prepend_scheme').oneOf(['first', 'never', 'always'] as const, 'always');
      const legacy = field.get('add_prefix_space');
      if (!legacy.isNull && !legacy.boolean()) scheme = 'never';
      return (pieces) =>
        pieces.map((piece, i) => {
          let out = '';
          for (const ch of piece) out += ch !== replacement ? ch : i === 0 && scheme !== 'never' ? '' : ' ';
          return out;
        });
    }
    case 'ByteFallback':
      return byteFallback;
    case 'Fuse':
      return (pieces) => [pieces.join('')];
    case 'Strip': {
      const content = field.get('content').char();
      const start = field.get('start').count();
      const stop = field.get('stop').count();
      return (pieces) =>
        pieces.map((piece) => {
          const chars = [...piece];
          let from = 0;
          while (from < Math.min(start, chars.length) && chars[from] === content) from++;
          let to = chars.length;
          while (chars.length - to < stop && to > from && chars[to - 1] === content) to--;
          return chars.slice(from, to).join('');
        });
    }
    case 'Replace': {
      const pattern = readPattern(field.get('pattern'));
      const content = field.get('content').string();
      return (pieces) =>
        pieces.map((piece) =>
          regexSpans(pattern, piece)
            .map(([s, e, m]) => (m ? content : piece.slice(s, e)))
            .join(''),
        );
    }
    case 'Sequence': {
      const steps = field
        .get('decoders')
        .items()
        .map((f) => readDecoder(f))
        .filter((s): s is Decoder => s !== null);
      return (pieces) => steps.reduce((p, step) => step(p), pieces);
    }
    default:
      throw field.unsupported('decoder', SUPPORTED);
  }
}
