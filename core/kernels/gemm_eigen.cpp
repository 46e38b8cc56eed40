// GEMM through Eigen (its own blocking and, natively, its SSE/AVX kernels).
#include <Eigen/Core>

#include "kernels.hpp"

namespace attention::kernels {

namespace {

using Matrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Stride = Eigen::OuterStride<>;
using ConstMap = Eigen::Map<const Matrix, 0, Stride>;

// c = alpha op(a) op(b), or c += that: the product goes to a temporary first when
// accumulating, so C gets the rounded product added (as the other variants do).
template <class A, class B>
void multiply(const GemmArgs& g, const A& a, const B& b, Eigen::Map<Matrix, 0, Stride>& c) {
  if (g.accumulate) {
    thread_local Matrix product;  // reused: the backward accumulates thousands of times a step
    product.resize(g.m, g.n);
    product.noalias() = g.alpha * (a * b);
    if (g.bias) product.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(g.bias, g.n);
    c += product;
    return;
  }
  c.noalias() = g.alpha * (a * b);
  if (g.bias) c.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(g.bias, g.n);
}

template <class A>
void with_b(const GemmArgs& g, const A& a, Eigen::Map<Matrix, 0, Stride>& c) {
  if (g.layout == Layout::NT)
    multiply(g, a, ConstMap(g.b, g.n, g.k, Stride(g.ldb)).transpose(), c);
  else
    multiply(g, a, ConstMap(g.b, g.k, g.n, Stride(g.ldb)), c);
}

}  // namespace

void gemm_f32_eigen(const GemmArgs& g) {
  if (g.m <= 0 || g.n <= 0) return;
  Eigen::Map<Matrix, 0, Stride> c(g.c, g.m, g.n, Stride(g.ldc));
  if (g.trans_a)
    with_b(g, ConstMap(g.a, g.k, g.m, Stride(g.lda)).transpose(), c);
  else
    with_b(g, ConstMap(g.a, g.m, g.k, Stride(g.lda)), c);
}

}  // namespace attention::kernels
