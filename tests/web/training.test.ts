// The Train view's run (what its worker does) and its settings table, in Node: progress
// events per slice, pause between slices, stop at the held-out target, reset = the same
// run again, and settings that come from the engine's declarations.
import { describe, expect, it } from 'vitest';
import { MODEL_SPEC_SCHEMA, OPTIMIZER_SCHEMA, TASK_SCHEMA, loadAttention } from '../../dist/node.js';
import { TrainingSession, type Progress } from '../../web/src/workers/training.js';
import { parseSetting } from '../../web/src/settings/settings.js';
import {
  DEFAULT_TRAIN_STATE,
  TRAIN_SETTINGS,
  comparisonOpening,
  ffnWeights,
  kvCacheBytesPerToken,
  runLabel,
  runLimits,
  runStates,
  shownTrainSettings,
  trainCrossCheck,
  trainSettingByName,
  trainStateFromHash,
  trainStateToHash,
  trainerOptions,
  type TrainState,
} from '../../web/src/settings/train-settings.js';

// A small, quick version of the view's sort task.
const QUICK: TrainState = {
  ...DEFAULT_TRAIN_STATE,
  length: 4,
  symbols: 5,
  dModel: 32,
  ffnDim: 64,
  steps: 300,
  evalEvery: 20,
};

