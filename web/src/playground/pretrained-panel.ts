// The "Load a pretrained model…" dialog as <ap-playground> keeps it (each change asks the
// playground and the elements that watch it to redraw, as reactive properties would): whether it is open, and the last load's
// bytes per file, problem and outcome, which outlive the panel being closed, as does a
// load under way. The panel itself (<ap-pretrained-loader>, pretrained/) loads through this
// object (model/pretrained-info.ts PretrainedPanelHost): on the playground's engine, handing
// the loaded model to `onLoaded`.
import type { ReactiveControllerHost } from 'lit';
import type {
  LoadOutcome,
  PretrainedInfo,
  PretrainedPanelHost,
  PretrainedProgress,
  PretrainedSource,
} from '../model/pretrained-info.js';
import { hubBaseUrl } from '../model/pretrained-models.js';
import type { EngineClient } from '../workers/client.js';

export class PretrainedPanel implements PretrainedPanelHost {
  #open = false;
  #loading = false;
  #loadProgress: PretrainedProgress[] = [];
  #loadError = '';
  #loadNote = '';
  #hubUrl = hubBaseUrl();
  #views = new Set<{ requestUpdate(): void }>();

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly engine: () => EngineClient,
    private readonly onLoaded: (info: PretrainedInfo) => void | Promise<void>,
    private readonly chosen: () => string = () => '',
  ) {}

  get chosenModel() {
    return this.chosen();
  }

  /** The dialog shows (it opens from its button beside the model picker, and closes with Close or Escape). */
  get open() {
    return this.#open;
  }
  set open(open: boolean) {
    this.#open = open;
    this.#changed();
  }
  get loading() {
    return this.#loading;
  }
  set loading(loading: boolean) {
    this.#loading = loading;
    this.#changed();
  }
  /** Bytes read so far, per file, in the order the files were asked for. */
  get loadProgress() {
    return this.#loadProgress;
  }
  set loadProgress(progress: PretrainedProgress[]) {
    this.#loadProgress = progress;
    this.#changed();
  }
  get loadError() {
    return this.#loadError;
  }
  set loadError(error: string) {
    this.#loadError = error;
    this.#changed();
  }
  get loadNote() {
    return this.#loadNote;
  }
  set loadNote(note: string) {
    this.#loadNote = note;
    this.#changed();
  }
  /** The hub's base URL as last typed (remembered in this browser). */
  get hubUrl() {
    return this.#hubUrl;
  }
  set hubUrl(url: string) {
    this.#hubUrl = url;
    this.#changed();
  }

  watch(view: { requestUpdate(): void }): () => void {
    this.#views.add(view);
    return () => this.#views.delete(view);
  }

  #changed() {
    this.host.requestUpdate();
    for (const view of this.#views) view.requestUpdate();
  }

  loadPretrained(source: PretrainedSource, onProgress: (p: PretrainedProgress) => void): Promise<LoadOutcome> {
    return this.engine().loadPretrained(source, onProgress);
  }

  cancelPretrained(): void {
    this.engine().cancelPretrained();
  }

  pretrainedLoaded(info: PretrainedInfo): void | Promise<void> {
    return this.onLoaded(info);
  }
}
