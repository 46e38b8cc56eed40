// Scaled dot-product attention stage by stage: shapes, the sqrt(d_k) factor, the
// softmax axis, masks, and the scalar reference against the Eigen path.
#include "attention/attention.hpp"

#include <cmath>
#include <limits>
#include <tuple>

#include "attention/masks.hpp"
#include "test_util.hpp"

using namespace attention;
using attention::testing::all_close;
using attention::testing::random_tensor;

namespace {

struct Inputs {
  Tensor q, k, v;
};

Inputs random_inputs(int b, int h, int sq, int sk, int dk, int dv, std::uint64_t seed) {
  return {random_tensor({"B", "H", "Sq", "d_k"}, {b, h, sq, dk}, seed),
          random_tensor({"B", "H", "Sk", "d_k"}, {b, h, sk, dk}, seed + 1),
          random_tensor({"B", "H", "Sk", "d_v"}, {b, h, sk, dv}, seed + 2)};
}

constexpr float kInf = std::numeric_limits<float>::infinity();

}  // namespace

// Seed 003: batch 2, padded length 3, d_model 4 (one head): scores are (2, 3, 3)
// per head, and the scale is sqrt(d_k) = sqrt(4) = 2, not sqrt(3) (the length).
TEST(Attention, Seed003ShapesAndScale) {
  const Inputs in = random_inputs(2, 1, 3, 3, 4, 4, 3);
  const AttentionStages st = scaled_dot_product_attention(in.q, in.k, in.v, nullptr, true);
  const std::vector<int> score_shape{2, 1, 3, 3};
  EXPECT_EQ(st.scores.shape, score_shape);
  EXPECT_EQ(st.scaled.shape, score_shape);
  EXPECT_EQ(st.masked.shape, score_shape);
  EXPECT_EQ(st.weights.shape, score_shape);
  EXPECT_EQ(st.output.shape, (std::vector<int>{2, 1, 3, 4}));
  EXPECT_EQ(st.scores.axes, (std::vector<std::string>{"B", "H", "Sq", "Sk"}));
  for (std::size_t i = 0; i < st.scores.size(); ++i) EXPECT_FLOAT_EQ(st.scaled.data[i], st.scores.data[i] / 2.0f);
  // scores[b,0,i,j] is the dot product of query i and key j
  float dot = 0;
  for (int d = 0; d < 4; ++d) dot += in.q.at({1, 0, 2, d}) * in.k.at({1, 0, 0, d});
  EXPECT_NEAR(st.scores.at({1, 0, 2, 0}), dot, 1e-6);
}

TEST(Attention, ScalingCanBeSwitchedOff) {
  const Inputs in = random_inputs(1, 2, 4, 4, 16, 16, 5);
  const AttentionStages off = scaled_dot_product_attention(in.q, in.k, in.v, nullptr, false);
  EXPECT_EQ(off.scaled.data, off.scores.data);
  const AttentionStages on = scaled_dot_product_attention(in.q, in.k, in.v, nullptr, true);
  for (std::size_t i = 0; i < on.scores.size(); ++i) EXPECT_FLOAT_EQ(on.scaled.data[i] * 4.0f, on.scores.data[i]);
}

TEST(Attention, SoftmaxRunsOverKeysAndRowsSumToOne) {
  const Inputs in = random_inputs(2, 3, 4, 6, 8, 5, 7);
  const AttentionStages st = scaled_dot_product_attention(in.q, in.k, in.v, nullptr, true);
  for (std::size_t row = 0; row < 2 * 3 * 4; ++row) {
    double sum = 0;
    for (int j = 0; j < 6; ++j) {
      const float w = st.weights.data[row * 6 + j];
      EXPECT_GT(w, 0.0f);
      sum += w;
    }
    EXPECT_NEAR(sum, 1.0, 1e-6);
  }
}

TEST(Attention, CausalMaskGivesALowerTriangle) {
  const Inputs in = random_inputs(1, 2, 5, 5, 4, 4, 9);
  const Tensor causal = causal_mask(5, 5);
  Result<Tensor> blocked = combine_masks(1, 5, 5, nullptr, &causal);
  ASSERT_TRUE(blocked.ok());
  const AttentionStages st = scaled_dot_product_attention(in.q, in.k, in.v, &blocked.value(), true);
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 5; ++i) {
      double sum = 0;
      for (int j = 0; j < 5; ++j) {
        const float w = st.weights.at({0, h, i, j});
        if (j > i) {
          EXPECT_EQ(w, 0.0f) << "future key " << j << " for query " << i;
          EXPECT_EQ(st.masked.at({0, h, i, j}), -kInf);
        } else {
          EXPECT_GT(w, 0.0f);
          EXPECT_EQ(st.masked.at({0, h, i, j}), st.scaled.at({0, h, i, j}));
        }
        sum += w;
      }
      EXPECT_NEAR(sum, 1.0, 1e-6);
    }
  // The first query can only see itself.
  EXPECT_FLOAT_EQ(st.weights.at({0, 0, 0, 0}), 1.0f);
}

