// The line view's overlay: which heads the 'overlay' setting names, and their colours.
import { describe, expect, it } from 'vitest';
import { parseSetting, settingByName, stateFromHash } from '../../web/src/settings/settings.js';
import { headColor, overlayHeads } from '../../web/src/playground/views.js';

describe('line view overlay', () => {
  it('keeps the heads the trace has, in order, once each', () => {
    expect(overlayHeads('', 12)).toEqual([]);
    expect(overlayHeads('5,0,3,5', 12)).toEqual([0, 3, 5]);
    expect(overlayHeads('0,11,12,40', 12)).toEqual([0, 11]);
  });

  it('parses a comma list of heads and explains anything else', () => {
    const setting = settingByName('overlay')!;
    expect(parseSetting(setting, '')).toEqual({ value: '' });
    expect(parseSetting(setting, '0,3,5')).toEqual({ value: '0,3,5' });
    expect(parseSetting(setting, '0;3')).toEqual({ error: 'Overlay heads: a comma list of head numbers, e.g. 0,3,5' });
    expect(stateFromHash('#view=lines&overlay=1%2C2').state.overlay).toBe('1,2');
  });

  it('gives twelve heads twelve different colours, and more heads colours too', () => {
    expect(new Set(Array.from({ length: 12 }, (_, h) => headColor(h))).size).toBe(12);
    expect(new Set(Array.from({ length: 25 }, (_, h) => headColor(h))).size).toBe(25);
  });
});
