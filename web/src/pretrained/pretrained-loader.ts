// <ap-pretrained-loader>: the Explore page's "Load a pretrained model…" button and the
// dialog it opens beside it (a native modal <dialog>: focus moves inside, Escape or Close
// shuts it, as does a load that worked, and focus goes back to the button; the button says so with aria-haspopup,
// aria-expanded and aria-controls). The dialog says where checkpoint files come from and
// which families the engine reads, and loads one from the person's files (a drop zone for
// files or a folder that shows dragging, loading and failure, or the file and folder
// pickers) or by its name on a hub (base URL editable), holding the weights as the person picks
// (model/weights-modes.ts: the engine's modes, each in a line; the picks are the page's settings, so
// a link keeps them). It shows the bytes read per file,
// a Cancel button while loading, and what went wrong, as text. Its state and loads are
// `host`'s (pretrained-loading.ts; the playground's PretrainedPanel, which picks the
// loaded model), so they outlive the dialog being closed.
// The pretrained feature's entry: the pages and the element import it, which defines this
// element and <ap-real-model> (real-model.ts); the playground shows both by their tags.
import { LitElement, css, html, nothing } from 'lit';
import { familyNames, realModels } from '../model/pretrained-models.js';
import { formatBytes } from '../model/words.js';
import type { LoadRequest, PretrainedPanelHost } from '../model/pretrained-info.js';
import { TOKENS } from '../ui/tokens.js';
import {
  DEFAULT_Q8_ACTIVATIONS,
  DEFAULT_WEIGHTS,
  Q8_ACTIVATIONS,
  WEIGHTS_MODES,
  type Q8Activations,
  type WeightsMode,
  heldOptions,
  q8ActivationsWords,
  usesQ8Activations,
  weightsWords,
} from '../model/weights-modes.js';
import { loadPretrainedForPanel } from './pretrained-loading.js';
import './real-model.js';

/** The files of a drop: files as they are, a folder's files (its direct children; the folder names the model). */
export async function filesFromDrop(data: DataTransfer): Promise<{ files: File[]; name: string }> {
  const entries = [...data.items].map((item) => item.webkitGetAsEntry?.()).filter((e): e is FileSystemEntry => !!e);
  const files: File[] = [];
  let name = '';
  const fileOf = (entry: FileSystemFileEntry) => new Promise<File>((resolve, reject) => entry.file(resolve, reject));
  for (const entry of entries) {
    if (entry.isFile) files.push(await fileOf(entry as FileSystemFileEntry));
    else if (entry.isDirectory) {
      name ||= entry.name;
      const reader = (entry as FileSystemDirectoryEntry).createReader();
      for (;;) {
        // readEntries answers in batches until an empty one
        const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
        if (batch.length === 0) break;
        for (const child of batch) if (child.isFile) files.push(await fileOf(child as FileSystemFileEntry));
      }
    }
  }
  if (entries.length === 0) files.push(...data.files);
  return { files, name };
}

export class PretrainedLoader extends LitElement {
  static override properties = {
    dragging: { state: true },
    from: { state: true },
    host: { attribute: false },
    weights: { attribute: false },
    q8Activations: { attribute: false },
  };
  /** Where the dialog's state is kept and loads go (without one, it loads nothing). */
  declare host: PretrainedPanelHost | null;
  declare dragging: boolean;
  /** How the next load holds the weights: the page's settings (a pick here is sent up as a setting-input). */
  declare weights: WeightsMode;
  declare q8Activations: Q8Activations;
  /** What the dialog last loaded from: its files (the drop zone) or a hub name (the form); null: nothing yet. */
  declare from: 'files' | 'hub' | null;
  #unwatch: (() => void) | null = null;

  constructor() {
    super();
    this.dragging = false;
    this.from = null;
    this.host = null;
    this.weights = DEFAULT_WEIGHTS;
    this.q8Activations = DEFAULT_Q8_ACTIVATIONS;
  }

