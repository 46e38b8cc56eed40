#include "kernels.hpp"

namespace attention::kernels {

const std::vector<Variant<GemmFn>>& gemm_variants() {
  static const std::vector<Variant<GemmFn>> variants = {
      {"gemm_f32_scalar", &gemm_f32_scalar},
      {"gemm_f32_eigen", &gemm_f32_eigen},
#ifdef __wasm_simd128__
      {"gemm_f32_4x8_wasmsimd", &gemm_f32_4x8_wasmsimd, &pack_f32_4x8_wasmsimd, &gemm_f32_4x8_wasmsimd_packed},
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

static GemmArgs dense(int m, int n, int k, const float* a, const float* b, Layout layout, float alpha,
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
  return args;
}

PackedWeight pack_weight(const float* weight, int n, int k) {
  const auto& fast = fastest_gemm();
  if (!fast.pack) return {};
  return {fast.pack(dense(0, n, k, nullptr, weight, Layout::NT, 1.0f, nullptr, nullptr))};
}

void gemm_fast(int m, int n, int k, const float* a, const float* b, Layout layout, float alpha, const float* bias,
               float* c, const PackedWeight* packed) {
  const auto& fast = fastest_gemm();
  const GemmArgs args = dense(m, n, k, a, b, layout, alpha, bias, c);
  if (packed && !packed->panels.empty() && fast.gemm_packed)
    fast.gemm_packed(args, packed->panels.data());
  else
    fast.fn(args);
}

void gemm(GemmFn fn, int m, int n, int k, const float* a, const float* b, Layout layout, float alpha,
          const float* bias, float* c) {
  fn(dense(m, n, k, a, b, layout, alpha, bias, c));
}

void gemm_accumulate(GemmFn fn, int m, int n, int k, const float* a, bool trans_a, const float* b, Layout layout,
                     float* c) {
  GemmArgs args = dense(m, n, k, a, b, layout, 1.0f, nullptr, c);
  args.trans_a = trans_a;
  args.lda = trans_a ? m : k;
  args.accumulate = true;
  fn(args);
}

}  // namespace attention::kernels
