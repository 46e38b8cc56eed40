// The low-bit GEMM's variants for an engine that never holds low-bit weights (the one-tag
// element's, which has no pretrained loaders): the scalar spec alone. Linked in place of
// registry_low_bit.cpp (CMakeLists.txt: attention_low_bit_spec_only), it keeps the wasm SIMD
// low-bit kernels out of that .wasm; should such an engine ever multiply low-bit weights, the
// spec gives the same results, only slower.
#include "kernels/kernels.hpp"

namespace attention::kernels {

const std::vector<Variant<LowBitGemmFn>>& low_bit_gemm_variants(Storage storage) {
  static const std::vector<Variant<LowBitGemmFn>> bf16 = {{"gemm_f32_bf16w_scalar", &gemm_f32_bf16w_scalar}};
  static const std::vector<Variant<LowBitGemmFn>> f16 = {{"gemm_f32_f16w_scalar", &gemm_f32_f16w_scalar}};
  static const std::vector<Variant<LowBitGemmFn>> q8_0 = {{"gemm_f32_q8_0w_scalar", &gemm_f32_q8_0w_scalar}};
  return storage == Storage::F16 ? f16 : storage == Storage::Q8_0 ? q8_0 : bf16;
}

const Variant<LowBitGemmFn>& fastest_low_bit_gemm(Storage storage) { return low_bit_gemm_variants(storage).back(); }

LowBitGemmFn q8_0x4_gemv() { return nullptr; }
Q8Layout preferred_q8_layout(Q8Activations) { return Q8Layout::RowMajor; }
Int8Dot int8_dot() { return Int8Dot::Plain; }
Int8Dot limit_int8_dot(Int8Dot) { return Int8Dot::Plain; }

}  // namespace attention::kernels
