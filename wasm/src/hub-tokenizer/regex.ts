// The regular expressions of tokenizer.json. Hugging Face's tokenizers compile them
// with Oniguruma (Ruby syntax, UTF-8); we translate each pattern to a JavaScript RegExp
// with the u flag, whose \p{L}, \p{N}, \p{White_Space} classes are the runtime's own,
// maintained with its Unicode version. Where the two syntaxes mean different things the
// translation says so:
//   \s, \S        Oniguruma: the White_Space property (U+0085 yes, U+FEFF no); JS \s
//                 differs on both, so they become \p{White_Space} / \P{White_Space}.
//   \d, \w        Unicode in Oniguruma: \p{Nd}, and the word class: Alphabetic (so Ⅻ,
//                 not ①), marks, decimal digits, connector punctuation.
//   empty matches cut the text, as the onig crate's find_iter returns them.
//   (?i:...)      JS (Node 20) has no inline flags. Where nothing outside such groups
//                 depends on case (the Llama 3 and Qwen patterns: only \p{L}, \p{N}, \s and
//                 punctuation outside), the whole RegExp gets the i flag, which folds as
//                 Unicode's simple case folding ('s ~ 'ſ, k ~ K); else each letter inside
//                 becomes the class of the letters it folds with. Oniguruma's multi-character
//                 folds (ß ~ ss, ﬅ ~ st) are not reproduced.
//   .             Oniguruma's dot stops only at \n (JS's also at \r, U+2028, U+2029).
//   ^ $           Ruby syntax makes them line anchors (after / before \n only).
//   {,n}          Oniguruma's {0,n}.
// Anything else we do not know (atomic groups, possessive quantifiers, \h, \R, \X, \K,
// \A, \z, \G, conditionals, ...) is an error naming the pattern, never a guess.
import type { JsonField } from './json.js';

const WORD_CLASS_BODY = '\\p{Alphabetic}\\p{M}\\p{Nd}\\p{Pc}';
const SYNTAX_CHARS = new Set([...'^$\\.*+?()[]{}|/']);

// Letters whose simple case folding toLowerCase / toUpperCase do not find (ſ ~ s, K ~ k, ...).
const FOLD_EXTRAS =
  '\u017f\u212a\u212b\u2126\u00b5\u1e9e\u03c2\u03d0\u03d1\u03d5\u03d6\u03f0\u03f1\u03f5\u1e9b\u1fbe\u0345\u03f4';

/** Whether a character's case matters (it has another case or folds with another letter). */
function isCased(ch: string): boolean {
  return ch.toLowerCase() !== ch.toUpperCase() || FOLD_EXTRAS.includes(ch);
}

/** The class of the characters a letter matches case-insensitively (the runtime's simple case folding). */
function caseClass(ch: string): string {
  const folds = new RegExp(`^${escapeChar(ch)}$`, 'iu');
  const candidates = new Set([ch, ch.toLowerCase(), ch.toUpperCase(), ...FOLD_EXTRAS]);
  for (const c of [ch.toLowerCase(), ch.toUpperCase()]) candidates.add(c.toLowerCase()).add(c.toUpperCase());
  const single = [...candidates].filter((v) => [...v].length === 1 && folds.test(v));
  if (single.length === 1) return escapeChar(ch);
  return `[${single.map((v) => escapeChar(v, true)).join('')}]`;
}

/** A character as a literal (u-mode RegExps allow escaping only syntax characters, and '-' in a class). */
function escapeChar(ch: string, inClass = false): string {
  return SYNTAX_CHARS.has(ch) || (inClass && ch === '-') ? `\\${ch}` : ch;
}

/**
 * An Oniguruma property name as JavaScript writes it: a general category or binary
 * property as it is (L, Lu, White_Space), a script as Script=Han (Oniguruma's \\p{Han});
 * null if the runtime knows neither.
 */
function propertyName(name: string): string | null {
  for (const candidate of [name, `Script=${name}`]) {
    try {
      new RegExp(`\\p{${candidate}}`, 'u');
      return candidate;
    } catch {
      // not this form
    }
  }
  return null;
}

/** A literal string as a RegExp source (tokenizers' `String` patterns). */
export function escapeRegex(literal: string): string {
  return [...literal].map((ch) => escapeChar(ch)).join('');
}

/** A JavaScript RegExp's source and flags. */
export interface TranslatedRegex {
  source: string;
  flags: 'gu' | 'giu';
}

/**
 * Oniguruma pattern -> JavaScript RegExp source and flags. `field` names the pattern in
 * errors.
 */
