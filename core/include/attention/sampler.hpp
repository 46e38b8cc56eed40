#pragma once
// Choosing the next token from a row of logits (V), in the order of Hugging Face
// transformers' generate(): the repetition penalty (a logits processor), then the warpers
// temperature, top-k, top-p, min-p; then a draw from the softmax of what is left, or the
// argmax when temperature is 0 (greedy). Draws use SplitMix64 (random.hpp), so the same
// seed gives the same tokens in the native and wasm builds.
#include <cstdint>
#include <utility>
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

// The distribution of a generation step, unnormalised so that a step computes it in one pass
// of exp over the vocabulary and no division per token: weight_i = exp(s_i - m) (m the largest
// score, 0 where filtered), p_i = weight_i / sum, bit for bit sampling_distribution's p_i (the
// same exp, the same sum in the same order, the same division). The entropy in nats,
// -sum p log p, with no logarithm per token: -sum p_i log p_i = log sum - sum weight_i (s_i - m) / sum.
struct Distribution {
  std::vector<double> weights;  // (V); its buffer is reused from step to step
  double sum = 0;
  double entropy = 0;
  double probability(int i) const { return weights[static_cast<std::size_t>(i)] / sum; }
};
// Fills `out` from the processors' scores (processed_scores' rules): no allocation once
// out.weights holds V values (and none at all without top-k, top-p or min-p).
void sampling_distribution_and_entropy(const float* logits, int vocab, const SamplerSettings& settings,
                                       const std::vector<int>& history, Distribution& out);
// The `count` most probable tokens (0..V), by probability descending and the lower id first
// on ties (a full sort's first `count`), with their probabilities: one pass over the
// vocabulary keeping the best so far, no sort of it.
std::vector<std::pair<int, double>> top_candidates(const Distribution& distribution, int count);

class Sampler {
 public:
  explicit Sampler(const SamplerSettings& settings) : settings_(settings), rng_(settings.seed) {}
  const SamplerSettings& settings() const { return settings_; }
  // The next token: the argmax of the penalised logits (first on ties) when temperature is
  // 0, else a draw from `distribution` (sampling_distribution of the same row), which uses
  // one 53-bit uniform number of the generator.
  int next(const std::vector<double>& distribution, const float* logits, int vocab, const std::vector<int>& history);
  // The same from a step's Distribution: the same token for the same seed (its p_i are the
  // vector's, summed in the same order until the draw falls).
  int next(const Distribution& distribution, const float* logits, int vocab, const std::vector<int>& history);

 private:
  int greedy(const float* logits, int vocab, const std::vector<int>& history) const;
  template <class Probability>
  int draw(Probability p, int vocab);
  SamplerSettings settings_;
  SplitMix64 rng_;
};

}  // namespace attention