describe('the Train view settings', () => {
  it('take type, range, choices and help from the engine, and parse their own starting values', () => {
    const schemas = { task: TASK_SCHEMA, spec: MODEL_SPEC_SCHEMA, optimizer: OPTIMIZER_SCHEMA } as const;
    for (const s of TRAIN_SETTINGS) {
      const raw = s.type === 'bool' ? (s.default ? '1' : '0') : String(s.default);
      expect(parseSetting(s, raw), s.name).toEqual({ value: s.default });
      const schema = schemas[s.target as keyof typeof schemas];
      if (!schema) continue;
      const info = schema.settings.find((i) => i.name === s.field)!;
      expect(s.type).toBe(info.type);
      if (s.type !== 'choice' && s.type !== 'bool' && s.type !== 'text')
        expect([s.min, s.max]).toEqual([info.min, info.max]);
    }
    const lr = TRAIN_SETTINGS.find((s) => s.name === 'lr')!;
    expect(parseSetting(lr, '0')).toHaveProperty('error'); // lr must be > 0 (the engine's exclusive minimum)
    expect(parseSetting(lr, '1e-3')).toEqual({ value: 0.001 });
  });

  it('round-trip through the URL hash and report what they could not read', () => {
    const state = { ...DEFAULT_TRAIN_STATE, task: 'reverse', heads: 2, lr: 0.01, residual: false };
    expect(trainStateToHash(DEFAULT_TRAIN_STATE)).toBe('#train');
    expect(trainStateFromHash(trainStateToHash(state)).state).toEqual(state);
    const { problems } = trainStateFromHash('#train&heads=x&bogus=1');
    expect(problems).toHaveLength(2);
  });

  it('show the modern block in its own group, through the URL hash, and hide what needs another setting', () => {
    const modern = TRAIN_SETTINGS.filter((s) => s.group === 'modern').map((s) => s.name);
    expect(modern).toEqual([
      'kvHeads',
      'headDim',
      'ropeTheta',
      'ropeFraction',
      'ropeScaling',
      'ropeFactor',
      'ropeLowFreqFactor',
      'ropeHighFreqFactor',
      'ropeOriginalContext',
      'window',
      'windowPattern',
      'ropeLocalTheta',
      'normType',
      'ffn',
      'qkNorm',
      'qkvBias',
      'outBias',
      'mlpBias',
      'headBias',
      'embedScale',
      'queryPreAttnScalar',
    ]);
    // Every setting the modern block added to the engine's ModelSpec is in the table (and so in the URL hash and
    // the element's attributes).
    const classic = new Set([
      'vocabSize',
      'maxSeq',
      'causal',
      'head',
      'encoderLayers',
      'layerNormEps',
      'typeVocabSize',
      'embedNorm',
    ]);
    for (const { name } of MODEL_SPEC_SCHEMA.settings)
      if (!classic.has(name)) expect(trainSettingByName(name), name).toBeDefined();
    expect(trainSettingByName('positions')).toMatchObject({
      choices: ['none', 'sinusoidal', 'learned', 'rope', 'alibi'],
      labels: { rope: 'RoPE (rotate q and k)', alibi: 'ALiBi (a bias on the scores)' },
    });
    const state: TrainState = {
      ...DEFAULT_TRAIN_STATE,
      positions: 'rope',
      ropeTheta: 500,
      kvHeads: 2,
      window: 3,
      windowPattern: 2,
      normType: 'rmsnorm',
      ffn: 'gated',
      activation: 'silu',
      qkNorm: true,
      evalLength: 16,
    };
    const hash = trainStateToHash(state);
    expect(hash).toContain('kvHeads=2');
    expect(hash).toContain('evalLength=16');
    expect(trainStateFromHash(hash)).toEqual({ state, problems: [] });
    expect(trainerOptions(state).spec).toMatchObject({
      positions: 'rope',
      ropeTheta: 500,
      kvHeads: 2,
      window: 3,
      windowPattern: 2,
      normType: 'rmsnorm',
      ffn: 'gated',
      qkNorm: true,
    });
    expect(trainerOptions(state).task).toMatchObject({ name: 'sort', length: 8, evalLength: 16 });
    const names = (s: TrainState) => shownTrainSettings(s).map((t) => t.name);
    expect(names(DEFAULT_TRAIN_STATE)).not.toContain('ropeTheta'); // learned positions: no RoPE base
    expect(names(DEFAULT_TRAIN_STATE)).not.toContain('windowPattern'); // no window
    expect(names(state)).toEqual(expect.arrayContaining(['ropeTheta', 'ropeFraction', 'windowPattern']));
    expect(names({ ...state, task: 'modadd' })).not.toContain('evalLength');
    expect(trainerOptions({ ...DEFAULT_TRAIN_STATE, ropeTheta: 500 }).spec).not.toHaveProperty('ropeTheta');
    expect(trainCrossCheck({ ...state, kvHeads: 3 }).kvHeads).toMatch(
      /^Key\/value heads \(3\) must divide heads \(4\)/,
    );
  });

  it('show only the task settings the task reads, and check the model rules', () => {
    const names = (state: TrainState) => shownTrainSettings(state).map((s) => s.name);
    expect(names({ ...DEFAULT_TRAIN_STATE, task: 'modadd' })).toContain('modulus');
    expect(names({ ...DEFAULT_TRAIN_STATE, task: 'modadd' })).not.toContain('symbols');
    expect(names({ ...DEFAULT_TRAIN_STATE, task: 'text' })).toContain('text');
    // d_model 48; the message in the page's words (the label d_model, not the API's dModel).
    expect(trainCrossCheck({ ...DEFAULT_TRAIN_STATE, heads: 5 }).heads).toBe(
      'heads (5) must divide d_model (48): d_k = d_model / heads must be a whole number (or set Head dimension d_h)',
    );
    const options = trainerOptions({ ...DEFAULT_TRAIN_STATE, task: 'modadd' });
    expect(options.task).toEqual({ name: 'modadd', modulus: 13 });
    expect(options.spec).toMatchObject({ causal: true, dModel: 48, norm: 'pre' });
    expect(options.optimizer).toMatchObject({ lr: 3e-3, totalSteps: 600, schedule: 'cosine' });
  });
});

