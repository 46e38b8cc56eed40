// Seed 004: heads are a logical split of one projection. Multi-head attention must
// equal H single-head attentions on sliced weights, and split/merge are inverses.
#include "attention/multi_head.hpp"

#include <cmath>
#include <limits>

#include "attention/attention.hpp"
#include "attention/linear.hpp"
#include "attention/masks.hpp"
#include "test_util.hpp"

using namespace attention;
using attention::testing::all_close;
using attention::testing::random_tensor;
using attention::testing::random_vector;

namespace {

MultiHeadWeights random_weights(int e, std::uint64_t seed) {
  MultiHeadWeights w;
  w.embed_dim = e;
  const std::size_t ue = static_cast<std::size_t>(e);
  w.in_proj_weight = random_vector(3 * ue * ue, seed, 0.5f);
  w.in_proj_bias = random_vector(3 * ue, seed + 1, 0.5f);
  w.out_proj_weight = random_vector(ue * ue, seed + 2, 0.5f);
  w.out_proj_bias = random_vector(ue, seed + 3, 0.5f);
  return w;
}

// Rows [row0, row0 + n) of a (rows, e) matrix as LinearWeights.
LinearWeights slice_rows(const std::vector<float>& weight, const std::vector<float>& bias, int row0, int n, int e) {
  LinearWeights w;
  w.in_features = e;
  w.out_features = n;
  w.weight = std::vector<float>(weight.begin() + static_cast<std::ptrdiff_t>(row0) * e,
                                weight.begin() + static_cast<std::ptrdiff_t>(row0 + n) * e);
  w.bias = std::vector<float>(bias.begin() + row0, bias.begin() + row0 + n);
  return w;
}

// (B, S, n) -> (B, 1, S, n)
Tensor as_one_head(Tensor t, const char* seq_axis) {
  t.axes = {"B", "H", seq_axis, "d_k"};
  t.shape.insert(t.shape.begin() + 1, 1);
  return t;
}

}  // namespace

TEST(MultiHead, Seed003EveryStageShape) {
  // B = 2 sentences, padded length S = 3, E = 4, H = 2 so d_k = 2.
  const Tensor x = random_tensor({"B", "S", "E"}, {2, 3, 4}, 1);
  const Tensor pad = key_padding_mask({3, 2}, 3);
  MultiHeadOptions options;
  options.heads = 2;
  options.key_padding_mask = &pad;
  Trace trace;
  Result<MultiHeadResult> r = multi_head_attention(x, x, x, random_weights(4, 2), options, Recorder(&trace, 0, ""));
  ASSERT_TRUE(r.ok()) << r.error();
  const std::vector<std::pair<std::string, std::vector<int>>> expected = {
      {"q_proj", {2, 3, 4}},     {"k_proj", {2, 3, 4}},     {"v_proj", {2, 3, 4}},     {"q_split", {2, 3, 2, 2}},
      {"q_heads", {2, 2, 3, 2}}, {"k_heads", {2, 2, 3, 2}}, {"v_heads", {2, 2, 3, 2}}, {"mask.padding", {2, 3}},
      {"mask", {2, 3, 3}},       {"scores", {2, 2, 3, 3}},  {"scaled", {2, 2, 3, 3}},  {"masked", {2, 2, 3, 3}},
      {"weights", {2, 2, 3, 3}}, {"context", {2, 2, 3, 2}}, {"merged", {2, 3, 4}},     {"output", {2, 3, 4}}};
  ASSERT_EQ(trace.stages.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(trace.stages[i].name, expected[i].first);
    EXPECT_EQ(trace.stages[i].tensor.shape, expected[i].second) << expected[i].first;
    EXPECT_EQ(trace.stages[i].tensor.axes.size(), expected[i].second.size()) << expected[i].first;
  }
  EXPECT_EQ(trace.find(0, "q_split")->tensor.axes, (std::vector<std::string>{"B", "Sq", "H", "d_k"}));
  EXPECT_EQ(r.value().output.shape, (std::vector<int>{2, 3, 4}));
  EXPECT_EQ(r.value().weights.shape, (std::vector<int>{2, 2, 3, 3}));
}

