#include "attention/masks.hpp"

#include <gtest/gtest.h>

using namespace attention;

TEST(Masks, KeyPaddingFromLengths) {
  const Tensor m = key_padding_mask({3, 1, 0}, 3);
  EXPECT_EQ(m.shape, (std::vector<int>{3, 3}));
  EXPECT_EQ(m.data, (std::vector<float>{0, 0, 0, 0, 1, 1, 1, 1, 1}));
}

TEST(Masks, CausalBlocksTheFuture) {
  const Tensor m = causal_mask(3, 3);
  EXPECT_EQ(m.data, (std::vector<float>{0, 1, 1, 0, 0, 1, 0, 0, 0}));
}

TEST(Masks, CombineIsTheUnionPerSequence) {
  const Tensor pad = key_padding_mask({3, 2}, 3);
  const Tensor causal = causal_mask(3, 3);
  Result<Tensor> m = combine_masks(2, 3, 3, &pad, &causal);
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m.value().shape, (std::vector<int>{2, 3, 3}));
  // Sequence 0: causal only. Sequence 1: causal plus key 2 padded.
  EXPECT_EQ(m.value().data, (std::vector<float>{0, 1, 1, 0, 0, 1, 0, 0, 0, /* b=1 */ 0, 1, 1, 0, 0, 1, 0, 0, 1}));
}

TEST(Masks, ShapeMismatchIsAnError) {
  const Tensor pad = key_padding_mask({3, 2}, 3);
  Result<Tensor> m = combine_masks(2, 3, 4, &pad, nullptr);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.error().find("key padding mask has shape (2, 3), expected (B, Sk) = (2, 4)"), std::string::npos)
      << m.error();
  const Tensor user({"Sq", "Sk"}, {2, 2});
  Result<Tensor> m2 = combine_masks(1, 3, 3, nullptr, &user);
  ASSERT_FALSE(m2.ok());
  EXPECT_NE(m2.error().find("attention mask"), std::string::npos);
}
