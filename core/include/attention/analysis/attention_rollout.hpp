#pragma once
// Attention rollout (Abnar and Zuidema 2020, "Quantifying Attention Flow in Transformers"):
// how much each input position flows into each position's final representation when
// attention is the only mixing, with the residual connection counted as half of it.
//   A_l = mean over heads of layer l's weights              (S, S)
//   Â_l = 0.5 I + 0.5 A_l                                    (rows still sum to 1)
//   R   = Â_{L-1} ... Â_1 Â_0                                (S, S): R[query][source]
// Every row of R sums to 1. It ignores the values, the MLPs and the norms: a heuristic of
// where information could have come from, not a measure of what was used.
#include <vector>

#include "attention/result.hpp"
#include "attention/tensor.hpp"
#include "attention/transformer.hpp"

namespace attention {

// R from the per-layer weights (each (H, S, S), one sequence), in layer order.
std::vector<double> rollout_of(const std::vector<const float*>& layer_weights, int heads, int seq);

// ids: one sequence (S). (S, S). Single stacks only (field "model"); the forward pass's errors.
Result<Tensor> attention_rollout(const Transformer& model, const std::vector<int>& ids);

}  // namespace attention