describe('comparisons', () => {
  /** The settings in which run i differs from the state, with their values. */
  const changes = (state: TrainState) =>
    runStates(state).map((run) => Object.fromEntries(Object.entries(run).filter(([k, v]) => state[k] !== v)));
  const labels = (state: TrainState) => runStates(state).map((_, i) => runLabel(state, i));
  const comparing = (compare: string, more: TrainState = {}) => ({ ...DEFAULT_TRAIN_STATE, ...more, compare });

  it('offer every comparison as a choice, and nothing means one run without a label', () => {
    expect(trainSettingByName('compare')).toMatchObject({
      choices: [
        'none',
        'residual',
        'scale',
        'scale64',
        'norm',
        'layerNorm',
        'attnActivation',
        'positions',
        'lengthPositions',
        'kvHeads',
        'window',
        'normType',
        'swiglu',
      ],
    });
    expect(runStates(DEFAULT_TRAIN_STATE)).toEqual([DEFAULT_TRAIN_STATE]);
    expect(labels(DEFAULT_TRAIN_STATE)).toEqual(['']);
    expect(runLabel(comparing('residual'), 2)).toBe(''); // past the last run
  });

  it('run none, ReLU and GELU after attention as three runs, into three specs', () => {
    const state = comparing('attnActivation');
    expect(changes(state)).toEqual([{}, { attnActivation: 'relu' }, { attnActivation: 'gelu' }]);
    expect(labels(state)).toEqual(['no activation after attention', 'ReLU after attention', 'GELU after attention']);
    expect(runStates(state).map((s) => trainerOptions(s).spec.attnActivation)).toEqual(['none', 'relu', 'gelu']);
    // Your own choice of the compared setting is the runs' to make.
    expect(runStates({ ...state, attnActivation: 'gelu_tanh' }).map((s) => s.attnActivation)).toEqual([
      'none',
      'relu',
      'gelu',
    ]);
  });

  it('flip LayerNorm, residual connections, scaling and norm placement, A first', () => {
    expect(changes(comparing('layerNorm'))).toEqual([{}, { layerNorm: false }]);
    expect(labels(comparing('layerNorm'))).toEqual(['LayerNorm', 'no LayerNorm']);
    expect(runStates(comparing('layerNorm')).map((s) => trainerOptions(s).spec.layerNorm)).toEqual([true, false]);
    expect(changes(comparing('residual'))).toEqual([{}, { residual: false }]);
    expect(labels(comparing('residual'))).toEqual(['residual on', 'residual off']);
    expect(changes(comparing('scale'))).toEqual([{}, { scale: false }]);
    expect(labels(comparing('norm'))).toEqual(['pre-LN', 'post-LN']);
    expect(changes(comparing('norm'))).toEqual([{}, { norm: 'post' }]);
  });

  it('compare scaling at d_k = 64: d_model 128 with 2 heads, scaled and not', () => {
    const state = comparing('scale64');
    expect(changes(state)).toEqual([
      { dModel: 128, heads: 2 },
      { dModel: 128, heads: 2, scale: false },
    ]);
    expect(labels(state)).toEqual(['d_k 64, scaled by 1/√d_k', 'd_k 64, not scaled']);
    for (const run of runStates(state)) {
      const spec = trainerOptions(run).spec;
      expect(spec.dModel! / spec.heads!).toBe(64);
      expect(trainCrossCheck(run)).toEqual({});
    }
  });

  it('keep your positions in run A unless they are none', () => {
    expect(changes(comparing('positions'))).toEqual([{}, { positions: 'none' }]); // learned: the view's start
    expect(labels(comparing('positions', { positions: 'sinusoidal' }))).toEqual([
      'sinusoidal positions',
      'no positions',
    ]);
    expect(runStates(comparing('positions', { positions: 'none' })).map((s) => s.positions)).toEqual([
      'learned',
      'none',
    ]);
  });

  it('compare positions at twice the trained length: five runs, RoPE first', () => {
    const state: TrainState = comparing('lengthPositions', comparisonOpening('lengthPositions'));
    expect(state.evalLength).toBe(2 * (state.length as number));
    expect(runStates(state).map((s) => s.positions)).toEqual(['rope', 'learned', 'sinusoidal', 'alibi', 'none']);
    expect(labels(state)).toEqual(['RoPE', 'learned', 'sinusoidal', 'ALiBi', 'no positions']);
    for (const run of runStates(state)) expect(trainerOptions(run).task.evalLength).toBe(state.evalLength);
  });

  it('compare MHA, GQA and MQA, each labelled with its KV cache bytes per token (2 · layers · kvHeads · d_h · 4)', () => {
    const state = comparing('kvHeads', { heads: 4, dModel: 32, layers: 2 });
    expect(changes(state)).toEqual([{ kvHeads: 4 }, { kvHeads: 2 }, { kvHeads: 1 }]);
    expect(labels(state)).toEqual([
      'MHA, 4 K/V heads: KV cache 512 bytes per token', // 2 · 2 · 4 · 8 · 4
      'GQA, 2 K/V heads: KV cache 256 bytes per token',
      'MQA, 1 K/V head: KV cache 128 bytes per token',
    ]);
    expect(kvCacheBytesPerToken({ ...state, kvHeads: 0, headDim: 16 })).toBe(2 * 2 * 4 * 16 * 4);
    expect(runStates(comparing('kvHeads', { heads: 3, dModel: 48 })).map((s) => s.kvHeads)).toEqual([3, 1]);
    for (const run of runStates(state)) expect(trainCrossCheck(run)).toEqual({});
  });

  it('compare full attention with a window at the same depth and at more layers, saying the reach', () => {
    const state: TrainState = comparing('window', comparisonOpening('window'));
    const [full, shallow, deep] = runStates(state);
    expect(full.window).toBe(0);
    expect(shallow.window).toBeGreaterThan(0);
    expect(shallow.layers).toBe(full.layers);
    expect(deep.window).toBe(shallow.window);
    expect(deep.layers).toBeGreaterThan(shallow.layers as number);
    const w = shallow.window as number;
    expect(labels(state)).toEqual([
      `full attention, ${full.layers} layers`,
      `window ${w}, ${shallow.layers} layers: reach ${(shallow.layers as number) * (w - 1)} tokens back`,
      `window ${w}, ${deep.layers} layers: reach ${(deep.layers as number) * (w - 1)} tokens back`,
    ]);
  });

  it('compare RMSNorm with LayerNorm, and SwiGLU with a ReLU MLP of as many weights', () => {
    expect(changes(comparing('normType'))).toEqual([{ normType: 'rmsnorm' }, {}]);
    const state = comparing('swiglu', { dModel: 48, ffnDim: 96 });
    const [gated, relu] = runStates(state);
    expect(trainerOptions(gated).spec).toMatchObject({ ffn: 'gated', activation: 'silu', ffnDim: 64 });
    expect(trainerOptions(relu).spec).toMatchObject({ ffn: 'standard', activation: 'relu', ffnDim: 96 });
    expect(ffnWeights(gated)).toBe(ffnWeights(relu)); // 3 · 48 · 64 = 2 · 48 · 96
    expect(labels(state)).toEqual([
      'SwiGLU, FFN width 64: 9,216 FFN weights per layer',
      'ReLU, FFN width 96: 9,216 FFN weights per layer',
    ]);
  });

  it('round-trip through the URL hash with the new model settings', () => {
    const state = comparing('attnActivation', { layerNorm: false, attnActivation: 'relu' });
    const hash = trainStateToHash(state);
    expect(hash).toContain('compare=attnActivation');
    expect(hash).toContain('layerNorm=0');
    expect(trainStateFromHash(hash)).toEqual({ state, problems: [] });
    expect(trainSettingByName('norm')!.label).toBe('LayerNorm placement');
    expect(trainSettingByName('layerNorm')!.label).toBe('LayerNorm');
    expect(trainSettingByName('attnActivation')!.label).toBe('Activation after attention');
  });
});

