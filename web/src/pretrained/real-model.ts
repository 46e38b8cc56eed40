// <ap-real-model>: "Try a real model" at the top of the Explore view: a real checkpoint
// (model/pretrained-models.ts REAL_MODELS, those whose family the engine reads; several are
// picked from a list) from the hub the pretrained dialog names (its base URL setting), in one
// click; a gated one says the hub serves it only to signed-in people. It says the download's size before
// downloading (the hub's, from HEAD; else the declared one), shows the bytes with a Cancel,
// keeps the files in this browser's Cache Storage (model-cache.ts) so the next visit reads
// them from there (and says so; a reload whose link names such a model loads it from there
// at once), and offers to remove them. The model loads through the
// same host as the dialog (pretrained-loading.ts), so a failure or a cancel leaves the
// page and the model shown as they were. It holds the weights as the person picked under the
// loader's "Weights in memory" (the page's settings, as for the dialog's loads), else as the
// model declares (model/pretrained-models.ts realModelHeld), and says so before the download.
// Data in: `host`, `weights`, `q8Activations`; defined with the pretrained feature's entry
// (pretrained-loader.ts).
import { LitElement, css, html, nothing } from 'lit';
import type { PretrainedPanelHost } from '../model/pretrained-info.js';
import { TOKENS } from '../ui/tokens.js';
import {
  pretrainedId,
  pretrainedModel,
  realModelHeld,
  realModelHeldText,
  realModels,
  type RealModel,
} from '../model/pretrained-models.js';
import {
  DEFAULT_Q8_ACTIVATIONS,
  DEFAULT_WEIGHTS,
  heldOptions,
  type Q8Activations,
  type WeightsMode,
} from '../model/weights-modes.js';
import { formatBytes } from '../model/words.js';
import { loadPretrainedForPanel } from './pretrained-loading.js';
import { DownloadError, cachedBytes, download, forget, hubBytes, type DownloadProgress } from './model-cache.js';

type Step =
  | { kind: 'idle' }
  | { kind: 'sizing'; model: RealModel }
  /** The size is stated; the download waits for the person. `declared`: the hub did not say, this is the declared size. */
  | { kind: 'confirm'; model: RealModel; bytes: number; declared: boolean }
  | { kind: 'downloading'; model: RealModel; bytes: number; progress: DownloadProgress[] }
  | { kind: 'loading'; model: RealModel; fromCache: boolean };

export class RealModelCard extends LitElement {
  static override properties = {
    host: { attribute: false },
    step: { state: true },
    cached: { state: true },
    message: { state: true },
    error: { state: true },
    chosen: { state: true },
    weights: { attribute: false },
    q8Activations: { attribute: false },
  };
  /** The pretrained dialog's state and loader (the playground's PretrainedPanel). */
  declare host: PretrainedPanelHost | null;
  declare step: Step;
  /** Bytes of each model's files in this browser's cache (by repo; absent: not all kept). */
  declare cached: Record<string, number>;
  declare message: string;
  declare error: string;
  /** The repo picked in the list of real models ('' until one is picked: the first). */
  declare chosen: string;
  /** The page's settings: the person's pick under the loader's "Weights in memory". */
  declare weights: WeightsMode;
  declare q8Activations: Q8Activations;
  #controller: AbortController | null = null;
  #unwatch: (() => void) | null = null;
  #checkedUrl = '';
  #resumed = false;

  constructor() {
    super();
    this.host = null;
    this.step = { kind: 'idle' };
    this.cached = {};
    this.message = '';
    this.error = '';
    this.chosen = '';
    this.weights = DEFAULT_WEIGHTS;
    this.q8Activations = DEFAULT_Q8_ACTIVATIONS;
  }

