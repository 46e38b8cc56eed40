// Training through the npm package: every task trains to its documented accuracy
// (small, seeded), the API's checks, determinism, gradients and snapshots, both builds.
import { describe, expect, it } from 'vitest';
import { TASKS, type CreateTrainerOptions, type ModelSpec } from '../../dist/node.js';
import { BUILDS, engineFor, thrown } from './helpers.js';

const SMALL: Partial<ModelSpec> = {
  dModel: 32,
  heads: 4,
  layers: 2,
  ffnDim: 64,
  causal: true,
  norm: 'pre',
  finalNorm: true,
  positions: 'learned',
};

// The documented accuracy of each task (README, "Training"): held-out sequence accuracy
// after `steps` steps of this small model, seeded. Chance is far below each bound.
const TRAINED: [string, CreateTrainerOptions['task'], number, number, Partial<ModelSpec>?, object?][] = [
  ['copy', { name: 'copy', length: 5, symbols: 6 }, 200, 0.99],
  ['reverse', { name: 'reverse', length: 5, symbols: 6 }, 200, 0.99],
  ['sort', { name: 'sort', length: 5, symbols: 6 }, 300, 0.9],
  ['recall', { name: 'recall', length: 4, symbols: 8 }, 600, 0.95],
  ['induction', { name: 'induction', length: 6, symbols: 8 }, 400, 0.95],
  ['parens', { name: 'parens', length: 8 }, 400, 0.95],
  // Held-out pairs: 1 in 5 (a + b) never seen in training; chance is 1/23.
  [
    'modadd',
    { name: 'modadd', modulus: 23 },
    600,
    0.6,
    { dModel: 64, layers: 1, ffnDim: 128 },
    { batchSize: 128, optimizer: { lr: 5e-3, weightDecay: 1.0, warmup: 20, schedule: 'cosine', totalSteps: 600 } },
  ],
];

function vocabFor(task: NonNullable<CreateTrainerOptions['task']>): { vocabSize: number; maxSeq: number } {
  const n = task.length ?? 8,
    k = task.symbols ?? 10;
  switch (task.name) {
    case 'recall':
      return { vocabSize: 2 * k + 1, maxSeq: 2 * n + 2 };
    case 'induction':
      return { vocabSize: k, maxSeq: 2 * n };
    case 'modadd':
      return { vocabSize: (task.modulus ?? 13) + 2, maxSeq: 4 };
    case 'parens':
      return { vocabSize: 5, maxSeq: n + 1 };
    default:
      return { vocabSize: k + 1, maxSeq: 2 * n + 1 };
  }
}

describe('simd build: every task trains to its documented accuracy', () => {
  it.each(TRAINED)(
    '%s',
    async (_, task, steps, bound, spec = {}, options = {}) => {
      const engine = await engineFor('simd');
      const trainer = engine.createTrainer({
        spec: { ...SMALL, ...vocabFor(task!), ...spec },
        optimizer: { lr: 3e-3, weightDecay: 0, warmup: 20 },
        batchSize: 32,
        seed: 1,
        task,
        ...options,
      });
      const before = trainer.evaluate();
      const report = trainer.step(steps);
      expect(report.step).toBe(steps);
      const after = trainer.evaluate();
      expect(after.sequenceAccuracy).toBeGreaterThanOrEqual(bound);
      expect(after.loss).toBeLessThan(before.loss);
      trainer.dispose();
    },
    120_000,
  );

  it('text: next-token prediction on pasted text beats the unigram guess', async () => {
    const engine = await engineFor('simd');
    const text = 'the cat sat on the mat. the dog sat on the log. the cat saw the dog. '.repeat(6);
    const trainer = engine.createTrainer({
      spec: { ...SMALL, vocabSize: 64, maxSeq: 16 },
      task: { name: 'text', text, length: 16 },
      optimizer: { lr: 3e-3, weightDecay: 0, warmup: 20 },
      seed: 2,
    });
    trainer.step(200);
    const chars = new Set(text).size;
    expect(trainer.evaluate().loss).toBeLessThan(0.5 * Math.log(chars));
    trainer.dispose();
  }, 120_000);
});

