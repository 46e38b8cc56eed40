// The sampler (sampler.hpp) against distributions computed here by hand: over 20,000
// seeded draws the frequencies match softmax(logits / T) restricted by top-k, top-p and
// min-p (Pearson's chi-square, significance 0.001: with fixed seeds the test is
// deterministic, and a wrong distribution lands far beyond the critical value); filtered
// tokens are never drawn; the repetition penalty divides positive and multiplies negative
// logits (transformers' RepetitionPenaltyLogitsProcessor); greedy is the argmax.
#include <gtest/gtest.h>

#include <cmath>

#include "attention/sampler.hpp"

using namespace attention;

namespace {

// Logits (V = 8), distinct so that top-k and top-p cut at known places.
const std::vector<float> kLogits = {2.0f, 1.5f, -0.5f, 0.3f, 1.0f, -1.2f, 0.8f, 0.0f};

// softmax(logits / T) over the kept tokens, 0 elsewhere.
std::vector<double> expected(double temperature, const std::vector<int>& kept) {
  std::vector<double> p(kLogits.size(), 0.0);
  double sum = 0;
  for (int i : kept) sum += p[i] = std::exp(kLogits[i] / temperature);
  for (double& v : p) v /= sum;
  return p;
}

// Pearson's statistic of `draws` seeded draws against `p`; tokens with p = 0 must not occur.
double chi_square(const SamplerSettings& s, const std::vector<double>& p, int draws, int* categories) {
  Sampler sampler(s);
  const std::vector<double> dist = sampling_distribution(kLogits.data(), 8, s, {});
  std::vector<int> counts(8, 0);
  for (int i = 0; i < draws; ++i) ++counts[sampler.next(dist, kLogits.data(), 8, {})];
  double chi = 0;
  *categories = 0;
  for (int i = 0; i < 8; ++i) {
    if (p[i] == 0) {
      EXPECT_EQ(counts[i], 0) << "token " << i << " was filtered out";
      continue;
    }
    ++*categories;
    const double e = p[i] * draws;
    chi += (counts[i] - e) * (counts[i] - e) / e;
  }
  return chi;
}

// Chi-square critical values at significance 0.001, by degrees of freedom.
double critical_0001(int df) {
  const double table[] = {0, 10.828, 13.816, 16.266, 18.467, 20.515, 22.458, 24.322};
  return table[df];
}

}  // namespace

TEST(Sampler, DrawsFollowTheRestrictedSoftmax) {
  struct Case {
    const char* name;
    SamplerSettings settings;
    std::vector<double> p;
  };
  SamplerSettings plain;
  plain.temperature = 1.0;
  SamplerSettings hot;
  hot.temperature = 2.0;
  SamplerSettings topk;
  topk.temperature = 0.7;
  topk.top_k = 4;  // 2.0, 1.5, 1.0, 0.8
  SamplerSettings topp;
  topp.top_p = 0.8;
  // Sorted: 2.0 (p .334), 1.5 (.203), 1.0 (.123), 0.8 (.101), 0.3 (.061), 0 (.045), -0.5 (.027), -1.2 (.014):
  // the smallest ones whose cumulative mass is <= 0.2 go: -1.2, -0.5, 0, 0.3 (sum .147 <= .2; + .101 > .2).
  SamplerSettings minp;
  minp.min_p = 0.3;  // keep p >= 0.3 x p(2.0): exp(x - 2) >= 0.3 <=> x >= 2 + ln 0.3 = 0.796
  SamplerSettings all;
  all.temperature = 0.5;
  all.top_k = 5;    // 2.0 1.5 1.0 0.8 0.3
  all.top_p = 0.9;  // at T 0.5 over those five: 0.3 (p .021) and 0.8 (.057) sum .078 <= .1 -> out
  all.min_p = 0.2;  // then 1.0: exp((1 - 2) / 0.5) = .135 < .2 -> out
  const Case cases[] = {
      {"plain", plain, expected(1.0, {0, 1, 2, 3, 4, 5, 6, 7})},
      {"temperature 2", hot, expected(2.0, {0, 1, 2, 3, 4, 5, 6, 7})},
      {"top-k 4 at T 0.7", topk, expected(0.7, {0, 1, 4, 6})},
      {"top-p 0.8", topp, expected(1.0, {0, 1, 4, 6})},
      {"min-p 0.3", minp, expected(1.0, {0, 1, 4, 6})},
      {"all at once", all, expected(0.5, {0, 1})},
  };
  std::uint64_t seed = 1;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    SamplerSettings s = c.settings;
    s.seed = seed++;
    // The sampler's own distribution is exactly the hand-made one...
    const std::vector<double> dist = sampling_distribution(kLogits.data(), 8, s, {});
    for (int i = 0; i < 8; ++i) EXPECT_NEAR(dist[i], c.p[i], 1e-6) << "token " << i;
    // ...and the draws follow it.
    int categories = 0;
    const double chi = chi_square(s, c.p, 20000, &categories);
    if (categories > 1) EXPECT_LT(chi, critical_0001(categories - 1)) << "chi-square " << chi;
  }
  // A wrong distribution is caught: draws at T 1 tested against T 2.
  int categories = 0;
  plain.seed = 99;
  EXPECT_GT(chi_square(plain, expected(2.0, {0, 1, 2, 3, 4, 5, 6, 7}), 20000, &categories), critical_0001(7));
}

