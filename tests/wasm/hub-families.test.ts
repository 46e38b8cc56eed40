// loadPretrained for the modern families in Node, both builds: the tiny hub checkpoints of
// tests/reference/fixtures/hub (written by generate_hub_fixtures.py with hf_modern.py's
// Hugging Face models) from a { name: bytes } map and from a local HTTP server in the hub's
// layout: every layer's attentions, the final hidden states and the logits against PyTorch
// (1e-4), the tokenizer from tokenizer.json against Hugging Face's Rust tokenizers, the
// multimodal Gemma 3's skipped vision tower, and broken configs and files as AttentionErrors
// naming the key, file or tensor.
import { createServer, type Server } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { Tokenizer as RustTokenizer } from 'tokenizers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttentionError, type AttentionEngine, type PretrainedModel } from '../../dist/node.js';
import { BUILDS, ROOT, engineFor, expectRowsClose, rejection } from './helpers.js';

const DIR = `${ROOT}tests/reference/fixtures/hub/`;
const filesOf = (dir: string, except: string[] = []): Record<string, Uint8Array> =>
  Object.fromEntries(
    readdirSync(DIR + dir)
      .filter((f) => f !== 'expected.json' && !except.includes(f))
      .map((f) => [f, new Uint8Array(readFileSync(DIR + dir + '/' + f))]),
  );
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const expectedOf = (dir: string): any => JSON.parse(readFileSync(`${DIR}${dir}/expected.json`, 'utf8'));
const withConfig = (dir: string, edit: (config: Record<string, unknown>) => void): Record<string, Uint8Array> => {
  const files = filesOf(dir);
  const config = JSON.parse(new TextDecoder().decode(files['config.json']));
  edit(config);
  return { ...files, 'config.json': new TextEncoder().encode(JSON.stringify(config)) };
};

// [dir, config.json's model_type, the dir whose expected.json it matches]
const CASES: [string, string, string][] = [
  ['llama-tiny', 'llama', 'llama-tiny'],
  ['llama-tiny-sharded', 'llama', 'llama-tiny'],
  ['smollm2-tiny-bf16', 'llama', 'smollm2-tiny-bf16'],
  ['llama-linear-bias-f16', 'llama', 'llama-linear-bias-f16'],
  ['qwen2-tiny', 'qwen2', 'qwen2-tiny'],
  ['qwen3-tiny-bf16', 'qwen3', 'qwen3-tiny-bf16'],
  ['gemma3-text-tiny', 'gemma3_text', 'gemma3-text-tiny'],
  ['gemma3-mm-tiny-bf16', 'gemma3', 'gemma3-mm-tiny-bf16'],
  ['mistral-tiny', 'mistral', 'mistral-tiny'],
  ['gemma3-bidirectional-tiny', 'gemma3_text', 'gemma3-bidirectional-tiny'],
];

function checkForward(m: PretrainedModel, golden: string) {
  const e = expectedOf(golden);
  const out = m.forward({
    ids: Int32Array.from(e.input_ids),
    batch: e.batch,
    seq: e.seq,
    lengths: e.lengths,
    record: { stages: ['*.self_attn.weights'] },
  });
  const weights = out.trace!.stages.filter((s) => s.name.endsWith('self_attn.weights'));
  expect(weights.map((s) => s.layer)).toEqual([...Array(m.spec.layers).keys()]);
  weights.forEach((s, l) => {
    expect(s.shape).toEqual([e.batch, m.spec.heads, e.seq, e.seq]);
    expectRowsClose(s.data, e.attentions[l], e, m.spec.heads, e.seq, `${golden} attentions[${l}]`);
  });
  expectRowsClose(out.hidden, e.hidden_states.at(-1), e, 1, m.spec.dModel, `${golden} final hidden`);
  expectRowsClose(out.logits!, e.logits, e, 1, m.spec.vocabSize, `${golden} logits`);
}

