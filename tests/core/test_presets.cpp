// The constructed presets do what they claim: identity heads attend by token
// similarity; positional heads attend to the previous / next / same / first token.
#include "attention/presets.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "attention/model.hpp"

using namespace attention;

namespace {

const Tensor& layer0_weights(const Trace& trace, const std::string& stack = "encoder") {
  const Stage* s = trace.find(0, stack + ".self_attn.weights");
  EXPECT_NE(s, nullptr);
  return s->tensor;
}

int argmax_key(const Tensor& w, int b, int h, int i) {
  int best = 0;
  for (int j = 1; j < w.shape[3]; ++j)
    if (w.at({b, h, i, j}) > w.at({b, h, i, best})) best = j;
  return best;
}

}  // namespace

TEST(Presets, PositionalHeadsFollowTheirPatterns) {
  for (int d_model : {32, 64, 128}) {
    ModelConfig c;
    c.preset = Preset::Positional;
    c.d_model = d_model;
    c.heads = 4;
    c.layers = 1;
    std::string text;
    for (int i = 0; i < 40; ++i) text += "word" + std::to_string(i % 7) + " ";
    Result<Trace> r = run_model(c, {text});
    ASSERT_TRUE(r.ok()) << r.error();
    const Tensor& w = layer0_weights(r.value());
    const int s = w.shape[2];
    for (int h = 0; h < 4; ++h)
      for (int i = 0; i < s; ++i) {
        int target = i;
        switch (positional_pattern(h)) {
          case PositionalPattern::Previous:
            target = i - 1;
            break;
          case PositionalPattern::Next:
            target = i + 1;
            break;
          case PositionalPattern::Self:
            target = i;
            break;
          case PositionalPattern::First:
            target = 0;
            break;
        }
        if (target < 0 || target >= s) continue;
        EXPECT_EQ(argmax_key(w, 0, h, i), target)
            << to_string(positional_pattern(h)) << " d_model " << d_model << " query " << i;
        EXPECT_GT(w.at({0, h, i, target}), 0.9f) << to_string(positional_pattern(h)) << " query " << i;
      }
  }
}

TEST(Presets, PositionalPresetKeepsContentAndPositionApart) {
  ModelConfig c;
  c.preset = Preset::Positional;
  c.d_model = 16;
  const EmbeddingLayout layout = embedding_layout(c);
  EXPECT_EQ(layout.content_dim, 8);
  EXPECT_EQ(layout.position_offset, 8);
  Result<Trace> r = run_model(c, {"a b c"});
  ASSERT_TRUE(r.ok());
  const Tensor& emb = r.value().find(-1, "encoder.embeddings")->tensor;
  for (int s = 0; s < 3; ++s)
    for (int d = 8; d < 16; ++d) EXPECT_EQ(emb.at({0, s, d}), 0.0f);
}

TEST(Presets, IdentityHeadsAttendBySimilarity) {
  ModelConfig c;
  c.preset = Preset::Identity;
  c.positional = false;
  c.d_model = 64;
  c.heads = 1;
  // Repeated words have identical vectors, so "cat" attends to both "cat"s most.
  Result<Trace> r = run_model(c, {"cat dog cat bird"});
  ASSERT_TRUE(r.ok()) << r.error();
  const Tensor& w = layer0_weights(r.value());
  for (int i : {0, 2}) {
    EXPECT_FLOAT_EQ(w.at({0, 0, i, 0}), w.at({0, 0, i, 2}));
    EXPECT_GT(w.at({0, 0, i, 0}), w.at({0, 0, i, 1}));
    EXPECT_GT(w.at({0, 0, i, 0}), w.at({0, 0, i, 3}));
  }
  EXPECT_EQ(argmax_key(w, 0, 0, 1), 1);  // every other word attends most to itself
  EXPECT_EQ(argmax_key(w, 0, 0, 3), 3);
  const MultiHeadWeights iw = identity_attention(3);
  EXPECT_EQ(iw.out_proj_weight.values(), (std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1}));
}

TEST(Presets, RandomWeightsAreDeterministicFromTheSeed) {
  ModelConfig c;
  c.d_model = 16;
  c.heads = 2;
  const auto made = [](const ModelConfig& config) {
    Transformer t = Transformer::create(playground_spec(config)).value();
    fill_preset(t, config);
    return t;
  };
  Transformer a = made(c), b = made(c);
  EXPECT_EQ(a.encoder_layers()[1].self_attn.in_proj_weight.values(),
            b.encoder_layers()[1].self_attn.in_proj_weight.values());
  c.seed = 2;
  Transformer other = made(c);
  EXPECT_NE(a.encoder_layers()[0].self_attn.in_proj_weight.values(),
            other.encoder_layers()[0].self_attn.in_proj_weight.values());
  // Xavier bound for the (3E, E) in_proj: sqrt(6 / (48 + 16))
  for (float v : a.encoder_layers()[0].self_attn.in_proj_weight) EXPECT_LE(std::abs(v), std::sqrt(6.0f / 64.0f));
  // The names are the PyTorch module's state_dict keys.
  EXPECT_EQ(a.encoder_layers()[0].self_attn.in_proj_weight.name(), "layers.0.self_attn.in_proj_weight");
  EXPECT_EQ(a.encoder_layers()[1].ffn.linear2.bias.name(), "layers.1.linear2.bias");
}
