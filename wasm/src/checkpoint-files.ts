// Where a checkpoint's files come from: files the user gave (a FileList, File[] or a
// { name: bytes } map) or a model hub ({baseUrl}/{repo}/resolve/main/{file}). Each file
// is read only when the loader asks for it, so at most one weights file is held at a time.
import { AttentionError, describeValue } from './errors.js';

export type CheckpointFile = Uint8Array | ArrayBuffer | Blob;
/** A FileList, an array of File, or { 'config.json': bytes, ... }; folders in names are ignored. */
export type CheckpointFiles = ArrayLike<File> | Iterable<File> | Record<string, CheckpointFile>;

export interface LoadProgress {
  /** The file being read, e.g. 'model.safetensors'. */
  file: string;
  /** Bytes of this file read so far. */
  loaded: number;
  /** Its size, when known (a download without Content-Length: null). */
  total: number | null;
}

export interface FileSource {
  /** For messages: where the files come from. */
  readonly where: string;
  /** The file's bytes, or null when the source has no such file. */
  read(name: string): Promise<Uint8Array | null>;
}

export const aborted = () =>
  new AttentionError('loading the model was cancelled', { code: 'aborted', field: 'signal' });

export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw aborted();
}

const baseName = (name: string) => name.slice(Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\')) + 1);

function isFileLike(value: unknown): value is Blob & { name: string } {
  return typeof Blob !== 'undefined' && value instanceof Blob && typeof (value as File).name === 'string';
}

/** The user's files, by base name. */
export function filesSource(files: unknown, onProgress?: (p: LoadProgress) => void, signal?: AbortSignal): FileSource {
  const byName = new Map<string, CheckpointFile>();
  const add = (name: string, value: unknown) => {
    const key = baseName(name);
    if (!(
      value instanceof Uint8Array ||
      value instanceof ArrayBuffer ||
      (typeof Blob !== 'undefined' && value instanceof Blob)
    ))
      throw new AttentionError(
        `files['${name}'] must be a Uint8Array, ArrayBuffer or File, got ${describeValue(value)}`,
        { field: 'files', value: name },
      );
    if (byName.has(key)) throw new AttentionError(`two files are named '${key}'`, { field: 'files', value: key });
    byName.set(key, value);
  };
  if (typeof files !== 'object' || files === null)
    throw new AttentionError(
      `files must be a FileList, an array of File or a { name: bytes } map, got ${describeValue(files)}`,
      { field: 'files', value: describeValue(files) },
    );
  const list =
    Symbol.iterator in files
      ? Array.from(files as Iterable<unknown>)
      : typeof (files as ArrayLike<unknown>).length === 'number'
        ? Array.from(files as ArrayLike<unknown>)
        : null;
  if (list) {
    for (const file of list) {
      if (!isFileLike(file))
        throw new AttentionError(`each of files must be a File, got ${describeValue(file)}`, { field: 'files' });
      add(file.name, file);
    }
  } else {
    for (const [name, value] of Object.entries(files)) add(name, value);
  }
  return {
    where: 'the files given',
    async read(name) {
      throwIfAborted(signal);
      const value = byName.get(name);
      if (value === undefined) return null;
      const bytes =
        value instanceof Uint8Array
          ? value
          : value instanceof ArrayBuffer
            ? new Uint8Array(value)
            : await readBlob(value, name);
      throwIfAborted(signal);
      onProgress?.({ file: name, loaded: bytes.length, total: bytes.length });
      return bytes;
    },
  };
}

// A File or Blob, read as a stream into one array of its size: Chromium's blob.arrayBuffer() fails
// (NotReadableError) on a file above 2 GiB, such as Llama 3.2 1B's 2.5 GB model.safetensors.
async function readBlob(blob: Blob, name: string): Promise<Uint8Array> {
  const bytes = new Uint8Array(blob.size);
  const reader = blob.stream().getReader();
  let at = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (at + value.length > bytes.length)
      throw new AttentionError(`${name} grew while it was read (${blob.size} bytes)`, { field: 'files', value: name });
    bytes.set(value, at);
    at += value.length;
  }
  if (at !== bytes.length)
    throw new AttentionError(`${name}: ${blob.size} bytes announced, ${at} read`, { field: 'files', value: name });
  return bytes;
}

const REPO = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)?$/;

/** A model hub in the Hugging Face layout: {baseUrl}/{repo}/resolve/main/{file}. */
export function hubSource(
  repo: unknown,
  baseUrl: unknown,
  onProgress?: (p: LoadProgress) => void,
  signal?: AbortSignal,
): FileSource {
  if (typeof repo !== 'string' || !REPO.test(repo) || repo.includes('..'))
    throw new AttentionError(`repo must be a model name like 'gpt2' or 'owner/name', got ${describeValue(repo)}`, {
      field: 'repo',
      value: describeValue(repo),
    });
  let base: URL;
  try {
    base = new URL(
      String(baseUrl ?? 'https://huggingface.co'),
      typeof location === 'undefined' ? undefined : location.href,
    );
  } catch {
    throw new AttentionError(`baseUrl is not a URL: ${describeValue(baseUrl)}`, {
      field: 'baseUrl',
      value: describeValue(baseUrl),
    });
  }
  const root = base.href.replace(/\/*$/, '/');
  return {
    where: `${root}${repo}`,
    async read(name) {
      throwIfAborted(signal);
      const url = `${root}${repo}/resolve/main/${name}`;
      let response: Response;
      try {
        response = await fetch(url, { signal });
      } catch (error) {
        if (signal?.aborted) throw aborted();
        throw new AttentionError(`could not download ${url}: ${(error as Error).message}`, {
          code: 'network',
          field: name,
        });
      }
      if (response.status === 404) return null;
      if (!response.ok)
        throw new AttentionError(`could not download ${url}: HTTP ${response.status}`, {
          code: 'network',
          field: name,
          value: response.status,
        });
      const length = Number(response.headers.get('content-length'));
      const total = Number.isFinite(length) && length > 0 ? length : null;
      return readBody(response, name, total, onProgress, signal);
    },
  };
}

async function readBody(
  response: Response,
  file: string,
  total: number | null,
  onProgress: ((p: LoadProgress) => void) | undefined,
  signal: AbortSignal | undefined,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let loaded = 0;
  try {
    const reader = response.body!.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      loaded += value.length;
      onProgress?.({ file, loaded, total });
    }
  } catch (error) {
    if (signal?.aborted) throw aborted();
    throw new AttentionError(`the download of ${file} broke off: ${(error as Error).message}`, {
      code: 'network',
      field: file,
    });
  }
  if (chunks.length === 1) return chunks[0];
  const bytes = new Uint8Array(loaded);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}
