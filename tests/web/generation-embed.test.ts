// Generation in embeds, the parts without a DOM: which model a panel generates with
// (model/generation-source.ts), the playground link (settings/playground-link.ts) read back
// as the playground page reads its hash, and several panels sharing one engine's single
// open generation (workers/generation-sessions.ts), on a recording fake of the engine side.
import { describe, expect, it } from 'vitest';
import { choiceKey, generationChoice } from '../../web/src/model/generation-source.js';
import { DEFAULT_GENERATION_STATE, generationStateFromHash } from '../../web/src/model/generation-state.js';
import { playgroundLink } from '../../web/src/settings/playground-link.js';
import { DEFAULT_STATE, PAGE_DEFAULT_STATE, stateFromHash } from '../../web/src/settings/settings.js';
import { generationSessions } from '../../web/src/workers/generation-sessions.js';
import type {
  GenerationApi,
  GenerationOpen,
  GenerationOpened,
  StepView,
} from '../../web/src/workers/generation-run.js';

const info = { key: 'k1', name: 'bert-tiny', causal: false, predicts: true, chat: false };

describe('which model a panel generates with', () => {
  it('a causal pretrained model or a trained one; an encoder, a headless checkpoint and the untrained model say why not', () => {
    expect(generationChoice({ ...info, name: 'gpt2', causal: true, chat: true }, null)).toEqual({
      source: { pretrained: { key: 'k1' } },
      unavailable: '',
      chat: true,
    });
    const trained = { key: 'checkpoint:reverse' };
    expect(generationChoice(null, trained)).toEqual({ source: { trained }, unavailable: '', chat: false });
    expect(generationChoice(info, trained).unavailable).toMatch(/^bert-tiny is an encoder: .* no next token to write/);
    expect(generationChoice({ ...info, causal: true, predicts: false }, null).unavailable).toBe(
      'bert-tiny has no output head (no logits): it cannot write.',
    );
    expect(generationChoice(null, null).unavailable).toMatch(/^The untrained playground model has no output head/);
    expect(generationChoice(null, null).unavailable).toMatch(/in the Model picker/);
    // an element without a Model picker names what it has: its model attribute
    const element = generationChoice(null, null, null, 'attribute').unavailable;
    expect(element).toMatch(/^The untrained playground model has no output head/);
    expect(element).toMatch(/model attribute \(model="reverse"/);
    expect(element).not.toMatch(/picker/i);
    // a link to a pretrained model loaded from files in another tab: load it again (not "the untrained model")
    expect(generationChoice(null, null, 'GPT2LMHeadModel').unavailable).toBe(
      'The pretrained model \u2018GPT2LMHeadModel\u2019 is not loaded in this tab: load it again with ' +
        '\u201cLoad a pretrained model\u2026\u201d in the Model picker to generate with it.',
    );
    // an element without a picker shown: how it loads one (its picker, controls="model"), not "load it again"
    const notLoaded = generationChoice(null, null, 'GPT2LMHeadModel', 'attribute').unavailable;
    expect(notLoaded).toMatch(/^The pretrained model \u2018GPT2LMHeadModel\u2019 is not loaded in this tab: /);
    expect(notLoaded).toMatch(/only with its Model picker: show it \(controls="model"\)/);
    // Keys tell models apart, and the same model again is the same key.
    const keys = [
      generationChoice(null, trained),
      generationChoice(null, { key: 'checkpoint:sort' }),
      generationChoice(info, null),
    ].map(choiceKey);
    expect(new Set(keys).size).toBe(3);
    expect(choiceKey(generationChoice(null, { key: 'checkpoint:reverse' }))).toBe(keys[0]);
  });
});

describe('the playground link', () => {
  it('reopens the model, the text and the generation as the playground page reads its hash', () => {
    const state = { ...DEFAULT_STATE, model: 'reverse', text: '5 1 7 |' };
    const generation = { ...DEFAULT_GENERATION_STATE, prompt: '5 1 7 |', temperature: 0.5, topK: 3, path: [7, 1] };
    const url = new URL(playgroundLink('https://example.org/site/index.html', state, generation));
    expect(url.origin + url.pathname).toBe('https://example.org/site/index.html');
    const page = stateFromHash(url.hash, PAGE_DEFAULT_STATE);
    expect(page.problems).toEqual([]);
    expect(page.state).toEqual({
      ...PAGE_DEFAULT_STATE,
      model: 'reverse',
      text: '5 1 7 |',
      preset: DEFAULT_STATE.preset,
    });
    expect(generationStateFromHash(url.hash)).toEqual({ state: generation, problems: [] });
    expect(new URL(playgroundLink('https://example.org/index.html', state)).hash).not.toMatch(/gen\./);
  });
});

describe('several panels on one engine', () => {
  /** The engine side as generation-run.ts keeps it: one open generation; each step writes the next id. */
  function fakeEngine() {
    const log: string[] = [];
    let open: GenerationOpen | null = null;
    let next = 0;
    const api: GenerationApi = {
      async generationOpen(input) {
        open = input;
        next = 100 * input.prompt.length + input.path.length;
        log.push(`open ${input.prompt} [${input.path.join(' ')}]`);
        return { ok: true, ids: [1, 2, ...input.path], promptLength: 2 } as unknown as GenerationOpened;
      },
      async generationRun(count, onStep) {
        for (let i = 0; i < count; i++) onStep({ token: next++ } as StepView);
        log.push(`run ${open!.prompt} ${count}`);
        return { ok: true, steps: count, stopped: false, done: false, heapBytes: 0 };
      },
      generationStop: () => void log.push(`stop ${open?.prompt}`),
      generationDispose: async () => (log.push(`dispose ${open?.prompt}`), 0),
    };
    return { api, log };
  }
  const input = (prompt: string): GenerationOpen => ({
    source: { trained: { key: 'k', settings: '', weights: new Uint8Array() } },
    prompt,
    chat: false,
    settings: { ...DEFAULT_GENERATION_STATE },
    path: [],
  });

  it('each panel runs on its own branch: one another panel replaced is reopened with the tokens it wrote', async () => {
    const { api, log } = fakeEngine();
    const session = generationSessions(api);
    const [a, b] = [session(), session()];
    await a.generationOpen(input('a'));
    const written: number[] = [];
    await a.generationRun(2, (s) => void written.push(s.token));
    await b.generationOpen(input('bb'));
    await b.generationRun(1, () => {});
    a.generationStop(); // not a's generation that is open: b's run is left alone
    await a.generationRun(1, (s) => void written.push(s.token));
    expect(await b.generationDispose()).toBeNaN(); // a's is open now: b holds nothing
    await a.generationDispose();
    expect(log).toEqual([
      'open a []',
      'run a 2',
      'open bb []',
      'run bb 1',
      `open a [${written.slice(0, 2).join(' ')}]`,
      'run a 1',
      'dispose a',
    ]);
  });
});
