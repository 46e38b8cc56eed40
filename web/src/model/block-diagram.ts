// The block diagram above the view: one layer of the attention block on screen, as the trace
// recorded it, x -> (norm) -> W_q / W_k / W_v -> split heads -> [Q·Kᵀ -> ÷√d_k -> mask ->
// softmax -> ·V per head] -> merge · W_o -> + x -> (norm) -> FFN -> + x -> (norm). Each box
// names the recorded stage it stands for and the settings a click applies (the view that shows
// that step; model/stage-values.ts stepSettings for the stages the heatmap, Masks and Values
// views show); the arrows carry the shape of what flows along them, read from the trace.
// What the trace lacks is not drawn: no mask box when nothing is blocked, no ÷√d_k when the
// model does not scale, no + x without residual connections, the norms where the model puts
// them (before the sub-layer: pre-LN; after the add: post-LN). Cross-attention has a second input,
// the source (the encoder's output), into W_k and W_v. No DOM: Vitest tests it in Node.
import type { Stage, Trace } from 'attention-playground';
import { layerInput } from './flow-model.js';
import { MINUS_INFINITY } from './words.js';
import { stepSettings, type Stack } from './stage-values.js';
import { findStage, type Block } from './trace-model.js';

export interface SettingChange {
  name: string;
  raw: string;
}

export interface DiagramShape {
  axes: string[];
  shape: number[];
}

export interface DiagramBox {
  /** Unique within the diagram: 'x', 'qkv', 'split', 'scores', 'scaled', 'mask', 'weights', 'context', 'output', … */
  id: string;
  /** What the box says: 'W_q W_k W_v', 'Q·Kᵀ', 'softmax'. */
  label: string;
  /** A line on what happens here (the stage registry's help where there is one). */
  help: string;
  /** The settings a click applies, the view last. */
  settings: SettingChange[];
  /** The view the box opens (the last of `settings`). */
  view: string;
  /** Settings under which this box is the step on screen: a view, and the stage or tensor if it matters. */
  covers: { view: string; name?: 'stage' | 'tensor'; values?: string[] }[];
  /** The shape on the arrow that leaves the box; null where the arrow carries what came in (or there is none). */
  out: DiagramShape | null;
  /** Boxes inside the per-head group (the attention of each head, step by step). */
  perHead: boolean;
  /** A whole other attention sub-layer of the same layer (cross mode): a click draws that block instead. */
  otherBlock?: boolean;
}

export interface BlockDiagram {
  block: Block;
  layer: number;
  /** The box for the per-head group's label (the Step by step view), drawn around the perHead boxes. */
  group: DiagramBox;
  boxes: DiagramBox[];
  /** The sizes the shapes are made of, e.g. { B: 2, S: 6, E: 64, H: 4, d_k: 16, F: 256 }. */
  sizes: { name: string; value: number }[];
  /** 'pre' or 'post' LayerNorm, or '' when the layer records no norm. */
  norm: 'pre' | 'post' | '';
  /**
   * Cross-attention's second input: the source (the encoder's output), which W_k and W_v read while W_q reads x.
   * Its `out` is what it carries, (B, Sk, E); null in self-attention, where Q, K and V all come from x.
   */
  source: DiagramBox | null;
}

const shapeOf = (stage: Stage | undefined): DiagramShape | null =>
  stage ? { axes: [...stage.axes], shape: [...stage.shape] } : null;

/** The sub-layer index (1, 2, 3) of an attention block in its stack's layer, and of the FFN after it. */
function sublayers(trace: Trace, block: Block): { attention: number; ffn: number } {
  if (block === 'decoder.cross_attn') return { attention: 2, ffn: 3 };
  if (block === 'decoder.self_attn' && trace.mode === 'cross') return { attention: 1, ffn: 3 };
  return { attention: 1, ffn: 2 };
}

/** Whether the block blocks any (query, key) pair in this layer, in any sentence. */
function masksSomething(trace: Trace, block: Block, layer: number): boolean {
  const mask = findStage(trace, `${block}.mask`, layer);
  return !!mask && mask.data.some((v) => v !== 0);
}

