// The reference batch of the heads view's mean ablation (model.forward's `meanOver`): COUNT
// sequences of random token ids of the text's length, the same for a given vocabulary size,
// length and seed, so a shared link ablates against the same means. Random tokens are not
// the model's usual input (a pretrained model never reads such text): docs/heads.md says so.

/** Sequences in the reference batch (the engine takes at most 64). */
export const MEAN_REFERENCE_COUNT = 16;
export const MEAN_REFERENCE_SEED = 1;

/** mulberry32: a small seeded generator of 32-bit values, enough to pick token ids reproducibly. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
}

/** `count` sequences of `seq` ids in 0..vocab-1, drawn in order from the seeded generator. */
export function meanReference(
  vocab: number,
  seq: number,
  count = MEAN_REFERENCE_COUNT,
  seed = MEAN_REFERENCE_SEED,
): Int32Array[] {
  if (!(vocab >= 1 && seq >= 1 && count >= 1)) throw new RangeError(`meanReference(${vocab}, ${seq}, ${count})`);
  const next = mulberry32(seed);
  return Array.from({ length: count }, () => Int32Array.from({ length: seq }, () => next() % vocab));
}
