// The "What heads do" view's panels, one per tool (heads-view.ts shows the chosen one): each a
// function of its result, the view's state and the view's actions (data in, actions out), drawn
// with the same specs as the exports (heads-export.ts). Every string is a Lit text binding.
import { html, nothing, type TemplateResult } from 'lit';
import type { HeadsResult, TokenChoice } from '../model/heads-results.js';
import {
  ABLATIONS,
  DETECT_SORTS,
  PATCH_OVER,
  hasHead,
  toggleHead,
  type HeadRefState,
  type HeadsState,
} from '../model/heads-state.js';
import {
  DETECTORS,
  DETECTOR_LABELS,
  ablationChange,
  detectorRows,
  logitName,
  patchAgreement,
} from '../model/heads-figures.js';
import { fixed, formatValue } from '../model/words.js';
import { barsSvg } from '../ui/bars.js';
import { textGridSvg } from '../ui/text-grid.js';
import { weightScale } from '../ui/colors.js';
import '../ui/heatmap.js';
import '../ui/legend.js';
import { attributionChart, detectorHeatmap, lensGrid, patchHeatmap, rankChart } from './heads-export.js';

type Result<T extends HeadsResult['tool']> = Extract<HeadsResult, { tool: T }>;

/** What a panel may do: change the view's state, choose a head, offer a figure's downloads. */
export interface PanelActions {
  set(change: Partial<HeadsState>): void;
  selectHead(head: HeadRefState): void;
  exports(result: HeadsResult): TemplateResult;
}

/** The detector scores: three layer x head heatmaps and the sortable table; a head clicked is chosen. */
export function detectPanel(result: Result<'detect'> | null, state: HeadsState, act: PanelActions) {
  if (!result) return nothing;
  const { sort, head } = state;
  const rows = detectorRows(result, sort);
  const onCell = (e: CustomEvent<{ row: number; col: number }>) =>
    act.selectHead({ layer: e.detail.row, head: e.detail.col });
  return html`<section class="figure" data-testid="figure-detect">
      <h3>Detector scores</h3>
      <p class="note">
        Each head\u2019s share of attention on the pattern of its kind, over ${result.detector.batch} sequences of
        ${result.detector.length} random tokens repeated once (seed ${result.detector.seed}); 1 is a perfect head, and the
        first half of each sequence has no copies to find, so an induction head scores about one half at best. The label is
        the head\u2019s best pattern on your text.
      </p>
      <ap-legend .scale=${weightScale(1)} label="score" no-blocked></ap-legend>
      <div class="maps">
        ${DETECTORS.map((kind) => {
          const spec = detectorHeatmap(result, kind);
          return html`<ap-heatmap data-detector=${kind} .values=${spec.values} .rows=${spec.rows} .cols=${spec.cols}
            .rowLabels=${spec.rowLabels} .colLabels=${spec.colLabels} .scale=${spec.scale} caption=${spec.caption}
            row-axis="layer" col-axis="head" col-unit="heads" show-numbers @cell-select=${onCell}></ap-heatmap>`;
        })}
      </div>
      <div class="table-scroll"><table class="detectors" data-testid="detector-table">
        <thead>
          <tr>
            ${DETECT_SORTS.map(
              (key) =>
                html`<th scope="col">
                  <button aria-pressed=${sort === key ? 'true' : 'false'} data-sort=${key} @click=${() => act.set({ sort: key })}>
                    ${key === 'layer' ? 'head' : DETECTOR_LABELS[key]}${sort === key ? (key === 'layer' ? ' \u2191' : ' \u2193') : ''}
                  </button>
                </th>`,
            )}
            <th scope="col">pattern on the text</th>
          </tr>
        </thead>
        <tbody>
          ${rows.map(
            (r) =>
              html`<tr data-head="${r.layer}.${r.head}" aria-selected=${head && hasHead([head], r) ? 'true' : 'false'}
                @click=${() => act.selectHead({ layer: r.layer, head: r.head })}>
                <th scope="row">
                  <button class="head" aria-label=${`Choose head ${r.layer}.${r.head}`}>L${r.layer}H${r.head}</button>
                </th>
                ${DETECTORS.map((k) => html`<td data-kind=${k}>${fixed(r.scores[k], 3)}</td>`)}
                <td class="label">${r.label} (${fixed(r.labelScore, 2)})</td>
              </tr>`,
          )}
        </tbody>
      </table></div>
      ${act.exports(result)}
    </section>`;
}

