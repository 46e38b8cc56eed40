// A loaded pretrained model's facts in a few words, for its summary beside the view: its
// heads (grouped-query attention: how many query heads share each K/V head), how positions
// enter, where its sliding window applies, its norm, how its weights are held. No DOM: Vitest tests it in Node.
import type { PretrainedInfo } from './pretrained-info.js';
import { count, formatBytes } from './words.js';
import { roundsActivations } from './weights-modes.js';

/** How a pretrained model's heads read keys and values: each its own, or grouped (which query heads share each K/V head). */
export function headsFact(info: Pick<PretrainedInfo, 'heads' | 'kvHeads' | 'headDim'>): string {
  const heads = `${info.heads} \u00d7 d_h ${info.headDim}`;
  if (info.kvHeads >= info.heads) return heads;
  return `${heads}, on ${count(info.kvHeads, 'K/V head')} (${info.heads / info.kvHeads} query heads each)`;
}

/** How positions enter a pretrained model, in a few words. */
export function positionsFact(info: Pick<PretrainedInfo, 'positions' | 'ropeTheta'>): string {
  if (info.positions === 'rope') return `RoPE, \u03b8 = ${info.ropeTheta.toLocaleString('en-US')}`;
  return info.positions === 'learned' ? 'learned vectors, added' : info.positions;
}

/** 2 → '2nd', 3 → '3rd', 6 → '6th', 11 → '11th', 22 → '22nd'. */
export function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? 'th' : (({ 1: 'st', 2: 'nd', 3: 'rd' } as Record<number, string>)[n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** Where a pretrained model's sliding window applies, in a few words ('' without one). */
export function windowFact(info: Pick<PretrainedInfo, 'window' | 'windowPattern' | 'layers'>): string {
  if (info.window === 0) return '';
  if (info.windowPattern > 1)
    return `${info.window} tokens in local layers; every ${ordinal(info.windowPattern)} layer is global`;
  return `${info.window} tokens in every layer`;
}

/** How the loaded model holds its weights: the mode asked for, then the bytes held by storage ('bf16: 62.4 kB (f32 8.0 kB, bf16 54.4 kB)'). */
export function heldFact(info: Pick<PretrainedInfo, 'held'>): string {
  const { weights, q8Activations, bytes } = info.held;
  const int = roundsActivations(weights, q8Activations);
  const parts = Object.entries(bytes)
    .filter(([storage, n]) => storage !== 'total' && n > 0)
    .map(([storage, n]) => `${storage} ${formatBytes(n)}`);
  return `${weights}${int ? `, ${q8Activations} activations` : ''}: ${formatBytes(bytes.total)} (${parts.join(', ')})`;
}

export const NORM_NAMES: Record<string, string> = {
  layernorm: 'LayerNorm',
  rmsnorm: 'RMSNorm',
  rmsnorm_offset: 'RMSNorm (1 + weight)',
};
