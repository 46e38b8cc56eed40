#pragma once
// A linear layer y = x W^T + b, PyTorch nn.Linear layout. It acts on every row
// (every position of every sequence) independently with the same W and b, so a
// (B, S, E_in) input becomes (B, S, E_out) and row i of the output depends on
// row i of the input only.
#include <memory>
#include <string>
#include <vector>

#include "attention/backend.hpp"
#include "attention/param.hpp"
#include "attention/tensor.hpp"

namespace attention {

struct LinearWeights {
  int in_features = 0;
  int out_features = 0;
  Parameter weight;  // (out_features, in_features), row-major; packed for the fast GEMM on first use
  Parameter bias;    // (out_features), or empty for a layer without bias
};

// Raw form, used on slices of bigger weight matrices (e.g. the Q rows of in_proj).
// x: (rows, in)  weight: (out, in)  bias: (out) or nullptr  -> y: (rows, out)
// packed: the weight as pack_weight() made it, or null to pack on the way.
void linear_rows(const float* x, int rows, int in, const float* weight, const float* bias, int out, float* y,
                 Backend backend, const kernels::PackedWeight* packed = nullptr);

// Rows [row_begin, row_begin + out) of a weight Parameter (out, in) in any storage:
// float32 weights through linear_rows with their packed panels, 16- and 8-bit ones through
// the low-bit GEMM (the Reference backend: its scalar variant). bias: (out) or nullptr.
void linear_parameter_rows(const float* x, int rows, int in, const Parameter& weight, int row_begin, const float* bias,
                           int out, float* y, Backend backend);

// x: (..., in) -> (..., out); the last axis is renamed to out_axis.
Tensor linear(const Tensor& x, const LinearWeights& w, const std::string& out_axis, Backend backend = Backend::Fast);

// The same layer written as seed 000 pictures it: a loop that feeds one row at a
// time through the layer and stacks the results. Kept to show (and test) that it
// equals the matrix form.
Tensor linear_row_by_row(const Tensor& x, const LinearWeights& w, const std::string& out_axis);

}  // namespace attention
