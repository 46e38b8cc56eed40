// The "What heads do" view's state (web/src/heads/heads-view.ts) and its URL hash form
// '#heads&model=induction&tool=lens&...': the model, the text, the tool, the chosen head and
// token, the ablations and the patching prompts. Every value a link can carry is here, so a
// copied link reopens the same view; values that do not parse are reported, never guessed.

/** The tools, in the order of the view's tabs. */
export const HEAD_TOOLS = ['detect', 'ablate', 'lens', 'attribute', 'patch'] as const;
export type HeadTool = (typeof HEAD_TOOLS)[number];

/** The tabs' labels. */
export const HEAD_TOOL_LABELS: Record<HeadTool, string> = {
  detect: 'Detectors',
  ablate: 'Ablation',
  lens: 'Logit lens',
  attribute: 'Attribution',
  patch: 'Patching',
};

export const ABLATIONS = ['zero', 'mean'] as const;
export type Ablation = (typeof ABLATIONS)[number];
/** What patching swaps in, one map each: the residual stream at a layer and position, or a head's output. */
export const PATCH_OVER = ['resid', 'heads'] as const;
export type PatchOver = (typeof PATCH_OVER)[number];
/** The detector grid's sort keys: a detector's score, or layer then head. */
export const DETECT_SORTS = ['layer', 'previous', 'duplicate', 'induction'] as const;
export type DetectSort = (typeof DETECT_SORTS)[number];

export interface HeadRefState {
  layer: number;
  head: number;
}

export interface HeadsState {
  /** '' = no model yet; a shipped checkpoint's id, 'trained' or a loaded pretrained model's id (as the Explore page's). */
  model: string;
  /** The text every tool but patching reads; '' = the model's example (filled in when the model is known). */
  text: string;
  tool: HeadTool;
  /** The chosen head (opened in the Explore views from here), or null. */
  head: HeadRefState | null;
  sort: DetectSort;
  /** The token explained (attribution, the ablation's target): an id, or null for the model's own prediction. */
  token: number | null;
  /** With token: explain logit(token) - logit(against). */
  against: number | null;
  /** Heads switched off (Ablation). */
  ablate: HeadRefState[];
  /** Layers whose MLP is switched off. */
  mlps: number[];
  ablation: Ablation;
  /** The patching prompts; '' = the model's own pair (filled in when the model is known). */
  clean: string;
  corrupted: string;
}

/** The patching example of issue 29: an indirect-object sentence and the same with the other name repeated. */
export const PATCH_EXAMPLE = {
  clean: 'When Mary and John went to the store, John gave a drink to',
  corrupted: 'When Mary and John went to the store, Mary gave a drink to',
};

export const DEFAULT_HEADS_STATE: HeadsState = {
  model: '',
  text: '',
  tool: 'detect',
  head: null,
  sort: 'layer',
  token: null,
  against: null,
  ablate: [],
  mlps: [],
  ablation: 'zero',
  clean: '',
  corrupted: '',
};

/** The hash's first word: the page's router sends '#heads...' here. */
export const HEADS_ROUTE = 'heads';

export function isHeadsHash(hash: string): boolean {
  return hash === `#${HEADS_ROUTE}` || hash.startsWith(`#${HEADS_ROUTE}&`);
}

const heads = (list: readonly HeadRefState[]) => list.map((h) => `${h.layer}.${h.head}`).join(',');

/** The state as a hash; values equal to the defaults are left out. */
export function headsStateToHash(state: HeadsState): string {
  const d = DEFAULT_HEADS_STATE;
  const params = new URLSearchParams();
  const set = (name: string, value: string, fallback: string) => {
    if (value !== fallback) params.set(name, value);
  };
  set('model', state.model, d.model);
  set('tool', state.tool, d.tool);
  set('text', state.text, d.text);
  set('head', state.head ? heads([state.head]) : '', '');
  set('sort', state.sort, d.sort);
  set('token', state.token === null ? '' : String(state.token), '');
  set('against', state.against === null ? '' : String(state.against), '');
  set('ablate', heads(state.ablate), '');
  set('mlps', state.mlps.join(','), '');
  set('ablation', state.ablation, d.ablation);
  set('clean', state.clean, d.clean);
  set('corrupted', state.corrupted, d.corrupted);
  const rest = params.toString();
  return `#${HEADS_ROUTE}${rest ? `&${rest}` : ''}`;
}

function parseHead(raw: string): HeadRefState | null {
  const match = /^(\d{1,3})\.(\d{1,3})$/.exec(raw);
  return match ? { layer: Number(match[1]), head: Number(match[2]) } : null;
}

