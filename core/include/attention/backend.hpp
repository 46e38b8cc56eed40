#pragma once
#include <string>

namespace attention {

// Which implementation of the hot loops to use. Reference is the plain scalar
// code that serves as the spec; Fast is the platform's fastest kernels
// (core/kernels: the wasm SIMD kernels in the SIMD build, Eigen elsewhere), tested
// against the reference.
enum class Backend { Reference, Fast };

// The kernels Backend::Fast runs in this build, by their registry names (core/kernels),
// so a caller can tell what it measured or checked.
struct FastKernels {
  std::string gemm, softmax, gelu_tanh;
  bool relaxed_simd = false;  // the GEMM uses relaxed SIMD's fused multiply-add
  bool relaxed_dot = false;   // Q8_0's int8 GEMV uses relaxed SIMD's integer dot (kernels::int8_relaxed_dot)
};
FastKernels fast_kernels();

}  // namespace attention
