// See attention/analysis/unembed.hpp.
#include "attention/analysis/unembed.hpp"

#include <algorithm>
#include <cmath>

#include "attention/layers.hpp"
#include "attention/linear.hpp"
#include "attention/norm.hpp"

namespace attention {

Status check_unembeddable(const ModelSpec& spec) {
  if (spec.encoder_decoder())
    return Error("this tool reads a single stack's residual stream; the model is an encoder–decoder",
                 error_code::kInvalidArgument, "model");
  if (spec.head == OutputHead::None)
    return Error("this tool needs an output head (logits); the model has none", error_code::kInvalidArgument, "model");
  return Ok{};
}

std::vector<float> unembed_rows(const Transformer& model, const float* rows, int row_count, Backend backend) {
  const ModelSpec& s = model.spec();
  std::vector<float> normed(rows, rows + static_cast<std::size_t>(row_count) * s.d_model);
  if (s.has_final_norm()) norm_rows(normed.data(), row_count, s.d_model, model.final_norm(), normed.data());
  if (s.mlm_head()) {  // BERT's transform: LayerNorm(act(x W_d^T + b_d)), (R, E)
    std::vector<float> dense(normed.size());
    linear_parameter_rows(normed.data(), row_count, s.d_model, model.mlm_dense().weight, 0,
                          model.mlm_dense().bias.data(), s.d_model, dense.data(), backend);
    for (float& v : dense) v = activate(v, s.activation);
    if (s.layer_norm)
      norm_rows(dense.data(), row_count, s.d_model, model.mlm_norm(), normed.data());
    else
      normed = std::move(dense);
  }
  const Parameter& weight = s.tied_head() ? model.embed() : model.head().weight;
  std::vector<float> logits(static_cast<std::size_t>(row_count) * s.vocab_size);
  linear_parameter_rows(normed.data(), row_count, s.d_model, weight, 0,
                        model.head().bias.empty() ? nullptr : model.head().bias.data(), s.vocab_size, logits.data(),
                        backend);
  return logits;
}

std::vector<double> softmax(const float* logits, int vocab) {
  const double top = *std::max_element(logits, logits + vocab);
  std::vector<double> p(static_cast<std::size_t>(vocab));
  double sum = 0;
  for (int v = 0; v < vocab; ++v) sum += p[static_cast<std::size_t>(v)] = std::exp(logits[v] - top);
  for (double& x : p) x /= sum;
  return p;
}

}  // namespace attention
