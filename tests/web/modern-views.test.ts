// The playground's pieces for modern checkpoints (Llama, Qwen, Gemma, SmolLM2), as pure
// functions: their tokenizers' pieces shown readably (▁ and Ġ as '·', byte fallback),
// chat turns read from the text box, which layers of a Gemma-3-like model are local or
// global (from the masks an engine model recorded), which query heads share each K/V
// head, the longest text a view draws, and the facts the model's summary names.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAttention, type AttentionEngine, type Trace } from '../../dist/node.js';
import { pieceText, tokenLabel } from '../../web/src/model/token-label.js';
import { CHAT_EXAMPLE, parseTurns } from '../../web/src/model/chat-turns.js';
import { layerKinds, layerRuns } from '../../web/src/model/window-model.js';
import { kvGroups } from '../../web/src/model/split-model.js';
import { ropeBase, ropeFrequencies } from '../../web/src/model/positions-model.js';
import { MAX_VIEW_CELLS, MAX_VIEW_PIXELS, drawsAsImage, longestDrawn } from '../../web/src/ui/heatmap-layout.js';
import { headsFact, ordinal, positionsFact, windowFact } from '../../web/src/model/pretrained-facts.js';

describe('pieces of modern tokenizers', () => {
  it('shows a metaspace piece (SentencePiece: Gemma 3, Llama 2) with its leading space as ·', () => {
    expect(pieceText('\u2581cat', 'cat', false)).toBe('\u00b7cat'); // the decoder may strip the first space
    expect(pieceText('\u2581\u2581\u2581', '   ', false)).toBe('\u00b7\u00b7\u00b7');
    expect(pieceText('ing', 'ing', false)).toBe('ing');
    expect(pieceText('<bos>', '', false)).toBe('<bos>'); // a special token the decoder drops: as the vocabulary writes it
  });

  it('shows byte fallback pieces as their character when whole, else as the vocabulary writes them', () => {
    expect(pieceText('<0x0A>', '\n', false)).toBe('\u21b5');
    expect(pieceText('<0xE2>', '\uFFFD', false)).toBe('<0xE2>');
  });

  it('shows byte-level BPE pieces (Llama 3, Qwen, SmolLM2: Ġ for a space, Ċ for a newline) as their decoded text', () => {
    expect(pieceText('\u0120cat', ' cat', false)).toBe('\u00b7cat');
    expect(pieceText('\u010a\u010a', '\n\n', false)).toBe('\u21b5\u21b5');
    expect(pieceText('\u0120\u0120', '  ', false)).toBe('\u00b7\u00b7');
    expect(pieceText('<|im_start|>', '<|im_start|>', false)).toBe('<|im_start|>');
    expect(pieceText('\u00e6\u0139', '\uFFFD', false)).toBe('\u00e6\u0139'); // part of a CJK character
  });

  it('leaves WordPiece pieces as they are, and the label drawn from a piece stays visible', () => {
    expect(pieceText('##ing', 'ing', true)).toBe('##ing');
    expect(tokenLabel(pieceText('\u2581\t', ' \t', false))).toBe('\u00b7\u21e5');
  });
});

describe('chat turns', () => {
  it('reads one turn per role line; lines without a role continue the turn before', () => {
    expect(parseTurns('System: Be brief.\nuser: Hi\nthere\n\nassistant:Hello')).toEqual({
      turns: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi\nthere' },
        { role: 'assistant', content: 'Hello' },
      ],
    });
    expect(parseTurns(CHAT_EXAMPLE)).toMatchObject({ turns: [{ role: 'system' }, { role: 'user' }] });
  });

  it('reads text before the first role as the user\u2019s, so plain text is one user turn', () => {
    expect(parseTurns('The cat sat\non the mat.')).toEqual({
      turns: [{ role: 'user', content: 'The cat sat\non the mat.' }],
    });
    expect(parseTurns('hello\nassistant: hi')).toEqual({
      turns: [
        { role: 'user', content: 'hello' },
        { role: 'assistant', content: 'hi' },
      ],
    });
  });

  it('says what is wrong: no turn, an empty turn', () => {
    expect(parseTurns('  \n')).toEqual({ error: expect.stringContaining('Write a turn first') });
    expect(parseTurns('user: hi\nassistant:   ')).toEqual({ error: 'Turn 2 (assistant) is empty.' });
    expect(parseTurns('tool: x')).toEqual({ turns: [{ role: 'user', content: 'tool: x' }] }); // not a role here
  });
});

