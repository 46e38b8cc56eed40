// Seed 001: "attention and an MLP are both weighted sums: how do they differ?"
// Edit one token and see which output rows move: a linear layer moves only that
// row; attention moves every row that can see it; under a causal mask only the
// rows at or after it.
#include <cmath>

#include "attention/linear.hpp"
#include "attention/multi_head.hpp"
#include "attention/presets.hpp"
#include "test_util.hpp"

using namespace attention;
using attention::testing::random_tensor;
using attention::testing::random_vector;

namespace {

constexpr int kSeq = 6, kEmbed = 8, kEdited = 2;

std::vector<bool> rows_that_changed(const Tensor& before, const Tensor& after) {
  std::vector<bool> changed(kSeq, false);
  for (int s = 0; s < kSeq; ++s)
    for (int e = 0; e < kEmbed; ++e)
      if (std::fabs(before.at({0, s, e}) - after.at({0, s, e})) > 1e-6f) changed[s] = true;
  return changed;
}

struct Inputs {
  Tensor original, edited;
};

Inputs original_and_edited() {
  Tensor x = random_tensor({"B", "S", "E"}, {1, kSeq, kEmbed}, 61);
  Tensor y = x;
  for (int e = 0; e < kEmbed; ++e) y.at({0, kEdited, e}) += 0.75f;  // a different token at position 2
  return {x, y};
}

Tensor attend(const Tensor& x, bool causal) {
  MultiHeadOptions options;
  options.heads = 2;
  options.causal = causal;
  MultiHeadWeights w;
  w.embed_dim = kEmbed;
  w.in_proj_weight = random_vector(3 * kEmbed * kEmbed, 62, 0.5f);
  w.in_proj_bias = random_vector(3 * kEmbed, 63);
  w.out_proj_weight = random_vector(kEmbed * kEmbed, 64, 0.5f);
  w.out_proj_bias = random_vector(kEmbed, 65);
  return multi_head_attention(x, x, x, w, options).value().output;
}

}  // namespace

TEST(Context, LinearLayerChangesOnlyTheEditedRow) {
  const Inputs in = original_and_edited();
  LinearWeights w{kEmbed, kEmbed, random_vector(kEmbed * kEmbed, 66), random_vector(kEmbed, 67)};
  const std::vector<bool> changed = rows_that_changed(linear(in.original, w, "E"), linear(in.edited, w, "E"));
  for (int s = 0; s < kSeq; ++s) EXPECT_EQ(changed[s], s == kEdited) << "row " << s;
}

TEST(Context, SelfAttentionChangesEveryRow) {
  const Inputs in = original_and_edited();
  const std::vector<bool> changed = rows_that_changed(attend(in.original, false), attend(in.edited, false));
  for (int s = 0; s < kSeq; ++s) EXPECT_TRUE(changed[s]) << "row " << s;
}

TEST(Context, CausalAttentionChangesOnlyRowsAtOrAfterTheEdit) {
  const Inputs in = original_and_edited();
  const std::vector<bool> changed = rows_that_changed(attend(in.original, true), attend(in.edited, true));
  for (int s = 0; s < kSeq; ++s) EXPECT_EQ(changed[s], s >= kEdited) << "row " << s;
}