  static override styles = [
    TOKENS,
    css`
      :host { display: block; margin: 0 0 var(--ap-space-2); font: var(--ap-text-sm) / var(--ap-leading) var(--ap-font); color: var(--ap-text); }
      /* One compact line above the view (the sentence and its button), not a card: the heatmaps stay near the top. */
      section { display: flex; flex-wrap: wrap; align-items: center; gap: var(--ap-space-1) var(--ap-space-2);
        padding: 0.15rem var(--ap-space-2); border-left: 3px solid var(--ap-accent); border-radius: 0 var(--ap-radius-sm) var(--ap-radius-sm) 0; }
      .lead { margin: 0; }
      button { font: inherit; padding: 0.1rem var(--ap-space-2); border-radius: var(--ap-radius);
        border: 1px solid var(--ap-border-strong); background: var(--ap-bg); color: var(--ap-text); cursor: pointer; }
      button.primary { background: var(--ap-accent); border-color: var(--ap-accent); color: var(--ap-on-accent); font-weight: 600; }
      button:disabled { opacity: 0.6; cursor: default; }
      button:focus-visible { outline: 3px solid var(--ap-focus); outline-offset: 2px; }
      .step { flex-basis: 100%; display: flex; flex-wrap: wrap; align-items: center; gap: var(--ap-space-1) var(--ap-space-2); margin: 0; }
      .sentence { flex-basis: 100%; }
      progress { flex: 1 1 12rem; height: 0.6rem; accent-color: var(--ap-accent); }
      .cached { color: var(--ap-ok); }
      .error { flex-basis: 100%; margin: 0; color: var(--ap-danger); overflow-wrap: anywhere; }
      .note { flex-basis: 100%; margin: 0; color: var(--ap-ok); }
      .gated { flex-basis: 100%; margin: 0; color: var(--ap-text-muted); }
      select { font: inherit; max-width: 100%; padding: 0.1rem var(--ap-space-1); border-radius: var(--ap-radius);
        border: 1px solid var(--ap-border-strong); background: var(--ap-bg); color: var(--ap-text); }
      select:focus-visible { outline: 3px solid var(--ap-focus); outline-offset: 2px; }
      .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
      /* a phone: the button says it all, and the heatmaps stay nearer the top */
      @media (max-width: 600px) {
        :host { margin-bottom: var(--ap-space-1); font-size: var(--ap-text-xs); }
        .lead { display: none; }
        section { padding: 0; border: none; background: none; }
        button { padding: 0.1rem 0.45rem; }
      }
    `,
  ];

  override connectedCallback() {
    super.connectedCallback();
    this.#watch();
  }

  override disconnectedCallback() {
    super.disconnectedCallback();
    this.#unwatch?.();
    this.#unwatch = null;
  }

  protected override willUpdate() {
    this.#watch();
    // Which models this browser keeps, asked again when the hub's URL changes (the cache is by URL).
    const url = this.host?.hubUrl ?? '';
    if (url && url !== this.#checkedUrl) {
      this.#checkedUrl = url;
      void this.#checkCache();
    }
  }

  #watch() {
    if (this.#unwatch || !this.host || !this.isConnected) return;
    this.#unwatch = this.host.watch(this);
  }

  async #checkCache() {
    const url = this.#checkedUrl;
    const cached: Record<string, number> = {};
    for (const model of realModels()) {
      const bytes = await cachedBytes(url, model);
      if (bytes !== null) cached[model.repo] = bytes;
    }
    if (url !== this.#checkedUrl) return;
    this.cached = cached;
    if (!this.#resumed) this.#resume();
  }

  /**
   * A second visit: the link names a real model this browser keeps, and the new page has no model loaded: it loads
   * from the cache (no request to the hub), once.
   */
  #resume() {
    const host = this.host;
    this.#resumed = true;
    if (!host || host.loading || this.step.kind !== 'idle' || pretrainedModel()) return;
    const model = realModels().find((m) => pretrainedId({ name: m.repo }) === host.chosenModel);
    if (model && this.cached[model.repo] !== undefined) {
      this.chosen = model.repo;
      void this.#load(model, this.cached[model.repo]);
    }
  }

