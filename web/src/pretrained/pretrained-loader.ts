// <ap-pretrained-loader>: the Explore page's panel for loading a pretrained GPT-2 or BERT
// checkpoint: the person's files (a file or folder picker, or files / a folder dropped on
// the panel), or a model name on a hub (base URL editable). It shows the bytes read per
// file, a Cancel button while loading, and what went wrong, as text. Data in
// (properties); it loads through `host` (pretrained-loading.ts), which keeps its state and
// picks the loaded model (the playground's PretrainedPanel); event out: 'pretrained-close'.
// The pretrained feature's entry: the pages and the element define it, the playground
// shows it by its tag.
import { LitElement, css, html, nothing } from 'lit';
import { formatBytes } from '../model/pretrained-models.js';
import type { LoadRequest, PretrainedPanelHost, PretrainedProgress } from '../model/pretrained-info.js';
import { loadPretrainedForPanel } from './pretrained-loading.js';

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
    baseUrl: { type: String, attribute: 'base-url' },
    loading: { type: Boolean },
    progress: { attribute: false },
    error: { type: String },
    note: { type: String },
    dragging: { state: true },
    host: { attribute: false },
  };
  /** Where the panel's state is kept and loads go (without one, the panel loads nothing). */
  declare host: PretrainedPanelHost | null;
  declare baseUrl: string;
  declare loading: boolean;
  /** Bytes read so far, per file, in the order the files were asked for. */
  declare progress: PretrainedProgress[];
  /** What went wrong with the last load (shown as text). */
  declare error: string;
  /** A line about the last load (loaded, cancelled). */
  declare note: string;
  declare dragging: boolean;

  constructor() {
    super();
    this.baseUrl = '';
    this.loading = false;
    this.progress = [];
    this.error = '';
    this.note = '';
    this.dragging = false;
    this.host = null;
  }

  static override styles = css`
    :host { display: block; font: 0.9rem system-ui, sans-serif; }
    section { border: 2px dashed #aab; border-radius: 6px; padding: 0.6rem 0.75rem; background: #fafaff; }
    section.dragging { border-color: #1a73e8; background: #eef4ff; }
    h3 { margin: 0 0 0.4rem; font-size: 0.95rem; }
    label { display: block; margin: 0.4rem 0 0.15rem; font-weight: 600; }
    input[type='text'], input[type='url'] { width: 100%; box-sizing: border-box; font: inherit; padding: 0.2rem 0.3rem; }
    .row { display: flex; gap: 0.4rem; flex-wrap: wrap; align-items: center; margin-top: 0.4rem; }
    small { color: #555; display: block; margin-top: 0.2rem; }
    ul { list-style: none; padding: 0; margin: 0.4rem 0 0; font: 0.8rem ui-monospace, monospace; }
    progress { width: 100%; height: 0.5rem; }
    .error { color: #b00020; white-space: pre-wrap; overflow-wrap: anywhere; }
    .note { color: #1b5e20; }
  `;

  #emit(name: string) {
    this.dispatchEvent(new CustomEvent(name, { bubbles: true, composed: true }));
  }

  /** Loads through the host; the host picks the model once it is loaded (even if the panel was closed meanwhile). */
  async #load(request: LoadRequest) {
    const host = this.host;
    if (!host) return;
    const info = await loadPretrainedForPanel(host, request);
    if (info) await host.pretrainedLoaded(info);
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

  #onDragOver(event: DragEvent) {
    event.preventDefault();
    this.dragging = true;
  }

  async #onDrop(event: DragEvent) {
    event.preventDefault();
    this.dragging = false;
    if (this.loading || !event.dataTransfer) return;
    const dropped = await filesFromDrop(event.dataTransfer);
    if (dropped.files.length > 0) void this.#load(dropped);
  }

  override render() {
    return html`<section class=${this.dragging ? 'dragging' : ''} aria-label="Load a pretrained model" data-testid="pretrained-loader"
      @dragover=${this.#onDragOver} @dragleave=${() => {
        this.dragging = false;
      }} @drop=${this.#onDrop}>
      <h3>Load a pretrained GPT-2 or BERT checkpoint</h3>
      <label for="pretrained-files">Its files (config.json, model.safetensors, the tokenizer\u2019s files), or drop them or their folder here</label>
      <input id="pretrained-files" type="file" multiple ?disabled=${this.loading} @change=${this.#onFiles}>
      <label for="pretrained-folder">Or a folder</label>
      <input id="pretrained-folder" type="file" webkitdirectory ?disabled=${this.loading} @change=${this.#onFiles}>
      <form @submit=${this.#onLoadByName}>
        <label for="pretrained-repo">Or a model name on a hub</label>
        <input id="pretrained-repo" type="text" placeholder="gpt2, bert-base-uncased or owner/name" autocomplete="off" spellcheck="false">
        <label for="pretrained-base">Hub base URL</label>
        <input id="pretrained-base" type="url" .value=${this.baseUrl} spellcheck="false">
        <small>Files are read from {base URL}/{name}/resolve/main/{file}; the URL is remembered in this browser.</small>
        <div class="row">
          <button type="submit" data-action="load" ?disabled=${this.loading}>Load</button>
          ${this.loading ? html`<button type="button" data-action="cancel" @click=${() => this.host?.cancelPretrained()}>Cancel</button>` : nothing}
          <button type="button" data-action="close" @click=${() => this.#emit('pretrained-close')}>Close</button>
        </div>
      </form>
      ${
        this.progress.length
          ? html`<ul data-testid="pretrained-progress" aria-live="polite">${this.progress.map(
              (p) => html`<li data-file=${p.file}
        data-loaded=${p.loaded}>${p.file} ${formatBytes(p.loaded, p.total)}${p.total ? html`<progress max=${p.total} value=${p.loaded}></progress>` : nothing}</li>`,
            )}</ul>`
          : nothing
      }
      ${this.loading ? html`<p role="status">Loading\u2026</p>` : nothing}
      ${this.note ? html`<p class="note" role="status" data-testid="pretrained-note">${this.note}</p>` : nothing}
      ${this.error ? html`<p class="error" role="alert" data-testid="pretrained-error">${this.error}</p>` : nothing}
    </section>`;
  }
}
customElements.define('ap-pretrained-loader', PretrainedLoader);

declare global {
  interface HTMLElementTagNameMap {
    'ap-pretrained-loader': PretrainedLoader;
  }
}
