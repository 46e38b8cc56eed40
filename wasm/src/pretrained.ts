// loadPretrained: a checkpoint of a family the engine reads (GPT-2, BERT, Llama, Qwen 2 / 3,
// Gemma 3, Mistral) in the hub's layout (config.json, model.safetensors or its shards with
// model.safetensors.index.json, and the tokenizer's files) into a Model and a Tokenizer. The engine reads config.json, maps the hub's
// tensor names onto its parameters and checks every tensor (core/src/pretrained); this
// file only finds the files and hands them over one at a time.
import {
  type CheckpointFiles,
  type FileSource,
  type LoadProgress,
  filesSource,
  hubSource,
  throwIfAborted,
} from './checkpoint-files.js';
import { AttentionError, describeValue, fromEngine } from './errors.js';
import type { Generation, RawGenerationClass } from './generation.js';
import type { ErrorCode } from './schema.js';
import { Model, type RawModel } from './model.js';
import { EngineTokenizer, type Encoding, type RawTokenizer, type Tokenizer } from './tokenizers.js';
import { createHubTokenizer } from './hub-tokenizer/index.js';
import type { ForwardInput, ForwardResult, GenerateOptions, ModelSpec } from './types.js';
import { ENGINE, type Family, type FamilyTokenizer, type Q8Activations, type WeightsMode } from './schema.js';

type RawError = { error?: { message: string; code: string; field: string } };

/** The raw Embind surface this file uses (see pretrained_bindings.cpp). */
export interface RawPretrainedModule {
  _CheckpointLoader: new (config: string, weights: string, q8Activations: string) => RawCheckpointLoader;
  _readShardIndex(json: string): RawError & { weightMap?: Record<string, string>; files?: string[] };
  _Gpt2Bpe: new (first: string, merges: string, fromTokenizerJson: boolean) => RawTokenizer;
  _WordPiece: new (first: string, config: string, fromTokenizerJson: boolean) => RawTokenizer;
  _Generation: RawGenerationClass;
}
interface RawCheckpointLoader {
  error(): RawError | undefined;
  config(): { family: Family; modelType: string; architecture: string; padTokenId: number; spec: string };
  addFile(bytes: Uint8Array, name: string, expected: string[] | null): RawError | undefined;
  skipped(): [string, string][];
  finish(): RawModel | null;
  delete(): void;
}

export interface LoadPretrainedOptions {
  /** The checkpoint's files: a FileList, File[] or { name: bytes } (folders in names are ignored). */
  files?: CheckpointFiles;
  /** Or a model name on a hub, e.g. 'gpt2' or 'owner/name', read from {baseUrl}/{repo}/resolve/main/{file}. */
  repo?: string;
  /** The hub for `repo`. Default: 'https://huggingface.co'. */
  baseUrl?: string | URL;
  /** Called as bytes arrive (downloads) or as each given file is read. */
  onProgress?: (progress: LoadProgress) => void;
  /** Stops the load: it then rejects with an AttentionError of code 'aborted'. */
  signal?: AbortSignal;
  /**
   * How the matrix weights are held in memory (docs/pretrained.md, "Weights in memory"):
   * 'auto' (the default) keeps F16 / BF16 files in 16 bits and F32 files in F32; 'f32'
   * widens everything to float32 (needed to train or write the weights); 'bf16' holds every
   * matrix in BF16 (F32 and F16 values rounded to nearest-even on load); 'q8_0' quantizes
   * each matrix on load to 8 bits (blocks of 32 with one scale). Models held in 16 or 8
   * bits are read-only.
   */
  weights?: WeightsMode;
  /**
   * How products with the 'q8_0' matrices take the activations (docs/pretrained.md, "Weights in
   * memory"): 'f32' (the default) as they are; 'int16' rounds each row per block of 32 to
   * int16 first (d = max|x| / 32767), so decoding multiplies in integers, faster and within
   * about 1e-4 of 'f32''s logits; 'int8' rounds to int8 (d = max|x| / 127, ggml's Q8_0 x Q8_0),
   * faster again where the engine runs relaxed SIMD (Chromium), within a few hundredths.
   * 'int16' and 'int8' need weights 'q8_0'.
   */
  q8Activations?: Q8Activations;
}

/** LoadPretrainedOptions.weights: the engine's modes (ENGINE.weightsModes). */
export type { WeightsMode };

/** LoadPretrainedOptions.q8Activations: the engine's modes (ENGINE.q8ActivationsModes). */
export type { Q8Activations };

const OPTION_KEYS = new Set(['files', 'repo', 'baseUrl', 'onProgress', 'signal', 'weights', 'q8Activations']);

