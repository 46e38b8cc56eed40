// How the page holds a pretrained checkpoint's weights (model/weights-modes.ts): its choices are
// the engine's modes, each said in a line; the picks are settings the URL hash keeps; the load
// options leave the defaults out and int16 activations where the engine would refuse them; and a
// load through the worker's code holds what was asked (the tiny GPT-2 fixture in 'bf16').
import { readFileSync, readdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { ENGINE, loadAttention, type AttentionEngine } from '../../dist/node.js';
import {
  DEFAULT_Q8_ACTIVATIONS,
  DEFAULT_WEIGHTS,
  Q8_ACTIVATIONS,
  WEIGHTS_MODES,
  heldOptions,
  q8ActivationsWords,
  weightsWords,
} from '../../web/src/model/weights-modes.js';
import { DEFAULT_STATE, stateFromHash, stateToHash } from '../../web/src/settings/settings.js';
import { heldFact } from '../../web/src/model/pretrained-facts.js';
import { engineApi } from '../../web/src/workers/api.js';

const DIR = new URL('../reference/fixtures/pretrained/gpt2-tiny/', import.meta.url);
const files = () =>
  readdirSync(DIR)
    .filter((f) => f !== 'expected.json')
    .map((f) => new File([readFileSync(new URL(f, DIR))], f));

let engine: AttentionEngine;
beforeAll(async () => {
  engine = await loadAttention();
});

describe('the weights modes the page offers', () => {
  it('are the engine\u2019s, each with a line of its own', () => {
    expect(WEIGHTS_MODES).toEqual(ENGINE.weightsModes);
    expect(WEIGHTS_MODES).toContain('bf16');
    expect(WEIGHTS_MODES).toContain(DEFAULT_WEIGHTS);
    const lines = WEIGHTS_MODES.map(weightsWords);
    expect(lines.every((l) => l.length > 20)).toBe(true);
    expect(new Set(lines).size).toBe(lines.length);
    expect(Q8_ACTIVATIONS).toEqual(['f32', 'int16', 'int8']);
    expect(q8ActivationsWords('int16')).toMatch(/integers/);
    expect(q8ActivationsWords('int8')).toMatch(/int8/);
    const activationLines = Q8_ACTIVATIONS.map(q8ActivationsWords);
    expect(new Set(activationLines).size).toBe(activationLines.length);
  });

  it('pass only what differs from the defaults, and int16 activations only with q8_0 weights', () => {
    expect(heldOptions(DEFAULT_WEIGHTS, DEFAULT_Q8_ACTIVATIONS)).toEqual({});
    expect(heldOptions('bf16', 'f32')).toEqual({ weights: 'bf16' });
    expect(heldOptions('bf16', 'int16')).toEqual({ weights: 'bf16' });
    expect(heldOptions('q8_0', 'int16')).toEqual({ weights: 'q8_0', q8Activations: 'int16' });
    expect(heldOptions('q8_0', 'f32')).toEqual({ weights: 'q8_0' });
  });

  it('are kept in the URL hash, and a bad one is named and ignored', () => {
    const hash = stateToHash({ ...DEFAULT_STATE, weights: 'q8_0', q8Activations: 'int16' });
    expect(hash).toMatch(/weights=q8_0/);
    expect(hash).toMatch(/q8Activations=int16/);
    const back = stateFromHash(hash);
    expect(back.state.weights).toBe('q8_0');
    expect(back.state.q8Activations).toBe('int16');
    expect(stateToHash(DEFAULT_STATE)).not.toMatch(/weights|q8Activations/);
    const bad = stateFromHash('#weights=fp8');
    expect(bad.state.weights).toBe(DEFAULT_WEIGHTS);
    expect(bad.problems.join(' ')).toMatch(/fp8/);
  });

  it('hold the fixture\u2019s matrices in BF16 when asked, and say so', async () => {
    const api = engineApi(() => Promise.resolve(engine));
    const plain = await api.loadPretrained({ files: files(), name: 'gpt2-tiny' }, () => {});
    if (!plain.ok) throw new Error(plain.error);
    expect(plain.model.held.weights).toBe('auto');
    expect(plain.model.held.bytes.bf16).toBe(0);
    const loaded = await api.loadPretrained({ files: files(), name: 'gpt2-tiny', weights: 'bf16' }, () => {});
    if (!loaded.ok) throw new Error(loaded.error);
    const { held } = loaded.model;
    expect(held.weights).toBe('bf16');
    expect(held.bytes.bf16).toBeGreaterThan(0);
    // the matrices in 2 bytes a value: fewer bytes in all than the float32 file's load
    expect(held.bytes.total).toBeLessThan(plain.model.held.bytes.total);
    expect(heldFact(loaded.model)).toMatch(/^bf16: [\d.]+ kB \(.*bf16 [\d.]+ kB/);
    // int16 activations with 8-bit weights: the engine takes them
    const int = await api.loadPretrained(
      { files: files(), name: 'gpt2-tiny', weights: 'q8_0', q8Activations: 'int16' },
      () => {},
    );
    if (!int.ok) throw new Error(int.error);
    expect(int.model.held.bytes.q8_0).toBeGreaterThan(0);
    expect(heldFact(int.model)).toMatch(/^q8_0, int16 activations: /);
  });
});
