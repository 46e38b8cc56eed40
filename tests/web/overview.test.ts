// <ap-overview>'s thumbnails: one pixel per weight, coloured from a 256-step viridis table read by
// colors.ts's opaqueRgb (no canvas), blocked cells in BLOCKED_FILL.
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { BLOCKED_FILL, weightScale } from '../../web/src/ui/colors.js';
import { thumbnailImage, type Thumbnail } from '../../web/src/ui/overview.js';

beforeAll(() => {
  // Node has no ImageData; thumbnailImage only needs its size and pixels.
  vi.stubGlobal(
    'ImageData',
    class {
      data: Uint8ClampedArray;
      constructor(
        readonly width: number,
        readonly height: number,
      ) {
        this.data = new Uint8ClampedArray(width * height * 4);
      }
    },
  );
});

/** '#rrggbb' as its channels with alpha 255, read here by hand rather than by opaqueRgb. */
function hexPixel(hex: string): number[] {
  expect(hex, 'viridis gives #rrggbb').toMatch(/^#[0-9a-f]{6}$/);
  return [...[1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16)), 255];
}

const pixel = (image: ImageData, k: number) => Array.from(image.data.subarray(4 * k, 4 * k + 4));

function thumbnail(rows: number, cols: number, values: number[], blocked: number[] = []): Thumbnail {
  const b = new Uint8Array(rows * cols);
  for (const k of blocked) b[k] = 1;
  return { layer: 0, head: 0, rows, cols, values: new Float32Array(values), blocked: b };
}

describe('thumbnailImage', () => {
  test("each of the 256 steps has the channels of the weight scale's '#rrggbb' at k / 255", () => {
    const scale = weightScale();
    const steps = Array.from({ length: 256 }, (_, k) => k / 255);
    const image = thumbnailImage(thumbnail(1, 256, steps), false);
    expect([image.width, image.height]).toEqual([256, 1]);
    for (let k = 0; k < 256; k++) expect(pixel(image, k), `k = ${k}`).toEqual(hexPixel(scale.color(k / 255)));
    // the ends and the middle, spelled out: viridis's purple, teal and yellow
    expect(pixel(image, 0)).toEqual([0x44, 0x01, 0x54, 255]);
    expect(pixel(image, 128)).toEqual([0x21, 0x91, 0x8c, 255]);
    expect(pixel(image, 255)).toEqual([0xfd, 0xe7, 0x25, 255]);
  });

  test('blocked cells in BLOCKED_FILL; weights out of 0..1 or not finite clamp to the ends', () => {
    const scale = weightScale();
    const image = thumbnailImage(thumbnail(2, 3, [0.5, 0.5, -1, 2, Number.NaN, 0.25], [1, 5]), false);
    expect(pixel(image, 0)).toEqual(hexPixel(scale.color(128 / 255)));
    expect(pixel(image, 1)).toEqual(hexPixel(BLOCKED_FILL));
    expect(pixel(image, 1)).toEqual([0xd9, 0xd9, 0xd9, 255]);
    expect(pixel(image, 2)).toEqual(hexPixel(scale.color(0)));
    expect(pixel(image, 3)).toEqual(hexPixel(scale.color(1)));
    expect(pixel(image, 4)).toEqual(hexPixel(scale.color(0)));
    expect(pixel(image, 5)).toEqual(hexPixel(BLOCKED_FILL));
  });

  test("perRow: each row's largest weight takes the top colour", () => {
    const scale = weightScale();
    const values = [0.1, 0.2, 0.4, 0.9, 0.05, 0.05];
    const fixed = thumbnailImage(thumbnail(2, 3, values), false);
    const perRow = thumbnailImage(thumbnail(2, 3, values), true);
    expect(pixel(perRow, 2)).toEqual(hexPixel(scale.color(1)));
    expect(pixel(perRow, 1)).toEqual(
      hexPixel(scale.color(Math.round((Math.fround(0.2) / Math.fround(0.4)) * 255) / 255)),
    );
    expect(pixel(fixed, 2)).toEqual(hexPixel(scale.color(Math.round(Math.fround(0.4) * 255) / 255)));
    expect(pixel(perRow, 3)).toEqual(hexPixel(scale.color(1)));
    expect(pixel(fixed, 3)).not.toEqual(pixel(perRow, 3));
  });
});
