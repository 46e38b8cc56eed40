// tokenizer.json's "post_processor": where special tokens go around the encoded text.
// TemplateProcessing places them as its "single" (or "pair") template says (Gemma 3 and
// Llama 2: <bos> first); ByteLevel only trims offsets, so the ids stay as they are;
// Sequence runs its processors in order. Without special tokens, the template still
// sets the type ids.
import type { JsonField } from './json.js';

/** The ids of one text (or of a pair, concatenated), with their pieces and type ids. */
export interface Encoded {
  ids: number[];
  tokens: string[];
  typeIds: number[];
}

/** Encodings of the first text and, for a pair, the second -> the model's input. */
export type PostProcessor = (encodings: Encoded[], addSpecialTokens: boolean) => Encoded[];

const SUPPORTED = ['TemplateProcessing', 'ByteLevel', 'Sequence'] as const;

type TemplateItem =
  { sequence: 0 | 1; typeId: number } | { special: { ids: number[]; tokens: string[] }; typeId: number };

function readTemplate(field: JsonField, specials: Map<string, { ids: number[]; tokens: string[] }>): TemplateItem[] {
  return field.items().map((item): TemplateItem => {
    const members = item.entries();
    if (members.length !== 1) throw item.bad('must be { "Sequence": ... } or { "SpecialToken": ... }');
    const [kind, body] = members[0];
    if (kind === 'Sequence') {
      const id = body.get('id').oneOf(['A', 'B'] as const);
      return { sequence: id === 'A' ? 0 : 1, typeId: body.get('type_id').count() };
    }
    if (kind === 'SpecialToken') {
      const name = body.get('id').string();
      const special = specials.get(name);
      if (!special) throw body.get('id').bad("is not among the post-processor's special_tokens", name);
      return { special, typeId: body.get('type_id').count() };
    }
    throw item.bad('must be { "Sequence": ... } or { "SpecialToken": ... }');
  });
}

function applyTemplate(template: TemplateItem[], encodings: Encoded[], addSpecialTokens: boolean): Encoded {
  const out: Encoded = { ids: [], tokens: [], typeIds: [] };
  for (const item of template) {
    if ('sequence' in item) {
      const e = encodings[item.sequence];
      if (!e) continue;
      out.ids.push(...e.ids);
      out.tokens.push(...e.tokens);
      out.typeIds.push(...e.ids.map(() => item.typeId));
    } else if (addSpecialTokens) {
      out.ids.push(...item.special.ids);
      out.tokens.push(...item.special.tokens);
      out.typeIds.push(...item.special.ids.map(() => item.typeId));
    }
  }
  return out;
}

/** The post-processor a tokenizer.json field describes; null when the field is null. */
export function readPostProcessor(field: JsonField): PostProcessor | null {
  if (field.isNull) return null;
  switch (field.type()) {
    case 'TemplateProcessing': {
      const specials = new Map<string, { ids: number[]; tokens: string[] }>();
      for (const [name, spec] of field.get('special_tokens').entries()) {
        const ids = spec
          .get('ids')
          .items()
          .map((f) => f.count());
        const tokens = spec
          .get('tokens')
          .items()
          .map((f) => f.string());
        if (ids.length !== tokens.length) throw spec.bad(`has ${ids.length} ids but ${tokens.length} tokens`);
        specials.set(name, { ids, tokens });
      }
      const single = readTemplate(field.get('single'), specials);
      const pair = readTemplate(field.get('pair'), specials);
      return (encodings, add) => [applyTemplate(encodings.length === 2 ? pair : single, encodings, add)];
    }
    case 'ByteLevel':
      return (encodings) => encodings;
    case 'Sequence': {
      const steps = field
        .get('processors')
        .items()
        .map((f) => readPostProcessor(f))
        .filter((s): s is PostProcessor => s !== null);
      return (encodings, add) => steps.reduce((e, step) => step(e, add), encodings);
    }
    default:
      throw field.unsupported('post-processor', SUPPORTED);
  }
}
