// The front end's import rules (.dependency-cruiser.cjs, `npm run lint:imports`), through
// dependency-cruiser's own API: the real web/src keeps them, and a small tree that breaks each
// rule once is caught, rule by rule (so a rule that could never fire would fail here).
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { cruise, type ICruiseOptions, type ICruiseResult } from 'dependency-cruiser';
import extractDepcruiseOptions from 'dependency-cruiser/config-utl/extract-depcruise-options';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** Inside the repository, so that the fixture's `import 'lit'` finds node_modules as the real files do. */
const FIXTURE = join(ROOT, 'test-output/import-rules-fixture');

async function check(baseDir: string): Promise<ICruiseResult> {
  const options: ICruiseOptions = {
    ...(await extractDepcruiseOptions(join(ROOT, '.dependency-cruiser.cjs'))),
    baseDir,
  };
  const { output } = await cruise(['web/src'], options);
  return output as ICruiseResult;
}

/** Each violation as 'rule: from -> to' (a cycle is named once, by one of its steps; a package by its path under node_modules). */
const listed = (result: ICruiseResult) =>
  result.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to.replace(/^(\.\.\/)+/, '')}`).sort();

/** A file of the fixture, importing `imports` (paths from web/src, or package names). */
function file(path: string, imports: string[] = []) {
  const full = join(FIXTURE, 'web/src', path);
  mkdirSync(dirname(full), { recursive: true });
  const specifier = (to: string) =>
    to.includes('/') && !to.startsWith('node:')
      ? `${'../'.repeat(path.split('/').length - 1)}${to.replace(/\.ts$/, '.js')}`
      : to;
  writeFileSync(
    full,
    `${imports.map((to) => `import '${specifier(to)}';`).join('\n')}\nexport const name = '${path}';\n`,
  );
}

describe('import rules', () => {
  afterAll(() => rmSync(FIXTURE, { recursive: true, force: true }));

  it('hold for web/src', async () => {
    const result = await check(ROOT);
    expect(listed(result)).toEqual([]);
    expect(result.summary.error).toBe(0);
    // The cruise saw the tree (every folder), and followed its imports.
    const folders = new Set(result.modules.map((m) => /^web\/src\/([^/]+)\//.exec(m.source)?.[1]).filter(Boolean));
    expect([...folders].sort()).toEqual([
      'app',
      'element',
      'generate',
      'heads',
      'model',
      'playground',
      'pretrained',
      'settings',
      'train',
      'ui',
      'workers',
    ]);
    expect(result.summary.totalDependenciesCruised).toBeGreaterThan(250);
  }, 60_000);

  it('leave model/ loadable in Node, with no DOM', async () => {
    const files = readdirSync(join(ROOT, 'web/src/model')).filter((f) => f.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(15);
    expect(typeof (globalThis as { document?: unknown }).document).toBe('undefined');
    for (const f of files)
      await expect(import(`../../web/src/model/${f.replace(/\.ts$/, '.js')}`), f).resolves.toBeTypeOf('object');
  });

  it('report each kind of breach, and let the entries import the features\u2019 entry files', async () => {
    rmSync(FIXTURE, { recursive: true, force: true });
    file('model/words.ts');
    file('model/colors.ts', ['ui/heatmap.ts']); // model -> ui
    file('model/view.ts', ['lit']); // model -> Lit
    file('model/a.ts', ['model/b.ts']); // a cycle
    file('model/b.ts', ['model/a.ts']);
    file('settings/settings.ts', ['model/words.ts', 'workers/client.ts']); // settings -> workers
    file('ui/heatmap.ts', ['lit', 'model/words.ts', 'settings/settings.ts']); // ui -> settings
    file('workers/client.ts', ['model/words.ts', 'train/train-report.ts']); // workers -> a feature
    file('playground/playground.ts', ['ui/heatmap.ts', 'workers/client.ts', 'train/train-report.ts']); // feature -> feature
    file('train/train-view.ts', ['train/train-report.ts']);
    file('train/train-report.ts', ['node:fs']); // a node: builtin
    file('pretrained/pretrained-loader.ts');
    file('heads/heads-view.ts', ['heads/heads-export.ts']);
    file('heads/heads-export.ts', ['playground/playground.ts']); // feature -> feature
    file('element/attention-playground.ts', ['playground/playground.ts', 'train/train-view.ts']);
    file('element/index.ts', ['element/attention-playground.ts', 'app/main.ts']); // element -> app
    // The entries: a feature's entry element file is allowed, anything else of a feature is not.
    file('app/main.ts', [
      'playground/playground.ts',
      'train/train-view.ts',
      'pretrained/pretrained-loader.ts',
      'heads/heads-view.ts',
      'element/attention-playground.ts',
      'train/train-report.ts',
      'heads/heads-export.ts',
    ]);
    const result = await check(FIXTURE);
    expect(listed(result)).toEqual([
      'entries-import-feature-entries-only: web/src/app/main.ts -> web/src/heads/heads-export.ts',
      'entries-import-feature-entries-only: web/src/app/main.ts -> web/src/train/train-report.ts',
      'entries-import-feature-entries-only: web/src/element/index.ts -> web/src/app/main.ts',
      'features-not-each-other: web/src/heads/heads-export.ts -> web/src/playground/playground.ts',
      'features-not-each-other: web/src/playground/playground.ts -> web/src/train/train-report.ts',
      'model-imports-only-model: web/src/model/colors.ts -> web/src/ui/heatmap.ts',
      'model-without-lit: web/src/model/view.ts -> node_modules/lit/development/index.d.ts',
      'no-circular: web/src/model/a.ts -> web/src/model/b.ts',
      'no-node-builtins: web/src/train/train-report.ts -> fs',
      'settings-imports-only-model: web/src/settings/settings.ts -> web/src/workers/client.ts',
      'ui-imports-only-model: web/src/ui/heatmap.ts -> web/src/settings/settings.ts',
      'workers-import-only-model-and-settings: web/src/workers/client.ts -> web/src/train/train-report.ts',
    ]);
  }, 60_000);
});
