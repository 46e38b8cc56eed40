// GPT-2's byte-to-unicode map, as byte-level BPE files (Llama 3, Qwen, SmolLM2) write
// their vocabularies: every UTF-8 byte is one printable character, the printable
// Latin-1 bytes as themselves, the others (control bytes, space, 0x7F-0xA0, 0xAD) as
// U+0100 onwards in byte order ('Ġ' for the space, 'Ċ' for '\n').
const UTF8 = new TextEncoder();

function buildByteChars(): string[] {
  const chars: string[] = new Array(256);
  const printable = (b: number) => (b >= 0x21 && b <= 0x7e) || (b >= 0xa1 && b <= 0xac) || (b >= 0xae && b <= 0xff);
  let next = 256;
  for (let b = 0; b < 256; b++) chars[b] = String.fromCodePoint(printable(b) ? b : next++);
  return chars;
}

/** byte -> its character. */
export const BYTE_CHARS: readonly string[] = buildByteChars();
/** character -> its byte. */
export const CHAR_BYTES: ReadonlyMap<string, number> = new Map(BYTE_CHARS.map((c, b) => [c, b]));

/** A text's UTF-8 bytes, each as its byte-level character. */
export function toByteChars(text: string): string {
  let out = '';
  for (const b of UTF8.encode(text)) out += BYTE_CHARS[b];
  return out;
}

/**
 * The bytes a byte-level token stands for; a token with a character outside the map
 * (an added token such as '<|im_start|>' written plainly) stands for its own UTF-8.
 */
export function byteCharsToBytes(token: string): Uint8Array {
  const bytes: number[] = [];
  for (const ch of token) {
    const b = CHAR_BYTES.get(ch);
    if (b === undefined) return UTF8.encode(token);
    bytes.push(b);
  }
  return Uint8Array.from(bytes);
}

/** The GPT-2 pre-tokenization pattern that ByteLevel's use_regex applies (Oniguruma syntax). */
export const GPT2_PATTERN = "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";
