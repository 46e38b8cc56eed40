// GenerationHandle (see generation_handle.hpp): copies only, no math.
#include "generation_handle.hpp"

#include <emscripten/bind.h>

#include <vector>

#include "js_values.hpp"

namespace attention::js {

GenerationHandle::GenerationHandle(const ModelHandle& model, val in)
    : model_(model.shared()), failure_(val::undefined()) {
  GenerationSettings g;
  g.max_new_tokens = in["maxNewTokens"].as<int>();
  g.sampler.temperature = in["temperature"].as<double>();
  g.sampler.top_k = in["topK"].as<int>();
  g.sampler.top_p = in["topP"].as<double>();
  g.sampler.min_p = in["minP"].as<double>();
  g.sampler.repetition_penalty = in["repetitionPenalty"].as<double>();
  g.sampler.seed = static_cast<std::uint64_t>(in["seed"].as<double>());
  g.stop_ids = read_ints(in["stopIds"]);
  Result<Generation> started = Generation::start(*model_, read_ints(in["ids"]), g);
  if (!started) {
    failure_ = js::error(started.error_value());
    return;
  }
  generation_.emplace(std::move(started.value()));
}

val GenerationHandle::step(int top_count) {
  Result<GenerationStep> r = generation_->step(top_count);
  if (!r) return js::error(r.error_value());
  const GenerationStep& s = r.value();
  const int heads = s.attention.empty() ? 0 : s.attention[0].shape[0];  // each layer (H, P)
  const int positions = s.attention.empty() ? 0 : s.attention[0].shape[1];
  // Two arrays cross to JS, one call each (a view's slice), where the step's dozen fields set
  // one by one on a JS object took two calls across the boundary each (the key's string, the set).
  numbers_.assign({static_cast<double>(s.token), static_cast<double>(s.position), s.entropy, static_cast<double>(heads),
                   static_cast<double>(positions), s.ms, s.done ? 1.0 : 0.0, static_cast<double>(s.candidates.size())});
  for (const auto& candidate : s.candidates) numbers_.push_back(candidate.first);
  for (const auto& candidate : s.candidates) numbers_.push_back(candidate.second);
  numbers_.insert(numbers_.end(), s.cache_bytes.begin(), s.cache_bytes.end());
  // (L, H, P): the layers side by side in a buffer the handle keeps, then one copy to JS (not
  // one per layer: 30 for SmolLM2).
  attention_rows_.clear();
  for (const Tensor& t : s.attention) attention_rows_.insert(attention_rows_.end(), t.data.begin(), t.data.end());
  val out = val::object();
  out.set("numbers", to_typed_array(numbers_));
  out.set("attention", to_float32_array(attention_rows_));
  return out;
}

GenerationHandle* GenerationHandle::fork(int position, int token) const {
  auto* handle = new GenerationHandle();
  handle->model_ = model_;
  Result<Generation> forked = generation_->fork(position, token);
  if (!forked)
    handle->failure_ = js::error(forked.error_value());
  else
    handle->generation_.emplace(std::move(forked.value()));
  return handle;
}

val GenerationHandle::tokens() const { return val::array(generation_->tokens()); }

}  // namespace attention::js