TEST(Attention, PaddedKeysGetExactlyZeroWeight) {
  const Inputs in = random_inputs(2, 2, 4, 4, 4, 4, 13);
  const Tensor pad = key_padding_mask({4, 2}, 4);
  Result<Tensor> blocked = combine_masks(2, 4, 4, &pad, nullptr);
  const AttentionStages st = scaled_dot_product_attention(in.q, in.k, in.v, &blocked.value(), true);
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 4; ++i) {
      EXPECT_EQ(st.weights.at({1, h, i, 2}), 0.0f);
      EXPECT_EQ(st.weights.at({1, h, i, 3}), 0.0f);
      EXPECT_NEAR(st.weights.at({1, h, i, 0}) + st.weights.at({1, h, i, 1}), 1.0f, 1e-6);
      EXPECT_GT(st.weights.at({0, h, i, 3}), 0.0f);  // sequence 0 is unpadded
    }
}

TEST(Attention, CrossAttentionHasSqBySkScores) {
  const Inputs in = random_inputs(2, 4, 3, 7, 8, 8, 17);
  const AttentionStages st = scaled_dot_product_attention(in.q, in.k, in.v, nullptr, true);
  EXPECT_EQ(st.weights.shape, (std::vector<int>{2, 4, 3, 7}));
  EXPECT_EQ(st.output.shape, (std::vector<int>{2, 4, 3, 8}));
}

TEST(Attention, FullyMaskedRowGivesZeroWeightsAndZeroOutputNotNaN) {
  const Inputs in = random_inputs(2, 2, 3, 3, 4, 4, 19);
  const Tensor pad = key_padding_mask({3, 0}, 3);  // sequence 1 has no real keys at all
  Result<Tensor> blocked = combine_masks(2, 3, 3, &pad, nullptr);
  const AttentionStages st = scaled_dot_product_attention(in.q, in.k, in.v, &blocked.value(), true);
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 3; ++j) EXPECT_EQ(st.weights.at({1, h, i, j}), 0.0f);
      for (int d = 0; d < 4; ++d) EXPECT_EQ(st.output.at({1, h, i, d}), 0.0f);
    }
  for (float v : st.output.data) EXPECT_FALSE(std::isnan(v));
}

TEST(Attention, SoftmaxIsStableForHugeScores) {
  float row[3] = {1e30f, 1e30f - 1e25f, -1e30f};
  softmax_row(row, 3);
  for (float v : row) EXPECT_TRUE(std::isfinite(v));
  EXPECT_NEAR(row[0] + row[1] + row[2], 1.0f, 1e-6);
}

// The reference is the spec: the Eigen path must agree with it on many shapes,
// including sizes that are not multiples of any SIMD width.
class ReferenceAgreement : public ::testing::TestWithParam<std::tuple<int, int, int, int, int>> {};

TEST_P(ReferenceAgreement, EigenMatchesScalarReference) {
  const auto [b, h, sq, sk, dk] = GetParam();
  const Inputs in = random_inputs(b, h, sq, sk, dk, dk, 1000 + sq * 7 + sk * 13 + dk);
  const Tensor pad = key_padding_mask(std::vector<int>(b, std::max(1, sk - 1)), sk);
  Result<Tensor> blocked = combine_masks(b, sq, sk, &pad, nullptr);
  for (bool masked : {false, true}) {
    const Tensor* mask = masked ? &blocked.value() : nullptr;
    const AttentionStages ref = scaled_dot_product_attention(in.q, in.k, in.v, mask, true, Backend::Reference);
    const AttentionStages fast = scaled_dot_product_attention(in.q, in.k, in.v, mask, true, Backend::Fast);
    EXPECT_TRUE(all_close(fast.scores.data, ref.scores.data, 1e-5));
    EXPECT_TRUE(all_close(fast.weights.data, ref.weights.data, 1e-5));
    EXPECT_TRUE(all_close(fast.output.data, ref.output.data, 1e-5));
  }
}

INSTANTIATE_TEST_SUITE_P(OddShapes, ReferenceAgreement,
                         ::testing::Values(std::make_tuple(1, 1, 1, 1, 1), std::make_tuple(1, 2, 3, 5, 3),
                                           std::make_tuple(2, 3, 5, 17, 7), std::make_tuple(1, 4, 17, 17, 16),
                                           std::make_tuple(2, 1, 63, 65, 5), std::make_tuple(1, 2, 65, 63, 33)));
