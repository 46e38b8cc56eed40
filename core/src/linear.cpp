#include "attention/linear.hpp"

#include <Eigen/Core>
#include <cassert>

namespace attention {

namespace {

using RowMajorMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

void linear_rows_reference(const float* x, int rows, int in, const float* weight, const float* bias,
                           int out, float* y) {
  for (int r = 0; r < rows; ++r) {
    const float* x_row = x + static_cast<std::size_t>(r) * in;
    float* y_row = y + static_cast<std::size_t>(r) * out;
    for (int o = 0; o < out; ++o) {
      const float* w_row = weight + static_cast<std::size_t>(o) * in;
      float sum = bias ? bias[o] : 0.0f;
      for (int i = 0; i < in; ++i) sum += x_row[i] * w_row[i];
      y_row[o] = sum;
    }
  }
}

void linear_rows_eigen(const float* x, int rows, int in, const float* weight, const float* bias,
                       int out, float* y) {
  Eigen::Map<const RowMajorMatrix> X(x, rows, in);
  Eigen::Map<const RowMajorMatrix> W(weight, out, in);
  Eigen::Map<RowMajorMatrix> Y(y, rows, out);
  Y.noalias() = X * W.transpose();
  if (bias) Y.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(bias, out);
}

}  // namespace

void linear_rows(const float* x, int rows, int in, const float* weight, const float* bias, int out,
                 float* y, Backend backend) {
  if (rows == 0 || out == 0) return;
  if (backend == Backend::Reference)
    linear_rows_reference(x, rows, in, weight, bias, out, y);
  else
    linear_rows_eigen(x, rows, in, weight, bias, out, y);
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
  linear_rows(x.ptr(), rows, w.in_features, w.weight.data(), w.bias.empty() ? nullptr : w.bias.data(),
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
        sum += w.weight[static_cast<std::size_t>(o) * w.in_features + i] * x_r[i];
      y_r[o] = sum;
    }
  }
  return y;
}

}  // namespace attention
