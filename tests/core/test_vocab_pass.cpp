// The passes of a generation step over the vocabulary (vocab_pass.hpp): the build's versions
// (wasm SIMD in the SIMD build) give the plain loops' bits, and the plain loops are the
// standard library's (std::max_element, std::exp), on rows with ties, signed zeros,
// infinities, NaNs and odd lengths. Natively both names run the plain loop, so the SIMD
// twins are checked where they are built: in the wasm-simd core_tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "attention/random.hpp"
#include "attention/vocab_pass.hpp"

using namespace attention;

namespace {

constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr double kInf = std::numeric_limits<double>::infinity();

std::uint64_t bits_of(double v) {
  std::uint64_t b = 0;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
std::uint32_t bits_of(float v) {
  std::uint32_t b = 0;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
// The same bits, or both NaN (a NaN's payload is not a result).
bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || bits_of(a) == bits_of(b); }
bool same(float a, float b) { return (std::isnan(a) && std::isnan(b)) || bits_of(a) == bits_of(b); }

double uniform(SplitMix64& rng) { return static_cast<double>(rng.next() >> 11) * (1.0 / 9007199254740992.0); }

// A row of n logits from few distinct values (ties), with the specials sprinkled in.
std::vector<float> tricky_row(SplitMix64& rng, int n, bool specials) {
  std::vector<float> x(static_cast<std::size_t>(n));
  for (float& v : x) v = static_cast<float>(rng.next() % 64) * 0.25f - 12.0f;
  if (specials) {
    const float pool[] = {0.0f, -0.0f, kInfF, -kInfF, std::numeric_limits<float>::quiet_NaN(), 1e30f, -1e30f};
    for (int k = 0; k < 1 + n / 8; ++k)
      x[static_cast<std::size_t>(rng.next() % static_cast<std::uint64_t>(n))] = pool[rng.next() % 7];
  }
  return x;
}

}  // namespace

TEST(VocabPass, MaxAndArgmaxAreMaxElements) {
  SplitMix64 rng(7);
  for (int n : {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 100, 1001, 50257})
    for (int round = 0; round < 40; ++round) {
      std::vector<float> x = tricky_row(rng, n, round % 2 == 1);
      if (round % 5 == 2) x[0] = std::numeric_limits<float>::quiet_NaN();  // max_element keeps a first NaN
      if (round % 5 == 3) std::fill(x.begin(), x.end(), round % 2 ? -0.0f : -1.0f);
      if (round % 5 == 4)
        std::replace_if(
            x.begin(), x.end(), [](float v) { return v > 0; }, 0.0f);  // largest a zero
      if (round % 5 == 4 && n > 3) x[static_cast<std::size_t>(n / 2)] = -0.0f;
      const float value = *std::max_element(x.begin(), x.end());
      const int index = static_cast<int>(std::max_element(x.begin(), x.end()) - x.begin());
      ASSERT_TRUE(same(vocab_pass::max_value_plain(x.data(), n), value)) << n << " round " << round;
      ASSERT_EQ(vocab_pass::argmax_plain(x.data(), n), index) << n << " round " << round;
      ASSERT_TRUE(same(vocab_pass::max_value(x.data(), n), value)) << n << " round " << round;
      ASSERT_EQ(vocab_pass::argmax(x.data(), n), index) << n << " round " << round;
    }
  // The first of equal maxima, wherever the vector lanes put them.
  std::vector<float> x(64, -3.0f);
  x[37] = x[41] = x[62] = 5.0f;
  EXPECT_EQ(vocab_pass::argmax(x.data(), 64), 37);
  x[2] = 5.0f;
  EXPECT_EQ(vocab_pass::argmax(x.data(), 64), 2);
  x[0] = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(vocab_pass::argmax(x.data(), 64), 0);
  EXPECT_TRUE(std::isnan(vocab_pass::max_value(x.data(), 64)));
  x[0] = -0.0f;
  x[2] = x[37] = x[41] = x[62] = 0.0f;  // -0 first: the largest is that -0
  EXPECT_EQ(bits_of(vocab_pass::max_value(x.data(), 64)), bits_of(-0.0f));
  EXPECT_EQ(vocab_pass::argmax(x.data(), 64), 0);
}

// The weights and both sums, from float logits (with and without a temperature) and from
// double scores in place: the plain loop's bits, and the plain loop's weights are std::exp's.
TEST(VocabPass, ExpWeightsAreThePlainLoops) {
  SplitMix64 rng(11);
  for (int n : {1, 2, 3, 5, 6, 7, 9, 64, 1001, 50257})
    for (int round = 0; round < 12; ++round) {
      std::vector<float> logits = tricky_row(rng, n, false);
      for (float& v : logits) v *= round < 4 ? 1.0f : round < 8 ? 0.1f : 60.0f;  // gaps beyond 512 too
      if (round % 3 == 1)
        for (int k = 0; k < 1 + n / 5; ++k) logits[static_cast<std::size_t>(rng.next() % n)] = -kInfF;
      logits[0] = round % 4 == 3 ? -0.0f : logits[0];
      for (double divisor : {1.0, 0.7, 1.9, 1e-3}) {
        const double top = static_cast<double>(*std::max_element(logits.begin(), logits.end())) / divisor;
        std::vector<double> w(static_cast<std::size_t>(n)), w_plain(static_cast<std::size_t>(n));
        const vocab_pass::WeightSums sums = vocab_pass::exp_weights(logits.data(), n, divisor, top, w.data());
        const vocab_pass::WeightSums sums_plain =
            vocab_pass::exp_weights_plain(logits.data(), n, divisor, top, w_plain.data());
        ASSERT_TRUE(same(sums.sum, sums_plain.sum)) << n << " round " << round << " divisor " << divisor;
        ASSERT_TRUE(same(sums.expected_gap, sums_plain.expected_gap)) << n << " round " << round;
        for (int i = 0; i < n; ++i) {
          const double s = divisor == 1.0 ? static_cast<double>(logits[i]) : logits[i] / divisor;
          ASSERT_TRUE(same(w[i], w_plain[i])) << n << " round " << round << " at " << i;
          ASSERT_TRUE(same(w_plain[i], s == -kInf ? 0.0 : std::exp(s - top))) << i;
        }
        // The same scores as doubles, weighed in place.
        std::vector<double> scores(static_cast<std::size_t>(n));
        for (int i = 0; i < n; ++i) scores[i] = divisor == 1.0 ? static_cast<double>(logits[i]) : logits[i] / divisor;
        const vocab_pass::WeightSums in_place = vocab_pass::exp_weights(scores.data(), n, top, scores.data());
        ASSERT_TRUE(same(in_place.sum, sums_plain.sum));
        ASSERT_TRUE(same(in_place.expected_gap, sums_plain.expected_gap));
        for (int i = 0; i < n; ++i) ASSERT_TRUE(same(scores[i], w_plain[i])) << i;
      }
    }
}

// exp_each is std::exp bit for bit over 2^22 values spread over every case of libm's exp:
// the sampler's gaps (-60..0), the whole finite range by random bits, both edges of the main
// path (|x| near 2^-54 and 512), results near overflow and in the subnormals, and the specials.
TEST(VocabPass, ExpEachIsStdExpBitForBit) {
  SplitMix64 rng(3);
  std::vector<double> x;
  const int count = 1 << 22;
  x.reserve(count + 16);
  for (int i = 0; i < count; ++i) {
    const double u = uniform(rng);
    double v = 0;
    switch (i % 8) {
      case 0:
      case 1:
      case 2:
        v = -60.0 * u;
        break;  // the sampler's gaps
      case 3:
        v = -745.2 + 1455.0 * u;
        break;  // every exponent of the result
      case 4: {
        std::uint64_t b = rng.next();
        std::memcpy(&v, &b, sizeof v);
        break;
      }  // any double
      case 5:
        v = (u < 0.5 ? -1 : 1) * std::ldexp(1.0 + u, -56 + static_cast<int>(rng.next() % 5));
        break;
      case 6:
        v = (u < 0.5 ? -512.0 : 512.0) * (1.0 + (uniform(rng) - 0.5) * 1e-6);
        break;
      default:
        v = (u < 0.5 ? -708.5 : 709.0) + (uniform(rng) - 0.5) * 3.0;
        break;  // the edges of the range
    }
    x.push_back(v);
  }
  for (double v : {0.0, -0.0, kInf, -kInf, std::numeric_limits<double>::quiet_NaN(), 1.0, -1.0, 512.0, -512.0,
                   std::ldexp(1.0, -54), -std::ldexp(1.0, -54), 1e-300, 1e300, -1e300, 709.78, -745.13})
    x.push_back(v);
  std::vector<double> y(x.size()), y_plain(x.size());
  vocab_pass::exp_each(x.data(), static_cast<int>(x.size()), y.data());
  vocab_pass::exp_each_plain(x.data(), static_cast<int>(x.size()), y_plain.data());
  int differ = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    ASSERT_TRUE(same(y_plain[i], std::exp(x[i]))) << x[i];
    if (!same(y[i], y_plain[i]) && ++differ <= 5)
      ADD_FAILURE() << "exp(" << x[i] << "): " << y[i] << " against std::exp's " << y_plain[i];
  }
  EXPECT_EQ(differ, 0);
  // In place, odd length.
  std::vector<double> z(x.begin(), x.begin() + 1001);
  vocab_pass::exp_each(z.data(), 1001, z.data());
  for (int i = 0; i < 1001; ++i) ASSERT_TRUE(same(z[i], y_plain[i])) << i;
}

// next_above finds what the plain scan finds, from every start, past runs longer than a
// vector block and with NaN weights (never skipped).
TEST(VocabPass, NextAboveIsThePlainScan) {
  SplitMix64 rng(5);
  for (int n : {1, 3, 8, 9, 17, 100, 3001}) {
    std::vector<double> w(static_cast<std::size_t>(n));
    for (double& v : w) v = uniform(rng) < 0.97 ? uniform(rng) * 0.5 : 0.5 + uniform(rng);
    if (n > 5) w[static_cast<std::size_t>(n - 3)] = std::numeric_limits<double>::quiet_NaN();
    for (double floor : {-1.0, 0.0, 0.25, 0.5, 0.9, 2.0})
      for (int from = 0; from <= n; ++from) {
        const int expected = vocab_pass::next_above_plain(w.data(), from, n, floor);
        ASSERT_EQ(vocab_pass::next_above(w.data(), from, n, floor), expected) << n << " " << floor << " " << from;
        ASSERT_TRUE(expected == n || !(w[static_cast<std::size_t>(expected)] <= floor));
        for (int i = from; i < expected; ++i) ASSERT_LE(w[static_cast<std::size_t>(i)], floor);
      }
  }
}
