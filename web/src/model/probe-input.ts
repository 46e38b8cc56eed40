// What a person types for a trained model (the Train view's probe box, the Explore page's text
// box with a trained model), as the task's token ids: each character for character-level
// text, else tokens separated by spaces ("3 1 2 |").

export function parseProbeInput(
  text: string,
  vocabulary: readonly string[],
  characters: boolean,
): { ids: number[] } | { error: string } {
  const pieces = characters
    ? Array.from(text)
    : text
        .trim()
        .split(/\s+/)
        .filter((p) => p.length > 0);
  if (pieces.length === 0) return { error: 'Type some tokens first.' };
  const ids: number[] = [];
  for (const piece of pieces) {
    const id = vocabulary.indexOf(piece);
    if (id < 0) {
      const shown = vocabulary.map((t) => (t === ' ' ? '␣' : t)).join(' ');
      return {
        error: `'${piece}' is not a token of this task (its tokens: ${shown.length > 120 ? `${shown.slice(0, 119)}…` : shown})`,
      };
    }
    ids.push(id);
  }
  return { ids };
}

/** Tokens as a person types them (parseProbeInput's inverse): run together for characters, else space-separated. */
export function tokensAsInput(tokens: readonly string[], characters: boolean): string {
  return tokens.join(characters ? '' : ' ');
}

/** The prompt part of an example: its tokens up to the first scored position (what the model must continue). */
function promptTokens(tokens: readonly string[], expected: readonly (string | null)[]): readonly string[] {
  const first = expected.findIndex((e) => e !== null);
  return tokens.slice(0, first < 0 ? tokens.length : first + 1);
}

/** The prompt part of an example as a person types it. */
export function promptOf(tokens: readonly string[], expected: readonly (string | null)[], characters: boolean): string {
  return tokensAsInput(promptTokens(tokens, expected), characters);
}

/** Whether each character is a token: the text task without 'words as tokens' (the Train view's settings). */
export function charactersAreTokens(trainState: { task?: unknown; words?: unknown }): boolean {
  return trainState.task === 'text' && !trainState.words;
}

/**
 * The sequences of a multi-line input, one per non-empty line. Token lines are trimmed;
 * character lines are kept as typed (a leading or trailing space is a token there).
 */
export function inputLines(text: string, characters: boolean): string[] {
  const lines = text.split('\n');
  return characters
    ? lines.filter((line) => line.length > 0)
    : lines.map((line) => line.trim()).filter((line) => line.length > 0);
}

/**
 * For a task of fixed-length prompts: a note when the typed prompt (`length` tokens) is longer or shorter than the
 * held-out example's, whose length the model was trained on; '' when they match.
 */
export function lengthNote(
  example: { tokens: readonly string[]; expected: readonly (string | null)[] } | null,
  length: number,
): string {
  const trained = example ? promptTokens(example.tokens, example.expected).length : length;
  if (trained === length) return '';
  return (
    `The model was trained on prompts of ${trained} tokens (like the held-out example); yours has ${length}, ` +
    'so what it writes need not make sense.'
  );
}
