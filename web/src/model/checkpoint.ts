// Shipped checkpoints: a model trained by the project's own trainer (scripts/train-checkpoints.mjs),
// so that the Train view shows trained heads on a first visit and its timeline works
// without training. A checkpoint is two files in one folder:
//   {id}.json          the record below: the Train view settings that reproduce it, the
//                      curves, and probe snapshots for the timeline
//   {id}.safetensors   the weights (engine's saveWeights format)
// and the folder's index.json lists the records' ids and titles.
import { base64ToBytes, bytesToBase64 } from './base64.js';
import type { CurvePoint, Probe, ProbeHead } from './training-data.js';
import { fixed } from './words.js';

export const CHECKPOINT_FORMAT = 'attention-playground-checkpoint/1';

/** One head's weights (Sq, Sk) quantized to 0..255 (1/255 steps: colours and head labels need no more), base64. */
interface PackedHead {
  layer: number;
  head: number;
  weights: string;
}

/** A Probe as stored: numbers rounded, attention quantized. */
export interface PackedProbe extends Omit<Probe, 'heads'> {
  heads: PackedHead[];
}

export interface CheckpointRecord {
  format: typeof CHECKPOINT_FORMAT;
  id: string;
  title: string;
  /** What a learner sees in the trained model, in a sentence. */
  description: string;
  /** The Train view's settings (its URL hash without '#train&'): the same settings retrain it bit for bit. */
  settings: string;
  /** Steps trained, and the outcome (as the Train view says it). */
  step: number;
  message: string;
  train: CurvePoint[];
  heldOut: CurvePoint[];
  timeline: { step: number; probe: PackedProbe }[];
}

export interface CheckpointIndex {
  format: typeof CHECKPOINT_FORMAT;
  /** Each checkpoint's id, title and settings (a Train view showing these settings shows the checkpoint). */
  checkpoints: { id: string; title: string; settings: string }[];
}

/** A checkpoint ready to show: its record, its probe snapshots and the weights' bytes. */
export interface Checkpoint {
  record: CheckpointRecord;
  timeline: { step: number; probe: Probe }[];
  weights: Uint8Array;
}

const round = (x: number, digits: number) => Number(fixed(x, digits));

export function packProbe(probe: Probe): PackedProbe {
  return {
    ...probe,
    confidence: probe.confidence.map((c) => round(c, 3)),
    heads: probe.heads.map((h) => ({
      layer: h.layer,
      head: h.head,
      weights: bytesToBase64(Uint8Array.from(h.weights, (w) => Math.round(Math.min(1, Math.max(0, w)) * 255))),
    })),
  };
}

export function unpackProbe(packed: PackedProbe): Probe {
  const heads: ProbeHead[] = packed.heads.map((h) => ({
    layer: h.layer,
    head: h.head,
    weights: Float32Array.from(base64ToBytes(h.weights), (q) => q / 255),
  }));
  return { ...packed, heads };
}

/** Curve points with numbers rounded to what a plot or a summary shows. */
export function packCurve(points: CurvePoint[]): CurvePoint[] {
  return points.map((p) => ({
    step: p.step,
    loss: round(p.loss, 5),
    accuracy: round(p.accuracy, 4),
    sequenceAccuracy: round(p.sequenceAccuracy, 4),
  }));
}

/** A fetched record, checked for its format (the settings are checked by the Train view as any link's are). */
export function checkRecord(record: unknown, id: string): CheckpointRecord {
  const r = record as Partial<CheckpointRecord>;
  if (
    !r ||
    r.format !== CHECKPOINT_FORMAT ||
    typeof r.settings !== 'string' ||
    !Array.isArray(r.timeline) ||
    !Array.isArray(r.train)
  )
    throw new Error(`'${id}' is not an attention-playground checkpoint (format ${CHECKPOINT_FORMAT})`);
  return r as CheckpointRecord;
}

let base: URL | null = null;

/** Where the shipped checkpoints live (the site's checkpoints/ folder; the element's, next to its script). */
export function setCheckpointBase(url: string | URL): void {
  base = new URL(url, typeof location === 'undefined' ? undefined : location.href);
}

async function fetchOk(url: URL): Promise<Response> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname.split('/').pop()}: ${response.status} ${response.statusText}`);
  return response;
}

/** Reads kept by URL, so every view of a page fetches a file once; a failed read is tried again next time. */
const reads = new Map<string, Promise<unknown>>();
function readOnce<T>(url: URL, read: () => Promise<T>): Promise<T> {
  let reading = reads.get(url.href) as Promise<T> | undefined;
  if (!reading) {
    reading = read();
    reads.set(url.href, reading);
    reading.catch(() => reads.delete(url.href));
  }
  return reading;
}

/** The shipped checkpoints' ids and titles (empty when the folder has none). */
export async function checkpointIndex(): Promise<CheckpointIndex['checkpoints']> {
  if (!base) return [];
  const url = new URL('index.json', base);
  const index = await readOnce(url, async () => (await (await fetchOk(url)).json()) as CheckpointIndex);
  return index.format === CHECKPOINT_FORMAT ? index.checkpoints : [];
}

/** Where a checkpoint's .json is: a shipped one's by id (in the checkpoints folder), a given one's URL as it is. */
export function checkpointUrl(idOrUrl: string): URL {
  const isId = /^[a-z0-9-]+$/.test(idOrUrl);
  if (isId && !base) throw new Error('no shipped checkpoints here');
  return isId ? new URL(`${idOrUrl}.json`, base!) : new URL(idOrUrl, base ?? location.href);
}

/** A shipped checkpoint by id, or a given one by the URL of its .json (the weights next to it). */
export async function loadCheckpoint(idOrUrl: string): Promise<Checkpoint> {
  const url = checkpointUrl(idOrUrl);
  return readOnce(url, async () => {
    const record = checkRecord(await (await fetchOk(url)).json(), idOrUrl);
    const weights = new Uint8Array(
      await (await fetchOk(new URL(url.pathname.replace(/\.json$/, '.safetensors'), url))).arrayBuffer(),
    );
    return { record, weights, timeline: record.timeline.map((t) => ({ step: t.step, probe: unpackProbe(t.probe) })) };
  });
}
