// The settings whose 0 stands for something else (their declarations say so in their help:
// "0 = dModel / heads", "0 = one per head", "0 = off"), and what 0 resolves to in a state, so the
// page shows "default (8)" or "off" where a bare 0 would read as zero heads, dimensions or steps.
// The playground's and the Train view's tables share these names. No DOM: tests/web/settings.test.ts
// also checks that every setting whose help declares a meaning for 0 is here.

type Values = Readonly<Record<string, unknown>>;

const whole = (n: number) => (Number.isInteger(n) && n > 0 ? n : null);
/** d_h: E / H (null where H does not divide E: the engine refuses that model, and names why). */
const headDim = (s: Values) => (Number(s.headDim) > 0 ? Number(s.headDim) : whole(Number(s.dModel) / Number(s.heads)));

/** A setting's 0 -> the value used instead (null: the other settings give none), or what it does, in a word. */
export const ZERO_MEANS: Record<string, (s: Values) => number | string | null> = {
  kvHeads: (s) => whole(Number(s.heads)), // one K/V head per query head: multi-head attention
  headDim,
  queryPreAttnScalar: headDim, // scores ÷ √d_h
  ropeLocalTheta: (s) => (Number(s.ropeTheta) > 0 ? Number(s.ropeTheta) : null), // the global layers' base
  ffnDim: (s) => whole(4 * Number(s.dModel)), // the playground's 4 × d_model
  evalLength: (s) => whole(Number(s.length)), // held out at the trained length
  window: () => 'none',
  clipNorm: () => 'off',
  stopAt: () => 'never',
};

/**
 * How the page shows such a setting's 0 in `state`: 'default (8)' (a value derived from the others; 'default' when
 * they give none), or its word ('none', 'off'); null for any other value or setting (shown as it is).
 */
export function zeroDefaultText(name: string, value: unknown, state: Values): string | null {
  const means = ZERO_MEANS[name];
  if (!means || value !== 0) return null;
  const resolved = means(state);
  if (typeof resolved === 'string') return resolved;
  return resolved === null ? 'default' : `default (${resolved})`;
}
