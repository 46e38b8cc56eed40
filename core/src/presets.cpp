#include "attention/presets.hpp"

#include <algorithm>
#include <cmath>

#include "attention/positional.hpp"
#include "attention/random.hpp"

namespace attention {

namespace {

// Xavier (Glorot) uniform: U(-a, a), a = sqrt(6 / (fan_in + fan_out)).
std::vector<float> xavier(int rows, int cols, SplitMix64& rng) {
  const float bound = std::sqrt(6.0f / static_cast<float>(rows + cols));
  std::vector<float> w(static_cast<std::size_t>(rows) * cols);
  for (float& v : w) v = bound * rng.symmetric_unit();
  return w;
}

LinearWeights linear_weights(int out, int in, SplitMix64* rng) {
  LinearWeights w;
  w.in_features = in;
  w.out_features = out;
  w.weight = rng ? xavier(out, in, *rng) : std::vector<float>(static_cast<std::size_t>(out) * in, 0.0f);
  w.bias.assign(static_cast<std::size_t>(out), 0.0f);
  return w;
}

MultiHeadWeights random_attention(int e, SplitMix64& rng) {
  MultiHeadWeights w;
  w.embed_dim = e;
  w.in_proj_weight = xavier(3 * e, e, rng);
  w.in_proj_bias.assign(static_cast<std::size_t>(3) * e, 0.0f);
  w.out_proj_weight = xavier(e, e, rng);
  w.out_proj_bias.assign(static_cast<std::size_t>(e), 0.0f);
  return w;
}

LayerNormWeights unit_norm(int e) {
  LayerNormWeights n;
  n.gamma.assign(static_cast<std::size_t>(e), 1.0f);
  n.beta.assign(static_cast<std::size_t>(e), 0.0f);
  return n;
}

void set_identity(float* matrix, int n) {
  for (int i = 0; i < n; ++i) matrix[static_cast<std::size_t>(i) * n + i] = 1.0f;
}

MultiHeadWeights preset_attention(const ModelConfig& c, SplitMix64& rng) {
  switch (c.preset) {
    case Preset::Identity: return identity_attention(c.d_model);
    case Preset::Positional: return positional_attention(c.d_model, c.heads, embedding_layout(c));
    case Preset::Random: break;
  }
  return random_attention(c.d_model, rng);
}

}  // namespace

PositionalPattern positional_pattern(int head) { return static_cast<PositionalPattern>(head % 4); }

const char* to_string(PositionalPattern pattern) {
  switch (pattern) {
    case PositionalPattern::Previous: return "previous token";
    case PositionalPattern::Next: return "next token";
    case PositionalPattern::Self: return "self";
    case PositionalPattern::First: return "first token";
  }
  return "?";
}

EmbeddingLayout embedding_layout(const ModelConfig& c) {
  EmbeddingLayout layout;
  if (c.preset == Preset::Positional) {
    layout.content_dim = c.d_model / 2;
    layout.position_offset = layout.content_dim;
    layout.position_dim = c.d_model - layout.content_dim;
  } else {
    layout.content_dim = c.d_model;
    layout.position_dim = c.d_model;
  }
  return layout;
}

MultiHeadWeights identity_attention(int e) {
  MultiHeadWeights w;
  w.embed_dim = e;
  const std::size_t ee = static_cast<std::size_t>(e) * e;
  w.in_proj_weight.assign(3 * ee, 0.0f);
  for (int part = 0; part < 3; ++part) set_identity(w.in_proj_weight.data() + part * ee, e);
  w.in_proj_bias.assign(static_cast<std::size_t>(3) * e, 0.0f);
  w.out_proj_weight.assign(ee, 0.0f);
  set_identity(w.out_proj_weight.data(), e);
  w.out_proj_bias.assign(static_cast<std::size_t>(e), 0.0f);
  return w;
}

// Each head's keys are the (sin, cos) pairs of its positions, using the highest
// frequencies of the position half. Its query is the position it looks for:
// PE(i + o) = R(o) PE(i) for previous (o = -1), next (+1) and self (0) heads,
// the constant PE(0) (through the bias) for the first-token head. Then
// q_i . k_j = sharpness * sum_f cos(w_f (i + o - j)), largest where j = i + o.
MultiHeadWeights positional_attention(int e, int heads, const EmbeddingLayout& layout) {
  MultiHeadWeights w = identity_attention(e);  // V and output projection stay identity
  const int dk = e / heads;
  const std::size_t ue = static_cast<std::size_t>(e);
  std::fill(w.in_proj_weight.begin(), w.in_proj_weight.begin() + 2 * ue * ue, 0.0f);  // Q and K rows
  float* wq = w.in_proj_weight.data();
  float* wk = w.in_proj_weight.data() + ue * ue;
  float* bq = w.in_proj_bias.data();
  const int pairs = std::min(dk / 2, layout.position_dim / 2);
  // Large enough that the target key wins by a wide margin after 1/sqrt(d_k).
  const float sharpness = 10.0f * std::sqrt(static_cast<float>(dk));
  for (int h = 0; h < heads; ++h) {
    const PositionalPattern pattern = positional_pattern(h);
    const int offset = pattern == PositionalPattern::Previous ? -1 : pattern == PositionalPattern::Next ? 1 : 0;
    for (int f = 0; f < pairs; ++f) {
      const std::size_t row_sin = static_cast<std::size_t>(h) * dk + 2 * f, row_cos = row_sin + 1;
      const int col_sin = layout.position_offset + 2 * f, col_cos = col_sin + 1;
      wk[row_sin * ue + col_sin] = 1.0f;
      wk[row_cos * ue + col_cos] = 1.0f;
      if (pattern == PositionalPattern::First) {
        bq[row_cos] = sharpness;  // PE(0) = (sin 0, cos 0) = (0, 1) in every pair
        continue;
      }
      const double angle = offset * sinusoid_frequency(f, layout.position_dim);
      const float c = static_cast<float>(std::cos(angle)) * sharpness;
      const float s = static_cast<float>(std::sin(angle)) * sharpness;
      // sin(w(p+o)) = cos(wo) sin(wp) + sin(wo) cos(wp);  cos(w(p+o)) = cos(wo) cos(wp) - sin(wo) sin(wp)
      wq[row_sin * ue + col_sin] = c;
      wq[row_sin * ue + col_cos] = s;
      wq[row_cos * ue + col_cos] = c;
      wq[row_cos * ue + col_sin] = -s;
    }
  }
  return w;
}

ModelWeights make_weights(const ModelConfig& c) {
  SplitMix64 rng(static_cast<std::uint64_t>(c.seed) * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull);
  const bool zero_ffn = c.preset != Preset::Random;  // keep constructed heads readable layer after layer
  const int e = c.d_model, f = c.ffn_width();
  const auto ffn = [&] {
    FeedForwardWeights w;
    w.linear1 = linear_weights(f, e, zero_ffn ? nullptr : &rng);
    w.linear2 = linear_weights(e, f, zero_ffn ? nullptr : &rng);
    return w;
  };
  ModelWeights weights;
  const int encoder_layers = c.layers;  // every mode has one stack of `layers` self-attention layers
  for (int l = 0; l < encoder_layers; ++l) {
    EncoderLayerWeights layer;
    layer.self_attn = preset_attention(c, rng);
    layer.ffn = ffn();
    layer.norm1 = unit_norm(e);
    layer.norm2 = unit_norm(e);
    weights.encoder.push_back(std::move(layer));
  }
  if (c.mode == Mode::Cross)
    for (int l = 0; l < c.layers; ++l) {
      DecoderLayerWeights layer;
      layer.self_attn = preset_attention(c, rng);
      layer.cross_attn = preset_attention(c, rng);
      layer.ffn = ffn();
      layer.norm1 = unit_norm(e);
      layer.norm2 = unit_norm(e);
      layer.norm3 = unit_norm(e);
      weights.decoder.push_back(std::move(layer));
    }
  return weights;
}

}  // namespace attention
