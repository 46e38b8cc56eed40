// What the "Load a pretrained model…" panel does when asked for a checkpoint: load it where
// the engine runs, reporting bytes per file, and say what happened. The panel's state is
// its host's (model/pretrained-info.ts PretrainedPanelHost: in the playground), which also
// picks the loaded model afterwards.
import type { LoadRequest, PretrainedInfo, PretrainedPanelHost, PretrainedProgress } from '../model/pretrained-info.js';
import { rememberHubBaseUrl, setPretrainedModel } from '../model/pretrained-models.js';
import { explainDownloadFailure } from './network-failure.js';

/**
 * What a load came to: the model (loaded and remembered), or the failure's code (the AttentionError's, 'aborted' for a
 * cancel, 'busy' while another load runs, 'no_name' without a name), whose words are the panel's loadError or loadNote.
 */
export type PanelLoad = { ok: true; info: PretrainedInfo } | { ok: false; code: string };

/** Loads the requested checkpoint, updating `panel` as it goes. */
export async function loadPretrainedForPanel(panel: PretrainedPanelHost, request: LoadRequest): Promise<PanelLoad> {
  if (panel.loading) return { ok: false, code: 'busy' };
  if ('repo' in request) {
    if (!request.repo) {
      panel.loadError = 'Type a model name first (e.g. gpt2).';
      return { ok: false, code: 'no_name' };
    }
    panel.hubUrl = request.baseUrl;
    rememberHubBaseUrl(request.baseUrl);
  }
  panel.loading = true;
  panel.loadProgress = [];
  panel.loadError = '';
  panel.loadNote = '';
  const onProgress = (p: PretrainedProgress) => {
    const list = panel.loadProgress.filter((q) => q.file !== p.file);
    const at = panel.loadProgress.findIndex((q) => q.file === p.file);
    list.splice(at < 0 ? list.length : at, 0, { file: p.file, loaded: p.loaded, total: p.total });
    panel.loadProgress = list;
  };
  const source =
    'repo' in request
      ? { repo: request.repo, baseUrl: request.baseUrl, weights: request.weights, q8Activations: request.q8Activations }
      : { files: request.files, name: request.name, weights: request.weights, q8Activations: request.q8Activations };
  const outcome = await panel.loadPretrained(source, onProgress);
  panel.loading = false;
  if (!outcome.ok) {
    if (outcome.code === 'aborted') {
      panel.loadNote = 'Loading was cancelled; nothing was loaded.';
      return { ok: false, code: outcome.code };
    }
    const names = outcome.field && !outcome.error.includes(outcome.field) ? ` (${outcome.field})` : '';
    // A download with no answer: what that likely means, not the browser's bare "Failed to fetch".
    const explained = outcome.code === 'network' ? explainDownloadFailure(outcome.error) : outcome.error;
    panel.loadError = explained !== outcome.error ? explained : `Could not load the model: ${outcome.error}${names}.`;
    return { ok: false, code: outcome.code };
  }
  const info = outcome.model;
  setPretrainedModel(info);
  panel.loadNote = `Loaded ${info.name}: ${info.layers} layers \u00d7 ${info.heads} heads.`;
  return { ok: true, info };
}
