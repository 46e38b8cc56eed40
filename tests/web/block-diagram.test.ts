// The block diagram's model on real traces from the engine (Node, SIMD build): the boxes in the
// order data flows, what each opens, the shapes on its arrows, and how it follows the settings
// (mask, scaling, residuals, norm order, cross-attention).
import { describe, expect, it } from 'vitest';
import { loadAttention } from '../../dist/node.js';
import { blockDiagram, boxCovers } from '../../web/src/model/block-diagram.js';
import { findStage } from '../../web/src/model/trace-model.js';

const engine = await loadAttention();
const config = { dModel: 16, heads: 4, layers: 2 };
const run = (texts: string[], extra: Record<string, unknown> = {}, mode: 'encoder' | 'decoder' = 'encoder') =>
  engine.run({ texts, mode, config: { ...config, ...extra } });
const ids = (texts: string[], extra: Record<string, unknown> = {}, mode: 'encoder' | 'decoder' = 'encoder') =>
  blockDiagram(run(texts, extra, mode), `${mode}.self_attn`, 0)!.boxes.map((b) => b.id);

describe('the block diagram', () => {
  it('draws a post-LN encoder layer in the order data flows, with the padding mask of a ragged batch', () => {
    expect(ids(['the cat sat', 'a dog'])).toEqual([
      'x',
      'qkv',
      'split',
      'scores',
      'scaled',
      'mask',
      'weights',
      'context',
      'output',
      'residual1',
      'norm1',
      'ffn',
      'residual2',
      'norm2',
    ]);
  });

  it('carries the recorded shapes on its arrows and names every size', () => {
    const trace = run(['the cat sat', 'a dog']);
    const diagram = blockDiagram(trace, 'encoder.self_attn', 1)!;
    const out = (id: string) => diagram.boxes.find((b) => b.id === id)!.out;
    expect(out('x')).toEqual({ axes: ['B', 'S', 'E'], shape: [2, 3, 16] });
    expect(out('x')!.shape).toEqual(findStage(trace, 'encoder.output', 0)!.shape); // layer 1 reads layer 0's output
    expect(out('split')).toEqual({ axes: ['B', 'H', 'Sq', 'd_k'], shape: [2, 4, 3, 4] });
    expect(out('weights')).toEqual({ axes: ['B', 'H', 'Sq', 'Sk'], shape: [2, 4, 3, 3] });
    expect(out('ffn')).toEqual({ axes: ['B', 'S', 'E'], shape: [2, 3, 16] });
    expect(Object.fromEntries(diagram.sizes.map((s) => [s.name, s.value]))).toEqual({
      B: 2,
      S: 3,
      E: 16,
      H: 4,
      Sq: 3,
      d_k: 4,
      Sk: 3,
      F: 64,
    });
    expect(diagram.norm).toBe('post');
  });

  it('opens each step where a view shows it, and knows which step is on screen', () => {
    const diagram = blockDiagram(run(['the cat sat', 'a dog']), 'encoder.self_attn', 0)!;
    const box = (id: string) => diagram.boxes.find((b) => b.id === id)!;
    expect(box('qkv').settings).toEqual([{ name: 'view', raw: 'rows' }]);
    expect(box('scaled').settings).toEqual([
      { name: 'stage', raw: 'scaled' },
      { name: 'view', raw: 'heads' },
    ]);
    expect(box('mask').settings).toEqual([{ name: 'view', raw: 'masks' }]);
    expect(box('ffn').settings).toEqual([
      { name: 'tensor', raw: 'ffn.hidden' },
      { name: 'view', raw: 'values' },
    ]);
    expect(diagram.group.settings).toEqual([{ name: 'view', raw: 'steps' }]);
    const state = { view: 'heads', stage: 'masked', tensor: 'self_attn.q_heads' };
    expect(diagram.boxes.filter((b) => boxCovers(b, state)).map((b) => b.id)).toEqual(['mask']);
    const values = { view: 'values', stage: 'weights', tensor: 'ffn.output' };
    expect(diagram.boxes.filter((b) => boxCovers(b, values)).map((b) => b.id)).toEqual(['ffn']);
  });

  it('follows the settings: no mask without one, no ÷√d_k unscaled, no + x without residuals, pre-LN norms first', () => {
    expect(ids(['the cat sat'])).not.toContain('mask');
    expect(ids(['the cat sat'], {}, 'decoder')).toContain('mask');
    expect(ids(['the cat sat'], { scale: false })).not.toContain('scaled');
    expect(ids(['the cat sat'], { residual: false }).filter((id) => id.startsWith('residual'))).toEqual([]);
    const pre = ids(['the cat sat'], { norm: 'pre' });
    expect(pre.indexOf('norm1')).toBeLessThan(pre.indexOf('qkv'));
    expect(pre.indexOf('norm2')).toBeLessThan(pre.indexOf('ffn'));
    expect(blockDiagram(run(['the cat sat'], { norm: 'pre' }), 'encoder.self_attn', 0)!.norm).toBe('pre');
  });

  it('draws cross-attention: the block chosen with each step, keys from the source, padding its only mask', () => {
    const trace = engine.run({
      texts: ['the cat sat', 'a dog'],
      source: ['le chat', 'un chien a aboyé'],
      mode: 'cross',
      config,
    });
    const diagram = blockDiagram(trace, 'decoder.cross_attn', 0)!;
    expect(diagram.boxes.find((b) => b.id === 'split')!.settings).toEqual([
      { name: 'block', raw: 'decoder.cross_attn' },
      { name: 'view', raw: 'split' },
    ]);
    expect(diagram.boxes.find((b) => b.id === 'weights')!.out!.shape).toEqual([2, 4, 3, 4]);
    expect(diagram.boxes.map((b) => b.id)).toContain('residual2'); // the decoder's second sub-layer
    expect(diagram.boxes.map((b) => b.id)).toContain('ffn');
    expect(diagram.boxes.map((b) => b.id)).toContain('residual3');
    // The decoder's self-attention sub-layer before it, as one box that draws that block instead.
    const order = diagram.boxes.map((b) => b.id);
    expect(order.indexOf('self-attention')).toBeLessThan(order.indexOf('qkv'));
    expect(diagram.boxes.find((b) => b.id === 'self-attention')!.settings[0]).toEqual({
      name: 'block',
      raw: 'decoder.self_attn',
    });
    const self = blockDiagram(trace, 'decoder.self_attn', 0)!.boxes.map((b) => b.id);
    expect(self.indexOf('norm1')).toBeLessThan(self.indexOf('cross-attention'));
    expect(self.indexOf('cross-attention')).toBeLessThan(self.indexOf('ffn'));
    // K and V from the source: the encoder's last output (B, Sk, E), read from the trace; none in self-attention.
    const memory = findStage(trace, 'encoder.output', config.layers - 1)!;
    expect(memory.shape).toEqual([2, 4, 16]);
    expect(diagram.source!.out).toEqual({ axes: ['B', 'Sk', 'E'], shape: [2, 4, 16] });
    expect(diagram.source!.settings).toEqual([
      { name: 'block', raw: 'encoder.self_attn' },
      { name: 'tensor', raw: 'output' },
      { name: 'layer', raw: '1' },
      { name: 'view', raw: 'values' },
    ]);
    expect(blockDiagram(trace, 'decoder.self_attn', 0)!.source).toBeNull();
    expect(blockDiagram(run(['the cat sat']), 'encoder.self_attn', 0)!.source).toBeNull();
  });
});
