#pragma once
// The generation handle (model.generate in the TypeScript API): a core Generation
// (generation.hpp) with the model it reads kept alive, and its steps copied out to JS.
#include <emscripten/val.h>

#include <memory>
#include <optional>
#include <vector>

#include "attention/generation.hpp"
#include "model_handle.hpp"

namespace attention::js {

class GenerationHandle {
 public:
  // settings: { ids, maxNewTokens, temperature, topK, topP, minP, repetitionPenalty, seed,
  // stopIds } (checked by the TypeScript side first; the core checks again).
  GenerationHandle(const ModelHandle& model, val settings);
  val error() const { return failure_; }
  // { numbers: Float64Array, attention: Float32Array (L, H, P) } or { error }. numbers: token,
  // position, entropy, heads (H), positions (P), ms, done (1 or 0), the candidates' count K, then
  // their K ids, their K probabilities, and the cache's bytes per layer (L) (wasm/src/generation.ts
  // reads them in this order).
  val step(int top_count);
  // A new handle (check error() on it): the prefix up to `position`, `token` there.
  GenerationHandle* fork(int position, int token) const;
  val tokens() const;
  int prompt_length() const { return generation_ ? generation_->prompt_length() : 0; }
  bool done() const { return generation_ ? generation_->done() : true; }

 private:
  GenerationHandle() : failure_(val::undefined()) {}
  std::shared_ptr<Transformer> model_;
  std::optional<Generation> generation_;
  // The last step's arrays on their way to JS, their buffers reused from step to step.
  std::vector<float> attention_rows_;  // (L, H, P)
  std::vector<double> numbers_;        // step()'s numbers, in its order
  val failure_;
};

}  // namespace attention::js
