import { describe, expect, it } from 'vitest';
import { placeTip } from '../../web/src/ui/tip-placement.js';

const area = { left: 0, top: 0, width: 400, height: 300 };
const tip = { width: 150, height: 80 };
const inside = (p: { left: number; top: number }) =>
  p.left >= area.left &&
  p.top >= area.top &&
  p.left + tip.width <= area.left + area.width &&
  p.top + tip.height <= area.top + area.height;

describe('placeTip', () => {
  it('puts the tip right of a cell with room, level with it', () => {
    expect(placeTip({ left: 100, top: 50, width: 20, height: 20 }, tip, area)).toEqual({ left: 124, top: 50 });
  });

  it('flips to the left of a cell near the right edge', () => {
    expect(placeTip({ left: 360, top: 50, width: 20, height: 20 }, tip, area)).toEqual({ left: 206, top: 50 });
  });

  it('lifts the tip of a cell in the last row so it is not cut off below', () => {
    const p = placeTip({ left: 100, top: 280, width: 20, height: 20 }, tip, area);
    expect(p).toEqual({ left: 124, top: 220 });
    expect(inside(p)).toBe(true);
  });

  it('goes below or above the cell when neither side has room, still inside', () => {
    const narrow = { left: 0, top: 0, width: 200, height: 300 };
    expect(placeTip({ left: 90, top: 20, width: 20, height: 20 }, tip, narrow)).toEqual({ left: 50, top: 44 });
    expect(placeTip({ left: 90, top: 260, width: 20, height: 20 }, tip, narrow)).toEqual({ left: 50, top: 176 });
  });

  it('stays inside a scrolled area', () => {
    const scrolled = { left: 300, top: 500, width: 400, height: 300 };
    const p = placeTip({ left: 310, top: 780, width: 20, height: 20 }, tip, scrolled);
    expect(p.left).toBe(334);
    expect(p.top + tip.height).toBeLessThanOrEqual(800);
  });
});
