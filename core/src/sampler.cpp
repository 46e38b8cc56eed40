#include "attention/sampler.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <utility>

#include "attention/vocab_pass.hpp"

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
std::vector<double> softmax(const std::vector<double>& scores) {
  const double top = *std::max_element(scores.begin(), scores.end());
  std::vector<double> p(scores.size());
  double sum = 0;
  for (std::size_t i = 0; i < p.size(); ++i) sum += p[i] = scores[i] == kNegInf ? 0.0 : std::exp(scores[i] - top);
  for (double& v : p) v /= sum;
  return p;
}

// The ids in ascending order of score, ties by id (std::stable_sort's order, the reference in
// test_sampler.cpp), by a stable LSD radix sort of the scores' bits, 11 bits a pass: linear in
// V, where the comparison sort took about 4 ms a step for a 50257-token vocabulary in wasm.
std::vector<int> ascending_order(const std::vector<double>& scores) {
  constexpr int kBits = 11, kBuckets = 1 << kBits;
  const std::size_t n = scores.size();
  std::vector<std::uint64_t> keys(n), keys_out(n);
  std::vector<int> order(n), order_out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double v = scores[i] == 0.0 ? 0.0 : scores[i];  // -0 and +0 are one score
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    // Unsigned order = numeric order: negatives' bits reversed, positives above them.
    keys[i] = bits >> 63 ? ~bits : bits | (std::uint64_t{1} << 63);
    order[i] = static_cast<int>(i);
  }
  std::vector<std::size_t> start(kBuckets);
  for (int shift = 0; shift < 64; shift += kBits) {
    std::fill(start.begin(), start.end(), 0);
    for (std::uint64_t k : keys) ++start[(k >> shift) & (kBuckets - 1)];
    if (std::any_of(start.begin(), start.end(), [&](std::size_t c) { return c == n; })) continue;  // one digit: no move
    std::size_t total = 0;
    for (std::size_t& c : start) total += std::exchange(c, total);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t at = start[(keys[i] >> shift) & (kBuckets - 1)]++;
      keys_out[at] = keys[i];
      order_out[at] = order[i];
    }
    keys.swap(keys_out);
    order.swap(order_out);
  }
  return order;
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

namespace {

// What process_scores does besides reading the logits: divide by T (temperature 0, greedy,
// and 1 leave them as they are), and filter with top-k (a k below V).
bool divides_by_temperature(const SamplerSettings& s) { return s.temperature > 0 && s.temperature != 1.0; }
// Whether each filter can remove a token (each stated once: process_scores runs the filters that
// can, and sampling_distribution_and_entropy skips the scores' copy when none can).
bool top_k_filters(const SamplerSettings& s, int vocab) { return s.top_k > 0 && s.top_k < vocab; }
bool top_p_filters(const SamplerSettings& s) { return s.top_p < 1.0; }
bool min_p_filters(const SamplerSettings& s) { return s.min_p > 0.0; }

// processed_scores into `scores` (resized to V; its buffer reused).
void process_scores(const float* logits, int vocab, const SamplerSettings& s, const std::vector<int>& history,
                    std::vector<double>& scores) {
  scores.resize(static_cast<std::size_t>(vocab));
  // Temperature (TemperatureLogitsWarper) in the same pass as the copy: each score is the
  // logit as a double, divided by T.
  const bool divide = divides_by_temperature(s);
  if (divide)
    for (int i = 0; i < vocab; ++i) scores[i] = static_cast<double>(logits[i]) / s.temperature;
  else
    for (int i = 0; i < vocab; ++i) scores[i] = logits[i];
  // Repetition penalty (RepetitionPenaltyLogitsProcessor), before the temperature: each token
  // of the text once, in float32 as the logits are (re-applying it to a repeated token writes
  // the same value, so repeats need no bookkeeping).
  if (s.repetition_penalty != 1.0)
    for (int t : history)
      if (t >= 0 && t < vocab) {
        const float x = logits[t], p = static_cast<float>(s.repetition_penalty);
        const double penalised = x < 0 ? x * p : x / p;
        scores[t] = divide ? penalised / s.temperature : penalised;
      }
  if (top_k_filters(s, vocab)) {  // below the k-th largest score: out
    std::vector<double> sorted = scores;
    std::nth_element(sorted.begin(), sorted.begin() + (s.top_k - 1), sorted.end(), std::greater<double>());
    const double kth = sorted[static_cast<std::size_t>(s.top_k - 1)];
    for (double& v : scores)
      if (v < kth) v = kNegInf;
  }
  if (top_p_filters(s)) {
    // Ascending order; out go the tokens whose cumulative mass (from the smallest up) is
    // <= 1 - top_p, never the largest.
    const std::vector<double> p = softmax(scores);
    const std::vector<int> order = ascending_order(scores);
    double cumulative = 0;
    for (int i = 0; i + 1 < vocab; ++i) {
      cumulative += p[order[i]];
      if (cumulative <= 1.0 - s.top_p) scores[order[i]] = kNegInf;
    }
  }
  if (min_p_filters(s)) {
    const std::vector<double> p = softmax(scores);
    const double top = *std::max_element(p.begin(), p.end());
    for (int i = 0; i < vocab; ++i)
      if (p[i] < s.min_p * top) scores[i] = kNegInf;
  }
}

}  // namespace