/** The diagram of one layer of `block`, or null when the trace did not record its attention. */
export function blockDiagram(trace: Trace, block: Block, layer: number): BlockDiagram | null {
  const stack = block.split('.')[0] as Stack;
  const inBlock = (name: string) => findStage(trace, `${block}.${name}`, layer);
  const inLayer = (name: string) => findStage(trace, `${stack}.${name}`, layer);
  const weights = inBlock('weights');
  if (!weights) return null;
  const order = (stage: Stage | undefined) => (stage ? trace.stages.indexOf(stage) : -1);
  const { attention, ffn } = sublayers(trace, block);
  const blockName = block.split('.')[1];
  const viewSettings = (view: string): SettingChange[] => [
    ...(trace.mode === 'cross' ? [{ name: 'block', raw: block }] : []),
    { name: 'view', raw: view },
  ];
  /** A box that opens a recorded stage where the views show it (heatmaps, Masks or Values). */
  const stageBox = (
    id: string,
    label: string,
    stage: Stage,
    tensor: string,
    extra: Partial<DiagramBox> = {},
  ): DiagramBox => {
    const settings = stepSettings(stage.name, trace.mode, tensor);
    const view = settings[settings.length - 1].raw;
    const key = settings.find((s) => s.name === 'stage' || s.name === 'tensor');
    return {
      id,
      label,
      help: '',
      settings,
      view,
      covers: [key ? { view, name: key.name as 'stage' | 'tensor', values: [key.raw] } : { view }],
      out: null,
      perHead: false,
      ...extra,
    };
  };
  const boxes: DiagramBox[] = [];
  const input = layerInput(trace, stack, layer);
  if (input)
    boxes.push(
      stageBox('x', 'x', input, 'input', {
        help:
          block === 'decoder.cross_attn'
            ? 'the decoder’s stream: the queries come from it, the keys and values from the encoder’s output'
            : layer === 0
              ? 'each token’s vector: embedding + position'
              : `layer ${layer - 1}’s output`,
        out: shapeOf(input),
      }),
    );
  const qProj = inBlock('q_proj');
  const normBefore = (k: number, before: Stage | undefined) => {
    const norm = inLayer(`norm${k}`);
    return norm && before && order(norm) < order(before) ? norm : undefined;
  };
  /** The decoder's other attention sub-layer in cross mode, as one box that switches the diagram to it. */
  const otherBlock = (other: Block, k: number) => {
    const end = inLayer(`residual${k}`) ?? inLayer(`norm${k}`) ?? findStage(trace, `${other}.output`, layer);
    boxes.push({
      id: other === 'decoder.self_attn' ? 'self-attention' : 'cross-attention',
      label: other === 'decoder.self_attn' ? 'self-attention' : 'cross-attention',
      help: `the layer’s ${other === 'decoder.self_attn' ? 'masked self-attention' : 'cross-attention'} sub-layer with its add and norm: show its steps`,
      settings: [
        { name: 'block', raw: other },
        { name: 'stage', raw: 'weights' },
        { name: 'view', raw: 'heads' },
      ],
      view: 'heads',
      covers: [],
      out: shapeOf(end),
      perHead: false,
      otherBlock: true,
    });
  };
  if (block === 'decoder.cross_attn') otherBlock('decoder.self_attn', 1);
  const preNorm = normBefore(attention, qProj);
  if (preNorm)
    boxes.push(
      stageBox(`norm${attention}`, 'norm', preNorm, `norm${attention}`, {
        help: 'LayerNorm before the sub-layer (pre-LN)',
      }),
    );
  if (qProj)
    boxes.push({
      id: 'qkv',
      label: 'W_q W_k W_v',
      help: 'three linear layers, the same for every token: Q, K and V',
      settings: viewSettings('rows'),
      view: 'rows',
      covers: [{ view: 'rows' }],
      out: shapeOf(qProj),
      perHead: false,
    });
  const qHeads = inBlock('q_heads');
  if (qHeads)
    boxes.push({
      id: 'split',
      label: 'split heads',
      help: 'each of Q, K, V cut into H blocks of d_k columns',
      settings: viewSettings('split'),
      view: 'split',
      covers: [{ view: 'split' }],
      out: shapeOf(qHeads),
      perHead: false,
    });
  const scores = inBlock('scores');
  if (scores)
    boxes.push(
      stageBox('scores', 'Q·Kᵀ', scores, '', {
        help: 'every query against every key',
        out: shapeOf(scores),
        perHead: true,
      }),
    );
  const scaled = inBlock('scaled');
  if (scaled && trace.config.scale !== false)
    boxes.push(stageBox('scaled', '÷√d_k', scaled, '', { help: 'scaled down by √d_k', perHead: true }));
  const mask = inBlock('mask');
  if (mask && masksSomething(trace, block, layer)) {
    const box = stageBox('mask', 'mask', mask, '', { help: `blocked pairs become ${MINUS_INFINITY}`, perHead: true });
    box.covers.push({ view: 'heads', name: 'stage', values: ['masked'] });
    boxes.push(box);
  }
  boxes.push(
    stageBox('weights', 'softmax', weights, '', {
      help: 'each row of weights sums to 1',
      out: shapeOf(weights),
      perHead: true,
    }),
  );
  const context = inBlock('context');
  if (context)
    boxes.push(
      stageBox('context', '· V', context, `${blockName}.context`, {
        help: 'each query’s weighted sum of the values',
        out: shapeOf(context),
        perHead: true,
      }),
    );
  const output = inBlock('activated') ?? inBlock('output');
  if (output) {
    const box = stageBox('output', 'merge · W_o', output, `${blockName}.output`, {
      help: 'the heads side by side again, mixed by W_o',
      out: shapeOf(output),
    });
    box.covers = [
      { view: 'values', name: 'tensor', values: ['merged', 'output', 'activated'].map((n) => `${blockName}.${n}`) },
    ];
    boxes.push(box);
  }
  /** + x and a post-LN norm after sub-layer k. */
  const addAndNorm = (k: number) => {
    const residual = inLayer(`residual${k}`);
    if (residual)
      boxes.push(
        stageBox(`residual${k}`, '+ x', residual, `residual${k}`, {
          help: 'the residual: the sub-layer’s input added back, unchanged',
          out: shapeOf(residual),
        }),
      );
    const norm = inLayer(`norm${k}`);
    if (norm && !boxes.some((b) => b.id === `norm${k}`))
      boxes.push(stageBox(`norm${k}`, 'norm', norm, `norm${k}`, { help: 'LayerNorm after the add (post-LN)' }));
  };
  addAndNorm(attention);
  if (block === 'decoder.self_attn' && trace.mode === 'cross') otherBlock('decoder.cross_attn', 2);
  const hidden = inLayer('ffn.hidden');
  const ffnOut = inLayer('ffn.output');
  if (hidden && ffnOut) {
    const preFfn = normBefore(ffn, hidden);
    if (preFfn)
      boxes.push(stageBox(`norm${ffn}`, 'norm', preFfn, `norm${ffn}`, { help: 'LayerNorm before the FFN (pre-LN)' }));
    const box = stageBox('ffn', 'FFN', hidden, 'ffn.hidden', {
      help: `two linear layers with ${trace.config.activation ?? 'an activation'} between, the same for every token: E → F → E`,
      out: shapeOf(ffnOut),
    });
    box.covers = [{ view: 'values', name: 'tensor', values: ['ffn.hidden', 'ffn.activated', 'ffn.output'] }];
    boxes.push(box);
    addAndNorm(ffn);
  }
  const anyNorm = inLayer(`norm${attention}`);
  const source = block === 'decoder.cross_attn' ? sourceBox(trace, layer) : null;
  const sizes = shapeSizes(trace, block, layer);
  return {
    block,
    layer,
    group: {
      id: 'per-head',
      label: weights.shape[1] === 1 ? 'the one head' : `each of ${weights.shape[1]} heads`,
      help: 'one head’s attention, step by step',
      settings: viewSettings('steps'),
      view: 'steps',
      covers: [{ view: 'steps' }],
      out: null,
      perHead: false,
    },
    boxes,
    sizes,
    norm: !anyNorm ? '' : preNorm ? 'pre' : 'post',
    source,
  };
}

