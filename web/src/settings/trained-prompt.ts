// What a trained model expects to read: its task's form (the engine's TASKS, stated once there) with the task
// settings its training fixed. A toy model learned only that form; the Generate panel says so under its prompt,
// since another input (5 symbols to a model trained to sort 8) gets an answer that means nothing.
import { TASKS } from 'attention-playground';
import { shownValue } from './settings.js';
import { shownTrainSettings, trainStateFromHash } from './train-settings.js';

/** A sentence on the prompts a trained model (its Train view settings, a URL hash without '#train&') can answer. */
export function trainedPromptHint(settings: string): string {
  const { state } = trainStateFromHash(`#train&${settings}`);
  const task = TASKS.find((t) => t.name === state.task);
  const shown = shownTrainSettings(state).filter((s) => s.target === 'task' && s.type !== 'text');
  const name = shown.find((s) => s.field === 'name');
  const facts = shown
    .filter((s) => s !== name && s.field !== 'evalLength')
    .map((s) => `${s.label.toLowerCase()} ${shownValue(s, state[s.name], state)}`);
  const title = name ? shownValue(name, state[name.name], state) : String(state.task);
  const trained = `Trained on ${title}${facts.length ? ` (${facts.join(', ')})` : ''}`;
  // a text model reads any text: it writes like the text it learned from
  if (state.task === 'text') return `${trained}: it continues any text in the manner of the text it learned from.`;
  // the format up to its scoring note: "x_1 .. x_n | the same items sorted; the second half is scored"
  const form = task ? task.format.split(';')[0]!.trim() : '';
  return (
    `${trained}${form ? `, on prompts of the form \u201c${form}\u201d` : ''}: ` +
    'it learned only that form, up to where its answer starts; other prompts get answers that mean nothing.'
  );
}
