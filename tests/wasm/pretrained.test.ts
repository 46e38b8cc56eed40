// loadPretrained in Node, both builds: the tiny hub checkpoints of
// tests/reference/fixtures/pretrained (written by generate_pretrained_fixtures.py with
// the PyTorch references) from a { name: bytes } map and from a local HTTP server in
// the hub's layout; attentions and logits against PyTorch (1e-4), the tokenizer
// against the ids in expected.json, progress, cancelling, every broken checkpoint an
// AttentionError naming the file or tensor, and dispose() releasing what was held.
import { createServer, type Server } from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AttentionEngine, type PretrainedModel } from '../../dist/node.js';
import { BUILDS, ROOT, engineFor, expectClose, rejection } from './helpers.js';

const DIR = `${ROOT}tests/reference/fixtures/pretrained/`;
const filesOf = (dir: string, except: string[] = []): Record<string, Uint8Array> =>
  Object.fromEntries(
    readdirSync(DIR + dir)
      .filter((f) => f !== 'expected.json' && !except.includes(f))
      .map((f) => [f, new Uint8Array(readFileSync(DIR + dir + '/' + f))]),
  );
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const expectedOf = (dir: string): any => JSON.parse(readFileSync(`${DIR}${dir}/expected.json`, 'utf8'));

// Real (unpadded) rows of a (B, H?, S, W) array agree with PyTorch to 1e-4 relative.
function expectRowsClose(
  got: Float32Array,
  want: number[],
  batch: number,
  groups: number,
  seq: number,
  width: number,
  lengths: number[],
  what: string,
) {
  expect(got.length).toBe(want.length);
  for (let b = 0; b < batch; b++)
    for (let g = 0; g < groups; g++)
      for (let q = 0; q < lengths[b]; q++)
        for (let c = 0; c < width; c++) {
          const i = ((b * groups + g) * seq + q) * width + c;
          if (!(Math.abs(got[i] - want[i]) <= 1e-4 * Math.max(1, Math.abs(want[i]))))
            expect.fail(`${what}[${b},${g},${q},${c}]: ${got[i]}, PyTorch ${want[i]}`);
        }
}

function checkForward(m: PretrainedModel, golden: string) {
  const e = expectedOf(golden);
  const out = m.forward({
    ids: Int32Array.from(e.input_ids),
    batch: e.batch,
    seq: e.seq,
    lengths: e.lengths,
    ...(e.token_type_ids ? { tokenTypes: Int32Array.from(e.token_type_ids) } : {}),
    record: { stages: ['*.self_attn.weights'] },
  });
  const weights = out.trace!.stages.filter((s) => s.name.endsWith('self_attn.weights'));
  expect(weights.map((s) => s.layer)).toEqual([0, 1]);
  weights.forEach((s, l) => {
    expect(s.shape).toEqual([e.batch, m.spec.heads, e.seq, e.seq]);
    expectRowsClose(s.data, e.attentions[l], e.batch, m.spec.heads, e.seq, e.seq, e.lengths, `attentions[${l}]`);
  });
  if (m.spec.head === 'none')
    expect(out.logits).toBeNull(); // hidden states only (BertModel)
  else expectRowsClose(out.logits!, e.logits, e.batch, 1, e.seq, m.spec.vocabSize, e.lengths, 'logits');
}

