// The colour scales of the heatmaps, and the 'row' colour scale: each row fitted to its own values.
import { describe, expect, test } from 'vitest';
import { interpolateViridis } from 'd3-scale-chromatic';
import { rowScaleEnds, rowScales, rowTop, scoreScale, weightScale } from '../../web/src/ui/colors.js';

describe('rowScales', () => {
  // (3, 3): a near-uniform row, a sharp row, an all-zero row (every key blocked).
  const weights = new Float32Array([0.3, 0.33, 0.37, 0.9, 0.05, 0.05, 0, 0, 0]);

  test('weights: each row runs from 0 to its own largest weight', () => {
    const scales = rowScales('sequential', weights, 3, 3);
    expect(scales.map((s) => s.domain)).toEqual([
      [0, Math.fround(0.37)],
      [0, Math.fround(0.9)],
      [0, 1],
    ]);
    expect(scales[0].color(weights[2])).toBe(interpolateViridis(1));
    expect(scales[0].color(weights[0])).toBe(interpolateViridis(weights[0] / weights[2]));
    // On the shared 0..1 scale the near-uniform row spans only 0.30..0.37 of the palette.
    expect(weightScale().color(weights[2])).toBe(interpolateViridis(weights[2]));
    expect(scales[2].color(0)).toBe(interpolateViridis(0));
  });

  test('scores: each row symmetric around 0 up to its largest finite |score|; −∞ (blocked) is left out', () => {
    const scores = new Float32Array([1, -4, 2, 0.5, -Infinity, -0.25]);
    const scales = rowScales('diverging', scores, 2, 3);
    expect(scales.map((s) => s.domain)).toEqual([
      [-4, 4],
      [-0.5, 0.5],
    ]);
    expect(scales[1].color(0.5)).toBe(scoreScale(new Float32Array([0.5, -0.5])).color(0.5));
    expect(scales[1].color(0.5)).toBe(scales[0].color(4));
  });

  test('rowTop and the legend ends', () => {
    expect(rowTop(weights, 1, 3)).toBe(Math.fround(0.9));
    expect(rowTop(weights, 2, 3)).toBe(1);
    expect(rowScaleEnds('sequential')).toEqual(['0', 'the row\u2019s largest weight']);
    expect(rowScaleEnds('diverging')[1]).toMatch(/largest \|score\|/);
  });
});