export function translateOniguruma(pattern: string, field: JsonField): TranslatedRegex {
  const folded = translate(pattern, field, 'fold');
  const translated: TranslatedRegex =
    folded !== null ? { source: folded, flags: 'giu' } : { source: translate(pattern, field, 'classes')!, flags: 'gu' };
  try {
    new RegExp(translated.source, translated.flags);
  } catch (error) {
    throw field.bad(`cannot be compiled (${(error as Error).message})`, pattern);
  }
  return translated;
}

/**
 * One translation. 'fold': for the i flag, letters in (?i:...) as they are; null when the
 * pattern has (?i:...) nowhere, or something outside depends on case. 'classes': for
 * plain 'gu', each letter in (?i:...) as the class of its case folds.
 */
function translate(pattern: string, field: JsonField, mode: 'fold' | 'classes'): string | null {
  const chars = [...pattern];
  let sawCaseless = false;
  let out = '';
  let inClass = 0; // depth of [...]; Oniguruma nests classes, we accept one level
  // A stack of open groups: true where the group switched on case-insensitivity.
  const groups: boolean[] = [];
  const caseless = () => groups.includes(true);
  let caseOutside = false; // something outside (?i:...) depends on case
  const literal = (ch: string, inClassNow: boolean) => {
    if (!caseless()) {
      if (isCased(ch)) caseOutside = true;
      return escapeChar(ch, inClassNow);
    }
    if (mode === 'fold') return escapeChar(ch, inClassNow);
    if (inClassNow && isCased(ch))
      throw unsupported('a cased letter in a class inside (?i:...) mixed with case-sensitive parts');
    return inClassNow ? escapeChar(ch, true) : caseClass(ch);
  };
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
          out += '\\P{White_Space}';
          break;
        case 'd':
          out += '\\p{Nd}';
          break;
        case 'D':
          out += '\\P{Nd}';
          break;
        case 'w':
          out += inClass ? WORD_CLASS_BODY : `[${WORD_CLASS_BODY}]`;
          break;
        case 'W':
          if (inClass) throw unsupported('\\W inside a class');
          out += `[^${WORD_CLASS_BODY}]`;
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
          const known = propertyName(name);
          if (known === null) throw unsupported(`the property \\p{${name}}`);
          name = known;
          const caseProperty =
            /^(Lu|Ll|Lt|LC|Lowercase|Uppercase|Lowercase_Letter|Uppercase_Letter|Titlecase_Letter|Cased_Letter)$/.test(
              name,
            );
          if (caseProperty && caseless()) throw unsupported(`\\p{${name}} inside (?i:...)`);
          if (caseProperty) caseOutside = true;
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
          out += literal(n, inClass > 0);
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
      out += c === '/' ? '\\/' : c === ']' || c === '^' || c === '-' ? c : literal(c, true);
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
            sawCaseless = true;
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
      case '|':
        out += c;
        break;
      default:
        out += literal(c, false);
    }
  }
  if (inClass) throw field.bad('has an unclosed [', pattern);
  if (groups.length) throw field.bad('has an unclosed (', pattern);
  if (mode === 'fold' && (!sawCaseless || caseOutside)) return null;
  return out;
}

/** A pattern of tokenizer.json ({ "String": ... } or { "Regex": ... }) as a global RegExp. */
export function readPattern(field: JsonField): RegExp {
  const members = field.entries();
  if (members.length !== 1 || !['String', 'Regex'].includes(members[0][0]))
    throw field.bad('must be { "String": ... } or { "Regex": ... }');
  const [kind, value] = members[0];
  if (kind === 'String') return new RegExp(escapeRegex(value.string()), 'gu');
  const { source, flags } = translateOniguruma(value.string(), value);
  return new RegExp(source, flags);
}

/** [start, end, isMatch] spans covering the text, as tokenizers' Pattern::find_matches. */
export type Span = [start: number, end: number, isMatch: boolean];

export function regexSpans(regex: RegExp, text: string): Span[] {
  if (text === '') return [[0, 0, false]];
  const spans: Span[] = [];
  let previous = 0;
  // The onig crate's find_iter: search from `from`; an empty match right where the last
  // match ended is skipped by moving the search on one character. Empty matches cut the
  // text (their pieces are dropped later).
  let from = 0;
  let lastMatchEnd = -1;
  while (from <= text.length) {
    regex.lastIndex = from;
    const m = regex.exec(text);
    if (!m) break;
    const start = m.index;
    const end = start + m[0].length;
    if (start === end && end === lastMatchEnd) {
      from += from < text.length ? String.fromCodePoint(text.codePointAt(from)!).length : 1;
      continue;
    }
    if (previous !== start) spans.push([previous, start, false]);
    spans.push([start, end, true]);
    previous = end;
    from = end;
    lastMatchEnd = end;
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
