#include "attention/sampler.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>
#include <string>

namespace attention {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

std::string number_text(double v) {
  std::string s = std::to_string(v);
  s.erase(s.find_last_not_of('0') + 1);
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

Error out_of_range(const char* field, double value, const std::string& rule) {
  return Error{std::string(field) + " is " + number_text(value) + "; " + rule, error_code::kOutOfRange, field};
}

// softmax of the scores; `sum` (if given) receives Z = sum exp(s_i - max s).
std::vector<double> softmax(const std::vector<double>& scores, double* sum_out = nullptr) {
  const double top = *std::max_element(scores.begin(), scores.end());
  std::vector<double> p(scores.size());
  double sum = 0;
  for (std::size_t i = 0; i < p.size(); ++i) sum += p[i] = scores[i] == kNegInf ? 0.0 : std::exp(scores[i] - top);
  for (double& v : p) v /= sum;
  if (sum_out) *sum_out = sum;
  return p;
}

}  // namespace

Status check_sampler_settings(const SamplerSettings& s) {
  if (!(s.temperature >= 0) || !std::isfinite(s.temperature))
    return out_of_range("temperature", s.temperature, "it must be 0 (greedy) or positive");
  if (s.top_k < 0) return out_of_range("topK", s.top_k, "it must be 0 (off) or positive");
  if (!(s.top_p > 0 && s.top_p <= 1)) return out_of_range("topP", s.top_p, "it must be in (0, 1]");
  if (!(s.min_p >= 0 && s.min_p <= 1)) return out_of_range("minP", s.min_p, "it must be in [0, 1]");
  if (!(s.repetition_penalty > 0) || !std::isfinite(s.repetition_penalty))
    return out_of_range("repetitionPenalty", s.repetition_penalty, "it must be positive (1 = off)");
  return Ok{};
}

std::vector<double> processed_scores(const float* logits, int vocab, const SamplerSettings& s,
                                     const std::vector<int>& history) {
  std::vector<double> scores(logits, logits + vocab);
  // Repetition penalty (RepetitionPenaltyLogitsProcessor): each token of the text once.
  if (s.repetition_penalty != 1.0) {
    std::vector<char> seen(static_cast<std::size_t>(vocab), 0);
    for (int t : history)
      if (t >= 0 && t < vocab && !seen[t]) {
        seen[t] = 1;
        // in float32 as the logits are
        const float x = logits[t], p = static_cast<float>(s.repetition_penalty);
        scores[t] = x < 0 ? x * p : x / p;
      }
  }
  if (s.temperature > 0 && s.temperature != 1.0)
    for (double& v : scores) v /= s.temperature;
  if (s.top_k > 0 && s.top_k < vocab) {  // below the k-th largest score: out
    std::vector<double> sorted = scores;
    std::nth_element(sorted.begin(), sorted.begin() + (s.top_k - 1), sorted.end(), std::greater<double>());
    const double kth = sorted[static_cast<std::size_t>(s.top_k - 1)];
    for (double& v : scores)
      if (v < kth) v = kNegInf;
  }
  if (s.top_p < 1.0) {
    // Ascending order; out go the tokens whose cumulative mass (from the smallest up) is
    // <= 1 - top_p, never the largest.
    const std::vector<double> p = softmax(scores);
    std::vector<int> order(static_cast<std::size_t>(vocab));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return scores[a] < scores[b]; });
    double cumulative = 0;
    for (int i = 0; i + 1 < vocab; ++i) {
      cumulative += p[order[i]];
      if (cumulative <= 1.0 - s.top_p) scores[order[i]] = kNegInf;
    }
  }
  if (s.min_p > 0.0) {
    const std::vector<double> p = softmax(scores);
    const double top = *std::max_element(p.begin(), p.end());
    for (int i = 0; i < vocab; ++i)
      if (p[i] < s.min_p * top) scores[i] = kNegInf;
  }
  return scores;
}

std::vector<double> sampling_distribution(const float* logits, int vocab, const SamplerSettings& s,
                                          const std::vector<int>& history) {
  return softmax(processed_scores(logits, vocab, s, history));
}

Distribution sampling_distribution_and_entropy(const float* logits, int vocab, const SamplerSettings& s,
                                               const std::vector<int>& history) {
  const std::vector<double> scores = processed_scores(logits, vocab, s, history);
  Distribution out;
  double sum = 0;
  out.p = softmax(scores, &sum);
  const double top = *std::max_element(scores.begin(), scores.end());
  double expected_gap = 0;  // sum p_i (s_i - m), over the tokens kept
  for (std::size_t i = 0; i < scores.size(); ++i)
    if (out.p[i] > 0) expected_gap += out.p[i] * (scores[i] - top);
  out.entropy = std::max(0.0, std::log(sum) - expected_gap);
  return out;
}

int Sampler::next(const std::vector<double>& distribution, const float* logits, int vocab,
                  const std::vector<int>& history) {
  if (settings_.temperature == 0.0) {
    // No penalty: the argmax of the logits themselves (float to double keeps their order and
    // ties), without a copy of the vocabulary's scores.
    if (settings_.repetition_penalty == 1.0) return static_cast<int>(std::max_element(logits, logits + vocab) - logits);
    SamplerSettings penalty_only;
    penalty_only.repetition_penalty = settings_.repetition_penalty;
    const std::vector<double> scores = processed_scores(logits, vocab, penalty_only, history);
    return static_cast<int>(std::max_element(scores.begin(), scores.end()) - scores.begin());
  }
  const double u = static_cast<double>(rng_.next() >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
  double cumulative = 0;
  int last = 0;
  for (int i = 0; i < vocab; ++i) {
    if (distribution[i] <= 0) continue;
    last = i;
    cumulative += distribution[i];
    if (u < cumulative) return i;
  }
  return last;  // rounding left u above the total: the last token with mass
}

}  // namespace attention