describe.each(BUILDS)('%s build: the trainer API', (build) => {
  it('lists the tasks with their vocabulary, format and pattern', () => {
    expect(TASKS.map((t) => t.name)).toEqual([
      'copy',
      'reverse',
      'sort',
      'recall',
      'induction',
      'modadd',
      'parens',
      'text',
    ]);
    for (const t of TASKS)
      for (const field of [t.vocabulary, t.format, t.pattern]) expect(field.length).toBeGreaterThan(5);
  });

  it('gives the same losses for the same seed, bit for bit, and snapshots restore them', async () => {
    const engine = await engineFor(build);
    const make = () =>
      engine.createTrainer({
        spec: { ...SMALL, vocabSize: 7, maxSeq: 11 },
        task: { name: 'sort', length: 5, symbols: 6 },
        batchSize: 8,
        seed: 3,
      });
    const a = make(),
      b = make();
    const lossesA = [1, 2, 3].map(() => a.step().loss),
      lossesB = [1, 2, 3].map(() => b.step().loss);
    expect(lossesA).toEqual(lossesB);
    const snapshot = a.snapshot();
    const next = [a.step().loss, a.step().loss];
    a.restore(snapshot);
    expect([a.step().loss, a.step().loss]).toEqual(next);
    expect(a.steps).toBe(5);
    // sort's tokens: the 6 items, then the separator
    expect(a.vocabulary()).toEqual(['0', '1', '2', '3', '4', '5', '|']);
    a.dispose();
    b.dispose();
  });

  it('trains a model you made, on your batches, and gives gradients without changing it', async () => {
    const engine = await engineFor(build);
    const model = engine.createModel({ vocabSize: 5, dModel: 8, heads: 2, layers: 1, ffnDim: 16, causal: true });
    const trainer = engine.createTrainer({ model, optimizer: { lr: 1e-2, betas: [0.9, 0.98] } });
    const batch = {
      ids: Int32Array.from([0, 1, 2, 3, 1, 2, 3, 4]),
      targets: Int32Array.from([1, 2, 3, -100, 2, 3, 4, -100]),
      batch: 2,
      seq: 4,
    };
    const before = model.saveWeights();
    const { loss, gradients } = trainer.lossAndGradients(batch);
    expect(model.saveWeights()).toEqual(before);
    expect([...gradients.keys()]).toEqual(model.parameters().map((p) => p.name));
    expect(gradients.get('embed.weight')!.length).toBe(40);
    const first = trainer.step(batch);
    expect(first.loss).toBeCloseTo(loss, 5);
    expect(first.lr).toBe(1e-2);
    for (let i = 0; i < 30; i++) trainer.step(batch);
    expect(trainer.step(batch).loss).toBeLessThan(loss / 2);
    expect(model.saveWeights()).not.toEqual(before);
    trainer.dispose();
    expect(model.disposed).toBe(false); // the model stays the caller's
    model.dispose();
  });

  it('trains on your data and evaluates on it', async () => {
    const engine = await engineFor(build);
    const ids = Int32Array.from([0, 1, 2, 0, 1, 2, 2, 1, 0, 2, 1, 0]);
    const targets = Int32Array.from([1, 2, -100, 1, 2, -100, 1, 0, -100, 1, 0, -100]);
    const trainer = engine.createTrainer({
      spec: { vocabSize: 3, dModel: 8, heads: 2, layers: 1, ffnDim: 16, causal: true, maxSeq: 3 },
      data: { ids, targets, batch: 4, seq: 3 },
      batchSize: 4,
      optimizer: { lr: 1e-2, weightDecay: 0 },
    });
    trainer.step(150);
    expect(trainer.evaluate()).toMatchObject({ accuracy: 1, examples: 4 });
    expect(trainer.vocabulary()).toEqual(['0', '1', '2']); // your ids have no text: shown as numbers
    trainer.dispose();
  });

  it('describes a task before any model, and sizes a spec for it', async () => {
    const engine = await engineFor(build);
    expect(engine.describeTask({ name: 'sort', length: 5, symbols: 6 })).toEqual({
      vocabSize: 7,
      seqLen: 11,
      vocabulary: ['0', '1', '2', '3', '4', '5', '|'],
    });
    expect(engine.describeTask({ name: 'modadd', modulus: 5 }).vocabulary).toEqual(['0', '1', '2', '3', '4', '+', '=']);
    expect(thrown(() => engine.describeTask({ name: 'sort', length: 0 })).field).toBe('length');
    expect(thrown(() => engine.describeTask(null as unknown as { name: 'sort' })).field).toBe('task');
    const trainer = engine.createTrainer({ spec: { ...SMALL }, task: { name: 'sort', length: 5, symbols: 6 } });
    expect([trainer.model.spec.vocabSize, trainer.model.spec.maxSeq]).toEqual([7, 11]);
    trainer.dispose();
  });

  it('refuses bad settings with a code and the field', async () => {
    const engine = await engineFor(build);
    const spec = { ...SMALL, vocabSize: 7, maxSeq: 11 };
    const sort = { name: 'sort' as const, length: 5, symbols: 6 };
    expect(thrown(() => engine.createTrainer({ spec, task: sort, optimizer: { lr: 0 } })).field).toBe('lr');
    expect(thrown(() => engine.createTrainer({ spec, task: sort, optimizer: { lr: -1 } })).code).toBe('out_of_range');
    expect(thrown(() => engine.createTrainer({ spec, task: sort, batchSize: 0 })).field).toBe('batchSize');
    expect(thrown(() => engine.createTrainer({ spec, task: { ...sort, length: 100 } })).field).toBe('length');
    expect(thrown(() => engine.createTrainer({ spec: { ...spec, causal: false }, task: sort })).field).toBe('causal');
    expect(thrown(() => engine.createTrainer({ spec: { ...spec, vocabSize: 4 }, task: sort })).field).toBe('vocabSize');
    expect(thrown(() => engine.createTrainer({ spec, task: { name: 'juggle' } as unknown as typeof sort })).field).toBe(
      'name',
    );
    expect(
      thrown(() => engine.createTrainer({ spec, optimizer: { betas: [0.9] as unknown as [number, number] } })).field,
    ).toBe('betas');
    const trainer = engine.createTrainer({ spec, task: sort });
    const bad = { ids: new Int32Array(11), targets: new Int32Array(11).fill(9), batch: 1, seq: 11 };
    const e = thrown(() => trainer.step(bad));
    expect([e.code, e.field]).toEqual(['out_of_range', 'targets']);
    expect(thrown(() => trainer.step({ ...bad, targets: new Int32Array(3) })).field).toBe('targets');
    expect(thrown(() => trainer.step(0)).field).toBe('n');
    const other = await engineFor(build === 'simd' ? 'scalar' : 'simd');
    const foreign = other.createModel({ ...spec });
    expect(thrown(() => engine.createTrainer({ model: foreign, task: sort })).message).toMatch(/another engine/);
    foreign.dispose();
    trainer.dispose();
    expect(thrown(() => trainer.step()).code).toBe('disposed');
  });
});
