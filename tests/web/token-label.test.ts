import { describe, expect, it } from 'vitest';
import { tokenLabel } from '../../web/src/model/token-label.js';

describe('tokenLabel', () => {
  it('writes the control characters a reader may know as C escapes, a newline and a tab as arrows', () => {
    expect(tokenLabel('\u000b')).toBe('\\v');
    expect(tokenLabel('\f')).toBe('\\f');
    expect(tokenLabel('\r')).toBe('\\r');
    expect(tokenLabel('\0')).toBe('\\0');
    expect(tokenLabel('a\nb')).toBe('a↵b');
    expect(tokenLabel('\t')).toBe('⇥');
  });

  it('writes other control characters as \\xNN, and DEL and the C1 controls too', () => {
    expect(tokenLabel('\u001b[0m')).toBe('\\x1b[0m');
    expect(tokenLabel('\u007f')).toBe('\\x7f');
    expect(tokenLabel('\u0085')).toBe('\\x85');
  });

  it('writes invisible format characters and unusual spaces as \\uNNNN', () => {
    expect(tokenLabel('\u200b')).toBe('\\u200b');
    expect(tokenLabel('a\u00adb')).toBe('a\\u00adb');
    expect(tokenLabel('\ufeffhello')).toBe('\\ufeffhello');
    expect(tokenLabel('\u00a0')).toBe('\\u00a0');
    expect(tokenLabel('x\u2028')).toBe('x\\u2028');
    expect(tokenLabel('\u202e')).toBe('\\u202e');
  });

  it('writes private-use, unassigned and lone surrogate code points as escapes, astral ones with braces', () => {
    expect(tokenLabel('\ue000')).toBe('\\ue000');
    expect(tokenLabel('\u{f0000}')).toBe('\\u{f0000}');
    expect(tokenLabel('\ud800')).toBe('\\ud800');
    expect(tokenLabel('\u0378')).toBe('\\u0378'); // unassigned in the Greek block
  });

  it('leaves visible text alone, including the marks pieces already carry, so it may run twice', () => {
    for (const text of [
      'the',
      '·cat',
      '[SEP]',
      '##ing',
      'é',
      '日本',
      '↵',
      '␣',
      '⇥',
      '',
      '(bytes of a character, id 7)',
    ])
      expect(tokenLabel(text)).toBe(text);
    const once = tokenLabel('a\u000b\u200bb');
    expect(tokenLabel(once)).toBe(once);
  });

  it('shows a label of plain spaces as open boxes, but keeps spaces inside words', () => {
    expect(tokenLabel(' ')).toBe('␣');
    expect(tokenLabel('   ')).toBe('␣␣␣');
    expect(tokenLabel('a b')).toBe('a b');
  });

  it('keeps the joiners and tags that draw as part of an emoji, not a stray joiner', () => {
    expect(tokenLabel('👩\u200d💻')).toBe('👩\u200d💻');
    const scotland = '🏴\u{e0067}\u{e0062}\u{e0073}\u{e0063}\u{e0074}\u{e007f}';
    expect(tokenLabel(scotland)).toBe(scotland);
    expect(tokenLabel('a\u200db')).toBe('a\\u200db');
    expect(tokenLabel('\u{e0067}')).toBe('\\u{e0067}');
  });
});
