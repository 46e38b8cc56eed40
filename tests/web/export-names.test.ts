// Exported pictures: which views have them, their file names and headings, how a long
// input wraps in the title, and how far a PNG is enlarged.
import { describe, expect, it } from 'vitest';
import {
  type PictureSubject,
  isPictureView,
  pictureFileName,
  pictureHeading,
  wrapText,
} from '../../web/src/model/export-names.js';
import { pngScale } from '../../web/src/ui/export.js';

const base: PictureSubject = {
  view: 'heads',
  block: 'encoder.self_attn',
  layer: 0,
  layers: 2,
  head: 0,
  overlay: [],
  heads: 4,
  stage: 'weights',
  sequence: 0,
  sequences: 1,
};

describe('picture views', () => {
  it('are the views drawn as pictures, not the shape list or the table of changes', () => {
    expect(['heads', 'head', 'lines', 'masks', 'overview'].every(isPictureView)).toBe(true);
    expect(isPictureView('shapes')).toBe(false);
    expect(isPictureView('changes')).toBe(false);
  });
});

describe('picture file names', () => {
  it('say the block, layer, head(s) and stage', () => {
    expect(pictureFileName(base, 'svg')).toBe('attention-encoder-self_attn-layer0-all-heads-weights.svg');
    expect(pictureFileName({ ...base, view: 'head', head: 3, layer: 1, stage: 'scaled' }, 'png')).toBe(
      'attention-encoder-self_attn-layer1-head3-scaled.png',
    );
  });

  it('name the line view by its heads, overlaid or not', () => {
    expect(pictureFileName({ ...base, view: 'lines' }, 'svg')).toBe('lines-encoder-self_attn-layer0-all-heads.svg');
    expect(pictureFileName({ ...base, view: 'lines', overlay: [0, 2] }, 'svg')).toBe(
      'lines-encoder-self_attn-layer0-heads0-2-overlaid.svg',
    );
    expect(pictureFileName({ ...base, view: 'lines', overlay: [0, 1, 2, 3] }, 'svg')).toBe(
      'lines-encoder-self_attn-layer0-all-heads-overlaid.svg',
    );
  });

  it('name masks as masks, and add the sentence when the batch has several', () => {
    expect(pictureFileName({ ...base, view: 'masks', block: 'decoder.cross_attn', layer: 2 }, 'svg')).toBe(
      'masks-decoder-cross_attn-layer2.svg',
    );
    expect(pictureFileName({ ...base, view: 'masks', sequence: 1, sequences: 3 }, 'png')).toBe(
      'masks-encoder-self_attn-layer0-sentence2.png',
    );
    expect(pictureFileName({ ...base, view: 'overview' }, 'svg')).toBe(
      'overview-encoder-self_attn-all-layers-all-heads-weights.svg',
    );
  });
});

describe('picture headings', () => {
  it('name the stage, block, layer and heads in words', () => {
    expect(pictureHeading(base)).toBe('Softmax weights · encoder self-attention · layer 0 · all 4 heads');
    expect(pictureHeading({ ...base, view: 'head', head: 2, stage: 'scores', sequence: 1, sequences: 2 })).toBe(
      'Scores Q·Kᵀ · encoder self-attention · layer 0 · head 2 · sentence 2 of 2',
    );
    expect(pictureHeading({ ...base, view: 'lines', overlay: [1] })).toMatch(/· head 1 overlaid$/);
    expect(pictureHeading({ ...base, view: 'masks', block: 'decoder.self_attn' })).toBe(
      'Attention masks · decoder self-attention · layer 0 · the same for all 4 heads',
    );
    expect(pictureHeading({ ...base, view: 'overview', layers: 12, heads: 12 })).toBe(
      'Softmax weights · encoder self-attention · all 12 layers × 12 heads',
    );
  });
});

describe('wrapText', () => {
  it('breaks at spaces within the width', () => {
    expect(wrapText('the cat sat on the mat', 10)).toEqual(['the cat', 'sat on the', 'mat']);
    expect(wrapText('short', 10)).toEqual(['short']);
    expect(wrapText('', 10)).toEqual([]);
  });

  it('cuts a word longer than a line, by code points', () => {
    expect(wrapText('abcdefghij klm', 4)).toEqual(['abcd', 'efgh', 'ij', 'klm']);
    expect(wrapText('😀😀😀😀😀', 2)).toEqual(['😀😀', '😀😀', '😀']);
  });

  it('ends the last kept line in an ellipsis past maxLines', () => {
    expect(wrapText('a b c d e f', 3, 2)).toEqual(['a b', 'c…']);
  });
});

describe('pngScale', () => {
  it('is 2 for ordinary pictures and shrinks for huge ones, staying inside a canvas', () => {
    expect(pngScale(800, 600)).toBe(2);
    const scale = pngScale(12_000, 9_000);
    expect(scale).toBeLessThan(2);
    expect(12_000 * scale).toBeLessThanOrEqual(16_000);
    expect(12_000 * 9_000 * scale * scale).toBeLessThanOrEqual(120_000_001);
  });
});