function parseId(raw: string): number | null {
  return /^\d{1,9}$/.test(raw) ? Number(raw) : null;
}

/** A hash -> state (what it lacks keeps the defaults) and the problems of values that did not parse or are unknown. */
export function headsStateFromHash(hash: string): { state: HeadsState; problems: string[] } {
  const state: HeadsState = { ...DEFAULT_HEADS_STATE, ablate: [], mlps: [] };
  const problems: string[] = [];
  const body = hash.replace(/^#/, '');
  const params = new URLSearchParams(body.startsWith(HEADS_ROUTE) ? body.slice(HEADS_ROUTE.length) : body);
  const bad = (name: string, raw: string, want: string) =>
    problems.push(`${name}=${JSON.stringify(raw)} is not ${want}; ignored.`);
  const choice = <T extends string>(name: string, raw: string, choices: readonly T[]): T | undefined => {
    if ((choices as readonly string[]).includes(raw)) return raw as T;
    bad(name, raw, `one of ${choices.join(', ')}`);
    return undefined;
  };
  for (const [name, raw] of params) {
    switch (name) {
      case 'model':
        state.model = raw;
        break;
      case 'text':
        state.text = raw;
        break;
      case 'clean':
        state.clean = raw;
        break;
      case 'corrupted':
        state.corrupted = raw;
        break;
      case 'tool':
        state.tool = choice(name, raw, HEAD_TOOLS) ?? state.tool;
        break;
      case 'sort':
        state.sort = choice(name, raw, DETECT_SORTS) ?? state.sort;
        break;
      case 'ablation':
        state.ablation = choice(name, raw, ABLATIONS) ?? state.ablation;
        break;
      case 'head': {
        const head = parseHead(raw);
        if (head) state.head = head;
        else bad(name, raw, 'a head written layer.head (e.g. 1.0)');
        break;
      }
      case 'token':
      case 'against': {
        const id = parseId(raw);
        if (id === null) bad(name, raw, 'a token id');
        else state[name] = id;
        break;
      }
      case 'ablate': {
        const list = raw.split(',').filter(Boolean).map(parseHead);
        if (list.some((h) => h === null)) bad(name, raw, 'a list of heads written layer.head (e.g. 0.1,1.0)');
        else state.ablate = list as HeadRefState[];
        break;
      }
      case 'mlps': {
        const list = raw.split(',').filter(Boolean);
        if (list.some((l) => !/^\d{1,3}$/.test(l))) bad(name, raw, 'a list of layers (e.g. 0,1)');
        else state.mlps = list.map(Number);
        break;
      }
      default:
        problems.push(`The link's ${JSON.stringify(name)} is not a setting of this view; ignored.`);
    }
  }
  return { state, problems };
}

/** Whether a head is in a list. */
export function hasHead(list: readonly HeadRefState[], head: HeadRefState): boolean {
  return list.some((h) => h.layer === head.layer && h.head === head.head);
}

/** The list with the head added, or removed when it was there (kept in layer, head order). */
export function toggleHead(list: readonly HeadRefState[], head: HeadRefState): HeadRefState[] {
  const next = hasHead(list, head)
    ? list.filter((h) => h.layer !== head.layer || h.head !== head.head)
    : [...list, { layer: head.layer, head: head.head }];
  return next.sort((a, b) => a.layer - b.layer || a.head - b.head);
}

/** The Explore page's link that opens a head of a model on a text (its hash settings: model, text, view, layer, head). */
export function exploreHeadHash(model: string, text: string, head: HeadRefState): string {
  const params = new URLSearchParams();
  if (model) params.set('model', model);
  if (text) params.set('text', text);
  params.set('view', 'head');
  params.set('layer', String(head.layer));
  params.set('head', String(head.head));
  return `#${params.toString()}`;
}

/**
 * A trained model's patching pair from its prompt tokens: the clean prompt as it is, the corrupted one with one token
 * changed where an induction-like model reads its answer (right after the earlier copy of the last token), else the
 * first; the replacement is another token of the prompt. Null when the prompt has one distinct token only.
 */
export function patchPair(tokens: readonly string[]): { clean: string[]; corrupted: string[] } | null {
  const last = tokens.length - 1;
  const copy = tokens.lastIndexOf(tokens[last], last - 1);
  const at = copy >= 0 && copy + 1 < last ? copy + 1 : 0;
  const other = tokens.find((t) => t !== tokens[at]);
  if (other === undefined) return null;
  const corrupted = [...tokens];
  corrupted[at] = other;
  return { clean: [...tokens], corrupted };
}
