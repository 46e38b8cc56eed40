#pragma once
// Helpers shared by the core tests.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "attention/random.hpp"
#include "attention/tensor.hpp"

namespace attention::testing {

inline Tensor random_tensor(std::vector<std::string> axes, std::vector<int> shape, std::uint64_t seed,
                            float amplitude = 1.0f) {
  Tensor t(std::move(axes), std::move(shape));
  SplitMix64 rng(seed);
  for (float& v : t.data) v = amplitude * rng.symmetric_unit();
  return t;
}

inline std::vector<float> random_vector(std::size_t n, std::uint64_t seed, float amplitude = 1.0f) {
  std::vector<float> v(n);
  SplitMix64 rng(seed);
  for (float& x : v) x = amplitude * rng.symmetric_unit();
  return v;
}

// |actual - expected| <= rtol * max(1, |expected|), element by element, reporting
// the first offender.
inline ::testing::AssertionResult all_close(const std::vector<float>& actual, const std::vector<double>& expected,
                                            double rtol) {
  if (actual.size() != expected.size())
    return ::testing::AssertionFailure() << "size " << actual.size() << " != expected " << expected.size();
  for (std::size_t i = 0; i < actual.size(); ++i) {
    const double tolerance = rtol * std::max(1.0, std::fabs(expected[i]));
    if (!(std::fabs(actual[i] - expected[i]) <= tolerance))
      return ::testing::AssertionFailure() << "element " << i << ": " << actual[i] << " vs expected " << expected[i];
  }
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult all_close(const std::vector<float>& actual, const std::vector<float>& expected,
                                            double rtol) {
  return all_close(actual, std::vector<double>(expected.begin(), expected.end()), rtol);
}

}  // namespace attention::testing
