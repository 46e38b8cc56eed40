// <ap-controls>: the model settings, generated from the settings table.
// Sends 'setting-input' { name, raw } as the person types; shows each setting's
// problem next to it.
import { LitElement, css, html, nothing } from 'lit';
import { SETTINGS, type Setting, type State } from '../settings/settings.js';
import { CONTROL_STYLES, renderControl, settingInput } from '../ui/controls.js';
import { zeroDefaultText } from '../model/zero-defaults.js';

export class Controls extends LitElement {
  static override properties = {
    state: { attribute: false },
    errors: { attribute: false },
    drafts: { attribute: false },
    only: { attribute: false },
  };
  declare state: State;
  declare errors: Record<string, string>;
  /** The typed text of settings that do not parse: their boxes show it (the state keeps the last good value). */
  declare drafts: Record<string, string>;
  /** Names of the model settings to show; all when unset. */
  declare only: string[] | undefined;

  constructor() {
    super();
    this.errors = {};
    this.drafts = {};
  }

  static override styles = [
    CONTROL_STYLES,
    css`:host { display: block; font: var(--ap-text-sm)/var(--ap-leading) var(--ap-font); color: var(--ap-text); }
    .dk { font-size: var(--ap-text-xs); color: var(--ap-text); margin: -0.4rem 0 var(--ap-space-3); }`,
  ];

  #onInput = (event: Event) => {
    this.dispatchEvent(
      new CustomEvent('setting-input', { detail: settingInput(event), bubbles: true, composed: true }),
    );
  };

  override render() {
    const state = this.state as unknown as Record<string, unknown>;
    const shown = (SETTINGS as readonly Setting[]).filter(
      (s) => s.group === 'model' && (!this.only || this.only.includes(s.name)),
    );
    const typed = 'heads' in this.drafts || 'dModel' in this.drafts; // then the state's numbers are not the boxes'
    return html`${shown.map(
      (s) => html`${renderControl(s, this.drafts[s.name] ?? state[s.name], this.errors[s.name], this.#onInput, {
        defaulted: zeroDefaultText(s.name, this.drafts[s.name] ?? state[s.name], state),
      })}
      ${
        s.name === 'heads' && !typed && this.state.dModel % this.state.heads === 0
          ? html`<p class="dk" data-testid="dk">d_k = d_model / heads = ${this.state.dModel} / ${this.state.heads} = <strong>${this.state.dModel / this.state.heads}</strong></p>`
          : nothing
      }`,
    )}`;
  }
}
customElements.define('ap-controls', Controls);
