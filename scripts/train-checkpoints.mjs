#!/usr/bin/env node
// Trains the shipped checkpoints (web/src/workers/checkpoint-builder.ts: CHECKPOINT_PLANS)
// with the project's own trainer, in Node on the SIMD build, and writes them to
// web/public/checkpoints/ ({id}.json, {id}.safetensors, index.json). Deterministic:
// rerunning gives the same files (tests/web/checkpoints.test.ts checks the shipped
// ones against a retraining). Needs the package built (bash scripts/build.sh).
//   node scripts/train-checkpoints.mjs [id ...]     (default: every plan)
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runnerImport } from 'vite';

const root = fileURLToPath(new URL('..', import.meta.url));
const out = `${root}web/public/checkpoints/`;
// The builder is TypeScript importing the engine by its package name, as in the tests.
const load = (path) => runnerImport(path, { configFile: `${root}vitest.config.ts`, root }).then((m) => m.module);
const { loadAttention } = await import(`${root}dist/node.js`);
const { CHECKPOINT_PLANS, buildCheckpoint, checkpointIndexOf } = await load(
  `${root}web/src/workers/checkpoint-builder.ts`,
);

const wanted = process.argv.slice(2);
const plans = CHECKPOINT_PLANS.filter((p) => wanted.length === 0 || wanted.includes(p.id));
const engine = await loadAttention({ build: 'simd' });
mkdirSync(out, { recursive: true });
for (const plan of plans) {
  const started = performance.now();
  const { record, weights } = buildCheckpoint(engine, plan);
  const json = JSON.stringify(record);
  writeFileSync(`${out}${plan.id}.json`, json);
  writeFileSync(`${out}${plan.id}.safetensors`, weights);
  console.log(
    `${plan.id}: ${record.step} steps, ${record.message} ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
      `${json.length} + ${weights.length} bytes`,
  );
}
writeFileSync(`${out}index.json`, `${JSON.stringify(checkpointIndexOf(CHECKPOINT_PLANS), null, 1)}\n`);
