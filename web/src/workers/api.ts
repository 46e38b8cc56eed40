// What the playground asks of an engine, wherever it runs (a worker on the page,
// the page's own thread in the one-tag element): run a model, report the outcome.
// Three kinds of request: the untrained playground model on sentences (engine.run), a
// trained model on tokens of its task (trained-trace.ts), or a pretrained GPT-2 / BERT
// checkpoint on text (pretrained-run.ts); all give a Trace. Pretrained checkpoints are
// loaded here too, with progress out and a way to cancel.
import type { AttentionEngine, RunInput, Trace } from 'attention-playground';
import type { LoadOutcome, Prediction, PretrainedProgress, PretrainedSource } from '../model/pretrained-info.js';
import type { Recorded } from '../model/recorded-stages.js';
import { PretrainedModels, isPretrainedRun, type PretrainedRunInput } from './pretrained-run.js';
import { InputError, TrainedModels, isTrainedRun, type TrainedRunInput } from './trained-trace.js';
import type { GenerationApi, HeldModels } from './generation-run.js';
import type { HeadsApi } from './heads-run.js';

export type EngineRequest = RunInput | TrainedRunInput | PretrainedRunInput;

export type RunOutcome =
  | {
      ok: true;
      trace: Trace;
      build: string;
      milliseconds: number;
      heapBytes: number;
      /** A pretrained model's guesses (next token, or each [MASK]); absent for the other models. */
      predictions?: Prediction[];
      /** A pretrained model's run: which stages were recorded (fewer for a long text). */
      recorded?: Recorded;
      /** With recorded: the longest text whose run keeps every attention stage. */
      stagesUpTo?: number;
      /** A pretrained model given chat turns: the text its chat template made of them (what it read). */
      rendered?: string;
    }
  /** field: 'text' when what was typed is the problem (shown at the text box). */
  | { ok: false; error: string; field?: 'text' };

export interface EngineApi extends Partial<GenerationApi>, Partial<HeadsApi> {
  run(input: EngineRequest): Promise<RunOutcome>;
  /** Loads a pretrained checkpoint (the previous one is freed once this one is ready). */
  loadPretrained?(source: PretrainedSource, onProgress: (p: PretrainedProgress) => void): Promise<LoadOutcome>;
  /** Stops the load under way: it answers with code 'aborted'. */
  cancelPretrained?(): Promise<void> | void;
}

/** The requests every engine answers; `extend` adds more on the same models (the site's worker: generation-run.ts). */
export function engineApi<Extra extends object = object>(
  load: () => Promise<AttentionEngine>,
  extend?: (held: HeldModels) => Extra,
): Required<Pick<EngineApi, 'run' | 'loadPretrained' | 'cancelPretrained'>> & Extra {
  let engine: Promise<AttentionEngine> | null = null;
  let trained: TrainedModels | null = null;
  let pretrained: PretrainedModels | null = null;
  const extra = extend?.({
    engine: () => (engine ??= load()),
    pretrained: async () => (pretrained ??= new PretrainedModels(await (engine ??= load()))),
    trained: async () => (trained ??= new TrainedModels(await (engine ??= load()))),
  });
  return {
    ...(extra as Extra),
    async run(input) {
      const attention = await (engine ??= load());
      const started = performance.now();
      try {
        let extra = {};
        let trace: Trace;
        if (isPretrainedRun(input)) {
          const result = await (pretrained ??= new PretrainedModels(attention)).trace(input);
          trace = result.trace;
          extra = {
            predictions: result.predictions,
            recorded: result.recorded,
            stagesUpTo: result.stagesUpTo,
            rendered: result.rendered,
          };
        } else
          trace = isTrainedRun(input) ? (trained ??= new TrainedModels(attention)).trace(input) : attention.run(input);
        const milliseconds = performance.now() - started;
        const heapBytes = attention.heapBytesInUse(); // shown in the status line: it must stay flat
        return { ok: true, trace, build: attention.build, milliseconds, heapBytes, ...extra };
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return error instanceof InputError
          ? { ok: false, error: message, field: 'text' }
          : { ok: false, error: message };
      }
    },
    async loadPretrained(source, onProgress) {
      let attention: AttentionEngine;
      try {
        attention = await (engine ??= load());
      } catch (error) {
        return { ok: false, error: `the engine did not load: ${String(error)}`, code: 'engine', field: '' };
      }
      return (pretrained ??= new PretrainedModels(attention)).load(source, onProgress);
    },
    cancelPretrained() {
      pretrained?.cancel();
    },
  };
}
