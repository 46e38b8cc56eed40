// Post-link step of the threaded engine: emcc 3.1.6 starts its pthread workers as classic
// workers; its ES6 worker script only uses import(), so start them as module workers
// ({ type: 'module' }), which bundlers such as Vite can then bundle. Node's worker_threads
// ignores the option. Fails loudly if emcc's output no longer has the expected calls.
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';

const file = process.argv[2];
const name = basename(file, '.mjs');
let text = readFileSync(file, 'utf8');
const calls = [
  [
    `new Worker(new URL("${name}.worker.js",import.meta.url))`,
    `new Worker(new URL("${name}.worker.js",import.meta.url),{type:"module"})`,
  ],
  ['new Worker(pthreadMainJs)', 'new Worker(pthreadMainJs,{type:"module"})'],
];
for (const [from, to] of calls) {
  if (!text.includes(from)) {
    if (text.includes(to)) continue; // already patched (an incremental rebuild)
    console.error(`module-workers: '${from}' not found in ${file}`);
    process.exit(1);
  }
  text = text.split(from).join(to);
}
writeFileSync(file, text);
