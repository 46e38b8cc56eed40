// The colour scales of the heatmaps, and the 'row' colour scale: each row fitted to its own values.
import { describe, expect, test } from 'vitest';
import { interpolateViridis } from 'd3-scale-chromatic';
import {
  BLOCKED_FILL,
  opaqueRgb,
  rowScaleEnds,
  rowScales,
  rowTop,
  scoreScale,
  textColorOn,
  weightScale,
} from '../../web/src/ui/colors.js';

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

describe('opaqueRgb: a colour as the pixel a raster heatmap writes', () => {
  test("d3's two forms and the fills, as 0xRRGGBB", () => {
    expect(opaqueRgb('rgb(1, 2, 3)')).toBe(0x010203);
    expect(opaqueRgb('rgb(255,128,0)')).toBe(0xff8000);
    expect(opaqueRgb('#440154')).toBe(0x440154);
    expect(opaqueRgb(BLOCKED_FILL)).toBe(0xd9d9d9);
    // the same string again (from the kept colours)
    expect(opaqueRgb('rgb(1, 2, 3)')).toBe(0x010203);
  });

  test("every colour of both scales parses, to the channels d3's string names", () => {
    const scores = scoreScale([-3, 3]);
    for (const color of [
      ...Array.from({ length: 101 }, (_, k) => weightScale().color(k / 100)),
      ...Array.from({ length: 101 }, (_, k) => scores.color(-3 + (6 * k) / 100)),
    ]) {
      const rgb = opaqueRgb(color);
      expect(rgb, color).not.toBeNull();
      const channels = color.startsWith('#')
        ? [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16))
        : color.slice(4, -1).split(',').map(Number);
      expect([rgb! >>> 16, (rgb! >>> 8) & 255, rgb! & 255]).toEqual(channels);
    }
  });

  test('what a canvas fillStyle ignores gives null', () => {
    expect(opaqueRgb(undefined)).toBeNull();
    expect(opaqueRgb(weightScale().color(Number.NaN))).toBeNull();
    expect(opaqueRgb('red')).toBeNull();
    expect(opaqueRgb('rgba(1, 2, 3, 0.5)')).toBeNull();
    expect(opaqueRgb('#abc')).toBeNull();
  });
});

describe('textColorOn: black or white text, from the channels opaqueRgb reads', () => {
  test('each channel weighs as WCAG says (a swap of two channels flips one of these)', () => {
    // Luminance 0.2126 (red), 0.7152 (green), 0.0722 (blue): black wins above about 0.179.
    expect(textColorOn('rgb(255, 0, 0)')).toBe('#000');
    expect(textColorOn('rgb(0, 0, 255)')).toBe('#fff');
    expect(textColorOn('#ff0000')).toBe('#000');
    expect(textColorOn('#0000ff')).toBe('#fff');
    // 160 is 0.35 in linear light: on green 0.25 (black), on red 0.075 (white).
    expect(textColorOn('rgb(0, 160, 0)')).toBe('#000');
    expect(textColorOn('rgb(160, 0, 0)')).toBe('#fff');
    // Viridis's mid teal (luminance 0.22) takes black, its dark end white, its yellow end black.
    expect(textColorOn(weightScale().color(0.5))).toBe('#000');
    expect(textColorOn(weightScale().color(0))).toBe('#fff');
    expect(textColorOn(weightScale().color(1))).toBe('#000');
  });

  test('the same colour in either form gets the same text, for every colour of both scales', () => {
    const scores = scoreScale([-3, 3]);
    const shown = new Set<string>();
    for (const color of [
      ...Array.from({ length: 256 }, (_, k) => weightScale().color(k / 255)),
      ...Array.from({ length: 101 }, (_, k) => scores.color(-3 + (6 * k) / 100)),
    ]) {
      const rgb = opaqueRgb(color)!;
      const hex = `#${rgb.toString(16).padStart(6, '0')}`;
      const call = `rgb(${rgb >>> 16}, ${(rgb >>> 8) & 255}, ${rgb & 255})`;
      expect(textColorOn(hex), color).toBe(textColorOn(call));
      shown.add(textColorOn(color));
    }
    expect([...shown].sort()).toEqual(['#000', '#fff']);
  });

  test("a colour that does not parse keeps black, today's fallback", () => {
    expect(textColorOn(weightScale().color(Number.NaN))).toBe('#000');
    expect(textColorOn('red')).toBe('#000');
    expect(textColorOn('#abc')).toBe('#000');
  });
});