/**
 * The source box of a cross-attention layer, read from the trace: the encoder's last output (what every decoder
 * layer's W_k and W_v read), its shape named as the keys' axes (B, Sk, E) as recorded at this layer's k_proj.
 */
function sourceBox(trace: Trace, layer: number): DiagramBox | null {
  const outputs = trace.stages.filter((s) => s.name === 'encoder.output');
  const memory = outputs.reduce<Stage | undefined>((a, s) => (!a || s.layer > a.layer ? s : a), undefined);
  const keys = findStage(trace, 'decoder.cross_attn.k_proj', layer);
  if (!memory || !keys) return null;
  const open = stepSettings(memory.name, trace.mode); // the encoder's output in the Values view, at its last layer
  return {
    id: 'source',
    label: 'source',
    help: 'the source sentences after the encoder: W_k and W_v read them (the keys and values), W_q reads x (the queries)',
    settings: [...open.slice(0, -1), { name: 'layer', raw: String(memory.layer) }, open[open.length - 1]],
    view: open[open.length - 1].raw,
    covers: [],
    out: { axes: [...keys.axes], shape: [...memory.shape] },
    perHead: false,
  };
}

/** The letters the shapes use and their sizes in this trace, in the order they first appear. */
function shapeSizes(trace: Trace, block: Block, layer: number): { name: string; value: number }[] {
  const seen = new Map<string, number>();
  const stack = block.split('.')[0] as Stack;
  const stages = [
    layerInput(trace, stack, layer),
    findStage(trace, `${block}.q_heads`, layer),
    findStage(trace, `${block}.weights`, layer),
    findStage(trace, `${stack}.ffn.hidden`, layer),
  ];
  for (const stage of stages)
    stage?.axes.forEach((axis, i) => {
      if (!seen.has(axis)) seen.set(axis, stage.shape[i]);
    });
  return [...seen].map(([name, value]) => ({ name, value }));
}

/** Whether the box is the step on screen under `state` (its view, and its stage or tensor where that matters). */
export function boxCovers(box: DiagramBox, state: { view: string; stage: string; tensor: string }): boolean {
  return box.covers.some((c) => c.view === state.view && (!c.name || (c.values ?? []).includes(state[c.name])));
}
