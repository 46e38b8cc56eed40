// A trained model on the Explore page, where the engine runs (the page's worker; Node in
// tests): the model the Train view builds for its settings (createTrainer, as training.ts
// does) with the given weights loaded, kept for the next keystroke, and run on what was
// typed with every stage recorded. The result is a Trace of the shape engine.run gives
// (mode 'decoder': the Train view's models are causal), so every Explore view draws it.
import type { AttentionEngine, ModelConfig, Trace, Trainer } from 'attention-playground';
import { trainStateFromHash, trainerOptions } from '../settings/train-settings.js';
import { charactersAreTokens, inputLines, parseProbeInput } from '../model/probe-input.js';

/** A trained model as the page hands it over. */
export interface TrainedModelRef {
  /** Names these settings and weights (a checkpoint's id, a hash of offered weights): the built model is kept under it. */
  key: string;
  /** The Train view's settings: its URL hash without '#train&'. */
  settings: string;
  /** The weights, a .safetensors file. */
  weights: Uint8Array;
}

/** One run of a trained model: the model, and the typed text (one sequence per line). */
export interface TrainedRunInput {
  trained: TrainedModelRef;
  text: string;
}

/** A problem with the typed text (the page shows it at the text box), not with the model. */
export class InputError extends Error {}

/** Sequences per run, as the playground's own batch (its 'sequence' setting goes to 15). */
export const MAX_SEQUENCES = 16;

/** Built models kept at once (each holds a trainer: its weights and optimizer state, a few hundred KB). */
const KEEP = 4;

/** A trained model as built here: its trainer (whose model runs), vocabulary and config. */
export interface Built {
  trainer: Trainer;
  vocabulary: string[];
  characters: boolean;
  config: ModelConfig;
}

export function isTrainedRun(input: object): input is TrainedRunInput {
  return 'trained' in input;
}

export class TrainedModels {
  #engine: AttentionEngine;
  /** Least recently used first. */
  #built = new Map<string, Built>();

  constructor(engine: AttentionEngine) {
    this.#engine = engine;
  }

  /** The trace of the typed text; throws InputError for bad input, Error for a model that does not build. */
  trace(input: TrainedRunInput): Trace {
    const model = this.built(input.trained);
    const { maxSeq } = model.trainer.model.spec;
    const lines = inputLines(input.text, model.characters);
    if (lines.length === 0) throw new InputError('Type some tokens first.');
    if (lines.length > MAX_SEQUENCES)
      throw new InputError(`At most ${MAX_SEQUENCES} lines (sequences), got ${lines.length}.`);
    const where = (i: number) => (lines.length > 1 ? `Line ${i + 1}: ` : '');
    const sequences = lines.map((line, i) => {
      const parsed = parseProbeInput(line, model.vocabulary, model.characters);
      if ('error' in parsed) throw new InputError(`${where(i)}${parsed.error}`);
      if (parsed.ids.length > maxSeq)
        throw new InputError(
          `${where(i)}${parsed.ids.length} tokens: this model reads at most ${maxSeq} (its task's sequence length).`,
        );
      return parsed.ids;
    });
    const batch = sequences.length;
    const seq = Math.max(...sequences.map((s) => s.length));
    const ids = new Int32Array(batch * seq); // (B, S); padding positions hold id 0, masked by `lengths`
    sequences.forEach((s, b) => ids.set(s, b * seq));
    const result = model.trainer.model.forward({
      ids,
      batch,
      seq,
      lengths: sequences.map((s) => s.length),
      record: true,
    });
    return {
      mode: 'decoder',
      config: model.config,
      sourceTokens: [],
      stages: result.trace!.stages,
      tokens: sequences.map((s) => s.map((id) => model.vocabulary[id])),
    };
  }

  dispose(): void {
    for (const built of this.#built.values()) built.trainer.dispose();
    this.#built.clear();
  }

  /** The model of these settings and weights, built once and kept (the last KEEP used). */
  built(ref: TrainedModelRef): Built {
    const kept = this.#built.get(ref.key);
    if (kept) {
      this.#built.delete(ref.key); // re-insert: now the most recently used
      this.#built.set(ref.key, kept);
      return kept;
    }
    const built = this.#build(ref);
    this.#built.set(ref.key, built);
    if (this.#built.size > KEEP) {
      const [oldest, { trainer }] = this.#built.entries().next().value as [string, Built];
      trainer.dispose();
      this.#built.delete(oldest);
    }
    return built;
  }

  #build(ref: TrainedModelRef): Built {
    const { state, problems } = trainStateFromHash(`#train&${ref.settings}`);
    if (problems.length > 0) throw new Error(`The model's settings do not read: ${problems.join('; ')}.`);
    const options = trainerOptions(state);
    const trainer = this.#engine.createTrainer(options);
    try {
      trainer.model.loadWeights(ref.weights);
    } catch (error) {
      trainer.dispose();
      throw new Error(
        `The model's weights do not fit its settings: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    const spec = trainer.model.spec;
    // The playground's config, read off the spec: the views read heads and layers; the JSON export shows it all.
    // 'preset' says how the weights started (Xavier-uniform from the seed) before training.
    const config: ModelConfig = {
      dModel: spec.dModel,
      heads: spec.heads,
      layers: spec.layers,
      ffnDim: spec.ffnDim,
      seed: options.seed ?? 1,
      preset: 'random',
      scale: spec.scale,
      residual: spec.residual,
      positional: spec.positions !== 'none',
      // The playground's kinds; a learned table reads as the added kind (sinusoidal), as the views draw it.
      positions: spec.positions === 'rope' || spec.positions === 'alibi' ? spec.positions : 'sinusoidal',
      kvHeads: spec.kvHeads,
      window: spec.window,
      normType: spec.normType === 'layernorm' ? 'layernorm' : 'rmsnorm',
      ffn: spec.ffn,
      activation: spec.activation,
      norm: spec.norm,
    };
    return { trainer, vocabulary: trainer.vocabulary() ?? [], characters: charactersAreTokens(state), config };
  }
}
