// A minimal static file server on 127.0.0.1 for browser tests: serves one folder
// with the right content types (application/wasm included), and, with `isolated`, the
// headers that make pages cross-origin isolated (as the playground's own servers send
// them: shared memory, so the threaded engine); with `headHtml`, that HTML goes first into
// every page's <head> (e.g. a script that records errors before the page's own scripts run).
// Returns its URL and a close function.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { createReadStream, readFileSync } from 'node:fs';

const ISOLATION = JSON.parse(readFileSync(new URL('../../web/cross-origin-isolation.json', import.meta.url), 'utf8'));

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

export async function serveDirectory(root, { isolated = false, headHtml = '' } = {}) {
  const server = createServer(async (request, response) => {
    try {
      const path = decodeURIComponent(new URL(request.url, 'http://x').pathname);
      let file = normalize(join(root, path));
      if (file !== root && !file.startsWith(root.endsWith(sep) ? root : root + sep)) throw new Error('outside root');
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const headers = {
        'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
        ...(isolated ? ISOLATION : {}),
      };
      if (!(headHtml && extname(file) === '.html')) {
        // Streamed: a checkpoint may be larger than readFile's 2 GiB (Llama 3.2 1B's 2.5 GB file).
        const { size } = await stat(file);
        const body = createReadStream(file);
        await new Promise((resolve, reject) => body.once('open', resolve).once('error', reject));
        response.writeHead(200, { ...headers, 'content-length': size });
        body.once('error', () => response.destroy()).pipe(response);
        return;
      }
      const html = (await readFile(file)).toString('utf8');
      const head = /<head(\s[^>]*)?>/i; // not <header>
      response.writeHead(200, headers);
      response.end(head.test(html) ? html.replace(head, (tag) => tag + headHtml) : headHtml + html);
    } catch {
      response.writeHead(404, { 'content-type': 'text/plain' });
      response.end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}/`, close: () => new Promise((resolve) => server.close(resolve)) };
}
