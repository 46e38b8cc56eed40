// The checkpoints the site ships, as plans: an id, a title, what the trained model does, and the Train view
// settings that train it (workers/checkpoint-builder.ts trains them; scripts/train-checkpoints.mjs writes the
// files). Stated here once: a page that cannot fetch a checkpoint (a file:// page) still knows its task and settings.

export interface CheckpointPlan {
  id: string;
  title: string;
  description: string;
  /** Train view settings (URL hash parameters) differing from its defaults. */
  settings: string;
}

/** The checkpoints the site ships. The first is the Train view's default settings: a first visit shows it. */
export const CHECKPOINT_PLANS: readonly CheckpointPlan[] = [
  {
    id: 'sort',
    title: 'Sort 8 symbols',
    settings: '',
    description:
      'A head of the last layer finds, for each output position, the input symbol that comes next in sorted order: ' +
      'it attends by content, where no position pattern explains it.',
  },
  {
    id: 'reverse',
    title: 'Reverse 8 symbols',
    settings: 'task=reverse&dModel=32&ffnDim=64',
    description:
      'Heads of the first layer read the input backwards: each output position attends to the input symbol it ' +
      'writes next, on the reverse diagonal.',
  },
  {
    id: 'induction',
    title: 'Induction: repeat a random sequence',
    settings: 'task=induction&dModel=64&ffnDim=128&heads=2',
    description:
      'A head of the second layer attends to the token right after the earlier copy of the current one (induction) ' +
      'and copies it. The copy is a different distance back in every example, so no first-layer head can find it ' +
      'by position: the induction head needs the first layer to have written, at each token, which token came before.',
  },
];

/** The plan of a shipped checkpoint, by id (undefined for another id or a URL). */
export function checkpointPlan(id: string): CheckpointPlan | undefined {
  return CHECKPOINT_PLANS.find((p) => p.id === id);
}
