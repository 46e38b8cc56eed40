// The URL hash as <ap-playground> (playground.ts) mirrors it, on the page (its sync-hash
// attribute): read into the state when the element connects and whenever the hash changes
// from outside (back, forward, a pasted link); written from the state at once or, while
// typing, once typing pauses (ui/hash-writer.ts). A model or text value of the link that
// does not parse stays in its box with its problem (the element's drafts); the other values
// that do not parse (view values, whose boxes may not be on screen) are listed as ignored.
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { settingByName, stateFromHash, stateToHash } from '../settings/settings.js';
import { HashWriter } from '../ui/hash-writer.js';
import { generationHashPart } from '../model/generation-hash.js';

/** The playground's hash with the Generate panel's keys of the hash now kept after it (the panel writes those). */
function withPanelKeys(hash: string): string {
  const panel = generationHashPart(location.hash);
  return panel ? `${hash || '#'}${hash ? '&' : ''}${panel}` : hash;
}
import type { PlaygroundProperties } from './playground-properties.js';

export class HashSync implements ReactiveController {
  /** The URL hash, written once typing pauses, at once after other changes. */
  #writer: HashWriter;
  #problems: string[] = [];

  constructor(
    private readonly host: PlaygroundProperties & ReactiveControllerHost,
    /** Whether the setting has a control here (a value that does not parse is kept in its box only if it has one). */
    private readonly shows: (name: string) => boolean,
  ) {
    this.#writer = new HashWriter(host, 300);
    host.addController(this);
  }

  /** What the link said that was ignored, and why. */
  get problems(): readonly string[] {
    return this.#problems;
  }

  hostConnected(): void {
    if (!this.host.syncHash) return;
    this.#read();
    window.addEventListener('hashchange', this.#onHashChange);
  }

  hostDisconnected(): void {
    window.removeEventListener('hashchange', this.#onHashChange);
  }

  /** The URL hash follows the state: at once, or (typing: `input` events) once typing pauses. */
  write(typing = false): void {
    const { host } = this;
    if (host.syncHash)
      this.#writer.write(() => withPanelKeys(stateToHash(host.state, host.defaults, host.drafts)), typing);
  }

  #onHashChange = () => {
    this.#writer.cancel(); // the hash now says what to show
    if (location.hash === withPanelKeys(stateToHash(this.host.state, this.host.defaults, this.host.drafts))) return;
    this.#read();
  };

  /** The URL hash -> state and drafts. */
  #read() {
    const { state, problems, rejected } = stateFromHash(location.hash, this.host.defaults);
    const drafts = Object.fromEntries(
      Object.entries(rejected)
        .filter(([name]) => this.shows(name) && ['model', 'text'].includes(settingByName(name)?.group ?? ''))
        .map(([name, { raw }]) => [name, raw]),
    );
    this.#problems = problems.filter((p) => !Object.keys(drafts).some((name) => rejected[name].error === p));
    this.host.drafts = drafts;
    this.host.state = state;
  }
}
