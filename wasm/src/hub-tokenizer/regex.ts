// The regular expressions of tokenizer.json. Hugging Face's tokenizers compile them
// with Oniguruma (Ruby syntax, UTF-8); we translate each pattern to a JavaScript RegExp
// with the u flag, whose \p{L}, \p{N}, \p{White_Space} classes are the runtime's own,
// maintained with its Unicode version. Where the two syntaxes mean different things the
// translation says so:
//   \s, \S        Oniguruma: the White_Space property (U+0085 yes, U+FEFF no); JS \s
//                 differs on both, so they become \p{White_Space} / \P{White_Space}.
//   \d, \w        Unicode in Oniguruma: \p{Nd} and the word class (letters, marks,
//                 numbers, connector punctuation).
//   (?i:...)      JS (Node 20) has no inline flags: each letter inside becomes a class of
//                 its simple case folds (s -> [sSſ], k -> [kKK], as Oniguruma folds).
//   .             Oniguruma's dot stops only at \n (JS's also at \r, U+2028, U+2029).
//   ^ $           Ruby syntax makes them line anchors (after / before \n only).
//   {,n}          Oniguruma's {0,n}.
// Anything else we do not know (atomic groups, possessive quantifiers, \h, \R, \X, \K,
// \A, \z, \G, conditionals, ...) is an error naming the pattern, never a guess.
import type { JsonField } from './json.js';

const WORD_CLASS_BODY = '\\p{L}\\p{M}\\p{N}\\p{Pc}';
const SYNTAX_CHARS = new Set([...'^$\\.*+?()[]{}|/']);

/** The characters a letter matches case-insensitively (Unicode simple case folding). */
function caseClass(ch: string): string {
  const variants = new Set([ch, ch.toLowerCase(), ch.toUpperCase()]);
  if (/[sS]/.test(ch)) variants.add('\u017f'); // LATIN SMALL LETTER LONG S folds to s
  if (/[kK]/.test(ch)) variants.add('\u212a'); // KELVIN SIGN folds to k
  const single = [...variants].filter((v) => [...v].length === 1);
  if (single.length === 1) return escapeChar(ch);
  return `[${single.map(escapeChar).join('')}]`;
}

function escapeChar(ch: string): string {
  return SYNTAX_CHARS.has(ch) || ch === '-' ? `\\${ch}` : ch;
}

/** A literal string as a RegExp source (tokenizers' `String` patterns). */
export function escapeRegex(literal: string): string {
  return [...literal].map(escapeChar).join('');
}

/**
 * Oniguruma pattern -> JavaScript RegExp source (for the 'gu' flags). `field` names the
 * pattern in errors.
 */
