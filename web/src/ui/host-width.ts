// The width a host element is given, measured as it changes, for the drawings that fit their box (heatmap, matrix):
// a Lit reactive controller, so it starts and stops with its element and asks it to redraw on a new width.
// The new width is handed over in the next animation frame, not inside the ResizeObserver's callback: a drawing
// redrawn in the callback can resize other observed elements in the same frame, which browsers report as the error
// "ResizeObserver loop completed with undelivered notifications" (Firefox sends it to window.onerror).
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export class HostWidth implements ReactiveController {
  /** The host's content width in whole px (0 until measured, or where ResizeObserver is missing). */
  value = 0;
  #observer: ResizeObserver | null = null;
  #frame = 0;
  readonly #host: ReactiveControllerHost & Element;

  constructor(host: ReactiveControllerHost & Element) {
    this.#host = host;
    host.addController(this);
  }

  hostConnected(): void {
    if (typeof ResizeObserver !== 'function') return;
    let latest = this.value;
    this.#observer = new ResizeObserver(([entry]) => {
      latest = Math.floor(entry.contentRect.width);
      if (this.#frame) return;
      this.#frame = requestAnimationFrame(() => {
        this.#frame = 0;
        if (latest === this.value) return;
        this.value = latest;
        this.#host.requestUpdate();
      });
    });
    this.#observer.observe(this.#host);
  }

  hostDisconnected(): void {
    this.#observer?.disconnect();
    this.#observer = null;
    if (this.#frame) cancelAnimationFrame(this.#frame);
    this.#frame = 0;
  }
}