describe('a training run', () => {
  it('reports progress per slice, with curve points, steps per second and the probe', async () => {
    const session = new TrainingSession(await loadAttention());
    const created = session.create(trainerOptions(QUICK), { ...runLimits(QUICK), steps: 40 });
    if (!created.ok) throw new Error(created.error.message);
    expect(created.info.seqLen).toBe(9);
    expect(created.info.vocabulary).toEqual(['0', '1', '2', '3', '4', '|']);
    expect(created.progress.heldOut.map((p) => p.step)).toEqual([0]); // the untrained model's point
    const events: Progress[] = [];
    const last = await session.run((p) => events.push(p));
    expect(last.status).toBe('done');
    expect(last.step).toBe(40);
    expect(events.length).toBeGreaterThan(0);
    const trainSteps = events.flatMap((e) => e.train.map((p) => p.step));
    expect(trainSteps).toEqual(Array.from({ length: 40 }, (_, i) => i + 1)); // every step, once, in order
    expect(events.flatMap((e) => e.heldOut.map((p) => p.step))).toEqual([20, 40]);
    expect(events[0].stepsPerSecond).toBeGreaterThan(0);
    const probe = last.probe;
    expect(probe.tokens).toHaveLength(9);
    expect(probe.heads).toHaveLength(2 * 4); // layers x heads
    for (const h of probe.heads) {
      expect(h.weights).toHaveLength(81);
      for (let i = 0; i < 9; i++) {
        // causal rows sum to 1 over the keys up to the query
        const row = h.weights.subarray(i * 9, i * 9 + 9);
        expect(row.slice(0, i + 1).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
        expect(row.slice(i + 1).every((w) => w === 0)).toBe(true);
      }
    }
    expect(probe.expected.filter((e) => e !== null)).toHaveLength(4); // the sorted half is scored
    session.dispose();
  });

  it('holds out longer sequences than it trains on with evalLength: maxSeq covers them, the probe is one', async () => {
    const engine = await loadAttention();
    expect(engine.describeTask({ name: 'sort', length: 4, evalLength: 8 }).seqLen).toBe(17);
    const session = new TrainingSession(engine);
    const created = session.create(trainerOptions({ ...QUICK, evalLength: 8 }), runLimits(QUICK));
    if (!created.ok) throw new Error(created.error.message);
    expect(created.info.seqLen).toBe(17); // maxSeq: the held-out sorts of 8 items
    expect(created.progress.probe.tokens).toHaveLength(17);
    expect(created.progress.probe.expected.filter((e) => e !== null)).toHaveLength(8);
    const last = session.advance(20);
    expect(last.train.every((p) => Number.isFinite(p.loss))).toBe(true);
    session.dispose();
    expect(() => engine.describeTask({ name: 'modadd', evalLength: 8 })).toThrow(
      expect.objectContaining({ field: 'evalLength' }),
    );
  });

  it('pauses between slices, steps one at a time, and resumes where it was', async () => {
    // Slices of ~1 ms (a step or two): with the page's 150 ms a fast machine could reach the
    // task's target inside the first slice, and the run would end 'done' before any pause.
    const session = new TrainingSession(await loadAttention(), 1);
    session.create(trainerOptions(QUICK), runLimits(QUICK));
    let events = 0;
    const running = session.run(() => {
      events += 1;
      if (events === 1) session.pause();
    });
    const paused = await running;
    expect(paused.status).toBe('paused');
    expect(events).toBe(1);
    const at = paused.step;
    expect(session.step().step).toBe(at + 1);
    const more = await session.run(() => session.pause());
    expect(more.step).toBeGreaterThan(at + 1);
    session.dispose();
  });

  it('stops once held-out sequence accuracy reaches the target, and a reset replays the same run', async () => {
    const session = new TrainingSession(await loadAttention());
    const options = trainerOptions(QUICK);
    const limits = { ...runLimits(QUICK), stopAt: 0.9 };
    session.create(options, limits);
    const losses: number[] = [];
    const end = await session.run((p) => losses.push(...p.train.map((t) => t.loss)));
    expect(end.status).toBe('done');
    expect(end.message).toMatch(/Reached (9\d|100)\.\d% held-out sequence accuracy at step \d+/);
    expect(end.step).toBeLessThan(300);
    expect(end.step % 20).toBe(0); // it can only know at an evaluation
    // Your own input, completed greedily to the task's length: a trained model sorts it.
    const done = session.complete([4, 0, 3, 1, 5]); // 4 0 3 1 |
    if (!done.ok) throw new Error(done.error.message);
    expect(done.probe.typed).toBe(5);
    expect(done.probe.tokens.slice(0, 5)).toEqual(['4', '0', '3', '1', '|']);
    expect(done.probe.tokens).toHaveLength(9);
    expect(done.probe.heads).toHaveLength(8);
    expect(session.complete([])).toMatchObject({ ok: false, error: { field: 'input' } });
    expect(session.complete([6])).toMatchObject({ ok: false, error: { field: 'input' } });
    session.create(options, limits);
    const again: number[] = [];
    await session.run((p) => again.push(...p.train.map((t) => t.loss)));
    expect(again).toEqual(losses); // same seed and settings: the same losses, bit for bit
    session.dispose();
  }, 120_000);

  it('reports bad settings and foreign weights as errors naming the field, keeping the run', async () => {
    const session = new TrainingSession(await loadAttention());
    const bad = session.create(trainerOptions({ ...QUICK, lr: -1 }), runLimits(QUICK));
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.field).toBe('lr');
    const created = session.create(trainerOptions(QUICK), runLimits(QUICK));
    expect(created.ok).toBe(true);
    const saved = session.saveWeights();
    expect(session.loadWeights(saved).ok).toBe(true);
    const other = new TrainingSession(await loadAttention());
    other.create(trainerOptions({ ...QUICK, dModel: 16 }), runLimits(QUICK));
    const refused = session.loadWeights(other.saveWeights());
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.error.code).toBe('shape_mismatch');
    expect(session.saveWeights()).toEqual(saved);
    session.dispose();
    other.dispose();
  });
});
