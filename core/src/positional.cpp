#include "attention/positional.hpp"

#include <cmath>
#include <vector>

namespace attention {

double sinusoid_frequency(int pair, int dim) { return std::pow(10000.0, -2.0 * pair / dim); }

Tensor sinusoidal_encoding(int seq_len, int dim) {
  Tensor pe({"S", "E"}, {seq_len, dim});
  std::vector<double> frequency(static_cast<std::size_t>(dim + 1) / 2);
  for (std::size_t i = 0; i < frequency.size(); ++i) frequency[i] = sinusoid_frequency(static_cast<int>(i), dim);
  for (int p = 0; p < seq_len; ++p) {
    float* row = pe.ptr() + static_cast<std::size_t>(p) * dim;
    for (int d = 0; d < dim; ++d) {
      const double angle = p * frequency[d / 2];
      row[d] = static_cast<float>(d % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
  }
  return pe;
}

}  // namespace attention
