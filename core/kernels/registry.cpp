#include "kernels.hpp"

namespace attention::kernels {

const std::vector<Variant<GemmFn>>& gemm_variants() {
  static const std::vector<Variant<GemmFn>> variants = {
      {"gemm_f32_scalar", &gemm_f32_scalar},
      {"gemm_f32_eigen", &gemm_f32_eigen},
#ifdef __wasm_simd128__
      {"gemm_f32_4x8_wasmsimd", &gemm_f32_4x8_wasmsimd},
#endif
  };
  return variants;
}

const std::vector<Variant<SoftmaxFn>>& softmax_variants() {
  static const std::vector<Variant<SoftmaxFn>> variants = {
      {"softmax_rows_scalar", &softmax_rows_scalar},
#ifdef __wasm_simd128__
      {"softmax_rows_wasmsimd", &softmax_rows_wasmsimd},
#endif
  };
  return variants;
}

// The last variant listed is the one the fast path uses: the wasm SIMD kernels
// where built, else Eigen for GEMM and the scalar softmax.
const Variant<GemmFn>& fastest_gemm() { return gemm_variants().back(); }
const Variant<SoftmaxFn>& fastest_softmax() { return softmax_variants().back(); }

void gemm(GemmFn fn, int m, int n, int k, const float* a, const float* b, Layout layout, float alpha,
          const float* bias, float* c) {
  GemmArgs args;
  args.m = m;
  args.n = n;
  args.k = k;
  args.a = a;
  args.lda = k;
  args.b = b;
  args.ldb = layout == Layout::NT ? k : n;
  args.layout = layout;
  args.alpha = alpha;
  args.bias = bias;
  args.c = c;
  args.ldc = n;
  fn(args);
}

}  // namespace attention::kernels