  /** The hub as people know it: its host name. */
  #hubName() {
    try {
      return new URL(this.host!.hubUrl, location.href).host;
    } catch {
      return this.host!.hubUrl;
    }
  }

  async #try(model: RealModel) {
    const host = this.host;
    if (!host || host.loading || this.step.kind !== 'idle') return;
    this.error = '';
    this.message = '';
    const controller = new AbortController();
    this.#controller = controller;
    this.step = { kind: 'sizing', model };
    // Asked again (not this.cached): only a copy that is whole now skips stating the size.
    const kept = await cachedBytes(host.hubUrl, model);
    if (kept !== null) return this.#load(model, kept);
    try {
      const bytes = await hubBytes(host.hubUrl, model, controller.signal);
      this.step =
        bytes === null
          ? { kind: 'confirm', model, bytes: model.declaredBytes, declared: true }
          : { kind: 'confirm', model, bytes, declared: false };
      await this.updateComplete;
      (this.renderRoot.querySelector('[data-action="download-real"]') as HTMLElement | null)?.focus();
    } catch (error) {
      this.#stopped(error);
    }
  }

  /** Downloads (or reads from the cache) and loads; anything that fails leaves the model shown as it was. */
  async #load(model: RealModel, bytes: number) {
    const host = this.host;
    if (!host) return;
    const controller = new AbortController();
    this.#controller = controller;
    this.step = { kind: 'downloading', model, bytes, progress: [] };
    let got;
    let shown = 0;
    try {
      got = await download(
        host.hubUrl,
        model,
        (p) => {
          // At most one redraw per 100 ms (and each file's last), not one per network chunk.
          const now = performance.now();
          if (this.step.kind !== 'downloading' || (now - shown < 100 && p.loaded !== p.total)) return;
          shown = now;
          const progress = [...this.step.progress.filter((q) => q.file !== p.file), p];
          this.step = { ...this.step, progress };
        },
        controller.signal,
      );
    } catch (error) {
      this.#stopped(error);
      void this.#checkCache(); // the files that did arrive are kept
      return;
    }
    this.#controller = null;
    this.step = { kind: 'loading', model, fromCache: got.fromCache };
    const held = realModelHeld(model, this.weights, this.q8Activations);
    const loaded = await loadPretrainedForPanel(host, {
      files: got.files,
      name: model.repo,
      ...heldOptions(held.weights, held.q8Activations),
    });
    this.step = { kind: 'idle' };
    if (loaded.ok) void this.#checkCache();
    if (!loaded.ok) {
      // The host's words: cancelled, or what the engine found wrong. Then the kept copy goes (it would fail again),
      // unless the files are sound and only the mode held too much (another pick under "Weights in memory" fits).
      if (host.loadError && loaded.code === 'limit_exceeded') {
        void this.#checkCache();
        this.error = `${host.loadError} A mode that holds less, picked under \u201cWeights in memory\u201d, may fit${
          got.notKept ? '' : ' (the files stay in this browser\u2019s cache)'
        }.`;
      } else if (host.loadError) {
        await forget(host.hubUrl, model);
        void this.#checkCache();
        this.error = got.notKept
          ? host.loadError
          : `${host.loadError} The files were removed from this browser\u2019s cache.`;
      } else this.message = host.loadNote;
      return;
    }
    const how = got.fromCache
      ? 'loaded from this browser\u2019s cache'
      : got.notKept
        ? `downloaded and loaded (not kept in this browser: ${got.notKept})`
        : 'downloaded and loaded; this browser keeps it for next time';
    const { info } = loaded;
    this.message = `${model.label} ${how}: ${info.layers} layers \u00d7 ${info.heads} heads, weights in ${info.held.weights}.`;
    host.loadNote = ''; // said here, not again under the dialog's button
    await host.pretrainedLoaded(info);
  }

  #stopped(error: unknown) {
    this.#controller = null;
    this.step = { kind: 'idle' };
    if (error instanceof DownloadError && error.cancelled) this.message = error.message;
    else this.error = error instanceof Error ? error.message : String(error);
  }

  #cancel() {
    if (this.step.kind === 'loading') this.host?.cancelPretrained();
    else if (this.step.kind === 'confirm') {
      this.step = { kind: 'idle' };
      this.message = '';
    } else this.#controller?.abort();
  }

  async #forget(model: RealModel) {
    if (!this.host) return;
    await forget(this.host.hubUrl, model);
    await this.#checkCache();
    this.error = '';
    this.message = `${model.label} was removed from this browser\u2019s cache; the model shown stays loaded.`;
  }

  #stepView() {
    const step = this.step;
    const cancel = html`<button type="button" data-action="cancel-real" @click=${() => this.#cancel()}>Cancel</button>`;
    switch (step.kind) {
      case 'idle':
        return nothing;
      case 'sizing':
        return html`<p class="step" role="status">Asking ${this.#hubName()} how large ${step.model.label} is\u2026 ${cancel}</p>`;
      case 'confirm':
        // One sentence, one flex item (bare text and <strong> would each be one, and the line breaks between them).
        return html`<p class="step" data-testid="real-size" data-bytes=${step.bytes}>
          <span class="sentence">Downloading ${step.model.label} from ${this.#hubName()} takes
          <strong>${formatBytes(step.bytes)}</strong>${
            step.declared
              ? ' (the size expected for it, as the hub did not report its file sizes)'
              : ' (the sizes the hub reports for its files)'
          }; this browser then keeps it, so the next visit does not download it again.
          ${realModelHeldText(realModelHeld(step.model, this.weights, this.q8Activations))}</span>
          <button type="button" class="primary" data-action="download-real" @click=${() => this.#load(step.model, step.bytes)}>
            Download ${formatBytes(step.bytes)}</button>
          <button type="button" data-action="cancel-real" @click=${() => this.#cancel()}>Not now</button></p>`;
      case 'downloading': {
        const loaded = step.progress.reduce((sum, p) => sum + p.loaded, 0);
        const current = step.progress[step.progress.length - 1];
        return html`<p class="step" role="status" data-testid="real-progress" data-loaded=${loaded}>
          <span>Downloading${current ? ` ${current.file}` : ''}: ${formatBytes(loaded, Math.max(step.bytes, loaded))} in all</span>
          <progress max=${Math.max(step.bytes, loaded)} value=${loaded} aria-label="Downloaded"></progress> ${cancel}</p>`;
      }
      case 'loading':
        return html`<p class="step" role="status" data-testid="real-loading">Reading ${step.model.label}
          ${step.fromCache ? 'from this browser\u2019s cache ' : ''}into the engine\u2026 ${cancel}</p>`;
    }
  }

  override render() {
    const models = realModels();
    if (!this.host || models.length === 0) return nothing;
    const busy = this.step.kind !== 'idle' || this.host.loading;
    const model = models.find((m) => m.repo === this.chosen) ?? models[0];
    const kept = this.cached[model.repo];
    // One model: its button says it all; several: a list to pick from, then one button (a row of seven buttons would
    // push the heatmaps down, and wrap on a phone).
    const picker =
      models.length === 1
        ? nothing
        : html`<label class="pick"><span class="visually-hidden">Real model</span><select data-testid="real-choice"
            ?disabled=${busy} @change=${(e: Event) => {
              this.chosen = (e.target as HTMLSelectElement).value;
              this.error = '';
              this.message = '';
            }}>${models.map(
              (m) =>
                html`<option value=${m.repo} ?selected=${m === model}>${m.label} (${m.family}, ${formatBytes(
                  this.cached[m.repo] ?? m.declaredBytes,
                )}${this.cached[m.repo] === undefined ? '' : ', in this browser'})</option>`,
            )}</select></label>`;
    return html`<section aria-label="Try a real model" data-testid="real-model">
      <p class="lead">See the attention of a real, pretrained model on your own text:</p>
      ${picker}
      <button type="button" class="primary" data-action="try-real" data-repo=${model.repo} ?disabled=${busy}
        @click=${() => this.#try(model)}>Try a real model: ${model.label}</button>
      ${
        kept === undefined
          ? nothing
          : html`<span class="cached" data-testid="real-cached">in this browser’s cache (${formatBytes(kept)})</span>
          <button type="button" data-action="forget-real" ?disabled=${busy} @click=${() => this.#forget(model)}>
            Remove from this browser’s cache</button>`
      }
      ${
        model.gated && kept === undefined
          ? html`<p class="gated" data-testid="real-gated">${model.label} is gated on the hub: it serves the files only to
            signed-in people who accepted its licence, and this page sends no sign-in. Download them there, then give them
            to “Load a pretrained model…”.</p>`
          : nothing
      }
      ${this.#stepView()}
      ${this.message ? html`<p class="note" role="status" data-testid="real-note">${this.message}</p>` : nothing}
      ${this.error ? html`<p class="error" role="alert" data-testid="real-error">${this.error}</p>` : nothing}
    </section>`;
  }
}
customElements.define('ap-real-model', RealModelCard);

declare global {
  interface HTMLElementTagNameMap {
    'ap-real-model': RealModelCard;
  }
}
