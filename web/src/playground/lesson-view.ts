// The base of the views that argue from numbers (Row by row, Head split, Step by step):
// each shows one attention block of one layer for one sentence of a trace, and takes
// those four as properties, with its look from LESSON_STYLES.
import { LitElement } from 'lit';
import type { Trace } from 'attention-playground';
import type { Block } from '../model/trace-model.js';
import { LESSON_STYLES } from './lesson-styles.js';

export class LessonView extends LitElement {
  static override properties = {
    trace: { attribute: false },
    block: { type: String },
    layer: { type: Number },
    sequence: { type: Number },
  };
  declare trace: Trace | null;
  declare block: Block;
  declare layer: number;
  declare sequence: number;

  constructor() {
    super();
    this.trace = null;
    this.block = 'encoder.self_attn';
    this.layer = 0;
    this.sequence = 0;
  }

  static override styles = LESSON_STYLES;
}
