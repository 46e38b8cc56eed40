// The worker watchdog (web/src/workers/worker-watchdog.ts) with Comlink over MessageChannels
// in Node: a worker that answers ready() is kept; one that never answers (as the threaded
// engine's start-up hangs in Firefox now and then) is ended at the deadline and replaced by
// a single-threaded one; calls made meanwhile reach the replacement; terminate() ends
// whichever is current and stops a replacement from starting.
import { afterEach, describe, expect, it } from 'vitest';
import * as Comlink from 'comlink';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { forwardTo, startWatched } from '../../web/src/workers/worker-watchdog.js';

interface Api {
  ready(): Promise<string>;
  add(a: number, b: number): Promise<number>;
}

const ports: MessagePort[] = [];
afterEach(() => {
  for (const port of ports.splice(0)) port.close();
});

/** A fake worker: `hangs` never answers ready() (and so never anything after). Records starts and ends. */
function fakeWorkers(hangs: (threaded: boolean) => boolean) {
  const log: string[] = [];
  const start = (threaded: boolean) => {
    const { port1, port2 } = new MessageChannel();
    ports.push(port1, port2);
    const name = threaded ? 'threaded' : 'single';
    log.push(`start ${name}`);
    Comlink.expose(
      {
        ready: () => (hangs(threaded) ? new Promise<string>(() => {}) : Promise.resolve(name)),
        add: async (a: number, b: number) => {
          log.push(`add on ${name}`);
          return a + b;
        },
      },
      port2 as unknown as Comlink.Endpoint,
    );
    return {
      endpoint: port1 as unknown as Comlink.Endpoint,
      terminate: () => {
        log.push(`end ${name}`);
        port1.close();
      },
    };
  };
  return { start, log };
}

describe('startWatched', () => {
  it('keeps a worker that answers in time', async () => {
    const { start, log } = fakeWorkers(() => false);
    const watched = startWatched<Api>(start, 200);
    const api = forwardTo<Api>(watched.remote);
    expect(await api.add(2, 3)).toBe(5);
    expect(log).toEqual(['start threaded', 'add on threaded']);
    watched.terminate();
    expect(log.at(-1)).toBe('end threaded');
  });

  it('replaces a worker that never answers by a single-threaded one; the calls made meanwhile reach it', async () => {
    const { start, log } = fakeWorkers((threaded) => threaded);
    const watched = startWatched<Api>(start, 100);
    const api = forwardTo<Api>(watched.remote);
    const sum = api.add(20, 22); // made before the deadline
    expect(await sum).toBe(42);
    expect(log).toEqual(['start threaded', 'end threaded', 'start single', 'add on single']);
    expect(await (await watched.remote).ready()).toBe('single');
  });

  it('starts no replacement once terminated', async () => {
    const { start, log } = fakeWorkers(() => true);
    const watched = startWatched<Api>(start, 50);
    watched.terminate();
    await watched.remote;
    expect(log).toEqual(['start threaded', 'end threaded']);
  });
});
