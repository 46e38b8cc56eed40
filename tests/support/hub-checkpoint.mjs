// A checkpoint in the hub's layout, made in the test for the views' sake (its numbers are
// no reference: they are random, seeded): config.json and model.safetensors (F32) of a
// GPT-2, Llama or Gemma 3 decoder of any size, with the Hugging Face names and config fields the
// engine's loader reads. The e2e tests use it where only the shape matters (30 layers x 16
// heads for the Layers x heads grid, a long max_position_embeddings for a 300-token text),
// with the tokenizer files of a reference fixture, whose vocabulary size it takes.

/** A seeded generator of floats in [-scale, scale) (mulberry32). */
function random(seed) {
  let a = seed >>> 0;
  return (scale) => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1) * scale;
  };
}

/** safetensors bytes of F32 tensors: { name: [shape, Float32Array] }, in order. */
export function safetensors(tensors) {
  const header = {};
  let offset = 0;
  for (const [name, [shape, data]] of Object.entries(tensors)) {
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + data.byteLength] };
    offset += data.byteLength;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const out = Buffer.alloc(8 + json.length + offset);
  out.writeBigUInt64LE(BigInt(json.length), 0);
  out.write(json, 8, 'utf8');
  let at = 8 + json.length;
  for (const [, [, data]] of Object.entries(tensors)) {
    Buffer.from(data.buffer, data.byteOffset, data.byteLength).copy(out, at);
    at += data.byteLength;
  }
  return out;
}

/** The vocabulary size of a tokenizer.json: its model's vocabulary and the added tokens past it. */
export function vocabSizeOf(tokenizerJson) {
  const t = JSON.parse(tokenizerJson);
  const vocab = t.model.vocab; // BPE / WordPiece: { piece: id }; Unigram: [[piece, score], ...]
  const base = Array.isArray(vocab) ? vocab.length : Object.values(vocab).reduce((m, id) => Math.max(m, id + 1), 0);
  return (t.added_tokens ?? []).reduce((m, a) => Math.max(m, a.id + 1), base);
}

/**
 * A GPT-2 checkpoint (Conv1D weights stored (in, out)), its config from a reference fixture's with the sizes replaced.
 * blockExtremes: each matrix's first two values are -s and s, the ends of its values' range [-s, s), so the
 * largest of their block of 32: Q8_0 quantizes them to -127 and 127.
 */
export function gpt2Checkpoint(
  baseConfig,
  { layers, heads, hidden, vocab, maxPositions = 512, seed = 1, blockExtremes = false },
) {
  const config = { ...JSON.parse(baseConfig), n_layer: layers, n_head: heads, n_embd: hidden, vocab_size: vocab };
  Object.assign(config, { n_positions: maxPositions, n_ctx: maxPositions });
  const r = random(seed);
  const matrix = (rows, cols) => {
    const s = 1 / Math.sqrt(rows);
    const values = Float32Array.from({ length: rows * cols }, () => r(s));
    if (blockExtremes) values.set([-s, s]);
    return [[rows, cols], values];
  };
  const fill = (n, v) => [[n], new Float32Array(n).fill(v)];
  const t = { 'wte.weight': matrix(vocab, hidden), 'wpe.weight': matrix(maxPositions, hidden) };
  for (let i = 0; i < layers; i++) {
    const p = `h.${i}.`;
    Object.assign(t, {
      [`${p}ln_1.weight`]: fill(hidden, 1),
      [`${p}ln_1.bias`]: fill(hidden, 0),
      [`${p}attn.c_attn.weight`]: matrix(hidden, 3 * hidden),
      [`${p}attn.c_attn.bias`]: fill(3 * hidden, 0),
      [`${p}attn.c_proj.weight`]: matrix(hidden, hidden),
      [`${p}attn.c_proj.bias`]: fill(hidden, 0),
      [`${p}ln_2.weight`]: fill(hidden, 1),
      [`${p}ln_2.bias`]: fill(hidden, 0),
      [`${p}mlp.c_fc.weight`]: matrix(hidden, 4 * hidden),
      [`${p}mlp.c_fc.bias`]: fill(4 * hidden, 0),
      [`${p}mlp.c_proj.weight`]: matrix(4 * hidden, hidden),
      [`${p}mlp.c_proj.bias`]: fill(hidden, 0),
    });
  }
  Object.assign(t, { 'ln_f.weight': fill(hidden, 1), 'ln_f.bias': fill(hidden, 0) });
  return { 'config.json': Buffer.from(JSON.stringify(config, null, 2)), 'model.safetensors': safetensors(t) };
}