export function translateOniguruma(pattern: string, field: JsonField): string {
  const chars = [...pattern];
  let out = '';
  let inClass = 0; // depth of [...]; Oniguruma nests classes, we accept one level
  // A stack of open groups: true where the group switched on case-insensitivity.
  const groups: boolean[] = [];
  const caseless = () => groups.includes(true);
  const unsupported = (what: string) =>
    field.bad(`uses ${what}, which this tokenizer does not translate from Oniguruma`, pattern);

  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === '\\') {
      const n = chars[++i];
      if (n === undefined) throw field.bad('ends with a lone backslash', pattern);
      switch (n) {
        case 's':
          out += '\\p{White_Space}';
          break;
        case 'S':
          out += inClass ? unsupportedThrow(unsupported('\\S inside a class')) : '\\P{White_Space}';
          break;
        case 'd':
          out += '\\p{Nd}';
          break;
        case 'D':
          out += inClass ? unsupportedThrow(unsupported('\\D inside a class')) : '\\P{Nd}';
          break;
        case 'w':
          out += inClass ? WORD_CLASS_BODY : `[${WORD_CLASS_BODY}]`;
          break;
        case 'W':
          out += inClass ? unsupportedThrow(unsupported('\\W inside a class')) : `[^${WORD_CLASS_BODY}]`;
          break;
        case 'p':
        case 'P': {
          if (chars[i + 1] !== '{') throw unsupported(`\\${n} without braces`);
          const close = chars.indexOf('}', i + 2);
          if (close < 0) throw field.bad('has an unclosed \\p{', pattern);
          let name = chars.slice(i + 2, close).join('');
          let negated = n === 'P';
          if (name.startsWith('^')) {
            negated = !negated;
            name = name.slice(1);
          }
          if (!/^[A-Za-z_]+$/.test(name)) throw unsupported(`\\p{${name}}`);
          if (caseless() && /^(L[ul]|Lt|Lu|Ll)$/.test(name)) throw unsupported(`\\p{${name}} inside (?i:...)`);
          out += `\\${negated ? 'P' : 'p'}{${name}}`;
          i = close;
          break;
        }
        case 'n':
        case 'r':
        case 't':
        case 'f':
        case 'v':
          out += `\\${n}`;
          break;
        case 'b':
        case 'B':
          if (inClass) throw unsupported(`\\${n} inside a class`);
          throw unsupported(`\\${n} (word boundaries differ between Oniguruma and JavaScript)`);
        case 'x':
        case 'u': {
          // \xHH, \x{H...}, \uHHHH: copy as a code point escape.
          let hex = '';
          if (chars[i + 1] === '{') {
            const close = chars.indexOf('}', i + 2);
            hex = chars.slice(i + 2, close).join('');
            i = close;
          } else {
            const len = n === 'x' ? 2 : 4;
            hex = chars.slice(i + 1, i + 1 + len).join('');
            i += len;
          }
          if (!/^[0-9A-Fa-f]{1,6}$/.test(hex)) throw unsupported(`\\${n}${hex}`);
          out += `\\u{${hex}}`;
          break;
        }
        default:
          if (/[A-Za-z0-9]/.test(n)) throw unsupported(`\\${n}`);
          // An escaped punctuation character is that character.
          out += caseless() && !inClass ? caseClass(n) : escapeChar(n);
      }
      continue;
    }
    if (inClass) {
      if (c === '[') {
        if (chars[i + 1] === ':') throw unsupported('a POSIX bracket [:...:]');
        throw unsupported('a nested class');
      }
      if (c === ']') inClass--;
      if (c === '&' && chars[i + 1] === '&') throw unsupported('class intersection &&');
      if (caseless() && /\p{L}/u.test(c)) throw unsupported('a letter in a class inside (?i:...)');
      out += c === '/' ? '\\/' : c;
      continue;
    }
    switch (c) {
      case '[':
        inClass++;
        out += c;
        if (chars[i + 1] === '^') out += chars[++i];
        if (chars[i + 1] === ']') {
          out += '\\]'; // a leading ] is literal in Oniguruma
          i++;
        }
        break;
      case '(':
        if (chars[i + 1] === '?') {
          const rest = chars.slice(i + 2, i + 5).join('');
          if (rest.startsWith('i:')) {
            groups.push(true);
            out += '(?:';
            i += 3;
          } else {
            const opener = /^(:|=|!|<=|<!|<[A-Za-z_][A-Za-z0-9_]*>)/.exec(chars.slice(i + 2, i + 40).join(''));
            if (!opener) throw unsupported(`the group (?${rest}`);
            groups.push(false);
            out += `(?${opener[1]}`;
            i += 1 + opener[1].length;
          }
        } else {
          groups.push(false);
          out += '(';
        }
        break;
      case ')':
        if (groups.length === 0) throw field.bad('has an unbalanced )', pattern);
        groups.pop();
        out += ')';
        break;
      case '.':
        out += '[^\\n]';
        break;
      case '^':
        out += '(?<![^\\n])';
        break;
      case '$':
        out += '(?![^\\n])';
        break;
      case '{': {
        const close = chars.indexOf('}', i);
        const body = close < 0 ? '' : chars.slice(i + 1, close).join('');
        if (/^\d+(,\d*)?$/.test(body)) out += `{${body}}`;
        else if (/^,\d+$/.test(body)) out += `{0${body}}`;
        else {
          out += '\\{'; // a literal brace, as Oniguruma reads one that is no quantifier
          break;
        }
        i = close;
        if (chars[i + 1] === '+') throw unsupported('a possessive quantifier');
        break;
      }
      case '}':
        out += '\\}';
        break;
      case '*':
      case '+':
      case '?':
        out += c;
        if (chars[i + 1] === '+') throw unsupported('a possessive quantifier');
        break;
      case '/':
        out += '\\/';
        break;
      default:
        out += caseless() ? caseClass(c) : c;
    }
  }
  if (inClass) throw field.bad('has an unclosed [', pattern);
  if (groups.length) throw field.bad('has an unclosed (', pattern);
  try {
    new RegExp(out, 'gu');
  } catch (error) {
    throw field.bad(`cannot be compiled (${(error as Error).message})`, pattern);
  }
  return out;
}

function unsupportedThrow(error: Error): never {
  throw error;
}

/** A pattern of tokenizer.json ({ "String": ... } or { "Regex": ... }) as a global RegExp. */
export function readPattern(field: JsonField): RegExp {
  const members = field.entries();
  if (members.length !== 1 || !['String', 'Regex'].includes(members[0][0]))
    throw field.bad('must be { "String": ... } or { "Regex": ... }');
  const [kind, value] = members[0];
  const source = kind === 'String' ? escapeRegex(value.string()) : translateOniguruma(value.string(), value);
  return new RegExp(source, 'gu');
}

/** [start, end, isMatch] spans covering the text, as tokenizers' Pattern::find_matches. */
export type Span = [start: number, end: number, isMatch: boolean];

export function regexSpans(regex: RegExp, text: string): Span[] {
  if (text === '') return [[0, 0, false]];
  const spans: Span[] = [];
  let previous = 0;
  for (const m of text.matchAll(regex)) {
    const start = m.index!;
    const end = start + m[0].length;
    if (start === end) continue; // empty matches leave no piece (tokenizers drops empty splits)
    if (previous !== start) spans.push([previous, start, false]);
    spans.push([start, end, true]);
    previous = end;
  }
  if (previous !== text.length) spans.push([previous, text.length, false]);
  return spans;
}

/** Spans where each character for which `test` holds is a match of its own. */
export function charSpans(test: (codePoint: string) => boolean, text: string): Span[] {
  if (text === '') return [[0, 0, false]];
  const spans: Span[] = [];
  let last = 0;
  let offset = 0;
  for (const ch of text) {
    const end = offset + ch.length;
    if (test(ch)) {
      if (last < offset) spans.push([last, offset, false]);
      spans.push([offset, end, true]);
      last = end;
    }
    offset = end;
  }
  if (offset > last) spans.push([last, offset, false]);
  return spans;
}
