// GEMM through Eigen (its own blocking and, natively, its SSE/AVX kernels).
#include <Eigen/Core>

#include "kernels.hpp"

namespace attention::kernels {

void gemm_f32_eigen(const GemmArgs& g) {
  using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using Stride = Eigen::OuterStride<>;
  Eigen::Map<const Matrix, 0, Stride> a(g.a, g.m, g.k, Stride(g.lda));
  Eigen::Map<Matrix, 0, Stride> c(g.c, g.m, g.n, Stride(g.ldc));
  if (g.layout == Layout::NT)
    c.noalias() = g.alpha * (a * Eigen::Map<const Matrix, 0, Stride>(g.b, g.n, g.k, Stride(g.ldb)).transpose());
  else
    c.noalias() = g.alpha * (a * Eigen::Map<const Matrix, 0, Stride>(g.b, g.k, g.n, Stride(g.ldb)));
  if (g.bias) c.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(g.bias, g.n);
}

}  // namespace attention::kernels
