// What a setting is, whichever table declares it (the playground's: settings/settings.ts; the
// Train view's: settings/train-settings.ts): its name, label, help, group, and its type with
// its default and range or choices. The controls (ui/controls.ts) draw any setting from this.

interface Base {
  name: string;
  label: string;
  help?: string;
  /**
   * 'model' settings go to the engine; 'trained' (which trained model replaces the untrained one, if any), 'text'
   * and 'view' stay in the page (the Train view has its own groups; 'modern': the modern block's model settings).
   */
  group: 'trained' | 'text' | 'model' | 'modern' | 'view' | 'task' | 'optimizer' | 'run';
}
export interface IntSetting extends Base {
  type: 'int';
  default: number;
  min: number;
  max: number;
}
/** A real number; minExclusive: the minimum itself is not allowed (a learning rate > 0). */
export interface NumberSetting extends Base {
  type: 'number';
  default: number;
  min: number;
  max: number;
  minExclusive?: boolean;
}
export interface BoolSetting extends Base {
  type: 'bool';
  default: boolean;
}
export interface ChoiceSetting extends Base {
  type: 'choice';
  default: string;
  choices: readonly string[];
  labels?: Record<string, string>;
}
/** pattern: the whole text must match it (else `patternError`). */
export interface TextSetting extends Base {
  type: 'text';
  default: string;
  maxLength: number;
  pattern?: RegExp;
  patternError?: string;
}
export type Setting = IntSetting | NumberSetting | BoolSetting | ChoiceSetting | TextSetting;