TEST(Sampler, RepetitionPenaltyDividesPositiveAndMultipliesNegativeLogits) {
  SamplerSettings s;
  s.repetition_penalty = 2.0;
  const std::vector<double> scores = processed_scores(kLogits.data(), 8, s, {0, 2, 2, 7});
  EXPECT_DOUBLE_EQ(scores[0], 1.0);   // 2.0 / 2
  EXPECT_DOUBLE_EQ(scores[2], -1.0);  // -0.5 x 2, once however often it occurred
  EXPECT_DOUBLE_EQ(scores[7], 0.0);
  EXPECT_DOUBLE_EQ(scores[1], 1.5);  // not in the text
  // Greedy takes the argmax after the penalty: 1.5 now beats 2.0 / 2.
  s.temperature = 0;
  Sampler greedy(s);
  EXPECT_EQ(greedy.next({}, kLogits.data(), 8, {0}), 1);
  EXPECT_EQ(greedy.next({}, kLogits.data(), 8, {}), 0);
}

TEST(Sampler, TheSameSeedGivesTheSameDraws) {
  SamplerSettings s;
  s.seed = 5;
  const std::vector<double> dist = sampling_distribution(kLogits.data(), 8, s, {});
  Sampler a(s), b(s);
  std::vector<int> x, y;
  for (int i = 0; i < 50; ++i) {
    x.push_back(a.next(dist, kLogits.data(), 8, {}));
    y.push_back(b.next(dist, kLogits.data(), 8, {}));
  }
  EXPECT_EQ(x, y);
}

TEST(Sampler, BadSettingsNameTheirField) {
  auto field = [](auto change) {
    SamplerSettings s;
    change(s);
    const Status st = check_sampler_settings(s);
    return st.ok() ? std::string("ok") : st.error_value().field;
  };
  EXPECT_EQ(field([](SamplerSettings& s) { s.temperature = -1; }), "temperature");
  EXPECT_EQ(field([](SamplerSettings& s) { s.temperature = NAN; }), "temperature");
  EXPECT_EQ(field([](SamplerSettings& s) { s.top_k = -3; }), "topK");
  EXPECT_EQ(field([](SamplerSettings& s) { s.top_p = 0; }), "topP");
  EXPECT_EQ(field([](SamplerSettings& s) { s.top_p = 1.01; }), "topP");
  EXPECT_EQ(field([](SamplerSettings& s) { s.min_p = -0.1; }), "minP");
  EXPECT_EQ(field([](SamplerSettings& s) { s.repetition_penalty = -1; }), "repetitionPenalty");
  EXPECT_EQ(field([](SamplerSettings& s) { s.top_p = 1; }), "ok");
}

// The entropy a generation step shows, computed without a logarithm per token
// (sampling_distribution_and_entropy), equals -sum p log p of the same distribution, with and
// without filters, temperature and penalty; its distribution is sampling_distribution's.
TEST(Sampler, EntropyEqualsMinusSumPLogP) {
  std::vector<SamplerSettings> cases(5);
  cases[1].temperature = 0.4;
  cases[2].top_k = 3;
  cases[3].top_p = 0.7;
  cases[3].temperature = 1.7;
  cases[4].repetition_penalty = 1.3;
  cases[4].min_p = 0.1;
  for (const SamplerSettings& s : cases) {
    const Distribution d = sampling_distribution_and_entropy(kLogits.data(), 8, s, {0, 4});
    const std::vector<double> p = sampling_distribution(kLogits.data(), 8, s, {0, 4});
    EXPECT_EQ(d.p, p);
    double entropy = 0;
    for (double v : p)
      if (v > 0) entropy -= v * std::log(v);
    EXPECT_NEAR(d.entropy, entropy, 1e-12);
    EXPECT_GT(entropy, 0.1);
  }
  // One token left (top-k 1): no uncertainty.
  SamplerSettings one;
  one.top_k = 1;
  EXPECT_NEAR(sampling_distribution_and_entropy(kLogits.data(), 8, one, {}).entropy, 0.0, 1e-15);
}

// Greedy without a penalty reads the logits directly, with one the penalised scores: both the
// first largest.
TEST(Sampler, GreedyTakesTheFirstLargestWithAndWithoutPenalty) {
  const std::vector<float> tied = {0.5f, 3.0f, -1.0f, 3.0f, 2.9f};
  SamplerSettings greedy;
  greedy.temperature = 0;
  Sampler plain(greedy);
  EXPECT_EQ(plain.next({}, tied.data(), 5, {}), 1);
  greedy.repetition_penalty = 1.1;  // 3.0 / 1.1 < 2.9 for the tokens seen
  Sampler penalised(greedy);
  EXPECT_EQ(penalised.next({}, tied.data(), 5, {1, 3}), 4);
  EXPECT_EQ(penalised.next({}, tied.data(), 5, {}), 1);
}