TEST(MultiHead, EqualsSeparateSingleHeadAttentionsOnSlicedWeights) {
  const int batch = 2, sq = 4, sk = 5, e = 12, heads = 3, dk = e / heads;
  const Tensor query = random_tensor({"B", "Sq", "E"}, {batch, sq, e}, 21);
  const Tensor memory = random_tensor({"B", "Sk", "E"}, {batch, sk, e}, 22);
  const MultiHeadWeights w = random_weights(e, 23);
  MultiHeadOptions options;
  options.heads = heads;
  Result<MultiHeadResult> r = multi_head_attention(query, memory, memory, w, options);
  ASSERT_TRUE(r.ok()) << r.error();

  // Head h by hand: its own d_k rows of W_q, W_k, W_v, attention, then its d_k
  // columns of the output projection; the heads' contributions add up.
  std::vector<float> output(static_cast<std::size_t>(batch) * sq * e, 0.0f);
  for (int b = 0; b < batch; ++b)
    for (int s = 0; s < sq; ++s)
      for (int o = 0; o < e; ++o) output[(b * sq + s) * e + o] = w.out_proj_bias[o];
  for (int h = 0; h < heads; ++h) {
    const Tensor q = as_one_head(
        linear(query, slice_rows(w.in_proj_weight.values(), w.in_proj_bias.values(), h * dk, dk, e), "d"), "Sq");
    const Tensor k = as_one_head(
        linear(memory, slice_rows(w.in_proj_weight.values(), w.in_proj_bias.values(), e + h * dk, dk, e), "d"), "Sk");
    const Tensor v = as_one_head(
        linear(memory, slice_rows(w.in_proj_weight.values(), w.in_proj_bias.values(), 2 * e + h * dk, dk, e), "d"),
        "Sk");
    const AttentionStages single = scaled_dot_product_attention(q, k, v, nullptr, true, Backend::Reference);
    for (int b = 0; b < batch; ++b)
      for (int i = 0; i < sq; ++i) {
        for (int j = 0; j < sk; ++j)
          EXPECT_NEAR(r.value().weights.at({b, h, i, j}), single.weights.at({b, 0, i, j}), 1e-5);
        for (int o = 0; o < e; ++o)
          for (int d = 0; d < dk; ++d)
            output[(b * sq + i) * e + o] += w.out_proj_weight[o * e + h * dk + d] * single.output.at({b, 0, i, d});
      }
  }
  EXPECT_TRUE(all_close(r.value().output.data, output, 1e-5));
}

TEST(MultiHead, SplitThenMergeIsTheIdentity) {
  const Tensor x = random_tensor({"B", "S", "E"}, {3, 5, 12}, 31);
  const Tensor heads = split_heads(x, 4);
  EXPECT_EQ(heads.shape, (std::vector<int>{3, 4, 5, 3}));
  // Head 2 of position 1 is features 6..8 of that position.
  EXPECT_EQ(heads.at({0, 2, 1, 0}), x.at({0, 1, 6}));
  EXPECT_EQ(heads.at({2, 3, 4, 2}), x.at({2, 4, 11}));
  const Tensor back = merge_heads(heads);
  EXPECT_EQ(back.shape, x.shape);
  EXPECT_EQ(back.data, x.data);
  EXPECT_EQ(view_as_heads(x, 4).shape, (std::vector<int>{3, 5, 4, 3}));
}

TEST(MultiHead, ReferenceAndEigenBackendsAgree) {
  const Tensor x = random_tensor({"B", "S", "E"}, {2, 7, 10}, 41);
  const MultiHeadWeights w = random_weights(10, 42);
  MultiHeadOptions options;
  options.heads = 5;
  options.causal = true;
  Result<MultiHeadResult> fast = multi_head_attention(x, x, x, w, options);
  options.backend = Backend::Reference;
  Result<MultiHeadResult> ref = multi_head_attention(x, x, x, w, options);
  EXPECT_TRUE(all_close(fast.value().output.data, ref.value().output.data, 1e-5));
  EXPECT_TRUE(all_close(fast.value().weights.data, ref.value().weights.data, 1e-5));
}

TEST(MultiHead, InvalidInputsAreErrorsWithClearMessages) {
  const Tensor x = random_tensor({"B", "S", "E"}, {1, 3, 6}, 51);
  MultiHeadWeights w = random_weights(6, 52);
  MultiHeadOptions options;
  options.heads = 4;
  Result<MultiHeadResult> r = multi_head_attention(x, x, x, w, options);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error(), "embed_dim 6 is not divisible by heads 4");

  options.heads = 0;
  EXPECT_EQ(multi_head_attention(x, x, x, w, options).error(), "heads must be positive, got 0");

  options.heads = 2;
  std::vector<float> short_bias = w.in_proj_bias.values();
  short_bias.pop_back();
  w.in_proj_bias = short_bias;
  EXPECT_EQ(multi_head_attention(x, x, x, w, options).error(), "in_proj_bias has 17 values, expected 3E = 18");

  w = random_weights(6, 52);
  const Tensor other_batch = random_tensor({"B", "S", "E"}, {2, 3, 6}, 53);
  EXPECT_EQ(multi_head_attention(x, other_batch, other_batch, w, options).error(),
            "query, key and value must have the same batch size");

  const Tensor wrong_mask({"Sq", "Sk"}, {2, 3});
  options.attn_mask = &wrong_mask;
  EXPECT_NE(multi_head_attention(x, x, x, w, options).error().find("attention mask has shape (2, 3)"),
            std::string::npos);
  options.causal = true;  // the causal path must report the same
  EXPECT_NE(multi_head_attention(x, x, x, w, options).error().find("attention mask has shape (2, 3)"),
            std::string::npos);
}

