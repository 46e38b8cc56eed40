// The low-bit GEMM's variants (kernels.hpp), in a file of their own so that an engine which
// never holds low-bit weights links another list instead (the one-tag element's engine:
// core/kernels/registry_low_bit_spec_only.cpp) and leaves the wasm SIMD low-bit kernels out of its .wasm.
#include <algorithm>
#include <atomic>

#include "kernels.hpp"
#include "relaxed_simd.hpp"

namespace attention::kernels {

namespace {

// The list for one storage, the relaxed GEMV and fast path last where the .wasm was rewritten.
std::vector<Variant<LowBitGemmFn>> listed(std::vector<Variant<LowBitGemmFn>> list,
                                          [[maybe_unused]] std::vector<Variant<LowBitGemmFn>> relaxed) {
#ifdef __wasm_simd128__
  if (relaxed_simd_available()) list.insert(list.end(), relaxed.begin(), relaxed.end());
#endif
  return list;
}

}  // namespace

const std::vector<Variant<LowBitGemmFn>>& low_bit_gemm_variants(Storage storage) {
  static const std::vector<Variant<LowBitGemmFn>> bf16 = listed(
      {
          {"gemm_f32_bf16w_scalar", &gemm_f32_bf16w_scalar},
          {"gemm_f32_bf16w_eigen", &gemm_f32_bf16w_eigen},
#ifdef __wasm_simd128__
          {"gemm_f32_bf16w_4x2_wasmsimd", &gemm_f32_bf16w_4x2_wasmsimd},
          {"gemm_f32_bf16w_gemv_wasmsimd", &gemm_f32_bf16w_gemv_wasmsimd},
          {"gemm_f32_bf16w_5x8_wasmsimd", &gemm_f32_bf16w_5x8_wasmsimd},
          {"gemm_f32_bf16w_wasmsimd", &gemm_f32_bf16w_wasmsimd},
#endif
      },
      {
#ifdef __wasm_simd128__
          {"gemm_f32_bf16w_gemv_wasmrelaxed", &gemm_f32_bf16w_gemv_wasmrelaxed},
          {"gemm_f32_bf16w_wasmrelaxed", &gemm_f32_bf16w_wasmrelaxed},
#endif
      });
  static const std::vector<Variant<LowBitGemmFn>> f16 = listed(
      {
          {"gemm_f32_f16w_scalar", &gemm_f32_f16w_scalar},
          {"gemm_f32_f16w_eigen", &gemm_f32_f16w_eigen},
#ifdef __wasm_simd128__
          {"gemm_f32_f16w_4x2_wasmsimd", &gemm_f32_f16w_4x2_wasmsimd},
          {"gemm_f32_f16w_gemv_wasmsimd", &gemm_f32_f16w_gemv_wasmsimd},
          {"gemm_f32_f16w_5x8_wasmsimd", &gemm_f32_f16w_5x8_wasmsimd},
          {"gemm_f32_f16w_wasmsimd", &gemm_f32_f16w_wasmsimd},
#endif
      },
      {
#ifdef __wasm_simd128__
          {"gemm_f32_f16w_gemv_wasmrelaxed", &gemm_f32_f16w_gemv_wasmrelaxed},
          {"gemm_f32_f16w_wasmrelaxed", &gemm_f32_f16w_wasmrelaxed},
#endif
      });
  static const std::vector<Variant<LowBitGemmFn>> q8_0 = listed(
      {
          {"gemm_f32_q8_0w_scalar", &gemm_f32_q8_0w_scalar},
          {"gemm_f32_q8_0w_eigen", &gemm_f32_q8_0w_eigen},
#ifdef __wasm_simd128__
          {"gemm_f32_q8_0w_4x2_wasmsimd", &gemm_f32_q8_0w_4x2_wasmsimd},
          {"gemm_f32_q8_0w_gemv_wasmsimd", &gemm_f32_q8_0w_gemv_wasmsimd},
          {"gemm_f32_q8_0w_5x8_wasmsimd", &gemm_f32_q8_0w_5x8_wasmsimd},
          {"gemm_f32_q8_0w_wasmsimd", &gemm_f32_q8_0w_wasmsimd},
#endif
      },
      {
#ifdef __wasm_simd128__
          {"gemm_f32_q8_0w_gemv_wasmrelaxed", &gemm_f32_q8_0w_gemv_wasmrelaxed},
          {"gemm_f32_q8_0w_wasmrelaxed", &gemm_f32_q8_0w_wasmrelaxed},
#endif
      });
  return storage == Storage::F16 ? f16 : storage == Storage::Q8_0 ? q8_0 : bf16;
}

namespace {
std::atomic<Int8Dot> int8_dot_limit{Int8Dot::Unsigned};
}  // namespace

Int8Dot int8_dot() {
#ifdef __wasm_simd128__
  const Int8Dot best = relaxed_dot_unsigned() ? Int8Dot::Unsigned
                       : relaxed_dot_adds()   ? Int8Dot::Split
                                              : Int8Dot::Plain;
  return std::min(best, int8_dot_limit.load(std::memory_order_relaxed));
#else
  return Int8Dot::Plain;
#endif
}

Int8Dot limit_int8_dot(Int8Dot most) {
  int8_dot_limit.store(most, std::memory_order_relaxed);
  return int8_dot();
}

LowBitGemmFn q8_0x4_gemv() {
#ifdef __wasm_simd128__
  // The relaxed twin only in a .wasm rewritten for relaxed SIMD (it picks its dot per call, int8_dot()).
  return relaxed_simd_available() ? &gemv_q8_0x4_wasmrelaxed : &gemv_q8_0x4_wasmsimd;
#else
  return nullptr;
#endif
}

Q8Layout preferred_q8_layout(Q8Activations activations) {
  return activations != Q8Activations::F32 && q8_0x4_gemv() ? Q8Layout::Interleaved4 : Q8Layout::RowMajor;
}

// The last variant listed is the one the fast path uses.
const Variant<LowBitGemmFn>& fastest_low_bit_gemm(Storage storage) { return low_bit_gemm_variants(storage).back(); }

}  // namespace attention::kernels
