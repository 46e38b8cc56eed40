// The sampler (sampler.hpp) against distributions computed here by hand: over 20,000
// seeded draws the frequencies match softmax(logits / T) restricted by top-k, top-p and
// min-p (Pearson's chi-square, significance 0.001: with fixed seeds the test is
// deterministic, and a wrong distribution lands far beyond the critical value); filtered
// tokens are never drawn; the repetition penalty divides positive and multiplies negative
// logits (transformers' RepetitionPenaltyLogitsProcessor); greedy is the argmax.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

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
  EXPECT_EQ(greedy.next(std::vector<double>{}, kLogits.data(), 8, {0}), 1);
  EXPECT_EQ(greedy.next(std::vector<double>{}, kLogits.data(), 8, {}), 0);
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
    Distribution d;
    sampling_distribution_and_entropy(kLogits.data(), 8, s, {0, 4}, d);
    const std::vector<double> p = sampling_distribution(kLogits.data(), 8, s, {0, 4});
    for (int i = 0; i < 8; ++i) EXPECT_EQ(d.probability(i), p[i]) << i;  // bit for bit
    double entropy = 0;
    for (double v : p)
      if (v > 0) entropy -= v * std::log(v);
    EXPECT_NEAR(d.entropy, entropy, 1e-12);
    EXPECT_GT(entropy, 0.1);
  }
  // One token left (top-k 1): no uncertainty.
  SamplerSettings one;
  one.top_k = 1;
  Distribution single;
  sampling_distribution_and_entropy(kLogits.data(), 8, one, {}, single);
  EXPECT_NEAR(single.entropy, 0.0, 1e-15);
}

namespace {

// A vocabulary of 3000 logits with repeated values (ties) for the step's fast paths below.
std::vector<float> tied_logits() {
  std::vector<float> logits(3000);
  SplitMix64 rng(17);
  for (float& v : logits) v = static_cast<float>(rng.next() % 400) * 0.02f - 4.0f;
  return logits;
}

std::vector<SamplerSettings> step_cases() {
  std::vector<SamplerSettings> cases(5);
  cases[1].temperature = 0.6;
  cases[1].repetition_penalty = 1.4;
  cases[2].top_k = 7;  // fewer tokens with mass than some counts below
  cases[3].top_p = 0.5;
  cases[4].min_p = 0.05;
  cases[4].temperature = 1.3;
  for (std::size_t i = 0; i < cases.size(); ++i) cases[i].seed = 40 + i;
  return cases;
}

// Top-p as transformers' TopPLogitsWarper computes it, by a comparison sort: the tokens in
// ascending order of score (std::stable_sort: ties by id), out while the mass summed from the
// smallest up stays <= 1 - top_p, never the largest. The sampler's cut must equal it bit for bit.
std::vector<double> top_p_by_stable_sort(std::vector<double> scores, double top_p) {
  const double top = *std::max_element(scores.begin(), scores.end());
  std::vector<double> p(scores.size());
  double sum = 0;
  for (std::size_t i = 0; i < p.size(); ++i)
    sum += p[i] = scores[i] == -std::numeric_limits<double>::infinity() ? 0.0 : std::exp(scores[i] - top);
  for (double& v : p) v /= sum;
  std::vector<int> order(scores.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return scores[a] < scores[b]; });
  double cumulative = 0;
  for (std::size_t i = 0; i + 1 < order.size(); ++i) {
    cumulative += p[order[i]];
    if (cumulative <= 1.0 - top_p) scores[order[i]] = -std::numeric_limits<double>::infinity();
  }
  return scores;
}

}  // namespace

TEST(Sampler, TopPCutsWhereTheStableSortDoes) {
  std::vector<float> logits = tied_logits();
  logits[10] = 0.0f;  // signed zeros compare equal: ties kept in id order
  logits[11] = -0.0f;
  logits[12] = 0.0f;
  const int vocab = static_cast<int>(logits.size());
  for (double temperature : {1.0, 0.35})
    for (int top_k : {0, 40})
      for (double top_p : {0.02, 0.3, 0.5, 0.9, 0.999}) {
        SamplerSettings s;
        s.temperature = temperature;
        s.top_k = top_k;
        SamplerSettings before_top_p = s;
        s.top_p = top_p;
        const std::vector<double> expected =
            top_p_by_stable_sort(processed_scores(logits.data(), vocab, before_top_p, {}), top_p);
        const std::vector<double> actual = processed_scores(logits.data(), vocab, s, {});
        EXPECT_EQ(actual, expected) << "T " << temperature << " top-k " << top_k << " top-p " << top_p;
        const auto kept = std::count_if(actual.begin(), actual.end(), [](double v) { return std::isfinite(v); });
        EXPECT_GE(kept, 1);
        if (top_p <= 0.5) EXPECT_LT(kept, top_k > 0 ? top_k : vocab);  // the cut removed tokens
      }
}

