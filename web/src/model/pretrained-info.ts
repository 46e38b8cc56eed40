// What the page and the engine's worker say about a pretrained GPT-2 or BERT checkpoint
// (plain data: it crosses the worker boundary): what to load, the bytes read, the loaded
// model's facts, the outcome, and the model's guesses. The worker's side is
// workers/pretrained-run.ts; the panel that asks for a load is pretrained/.
import {
  ENGINE,
  type Family,
  type FamilyTokenizer,
  type Q8Activations,
  type WeightBytes,
  type WeightsMode,
} from 'attention-playground';

/** The tokenizer a family's checkpoints carry, as the engine declares it. */
export function familyTokenizer(family: Family): FamilyTokenizer {
  return ENGINE.families.find((f) => f.name === family)!.tokenizer;
}

/** What the page asks to load: the person's files (File objects clone into the worker) or a model name on a hub. */
export type PretrainedSource = ({ files: File[]; name?: string } | { repo: string; baseUrl: string }) & HeldAs;

/** How the engine holds the matrices (engine.loadPretrained's options; model/weights-modes.ts): default 'auto', 'f32'. */
export interface HeldAs {
  weights?: WeightsMode;
  /** With weights 'q8_0': 'int16' rounds the activations so the products run in integers. */
  q8Activations?: Q8Activations;
}

export interface PretrainedProgress {
  file: string;
  loaded: number;
  total: number | null;
}

/** What the page knows of a loaded model (plain data: it crosses the worker boundary). */
export interface PretrainedInfo {
  /** Names this load: runs ask for the model by it. */
  key: string;
  /** A name for people: the repo's or folder's name, else config.json's architecture. */
  name: string;
  family: Family;
  architecture: string;
  layers: number;
  /** Query heads (H). */
  heads: number;
  /** Key/value heads (H_kv): fewer than `heads` with grouped-query attention, each serving H / H_kv query heads. */
  kvHeads: number;
  /** Each head's width (d_h). */
  headDim: number;
  dModel: number;
  /** How positions enter: 'learned' (GPT-2, BERT), 'rope' (Llama, Qwen, Gemma), … (the ModelSpec's `positions`). */
  positions: string;
  /** RoPE's base θ (when positions is 'rope'). */
  ropeTheta: number;
  /** A sliding window in tokens (0: none), in every layer or, with windowPattern N > 1, all but every Nth. */
  window: number;
  windowPattern: number;
  /** 'layernorm', 'rmsnorm' or 'rmsnorm_offset' (Gemma's 1 + weight). */
  normType: string;
  maxSeq: number;
  vocabSize: number;
  /** Whether the checkpoint has a language-model head (logits), so predictions can be shown. */
  predicts: boolean;
  /** A causal stack (its next-token guess; GPT-2), else an encoder (masked-token guesses; BERT). */
  causal: boolean;
  /** The tokenizer's files carry a chat template (an instruct checkpoint): a prompt can be given as turns. */
  chat: boolean;
  /** The tensors the engine had no use for, with why. */
  skipped: [string, string][];
  /** How it was loaded, and the bytes of parameter values held, in total and by storage ('f32', 'bf16', 'f16', 'q8_0'). */
  held: { weights: WeightsMode; q8Activations: Q8Activations; bytes: WeightBytes };
}

export type LoadOutcome =
  | { ok: true; model: PretrainedInfo }
  /** code: the AttentionError's ('missing_file', 'bad_file', 'aborted', …); field: the file or tensor it names. */
  | { ok: false; error: string; code: string; field: string };

export interface Candidate {
  id: number;
  token: string;
  probability: number;
}

/** The model's guesses at one position: the next token after it (GPT-2) or the token under a [MASK] (BERT). */
export interface Prediction {
  position: number;
  kind: 'next' | 'mask';
  candidates: Candidate[];
}

/** What the loading panel asks for: the person's files (a picked folder's name names the model), or a model name on a hub. */
export type LoadRequest = ({ files: File[]; name: string } | { repo: string; baseUrl: string }) & HeldAs;

/**
 * What the loading panel (<ap-pretrained-loader>, pretrained/) works on, kept by the element that shows it, so that it
 * outlives the panel being closed and a load goes on meanwhile: the panel's state (each change redraws the panel),
 * where to load (that element's engine), and what to do with the model once loaded.
 */
export interface PretrainedPanelHost {
  /** Whether the loading dialog is open. */
  open: boolean;
  /** The model the page shows, or its link names (the picker's id, e.g. 'pretrained:openai-community/gpt2'). */
  readonly chosenModel: string;
  loading: boolean;
  loadProgress: PretrainedProgress[];
  loadError: string;
  loadNote: string;
  hubUrl: string;
  loadPretrained(source: PretrainedSource, onProgress: (p: PretrainedProgress) => void): Promise<LoadOutcome>;
  cancelPretrained(): void;
  pretrainedLoaded(info: PretrainedInfo): void | Promise<void>;
  /** Redraws `view` on each change of this state (the panel's elements draw from it); returns how to stop. */
  watch(view: { requestUpdate(): void }): () => void;
}
