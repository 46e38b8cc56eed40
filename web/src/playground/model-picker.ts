// The Explore page's model picker (the untrained playground model, a shipped checkpoint,
// or the Train view's model) and, with a trained model chosen, what its training fixed:
// the Train view's own settings, with the Train view's labels, in place of the
// playground's model controls; the text box's label for a trained or pretrained model;
// and the model settings in a few words for the settings drawer's button.
import { html, nothing } from 'lit';
import type { ExploreModel, ModelChoice } from './explore-models.js';
import { settingByName, shownValue, type Setting, type State } from '../settings/settings.js';
import { familyTokenizer, type PretrainedInfo } from '../model/pretrained-info.js';
import { shownTrainSettings, trainStateFromHash } from '../settings/train-settings.js';
import { count } from '../model/words.js';
import { CHAT_EXAMPLE } from '../model/chat-turns.js';
import { NORM_NAMES, headsFact, heldFact, positionsFact, windowFact } from '../model/pretrained-facts.js';

export const UNTRAINED_LABEL = 'Untrained playground model';

/**
 * The picker: value '' is the untrained model; an id the list lacks still shows (its problem is reported elsewhere).
 * ("Load a pretrained model…" is a button beside it, pretrained/pretrained-loader.ts, not an option: it is no model.)
 */
export function modelPicker(value: string, choices: readonly ModelChoice[], onPick: (event: Event) => void) {
  const known = value === '' || choices.some((c) => c.id === value);
  return html`<div class="setting choice" data-setting="model">
    <label for="setting-model">Model</label>
    <select id="setting-model" name="model" @change=${onPick}>
      <option value="" ?selected=${value === ''}>${UNTRAINED_LABEL}</option>
      ${choices.map((c) => html`<option value=${c.id} ?selected=${c.id === value}>${c.label}</option>`)}
      ${known ? nothing : html`<option value=${value} selected>${value} (not available)</option>`}
    </select>
    <small>Trained models fix their own settings and read their task\u2019s tokens; pretrained checkpoints read text with their own tokenizer.</small>
  </div>`;
}

/** What the trained model's training fixed (its task and model settings), instead of the model controls. */
export function fixedSettings(model: ExploreModel) {
  const { state } = trainStateFromHash(`#train&${model.ref.settings}`);
  const rows = shownTrainSettings(state).filter(
    (s) => (s.target === 'task' && s.type !== 'text') || s.target === 'spec',
  );
  return html`<section class="trained-model" data-testid="fixed-settings" aria-label="The trained model">
    <p class="note">${model.label}: its training fixed these settings (the untrained model has the playground\u2019s).</p>
    ${model.about ? html`<p class="about">${model.about}</p>` : nothing}
    <dl>${rows.map((s) => html`<dt>${s.label}</dt><dd data-fixed=${s.name}>${shownValue(s, state[s.name], state)}</dd>`)}</dl>
  </section>`;
}

/** A loaded pretrained model's facts, instead of the model controls. */
export function pretrainedSummary(info: PretrainedInfo) {
  const window = windowFact(info);
  const rows: [string, string][] = [
    ['Architecture', info.architecture || info.family],
    ['Layers', String(info.layers)],
    ['Heads', headsFact(info)],
    ['d_model', String(info.dModel)],
    ['Positions', positionsFact(info)],
    ...(window ? [['Sliding window', window] as [string, string]] : []),
    ['Norm', NORM_NAMES[info.normType] ?? info.normType],
    ['Vocabulary', String(info.vocabSize)],
    ['Longest text', `${info.maxSeq} tokens`],
    ['Weights in memory', heldFact(info)],
  ];
  return html`<section class="trained-model" data-testid="pretrained-summary" aria-label="The pretrained model">
    <p class="note">${info.name}: a pretrained checkpoint; its config.json fixed these settings.</p>
    <dl>${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>
    ${
      info.skipped.length
        ? html`<details class="about"><summary>${info.skipped.length} tensor${info.skipped.length === 1 ? '' : 's'} of the file not used</summary>
      <ul>${info.skipped.map(([name, why]) => html`<li><code>${name}</code>: ${why}</li>`)}</ul></details>`
        : nothing
    }
  </section>`;
}

/** Under the text box, with chat turns: the text the model's chat template made of them, special tokens included. */
export function renderedPrompt(info: PretrainedInfo, rendered: string) {
  return html`<details class="rendered" data-testid="rendered-prompt" open>
    <summary>What ${info.name} reads: its chat template\u2019s text (special tokens included)</summary>
    <pre>${rendered}</pre>
  </details>`;
}

/** The text box for a trained model: its task's tokens, not sentences. */
export function trainedTextSetting(setting: Setting, model: ExploreModel | null): Setting {
  const label = model?.characters
    ? 'Input: characters of the model\u2019s text (one sequence per line)'
    : 'Input: tokens of the model\u2019s task, separated by spaces (one sequence per line)';
  return { ...setting, label, help: model?.example ? `For example: ${model.example}` : undefined };
}

/** The text box for a pretrained model: text read by its tokenizer, or (`chat`) turns for its chat template. */
export function pretrainedTextSetting(setting: Setting, info: PretrainedInfo, chat = false): Setting {
  if (info.chat && chat)
    return {
      ...setting,
      label: `Chat turns for ${info.name}: one per line, starting with system:, user: or assistant:`,
      help: `For example: ${CHAT_EXAMPLE.replace('\n', ' \u21b5 ')}`,
    };
  const label =
    familyTokenizer(info.family) === 'wordpiece'
      ? `Text for ${info.name} (its WordPiece tokenizer adds [CLS] and [SEP]; a second line is the second sentence)`
      : `Text for ${info.name} (its own tokenizer reads it; \u00b7 marks a token\u2019s leading space)`;
  const masked = !info.causal && familyTokenizer(info.family) === 'wordpiece';
  return { ...setting, label, help: masked ? `Write [MASK] for a word ${info.name} should guess.` : undefined };
}

/** The model settings in a few words, for the drawer's button: a trained or pretrained model's name, else the main settings. */
export function modelSummary(state: State, modelName: string): string {
  if (modelName) return modelName;
  return `d_model ${state.dModel}, ${count(state.heads, 'head')}, ${count(state.layers, 'layer')}, ${shownValue(settingByName('preset')!, state.preset)}`;
}
