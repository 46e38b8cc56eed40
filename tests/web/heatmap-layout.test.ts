import { describe, expect, it } from 'vitest';
import {
  CELL,
  GRID_CELL,
  MAX_CELL,
  MIN_BARE_CELL,
  MIN_CELL,
  estimateWidth,
  fitColumns,
  fittedLayout,
  gridWidth,
  heatmapLayout,
  shownLabel,
  type HeatmapShape,
} from '../../web/src/ui/heatmap-layout.js';

const tokens = (n: number, word = 'w') => Array.from({ length: n }, (_, i) => ({ label: `${word}${i}`, pad: false }));
const shape = (n: number, word = 'w'): HeatmapShape => ({
  rows: n,
  cols: n,
  rowLabels: tokens(n, word),
  colLabels: tokens(n, word),
  rowAxis: 'query',
  colAxis: 'key',
});

describe('heatmap layout', () => {
  it('draws a picture at CELL px cells, with room for the labels left of and above the cells', () => {
    const at = heatmapLayout(shape(6), CELL, estimateWidth);
    expect(at.cell).toBe(CELL);
    expect(at.left).toBeGreaterThan(estimateWidth('w5', 12));
    expect(at.width).toBeGreaterThanOrEqual(at.left + 6 * CELL);
    expect(at.height).toBe(at.top + 6 * CELL + 4);
  });

  it('makes room for longer labels: a wider label column and a taller header', () => {
    const short = heatmapLayout(shape(6), CELL, estimateWidth);
    const long = heatmapLayout(shape(6, 'attention'), CELL, estimateWidth);
    expect(long.left).toBeGreaterThan(short.left);
    expect(long.top).toBeGreaterThan(short.top);
  });

  it('picks the largest cell whose drawing fits the box, never above MAX_CELL or below MIN_CELL (with numbers)', () => {
    const s = { ...shape(17), showNumbers: true };
    const roomy = fittedLayout(s, 2000, Infinity, estimateWidth);
    expect(roomy.cell).toBe(MAX_CELL);
    for (const available of [300, 400, 526, 700]) {
      const at = fittedLayout(s, available, Infinity, estimateWidth);
      if (at.cell > MIN_CELL) {
        expect(at.width).toBeLessThanOrEqual(available);
        expect(heatmapLayout(s, at.cell + 1, estimateWidth).width > available || at.cell === MAX_CELL).toBe(true);
      }
    }
    const cramped = fittedLayout(s, 200, Infinity, estimateWidth);
    expect(cramped.cell).toBe(MIN_CELL);
    expect(cramped.width).toBeGreaterThan(200); // the box scrolls
  });

  it('draws a drawing without numbers down to MIN_BARE_CELL, labelling every n-th key where labels would collide', () => {
    const features = {
      rows: 6,
      cols: 64,
      rowLabels: tokens(6),
      colLabels: Array.from({ length: 64 }, (_, j) => ({ label: String(j), pad: false })),
      rowAxis: 'token',
      colAxis: 'feature',
    };
    // The Values view's box at 1400 px: 64 features at MIN_CELL need 1194 px; smaller cells fit.
    const at = fittedLayout(features, 1016, Infinity, estimateWidth);
    expect(at.width).toBeLessThanOrEqual(1016);
    expect(at.cell).toBeGreaterThanOrEqual(MIN_BARE_CELL);
    expect(at.cell).toBeLessThan(MIN_CELL);
    expect(at.keyStride).toBe(2);
    expect(heatmapLayout(features, MIN_CELL, estimateWidth).keyStride).toBe(1);
    // Labelled keys stay at least MIN_CELL apart.
    for (const cell of [MIN_BARE_CELL, 15, 16, 17])
      expect(cell * heatmapLayout(features, cell).keyStride).toBeGreaterThanOrEqual(MIN_CELL);
    expect(at.column).toBe(at.cell);
  });

  it('narrows the columns of a drawing without numbers below its rows (256 FFN features), labelling in round steps', () => {
    const hidden = {
      rows: 6,
      cols: 256,
      rowLabels: tokens(6),
      colLabels: Array.from({ length: 256 }, (_, j) => ({ label: String(j), pad: false })),
      rowAxis: 'token',
      colAxis: 'feature',
    };
    const at = fittedLayout(hidden, 1016, Infinity, estimateWidth);
    expect(at.width).toBeLessThanOrEqual(1016);
    expect(at.cell).toBe(MIN_BARE_CELL); // the rows keep their labels' height
    expect(at.column).toBeLessThan(MIN_BARE_CELL);
    expect([4, 5, 8, 10]).toContain(at.keyStride);
    expect(at.column * at.keyStride).toBeGreaterThanOrEqual(MIN_CELL);
    // With numbers, never narrower than MIN_CELL: the box scrolls.
    const numbered = fittedLayout({ ...hidden, showNumbers: true }, 1016, Infinity, estimateWidth);
    expect([numbered.cell, numbered.column]).toEqual([MIN_CELL, MIN_CELL]);
    // Too wide even at MIN_COLUMN, or too tall anyway: MIN_CELL's cells, every key labelled, and the box scrolls.
    const cramped = fittedLayout(hidden, 300, Infinity, estimateWidth);
    expect([cramped.cell, cramped.column, cramped.keyStride]).toEqual([MIN_CELL, MIN_CELL, 1]);
    expect(cramped.width).toBeGreaterThan(300);
    expect(heatmapLayout(hidden, MIN_BARE_CELL, estimateWidth).width).toBeGreaterThan(1016);
    const tall = fittedLayout({ ...hidden, rows: 60 }, 1016, 400, estimateWidth);
    expect([tall.cell, tall.column]).toEqual([MIN_CELL, MIN_CELL]);
  });

  it('fits the height too, so that a long text is not cut at the bottom of its box', () => {
    const s = shape(24);
    const at = fittedLayout(s, 2000, 700, estimateWidth);
    expect(at.height).toBeLessThanOrEqual(700);
    expect(heatmapLayout(s, at.cell + 1, estimateWidth).height).toBeGreaterThan(700);
  });

  it('draws numbers in the cells only where they fit', () => {
    const s = { ...shape(4), showNumbers: true };
    expect(heatmapLayout(s, CELL, estimateWidth).numbers).toBe(true);
    expect(heatmapLayout(s, MIN_CELL, estimateWidth).numbers).toBe(false);
  });

  it('gives a grid column the width of GRID_CELL px cells, as a CSS grid template', () => {
    expect(gridWidth(shape(10), estimateWidth)).toBe(heatmapLayout(shape(10), GRID_CELL, estimateWidth).width);
    expect(fitColumns(300.2)).toBe('repeat(auto-fit, minmax(min(100%, 301px), 1fr))');
    expect(fitColumns(300, 4)).toBe('repeat(auto-fit, minmax(min(100%, max(300px, 34%)), 1fr))');
  });

  it('writes labels escaped and cut to 11 characters', () => {
    expect(shownLabel('\u000b')).toBe('\\v');
    expect(shownLabel('internationalisation')).toBe('internatio…');
    expect(Array.from(shownLabel('internationalisation')).length).toBe(11);
  });
});
