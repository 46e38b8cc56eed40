// How the engine holds a pretrained checkpoint's matrices (engine.loadPretrained's `weights`,
// and with 'q8_0' its `q8Activations`; docs/pretrained.md, "Weights in memory"): the page's
// choices are the engine's own lists (ENGINE.weightsModes and ENGINE.q8ActivationsModes,
// declared in C++), each said in one line (memory, speed, exactness). The compiler holds
// the lines to the list: a mode the engine adds without a line here does not build.
import { ENGINE, type Q8Activations, type WeightsMode } from 'attention-playground';

export type { Q8Activations, WeightsMode };

/** The engine's modes, in its order. */
export const WEIGHTS_MODES: readonly WeightsMode[] = ENGINE.weightsModes;

/** loadPretrained's defaults (no `weights`, no `q8Activations`): what a link without them loads. */
export const DEFAULT_WEIGHTS: WeightsMode = 'auto';
export const DEFAULT_Q8_ACTIVATIONS: Q8Activations = 'f32';

/** Each mode in a line; bytes per value and speeds as docs/pretrained.md and docs/performance.md measure them. */
const WEIGHTS_WORDS: Record<WeightsMode, string> = {
  f32: 'float32, 4 bytes a value: exact, the most memory; every file widened, so the model can be trained and saved',
  auto: 'as the file stores them (F16 and BF16 stay 16-bit, F32 stays F32): exact, the default',
  bf16: 'BF16, 2 bytes a value: half of float32\u2019s memory, the fastest 16-bit decoding; rounded, close to float32',
  q8_0: '8 bits (Q8_0), about 1 byte a value: a quarter of float32\u2019s memory, fast decoding; quantized, close to float32',
};

const Q8_ACTIVATIONS_WORDS: Record<Q8Activations, string> = {
  f32: 'activations as they are (float32 products)',
  int16: 'activations rounded to int16 so the products run in integers: fast decoding; logits within about 1e-4',
  int8: 'activations rounded to int8 (ggml\u2019s Q8_0 x Q8_0): the fastest decoding where relaxed SIMD runs; logits within a few hundredths',
};

/** The engine's activation modes, in its order. */
export const Q8_ACTIVATIONS: readonly Q8Activations[] = ENGINE.q8ActivationsModes;

export const weightsWords = (mode: WeightsMode): string => WEIGHTS_WORDS[mode];
export const q8ActivationsWords = (mode: Q8Activations): string => Q8_ACTIVATIONS_WORDS[mode];

/** What the engine accepts with `weights`: rounded activations ('int16', 'int8') only with 8-bit weights (else it refuses the load). */
export function usesQ8Activations(weights: WeightsMode): boolean {
  return weights === 'q8_0';
}

/** Whether a load rounds the activations: a mode other than the default, with the weights it applies to. */
export function roundsActivations(weights: WeightsMode, q8Activations: Q8Activations): boolean {
  return usesQ8Activations(weights) && q8Activations !== DEFAULT_Q8_ACTIVATIONS;
}

/** loadPretrained's options for a choice: the activations' mode only where it applies, defaults left out. */
export function heldOptions(
  weights: WeightsMode,
  q8Activations: Q8Activations,
): { weights?: WeightsMode; q8Activations?: Q8Activations } {
  return {
    ...(weights === DEFAULT_WEIGHTS ? {} : { weights }),
    ...(roundsActivations(weights, q8Activations) ? { q8Activations } : {}),
  };
}