std::vector<double> processed_scores(const float* logits, int vocab, const SamplerSettings& s,
                                     const std::vector<int>& history) {
  std::vector<double> scores;
  process_scores(logits, vocab, s, history, scores);
  return scores;
}

std::vector<double> sampling_distribution(const float* logits, int vocab, const SamplerSettings& s,
                                          const std::vector<int>& history) {
  return softmax(processed_scores(logits, vocab, s, history));
}

void sampling_distribution_and_entropy(const float* logits, int vocab, const SamplerSettings& s,
                                       const std::vector<int>& history, Distribution& out) {
  std::vector<double>& w = out.weights;
  vocab_pass::WeightSums sums;
  const bool filters = top_k_filters(s, vocab) || top_p_filters(s) || min_p_filters(s);
  if (s.repetition_penalty == 1.0 && !filters) {
    // The scores are the logits / T and nothing else, so they are read from the logits
    // without a copy: division by T > 0 keeps their order, so the largest score is the
    // largest logit / T (process_scores' scores, max_element's value, bit for bit).
    w.resize(static_cast<std::size_t>(vocab));
    const double divisor = divides_by_temperature(s) ? s.temperature : 1.0;
    const float largest = vocab_pass::max_value(logits, vocab);
    const double top = divisor == 1.0 ? static_cast<double>(largest) : static_cast<double>(largest) / divisor;
    sums = vocab_pass::exp_weights(logits, vocab, divisor, top, w.data());
  } else {
    process_scores(logits, vocab, s, history, w);  // the scores, then in place their weights
    const double top = *std::max_element(w.begin(), w.end());
    sums = vocab_pass::exp_weights(w.data(), vocab, top, w.data());
  }
  out.sum = sums.sum;
  out.entropy = std::max(0.0, std::log(sums.sum) - sums.expected_gap / sums.sum);
}

std::vector<std::pair<int, double>> top_candidates(const Distribution& d, int count) {
  const int vocab = static_cast<int>(d.weights.size());
  count = std::min(std::max(count, 0), vocab);
  std::vector<std::pair<int, double>> best;  // descending; ids ascend among equal probabilities
  best.reserve(static_cast<std::size_t>(count) + 1);
  if (count == 0) return best;
  // p = w / sum never increases when w does not, and a later id loses a tie: a token can
  // enter only with a weight above the last kept one's (then its probability decides).
  double floor_weight = -1;
  const double* w = d.weights.data();
  for (int i = vocab_pass::next_above(w, 0, vocab, floor_weight); i < vocab;
       i = vocab_pass::next_above(w, i + 1, vocab, floor_weight)) {
    const double p = d.probability(i);
    if (static_cast<int>(best.size()) == count && !(p > best.back().second)) continue;
    auto at = std::upper_bound(best.begin(), best.end(), p,
                               [](double value, const std::pair<int, double>& kept) { return value > kept.second; });
    best.insert(at, {i, p});
    if (static_cast<int>(best.size()) > count) best.pop_back();
    if (static_cast<int>(best.size()) == count) floor_weight = d.weights[static_cast<std::size_t>(best.back().first)];
  }
  return best;
}

int Sampler::greedy(const float* logits, int vocab, const std::vector<int>& history) const {
  // No penalty: the argmax of the logits themselves (float to double keeps their order and
  // ties), without a copy of the vocabulary's scores.
  if (settings_.repetition_penalty == 1.0) return vocab_pass::argmax(logits, vocab);
  SamplerSettings penalty_only;
  penalty_only.repetition_penalty = settings_.repetition_penalty;
  const std::vector<double> scores = processed_scores(logits, vocab, penalty_only, history);
  return static_cast<int>(std::max_element(scores.begin(), scores.end()) - scores.begin());
}

template <class Probability>
int Sampler::draw(Probability p, int vocab) {
  const double u = static_cast<double>(rng_.next() >> 11) * (1.0 / 9007199254740992.0);  // [0, 1)
  double cumulative = 0;
  int last = 0;
  for (int i = 0; i < vocab; ++i) {
    const double pi = p(i);
    if (pi <= 0) continue;
    last = i;
    cumulative += pi;
    if (u < cumulative) return i;
  }
  return last;  // rounding left u above the total: the last token with mass
}

int Sampler::next(const std::vector<double>& distribution, const float* logits, int vocab,
                  const std::vector<int>& history) {
  if (settings_.temperature == 0.0) return greedy(logits, vocab, history);
  return draw([&](int i) { return distribution[static_cast<std::size_t>(i)]; }, vocab);
}

int Sampler::next(const Distribution& distribution, const float* logits, int vocab, const std::vector<int>& history) {
  if (settings_.temperature == 0.0) return greedy(logits, vocab, history);
  return draw(
      [&](int i) {
        const double w = distribution.weights[static_cast<std::size_t>(i)];
        return w > 0 ? w / distribution.sum : 0.0;  // the division only where a draw reads it
      },
      vocab);
}

}  // namespace attention