describe.each(BUILDS)('%s build', (build) => {
  let engine: AttentionEngine;
  beforeAll(async () => {
    engine = await engineFor(build);
  });

  it('loads every family from files: attentions, hidden states and logits as PyTorch', async () => {
    for (const [dir, family, golden] of CASES) {
      const m = await engine.loadPretrained({ files: filesOf(dir) });
      expect([dir, m.family]).toEqual([dir, family]);
      checkForward(m, golden);
      m.dispose();
    }
  });

  it('reads each config as its family does: the spec', async () => {
    const gemma = await engine.loadPretrained({ files: filesOf('gemma3-text-tiny') });
    expect(gemma.spec).toMatchObject({
      positions: 'rope',
      norm: 'sandwich',
      normType: 'rmsnorm_offset',
      ffn: 'gated',
      activation: 'gelu_tanh',
      kvHeads: 1,
      headDim: 16,
      window: 3,
      windowPattern: 2,
      ropeLocalTheta: 10000,
      ropeScaling: 'linear',
      queryPreAttnScalar: 24,
      embedScale: true,
      qkNorm: true,
      head: 'tied',
    });
    expect(gemma.padTokenId).toBe(0);
    gemma.dispose();
    const llama = await engine.loadPretrained({ files: filesOf('smollm2-tiny-bf16') });
    expect(llama.spec).toMatchObject({ ropeScaling: 'llama3', ropeFactor: 8, head: 'tied', normType: 'rmsnorm' });
    expect(llama.architecture).toBe('LlamaForCausalLM');
    llama.dispose();
  });

  it("tokenizes with tokenizer.json as Hugging Face's Rust tokenizers do", async () => {
    const text = 'The cat sat on the mat. Ünïcode 123 — ok';
    for (const dir of ['llama-tiny', 'qwen3-tiny-bf16', 'gemma3-text-tiny']) {
      const m = await engine.loadPretrained({ files: filesOf(dir) });
      const rust = RustTokenizer.fromString(readFileSync(`${DIR}${dir}/tokenizer.json`, 'utf8'));
      const want = (await rust.encode(text)).getIds();
      expect([dir, Array.from(m.tokenize(text).ids)]).toEqual([dir, want]);
      m.dispose();
    }
  });

  it("refuses a text holding a token past the model's vocabulary, as Gemma 3's <image_soft_token>", async () => {
    const m = await engine.loadPretrained({ files: filesOf('gemma3-text-tiny') });
    expect(m.tokenizer.vocabSize).toBe(m.spec.vocabSize + 1); // as the hub's Gemma 3 files
    expect(m.tokenize('The cat').ids[0]).toBe(m.tokenizer.specialTokens.bos);
    let error: unknown = null;
    try {
      m.tokenize('a <image_soft_token> b');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AttentionError);
    expect([(error as AttentionError).code, (error as AttentionError).field]).toEqual(['out_of_range', 'text']);
    expect((error as AttentionError).message).toMatch(/'<image_soft_token>' \(id 656\)/);
    m.dispose();
  });

  it("skips the multimodal Gemma 3's vision tower and projector by name", async () => {
    const m = await engine.loadPretrained({ files: filesOf('gemma3-mm-tiny-bf16') });
    const skipped = m.skipped.map(([name]) => name);
    expect(skipped.filter((n) => n.startsWith('vision_tower.'))).toHaveLength(3);
    expect(skipped.filter((n) => n.startsWith('multi_modal_projector.'))).toHaveLength(2);
    expect(m.skipped[0][1]).toMatch(/not part of a text forward/);
    m.dispose();
  });

  it('names what is broken, and keeps nothing', async () => {
    await broken(engine); // first calls fill the engine's lasting tables
    const before = engine.heapBytesInUse();
    await broken(engine);
    expect(engine.heapBytesInUse()).toBe(before);
  });

  async function broken(engine: AttentionEngine) {
    const cases: [Record<string, Uint8Array>, string, string][] = [
      [
        withConfig('llama-tiny', (c) => (c.rope_scaling = { rope_type: 'yarn', factor: 4 })),
        'invalid_argument',
        'rope_scaling.rope_type',
      ],
      [
        withConfig('gemma3-text-tiny', (c) => (c.final_logit_softcapping = 30)),
        'invalid_argument',
        'final_logit_softcapping',
      ],
      [withConfig('qwen2-tiny', (c) => (c.num_key_value_heads = 3)), 'not_divisible', 'num_key_value_heads'],
      [
        withConfig('qwen3-tiny-bf16', (c) => Object.assign(c, { use_sliding_window: true, max_window_layers: 1 })),
        'invalid_argument',
        'max_window_layers',
      ],
      [
        withConfig(
          'gemma3-mm-tiny-bf16',
          (c) => ((c.text_config as Record<string, unknown>).rope_scaling = { rope_type: 'dynamic', factor: 2 }),
        ),
        'invalid_argument',
        'text_config.rope_scaling.rope_type',
      ],
      [filesOf('qwen3-tiny-bf16', ['tokenizer.json']), 'missing_file', 'tokenizer.json'],
      [
        { ...filesOf('llama-tiny'), 'model.safetensors': filesOf('gemma3-text-tiny')['model.safetensors'] },
        'shape_mismatch',
        'model.embed_tokens.weight',
      ],
      [
        filesOf('llama-tiny-sharded', ['model-00002-of-00002.safetensors']),
        'missing_file',
        'model-00002-of-00002.safetensors',
      ],
      [withConfig('smollm2-tiny-bf16', (c) => (c.tie_word_embeddings = false)), 'missing_tensor', 'lm_head.weight'],
    ];
    for (const [files, code, field] of cases) {
      const e = await rejection(engine.loadPretrained({ files }));
      expect([e.code, e.field]).toEqual([code, field]);
    }
  }

  describe('from a hub on a local server', () => {
    let server: Server;
    let baseUrl = '';
    beforeAll(async () => {
      server = createServer((request, response) => {
        const match = /^\/([\w.-]+)\/resolve\/main\/([\w.-]+)$/.exec(request.url!);
        let body: Buffer | null = null;
        try {
          if (match && match[2] !== 'expected.json') body = readFileSync(`${DIR}${match[1]}/${match[2]}`);
        } catch {
          body = null;
        }
        if (!body) {
          response.writeHead(404).end();
          return;
        }
        response.writeHead(200, { 'content-length': body.length }).end(body);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('downloads each family from {baseUrl}/{repo}/resolve/main/{file}, shards included', async () => {
      for (const [repo, golden] of [
        ['llama-tiny-sharded', 'llama-tiny'],
        ['qwen3-tiny-bf16', 'qwen3-tiny-bf16'],
        ['gemma3-mm-tiny-bf16', 'gemma3-mm-tiny-bf16'],
      ]) {
        const files: string[] = [];
        const m = await engine.loadPretrained({ repo, baseUrl, onProgress: (p) => files.push(p.file) });
        checkForward(m, golden);
        expect(files).toContain('tokenizer.json');
        m.dispose();
      }
    });
  });
});