/** A checkpoint's model with its tokenizer. Call dispose() when done: both live in the engine. */
export class PretrainedModel {
  /** The family, as config.json's model_type names it ('gpt2', 'bert', 'llama', 'qwen2', 'qwen3', 'gemma3_text', 'gemma3', 'mistral'). */
  readonly family: Family;
  /** config.json's model_type and architectures[0] ('' when absent). */
  readonly modelType: string;
  readonly architecture: string;
  /** The engine's spec of the model (read from config.json). */
  readonly spec: Readonly<ModelSpec>;
  /** The padding token's id, or -1. */
  readonly padTokenId: number;
  /** Tensors of the files the engine has no use for, with the reason (e.g. GPT-2's attn.bias mask tables, Gemma 3's vision tower). */
  readonly skipped: ReadonlyArray<readonly [string, string]>;
  readonly model: Model;
  readonly tokenizer: Tokenizer;

  /** @internal Made by loadPretrained. */
  constructor(parts: {
    model: Model;
    tokenizer: Tokenizer;
    family: Family;
    modelType: string;
    architecture: string;
    padTokenId: number;
    skipped: [string, string][];
  }) {
    this.model = parts.model;
    this.tokenizer = parts.tokenizer;
    this.spec = parts.model.spec;
    this.family = parts.family;
    this.modelType = parts.modelType;
    this.architecture = parts.architecture;
    this.padTokenId = parts.padTokenId;
    this.skipped = Object.freeze(parts.skipped.map((entry) => Object.freeze(entry) as readonly [string, string]));
  }

  /**
   * The text (and for BERT a second text) as the model's tokens, with the special tokens the
   * tokenizer adds; longer than maxSeq, or holding a token the model has no row for (Gemma 3's
   * `<image_soft_token>` in a text-only model), is an error.
   */
  tokenize(text: string, pair?: string): Encoding {
    const encoding = this.tokenizer.encode(text, pair);
    if (encoding.ids.length > this.spec.maxSeq)
      throw new AttentionError(
        `the text is ${encoding.ids.length} tokens long; this model reads at most ${this.spec.maxSeq}`,
        { code: 'limit_exceeded', field: 'text', value: encoding.ids.length },
      );
    const outside = encoding.ids.findIndex((id) => id >= this.spec.vocabSize);
    if (outside >= 0)
      throw new AttentionError(
        `the text holds the token '${encoding.tokens[outside]}' (id ${encoding.ids[outside]}), outside this model's ` +
          `vocabulary of ${this.spec.vocabSize}`,
        { code: 'out_of_range', field: 'text', value: encoding.ids[outside] },
      );
    return encoding;
  }

  /** model.forward: ids (and tokenTypes for BERT) in, hidden states, logits and the recorded stages out. */
  forward(input: ForwardInput): ForwardResult {
    return this.model.forward(input);
  }

  /** model.generate with this checkpoint's tokenizer: steps carry their text (piece), and stop strings work. */
  generate(options: GenerateOptions): Generation {
    return this.model.generate({ tokenizer: this.tokenizer, ...options });
  }

  get disposed(): boolean {
    return this.model.disposed;
  }

  /** Frees the model and the tokenizer. */
  dispose(): void {
    this.model.dispose();
    this.tokenizer.dispose();
  }
}

const decoder = new TextDecoder('utf-8', { fatal: false });

async function text(source: FileSource, name: string): Promise<string | null> {
  const bytes = await source.read(name);
  return bytes && decoder.decode(bytes);
}

function missing(source: FileSource, what: string, files: string): AttentionError {
  return new AttentionError(`${source.where}: ${what} needs ${files}`, {
    code: 'missing_file',
    field: files.split(' ')[0],
  });
}

/** The tokenizer kind the engine declares for a family. */
function familyTokenizer(family: Family): FamilyTokenizer {
  return ENGINE.families.find((f) => f.name === family)!.tokenizer;
}

async function loadTokenizer(module: RawPretrainedModule, source: FileSource, family: Family): Promise<Tokenizer> {
  const json = await text(source, 'tokenizer.json');
  const kind = familyTokenizer(family);
  if (kind === 'tokenizer.json') {
    // Llama, Qwen, Gemma 3, Mistral: tokenizer.json with tokenizer_config.json's special
    // tokens and chat template (the hub tokenizer, in TypeScript).
    if (json === null) throw missing(source, `a ${family} model's tokenizer`, 'tokenizer.json');
    return createHubTokenizer(json, await text(source, 'tokenizer_config.json'));
  }
  if (kind === 'bpe') {
    if (json !== null) return new EngineTokenizer('gpt2-bpe', new module._Gpt2Bpe(json, '', true));
    const vocab = await text(source, 'vocab.json');
    const merges = vocab === null ? null : await text(source, 'merges.txt');
    if (vocab === null || merges === null)
      throw missing(source, "GPT-2's tokenizer", 'tokenizer.json (or vocab.json and merges.txt)');
    return new EngineTokenizer('gpt2-bpe', new module._Gpt2Bpe(vocab, merges, false));
  }
  if (json !== null) return new EngineTokenizer('wordpiece', new module._WordPiece(json, '', true));
  const vocab = await text(source, 'vocab.txt');
  if (vocab === null) throw missing(source, "BERT's tokenizer", 'tokenizer.json (or vocab.txt)');
  const config = await text(source, 'tokenizer_config.json'); // do_lower_case and the special tokens, when given
  return new EngineTokenizer('wordpiece', new module._WordPiece(vocab, config ?? '', false));
}

