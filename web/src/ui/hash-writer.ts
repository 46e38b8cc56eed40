// The URL hash follows the playground's state; while the person types, it is written once
// they pause: in Chromium
// history.replaceState took ~2 ms per call on this machine (more than the rest of a
// keystroke's work on the page before the engine answers), and Firefox refuses more than a
// few hundred such calls in a short time. A Lit reactive controller: a pending write is
// made at once when the page is hidden or the element leaves it, and dropped when the hash
// is changed from outside (the page then reads the new hash).
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export class HashWriter implements ReactiveController {
  #timer: ReturnType<typeof setTimeout> | undefined;
  #pending: (() => string) | null = null;

  constructor(
    host: ReactiveControllerHost,
    private readonly delayMs: number,
  ) {
    host.addController(this);
  }

  /**
   * Writes `hash()` ('' clears the hash): now, or with `typing`, once no other write has come
   * for delayMs. A write now also ends a pending one (it says the same, newer).
   */
  write(hash: () => string, typing = false): void {
    this.#pending = hash;
    clearTimeout(this.#timer);
    if (typing) this.#timer = setTimeout(this.flush, this.delayMs);
    else this.flush();
  }

  /** Writes a pending hash now. */
  flush = (): void => {
    clearTimeout(this.#timer);
    const hash = this.#pending;
    this.#pending = null;
    if (hash) history.replaceState(null, '', hash() || location.pathname + location.search);
  };

  /** Drops a pending write (the hash was changed from outside). */
  cancel(): void {
    clearTimeout(this.#timer);
    this.#pending = null;
  }

  #onHide = () => {
    if (document.visibilityState === 'hidden') this.flush();
  };

  hostConnected(): void {
    document.addEventListener('visibilitychange', this.#onHide);
    window.addEventListener('pagehide', this.flush);
  }

  hostDisconnected(): void {
    this.flush();
    document.removeEventListener('visibilitychange', this.#onHide);
    window.removeEventListener('pagehide', this.flush);
  }
}
