// Starting a worker whose engine might never load. In Firefox ESR, on a cross-origin
// isolated page, a worker that loads the threaded engine now and then never returns from
// the engine's start-up (emcc 3.1.6's pthread pool; seen with ten workers starting at once
// on a loaded machine). Its event loop is blocked then, so it cannot time itself out. The
// page asks each new worker `ready()` (resolved once its engine has loaded, or failed to);
// a worker that has not answered by the deadline is ended and replaced by one that loads
// the single-threaded engine, which has no pthread pool. Calls made meanwhile wait for the
// worker that answers.
import * as Comlink from 'comlink';

/** What a watched worker exposes besides its own API. */
export interface Readiness {
  /** Resolves once the worker's engine has loaded (or failed to: its calls then report why); answers its build. */
  ready(): Promise<string>;
}

export interface StartedWorker {
  endpoint: Comlink.Endpoint;
  terminate(): void;
}

/** How long a worker may take to load its engine before it counts as hung. Generous: a cold, throttled start takes seconds. */
export const READY_DEADLINE_MS = 20_000;

/** The Worker name that asks a worker for the single-threaded engine. */
export const SINGLE_THREADED = 'single-threaded';

export interface Watched<T> {
  /** The worker that answered: its API. */
  remote: Promise<Comlink.Remote<T>>;
  /** Ends whichever worker is current (at once, or once the start has settled). */
  terminate(): void;
}

/**
 * Starts a worker with `start(threaded = true)`; if it does not answer `ready()` within
 * `deadlineMs`, ends it and starts `start(false)` instead (whose answer is awaited without a deadline).
 */
export function startWatched<T extends Readiness>(
  start: (threaded: boolean) => StartedWorker,
  deadlineMs = READY_DEADLINE_MS,
): Watched<T> {
  let current = start(true);
  let ended = false;
  const remote = (async () => {
    const first = Comlink.wrap<T>(current.endpoint);
    let timer: ReturnType<typeof setTimeout> | undefined;
    const answered = await Promise.race([
      (first.ready() as Promise<string>).then(
        () => true,
        () => true,
      ),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), deadlineMs);
      }),
    ]);
    clearTimeout(timer);
    if (answered || ended) return first;
    current.terminate();
    current = start(false);
    return Comlink.wrap<T>(current.endpoint);
  })();
  return {
    remote,
    terminate() {
      ended = true; // no replacement starts after this
      current.terminate();
    },
  };
}

/**
 * A stand-in for the remote API whose every method waits for the worker that answers,
 * then calls it: what callers hold while the watchdog decides.
 */
export function forwardTo<T>(remote: Promise<Comlink.Remote<T>>): Comlink.Remote<T> {
  return new Proxy(
    {},
    {
      get: (_, name) =>
        name === 'then'
          ? undefined
          : async (...args: unknown[]) =>
              ((await remote) as unknown as Record<string | symbol, (...a: unknown[]) => unknown>)[name](...args),
    },
  ) as Comlink.Remote<T>;
}
