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

MultiHeadWeights random_attention(int e, SplitMix64& rng) {
  MultiHeadWeights w;
  w.embed_dim = e;
  w.in_proj_weight = xavier(3 * e, e, rng);
  w.in_proj_bias = std::vector<float>(static_cast<std::size_t>(3) * e, 0.0f);
  w.out_proj_weight = xavier(e, e, rng);
  w.out_proj_bias = std::vector<float>(static_cast<std::size_t>(e), 0.0f);
  return w;
}

void set_identity(float* matrix, int n) {
  for (int i = 0; i < n; ++i) matrix[static_cast<std::size_t>(i) * n + i] = 1.0f;
}

MultiHeadWeights preset_attention(const ModelConfig& c, SplitMix64& rng) {
  switch (c.preset) {
    case Preset::Identity:
      return identity_attention(c.d_model);
    case Preset::Positional:
      return positional_attention(c.d_model, c.heads, embedding_layout(c));
    case Preset::Random:
      break;
  }
  return random_attention(c.d_model, rng);
}

}  // namespace

PositionalPattern positional_pattern(int head) { return static_cast<PositionalPattern>(head % 4); }

const char* to_string(PositionalPattern pattern) {
  switch (pattern) {
    case PositionalPattern::Previous:
      return "previous token";
    case PositionalPattern::Next:
      return "next token";
    case PositionalPattern::Self:
      return "self";
    case PositionalPattern::First:
      return "first token";
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
  std::vector<float> in_proj(3 * ee, 0.0f), out_proj(ee, 0.0f);
  for (int part = 0; part < 3; ++part) set_identity(in_proj.data() + part * ee, e);
  set_identity(out_proj.data(), e);
  w.in_proj_weight = std::move(in_proj);
  w.in_proj_bias = std::vector<float>(static_cast<std::size_t>(3) * e, 0.0f);
  w.out_proj_weight = std::move(out_proj);
  w.out_proj_bias = std::vector<float>(static_cast<std::size_t>(e), 0.0f);
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
  std::vector<float>& in_proj = w.in_proj_weight.mutable_values();
  std::fill(in_proj.begin(), in_proj.begin() + 2 * ue * ue, 0.0f);  // Q and K rows
  float* wq = in_proj.data();
  float* wk = in_proj.data() + ue * ue;
  float* bq = w.in_proj_bias.mutable_data();
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

ModelSpec playground_spec(const ModelConfig& c) {
  ModelSpec spec;
  spec.vocab_size = 1;
  spec.d_model = c.d_model;
  spec.heads = c.heads;
  spec.ffn_dim = c.ffn_width();
  spec.max_seq = kPlaygroundMaxSeq;
  spec.positions = !c.positional                    ? Positions::None
                   : c.preset == Preset::Positional ? Positions::Learned
                                                    : Positions::Sinusoidal;
  spec.causal = c.mode != Mode::Encoder;
  spec.norm = c.norm;
  spec.final_norm = false;
  spec.activation = c.activation;
  spec.head = OutputHead::None;
  spec.layers = c.layers;
  spec.encoder_layers = c.mode == Mode::Cross ? c.layers : 0;
  spec.residual = c.residual;
  spec.scale = c.scale;
  return spec;
}

namespace {

void copy_attention(MultiHeadWeights& to, const MultiHeadWeights& from) {
  to.in_proj_weight = from.in_proj_weight.values();
  to.in_proj_bias = from.in_proj_bias.values();
  to.out_proj_weight = from.out_proj_weight.values();
  to.out_proj_bias = from.out_proj_bias.values();
}

void fill_ffn(FeedForwardWeights& ffn, int e, int f, SplitMix64* rng) {
  ffn.linear1.weight = rng ? xavier(f, e, *rng) : std::vector<float>(static_cast<std::size_t>(f) * e, 0.0f);
  ffn.linear2.weight = rng ? xavier(e, f, *rng) : std::vector<float>(static_cast<std::size_t>(e) * f, 0.0f);
}

}  // namespace

void fill_preset(Transformer& model, const ModelConfig& c) {
  // The random stream is drawn in the same order as ever (per layer: attention, then the
  // FFN; the decoder's self- then cross-attention), so a seed gives the same weights.
  SplitMix64 rng(static_cast<std::uint64_t>(c.seed) * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull);
  const bool zero_ffn = c.preset != Preset::Random;  // keep constructed heads readable layer after layer
  const int e = c.d_model, f = c.ffn_width();
  for (EncoderLayerWeights& layer : model.encoder_layers()) {
    copy_attention(layer.self_attn, preset_attention(c, rng));
    fill_ffn(layer.ffn, e, f, zero_ffn ? nullptr : &rng);
  }
  for (DecoderLayerWeights& layer : model.decoder_layers()) {
    copy_attention(layer.self_attn, preset_attention(c, rng));
    copy_attention(layer.cross_attn, preset_attention(c, rng));
    fill_ffn(layer.ffn, e, f, zero_ffn ? nullptr : &rng);
  }
  if (model.spec().positions == Positions::Learned)
    model.positions() = positions_for(model.spec().max_seq, e, embedding_layout(c)).data;
}

}  // namespace attention
