#pragma once

namespace attention {

// Which implementation of the hot loops to use. Reference is the plain scalar
// code that serves as the spec; Fast is the platform's fastest kernels
// (core/kernels: the wasm SIMD kernels in the SIMD build, Eigen elsewhere), tested
// against the reference.
enum class Backend { Reference, Fast };

}  // namespace attention