/** The token explained and the one it is compared with (the top candidates, and any chosen before). */
function tokenPickers(target: TokenChoice, against: TokenChoice | null, candidates: TokenChoice[], act: PanelActions) {
  const options = [...candidates];
  for (const t of [target, against]) if (t && !options.some((c) => c.id === t.id)) options.push(t);
  const pick = (value: string) => (value === '' ? null : Number(value));
  return html`<div class="bar">
      <div class="setting">
        <label for="token">Token explained</label>
        <select id="token" @change=${(e: Event) => act.set({ token: pick((e.target as HTMLSelectElement).value) })}>
          ${options.map(
            (c) =>
              html`<option value=${c.id} ?selected=${c.id === target.id}>\u2018${c.token}\u2019 (p ${fixed(c.probability, 3)})</option>`,
          )}
        </select>
      </div>
      <div class="setting">
        <label for="against">minus the logit of</label>
        <select id="against" @change=${(e: Event) => act.set({ against: pick((e.target as HTMLSelectElement).value) })}>
          <option value="" ?selected=${against === null}>nothing (the token\u2019s own logit)</option>
          ${options
            .filter((c) => c.id !== target.id)
            .map((c) => html`<option value=${c.id} ?selected=${c.id === against?.id}>\u2018${c.token}\u2019</option>`)}
        </select>
      </div>
    </div>`;
}

/** The switches, the prediction's change, and the ranked list of what the prediction depends on. */
export function ablatePanel(
  result: Result<'ablate'> | null,
  ranked: Result<'rank'> | null,
  state: HeadsState,
  act: PanelActions,
) {
  const layers = result?.layers ?? ranked?.layers ?? 0,
    heads = result?.heads ?? ranked?.heads ?? 0;
  const switches = html`<div class="switches" style="grid-template-columns: auto repeat(${heads + 1}, auto)"
      data-testid="switches">
      ${Array.from({ length: layers }, (_, layer) => [
        html`<span>L${layer}</span>`,
        ...Array.from(
          { length: heads },
          (_, head) =>
            html`<label><input type="checkbox" data-head="${layer}.${head}" .checked=${hasHead(state.ablate, { layer, head })}
              @change=${() => act.set({ ablate: toggleHead(state.ablate, { layer, head }) })} />H${head}</label>`,
        ),
        html`<label><input type="checkbox" data-mlp=${layer} .checked=${state.mlps.includes(layer)}
          @change=${() =>
            act.set({
              mlps: state.mlps.includes(layer)
                ? state.mlps.filter((l) => l !== layer)
                : [...state.mlps, layer].sort((a, b) => a - b),
            })} />MLP</label>`,
      ])}
    </div>`;
  const change = result ? ablationChange(result) : null;
  return html`<section class="figure" data-testid="figure-ablate">
        <h3>Switch parts off</h3>
        ${result ? tokenPickers(result.target, result.against, result.before.top, act) : nothing}
        <div class="bar">
          <div class="setting">
            <label for="ablation">Switched off by</label>
            <select id="ablation" @change=${(e: Event) => act.set({ ablation: (e.target as HTMLSelectElement).value as HeadsState['ablation'] })}>
              ${ABLATIONS.map(
                (a) =>
                  html`<option value=${a} ?selected=${a === state.ablation}>${a === 'zero' ? 'zero (its output set to 0)' : 'mean (its mean output over a reference batch)'}</option>`,
              )}
            </select>
          </div>
          <button @click=${() => act.set({ ablate: [], mlps: [] })} ?disabled=${!state.ablate.length && !state.mlps.length}>
            Switch all back on
          </button>
        </div>
        ${switches}
        ${
          result && change
            ? html`<p class="change" data-testid="ablation-change" data-before=${change.probability[0]} data-after=${change.probability[1]}>
              p(\u2018${result.target.token}\u2019) <strong>${fixed(change.probability[0], 3)}</strong> \u2192
              <strong>${fixed(change.probability[1], 3)}</strong>; ${logitName(result.target, result.against)}
              <strong>${formatValue(change.logit[0])}</strong> \u2192 <strong>${formatValue(change.logit[1])}</strong>
              (${change.logitChange >= 0 ? '+' : ''}${formatValue(change.logitChange)}). The top prediction
              ${
                change.topChanged
                  ? html`changes from \u2018${result.before.top[0].token}\u2019 to <strong data-testid="new-top">\u2018${result.after.top[0].token}\u2019</strong>.`
                  : html`stays \u2018${result.after.top[0].token}\u2019.`
              }
            </p>`
            : nothing
        }
      </section>
      ${
        ranked
          ? html`<section class="figure" data-testid="figure-rank">
            <h3>What the prediction depends on</h3>
            <p class="note">
              Each part switched off alone (${state.ablation} ablation), by how much the
              ${logitName(ranked.target, ranked.against)} (${formatValue(ranked.logit)} in the full run) changes; the most needed first.
            </p>
            ${barsSvg(rankChart(ranked))}
            <ol class="ranking" data-testid="ranking">
              ${ranked.ranking.slice(0, 8).map(
                (e) => html`<li data-part=${e.part === 'head' ? `${e.layer}.${e.head}` : `mlp${e.layer}`}>
                  ${e.part === 'head' ? `L${e.layer}H${e.head}` : `L${e.layer} MLP`}: ${formatValue(e.change)}
                </li>`,
              )}
            </ol>
            ${act.exports(ranked)}
          </section>`
          : nothing
      }`;
}

