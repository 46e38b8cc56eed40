// The Generate panel's keys in the URL hash, as the other owners of the hash (the
// playground's settings) see them: keys that start with GENERATION_HASH_PREFIX are the
// panel's (model/generation-state.ts reads and writes them); the others leave them be. A
// module of its own, so the one-tag element, which never shows the panel, carries only this.

/** The URL hash's keys of the panel's state start with this (the playground's own keys never do). */
export const GENERATION_HASH_PREFIX = 'gen.';

/** The hash's generation part alone ('gen.*' keys, as written): what another owner of the hash keeps when it writes. */
export function generationHashPart(hash: string): string {
  const kept = new URLSearchParams();
  for (const [key, value] of new URLSearchParams(hash.replace(/^#/, '')))
    if (key.startsWith(GENERATION_HASH_PREFIX)) kept.append(key, value);
  return kept.toString();
}