/**
 * A decoder checkpoint: family 'llama' or 'gemma3_text'; layers, heads, kvHeads, headDim, hidden, vocab; Gemma's
 * sliding window and how often a layer is global (layer_types). Returns { 'config.json', 'model.safetensors' }.
 */
export function decoderCheckpoint({
  family = 'llama',
  layers,
  heads,
  kvHeads,
  headDim,
  hidden,
  vocab,
  ffn = 2 * hidden,
  maxPositions = 512,
  window = 0,
  globalEvery = 6,
  seed = 1,
}) {
  const gemma = family === 'gemma3_text';
  const config = {
    architectures: [gemma ? 'Gemma3ForCausalLM' : 'LlamaForCausalLM'],
    model_type: family,
    vocab_size: vocab,
    hidden_size: hidden,
    intermediate_size: ffn,
    num_hidden_layers: layers,
    num_attention_heads: heads,
    num_key_value_heads: kvHeads,
    head_dim: headDim,
    max_position_embeddings: maxPositions,
    rms_norm_eps: 1e-6,
    rope_theta: gemma ? 1000000 : 10000,
    rope_scaling: null,
    tie_word_embeddings: true,
    attention_bias: false,
    torch_dtype: 'float32',
    ...(gemma
      ? {
          hidden_activation: 'gelu_pytorch_tanh',
          query_pre_attn_scalar: headDim,
          rope_local_base_freq: 10000,
          sliding_window: window,
          layer_types: Array.from({ length: layers }, (_, i) =>
            (i + 1) % globalEvery === 0 ? 'full_attention' : 'sliding_attention',
          ),
          final_logit_softcapping: null,
          attn_logit_softcapping: null,
        }
      : { hidden_act: 'silu', mlp_bias: false }),
  };
  const r = random(seed);
  const t = {};
  const matrix = (rows, cols) => [
    [rows, cols],
    Float32Array.from({ length: rows * cols }, () => r(1 / Math.sqrt(cols))),
  ];
  // Gemma's RMSNorm scales by 1 + weight: zeros are the identity there, ones elsewhere.
  const norm = (n) => [[n], new Float32Array(n).fill(gemma ? 0 : 1)];
  t['model.embed_tokens.weight'] = matrix(vocab, hidden);
  for (let i = 0; i < layers; i++) {
    const p = `model.layers.${i}.`;
    t[`${p}input_layernorm.weight`] = norm(hidden);
    t[`${p}self_attn.q_proj.weight`] = matrix(heads * headDim, hidden);
    t[`${p}self_attn.k_proj.weight`] = matrix(kvHeads * headDim, hidden);
    t[`${p}self_attn.v_proj.weight`] = matrix(kvHeads * headDim, hidden);
    t[`${p}self_attn.o_proj.weight`] = matrix(hidden, heads * headDim);
    if (gemma) {
      t[`${p}self_attn.q_norm.weight`] = norm(headDim);
      t[`${p}self_attn.k_norm.weight`] = norm(headDim);
    }
    t[`${p}post_attention_layernorm.weight`] = norm(hidden);
    if (gemma) {
      t[`${p}pre_feedforward_layernorm.weight`] = norm(hidden);
      t[`${p}post_feedforward_layernorm.weight`] = norm(hidden);
    }
    t[`${p}mlp.gate_proj.weight`] = matrix(ffn, hidden);
    t[`${p}mlp.up_proj.weight`] = matrix(ffn, hidden);
    t[`${p}mlp.down_proj.weight`] = matrix(hidden, ffn);
  }
  t['model.norm.weight'] = norm(hidden);
  return { 'config.json': Buffer.from(JSON.stringify(config, null, 2)), 'model.safetensors': safetensors(t) };
}
