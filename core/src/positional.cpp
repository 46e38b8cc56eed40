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

namespace {

std::vector<double> power_of_two_slopes(int n) {
  std::vector<double> slopes(static_cast<std::size_t>(n));
  const double start = std::pow(2.0, -8.0 / n);
  for (int h = 0; h < n; ++h) slopes[h] = std::pow(start, h + 1);
  return slopes;
}

}  // namespace

std::vector<float> alibi_slopes(int heads) {
  int closest = 1;
  while (closest * 2 <= heads) closest *= 2;
  std::vector<double> slopes = power_of_two_slopes(closest);
  const std::vector<double> doubled = power_of_two_slopes(2 * closest);
  for (int i = 0; static_cast<int>(slopes.size()) < heads; i += 2) slopes.push_back(doubled[i]);
  return std::vector<float>(slopes.begin(), slopes.end());
}

Tensor alibi_bias(int heads, int query_len, int key_len) {
  const std::vector<float> slopes = alibi_slopes(heads);
  Tensor bias({"H", "Sq", "Sk"}, {heads, query_len, key_len});
  for (int h = 0; h < heads; ++h)
    for (int i = 0; i < query_len; ++i)
      for (int j = 0; j < key_len; ++j) bias.at({h, i, j}) = -slopes[h] * static_cast<float>(std::abs(i - j));
  return bias;
}

}  // namespace attention
