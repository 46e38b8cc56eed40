#pragma once
// Direct logit attribution: how much each head, each MLP and the embedding write into the
// chosen token's logit (or the difference of two tokens' logits) at one position, through the
// final norm with its scale frozen at the full run's value (TransformerLens's apply_ln_to_stack):
//   resid = embed + sum_l (sum_h head_l,h + out_proj.bias_l + mlp_l)        (E), pre-LN
//   head_l,h = merged_l[h d_h : (h+1) d_h] . out_proj.weight_l[:, h d_h : (h+1) d_h]^T   (E)
//   LayerNorm: part(c) = ((c - mean(c)) / sigma) . (gamma o w_t),  sigma = sqrt(var(resid) + eps)
//   RMSNorm:   part(c) = (c / rms) . ((weight + offset) o w_t),     rms = sqrt(mean(resid^2) + eps)
// with w_t the unembedding row of the token (minus the `against` token's row). The parts are
// linear in c and the scale is fixed, so embed + heads + mlps + biases (the out_proj biases,
// the norm's beta . w_t and the head's bias) equals the logit (difference) exactly.
// Only for pre-LN single stacks (GPT-2, Llama, Qwen, Mistral, the pre-LN playground models):
// in a post-LN model (BERT, the original transformer) every layer renormalises the sum, and
// Gemma's sandwich norms rescale each sub-layer's output, so the parts would not add up;
// those are refused (field "model").
#include <vector>

#include "attention/result.hpp"
#include "attention/transformer.hpp"

namespace attention {

struct LogitAttributionOptions {
  std::vector<int> ids;  // one sequence (S)
  int position = 0;      // 0..S-1
  int token = 0;         // 0..V-1
  int against = -1;      // -1: the token's logit; else logit(token) - logit(against)
};

struct LogitAttribution {
  int layers = 0, heads = 0;
  std::vector<float> heads_part;  // (L, H)
  std::vector<float> mlps;        // (L)
  float embed = 0;                // token + position embeddings (the stack's input)
  float biases = 0;               // the out_proj biases, the final norm's bias and the head's bias
  float logit = 0;                // the full run's logit (difference)
};

// Errors: "position", "token", "against" (out_of_range), "model" (not a pre-LN single stack
// with a plain head), and the forward pass's ("ids").
Result<LogitAttribution> logit_attribution(const Transformer& model, const LogitAttributionOptions& options);

}  // namespace attention
