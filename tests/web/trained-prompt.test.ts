// The Generate panel's sentence under a trained model's prompt: the task's form from the engine's TASKS, with the
// task settings the model's training fixed (the shipped checkpoints' plans, and a Train view hand-over).
import { describe, expect, it } from 'vitest';
import { CHECKPOINT_PLANS } from '../../web/src/model/checkpoint-plans.js';
import { trainedPromptHint } from '../../web/src/settings/trained-prompt.js';

const plan = (id: string) => CHECKPOINT_PLANS.find((p) => p.id === id)!.settings;
const CLOSE =
  ': it learned only that form, up to where its answer starts; other prompts get answers that mean nothing.';

describe('trainedPromptHint', () => {
  it("names a shipped checkpoint's task, the task settings its training fixed and the form of a prompt", () => {
    expect(trainedPromptHint(plan('sort'))).toBe(
      'Trained on Sort (length 8, symbols 10), on prompts of the form \u201cx_1 .. x_n | the same items sorted\u201d' +
        CLOSE,
    );
    expect(trainedPromptHint(plan('reverse'))).toBe(
      'Trained on Reverse (length 8, symbols 10), on prompts of the form \u201cx_1 .. x_n | x_n .. x_1\u201d' + CLOSE,
    );
  });

  it("follows the settings: another length, a task's own fields, no held-out length, and text read as any text", () => {
    expect(trainedPromptHint('task=sort&length=5&symbols=6&evalLength=7')).toBe(
      'Trained on Sort (length 5, symbols 6), on prompts of the form \u201cx_1 .. x_n | the same items sorted\u201d' +
        CLOSE,
    );
    expect(trainedPromptHint('task=modadd&modulus=13')).toBe(
      'Trained on Modular addition (modulus p 13), on prompts of the form \u201ca + b =\u201d' + CLOSE,
    );
    expect(trainedPromptHint('task=text&length=32')).toBe(
      'Trained on Next token of your text (length 32, words as tokens off): it continues any text in the manner of ' +
        'the text it learned from.',
    );
  });
});