/** The logit lens grid and the final prediction's probability layer by layer. */
export function lensPanel(result: Result<'lens'> | null, act: PanelActions) {
  if (!result) return nothing;
  const spec = lensGrid(result);
  const seq = result.tokens.length;
  const last = (layer: number) => result.predictionProbs[layer * seq + seq - 1];
  return html`<section class="figure" data-testid="figure-lens">
      <h3>Logit lens</h3>
      <p class="note">
        Each layer\u2019s residual stream read through the final norm and the unembedding, as if it were the last layer: the
        top next token in each cell, its probability as colour (hover a cell for the runners-up). Early layers were never
        trained to be read this way: a view, not the model\u2019s belief.
      </p>
      <ap-legend .scale=${spec.scale} label="probability of the top token" no-blocked></ap-legend>
      ${textGridSvg(spec)}
      <p class="note" data-testid="lens-final">
        The final prediction \u2018${result.prediction[seq - 1]}\u2019, layer by layer:
        ${Array.from({ length: result.layers }, (_, l) => `L${l} ${fixed(last(l), 3)}`).join(', ')}.
      </p>
      ${act.exports(result)}
    </section>`;
}

/** The attribution bars for the chosen token (or difference). */
export function attributePanel(result: Result<'attribute'> | null, state: HeadsState, act: PanelActions) {
  if (!result) return nothing;
  return html`<section class="figure" data-testid="figure-attribute">
      <h3>Direct logit attribution</h3>
      ${tokenPickers(result.target, result.against, result.candidates, act)}
      <p class="note">
        What each head and MLP writes straight into the ${logitName(result.target, result.against)} at the last position, through
        the final norm with its scale frozen at this run\u2019s value; the bars sum to ${formatValue(result.logit)}. A head whose
        output later layers read (an induction circuit\u2019s previous-token head) gets little direct credit.
      </p>
      ${barsSvg(attributionChart(result, state.head))}
      ${act.exports(result)}
    </section>`;
}

/** Both patching maps, exact and estimated, with their agreement. */
export function patchPanel(result: Result<'patch'> | null, act: PanelActions) {
  if (!result) return nothing;
  return html`<section class="figure" data-testid="figure-patch">
      <h3>Activation patching</h3>
      <p class="note">
        Each cell: the corrupted prompt run with one activation taken from the clean run, and the share of
        logit(\u2018${result.good.token}\u2019) - logit(\u2018${result.bad.token}\u2019) that comes back (0: none, 1: all of the
        clean run\u2019s ${formatValue(result.difference.clean)} against the corrupted run\u2019s
        ${formatValue(result.difference.corrupted)}). Attribution patching estimates every cell at once from one forward and one
        backward pass (a first-order guess).
      </p>
      ${PATCH_OVER.map((over) => {
        const map = result.maps[over];
        const agreement = patchAgreement(map.exact, map.estimate);
        return html`<div data-over=${over}>
          <ap-legend .scale=${patchHeatmap(result, over, 'exact').scale} label="share of the difference recovered" no-blocked></ap-legend>
          <div class="maps">
            ${(['exact', 'estimate'] as const).map((method) => {
              const spec = patchHeatmap(result, over, method);
              return html`<ap-heatmap data-method=${method} .values=${spec.values} .rows=${spec.rows} .cols=${spec.cols}
                .rowLabels=${spec.rowLabels} .colLabels=${spec.colLabels} .scale=${spec.scale} caption=${spec.caption}
                row-axis="layer" col-axis=${spec.colAxis} col-unit=${spec.colUnit} ?show-numbers=${spec.showNumbers}></ap-heatmap>`;
            })}
          </div>
          <p class="note" data-testid="agreement-${over}" data-correlation=${agreement.correlation}>
            Agreement: correlation ${Number.isNaN(agreement.correlation) ? 'undefined (a constant map)' : fixed(agreement.correlation, 3)};
            the same sign in ${fixed(agreement.sameSign * 100, 0)}% of the cells; ${agreement.topShared} of the exact map\u2019s
            ${agreement.top} largest cells also among the estimate\u2019s; the largest gap ${formatValue(agreement.largestGap)}.
            Exact ${fixed(map.milliseconds.exact / 1000, 2)} s, attribution ${fixed(map.milliseconds.estimate / 1000, 2)} s.
          </p>
        </div>`;
      })}
      ${act.exports(result)}
    </section>`;
}
