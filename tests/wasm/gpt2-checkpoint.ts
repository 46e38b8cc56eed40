// A GPT-2 checkpoint written in the test (hub names, Conv1D (in, out) layouts, random weights
// from a fixed LCG), in BF16, F16 or F32: the low-bit tests' file (low-bit.test.ts) and the
// relaxed engine's (relaxed-engine.test.ts).
import { readFileSync } from 'node:fs';
import { ROOT } from './helpers.js';

const TINY = `${ROOT}tests/reference/fixtures/pretrained/gpt2-tiny/`;
export const E = 256,
  LAYERS = 4,
  VOCAB = 4096,
  POSITIONS = 64;

export type FileDType = 'BF16' | 'F16' | 'F32';
const DTYPE_BYTES: Record<FileDType, number> = { BF16: 2, F16: 2, F32: 4 };

// A float32 value's bits as F16, truncated (the file holds whatever half the bits say; the
// engine's widening of them is test_low_bit.cpp's): normals, subnormals below 2^-14, zeros.
function f16Bits(value: number, f32Bits: number): number {
  const sign = (f32Bits >>> 16) & 0x8000;
  const exponent = ((f32Bits >>> 23) & 0xff) - 127 + 15;
  if (exponent > 0) return sign | (exponent << 10) | ((f32Bits >>> 13) & 0x3ff);
  return sign | Math.floor(Math.abs(value) / 2 ** -24);
}

// The reference rounding to BF16 (round to nearest, ties to even, on the float32 bits; finite
// values), widened back to a float.
export function bf16Round(values: Float32Array): Float32Array {
  const bits = new Uint32Array(values.slice().buffer);
  for (let i = 0; i < bits.length; i++) bits[i] = ((bits[i] + 0x7fff + ((bits[i] >>> 16) & 1)) >>> 16) << 16;
  return new Float32Array(bits.buffer);
}

// A GPT-2 checkpoint (BF16 by default): hub names and Conv1D (in, out) layouts; values uniform
// in (-0.125, 0.125) (norm weights 1) from a fixed LCG, truncated to BF16 or F16 or as float32.
export function bf16Checkpoint(dtype: FileDType = 'BF16'): Record<string, Uint8Array> {
  const tensors: [string, number[]][] = [
    ['wte.weight', [VOCAB, E]],
    ['wpe.weight', [POSITIONS, E]],
  ];
  for (let l = 0; l < LAYERS; l++)
    tensors.push(
      [`h.${l}.ln_1.weight`, [E]],
      [`h.${l}.ln_1.bias`, [E]],
      [`h.${l}.attn.c_attn.weight`, [E, 3 * E]],
      [`h.${l}.attn.c_attn.bias`, [3 * E]],
      [`h.${l}.attn.c_proj.weight`, [E, E]],
      [`h.${l}.attn.c_proj.bias`, [E]],
      [`h.${l}.ln_2.weight`, [E]],
      [`h.${l}.ln_2.bias`, [E]],
      [`h.${l}.mlp.c_fc.weight`, [E, 4 * E]],
      [`h.${l}.mlp.c_fc.bias`, [4 * E]],
      [`h.${l}.mlp.c_proj.weight`, [4 * E, E]],
      [`h.${l}.mlp.c_proj.bias`, [E]],
    );
  tensors.push(['ln_f.weight', [E]], ['ln_f.bias', [E]]);
  const header: Record<string, unknown> = {};
  let offset = 0;
  for (const [name, shape] of tensors) {
    const bytes = DTYPE_BYTES[dtype] * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype, shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  const json = new TextEncoder().encode(JSON.stringify(header));
  const file = new Uint8Array(8 + json.length + offset);
  new DataView(file.buffer).setBigUint64(0, BigInt(json.length), true);
  file.set(json, 8);
  const data = new DataView(file.buffer, 8 + json.length);
  const f = new Float32Array(1);
  const bits = new Uint32Array(f.buffer);
  let state = 27;
  let at = 0;
  for (const [name, shape] of tensors) {
    const n = shape.reduce((a, b) => a * b, 1);
    const isNormWeight = /ln_.*\.weight$/.test(name);
    for (let i = 0; i < n; i++, at += DTYPE_BYTES[dtype]) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      f[0] = isNormWeight ? 1 : ((state / 2 ** 32) * 2 - 1) * 0.125;
      if (dtype === 'BF16') data.setUint16(at, bits[0] >>> 16, true);
      else if (dtype === 'F16') data.setUint16(at, f16Bits(f[0], bits[0]), true);
      else data.setFloat32(at, f[0], true);
    }
  }
  const config = { ...JSON.parse(readFileSync(`${TINY}config.json`, 'utf8')) };
  Object.assign(config, {
    n_embd: E,
    n_layer: LAYERS,
    n_head: 8,
    vocab_size: VOCAB,
    n_positions: POSITIONS,
    n_ctx: POSITIONS,
  });
  return {
    'config.json': new TextEncoder().encode(JSON.stringify(config)),
    'model.safetensors': file,
    'tokenizer.json': new Uint8Array(readFileSync(`${TINY}tokenizer.json`)),
  };
}
