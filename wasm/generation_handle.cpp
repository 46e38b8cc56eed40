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
  val out = val::object();
  out.set("token", s.token);
  out.set("position", s.position);
  // Each array copied to JS in one call (a view's slice), not one call per value.
  candidate_ids_.clear();
  candidate_probabilities_.clear();
  for (const auto& [id, p] : s.candidates) {
    candidate_ids_.push_back(id);
    candidate_probabilities_.push_back(p);
  }
  val candidates = val::object();
  candidates.set("ids", to_typed_array(candidate_ids_));
  candidates.set("probabilities", to_typed_array(candidate_probabilities_));
  out.set("candidates", candidates);
  out.set("entropy", s.entropy);
  // (L, H, P): the layers side by side in a buffer the handle keeps, then one copy to JS (one
  // call across the boundary, not one per layer: 30 for SmolLM2).
  attention_rows_.clear();
  for (const Tensor& t : s.attention) attention_rows_.insert(attention_rows_.end(), t.data.begin(), t.data.end());
  out.set("attention", to_float32_array(attention_rows_));
  out.set("heads", s.attention.empty() ? 0 : s.attention[0].shape[0]);
  out.set("positions", s.attention.empty() ? 0 : s.attention[0].shape[1]);
  cache_bytes_.assign(s.cache_bytes.begin(), s.cache_bytes.end());
  out.set("cacheBytes", val::global("Array").call<val>("from", to_typed_array(cache_bytes_)));  // number[]
  out.set("ms", s.ms);
  out.set("done", s.done);
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
