#include "attention/positional.hpp"

#include <cmath>

namespace attention {

double sinusoid_frequency(int pair, int dim) { return std::pow(10000.0, -2.0 * pair / dim); }

Tensor sinusoidal_encoding(int seq_len, int dim) {
  Tensor pe({"S", "E"}, {seq_len, dim});
  for (int p = 0; p < seq_len; ++p)
    for (int d = 0; d < dim; ++d) {
      const double angle = p * sinusoid_frequency(d / 2, dim);
      pe.at({p, d}) = static_cast<float>(d % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  return pe;
}

}  // namespace attention