describe.each(BUILDS)('%s build', (build) => {
  let engine: AttentionEngine;
  beforeAll(async () => {
    engine = await engineFor(build);
  });

  it('loads GPT-2 from files: spec, tokenizer ids, attentions and logits as PyTorch', async () => {
    const m = await engine.loadPretrained({ files: filesOf('gpt2-tiny') });
    expect(m.family).toBe('gpt2');
    expect(m.architecture).toBe('GPT2LMHeadModel');
    expect(m.spec).toMatchObject({
      dModel: 24,
      heads: 4,
      layers: 2,
      causal: true,
      norm: 'pre',
      head: 'tied',
      activation: 'gelu_tanh',
    });
    expect(m.skipped.map(([name]) => name)).toEqual([
      'h.0.attn.bias',
      'h.0.attn.masked_bias',
      'h.1.attn.bias',
      'h.1.attn.masked_bias',
    ]);
    for (const { text, ids } of expectedOf('gpt2-tiny').texts) {
      const encoding = m.tokenize(text);
      expect(Array.from(encoding.ids)).toEqual(ids);
      expect(m.tokenizer.decode(encoding.ids)).toBe(text);
    }
    expect(m.tokenize(' the').tokens[0]).toBe('Ġthe');
    checkForward(m, 'gpt2-tiny');
    // logits 'last': each sequence's last real row only (B, 1, V), the same numbers
    const e = expectedOf('gpt2-tiny');
    const input = { ids: Int32Array.from(e.input_ids), batch: e.batch, seq: e.seq, lengths: e.lengths };
    const full = m.forward(input).logits!;
    const last = m.forward({ ...input, logits: 'last' }).logits!;
    expect(last.length).toBe(e.batch * m.spec.vocabSize);
    for (let b = 0; b < e.batch; b++) {
      const row = b * e.seq + e.lengths[b] - 1;
      // the same products, perhaps summed in another order (fewer rows)
      expectClose(
        last.subarray(b * m.spec.vocabSize, (b + 1) * m.spec.vocabSize),
        full.subarray(row * m.spec.vocabSize, (row + 1) * m.spec.vocabSize),
      );
    }
    expect(m.forward({ ...input, logits: 'none' }).logits).toBeNull();
    expect(() => m.forward({ ...input, logits: 'first' as never })).toThrow(/logits must be/);
    m.dispose();
    expect(() => m.forward({ ids: new Int32Array(1), batch: 1, seq: 1 })).toThrow(/disposed/);
  });

  it('loads F16, BF16, sharded and GPT2LMHeadModel-prefixed files', async () => {
    const tokenizer = {
      'vocab.json': filesOf('gpt2-tiny')['vocab.json'],
      'merges.txt': filesOf('gpt2-tiny')['merges.txt'],
    };
    for (const [dir, golden] of [
      ['gpt2-tiny-f16', 'gpt2-tiny-f16'],
      ['gpt2-tiny-bf16', 'gpt2-tiny-bf16'],
      ['gpt2-tiny-sharded', 'gpt2-tiny'],
      ['gpt2-tiny-lmhead', 'gpt2-tiny'],
    ]) {
      const m = await engine.loadPretrained({ files: { ...filesOf(dir), ...tokenizer } });
      checkForward(m, golden);
      m.dispose();
    }
  });

  it('loads BERT: WordPiece pairs with token types, attentions and masked-LM logits as PyTorch', async () => {
    const e = expectedOf('bert-tiny');
    for (const files of [filesOf('bert-tiny'), filesOf('bert-tiny', ['tokenizer.json'])]) {
      // tokenizer.json, or vocab.txt + config
      const m = await engine.loadPretrained({ files });
      expect(m.family).toBe('bert');
      expect(m.spec).toMatchObject({
        causal: false,
        norm: 'post',
        head: 'mlm',
        embedNorm: true,
        typeVocabSize: 2,
        activation: 'gelu',
      });
      expect(m.tokenizer.kind).toBe('wordpiece');
      for (const t of e.texts) {
        const encoding = m.tokenize(t.text, t.text_pair);
        expect(encoding.tokens).toEqual(t.tokens);
        expect(Array.from(encoding.ids)).toEqual(t.ids);
        expect(Array.from(encoding.tokenTypes)).toEqual(t.token_type_ids);
      }
      checkForward(m, 'bert-tiny');
      m.dispose();
    }
    const legacy = await engine.loadPretrained({
      files: { ...filesOf('bert-tiny-legacy'), 'vocab.txt': filesOf('bert-tiny')['vocab.txt'] },
    });
    checkForward(legacy, 'bert-tiny');
    expect(legacy.skipped.map(([name]) => name)).toContain('cls.predictions.decoder.weight');
    legacy.dispose();
  });

  it('honours tie_word_embeddings and accepts both names of a tied tensor only when their values agree', async () => {
    const gpt2Tokenizer = {
      'vocab.json': filesOf('gpt2-tiny')['vocab.json'],
      'merges.txt': filesOf('gpt2-tiny')['merges.txt'],
    };
    const vocab = { 'vocab.txt': filesOf('bert-tiny')['vocab.txt'] };
    const cases: [Record<string, Uint8Array>, string, string][] = [
      [{ ...filesOf('gpt2-tiny-untied'), ...gpt2Tokenizer }, 'gpt2-tiny-untied', 'linear'], // its own lm_head.weight
      [
        {
          ...filesOf('gpt2-tiny-lmhead', ['model.safetensors', 'model-with-lm-head.safetensors']),
          ...gpt2Tokenizer,
          'model.safetensors': filesOf('gpt2-tiny-lmhead')['model-with-lm-head.safetensors'],
        },
        'gpt2-tiny',
        'tied',
      ],
      [{ ...filesOf('bert-tiny-untied'), ...vocab }, 'bert-tiny-untied', 'mlm_untied'], // its own decoder.weight
      [{ ...filesOf('bert-tiny-mlm'), ...vocab }, 'bert-tiny', 'mlm'], // decoder.weight and decoder.bias stored too
      [{ ...filesOf('bert-tiny-model'), ...vocab }, 'bert-tiny', 'none'], // BertModel: no prefix, pooler
    ];
    for (const [files, golden, head] of cases) {
      const m = await engine.loadPretrained({ files });
      expect(m.spec.head).toBe(head);
      checkForward(m, golden);
      m.dispose();
    }
    const mlm = await engine.loadPretrained({ files: { ...filesOf('bert-tiny-mlm'), ...vocab } });
    expect(mlm.skipped.find(([name]) => name === 'cls.predictions.decoder.weight')?.[1]).toMatch(
      /same values as 'bert\.embeddings\.word_embeddings\.weight'/,
    );
    mlm.dispose();
    // A tied config with a file whose lm_head / decoder differs from the embeddings: both named.
    const gpt2 = await rejection(
      engine.loadPretrained({
        files: { ...filesOf('gpt2-tiny-untied'), ...gpt2Tokenizer, 'config.json': filesOf('gpt2-tiny')['config.json'] },
      }),
    );
    expect(gpt2.code).toBe('tied_mismatch');
    expect(gpt2.field).toBe('lm_head.weight');
    expect(gpt2.message).toMatch(/'transformer\.wte\.weight'/);
    const bert = await rejection(
      engine.loadPretrained({
        files: { ...filesOf('bert-tiny-untied'), ...vocab, 'config.json': filesOf('bert-tiny')['config.json'] },
      }),
    );
    expect(bert.code).toBe('tied_mismatch');
    expect(bert.field).toBe('cls.predictions.decoder.weight');
    // An untied config with a file that has no head of its own.
    const missing = await rejection(
      engine.loadPretrained({
        files: { ...filesOf('bert-tiny'), 'config.json': filesOf('bert-tiny-untied')['config.json'] },
      }),
    );
    expect(missing.code).toBe('missing_tensor');
    expect(missing.field).toBe('cls.predictions.decoder.weight');
  });

  it('accepts File objects and a FileList-like array, folders in names ignored', async () => {
    const files = Object.entries(filesOf('gpt2-tiny')).map(([name, bytes]) => new File([bytes as BlobPart], name));
    const m = await engine.loadPretrained({ files });
    expect(m.spec.vocabSize).toBe(557);
    // A File is read as a stream (checkpoint-files.ts's readBlob): the same weights as from bytes.
    const fromBytes = await engine.loadPretrained({ files: filesOf('gpt2-tiny') });
    const input = { ids: Int32Array.from([5, 17, 300, 2]), batch: 1, seq: 4 };
    expect(Array.from(m.forward(input).logits!)).toEqual(Array.from(fromBytes.forward(input).logits!));
    fromBytes.dispose();
    m.dispose();
    const nested = Object.fromEntries(Object.entries(filesOf('gpt2-tiny')).map(([n, b]) => [`gpt2-tiny/${n}`, b]));
    const again = await engine.loadPretrained({ files: nested });
    again.dispose();
  });

  it('names what is missing or broken, and keeps nothing', async () => {
    await brokenCheckpoints(engine); // first calls fill the engine's lasting tables (schemas, Unicode classes)
    const heapBefore = engine.heapBytesInUse();
    await brokenCheckpoints(engine);
    expect(engine.heapBytesInUse()).toBe(heapBefore);
  });

  async function brokenCheckpoints(engine: AttentionEngine) {
    const base = filesOf('gpt2-tiny');
    let e = await rejection(engine.loadPretrained({ files: filesOf('gpt2-tiny', ['config.json']) }));
    expect([e.code, e.field]).toEqual(['missing_file', 'config.json']);
    e = await rejection(engine.loadPretrained({ files: filesOf('gpt2-tiny', ['model.safetensors']) }));
    expect([e.code, e.field]).toEqual(['missing_file', 'model.safetensors']);
    e = await rejection(engine.loadPretrained({ files: filesOf('gpt2-tiny', ['tokenizer.json', 'vocab.json']) }));
    expect([e.code, e.field]).toEqual(['missing_file', 'tokenizer.json']);
    const config = JSON.parse(new TextDecoder().decode(base['config.json']));
    e = await rejection(
      engine.loadPretrained({
        files: { ...base, 'config.json': new TextEncoder().encode(JSON.stringify({ ...config, n_head: 5 })) },
      }),
    );
    expect([e.code, e.field]).toEqual(['not_divisible', 'n_head']);
    e = await rejection(
      engine.loadPretrained({
        files: { ...base, 'config.json': new TextEncoder().encode(JSON.stringify({ ...config, model_type: 't5' })) },
      }),
    );
    expect([e.code, e.field]).toEqual(['invalid_argument', 'model_type']);
    e = await rejection(
      engine.loadPretrained({ files: { ...base, 'model.safetensors': base['model.safetensors'].slice(0, 5000) } }),
    );
    expect(e.code).toBe('bad_file');
    e = await rejection(
      engine.loadPretrained({ files: { ...base, 'model.safetensors': filesOf('bert-tiny')['model.safetensors'] } }),
    );
    expect(e.code).toBe('unexpected_tensor');
    const shards = filesOf('gpt2-tiny-sharded', ['model-00002-of-00002.safetensors']);
    e = await rejection(engine.loadPretrained({ files: { ...shards, 'tokenizer.json': base['tokenizer.json'] } }));
    expect([e.code, e.field]).toEqual(['missing_file', 'model-00002-of-00002.safetensors']);
    e = await rejection(engine.loadPretrained({ files: base, repo: 'gpt2' } as never));
    expect(e.message).toMatch(/either files or repo/);
    e = await rejection(engine.loadPretrained({ files: base, bogus: 1 } as never));
    expect(e.field).toBe('bogus');
    e = await rejection(engine.loadPretrained({ repo: '../etc', baseUrl: 'http://127.0.0.1:1/' }));
    expect(e.field).toBe('repo');
  }

  it('dispose() returns the heap to where it was', async () => {
    const files = filesOf('gpt2-tiny');
    const before = engine.heapBytesInUse();
    const m = await engine.loadPretrained({ files });
    expect(engine.heapBytesInUse()).toBeGreaterThan(before + 4 * 557 * 24); // at least the embedding table
    m.dispose();
    expect(engine.heapBytesInUse()).toBe(before);
  });

  describe('from a hub on a local server', () => {
    let server: Server;
    let baseUrl = '';
    const requests: string[] = [];
    beforeAll(async () => {
      server = createServer((request, response) => {
        requests.push(request.url!);
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
        response.writeHead(200, { 'content-length': body.length });
        // two chunks, so progress reports a file in parts
        response.write(body.subarray(0, body.length >> 1));
        setTimeout(() => response.end(body!.subarray(body!.length >> 1)), 5);
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    it('downloads {baseUrl}/{repo}/resolve/main/{file} with progress in bytes', async () => {
      const progress: { file: string; loaded: number; total: number | null }[] = [];
      const m = await engine.loadPretrained({ repo: 'gpt2-tiny', baseUrl, onProgress: (p) => progress.push({ ...p }) });
      checkForward(m, 'gpt2-tiny');
      m.dispose();
      const size = readFileSync(`${DIR}gpt2-tiny/model.safetensors`).length;
      const weights = progress.filter((p) => p.file === 'model.safetensors');
      expect(weights.length).toBeGreaterThanOrEqual(2);
      expect(weights.at(-1)).toEqual({ file: 'model.safetensors', loaded: size, total: size });
      expect(weights[0].loaded).toBeLessThan(size);
    });

    it('reports a repo the hub does not have', async () => {
      const e = await rejection(engine.loadPretrained({ repo: 'no-such-model', baseUrl }));
      expect([e.code, e.field]).toEqual(['missing_file', 'config.json']);
    });

    it('cancels with an AbortSignal', async () => {
      const controller = new AbortController();
      const e = await rejection(
        engine.loadPretrained({
          repo: 'gpt2-tiny',
          baseUrl,
          signal: controller.signal,
          onProgress: (p) => {
            if (p.file === 'model.safetensors') controller.abort();
          },
        }),
      );
      expect(e.code).toBe('aborted');
    });
  });
});
