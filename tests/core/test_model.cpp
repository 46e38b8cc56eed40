// The playground model end to end: what the Trace holds, in each mode, and how
// invalid settings are refused.
#include "attention/model.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "attention/embeddings.hpp"

using namespace attention;

namespace {

std::vector<int> shape_of(const Trace& t, int layer, const std::string& name) {
  const Stage* s = t.find(layer, name);
  return s ? s->tensor.shape : std::vector<int>{-1};
}

ModelConfig small(Mode mode) {
  ModelConfig c;
  c.mode = mode;
  c.d_model = 8;
  c.heads = 2;
  c.layers = 2;
  return c;
}

}  // namespace

TEST(Model, EncoderTraceHasEveryStageWithShapes) {
  Result<Trace> r = run_model(small(Mode::Encoder), {"the cat sat", "a dog"});
  ASSERT_TRUE(r.ok()) << r.error();
  const Trace& t = r.value();
  EXPECT_EQ(t.tokens, (std::vector<std::vector<std::string>>{{"the", "cat", "sat"}, {"a", "dog"}}));
  EXPECT_EQ(shape_of(t, -1, "encoder.padding_mask"), (std::vector<int>{2, 3}));
  EXPECT_EQ(shape_of(t, -1, "encoder.embeddings"), (std::vector<int>{2, 3, 8}));
  EXPECT_EQ(shape_of(t, -1, "encoder.positions"), (std::vector<int>{3, 8}));
  for (int layer : {0, 1}) {
    EXPECT_EQ(shape_of(t, layer, "encoder.self_attn.q_split"), (std::vector<int>{2, 3, 2, 4}));
    EXPECT_EQ(shape_of(t, layer, "encoder.self_attn.q_heads"), (std::vector<int>{2, 2, 3, 4}));
    EXPECT_EQ(shape_of(t, layer, "encoder.self_attn.weights"), (std::vector<int>{2, 2, 3, 3}));
    EXPECT_EQ(shape_of(t, layer, "encoder.residual1"), (std::vector<int>{2, 3, 8}));
    EXPECT_EQ(shape_of(t, layer, "encoder.norm1"), (std::vector<int>{2, 3, 8}));
    EXPECT_EQ(shape_of(t, layer, "encoder.ffn.hidden"), (std::vector<int>{2, 3, 32}));
    EXPECT_EQ(shape_of(t, layer, "encoder.output"), (std::vector<int>{2, 3, 8}));
  }
  // The padded third key of sequence 1 is blocked in every head and query.
  const Tensor& w = t.find(0, "encoder.self_attn.weights")->tensor;
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 3; ++i) EXPECT_EQ(w.at({1, h, i, 2}), 0.0f);
  // Stages come in the order they were computed.
  std::size_t q = 0, weights = 0, out = 0;
  for (std::size_t i = 0; i < t.stages.size(); ++i) {
    if (t.stages[i].layer != 0) continue;
    if (t.stages[i].name == "encoder.self_attn.q_proj") q = i;
    if (t.stages[i].name == "encoder.self_attn.weights") weights = i;
    if (t.stages[i].name == "encoder.output") out = i;
  }
  EXPECT_LT(q, weights);
  EXPECT_LT(weights, out);
  for (const Stage& s : t.stages)
    for (float v : s.tensor.data) ASSERT_FALSE(std::isnan(v)) << s.name;
}

TEST(Model, DecoderModeIsCausal) {
  Result<Trace> r = run_model(small(Mode::Decoder), {"one two three four"});
  ASSERT_TRUE(r.ok()) << r.error();
  const Tensor& w = r.value().find(1, "decoder.self_attn.weights")->tensor;
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j)
        if (j > i)
          EXPECT_EQ(w.at({0, h, i, j}), 0.0f);
        else
          EXPECT_GT(w.at({0, h, i, j}), 0.0f);
}

