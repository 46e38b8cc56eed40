#include "attention/presets.hpp"

#include <algorithm>
#include <cmath>

#include "attention/positional.hpp"
#include "attention/random.hpp"
#include "attention/rope.hpp"

namespace attention {

namespace {

constexpr double kPi = 3.14159265358979323846;

// Xavier (Glorot) uniform: U(-a, a), a = sqrt(6 / (fan_in + fan_out)).
std::vector<float> xavier(int rows, int cols, SplitMix64& rng) {
  const float bound = std::sqrt(6.0f / static_cast<float>(rows + cols));
  std::vector<float> w(static_cast<std::size_t>(rows) * cols);
  for (float& v : w) v = bound * rng.symmetric_unit();
  return w;
}

// in_proj ((H + 2 H_kv) d_k, E): drawn as one matrix, as nn.MultiheadAttention's (3E, E)
// (so a classic config keeps its weights seed for seed).
MultiHeadWeights random_attention(int e, int kv_dim, SplitMix64& rng) {
  const int rows = e + 2 * kv_dim;
  MultiHeadWeights w;
  w.embed_dim = e;
  w.in_proj_weight = xavier(rows, e, rng);
  w.in_proj_bias = std::vector<float>(static_cast<std::size_t>(rows), 0.0f);
  w.out_proj_weight = xavier(e, e, rng);
  w.out_proj_bias = std::vector<float>(static_cast<std::size_t>(e), 0.0f);
  return w;
}

void set_identity(float* matrix, int n) {
  for (int i = 0; i < n; ++i) matrix[static_cast<std::size_t>(i) * n + i] = 1.0f;
}

// `rope`: the block rotates q and k (self-attention of a RoPE model; cross-attention is not rotated).
MultiHeadWeights preset_attention(const ModelConfig& c, bool rope, SplitMix64& rng) {
  switch (c.preset) {
    case Preset::Identity:
      return identity_attention(c.d_model, c.heads, c.kv_heads);
    case Preset::Positional:
      return rope ? positional_rope_attention(c.d_model, c.heads, c.kv_heads, c.rotary_dim())
                  : positional_attention(c.d_model, c.heads, embedding_layout(c), c.kv_heads);
    case Preset::Random:
      break;
  }
  return random_attention(c.d_model, c.kv_head_count() * c.head_dim(), rng);
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

MultiHeadWeights identity_attention(int e, int heads, int kv_heads) {
  const int dk = e / heads, kv_count = kv_heads > 0 ? kv_heads : heads, group = heads / kv_count;
  const int rows = e + 2 * kv_count * dk;
  MultiHeadWeights w;
  w.embed_dim = e;
  const std::size_t ee = static_cast<std::size_t>(e) * e;
  std::vector<float> in_proj(static_cast<std::size_t>(rows) * e, 0.0f), out_proj(ee, 0.0f);
  set_identity(in_proj.data(), e);  // Q = x
  // K and V head g = the columns of the first query head of its group (all of x without GQA).
  for (int part = 0; part < 2; ++part)
    for (int g = 0; g < kv_count; ++g)
      for (int r = 0; r < dk; ++r) {
        const std::size_t row = static_cast<std::size_t>(e) + static_cast<std::size_t>(part) * kv_count * dk +
                                static_cast<std::size_t>(g) * dk + r;
        in_proj[row * e + static_cast<std::size_t>(g) * group * dk + r] = 1.0f;
      }
  set_identity(out_proj.data(), e);
  w.in_proj_weight = std::move(in_proj);
  w.in_proj_bias = std::vector<float>(static_cast<std::size_t>(rows), 0.0f);
  w.out_proj_weight = std::move(out_proj);
  w.out_proj_bias = std::vector<float>(static_cast<std::size_t>(e), 0.0f);
  return w;
}

// Each head's keys are the (sin, cos) pairs of its positions, using the highest
// frequencies of the position half. Its query is the position it looks for:
// PE(i + o) = R(o) PE(i) for previous (o = -1), next (+1) and self (0) heads,
// the constant PE(0) (through the bias) for the first-token head. Then
// q_i . k_j = sharpness * sum_f cos(w_f (i + o - j)), largest where j = i + o.
// With grouped-query attention every K/V head gets the same keys (they are the same for
// every head anyway), and each query head its own query.
MultiHeadWeights positional_attention(int e, int heads, const EmbeddingLayout& layout, int kv_heads) {
  MultiHeadWeights w = identity_attention(e, heads, kv_heads);  // V and output projection stay identity
  const int dk = e / heads, kv_count = kv_heads > 0 ? kv_heads : heads;
  const std::size_t ue = static_cast<std::size_t>(e);
  std::vector<float>& in_proj = w.in_proj_weight.mutable_values();
  std::fill(in_proj.begin(), in_proj.begin() + (ue + static_cast<std::size_t>(kv_count) * dk) * ue,
            0.0f);  // Q and K rows
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
      if (h < kv_count) {
        wk[row_sin * ue + col_sin] = 1.0f;
        wk[row_cos * ue + col_cos] = 1.0f;
      }
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

// The same heads for a RoPE model, which adds nothing to the token vectors: q and k are
// constants (biases; the weights are zero), so all they carry is what RoPE gives them.
// Pairs (i, i + rot/2) read as z = x_i + i x_{i+rot/2} turn by e^{i p w_i}, so
// q_m . k_n = sum_i Re(z_q conj(z_k) e^{i (m - n) w_i}). With z_k = 1 and
// z_q = sharpness e^{i o w_i} that is sharpness * sum_i cos((m - n + o) w_i), largest at
// n = m + o: previous (o = -1), next (+1), self (0). First token: one slow pair with
// z_q = -i s, giving s sin((m - n) w): it grows with the distance back as long as
// (m - n) w stays below pi/2, so key 0 wins (s is made large enough that one step of it
// counts as much as the other heads' margin).
MultiHeadWeights positional_rope_attention(int e, int heads, int kv_heads, int rotary_dim) {
  MultiHeadWeights w = identity_attention(e, heads, kv_heads);
  const int dk = e / heads, kv_count = kv_heads > 0 ? kv_heads : heads, half = rotary_dim / 2;
  const std::size_t ue = static_cast<std::size_t>(e);
  std::vector<float>& in_proj = w.in_proj_weight.mutable_values();
  std::fill(in_proj.begin(), in_proj.begin() + (ue + static_cast<std::size_t>(kv_count) * dk) * ue, 0.0f);
  float* bq = w.in_proj_bias.mutable_data();
  float* bk = bq + ue;
  RopeSettings settings;
  settings.rotary_dim = rotary_dim;
  settings.theta = ModelSpec{}.rope_theta;
  const std::vector<double> inv_freq = rope_inverse_frequencies(settings);
  for (int g = 0; g < kv_count; ++g)
    for (int i = 0; i < half; ++i) bk[static_cast<std::size_t>(g) * dk + i] = 1.0f;
  const double sharpness = 10.0 * std::sqrt(static_cast<double>(dk));
  // The fastest pair that stays monotonic over the longest text (turning at most pi/4).
  const double reach = kPlaygroundMaxSeq - 1;
  int slow = half - 1;
  for (int i = half - 1; i >= 0; --i)
    if (inv_freq[i] * reach <= kPi / 4) slow = i;
  const double step = inv_freq[slow] * std::cos(std::min(inv_freq[slow] * reach, kPi / 4));
  for (int h = 0; h < heads; ++h) {
    float* q = bq + static_cast<std::size_t>(h) * dk;
    const PositionalPattern pattern = positional_pattern(h);
    if (pattern == PositionalPattern::First) {
      q[slow + half] = static_cast<float>(-sharpness / step);
      continue;
    }
    const int offset = pattern == PositionalPattern::Previous ? -1 : pattern == PositionalPattern::Next ? 1 : 0;
    for (int i = 0; i < half; ++i) {
      q[i] = static_cast<float>(sharpness * std::cos(offset * inv_freq[i]));
      q[i + half] = static_cast<float>(sharpness * std::sin(offset * inv_freq[i]));
    }
  }
  return w;
}

ModelSpec playground_spec(const ModelConfig& c) {
  ModelSpec spec;
  spec.vocab_size = 1;
  spec.d_model = c.d_model;
  spec.heads = c.heads;
  spec.kv_heads = c.kv_heads;
  spec.ffn_dim = c.ffn_width();
  spec.max_seq = kPlaygroundMaxSeq;
  spec.positions = !c.positional                          ? Positions::None
                   : c.positions != Positions::Sinusoidal ? c.positions
                   : c.preset == Preset::Positional       ? Positions::Learned
                                                          : Positions::Sinusoidal;
  // Half a dimension below d_k, so an odd d_k rotates its first d_k - 1 (rotary_dim()).
  if (c.head_dim() % 2 != 0) spec.rope_fraction = (c.rotary_dim() + 0.5) / c.head_dim();
  spec.window = c.window;
  spec.norm_type = c.norm_type;
  spec.ffn = c.ffn;
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

// linear1 is (F, E), or (2F, E) for a gated FFN (gate_proj rows, then up_proj rows).
void fill_ffn(FeedForwardWeights& ffn, int e, int f, SplitMix64* rng) {
  const int rows = ffn.gated ? 2 * f : f;
  ffn.linear1.weight = rng ? xavier(rows, e, *rng) : std::vector<float>(static_cast<std::size_t>(rows) * e, 0.0f);
  ffn.linear2.weight = rng ? xavier(e, f, *rng) : std::vector<float>(static_cast<std::size_t>(e) * f, 0.0f);
}

}  // namespace

void fill_preset(Transformer& model, const ModelConfig& c) {
  // The random stream is drawn in the same order as ever (per layer: attention, then the
  // FFN; the decoder's self- then cross-attention), so a seed gives the same weights.
  SplitMix64 rng(static_cast<std::uint64_t>(c.seed) * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull);
  const bool zero_ffn = c.preset != Preset::Random;  // keep constructed heads readable layer after layer
  const int e = c.d_model, f = c.ffn_width();
  const bool rope = model.spec().positions == Positions::Rope;
  for (EncoderLayerWeights& layer : model.encoder_layers()) {
    copy_attention(layer.self_attn, preset_attention(c, rope, rng));
    fill_ffn(layer.ffn, e, f, zero_ffn ? nullptr : &rng);
  }
  for (DecoderLayerWeights& layer : model.decoder_layers()) {
    copy_attention(layer.self_attn, preset_attention(c, rope, rng));
    copy_attention(layer.cross_attn, preset_attention(c, false, rng));
    fill_ffn(layer.ffn, e, f, zero_ffn ? nullptr : &rng);
  }
  if (model.spec().positions == Positions::Learned)
    model.positions() = positions_for(model.spec().max_seq, e, embedding_layout(c)).data;
}

}  // namespace attention
