// Traces as they cross the boundary: one JSON description and one Float32Array; each
// stage's data is a view into that array (the values were copied once, in the engine).
import type { Stage, StageInfo, Trace } from './types.js';

export interface RawTrace {
  meta: string;
  data: Float32Array;
}

interface RawTraceMeta {
  tokens: string[][];
  sourceTokens: string[][];
  stages: (Omit<Stage, 'data'> & { offset: number })[];
}

export function readTrace(raw: RawTrace): { tokens: string[][]; sourceTokens: string[][]; stages: Stage[] } {
  const meta = JSON.parse(raw.meta) as RawTraceMeta;
  const stages = meta.stages.map(({ offset, ...stage }) => ({
    ...stage,
    data: raw.data.subarray(offset, offset + stage.shape.reduce((a, b) => a * b, 1)),
  }));
  return { tokens: meta.tokens, sourceTokens: meta.sourceTokens, stages };
}

/** The first stage with this name (and layer, if given), or undefined. */
export function findStage(trace: Pick<Trace, 'stages'>, name: string, layer?: number): Stage | undefined {
  return trace.stages.find((s) => s.name === name && (layer === undefined || s.layer === layer));
}

export type { StageInfo };
