// Every relative link in the manual (README.md, CONTRIBUTING.md, docs/**/*.md) points at a
// file that exists, and every #anchor names a heading of its target the way GitHub slugs
// headings. External links (http:, https:, mailto:) are not fetched: the tests run offline.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function markdownFiles(): string[] {
  const docs: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.md')) docs.push(path);
    }
  };
  walk(join(ROOT, 'docs'));
  return [join(ROOT, 'README.md'), join(ROOT, 'CONTRIBUTING.md'), ...docs.sort()];
}

/** The lines outside fenced code blocks (fences may be indented, inside list items). */
function outsideFences(text: string): string {
  let fence: string | null = null;
  const kept: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*(`{3,}|~{3,})/.exec(line);
    if (m && fence === null) {
      fence = m[1];
      continue;
    }
    if (m && fence !== null && m[1].startsWith(fence[0]) && m[1].length >= fence.length && line.trim() === m[1]) {
      fence = null;
      continue;
    }
    if (fence === null) kept.push(line);
  }
  return kept.join('\n');
}

/** The text without fenced code blocks and inline code, whose brackets are not links. */
function prose(text: string): string {
  return outsideFences(text).replace(/`[^`\n]*`/g, '');
}

/** Markdown link and image targets, and <a href> / <img src> in HTML. */
export function linkTargets(text: string): string[] {
  const body = prose(text);
  const targets: string[] = [];
  for (const m of body.matchAll(/!?\[(?:[^\]\n]|\][^(])*?\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g))
    targets.push(m[1]);
  for (const m of body.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)) targets.push(m[1]); // reference definitions
  for (const m of body.matchAll(/<(?:a|img)\s[^>]*?(?:href|src)="([^"]+)"/g)) targets.push(m[1]);
  return targets;
}

/**
 * GitHub's heading anchors (as github-slugger makes them): the heading's text as rendered
 * (code spans, emphasis and link syntax gone), lower-cased, with every character that is not
 * a letter, mark, number, underscore, space or hyphen removed, spaces turned into hyphens;
 * a repeated slug gets -1, -2, ...
 */
export function headingSlugs(text: string): Set<string> {
  const slugs = new Set<string>();
  const seen = new Map<string, number>();
  for (const m of outsideFences(text).matchAll(/^ {0,3}#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const rendered = m[1]
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // links and images keep their text
      .replace(/<[^>]+>/g, '') // inline HTML tags
      .replace(/`([^`]*)`/g, '$1') // code spans keep their text
      .replace(/(\*\*|__|\*)/g, ''); // emphasis markers (a single _ stays: d_model)
    const base = rendered
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count === 0 ? base : `${base}-${count}`);
  }
  return slugs;
}

/** Problems with the links of one file: targets that do not exist, anchors that match no heading. */
export function linkProblems(
  file: string,
  text: string,
  read = (path: string) => readFileSync(path, 'utf8'),
  exists = existsSync,
): string[] {
  const problems: string[] = [];
  for (const target of linkTargets(text)) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto: ...: not checked offline
    const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
    const path = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
    if (pathPart !== '' && !exists(path)) {
      problems.push(`${target}: ${relative(ROOT, path)} does not exist`);
      continue;
    }
    if (anchor === undefined) continue;
    if (!path.endsWith('.md')) {
      problems.push(`${target}: an anchor into a file that is not Markdown`);
      continue;
    }
    const slugs = headingSlugs(path === file ? text : read(path));
    if (!slugs.has(decodeURIComponent(anchor)))
      problems.push(`${target}: no heading #${anchor} in ${relative(ROOT, path)}`);
  }
  return problems;
}

describe('the checker itself', () => {
  test('slugs headings as GitHub does', () => {
    const slugs = headingSlugs(
      '# The Train view (`#train`)\n## Layers × heads\n## Notes\n## Notes\n```\n# not a heading\n```\n## d_model, **bold** & [a link](x.md)',
    );
    expect([...slugs]).toEqual(['the-train-view-train', 'layers--heads', 'notes', 'notes-1', 'd_model-bold--a-link']);
  });
  test('finds a missing file and a missing anchor, and ignores code and external links', () => {
    const file = join(ROOT, 'docs', 'example.md');
    const text =
      '# Top\n[ok](#top) [bad anchor](#nowhere) [missing](nope.md) [web](https://example.com)\n`[code](nope.md)`\n';
    expect(linkProblems(file, text)).toEqual([
      '#nowhere: no heading #nowhere in docs/example.md',
      'nope.md: docs/nope.md does not exist',
    ]);
  });
});

describe('links in the manual', () => {
  const files = markdownFiles();
  test('there are links to check (the parser finds them)', () => {
    const count = files.filter(existsSync).reduce((n, file) => n + linkTargets(readFileSync(file, 'utf8')).length, 0);
    expect(count).toBeGreaterThan(50);
    expect(linkTargets(readFileSync(join(ROOT, 'README.md'), 'utf8'))).toContain('docs/images/playground.png');
  });
  for (const file of files) {
    test(relative(ROOT, file), () => {
      expect(existsSync(file), `${relative(ROOT, file)} exists`).toBe(true);
      expect(linkProblems(file, readFileSync(file, 'utf8'))).toEqual([]);
    });
  }
});
