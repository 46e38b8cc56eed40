#pragma once
// Rotary position embedding (RoPE, Su et al.) in Hugging Face's rotate-half layout. Each
// head's first `rot` dimensions form pairs (i, i + rot/2), i < rot/2; at position p pair i
// turns by the angle p * inv_freq_i:
//   x'_i         = x_i cos - x_{i+rot/2} sin
//   x'_{i+rot/2} = x_{i+rot/2} cos + x_i sin
// and dimensions rot.. pass through (partial rotary). A rotation keeps lengths, and
// q'_m . k'_n sums q_i k_i cos((m - n) f_i) terms: the score depends on m - n only.
#include <vector>

#include "attention/tensor.hpp"

namespace attention {

enum class RopeScaling { None, Linear, Llama3 };

struct RopeSettings {
  int rotary_dim = 0;  // rot, even
  double theta = 10000.0;
  RopeScaling scaling = RopeScaling::None;
  double factor = 1.0;            // linear: inv_freq / factor; llama3: the low frequencies' stretch
  double low_freq_factor = 1.0;   // llama3: wavelengths above original / low are stretched by factor
  double high_freq_factor = 4.0;  // llama3: wavelengths below original / high are kept
  int original_context = 8192;    // llama3
};

// inv_freq_i = theta^(-2i / rot), i < rot/2, after the scaling (HF's rope_init_fn).
std::vector<double> rope_inverse_frequencies(const RopeSettings& settings);

// cos and sin of p * inv_freq_i for positions 0..positions-1: (S, rot/2) each.
struct RopeTable {
  int rotary_dim = 0;
  int positions = 0;
  std::vector<float> cos, sin;
};
RopeTable rope_table(const RopeSettings& settings, int positions);

// heads: (B, H, S, d_h) with S <= table.positions, rotated in place by position s.
// inverse = true turns back (the transpose of the rotation: the backward of a rotation).
// first_position: the absolute position of row 0 (a cached step's rows continue the cache).
void apply_rope(Tensor& heads, const RopeTable& table, bool inverse = false);
void apply_rope(float* heads, int batch_heads, int seq, int head_dim, const RopeTable& table, bool inverse = false,
                int first_position = 0);

}  // namespace attention
