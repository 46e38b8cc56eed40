// The state <ap-playground> (playground.ts) holds: its reactive properties, what each one
// means and its starting value. The element's behaviour is in playground.ts and its
// controllers, which read and set these: the runs (trace-runs.ts: trace, status, model,
// pretrained, predictions, baseline…), the URL hash (hash-sync.ts: state, drafts) and the
// model choice (model-choice.ts: choices, state); the pretrained loading panel's state is
// a controller of its own (pretrained-panel.ts).
import { LitElement } from 'lit';
import type { Trace } from 'attention-playground';
import type { EngineClient } from '../workers/client.js';
import type { Prediction, PretrainedInfo } from '../model/pretrained-info.js';
import type { ExploreModel, ModelChoice } from './explore-models.js';
import { DEFAULT_STATE, type State } from '../settings/settings.js';
import type { Snapshot } from '../model/comparison.js';
import type { Recorded } from '../model/recorded-stages.js';

export abstract class PlaygroundProperties extends LitElement {
  static override properties = {
    state: { attribute: false },
    syncHash: { type: Boolean, attribute: 'sync-hash' },
    controls: { type: String },
    compareText: { type: String, attribute: 'compare-text' },
    errors: { state: true },
    trace: { state: true },
    engineError: { state: true },
    status: { state: true },
    heapBytes: { state: true },
    choices: { state: true },
    model: { state: true },
    modelError: { state: true },
    pretrained: { state: true },
    predictions: { state: true },
    recorded: { state: true },
    stagesUpTo: { state: true },
    rendered: { state: true },
    baseline: { state: true },
    drafts: { state: true },
    defaults: { attribute: false },
    drawerOpen: { state: true },
  };
  declare state: State;
  /** Mirror the state in the URL hash (the playground page). */
  declare syncHash: boolean;
  /**
   * Which settings have controls: 'all', 'none', or a comma list of setting names plus 'views', 'export', 'status'
   * (the engine, milliseconds and heap line: on the page always, elsewhere only when listed) and 'all'.
   */
  declare controls: string;
  /** A text to run first and pin as the 'changes' view's baseline, so it compares against it from the start. */
  declare compareText: string;
  /** The engine to run on; every playground of a page may share one. */
  engine: EngineClient | null = null;
  declare errors: Record<string, string>;
  declare trace: Trace | null;
  declare engineError: string;
  declare status: string;
  declare heapBytes: number;
  /** The trained models the picker offers. */
  declare choices: ModelChoice[];
  /** The trained model of state.model, once loaded (null: the untrained model, or still loading). */
  declare model: ExploreModel | null;
  /** Why state.model could not be loaded. */
  declare modelError: string;
  /** The pretrained model of state.model (null: another kind of model, or not loaded). */
  declare pretrained: PretrainedInfo | null;
  /** The pretrained model's guesses for the trace shown. */
  declare predictions: Prediction[];
  /** Which stages the trace shown has: fewer for a long text on a big model (model/recorded-stages.ts). */
  declare recorded: Recorded;
  /** The longest text whose run keeps every attention stage (a view left without them says so). */
  declare stagesUpTo: number;
  /** With chat turns: the text the chat template made of them (what the model reads), else ''. */
  declare rendered: string;
  /** The result pinned as the 'changes' view's baseline (null: compare with the previous result). */
  declare baseline: Snapshot | null;
  /** What each setting is when the URL hash does not name it (the page sets its own first view). */
  declare defaults: State;
  /** The typed text of settings that do not parse: the box keeps it, the URL holds it, and nothing runs until it is fixed. */
  declare drafts: Record<string, string>;
  /** At phone width the model settings fold into a drawer above the view: whether it is open. */
  declare drawerOpen: boolean;

  constructor() {
    super();
    this.state = { ...DEFAULT_STATE };
    this.syncHash = false;
    this.controls = 'all';
    this.compareText = '';
    this.errors = {};
    this.trace = null;
    this.engineError = '';
    this.status = 'loading the engine…';
    this.heapBytes = 0;
    this.choices = [];
    this.model = null;
    this.modelError = '';
    this.pretrained = null;
    this.predictions = [];
    this.recorded = 'every';
    this.stagesUpTo = 0;
    this.rendered = '';
    this.baseline = null;
    this.defaults = DEFAULT_STATE;
    this.drafts = {};
    this.drawerOpen = false;
  }
}
