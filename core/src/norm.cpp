#include "attention/norm.hpp"

#include "attention/grad_ops.hpp"

namespace attention {

void norm_rows(const float* x, int rows, int e, const LayerNormWeights& w, float* y, float* xhat, float* inv_std) {
  if (w.type == NormType::LayerNorm)
    grad::layer_norm_forward(x, rows, e, w.weight.data(), w.bias.data(), w.eps, y, xhat, inv_std);
  else
    grad::rms_norm_forward(x, rows, e, w.weight.data(), norm_weight_offset(w.type), w.eps, y, xhat, inv_std);
}

Tensor layer_norm(const Tensor& x, const LayerNormWeights& w) {
  Tensor y = x;
  const int e = x.shape.back();
  norm_rows(x.ptr(), static_cast<int>(x.size() / static_cast<std::size_t>(e)), e, w, y.ptr());
  return y;
}

}  // namespace attention
