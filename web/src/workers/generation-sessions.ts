// Several Generate panels on one engine: the engine side (generation-run.ts) keeps one
// generation open at a time, so a page with many panels (the tutorial's elements) gives
// each its own view of it. A panel whose generation another one replaced gets its own
// back before its next run: its branch reopened with the tokens it has generated since
// (the sampler then starts afresh from its seed on that branch, as after a change of
// settings).
import type { GenerationApi, GenerationOpen } from './generation-run.js';

/** A GenerationApi per panel, all on `shared`. */
export function generationSessions(shared: GenerationApi): () => GenerationApi {
  let active: object | null = null;
  // One open at a time: an open that replays a branch steps through it, and another panel's open meanwhile would end it.
  let opening: Promise<unknown> = Promise.resolve();
  const queued = (input: GenerationOpen) => {
    const outcome = opening.then(() => shared.generationOpen(input));
    opening = outcome.catch(() => undefined);
    return outcome;
  };
  return () => {
    const me = {};
    let opened: GenerationOpen | null = null;
    return {
      async generationOpen(input) {
        const outcome = await queued(input);
        active = me;
        opened = outcome.ok ? { ...input, path: outcome.ids.slice(outcome.promptLength) } : null;
        return outcome;
      },
      async generationRun(count, onStep) {
        if (active !== me && opened) {
          active = me;
          const reopened = await queued({ ...opened, replay: false });
          if (!reopened.ok) return reopened;
        }
        return shared.generationRun(count, (step) => {
          if (opened) opened = { ...opened, path: [...opened.path, step.token] };
          onStep(step);
        });
      },
      generationStop() {
        if (active === me) shared.generationStop();
      },
      async generationDispose() {
        opened = null;
        if (active !== me) return NaN; // another panel's generation is open: nothing of this one's is held
        active = null;
        return shared.generationDispose();
      },
    };
  };
}
