#pragma once
// Sinusoidal positional encoding of "Attention Is All You Need":
//   PE(p, 2i) = sin(p / 10000^(2i/d)),  PE(p, 2i+1) = cos(p / 10000^(2i/d))
// Shifting a position by o rotates each (sin, cos) pair by a fixed angle, so
// "the token o places away" is a linear function of PE(p); the positional preset
// builds its heads on that.
#include <vector>

#include "attention/tensor.hpp"

namespace attention {

// -> (S, d)
Tensor sinusoidal_encoding(int seq_len, int dim);

// Angular frequency of pair i for an encoding of width dim: 1 / 10000^(2i/dim).
double sinusoid_frequency(int pair, int dim);

// ALiBi (Press et al., "Train short, test long"): head h's scores get -slope_h |i - j|.
// For H a power of two the slopes are 2^(-8 (h+1) / H); otherwise those of the closest
// smaller power of two, then every other slope of twice that many (the paper's code).
std::vector<float> alibi_slopes(int heads);
// -> (H, Sq, Sk): -slope_h |i - j|.
Tensor alibi_bias(int heads, int query_len, int key_len);

}  // namespace attention