describe('local and global layers, K/V groups', () => {
  let engine: AttentionEngine;
  let trace: Trace;
  beforeAll(async () => {
    engine = await loadAttention();
    // Gemma 3's layout in small: a window of 3, every 3rd layer global; 6 query heads on 2 K/V heads.
    const model = engine.createModel({
      vocabSize: 32,
      dModel: 24,
      heads: 6,
      kvHeads: 2,
      headDim: 8,
      layers: 6,
      ffnDim: 32,
      maxSeq: 16,
      causal: true,
      positions: 'rope',
      normType: 'rmsnorm_offset',
      norm: 'sandwich',
      ffn: 'gated',
      window: 3,
      windowPattern: 3,
      ropeTheta: 1000000,
      ropeLocalTheta: 10000,
      head: 'tied',
      qkvBias: false,
      outBias: false,
      mlpBias: false,
    });
    const ids = Int32Array.from({ length: 8 }, (_, i) => (i * 5) % 32);
    const out = model.forward({ ids, batch: 1, seq: 8, record: { stages: ['decoder.self_attn.*'] }, logits: 'none' });
    const config = { layers: 6, heads: 6, ropeTheta: 1000000, ropeLocalTheta: 10000 } as unknown as Trace['config'];
    trace = { mode: 'decoder', config, tokens: [[...ids].map(String)], sourceTokens: [], stages: out.trace!.stages };
    model.dispose();
  });

  it('names the windowed layers local and every 3rd global, from the recorded masks', () => {
    expect(layerKinds(trace, 'decoder.self_attn')).toEqual({ local: [0, 1, 3, 4], global: [2, 5] });
  });

  it('reads RoPE with the base of each layer: the local layers\u2019 10,000, the global ones\u2019 1,000,000', () => {
    expect(ropeBase(trace, 'decoder.self_attn', 0, 10000)).toBe(10000);
    expect(ropeBase(trace, 'decoder.self_attn', 2, 10000)).toBe(1000000);
    for (const layer of [0, 2]) {
      const theta = ropeBase(trace, 'decoder.self_attn', layer, 10000);
      expect(ropeFrequencies(trace, 'decoder.self_attn', layer, theta)?.fromRule).toBe(true);
    }
    // the playground's default base does not fit the global layer: the view would fall back to measured frequencies
    expect(ropeFrequencies(trace, 'decoder.self_attn', 2, 10000)?.fromRule).toBe(false);
  });

  it('writes layer numbers as runs', () => {
    expect(layerRuns([0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11])).toBe('0\u20134, 6\u201311');
    expect(layerRuns([2, 5])).toBe('2, 5');
    expect(layerRuns([0, 1, 3])).toBe('0, 1, 3');
    expect(layerRuns([])).toBe('');
  });

  it('says which query heads share each K/V head', () => {
    expect(kvGroups(trace, 'decoder.self_attn', 0)).toEqual({
      heads: 6,
      kvHeads: 2,
      headDim: 8,
      groups: [
        [0, 1, 2],
        [3, 4, 5],
      ],
    });
  });
});

describe('the longest text a view draws', () => {
  it('fits S² cells per picture into the page limit', () => {
    for (const pictures of [1, 2, 9, 16]) {
      const s = longestDrawn(pictures);
      expect(s * s * pictures).toBeLessThanOrEqual(MAX_VIEW_CELLS);
      expect((s + 1) * (s + 1) * pictures).toBeGreaterThan(MAX_VIEW_CELLS);
    }
    // a long text's heatmaps are images: a few hundred tokens of 16 heads stay within the page's pixels
    expect(16 * 300 * 300).toBeLessThanOrEqual(MAX_VIEW_PIXELS);
    expect(drawsAsImage(300 * 300)).toBe(true);
    expect(drawsAsImage(100 * 100)).toBe(false);
    expect(drawsAsImage(100 * 100, 4)).toBe(false); // 4 heads of 100 tokens: 40,000 SVG cells
    expect(drawsAsImage(100 * 100, 16)).toBe(true); // 16 heads: 160,000, past MAX_VIEW_CELLS
  });
});

describe('a modern checkpoint\u2019s facts', () => {
  const smol = {
    heads: 9,
    kvHeads: 3,
    headDim: 64,
    positions: 'rope',
    ropeTheta: 100000,
    window: 0,
    windowPattern: 0,
    layers: 30,
  };
  const gemma = {
    heads: 4,
    kvHeads: 1,
    headDim: 256,
    positions: 'rope',
    ropeTheta: 1000000,
    window: 512,
    windowPattern: 6,
    layers: 18,
  };
  it('names grouped K/V heads, RoPE\u2019s base and where the window applies', () => {
    expect(headsFact(smol)).toBe('9 \u00d7 d_h 64, on 3 K/V heads (3 query heads each)');
    expect(headsFact({ heads: 12, kvHeads: 12, headDim: 64 })).toBe('12 \u00d7 d_h 64');
    expect(headsFact(gemma)).toBe('4 \u00d7 d_h 256, on 1 K/V head (4 query heads each)');
    expect(positionsFact(smol)).toBe('RoPE, \u03b8 = 100,000');
    expect(positionsFact({ positions: 'learned', ropeTheta: 10000 })).toBe('learned vectors, added');
    expect(windowFact(smol)).toBe('');
    expect(windowFact(gemma)).toBe('512 tokens in local layers; every 6th layer is global');
    expect(windowFact({ window: 4096, windowPattern: 0, layers: 24 })).toBe('4096 tokens in every layer');
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22].map(ordinal)).toEqual([
      '1st',
      '2nd',
      '3rd',
      '4th',
      '11th',
      '12th',
      '13th',
      '21st',
      '22nd',
    ]);
  });
});
