// Prints the name@version list of a package-lock (or node_modules/.package-lock.json),
// so setup.sh can tell whether node_modules matches the lock without reinstalling.
import { readFileSync } from 'node:fs';

const lock = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const entries = Object.entries(lock.packages ?? {})
  .filter(([path]) => path.startsWith('node_modules/'))
  .map(([path, info]) => `${path}@${info.version}`)
  .sort();
console.log(entries.join('\n'));