// Every weights file into the loader, one at a time.
async function addWeights(
  module: RawPretrainedModule,
  loader: RawCheckpointLoader,
  source: FileSource,
  signal?: AbortSignal,
) {
  const add = (bytes: Uint8Array, name: string, expected: string[] | null) => {
    throwIfAborted(signal);
    const result = loader.addFile(bytes, name, expected);
    if (result?.error) throw fromEngine(result.error);
  };
  const single = await source.read('model.safetensors');
  if (single) return add(single, 'model.safetensors', null);
  const indexText = await text(source, 'model.safetensors.index.json');
  if (indexText === null)
    throw missing(
      source,
      'the weights',
      'model.safetensors (or model.safetensors.index.json and its shards; pytorch_model.bin is not read)',
    );
  const index = module._readShardIndex(indexText);
  if (index.error) throw fromEngine(index.error);
  for (const file of index.files!) {
    const bytes = await source.read(file);
    if (!bytes) throw missing(source, 'model.safetensors.index.json', file);
    add(
      bytes,
      file,
      Object.keys(index.weightMap!).filter((name) => index.weightMap![name] === file),
    );
  }
}

/** @internal engine.loadPretrained. */
export async function loadPretrained(
  module: RawPretrainedModule,
  options: LoadPretrainedOptions,
): Promise<PretrainedModel> {
  if (typeof options !== 'object' || options === null)
    throw new AttentionError(`loadPretrained takes { files } or { repo, baseUrl }, got ${describeValue(options)}`, {
      field: 'options',
    });
  for (const key of Object.keys(options))
    if (!OPTION_KEYS.has(key)) throw new AttentionError(`unknown loadPretrained option '${key}'`, { field: key });
  if ((options.files === undefined) === (options.repo === undefined))
    throw new AttentionError('loadPretrained takes either files or repo', {
      field: options.files === undefined ? 'files' : 'repo',
    });
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function')
    throw new AttentionError('onProgress must be a function', {
      field: 'onProgress',
      value: describeValue(options.onProgress),
    });
  if (options.weights !== undefined && typeof options.weights !== 'string')
    throw new AttentionError(`weights must be one of ${ENGINE.weightsModes.map((m) => `'${m}'`).join(', ')}`, {
      field: 'weights',
      value: describeValue(options.weights),
    });
  if (options.q8Activations !== undefined && typeof options.q8Activations !== 'string')
    throw new AttentionError(
      `q8Activations must be one of ${ENGINE.q8ActivationsModes.map((m) => `'${m}'`).join(', ')}`,
      {
        field: 'q8Activations',
        value: describeValue(options.q8Activations),
      },
    );
  const { onProgress, signal } = options;
  const source =
    options.files !== undefined
      ? filesSource(options.files, onProgress, signal)
      : hubSource(options.repo, options.baseUrl, onProgress, signal);

  const configText = await text(source, 'config.json');
  if (configText === null) throw missing(source, 'a model', 'config.json');
  const loader = new module._CheckpointLoader(configText, options.weights ?? '', options.q8Activations ?? '');
  let tokenizer: Tokenizer | null = null;
  try {
    const failure = loader.error();
    if (failure?.error?.field === 'q8Activations')
      // the engine checks the option and its weights: give the value back too
      throw new AttentionError(failure.error.message, {
        code: failure.error.code as ErrorCode,
        field: 'q8Activations',
        value: options.q8Activations,
      });
    if (failure?.error)
      throw failure.error.field === 'weights' // the engine checks the mode: give the value back too
        ? new AttentionError(failure.error.message, {
            code: failure.error.code as ErrorCode,
            field: 'weights',
            value: options.weights,
          })
        : fromEngine(failure.error);
    const config = loader.config();
    tokenizer = await loadTokenizer(module, source, config.family);
    await addWeights(module, loader, source, signal);
    throwIfAborted(signal);
    const skipped = loader.skipped();
    const raw = loader.finish();
    if (!raw) throw fromEngine(loader.error()!.error!);
    const model = new Model(raw, module._Generation);
    // A tokenizer.json may hold added tokens past the model's rows (Gemma 3's <image_soft_token>,
    // id 262144 of the 262144-row text models): tokenize() refuses a text that produces one.
    if (familyTokenizer(config.family) !== 'tokenizer.json' && tokenizer.vocabSize > model.spec.vocabSize) {
      model.dispose();
      throw new AttentionError(
        `the tokenizer has ${tokenizer.vocabSize} tokens but config.json's vocabulary ${model.spec.vocabSize}`,
        { code: 'shape_mismatch', field: 'vocab_size', value: tokenizer.vocabSize },
      );
    }
    const made = new PretrainedModel({
      model,
      tokenizer,
      family: config.family,
      modelType: config.modelType,
      architecture: config.architecture,
      padTokenId: config.padTokenId,
      skipped,
    });
    tokenizer = null;
    return made;
  } finally {
    loader.delete();
    tokenizer?.dispose();
  }
}
