// The engine's declaration of its settings, rules, stages and error codes (generated
// into schema.generated.ts from the C++ tables), as types and as checks. Nothing here
// restates a setting, a range or a rule: it interprets the declaration, as the C++
// side (core/src/settings.cpp) does.
import { ENGINE } from './schema.generated.js';

export { ENGINE };

export interface SettingInfo {
  readonly name: string;
  readonly type: 'int' | 'number' | 'bool' | 'choice' | 'text';
  readonly default: number | boolean | string;
  readonly help: string;
  readonly min?: number;
  readonly max?: number;
  readonly minExclusive?: boolean;
  readonly choices?: readonly string[];
}

export interface RuleInfo {
  readonly kind: 'divides' | 'atLeast';
  /** The setting the message is shown at. */
  readonly field: string;
  readonly a: string;
  readonly b?: string;
  readonly bound?: number;
  readonly when?: Readonly<Record<string, string | number | boolean>>;
  readonly code: string;
  /** Names settings in braces, e.g. "heads ({heads}) must divide dModel ({dModel})". */
  readonly message: string;
}

export interface SchemaInfo {
  readonly settings: readonly SettingInfo[];
  readonly rules: readonly RuleInfo[];
}

/** The value type of one declared setting: number, boolean, string, or the union of its choices. */
export type SettingValue<S> = S extends { type: 'int' | 'number' }
  ? number
  : S extends { type: 'bool' }
    ? boolean
    : S extends { type: 'text' }
      ? string
      : S extends { type: 'choice'; choices: readonly (infer C)[] }
        ? C
        : never;
/** The object type of a schema's settings: `{ dModel: number; norm: 'post' | 'pre'; ... }`. */
export type SettingsOf<L extends readonly { name: string }[]> = {
  -readonly [S in L[number] as S['name']]: SettingValue<S>;
};

export type ErrorCode = (typeof ENGINE.errorCodes)[number];
export type StageKind = (typeof ENGINE.stages)[number]['kind'];
/** A checkpoint family the engine loads, as config.json's model_type names it. */
export type Family = (typeof ENGINE.families)[number]['name'];
/** The tokenizer a family's checkpoints carry: GPT-2's byte-level BPE or BERT's WordPiece. */
export type FamilyTokenizer = (typeof ENGINE.families)[number]['tokenizer'];
/** How loadPretrained holds a checkpoint's matrices (its `weights` option; docs/pretrained.md, "Weights in memory"). */
export type WeightsMode = (typeof ENGINE.weightsModes)[number];
/** loadPretrained's q8Activations: the engine's modes, as C++ lists them (pretrained.hpp). */
export type Q8Activations = (typeof ENGINE.q8ActivationsModes)[number];
export type MaskKind = NonNullable<Extract<(typeof ENGINE.stages)[number], { mask: string }>['mask']>;

/** The engine's error codes, in its order. */
export const ERROR_CODES: readonly ErrorCode[] = ENGINE.errorCodes;

/** One problem with a setting: where to show it, and why. */
export interface SettingProblem {
  field: string;
  code: ErrorCode;
  message: string;
  value?: unknown;
}

function describe(value: unknown): string {
  if (typeof value === 'string') return `'${value.length > 40 ? value.slice(0, 40) + '...' : value}'`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  return Array.isArray(value) ? 'an array' : 'an object';
}

/** The problem with one value of a setting (type, range, choices), or null. */
export function checkValue(info: SettingInfo, value: unknown): SettingProblem | null {
  const bad = (what: string, code: ErrorCode): SettingProblem => ({
    field: info.name,
    code,
    value,
    message: `${info.name} ${what}, got ${describe(value)}`,
  });
  switch (info.type) {
    case 'bool':
      return typeof value === 'boolean' ? null : bad('must be true or false', 'invalid_argument');
    case 'text':
      if (typeof value !== 'string') return bad('must be a string', 'invalid_argument');
      return new TextEncoder().encode(value).length > info.max!
        ? {
            field: info.name,
            code: 'limit_exceeded',
            value: value.length,
            message: `${info.name} is ${new TextEncoder().encode(value).length} bytes long; the limit is ${info.max}`,
          }
        : null;
    case 'choice': {
      const list = info.choices!.map((c) => `'${c}'`).join(', ');
      return typeof value === 'string' && info.choices!.includes(value)
        ? null
        : bad(`must be one of ${list}`, 'invalid_argument');
    }
    default: {
      const whole = info.type === 'int';
      if (typeof value !== 'number' || !Number.isFinite(value) || (whole && !Number.isInteger(value)))
        return bad(whole ? 'must be a whole number' : 'must be a number', 'invalid_argument');
      const below = info.minExclusive ? value <= info.min! : value < info.min!;
      if (below || value > info.max!)
        return bad(
          info.minExclusive
            ? `must be greater than ${info.min} and at most ${info.max}`
            : `must be between ${info.min} and ${info.max}`,
          'out_of_range',
        );
      return null;
    }
  }
}

/** Every broken rule between settings, in the declaration's order. */
export function ruleProblems(rules: readonly RuleInfo[], values: Readonly<Record<string, unknown>>): SettingProblem[] {
  const problems: SettingProblem[] = [];
  for (const rule of rules) {
    if (rule.when && Object.entries(rule.when).some(([k, v]) => values[k] !== v)) continue;
    const a = Number(values[rule.a]);
    const ok =
      rule.kind === 'divides'
        ? a === 0 || Number(values[rule.b!]) % a === 0
        : (rule.b === undefined ? a : a / Number(values[rule.b])) >= rule.bound!;
    if (!ok)
      problems.push({
        field: rule.field,
        code: rule.code as ErrorCode,
        value: values[rule.field],
        message: rule.message.replace(/\{(\w+)\}/g, (whole, name: string) =>
          name in values ? describe(values[name]) : whole,
        ),
      });
  }
  return problems;
}

/** The settings' defaults as an object. */
export function defaultsOf<T>(schema: SchemaInfo): T {
  return Object.fromEntries(schema.settings.map((s) => [s.name, s.default])) as T;
}
