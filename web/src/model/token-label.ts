// How a token is written wherever the page draws one (heatmap and matrix labels, line
// views, predictions): a control or invisible character would draw nothing or a tofu
// box (GPT-2 predicts "\u000b"), so it is written as a visible escape instead. Visible
// text, including the marks the page already puts in pieces ('·' for GPT-2's leading
// space, '↵', '⇥', '␣'), passes through unchanged, so the function may run twice.

/** The C-style escapes a reader may know; other control characters are written \xNN. */
const NAMED: Record<string, string> = {
  '\0': '\\0',
  '\b': '\\b',
  '\t': '⇥',
  '\n': '↵',
  '\v': '\\v',
  '\f': '\\f',
  '\r': '\\r',
};

const CONTROL = /\p{Cc}/u;
const hex = (code: number, width: number) => code.toString(16).padStart(width, '0');

/** A code point as an escape: a control character \xNN, any other \uNNNN in the BMP, \u{N…} above. */
function escapeCode(code: number): string {
  if (CONTROL.test(String.fromCodePoint(code))) return `\\x${hex(code, 2)}`;
  if (code <= 0xffff) return `\\u${hex(code, 4)}`;
  return `\\u{${hex(code, 1)}}`;
}

// Control (Cc), format (Cf: zero-width space, joiners, bidi marks, BOM, soft hyphen), private use (Co), unpaired
// surrogates (Cs), unassigned (Cn), line/paragraph separators (Zl, Zp) and every space but the plain one (Zs).
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Co}\p{Cs}\p{Cn}\p{Zl}\p{Zp}]|(?! )\p{Zs}/u;
const PICTOGRAPH = /\p{Extended_Pictographic}/u;
const ZWJ = 0x200d;
const isTag = (code: number) => code >= 0xe0020 && code <= 0xe007f;

/**
 * `text` as a token label: every control or invisible character written visibly ('\v', '\x1b', '\u200b', a newline
 * as '↵', a tab as '⇥'), a label of plain spaces only as '␣' each; everything else as it is. The joiners and tag
 * characters inside an emoji sequence (👩‍💻, a subdivision flag) are kept, since they draw as part of the emoji.
 */
export function tokenLabel(text: string): string {
  if (text !== '' && /^ +$/.test(text)) return '␣'.repeat(text.length);
  if (!INVISIBLE.test(text)) return text; // the common case: nothing to do
  let out = '';
  let inEmoji = false;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (PICTOGRAPH.test(char)) inEmoji = true;
    else if (!(code === ZWJ || isTag(code) || code === 0xfe0f)) inEmoji = false;
    if (!INVISIBLE.test(char) || (inEmoji && (code === ZWJ || isTag(code)))) out += char;
    else out += NAMED[char] ?? escapeCode(code);
  }
  return out;
}

/** SentencePiece's metaspace: the vocabulary writes a word's leading space as '▁' (Llama 2, Gemma 3). */
const METASPACE = /\u2581/g;

/**
 * A tokenizer's piece as the page shows it. WordPiece pieces stay as they are ('[CLS]', '##ing'). Other pieces show as
 * their text: a metaspace piece's '▁' as the space it stands for; a byte-level BPE piece ('Ġcat', GPT-2, Llama 3, Qwen)
 * or a byte-fallback piece ('<0x0A>') as `decoded`, the tokenizer's decoding of that one id. Then leading spaces show
 * as '·' each, a newline as '↵' and a tab as '⇥'. A piece that decodes to nothing whole (one byte of a longer UTF-8
 * character, a special token the decoder drops) stays as the vocabulary writes it.
 */
export function pieceText(piece: string, decoded: string, wordpiece: boolean): string {
  if (wordpiece) return piece;
  let text: string;
  if (piece.includes('\u2581')) text = piece.replace(METASPACE, ' ');
  else if (decoded !== '' && !decoded.includes('\uFFFD')) text = decoded;
  else return piece;
  return text
    .replace(/^ +/, (spaces) => '\u00b7'.repeat(spaces.length))
    .replace(/\n/g, '\u21b5')
    .replace(/\t/g, '\u21e5');
}
