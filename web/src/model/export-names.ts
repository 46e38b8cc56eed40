// What an exported picture is called and what its title says: pure functions of the view
// and its settings, so that the file name and the title always describe the same content.
import type { Block, StageName } from './trace-model.js';

/** The views drawn as pictures: the PNG and SVG buttons show only in these. */
export const PICTURE_VIEWS = ['heads', 'head', 'lines', 'masks', 'overview'] as const;
export type PictureView = (typeof PICTURE_VIEWS)[number];

export function isPictureView(view: string): view is PictureView {
  return (PICTURE_VIEWS as readonly string[]).includes(view);
}

export interface PictureSubject {
  view: PictureView;
  /** e.g. 'encoder.self_attn'. */
  block: string;
  layer: number;
  layers: number;
  /** The head shown by 'head'; the heads overlaid by 'lines' (empty: every head). */
  head: number;
  overlay: number[];
  heads: number;
  /** 'scores' | 'scaled' | 'masked' | 'weights' (the heatmap views). */
  stage: string;
  sequence: number;
  sequences: number;
}

// Keyed by the engine's names: a stage or block it adds without a name here fails to compile.
const STAGE_NAMES: Record<StageName, string> = {
  scores: 'Scores Q·Kᵀ',
  scaled: 'Scaled scores Q·Kᵀ ÷ √d_k',
  masked: 'Masked scores',
  weights: 'Softmax weights',
};

const BLOCK_NAMES: Record<Block, string> = {
  'encoder.self_attn': 'encoder self-attention',
  'decoder.self_attn': 'decoder self-attention',
  'decoder.cross_attn': 'decoder cross-attention',
};

/** '0-2-5' for a list of heads: short, and safe in a file name. */
function headList(heads: number[]): string {
  return heads.join('-');
}

/** The heads a picture shows, as words ('head 2', 'heads 0, 3', 'all 4 heads'). */
function headWords(subject: PictureSubject): string {
  const { view, head, overlay, heads } = subject;
  if (view === 'head') return `head ${head}`;
  if (view === 'masks') return `the same for all ${heads} heads`;
  if (view === 'lines' && overlay.length > 0 && overlay.length < heads)
    return `head${overlay.length > 1 ? 's' : ''} ${overlay.join(', ')} overlaid`;
  return heads === 1
    ? 'its 1 head'
    : `all ${heads} heads${view === 'lines' && overlay.length === heads ? ' overlaid' : ''}`;
}

/**
 * A file name that says what is in the file: the kind of picture, the block, the layer(s),
 * the head(s), the stage, and the sentence when the batch has several. Masks have no head
 * part: one mask applies to every head of a layer (the title says so).
 */
export function pictureFileName(subject: PictureSubject, ext: 'svg' | 'png'): string {
  const { view, block, layer, head, overlay, heads, stage, sequence, sequences } = subject;
  const blockPart = block.replace('.', '-');
  const sentence = sequences > 1 ? `-sentence${sequence + 1}` : '';
  let name: string;
  switch (view) {
    case 'heads':
      name = `attention-${blockPart}-layer${layer}-all-heads-${stage}`;
      break;
    case 'head':
      name = `attention-${blockPart}-layer${layer}-head${head}-${stage}`;
      break;
    case 'lines':
      name = `lines-${blockPart}-layer${layer}-${
        overlay.length > 0 && overlay.length < heads
          ? `heads${headList(overlay)}-overlaid`
          : overlay.length === heads
            ? 'all-heads-overlaid'
            : 'all-heads'
      }`;
      break;
    case 'masks':
      name = `masks-${blockPart}-layer${layer}`;
      break;
    case 'overview':
      name = `overview-${blockPart}-all-layers-all-heads-weights`;
      break;
  }
  return `${name}${sentence}.${ext}`;
}

/** The title's first line: which tensor or stage, block, layer(s) and head(s). */
export function pictureHeading(subject: PictureSubject): string {
  const block = BLOCK_NAMES[subject.block as Block] ?? subject.block;
  const stage = STAGE_NAMES[subject.stage as StageName] ?? subject.stage;
  const sentence = subject.sequences > 1 ? ` · sentence ${subject.sequence + 1} of ${subject.sequences}` : '';
  switch (subject.view) {
    case 'heads':
    case 'head':
      return `${stage} · ${block} · layer ${subject.layer} · ${headWords(subject)}${sentence}`;
    case 'lines':
      return `Softmax weights as lines (query → key) · ${block} · layer ${subject.layer} · ${headWords(subject)}${sentence}`;
    case 'masks':
      return `Attention masks · ${block} · layer ${subject.layer} · ${headWords(subject)}${sentence}`;
    case 'overview':
      return `Softmax weights · ${block} · all ${subject.layers} layers × ${subject.heads} heads${sentence}`;
  }
}

/**
 * Splits text into lines of at most `width` characters, at spaces where it can (a long
 * word is cut), so that a long input stays inside the picture; past `maxLines` the last
 * line ends in '…'.
 */
export function wrapText(text: string, width: number, maxLines = 12): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    let rest = Array.from(word);
    while (rest.length > 0) {
      const room = width - (line ? Array.from(line).length + 1 : 0);
      if (rest.length <= room) {
        line = line ? `${line} ${rest.join('')}` : rest.join('');
        rest = [];
        break;
      }
      if (line) {
        lines.push(line);
        line = '';
        continue;
      }
      lines.push(rest.slice(0, width).join(''));
      rest = rest.slice(width);
    }
  }
  if (line) lines.push(line);
  if (lines.length <= maxLines) return lines;
  const kept = lines.slice(0, maxLines);
  kept[maxLines - 1] = `${Array.from(kept[maxLines - 1])
    .slice(0, Math.max(0, width - 1))
    .join('')
    .trimEnd()}…`;
  return kept;
}
