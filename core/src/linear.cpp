#include "attention/linear.hpp"

#include <cassert>

#include "kernels/kernels.hpp"

namespace attention {

void linear_rows(const float* x, int rows, int in, const float* weight, const float* bias, int out, float* y,
                 Backend backend, const kernels::PackedWeight* packed) {
  if (rows == 0 || out == 0) return;
  // y = x W^T + b
  if (backend == Backend::Reference)
    kernels::gemm(&kernels::gemm_f32_scalar, rows, out, in, x, weight, kernels::Layout::NT, 1.0f, bias, y);
  else
    kernels::gemm_fast(rows, out, in, x, weight, kernels::Layout::NT, 1.0f, bias, y, packed);
}

void linear_parameter_rows(const float* x, int rows, int in, const Parameter& weight, int row_begin, const float* bias,
                           int out, float* y, Backend backend) {
  if (rows == 0 || out == 0) return;
  if (!weight.low_bit()) {
    const kernels::PackedWeight* packed = backend == Backend::Fast ? weight.packed_rows(row_begin, out, in) : nullptr;
    linear_rows(x, rows, in, weight.data() + static_cast<std::size_t>(row_begin) * in, bias, out, y, backend, packed);
    return;
  }
  const Storage storage = weight.storage();
  const kernels::LowBitGemmFn fn = backend == Backend::Reference ? kernels::low_bit_gemm_variants(storage).front().fn
                                                                 : kernels::fastest_low_bit_gemm(storage).fn;
  kernels::LowBitOptions options;
  options.w_finite = weight.all_finite();
  options.activations = weight.q8_activations();
  options.layout = weight.q8_layout();
  options.w_held_exponent = held_exponent(weight.f16_scale());
  if (options.layout == Q8Layout::Interleaved4 && row_begin % kQ8x4Rows != 0) {
    // Rows from inside a group of 4 (one token's unembedding row, a part of a fused weight of odd
    // size): those rows back in row-major blocks, multiplied as a row-major weight's.
    std::vector<std::uint8_t> part(static_cast<std::size_t>(out) * row_bytes(storage, in));
    deinterleave_q8_0(weight.row_bits(0), in, row_begin, out, part.data());
    options.layout = Q8Layout::RowMajor;
    kernels::gemm_low_bit(fn, storage, rows, out, in, x, part.data(), bias, y, options);
    return;
  }
  kernels::gemm_low_bit(fn, storage, rows, out, in, x, weight.row_bits(row_begin), bias, y, options);
}

static std::vector<int> with_last(std::vector<int> shape, int last) {
  shape.back() = last;
  return shape;
}

Tensor linear(const Tensor& x, const LinearWeights& w, const std::string& out_axis, Backend backend) {
  assert(x.rank() >= 1 && x.shape.back() == w.in_features);
  std::vector<std::string> axes = x.axes;
  axes.back() = out_axis;
  Tensor y(axes, with_last(x.shape, w.out_features));
  const int rows = static_cast<int>(x.size() / static_cast<std::size_t>(w.in_features));
  linear_parameter_rows(x.ptr(), rows, w.in_features, w.weight, 0, w.bias.empty() ? nullptr : w.bias.data(),
                        w.out_features, y.ptr(), backend);
  return y;
}

Tensor linear_row_by_row(const Tensor& x, const LinearWeights& w, const std::string& out_axis) {
  std::vector<std::string> axes = x.axes;
  axes.back() = out_axis;
  Tensor y(axes, with_last(x.shape, w.out_features));
  const std::size_t rows = x.size() / static_cast<std::size_t>(w.in_features);
  for (std::size_t r = 0; r < rows; ++r) {
    // One position's vector x_r: (in) -> y_r = W x_r + b: (out)
    const float* x_r = x.ptr() + r * w.in_features;
    float* y_r = y.ptr() + r * w.out_features;
    for (int o = 0; o < w.out_features; ++o) {
      float sum = w.bias.empty() ? 0.0f : w.bias[o];
      for (int i = 0; i < w.in_features; ++i)
        sum += w.weight.widened_value(static_cast<std::size_t>(o) * w.in_features + i) * x_r[i];
      y_r[o] = sum;
    }
  }
  return y;
}

}  // namespace attention
