// The one-tag element's on-demand generation part, dist/attention-playground-generate.js
// (GENERATE_SCRIPT, a classic script built by vite.element.config.ts, so a file:// page
// loads it too): the Generate feature's part for embeds (generate/embed-part.ts: the panel,
// its attributes, the model choice, the link) and the worker side of generation
// (workers/generation-run.ts), which the element runs on its full engine with the models
// that engine holds. Its generic elements (heatmap, line view) are defined only where the
// element's bundle has not defined them already (ui/define.ts).
import { GENERATE_PART } from '../generate/embed-part.js';
import { GenerationRuns } from '../workers/generation-run.js';
import { GENERATE_GLOBAL } from './generate-script.js';

(globalThis as Record<string, unknown>)[GENERATE_GLOBAL] = { ...GENERATE_PART, GenerationRuns };
