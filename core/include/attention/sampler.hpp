#pragma once
// Choosing the next token from a row of logits (V), in the order of Hugging Face
// transformers' generate(): the repetition penalty (a logits processor), then the warpers
// temperature, top-k, top-p, min-p; then a draw from the softmax of what is left, or the
// argmax when temperature is 0 (greedy). Draws use SplitMix64 (random.hpp), so the same
// seed gives the same tokens in the native and wasm builds.
#include <cstdint>
#include <vector>

#include "attention/random.hpp"
#include "attention/result.hpp"

namespace attention {

struct SamplerSettings {
  double temperature = 1.0;         // >= 0; 0 = greedy (argmax)
  int top_k = 0;                    // keep the k highest logits (ties kept); 0 = all
  double top_p = 1.0;               // (0, 1]: keep the smallest head of the sorted distribution with mass >= top_p
  double min_p = 0.0;               // [0, 1]: drop tokens whose probability < min_p x the top probability
  double repetition_penalty = 1.0;  // > 0: logits of tokens already in the text: positive / p, negative x p
  std::uint64_t seed = 0;
};

// Each setting in its range, else an Error naming the field ("temperature", "topK", "topP",
// "minP", "repetitionPenalty") and its value.
Status check_sampler_settings(const SamplerSettings& settings);

// The scores after the processors (-inf = filtered out), from logits (V) and the tokens
// so far (for the penalty). Temperature 0 is treated as 1 here (greedy takes the argmax).
std::vector<double> processed_scores(const float* logits, int vocab, const SamplerSettings& settings,
                                     const std::vector<int>& history);
// softmax of processed_scores: the distribution a draw follows (0 where filtered).
std::vector<double> sampling_distribution(const float* logits, int vocab, const SamplerSettings& settings,
                                          const std::vector<int>& history);

// sampling_distribution and its entropy in nats, -sum p log p, from the same pass of exp: with
// p_i = exp(s_i - m) / Z (m the largest score), -sum p_i log p_i = log Z - sum p_i (s_i - m), so
// no logarithm per token (a generation step computes it over the whole vocabulary).
struct Distribution {
  std::vector<double> p;  // (V)
  double entropy = 0;
};
Distribution sampling_distribution_and_entropy(const float* logits, int vocab, const SamplerSettings& settings,
                                               const std::vector<int>& history);

class Sampler {
 public:
  explicit Sampler(const SamplerSettings& settings) : settings_(settings), rng_(settings.seed) {}
  const SamplerSettings& settings() const { return settings_; }
  // The next token: the argmax of the penalised logits (first on ties) when temperature is
  // 0, else a draw from `distribution` (sampling_distribution of the same row), which uses
  // one 53-bit uniform number of the generator.
  int next(const std::vector<double>& distribution, const float* logits, int vocab, const std::vector<int>& history);

 private:
  SamplerSettings settings_;
  SplitMix64 rng_;
};

}  // namespace attention
