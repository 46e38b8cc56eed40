// The real models "Try a real model" offers (web/src/model/pretrained-models.ts): one
// declaration each, offered only once the engine reads the declared family; the hub's
// file layout; the families the pretrained dialog names, from the engine's description; how
// the quick start holds a model's weights (the person's pick, else the model's, else the default).
import { describe, expect, it } from 'vitest';
import { ENGINE } from '../../dist/index.js';
import {
  REAL_MODELS,
  familyNames,
  hubFileUrl,
  realModelHeld,
  realModelHeldText,
  realModels,
  type RealModel,
} from '../../web/src/model/pretrained-models.js';

describe('real models', () => {
  it('offers GPT-2 small, whose family the engine reads, with the files the loader needs', () => {
    const offered = realModels();
    expect(offered.map((m) => m.repo)).toContain('openai-community/gpt2');
    for (const model of offered) {
      expect(ENGINE.families.map((f) => f.name)).toContain(model.family);
      expect(model.files).toContain('config.json');
      expect(model.files).toContain('model.safetensors');
      expect(model.declaredBytes).toBeGreaterThan(0);
    }
    expect(offered).toEqual(REAL_MODELS.filter((m) => ENGINE.families.some((f) => f.name === m.family)));
  });

  it('waits with a model whose family the engine does not read yet (one declaration adds it later)', () => {
    const future: RealModel = {
      label: 'A future model',
      repo: 'someone/future-model',
      family: 'not-a-family-yet',
      files: ['config.json', 'tokenizer.json', 'model.safetensors'],
      declaredBytes: 269_000_000,
    };
    expect(realModels([...REAL_MODELS, future]).map((m) => m.label)).not.toContain('A future model');
    const gpt2Family = { ...future, family: 'gpt2' };
    expect(realModels([...REAL_MODELS, gpt2Family]).map((m) => m.label)).toContain('A future model');
  });

  it('reads files from {base}/{repo}/resolve/main/{file}, with or without a trailing slash', () => {
    expect(hubFileUrl('https://huggingface.co', 'openai-community/gpt2', 'config.json')).toBe(
      'https://huggingface.co/openai-community/gpt2/resolve/main/config.json',
    );
    expect(hubFileUrl('http://127.0.0.1:8000/mirror//', 'gpt2', 'model.safetensors')).toBe(
      'http://127.0.0.1:8000/mirror/gpt2/resolve/main/model.safetensors',
    );
  });

  it('declares the modern checkpoints people run in browsers, each with its family, files and size', () => {
    const byRepo = Object.fromEntries(REAL_MODELS.map((m) => [m.repo, m]));
    expect(Object.fromEntries(Object.entries(byRepo).map(([repo, m]) => [repo, m.family]))).toEqual({
      'openai-community/gpt2': 'gpt2',
      'HuggingFaceTB/SmolLM2-135M': 'llama',
      'HuggingFaceTB/SmolLM2-360M': 'llama',
      'Qwen/Qwen2.5-0.5B': 'qwen2',
      'Qwen/Qwen3-0.6B': 'qwen3',
      'google/gemma-3-270m': 'gemma3_text',
      'meta-llama/Llama-3.2-1B': 'llama',
    });
    for (const m of REAL_MODELS.filter((m) => m.family !== 'gpt2')) {
      expect(m.files).toEqual(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.safetensors']);
      expect(m.declaredBytes).toBeGreaterThan(2e8); // BF16 weights of at least 100 M parameters
    }
    // the hub serves these two only to signed-in people who accepted the licence
    expect(REAL_MODELS.filter((m) => m.gated).map((m) => m.repo)).toEqual([
      'google/gemma-3-270m',
      'meta-llama/Llama-3.2-1B',
    ]);
    expect(new Set(REAL_MODELS.map((m) => m.label)).size).toBe(REAL_MODELS.length);
  });

  it('names the families the engine declares, each with its real models', () => {
    const names = ENGINE.families.map((f) => f.name);
    const said = familyNames();
    for (const name of names) expect(said).toContain(name);
    expect(said).toContain('gpt2 (GPT-2 small)');
    const listed = [
      { ...REAL_MODELS[0], label: 'A' },
      { ...REAL_MODELS[0], label: 'B' },
    ];
    expect(familyNames(listed)).toContain('gpt2 (A, B)');
    expect(familyNames([])).toBe(names.length === 2 ? `${names[0]} and ${names[1]}` : familyNames([]));
  });

  it('holds the weights as the person picked under Weights in memory, else as the model declares, else auto', () => {
    const gpt2 = REAL_MODELS.find((m) => m.repo === 'openai-community/gpt2')!;
    const llama = REAL_MODELS.find((m) => m.repo === 'meta-llama/Llama-3.2-1B')!;
    expect(gpt2.weights).toBeUndefined();
    expect(llama.weights).toBe('q8_0');
    // No pick (the settings' defaults): the model's own mode, else the engine's default.
    expect(realModelHeld(gpt2, 'auto', 'f32')).toEqual({ weights: 'auto', q8Activations: 'f32', by: 'default' });
    expect(realModelHeld(llama, 'auto', 'f32')).toEqual({ weights: 'q8_0', q8Activations: 'f32', by: 'model' });
    // A pick wins, for a model that declares a mode too; int16 activations only where they apply.
    expect(realModelHeld(gpt2, 'bf16', 'f32')).toEqual({ weights: 'bf16', q8Activations: 'f32', by: 'pick' });
    expect(realModelHeld(llama, 'f32', 'f32')).toEqual({ weights: 'f32', q8Activations: 'f32', by: 'pick' });
    expect(realModelHeld(gpt2, 'q8_0', 'int16')).toEqual({ weights: 'q8_0', q8Activations: 'int16', by: 'pick' });
    expect(realModelHeld(gpt2, 'bf16', 'int16')).toEqual({ weights: 'bf16', q8Activations: 'f32', by: 'pick' });
    // An int16 pick left over with auto weights is no pick: the model's mode, with float32 activations.
    expect(realModelHeld(llama, 'auto', 'int16')).toEqual({ weights: 'q8_0', q8Activations: 'f32', by: 'model' });
  });

  it('says how the weights will be held, and why, before the download', () => {
    const gpt2 = REAL_MODELS[0];
    expect(realModelHeldText(realModelHeld(gpt2, 'auto', 'f32'))).toBe(
      'The engine holds its weights as the file stores them (auto).',
    );
    expect(realModelHeldText(realModelHeld(gpt2, 'bf16', 'f32'))).toBe(
      'The engine holds its weights in bf16, as picked under \u201cWeights in memory\u201d.',
    );
    expect(realModelHeldText(realModelHeld(gpt2, 'q8_0', 'int16'))).toBe(
      'The engine holds its weights in q8_0, int16 activations, as picked under \u201cWeights in memory\u201d.',
    );
    expect(realModelHeldText(realModelHeld({ weights: 'q8_0' }, 'auto', 'f32'))).toMatch(
      /in 8 bits \(q8_0\), to fit this browser\u2019s memory\.$/,
    );
    expect(realModelHeldText(realModelHeld({ weights: 'bf16' }, 'auto', 'f32'))).toMatch(/in 16 bits \(bf16, rounded/);
  });
});
