// See attention/analysis/attention_rollout.hpp.
#include "attention/analysis/attention_rollout.hpp"

namespace attention {

std::vector<double> rollout_of(const std::vector<const float*>& layer_weights, int heads, int seq) {
  const std::size_t s = static_cast<std::size_t>(seq);
  std::vector<double> r(s * s, 0.0), step(s * s), next(s * s);
  for (std::size_t i = 0; i < s; ++i) r[i * s + i] = 1.0;
  for (const float* w : layer_weights) {
    for (std::size_t q = 0; q < s; ++q)
      for (std::size_t k = 0; k < s; ++k) {
        double mean = 0;
        for (int h = 0; h < heads; ++h) mean += w[(static_cast<std::size_t>(h) * s + q) * s + k];
        step[q * s + k] = 0.5 * mean / heads + (q == k ? 0.5 : 0.0);
      }
    for (std::size_t q = 0; q < s; ++q)
      for (std::size_t k = 0; k < s; ++k) {
        double v = 0;
        for (std::size_t m = 0; m < s; ++m) v += step[q * s + m] * r[m * s + k];
        next[q * s + k] = v;
      }
    r.swap(next);
  }
  return r;
}

Result<Tensor> attention_rollout(const Transformer& model, const std::vector<int>& ids) {
  const ModelSpec& spec = model.spec();
  if (spec.encoder_decoder())
    return Error("attention rollout follows a single stack's self-attention; the model is an encoder–decoder",
                 error_code::kInvalidArgument, "model");
  ForwardInput input;
  input.batch = 1;
  input.seq = static_cast<int>(ids.size());
  input.ids = ids;
  RecordFilter filter;
  filter.patterns = {"*.self_attn.weights"};
  ForwardOptions options;
  options.record = &filter;
  options.logits = LogitRows::None;
  Result<ForwardOutput> out = model.forward(input, options);
  if (!out) return out.error_value();
  std::vector<const float*> layers(static_cast<std::size_t>(spec.layers), nullptr);
  for (const Stage& stage : out.value().trace.stages)
    if (stage.id == StageId::Weights && stage.layer >= 0)
      layers[static_cast<std::size_t>(stage.layer)] = stage.tensor.ptr();
  const std::vector<double> r = rollout_of(layers, spec.heads, input.seq);
  Tensor result({"Sq", "Sk"}, {input.seq, input.seq});
  for (std::size_t i = 0; i < r.size(); ++i) result.data[i] = static_cast<float>(r[i]);
  return result;
}

}  // namespace attention
