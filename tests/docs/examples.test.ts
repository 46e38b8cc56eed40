// The README's npm example runs as printed against the built package (dist/), and prints
// what its last comment says.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

const ROOT = new URL('../../', import.meta.url);
const readme = readFileSync(new URL('README.md', ROOT), 'utf8');
const block = (lang: string) =>
  [...readme.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]);

describe('README examples', () => {
  test('the npm example runs and prints what it says', () => {
    const [code] = block('js');
    expect(code).toContain("from 'attention-playground'");
    // Inside the repository, Node resolves the package's own name to its exports (dist/).
    mkdirSync(new URL('test-output/', ROOT), { recursive: true });
    const file = new URL('test-output/readme-example.mjs', ROOT);
    writeFileSync(file, code);
    const printed = execFileSync(process.execPath, [file.pathname], { encoding: 'utf8' }).trim();
    const promised = /console\.log\([^)]*\);\s*\/\/\s*(.+)$/m.exec(code)?.[1].trim();
    expect(promised, 'the example says what it prints').toBeTruthy();
    expect(printed).toBe(promised);
  });
});