TEST(MultiHead, NonFiniteInputsAndOverflowAreErrorsNotNaN) {
  const MultiHeadWeights w = random_weights(4, 71);
  MultiHeadOptions options;
  options.heads = 2;
  Tensor x = random_tensor({"B", "S", "E"}, {1, 3, 4}, 72);
  x.at({0, 1, 2}) = std::numeric_limits<float>::quiet_NaN();
  EXPECT_EQ(multi_head_attention(x, x, x, w, options).error(), "query[6] is NaN; inputs must be finite numbers");
  x.at({0, 1, 2}) = std::numeric_limits<float>::infinity();
  EXPECT_EQ(multi_head_attention(x, x, x, w, options).error(), "query[6] is Infinity; inputs must be finite numbers");
  // Finite but huge: scores overflow float32. Either a finite answer or a clear error, never NaN.
  for (float big : {1e30f, -1e30f, 1e18f}) {
    x = random_tensor({"B", "S", "E"}, {1, 3, 4}, 73);
    x.at({0, 0, 0}) = big;
    Result<MultiHeadResult> r = multi_head_attention(x, x, x, w, options);
    if (r.ok()) {
      for (float v : r.value().output.data) EXPECT_TRUE(std::isfinite(v));
      for (float v : r.value().weights.data) EXPECT_TRUE(std::isfinite(v));
    } else {
      EXPECT_NE(r.error().find("numeric overflow"), std::string::npos) << r.error();
    }
  }
}

TEST(MultiHead, OverflowingScoresStillGiveADistribution) {
  float row[4] = {std::numeric_limits<float>::infinity(), 1.0f, std::numeric_limits<float>::infinity(),
                  -std::numeric_limits<float>::infinity()};
  softmax_row(row, 4);
  EXPECT_EQ(row[0], 0.5f);
  EXPECT_EQ(row[1], 0.0f);
  EXPECT_EQ(row[2], 0.5f);
  EXPECT_EQ(row[3], 0.0f);
}

TEST(MultiHead, PackedWeightsAreReusedAndNeverStale) {
  const Tensor x = random_tensor({"B", "S", "E"}, {2, 5, 12}, 81);
  MultiHeadWeights w = random_weights(12, 82);
  MultiHeadOptions options;
  options.heads = 3;
  const Result<MultiHeadResult> first = multi_head_attention(x, x, x, w, options);  // packs on first use
  const Result<MultiHeadResult> again = multi_head_attention(x, x, x, w, options);  // reuses the panels
  EXPECT_EQ(again.value().output.data, first.value().output.data);
  EXPECT_EQ(again.value().weights.data, first.value().weights.data);
  options.backend = Backend::Reference;
  const Result<MultiHeadResult> reference = multi_head_attention(x, x, x, w, options);
  EXPECT_TRUE(all_close(first.value().output.data, reference.value().output.data, 1e-5));

  // A write through the parameter bumps its version: the next call must use the new values.
  const std::uint64_t before = w.in_proj_weight.version();
  for (float& v : w.in_proj_weight.mutable_values()) v *= -0.5f;
  EXPECT_NE(w.in_proj_weight.version(), before);
  w.out_proj_weight = random_vector(12 * 12, 83, 0.5f);
  options.backend = Backend::Fast;
  const Result<MultiHeadResult> changed = multi_head_attention(x, x, x, w, options);
  options.backend = Backend::Reference;
  const Result<MultiHeadResult> changed_reference = multi_head_attention(x, x, x, w, options);
  EXPECT_TRUE(all_close(changed.value().output.data, changed_reference.value().output.data, 1e-5));
  EXPECT_FALSE(all_close(changed.value().output.data, first.value().output.data, 1e-3));

  // Cross-attention packs the K and V rows (fused) and the Q rows once each, and follows writes too.
  const Tensor memory = random_tensor({"B", "S", "E"}, {2, 4, 12}, 84);
  options.backend = Backend::Fast;
  const Result<MultiHeadResult> cross = multi_head_attention(x, memory, memory, w, options);
  options.backend = Backend::Reference;
  EXPECT_TRUE(all_close(cross.value().output.data,
                        multi_head_attention(x, memory, memory, w, options).value().output.data, 1e-5));
  for (float& v : w.in_proj_weight.mutable_values()) v += 0.25f;
  options.backend = Backend::Fast;
  const Result<MultiHeadResult> cross_changed = multi_head_attention(x, memory, memory, w, options);
  options.backend = Backend::Reference;
  EXPECT_TRUE(all_close(cross_changed.value().output.data,
                        multi_head_attention(x, memory, memory, w, options).value().output.data, 1e-5));
}
