// The model <ap-playground> (playground.ts) explores, as its picker chooses it: the trained
// models offered (the element's choices), a pick (a trained model starts from its example
// input, a loaded pretrained one from its own example, the untrained one gets its text
// back), and the "Load a pretrained model…" panel (pretrained-panel.ts), whose loaded
// checkpoint is picked and shown on its example.
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import type { EngineClient } from '../workers/client.js';
import type { PretrainedInfo } from '../model/pretrained-info.js';
import { pretrainedExample, pretrainedId, pretrainedModel } from '../model/pretrained-models.js';
import { DEFAULT_STATE } from '../settings/settings.js';
import { modelChoices } from './explore-models.js';
import { PretrainedPanel } from './pretrained-panel.js';
import type { PlaygroundProperties } from './playground-properties.js';

export interface ModelChoiceOptions {
  /** Whether the model picker shows (the choices are loaded only then). */
  picker: () => boolean;
  engine: () => EngineClient;
  /** The state changed here: the URL hash follows. */
  stateChanged: () => void;
  /** A checkpoint was loaded: the next state runs even if its input looks the same. */
  loaded: () => void;
}

export class ModelChoice implements ReactiveController {
  /** The "Load a pretrained model…" panel (<ap-pretrained-loader>, defined by the page or element that shows this one). */
  readonly panel: PretrainedPanel;
  /** The untrained model's text, back when the untrained model is picked again. */
  #untrainedText: string | null = null;

  constructor(
    private readonly host: PlaygroundProperties & ReactiveControllerHost,
    private readonly options: ModelChoiceOptions,
  ) {
    this.panel = new PretrainedPanel(
      host,
      options.engine,
      (info) => this.#onPretrainedLoaded(info),
      () => host.state.model,
    );
    host.addController(this);
  }

  hostConnected(): void {
    if (this.options.picker())
      void modelChoices().then((choices) => {
        this.host.choices = choices;
      });
  }

  /** A model picked: a trained one starts from its example input; the untrained one gets its text back. */
  onModel = (event: Event) => {
    const { host } = this;
    const id = (event.target as HTMLSelectElement).value;
    if (id === host.state.model) return;
    if (host.state.model === '') this.#untrainedText = host.state.text;
    const loaded = pretrainedModel();
    const text =
      id === ''
        ? (this.#untrainedText ?? DEFAULT_STATE.text)
        : loaded && pretrainedId(loaded) === id
          ? pretrainedExample(loaded)
          : DEFAULT_STATE.text; // the default: "the model's example"
    // A new text: a sentence picked in the old one need not exist in it.
    host.state = { ...host.state, model: id, text, sequence: 0 };
    this.options.stateChanged();
  };

  /** The loading panel loaded a checkpoint (pretrained/pretrained-loading.ts): show it on its example. */
  async #onPretrainedLoaded(info: PretrainedInfo) {
    const { host } = this;
    host.choices = await modelChoices();
    if (host.state.model === '') this.#untrainedText = host.state.text;
    this.options.loaded();
    host.state = { ...host.state, model: pretrainedId(info), text: pretrainedExample(info), layer: 0, head: 0 };
    this.options.stateChanged();
  }
}
