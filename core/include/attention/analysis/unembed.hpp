#pragma once
// The end of a single-stack model's forward pass applied to any residual stream: its final
// norm (when the spec has one), an MLM head's transform (BERT: dense, activation, LayerNorm)
// and the unembedding (head.weight or, tied, embed.weight, plus head.bias). Shared by the logit
// lens and the direct logit attribution.
#include <vector>

#include "attention/result.hpp"
#include "attention/transformer.hpp"

namespace attention {

// Whether the tools that read the residual stream through the unembedding apply: a single
// stack with an output head (Linear, Tied, or BERT's MLM head). Errors (field "model"): an
// encoder–decoder, no head.
Status check_unembeddable(const ModelSpec& spec);

// rows: (R, E) residual streams -> (R, V) logits: final_norm(rows) W^T + b, or with an MLM head
// norm(act(rows W_d^T + b_d)) W^T + b.
std::vector<float> unembed_rows(const Transformer& model, const float* rows, int row_count,
                                Backend backend = Backend::Reference);

// Softmax of one row of V logits, in double.
std::vector<double> softmax(const float* logits, int vocab);

}  // namespace attention
