#pragma once
// Helpers shared by the core tests.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "attention/random.hpp"
#include "attention/spec.hpp"
#include "attention/tensor.hpp"

namespace attention::testing {

// A small GPT-2-shaped decoder (learned positions, pre-norm, a final norm, tanh-GELU, the head
// tied to the embeddings): vocabulary 50, d_model 32, 4 heads, FFN 64, 24 positions; callers
// change the sizes they need.
inline ModelSpec gpt2_like_spec(int layers = 2) {
  ModelSpec s;
  s.vocab_size = 50;
  s.d_model = 32;
  s.heads = 4;
  s.layers = layers;
  s.ffn_dim = 64;
  s.max_seq = 24;
  s.positions = Positions::Learned;
  s.causal = true;
  s.norm = NormPlacement::Pre;
  s.final_norm = true;
  s.activation = Activation::GELUTanh;
  s.head = OutputHead::Tied;
  return s;
}

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