  static override styles = [
    TOKENS,
    css`
      :host { display: block; font: var(--ap-text-sm) / var(--ap-leading) var(--ap-font); color: var(--ap-text); }
      .open-button, .button, form button { font: inherit; padding: var(--ap-space-1) var(--ap-space-3); cursor: pointer;
        border: 1px solid var(--ap-border-strong); border-radius: var(--ap-radius); background: var(--ap-bg); color: var(--ap-text); }
      .open-button { margin-top: var(--ap-space-1); }
      .open-button:focus-visible, .button:focus-within, form button:focus-visible, .close:focus-visible {
        outline: 3px solid var(--ap-focus); outline-offset: 2px; }
      dialog { position: fixed; inset: auto; margin: 0; box-sizing: border-box; width: min(30rem, calc(100vw - 16px));
        max-height: calc(100vh - 16px); overflow: auto; padding: var(--ap-space-3) var(--ap-space-4); border: 1px solid var(--ap-border);
        border-radius: var(--ap-radius-lg); box-shadow: 0 8px 30px rgb(0 0 0 / 25%); background: var(--ap-bg); color: var(--ap-text); }
      dialog::backdrop { background: rgb(0 0 0 / 12%); }
      header { display: flex; align-items: start; justify-content: space-between; gap: var(--ap-space-2); }
      h2 { margin: 0 0 var(--ap-space-2); font-size: var(--ap-text-lg); }
      .close { font: inherit; font-size: var(--ap-text-xl); line-height: 1; border: none; background: none; color: var(--ap-text);
        cursor: pointer; padding: 0.1rem 0.3rem; }
      .where { margin: 0 0 var(--ap-space-3); color: var(--ap-text-muted); }
      .drop { border: 2px dashed var(--ap-border-strong); border-radius: var(--ap-radius-lg); padding: var(--ap-space-3);
        background: var(--ap-surface); text-align: center; }
      .drop[data-state='dragging'] { border-color: var(--ap-accent); background: var(--ap-accent-soft); }
      .drop[data-state='loading'] { border-style: solid; border-color: var(--ap-accent); }
      .drop[data-state='error'] { border-color: var(--ap-danger); background: var(--ap-danger-soft); }
      .drop p { margin: 0 0 var(--ap-space-2); }
      .pickers { display: flex; gap: var(--ap-space-2); justify-content: center; flex-wrap: wrap; }
      .button { display: inline-block; position: relative; }
      .button input { position: absolute; inset: 0; opacity: 0; width: 100%; cursor: pointer; }
      label { display: block; margin: var(--ap-space-2) 0 0.15rem; font-weight: 600; }
      .pickers label { margin: 0; }
      input[type='text'], input[type='url'] { width: 100%; box-sizing: border-box; font: inherit; padding: 0.25rem 0.35rem;
        background: var(--ap-bg); color: var(--ap-text); border: 1px solid var(--ap-border-strong); border-radius: var(--ap-radius-sm); }
      .row { display: flex; gap: var(--ap-space-2); flex-wrap: wrap; align-items: center; margin-top: var(--ap-space-2); }
      small { color: var(--ap-text-muted); display: block; margin-top: 0.2rem; }
      ul { list-style: none; padding: 0; margin: var(--ap-space-2) 0 0; font: var(--ap-text-xs) var(--ap-mono); }
      progress { width: 100%; height: 0.5rem; accent-color: var(--ap-accent); }
      .error { color: var(--ap-danger); white-space: pre-wrap; overflow-wrap: anywhere; }
      .note { color: var(--ap-ok); }
      .held { margin: var(--ap-space-3) 0 0; padding: var(--ap-space-2) var(--ap-space-3); border: 1px solid var(--ap-border);
        border-radius: var(--ap-radius); }
      .held legend { font-weight: 600; padding: 0 var(--ap-space-1); }
      .held .mode { display: flex; gap: var(--ap-space-2); align-items: baseline; margin: 0.15rem 0; font-weight: 400;
        font-size: var(--ap-text-xs); }
      .held .sub { margin-left: 1.4rem; }
      .held input { accent-color: var(--ap-accent); margin: 0; flex: 0 0 auto; }
      dialog + .note { margin: var(--ap-space-1) 0 0; }
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
  }

  #watch() {
    if (this.#unwatch || !this.host || !this.isConnected) return;
    this.#unwatch = this.host.watch(this);
  }

  get #dialog() {
    return this.renderRoot.querySelector('dialog');
  }

  /** The dialog follows host.open (it may be opened or closed elsewhere, and outlives a redraw). */
  protected override updated() {
    const dialog = this.#dialog;
    if (!dialog) return;
    if (this.host?.open && !dialog.open) {
      dialog.showModal();
      this.#place(dialog);
      (dialog.querySelector('[autofocus]') as HTMLElement | null)?.focus();
    } else if (!this.host?.open && dialog.open) dialog.close();
  }

  /** Beside its button (right of it when there is room, else below it), always inside the viewport. */
  #place(dialog: HTMLDialogElement) {
    const button = this.renderRoot.querySelector('.open-button')!.getBoundingClientRect();
    const { width, height } = dialog.getBoundingClientRect();
    const gap = 8;
    const roomRight = window.innerWidth - button.right - gap * 2 >= width;
    const left = roomRight ? button.right + gap : button.left;
    const top = roomRight ? button.top : button.bottom + gap;
    const clamp = (v: number, max: number) => Math.max(gap, Math.min(v, max - gap));
    dialog.style.left = `${clamp(left, window.innerWidth - width)}px`;
    dialog.style.top = `${clamp(top, window.innerHeight - height)}px`;
  }

  #setOpen(open: boolean) {
    if (this.host) this.host.open = open;
  }

  /** Closed (Close, Escape or from elsewhere): focus goes back to the button that opened it. */
  #onClose = () => {
    this.#setOpen(false);
    (this.renderRoot.querySelector('.open-button') as HTMLElement | null)?.focus();
  };

  /** Loads through the host; the host picks the model once it is loaded (even if the dialog was closed meanwhile). */
  async #load(request: LoadRequest) {
    const host = this.host;
    if (!host) return;
    this.from = 'repo' in request ? 'hub' : 'files';
    const loaded = await loadPretrainedForPanel(host, { ...request, ...heldOptions(this.weights, this.q8Activations) });
    if (!loaded.ok) return; // the dialog stays, saying what went wrong
    host.open = false; // done: the model's heads show behind it
    await host.pretrainedLoaded(loaded.info);
  }

  #onFiles(event: Event) {
    const input = event.target as HTMLInputElement;
    const files = [...(input.files ?? [])];
    if (files.length === 0) return;
    // A folder picked: its name names the model (webkitRelativePath 'folder/file').
    const name = files[0].webkitRelativePath?.split('/')[0] ?? '';
    void this.#load({ files, name });
    input.value = ''; // the same files again load again
  }

  #onLoadByName(event: Event) {
    event.preventDefault();
    const repo = (this.renderRoot.querySelector('#pretrained-repo') as HTMLInputElement).value.trim();
    const baseUrl = (this.renderRoot.querySelector('#pretrained-base') as HTMLInputElement).value.trim();
    void this.#load({ repo, baseUrl });
  }

  /** A pick of how the weights are held: a setting of the page (the playground stores it, and the link says it). */
  #onHeld(name: 'weights' | 'q8Activations', raw: string) {
    this.dispatchEvent(new CustomEvent('setting-input', { detail: { name, raw }, bubbles: true, composed: true }));
  }

  /**
   * The engine's weights modes as radio buttons, each with its line, then its activation modes (for 8-bit weights
   * only: with other weights they stay, disabled, without their lines, so a narrow dialog is not three lines each).
   */
  #heldChoice() {
    const { weights, q8Activations } = this;
    const roundable = usesQ8Activations(weights);
    return html`<fieldset class="held" data-testid="weights-held" ?disabled=${this.host!.loading}>
      <legend>Weights in memory</legend>
      ${WEIGHTS_MODES.map(
        (mode) => html`<label class="mode"><input type="radio" name="weights" value=${mode} .checked=${mode === weights}
          @change=${() => this.#onHeld('weights', mode)}><span><code>${mode}</code>: ${weightsWords(mode)}</span></label>`,
      )}
      ${Q8_ACTIVATIONS.map(
        (mode) => html`<label class="mode sub"><input type="radio" name="q8Activations" value=${mode}
          .checked=${mode === (roundable ? q8Activations : DEFAULT_Q8_ACTIVATIONS)} ?disabled=${!roundable}
          @change=${() => this.#onHeld('q8Activations', mode)}><span><code>${mode}</code>
          activations (with <code>q8_0</code>)${roundable ? html`: ${q8ActivationsWords(mode)}` : nothing}</span></label>`,
      )}
    </fieldset>`;
  }

  #onDragOver(event: DragEvent) {
    event.preventDefault();
    this.dragging = true;
  }

  async #onDrop(event: DragEvent) {
    event.preventDefault();
    this.dragging = false;
    if (this.host?.loading || !event.dataTransfer) return;
    const dropped = await filesFromDrop(event.dataTransfer);
    if (dropped.files.length > 0) void this.#load(dropped);
  }

  override render() {
    const host = this.host;
    if (!host) return nothing;
    const { loading, loadProgress: progress, loadError: error, loadNote: note } = host;
    // Only the part that failed says so: a hub name that did not load leaves the drop zone as it was.
    const state = this.dragging ? 'dragging' : loading ? 'loading' : error && this.from === 'files' ? 'error' : 'idle';
    const say = {
      dragging: 'Let go to load these files.',
      loading: 'Loading\u2026',
      error: 'That did not load (below); drop other files or pick them again.',
      idle: 'Drop the files here, or their folder.',
    }[state];
    // The last load's line: in the dialog while it is open, under its button once it closed (a load that worked closes it).
    const noteLine = note ? html`<p class="note" role="status" data-testid="pretrained-note">${note}</p>` : nothing;
    return html`<button type="button" class="open-button" data-action="open-pretrained" aria-haspopup="dialog"
        aria-expanded=${host.open ? 'true' : 'false'} aria-controls="pretrained-dialog" @click=${() => this.#setOpen(true)}>
        Load a pretrained model\u2026</button>
      <dialog id="pretrained-dialog" aria-labelledby="pretrained-title" data-testid="pretrained-dialog" @close=${this.#onClose}>
        <header><h2 id="pretrained-title">Load a pretrained checkpoint</h2>
          <button type="button" class="close" data-action="close" aria-label="Close" @click=${() => this.#setOpen(false)}>\u00d7</button></header>
        <p class="where">Checkpoints come from a model\u2019s page on the Hugging Face hub (huggingface.co/<i>owner</i>/<i>name</i>,
          \u201cFiles and versions\u201d): <code>config.json</code>, <code>model.safetensors</code> and the tokenizer\u2019s files
          (<code>tokenizer.json</code> with <code>tokenizer_config.json</code>, which holds an instruct model’s chat template;
          or <code>vocab.json</code> + <code>merges.txt</code>, or <code>vocab.txt</code>).
          This engine reads the families ${familyNames()} (config.json\u2019s <code>model_type</code>).</p>
        <div class="drop" data-state=${state} data-testid="pretrained-loader" aria-busy=${loading ? 'true' : 'false'}
          @dragover=${this.#onDragOver} @dragleave=${() => {
            this.dragging = false;
          }} @drop=${this.#onDrop}>
          <p data-testid="drop-state">${say}</p>
          <div class="pickers">
            <label class="button">Choose files\u2026<input id="pretrained-files" type="file" multiple autofocus ?disabled=${loading}
              @change=${this.#onFiles}></label>
            <label class="button">Choose a folder\u2026<input id="pretrained-folder" type="file" webkitdirectory ?disabled=${loading}
              @change=${this.#onFiles}></label>
          </div>
        </div>
        ${this.#heldChoice()}
        <form @submit=${this.#onLoadByName}>
          <label for="pretrained-repo">Or a model\u2019s name on a hub</label>
          <input id="pretrained-repo" type="text" placeholder=${`gpt2, ${realModels().find((m) => m.family !== 'gpt2')?.repo ?? 'bert-base-uncased'} or owner/name`} autocomplete="off" spellcheck="false">
          <label for="pretrained-base">Hub base URL</label>
          <input id="pretrained-base" type="url" .value=${host.hubUrl} spellcheck="false">
          <small>Files are read from {base URL}/{name}/resolve/main/{file}; the URL is remembered in this browser
            (\u201cTry a real model\u201d uses it too).</small>
          <div class="row">
            <button type="submit" data-action="load" ?disabled=${loading}>Load</button>
            ${loading ? html`<button type="button" data-action="cancel" @click=${() => host.cancelPretrained()}>Cancel</button>` : nothing}
          </div>
        </form>
        ${
          progress.length
            ? html`<ul data-testid="pretrained-progress" aria-live="polite">${progress.map(
                (p) => html`<li data-file=${p.file}
          data-loaded=${p.loaded}>${p.file} ${formatBytes(p.loaded, p.total)}${p.total ? html`<progress max=${p.total} value=${p.loaded}></progress>` : nothing}</li>`,
              )}</ul>`
            : nothing
        }
        ${host.open ? noteLine : nothing}
        ${error ? html`<p class="error" role="alert" data-testid="pretrained-error">${error}</p>` : nothing}
      </dialog>
      ${host.open ? nothing : noteLine}`;
  }
}
customElements.define('ap-pretrained-loader', PretrainedLoader);

declare global {
  interface HTMLElementTagNameMap {
    'ap-pretrained-loader': PretrainedLoader;
  }
}
