// Two timed flags the playground redraws on (Lit reactive controllers, so their timers stop
// with the element):
// - TypingPause: on while the person is typing in a box and for a moment after, so a problem
//   is shown once they pause (typing 1000 passes 1 and 10, which do not fit the heads);
// - SlowRun: on once a run has taken longer than a moment, so the view it will replace is
//   marked as the previous result.
import type { ReactiveController, ReactiveControllerHost } from 'lit';

class DelayedFlag implements ReactiveController {
  on = false;
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly ms: number,
  ) {
    host.addController(this);
  }

  #set(on: boolean) {
    if (this.on === on) return;
    this.on = on;
    this.host.requestUpdate();
  }

  /** On now, off `ms` after the last call. */
  protected holdOn() {
    this.#set(true);
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#set(false), this.ms);
  }

  /** On `ms` from now, unless stopped first. */
  protected onLater() {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#set(true), this.ms);
  }

  stop() {
    clearTimeout(this.#timer);
    this.#set(false);
  }

  hostDisconnected() {
    clearTimeout(this.#timer);
  }
}

export class TypingPause extends DelayedFlag {
  /** A setting changed: counts as typing for the settings typed in a box (numbers and text), not for menus or switches. */
  typed(settingType: string) {
    if (settingType === 'int' || settingType === 'number' || settingType === 'text') this.holdOn();
  }
}

export class SlowRun extends DelayedFlag {
  started() {
    this.onLater();
  }
}