TEST(Model, CrossModeHasSqBySkCrossAttention) {
  Result<Trace> r = run_model(small(Mode::Cross), {"le chat", "un"}, {"the black cat sat", "a dog"});
  ASSERT_TRUE(r.ok()) << r.error();
  const Trace& t = r.value();
  EXPECT_EQ(t.source_tokens[0].size(), 4u);
  EXPECT_EQ(shape_of(t, 0, "encoder.self_attn.weights"), (std::vector<int>{2, 2, 4, 4}));
  EXPECT_EQ(shape_of(t, 0, "decoder.self_attn.weights"), (std::vector<int>{2, 2, 2, 2}));
  EXPECT_EQ(shape_of(t, 1, "decoder.cross_attn.weights"), (std::vector<int>{2, 2, 2, 4}));
  EXPECT_EQ(shape_of(t, 1, "decoder.output"), (std::vector<int>{2, 2, 8}));
  const Tensor& cross = t.find(0, "decoder.cross_attn.weights")->tensor;
  EXPECT_EQ(cross.at({1, 0, 0, 2}), 0.0f);  // "a dog" has 2 source tokens: keys 2, 3 padded
  EXPECT_EQ(cross.at({1, 1, 0, 3}), 0.0f);
  EXPECT_EQ(run_model(small(Mode::Cross), {"a"}, {}).error(),
            "cross mode needs one source text per target text: got 0 source and 1 target texts");
}

TEST(Model, SameWordSameVectorAndPaddingIsZero) {
  ModelConfig c = small(Mode::Encoder);
  Result<Trace> r = run_model(c, {"cat The the cat", "x"});
  ASSERT_TRUE(r.ok());
  const Tensor& emb = r.value().find(-1, "encoder.embeddings")->tensor;
  for (int d = 0; d < 8; ++d) {
    EXPECT_EQ(emb.at({0, 0, d}), emb.at({0, 3, d}));
    EXPECT_EQ(emb.at({0, 1, d}), emb.at({0, 2, d}));  // case folded
    EXPECT_EQ(emb.at({1, 1, d}), 0.0f);               // padding
  }
  EXPECT_NE(token_embedding("cat", 1, 8), token_embedding("cat", 2, 8));
}

TEST(Model, SwitchesChangeWhatIsComputed) {
  ModelConfig c = small(Mode::Encoder);
  c.residual = false;
  c.positional = false;
  c.scale = false;
  c.norm = NormPlacement::Pre;
  c.activation = Activation::GELU;
  Result<Trace> r = run_model(c, {"a b c"});
  ASSERT_TRUE(r.ok());
  const Trace& t = r.value();
  EXPECT_EQ(t.find(0, "encoder.residual1"), nullptr);
  EXPECT_EQ(t.find(-1, "encoder.positions"), nullptr);
  const Tensor& scores = t.find(0, "encoder.self_attn.scores")->tensor;
  EXPECT_EQ(t.find(0, "encoder.self_attn.scaled")->tensor.data, scores.data);
  // GELU lets small negatives through; ReLU would not.
  bool negative = false;
  for (float v : t.find(0, "encoder.ffn.activated")->tensor.data) negative |= v < 0.0f;
  EXPECT_TRUE(negative);
}

TEST(Model, InvalidConfigsAreErrors) {
  ModelConfig c = small(Mode::Encoder);
  c.heads = 3;
  EXPECT_EQ(run_model(c, {"a"}).error(),
            "heads (3) must divide dModel (8): d_k = dModel / heads must be a whole number");
  EXPECT_EQ(run_model(c, {"a"}).error_value().code, "not_divisible");
  EXPECT_EQ(run_model(c, {"a"}).error_value().field, "heads");
  c = small(Mode::Encoder);
  c.d_model = 0;
  EXPECT_EQ(run_model(c, {"a"}).error(), "dModel must be between 1 and 1024, got 0");
  EXPECT_EQ(run_model(c, {"a"}).error_value().code, "out_of_range");
  EXPECT_EQ(run_model(c, {"a"}).error_value().field, "dModel");
  c = small(Mode::Encoder);
  c.layers = -1;
  EXPECT_EQ(run_model(c, {"a"}).error(), "layers must be between 1 and 12, got -1");
  c = small(Mode::Encoder);
  c.heads = 100;
  EXPECT_EQ(run_model(c, {"a"}).error(), "heads must be between 1 and 64, got 100");
  c = small(Mode::Encoder);
  c.preset = Preset::Positional;
  c.heads = 8;
  EXPECT_NE(run_model(c, {"a"}).error().find("d_k = dModel / heads of at least 2"), std::string::npos);
  EXPECT_EQ(run_model(c, {"a"}).error_value().field, "preset");
  EXPECT_EQ(run_model(small(Mode::Encoder), {""}).error(), "the text is empty: type at least one word");
}

TEST(Model, TooLargeATraceIsRefusedBeforeAllocation) {
  ModelConfig c;
  c.d_model = 1024;
  c.heads = 64;
  c.layers = 12;
  std::string text;
  for (int i = 0; i < 128; ++i) text += "w ";
  Result<Trace> r = run_model(c, std::vector<std::string>(16, text));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("the limit is 256 MiB"), std::string::npos) << r.error();
}
