// The Train view's probe box: typed text to the task's token ids.
import { describe, expect, it } from 'vitest';
import { lengthNote, parseProbeInput, promptOf } from '../../web/src/model/probe-input.js';

describe('the probe box', () => {
  it('reads space-separated tokens, or characters for character-level text, and names an unknown one', () => {
    const sortVocab = ['0', '1', '2', '3', '|'];
    expect(parseProbeInput(' 3 1  2 | ', sortVocab, false)).toEqual({ ids: [3, 1, 2, 4] });
    expect(parseProbeInput('3 7 |', sortVocab, false)).toEqual({
      error: expect.stringMatching(/^'7' is not a token of this task \(its tokens: 0 1 2 3 \|\)/),
    });
    expect(parseProbeInput('   ', sortVocab, false)).toHaveProperty('error');
    expect(parseProbeInput('ab a', ['a', 'b', ' '], true)).toEqual({ ids: [0, 1, 2, 0] });
    expect(promptOf(['3', '1', '|', '1', '3'], [null, null, '1', '3', null], false)).toBe('3 1 |');
    expect(promptOf(['t', 'h', 'e'], ['h', 'e', null], true)).toBe('t');
  });

  it('notes a prompt of another length than the one the model was trained on', () => {
    // The held-out example "3 1 | 1 3": its prompt "3 1 |" has 3 tokens.
    const example = { tokens: ['3', '1', '|', '1', '3'], expected: [null, null, '1', '3', null] };
    expect(lengthNote(example, 3)).toBe('');
    expect(lengthNote(example, 5)).toBe(
      'The model was trained on prompts of 3 tokens (like the held-out example); ' +
        'yours has 5, so what it writes need not make sense.',
    );
    expect(lengthNote(null, 5)).toBe('');
  });
});
