// Which trained models the Explore page offers and what each resolves to: the shipped
// checkpoints (fetched from the folder setCheckpointBase names; here fetch reads
// web/public/checkpoints), the Train view's hand-over (kept in sessionStorage for a
// reload), and a clear message for an id that is not there.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const folder = new URL('../../web/public/checkpoints/', import.meta.url);
const BASE = 'http://playground.test/checkpoints/';

/** fetch over the shipped folder, counting requests. */
function serveCheckpoints(): string[] {
  const requested: string[] = [];
  vi.stubGlobal('fetch', async (url: URL | string) => {
    const path = new URL(url).pathname.split('/').pop()!;
    requested.push(path);
    try {
      return new Response(readFileSync(new URL(path, folder)));
    } catch {
      return new Response('not found', { status: 404, statusText: 'Not Found' });
    }
  });
  return requested;
}

/** A sessionStorage that lives across module reloads (a tab's reload), or refuses to store. */
function fakeSessionStorage(full = false): Map<string, string> {
  const items = new Map<string, string>();
  vi.stubGlobal('sessionStorage', {
    getItem: (k: string) => items.get(k) ?? null,
    setItem: (k: string, v: string) => {
      if (full) throw new DOMException('full', 'QuotaExceededError');
      items.set(k, v);
    },
    removeItem: (k: string) => {
      items.delete(k);
    },
  });
  return items;
}

/** The page's modules as a fresh page load sees them. */
async function page() {
  vi.resetModules();
  const checkpoint = await import('../../web/src/model/checkpoint.js');
  const models = await import('../../web/src/playground/explore-models.js');
  const trained = await import('../../web/src/model/trained-models.js');
  return { ...checkpoint, ...models, ...trained };
}

beforeEach(() => {
  fakeSessionStorage();
});
afterEach(() => {
  vi.unstubAllGlobals();
});

describe('the Explore page\u2019s trained models', () => {
  it('lists the shipped checkpoints and resolves one, with its probe example as the first input', async () => {
    const requested = serveCheckpoints();
    const { setCheckpointBase, modelChoices, exploreModel } = await page();
    setCheckpointBase(BASE);
    expect(await modelChoices()).toEqual([
      { id: 'sort', label: 'Sort 8 symbols' },
      { id: 'reverse', label: 'Reverse 8 symbols' },
      { id: 'induction', label: 'Induction: repeat a random sequence' },
    ]);
    const model = await exploreModel('reverse');
    expect(model).toMatchObject({
      id: 'reverse',
      label: 'Reverse 8 symbols',
      characters: false,
      example: '3 7 1 1 1 0 5 6 | 6 5 0 1 1 1 7 3',
      about: expect.stringMatching(/reverse diagonal\..*Reached 100\.0% held-out sequence accuracy at step 100\./),
    });
    expect(model.ref.key).toBe('checkpoint:reverse');
    expect(model.ref.settings).toBe('task=reverse&dModel=32&ffnDim=64');
    expect(Buffer.from(model.ref.weights).equals(readFileSync(new URL('reverse.safetensors', folder)))).toBe(true);
    expect(await exploreModel('reverse')).toBe(model); // kept: no second download
    expect(requested).toEqual(['index.json', 'reverse.json', 'reverse.safetensors']);
  });

  it('names an unknown id and what there is instead, and tries it again next time', async () => {
    serveCheckpoints();
    const { setCheckpointBase, exploreModel } = await page();
    setCheckpointBase(BASE);
    await expect(exploreModel('juggle')).rejects.toThrow(
      'There is no model \u2018juggle\u2019 here; the trained models are \u2018sort\u2019, \u2018reverse\u2019, \u2018induction\u2019, ' +
        '\u2018trained\u2019 (yours, from the Train view).',
    );
    await expect(exploreModel('https://elsewhere.test/x.json')).rejects.toThrow(/There is no model/); // ids only, no URLs
    await expect(exploreModel('trained')).rejects.toThrow(/No model was handed over from the Train view in this tab/);
  });

  it('says so when the page has no checkpoint folder', async () => {
    const { exploreModel, modelChoices } = await page();
    expect(await modelChoices()).toEqual([]);
    await expect(exploreModel('sort')).rejects.toThrow(
      'There is no model \u2018sort\u2019 here: this page has no shipped trained models, ' +
        'only \u2018trained\u2019 (yours, from the Train view).',
    );
  });

  it('offers the Train view\u2019s model, keeps it over a reload, and tells offers apart', async () => {
    const weights = new Uint8Array(readFileSync(new URL('sort.safetensors', folder)));
    const settings = 'task=text&words=0&text=ab+ba';
    let modules = await page();
    expect(modules.trainedModel()).toBeNull();
    expect(modules.offerTrainedModel({ label: 'text, step 40', settings, weights, example: 'ab a' })).toBe(true);
    const offered = modules.trainedModel()!;
    expect(offered.key).toMatch(new RegExp(`^[0-9a-f]{8}-${weights.length}$`));
    expect(await modules.modelChoices()).toEqual([{ id: 'trained', label: 'Your trained model (text, step 40)' }]);

    modules = await page(); // a reload of the tab
    const reloaded = modules.trainedModel()!;
    expect(reloaded).toEqual(offered);
    expect(Buffer.from(reloaded.weights).equals(Buffer.from(weights))).toBe(true);
    const model = await modules.exploreModel('trained');
    expect(model).toMatchObject({
      id: 'trained',
      label: 'Your trained model (text, step 40)',
      characters: true,
      example: 'ab a',
    });
    expect(model.ref).toEqual({ key: `trained:${offered.key}`, settings, weights: reloaded.weights });

    const changed = weights.slice();
    changed[5000] ^= 1;
    modules.offerTrainedModel({ label: 'text, step 41', settings, weights: changed });
    expect(modules.trainedModel()!.key).not.toBe(offered.key);
    expect(modules.trainedModel()!.example).toBe('');
  });

  it('keeps an offer in memory when sessionStorage refuses it', async () => {
    const items = fakeSessionStorage(true);
    const modules = await page();
    const weights = new Uint8Array([1, 2, 3]);
    expect(modules.offerTrainedModel({ label: 'x', settings: 'task=copy', weights })).toBe(false);
    expect(modules.trainedModel()).toMatchObject({ label: 'x', settings: 'task=copy', weights });
    expect(items.size).toBe(0);
    expect((await page()).trainedModel()).toBeNull(); // nothing to reload
  });
});
