// The models the analysis tools' tests run on: the tiny PyTorch reference models of
// tests/reference/fixtures/heads.json and ablation.json (GPT-2, BERT and the hub families through
// loadPretrained, the modern fixtures through
// createModel + loadWeights) and the shipped checkpoints.
import { readFileSync, readdirSync } from 'node:fs';
import type { AttentionEngine, Model } from '../../dist/node.js';
import { ROOT } from './helpers.js';

const FIXTURES = `${ROOT}tests/reference/fixtures/`;
const bytes = (path: string) => new Uint8Array(readFileSync(path));

function specOf(safetensors: Uint8Array): Record<string, unknown> {
  const n = Number(new DataView(safetensors.buffer, safetensors.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(safetensors.subarray(8, 8 + n)));
  return JSON.parse(header.__metadata__.spec);
}

export async function referenceModel(engine: AttentionEngine, source: string): Promise<Model> {
  if (source.startsWith('pretrained/') || source.startsWith('hub/')) {
    const dir = FIXTURES + source;
    const files = Object.fromEntries(
      readdirSync(dir)
        .filter((f) => f !== 'expected.json')
        .map((f) => [f, bytes(`${dir}/${f}`)]),
    );
    // bert-tiny-mlm holds weights only: its vocabulary is bert-tiny's (as pretrained.test.ts loads it).
    if (source === 'pretrained/bert-tiny-mlm') files['vocab.txt'] = bytes(`${FIXTURES}pretrained/bert-tiny/vocab.txt`);
    return (await engine.loadPretrained({ files })).model;
  }
  const f = JSON.parse(readFileSync(`${FIXTURES}${source}.json`, 'utf8'));
  const model = engine.createModel(f.spec, { init: 'zeros' });
  model.loadWeights(bytes(`${FIXTURES}${source}.safetensors`));
  return model;
}

export function checkpoint(engine: AttentionEngine, id: string): Model {
  const file = bytes(`${ROOT}web/public/checkpoints/${id}.safetensors`);
  const model = engine.createModel(specOf(file), { init: 'zeros' });
  model.loadWeights(file);
  return model;
}
