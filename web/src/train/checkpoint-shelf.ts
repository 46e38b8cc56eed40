// The checkpoints a Train view can show: the shipped ones (index.json) and any given by
// URL (checkpoint.ts fetches each once); and which one, if any, has exactly a given state's settings (a
// view showing those settings shows that checkpoint trained instead of untrained).
import { trainStateFromHash, trainStateToHash, type TrainState } from '../settings/train-settings.js';
import { checkpointIndex, loadCheckpoint, type CheckpointIndex } from '../model/checkpoint.js';

export type ShelfEntry = CheckpointIndex['checkpoints'][number];

export class CheckpointShelf {
  entries: ShelfEntry[] = [];

  /** Reads the shipped list; a problem is returned for people, and the shelf stays empty. */
  async readIndex(): Promise<string | null> {
    try {
      this.entries = await checkpointIndex();
      return null;
    } catch (error) {
      return `The trained checkpoints could not be read (${(error as Error).message}); training works as usual.`;
    }
  }

  /** A shipped checkpoint by id, or a given one by URL (added to the shelf); throws when it cannot be read. */
  async entry(idOrUrl: string): Promise<ShelfEntry> {
    const known = this.entries.find((c) => c.id === idOrUrl);
    if (known) return known;
    const { record } = await loadCheckpoint(idOrUrl);
    const entry = { id: idOrUrl, title: record.title, settings: record.settings };
    this.entries = [...this.entries, entry];
    return entry;
  }

  /** The checkpoint with exactly these settings, if any. */
  matching(state: TrainState): string | null {
    const hash = trainStateToHash(state);
    return (
      this.entries.find((c) => trainStateToHash(trainStateFromHash(`#train&${c.settings}`).state) === hash)?.id ?? null
    );
  }
}
