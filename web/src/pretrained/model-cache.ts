// A real model's files from the hub, kept in this browser's Cache Storage (caches.open), so
// that a second visit reads them from the disk instead of downloading them again: what the
// hub says they weigh (HEAD), whether this browser holds all of them, the download with
// bytes and cancel (each file streams into the cache as it arrives; a broken or cancelled
// download stores nothing of that file), and forgetting them. The files come back as File
// objects (backed by the cache, not copied into memory) for engine.loadPretrained({ files }).
import { hubFileUrl, type RealModel } from '../model/pretrained-models.js';
import { unreachable } from './network-failure.js';

/** The Cache Storage cache this page keeps model files in. */
export const MODEL_CACHE = 'attention-playground-models';

export interface DownloadProgress {
  file: string;
  loaded: number;
  total: number | null;
}

export interface Downloaded {
  files: File[];
  /** Every file came from this browser's cache (nothing was downloaded). */
  fromCache: boolean;
  /** Why the files could not be kept in the cache ('' when they were). */
  notKept: string;
}

/** A failed download, said for people; `cancelled` when the person stopped it. */
export class DownloadError extends Error {
  constructor(
    message: string,
    readonly cancelled = false,
  ) {
    super(message);
  }
}

const cancelled = () => new DownloadError('The download was cancelled; nothing was loaded.', true);

async function openCache(): Promise<Cache | null> {
  try {
    return typeof caches === 'undefined' ? null : await caches.open(MODEL_CACHE);
  } catch {
    return null; // no Cache Storage here (not a secure context, or storage refused)
  }
}

/** Whether this browser can keep models (Cache Storage is there and opens). */
export async function canKeepModels(): Promise<boolean> {
  return (await openCache()) !== null;
}

const urlOf = (baseUrl: string, model: RealModel, file: string) =>
  hubFileUrl(new URL(baseUrl, location.href).href, model.repo, file);

/** The bytes of the model's files this browser keeps, or null unless it keeps every one of them. */
export async function cachedBytes(baseUrl: string, model: RealModel): Promise<number | null> {
  const cache = await openCache();
  if (!cache) return null;
  let total = 0;
  for (const file of model.files) {
    const hit = await cache.match(urlOf(baseUrl, model, file));
    if (!hit) return null;
    total += (await hit.blob()).size;
  }
  return total;
}

/** The model's size as the hub reports it (HEAD, Content-Length of each file), or null when it does not say. */
export async function hubBytes(baseUrl: string, model: RealModel, signal: AbortSignal): Promise<number | null> {
  const sizes = await Promise.all(
    model.files.map(async (file) => {
      try {
        const response = await fetch(urlOf(baseUrl, model, file), { method: 'HEAD', signal });
        const length = Number(response.headers.get('content-length'));
        return response.ok && length > 0 ? length : null;
      } catch {
        if (signal.aborted) throw cancelled();
        return null;
      }
    }),
  );
  return sizes.every((s) => s !== null) ? sizes.reduce((a, b) => a + b, 0) : null;
}

/** Forgets the model's files in this browser's cache. */
export async function forget(baseUrl: string, model: RealModel): Promise<void> {
  const cache = await openCache();
  if (!cache) return;
  for (const file of model.files) await cache.delete(urlOf(baseUrl, model, file));
}

/** Counts a body's bytes as they arrive; the chunks kept when `keep` (no cache to hold them). */
async function readAll(
  body: ReadableStream<Uint8Array<ArrayBuffer>>,
  keep: boolean,
  progress: (loaded: number) => void,
): Promise<Uint8Array<ArrayBuffer>[]> {
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let loaded = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return chunks;
    if (keep) chunks.push(value);
    loaded += value.length;
    progress(loaded);
  }
}

/** One file from the hub: into the cache as it streams when there is one, else into memory. */
async function downloadFile(
  url: string,
  file: string,
  cache: Cache | null,
  onProgress: (p: DownloadProgress) => void,
  signal: AbortSignal,
): Promise<Blob> {
  let response: Response;
  try {
    response = await fetch(url, { signal });
  } catch (error) {
    if (signal.aborted) throw cancelled();
    throw new DownloadError(unreachable(url, (error as Error).message));
  }
  if (!response.ok || !response.body)
    throw new DownloadError(
      response.status === 404
        ? `The hub has no ${file} at ${url}.`
        : `Could not download ${url}: HTTP ${response.status}.`,
    );
  const length = Number(response.headers.get('content-length'));
  const total = length > 0 ? length : null;
  const progress = (loaded: number) => onProgress({ file, loaded, total });
  try {
    if (!cache) return new Blob(await readAll(response.body, true, progress));
    const [toCache, toCount] = response.body.tee();
    const stored = cache.put(url, new Response(toCache, { headers: { 'content-type': 'application/octet-stream' } }));
    const [put, counted] = await Promise.allSettled([stored, readAll(toCount, false, progress)]);
    if (counted.status === 'rejected') throw counted.reason;
    const hit = put.status === 'fulfilled' ? await cache.match(url) : undefined;
    if (!hit) throw new CacheRefused(put.status === 'rejected' ? (put.reason as Error).message : 'it was not kept');
    return await hit.blob();
  } catch (error) {
    if (signal.aborted) throw cancelled();
    if (error instanceof CacheRefused) throw error;
    throw new DownloadError(`The download of ${file} broke off: ${(error as Error).message}.`);
  }
}

/** The cache did not keep a file that downloaded whole (a full disk, say). */
class CacheRefused extends Error {}

/**
 * The model's files: each from this browser's cache when it has it, else downloaded (and kept). When the cache
 * refuses a file (full, say), that file is downloaded again into memory and `notKept` says why.
 */
export async function download(
  baseUrl: string,
  model: RealModel,
  onProgress: (p: DownloadProgress) => void,
  signal: AbortSignal,
): Promise<Downloaded> {
  let cache = await openCache();
  let notKept = cache ? '' : 'this browser offers no Cache Storage here';
  let fromCache = true;
  const files: File[] = [];
  for (const file of model.files) {
    if (signal.aborted) throw cancelled();
    const url = urlOf(baseUrl, model, file);
    const hit = await cache?.match(url);
    let blob: Blob;
    if (hit) {
      blob = await hit.blob();
      onProgress({ file, loaded: blob.size, total: blob.size });
    } else {
      fromCache = false;
      try {
        blob = await downloadFile(url, file, cache, onProgress, signal);
      } catch (error) {
        if (!(error instanceof CacheRefused) || !cache) throw error;
        // This load goes on in memory (the file downloads again), and says it was not kept.
        notKept = `the cache did not keep ${file}: ${error.message}`;
        await cache.delete(url).catch(() => false);
        cache = null;
        blob = await downloadFile(url, file, null, onProgress, signal);
      }
    }
    files.push(new File([blob], file));
  }
  return { files, fromCache, notKept };
}
