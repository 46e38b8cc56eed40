#pragma once
// The read-only analysis tools of a model handle (issue 29), as methods of _Model:
// the arguments arrive checked by wasm/src/analysis.ts; the core checks them again.
#include <emscripten/val.h>

#include "model_handle.hpp"

namespace attention::js {

// { kind, seed, length, batch } -> Float32Array (L, H), or { error }.
val head_scores_js(ModelHandle& model, val options);

// { ids: Int32Array (S), topK } -> { layers, seq, topK, topIds: Int32Array (L, S, K),
// topProbs: Float32Array (L, S, K), prediction: Int32Array (S), predictionProbs: Float32Array (L, S) }.
val logit_lens_js(ModelHandle& model, val options);

// { ids: Int32Array (S), position, token, against (-1 = none) } -> { heads: Float32Array (L, H),
// mlps: Float32Array (L), embed, biases, logit }.
val logit_attribution_js(ModelHandle& model, val options);

// { ids: Int32Array (S) } -> Float32Array (S, S).
val attention_rollout_js(ModelHandle& model, val options);

// The forward input with ablate, ablateMlps (layers), ablation ('zero' | 'mean'), meanOver
// (Int32Array (N, S) or null) and meanCount (N) -> what forward returns.
val forward_ablated_js(ModelHandle& model, val input);

// { ids: Int32Array (S), position, token, against (-1 = none), mean: bool, meanOver: Int32Array (N, S)
// or null, meanCount } -> { probability, logitDiff, headProbabilityChange, headLogitDiffChange:
// Float32Array (L, H), mlpProbabilityChange, mlpLogitDiffChange: Float32Array (L), order: Int32Array }.
val ablation_ranking_js(ModelHandle& model, val options);

}  // namespace attention::js
