// The import rules of the playground's front end (web/src), checked by `npm run lint:imports`
// and by tests/web/import-rules.test.ts. The folders, lowest first:
//   model/     pure view models (no DOM, no Lit): nothing else of web/src
//   settings/  the settings tables and their URL hash form: model/ only
//   ui/        generic elements and helpers (heatmap, legend, curves, drawer, colours, exports): model/ only
//   workers/   the engine and training workers, their clients and watchdog: model/ and settings/
//   playground/, train/, pretrained/, generate/, heads/   features: ui/, model/, settings/, workers/, never each other
//   app/, element/   the entries (the site's pages; the <attention-playground> element, the
//              package's ./element): like the features, and the one exception: they compose
//              the features, so they may import each feature's entry element file
//              (FEATURE_ENTRIES; app/ also the element's), nothing else of a feature.
// Also: no import cycles, no node: builtins, and every import resolves.
/** The files that define a feature's element: what an entry may import of a feature. */
const FEATURE_ENTRIES = [
  'playground/playground\\.ts',
  'train/train-view\\.ts',
  'pretrained/pretrained-loader\\.ts',
  'heads/heads-view\\.ts',
  'element/attention-playground\\.ts',
  'generate/generate-panel\\.ts',
  'generate/embed-part\\.ts',
];
const SRC = '^web/src/';
const FEATURES = '(app|playground|train|pretrained|generate|heads|element)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles.',
      from: { path: SRC },
      to: { circular: true },
    },
    {
      name: 'no-node-builtins',
      severity: 'error',
      comment: 'web/src runs in browsers: no node: builtins (fs, path, url, ...).',
      from: { path: SRC },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'not-unresolvable',
      severity: 'error',
      comment:
        'Every import resolves (a rule cannot check an import it cannot follow). The engine package resolves to dist/ once built.',
      from: { path: SRC },
      to: { couldNotResolve: true, pathNot: '^attention-playground(/|$)' },
    },
    {
      name: 'model-imports-only-model',
      severity: 'error',
      comment: 'model/ is pure: it imports nothing else of web/src (the engine package and d3 are fine).',
      from: { path: `${SRC}model/` },
      to: { path: SRC, pathNot: `${SRC}model/` },
    },
    {
      name: 'model-without-lit',
      severity: 'error',
      comment: 'model/ has no Lit (and no DOM): its view models are unit-tested in Node.',
      from: { path: `${SRC}model/` },
      to: { path: '(^|/)node_modules/(lit|lit-html|lit-element|@lit)/' },
    },
    {
      name: 'settings-imports-only-model',
      severity: 'error',
      comment: 'settings/ (the settings tables, the hash state) builds on model/ only.',
      from: { path: `${SRC}settings/` },
      to: { path: SRC, pathNot: `${SRC}(settings|model)/` },
    },
    {
      name: 'ui-imports-only-model',
      severity: 'error',
      comment: 'ui/ is generic: elements and helpers with no feature logic, on model/ only.',
      from: { path: `${SRC}ui/` },
      to: { path: SRC, pathNot: `${SRC}(ui|model)/` },
    },
    {
      name: 'workers-import-only-model-and-settings',
      severity: 'error',
      comment: 'workers/ (engine and training workers, their clients) builds on model/ and settings/ only.',
      from: { path: `${SRC}workers/` },
      to: { path: SRC, pathNot: `${SRC}(workers|model|settings)/` },
    },
    {
      name: 'features-not-each-other',
      severity: 'error',
      comment: 'A feature never imports another feature: what two features share belongs in model/ or ui/.',
      from: { path: `${SRC}(playground|train|pretrained|generate|heads)/` },
      to: { path: `${SRC}${FEATURES}/`, pathNot: `${SRC}$1/` },
    },
    {
      name: 'entries-import-feature-entries-only',
      severity: 'error',
      comment:
        "app/ and element/ compose the features: of a feature they import its entry element file only (and the element never imports the site's pages).",
      from: { path: `${SRC}(app|element)/` },
      to: { path: `${SRC}${FEATURES}/`, pathNot: [`${SRC}$1/`, `${SRC}(${FEATURE_ENTRIES.join('|')})$`] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|dist-web)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: require('node:path').join(__dirname, 'web/tsconfig.json') },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
