#include "attention/rope.hpp"

#include <cassert>
#include <cmath>

namespace attention {

std::vector<double> rope_inverse_frequencies(const RopeSettings& s) {
  const int half = s.rotary_dim / 2;
  std::vector<double> inv(static_cast<std::size_t>(half));
  for (int i = 0; i < half; ++i) inv[i] = std::pow(s.theta, -2.0 * i / s.rotary_dim);
  if (s.scaling == RopeScaling::Linear) {
    for (double& f : inv) f /= s.factor;
  } else if (s.scaling == RopeScaling::Llama3) {
    // Llama 3.1: long wavelengths are stretched by `factor`, short ones kept, and those
    // between blend the two by where the wavelength falls.
    constexpr double kTwoPi = 6.283185307179586;
    const double low_wavelen = s.original_context / s.low_freq_factor;
    const double high_wavelen = s.original_context / s.high_freq_factor;
    for (double& f : inv) {
      const double wavelen = kTwoPi / f;
      if (wavelen > low_wavelen) {
        f /= s.factor;
      } else if (wavelen >= high_wavelen) {
        const double smooth =
            (s.original_context / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
        f = (1.0 - smooth) * f / s.factor + smooth * f;
      }
    }
  }
  return inv;
}

RopeTable rope_table(const RopeSettings& s, int positions) {
  const std::vector<double> inv = rope_inverse_frequencies(s);
  const std::size_t half = inv.size();
  RopeTable t;
  t.rotary_dim = s.rotary_dim;
  t.positions = positions;
  t.cos.resize(static_cast<std::size_t>(positions) * half);
  t.sin.resize(t.cos.size());
  for (int p = 0; p < positions; ++p)
    for (std::size_t i = 0; i < half; ++i) {
      const double angle = p * inv[i];
      t.cos[p * half + i] = static_cast<float>(std::cos(angle));
      t.sin[p * half + i] = static_cast<float>(std::sin(angle));
    }
  return t;
}

void apply_rope(float* heads, int batch_heads, int seq, int head_dim, const RopeTable& t, bool inverse,
                int first_position) {
  assert(first_position + seq <= t.positions && t.rotary_dim <= head_dim);
  const int half = t.rotary_dim / 2;
  const float sign = inverse ? -1.0f : 1.0f;
  for (int bh = 0; bh < batch_heads; ++bh)
    for (int p = 0; p < seq; ++p) {
      float* x = heads + (static_cast<std::size_t>(bh) * seq + p) * head_dim;
      const float* c = t.cos.data() + static_cast<std::size_t>(first_position + p) * half;
      const float* s = t.sin.data() + static_cast<std::size_t>(first_position + p) * half;
      for (int i = 0; i < half; ++i) {
        const float a = x[i], b = x[i + half], sn = sign * s[i];
        x[i] = a * c[i] - b * sn;
        x[i + half] = b * c[i] + a * sn;
      }
    }
}

void apply_rope(Tensor& heads, const RopeTable& t, bool inverse) {
  assert(heads.rank() == 4);
  apply_rope(heads.ptr(), heads.shape[0] * heads.shape[1], heads.shape[2], heads.shape[3], t, inverse);
}

}  // namespace attention