// The cut inside a run of equal scores that mixes +0 and -0 (equal as numbers: the stable
// order keeps them by id): e^3, four zeros, e^-1 over 24.45; with top-p 0.88 the mass allowed
// out (0.12) takes the -1 and the first two zeros by id (cumulative 0.097, the third would
// make 0.138).
TEST(Sampler, TopPKeepsSignedZerosInIdOrder) {
  const std::vector<float> logits = {3.0f, 0.0f, -0.0f, 0.0f, -0.0f, -1.0f};
  SamplerSettings s;
  s.top_p = 0.88;
  const std::vector<double> scores = processed_scores(logits.data(), 6, s, {});
  const double out = -std::numeric_limits<double>::infinity();
  EXPECT_EQ(scores, (std::vector<double>{3.0, out, out, 0.0, -0.0, out}));
  EXPECT_EQ(scores, top_p_by_stable_sort(std::vector<double>(logits.begin(), logits.end()), 0.88));
}

// A step's candidates (top_candidates, one pass) are a full sort's first `count`: probability
// descending, the lower id first on ties, tokens without mass last.
TEST(Sampler, TopCandidatesAreAFullSortsFirst) {
  const std::vector<float> logits = tied_logits();
  const int vocab = static_cast<int>(logits.size());
  const std::vector<int> history = {3, 9, 9, 2999};
  for (const SamplerSettings& s : step_cases()) {
    Distribution d;
    sampling_distribution_and_entropy(logits.data(), vocab, s, history, d);
    const std::vector<double> p = sampling_distribution(logits.data(), vocab, s, history);
    std::vector<int> order(static_cast<std::size_t>(vocab));
    for (int i = 0; i < vocab; ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return p[a] > p[b]; });
    for (int count : {0, 1, 10, 64, vocab, vocab + 5}) {
      const std::vector<std::pair<int, double>> top = top_candidates(d, count);
      ASSERT_EQ(static_cast<int>(top.size()), std::min(count, vocab));
      for (std::size_t i = 0; i < top.size(); ++i) {
        EXPECT_EQ(top[i].first, order[i]) << "count " << count << " rank " << i;
        EXPECT_EQ(top[i].second, p[order[i]]);
      }
    }
  }
}

// Draws from a step's Distribution are the draws from the probability vector, seed for seed.
TEST(Sampler, DrawsFromTheStepDistributionEqualTheVectorsDraws) {
  const std::vector<float> logits = tied_logits();
  const int vocab = static_cast<int>(logits.size());
  for (const SamplerSettings& s : step_cases()) {
    Distribution d;
    sampling_distribution_and_entropy(logits.data(), vocab, s, {5, 6}, d);
    const std::vector<double> p = sampling_distribution(logits.data(), vocab, s, {5, 6});
    Sampler from_step(s), from_vector(s);
    std::set<int> distinct;
    for (int i = 0; i < 2000; ++i) {
      const int token = from_step.next(d, logits.data(), vocab, {5, 6});
      ASSERT_EQ(token, from_vector.next(p, logits.data(), vocab, {5, 6})) << "draw " << i;
      distinct.insert(token);
    }
    EXPECT_GT(distinct.size(), 3u);  // real draws, not one token
  }
}

// Greedy without a penalty reads the logits directly, with one the penalised scores: both the
// first largest.
TEST(Sampler, GreedyTakesTheFirstLargestWithAndWithoutPenalty) {
  const std::vector<float> tied = {0.5f, 3.0f, -1.0f, 3.0f, 2.9f};
  SamplerSettings greedy;
  greedy.temperature = 0;
  Sampler plain(greedy);
  EXPECT_EQ(plain.next(std::vector<double>{}, tied.data(), 5, {}), 1);
  greedy.repetition_penalty = 1.1;  // 3.0 / 1.1 < 2.9 for the tokens seen
  Sampler penalised(greedy);
  EXPECT_EQ(penalised.next(std::vector<double>{}, tied.data(), 5, {1, 3}), 4);
  EXPECT_EQ(penalised.next(std::vector<double>{}, tied.data(), 5, {}), 1);
}

// Without a penalty or filters a step reads its scores straight from the float logits (the
// largest logit / T as the maximum, the weights two at a time with wasm SIMD): over a GPT-2
// sized vocabulary with ties and a spread beyond exp's main path, its probabilities are
// sampling_distribution's (the scores copied, max_element, std::exp) bit for bit.
TEST(Sampler, StepDistributionFromTheLogitsIsTheSoftmaxsBits) {
  std::vector<float> logits(50257);
  SplitMix64 rng(23);
  for (float& v : logits) v = static_cast<float>(rng.next() % 4000) * 0.01f - 20.0f;  // about 12 of each value
  logits[7] = -700.0f;  // a gap beyond 512 at T = 1 (at T = 0.05, most gaps are)
  logits[100] = 0.0f;
  logits[50256] = -0.0f;
  for (double temperature : {1.0, 0.7, 1.3, 0.05}) {
    SamplerSettings s;
    s.temperature = temperature;
    Distribution d;
    sampling_distribution_and_entropy(logits.data(), 50257, s, {1, 2, 3}, d);
    const std::vector<double> p = sampling_distribution(logits.data(), 50257, s, {1, 2, 3});
    int differ = 0;
    for (int i = 0; i < 50257; ++i) differ += d.probability(i) != p[i];
    EXPECT_EQ(differ, 0) << "T " << temperature;
    double entropy = 0;
    for (double v : p)
      if (v > 0) entropy -= v * std::log(v);
    EXPECT_NEAR(d.entropy, entropy, 1e-9) << "T " << temperature;
    EXPECT_GT(d.entropy, 0.5);
  }
}
