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
  // The integer dot of Q8_0's int8 GEMV: "unsigned", "split" (relaxed SIMD's) or "plain" (kernels::Int8Dot)
  std::string int8_dot = "plain";
};
FastKernels fast_kernels();
// Caps the integer dot of Q8_0's int8 GEMV (FastKernels::int8_dot) at `most`: "unsigned" (no cap:
// the fastest the runtime computes right), "split" or "plain". Every dot gives the same numbers;
// the cap is for comparing them in one engine. Returns the dot that then runs ("" and no change
// for another name).
std::string limit_int8_dot(const std::string& most);

}  // namespace attention
