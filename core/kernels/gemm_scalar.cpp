// The reference GEMM: three plain loops, accumulating in float in the order of k.
#include "kernels.hpp"

namespace attention::kernels {

void gemm_f32_scalar(const GemmArgs& g) {
  for (int i = 0; i < g.m; ++i)
    for (int j = 0; j < g.n; ++j) {
      float sum = 0.0f;
      for (int p = 0; p < g.k; ++p) {
        const float b = g.layout == Layout::NT ? g.b[j * g.ldb + p] : g.b[p * g.ldb + j];
        sum += (g.trans_a ? g.a[p * g.lda + i] : g.a[i * g.lda + p]) * b;
      }
      const float value = g.alpha * sum + (g.bias ? g.bias[j] : 0.0f);
      g.c[i * g.ldc + j] = g.accumulate ? g.c[i * g.ldc + j] + value : value;
    }
}

}  // namespace attention::kernels
