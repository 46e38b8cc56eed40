#pragma once
// Generation you can step through: a prompt, then one token per step, each chosen by the
// Sampler (sampler.hpp) from the logits of the previous step and fed back through the
// KV-cached forward (Transformer::forward_cached), so a step costs one row. One sequence
// (B = 1); forward_cached itself takes batches.
#include <chrono>
#include <cstddef>
#include <utility>
#include <vector>

#include "attention/kv_cache.hpp"
#include "attention/sampler.hpp"
#include "attention/transformer.hpp"

namespace attention {

struct GenerationSettings {
  SamplerSettings sampler;
  int max_new_tokens = 16;    // 1.. (prompt + max_new_tokens) <= maxSeq
  std::vector<int> stop_ids;  // end-of-sequence ids: the step that draws one is the last
  Backend backend = Backend::Fast;
};

struct GenerationStep {
  int token = 0;
  int position = 0;                                // where the token went (0-based over prompt + generated)
  std::vector<std::pair<int, double>> candidates;  // the top of the distribution it was drawn from, descending
  double entropy = 0;                              // of that distribution, in nats
  std::vector<Tensor> attention;                   // per layer (H, P): the new token's weights over positions 0..P-1
  std::vector<std::size_t> cache_bytes;            // per layer, after the step
  bool done = false;                               // a stop id, or max_new_tokens reached
  double ms = 0;                                   // the step's wall time
};

class Generation {
 public:
  // Checks the settings and the prompt (1.. tokens in the vocabulary), runs the prompt as
  // one block and keeps its logits. `model` must outlive the generation.
  static Result<Generation> start(const Transformer& model, std::vector<int> prompt,
                                  const GenerationSettings& settings);

  // The next token. An Error once done (field "generation").
  Result<GenerationStep> step(int top_count = 10);
  // A new generation with tokens[0..position) and `token` at `position` (0..tokens-1), the
  // same settings and the sampler's state as it is now; it shares nothing with this one.
  Result<Generation> fork(int position, int token) const;

  const std::vector<int>& tokens() const { return tokens_; }
  int prompt_length() const { return prompt_length_; }
  bool done() const { return done_; }
  const KvCache& cache() const { return cache_; }

 private:
  Generation(const Transformer& model, const GenerationSettings& settings)
      : model_(&model), settings_(settings), sampler_(settings.sampler) {}
  Status feed(std::vector<int> ids, std::vector<Tensor>* attention);
  // start(), with the budget of new tokens checked (a fork's may already be spent) or not.
  static Result<Generation> begin(const Transformer& model, std::vector<int> prompt, const GenerationSettings& settings,
                                  bool check_budget);

  const Transformer* model_;
  GenerationSettings settings_;
  Sampler sampler_;
  KvCache cache_;
  std::vector<int> tokens_;
  int prompt_length_ = 0;
  std::vector<float> logits_;  // (V): the next token's
  // The cached forward's output, kept from step to step: its logits' buffer (V floats) is
  // reused and swapped with logits_ when a step succeeds (a failed one leaves logits_ as it was).
  Transformer::CachedStep forward_;
  Distribution distribution_;  // the step's, its (V) buffer kept from step to step
  bool done_ = false;
};

}  // namespace attention
