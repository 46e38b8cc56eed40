#pragma once
// The logit lens: the residual stream after each layer read as if it were the last one,
// through the model's final norm and unembedding (unembed.hpp), for one sequence.
//   resid_l: (S, E), the output of layer l (the "<stack>.output" stage)
//   p_l = softmax(final_norm(resid_l) W^T + b): (S, V)
// The last layer's p is the model's own next-token distribution. In a post-LN model (no
// final norm) each layer's output is already normalised by its own norm and is unembedded
// as it is.
#include <vector>

#include "attention/result.hpp"
#include "attention/transformer.hpp"

namespace attention {

struct LogitLens {
  int layers = 0, seq = 0, top_k = 0;
  std::vector<int> top_ids;             // (L, S, K): the K likeliest tokens, most likely first
  std::vector<float> top_probs;         // (L, S, K)
  std::vector<int> prediction;          // (S): the model's final prediction (argmax of the last layer)
  std::vector<float> prediction_probs;  // (L, S): its probability after each layer
};

// ids: one sequence (S). top_k: 1..min(V, 100) (field "topK"). Errors of check_unembeddable
// and of the forward pass (ids, length).
Result<LogitLens> logit_lens(const Transformer& model, const std::vector<int>& ids, int top_k);

}  // namespace attention
