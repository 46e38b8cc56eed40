#include "kernels.hpp"

#include <algorithm>
#include <functional>

#include "attention/backend.hpp"
#include "attention/parallel.hpp"
#include "relaxed_simd.hpp"

namespace attention::kernels {

const std::vector<Variant<GemmFn>>& gemm_variants() {
  static const std::vector<Variant<GemmFn>> variants = [] {
    std::vector<Variant<GemmFn>> list = {
        {"gemm_f32_scalar", &gemm_f32_scalar},
        {"gemm_f32_eigen", &gemm_f32_eigen},
#ifdef __wasm_simd128__
        {"gemm_f32_5x8_wasmsimd", &gemm_f32_5x8_wasmsimd, &pack_f32_5x8_wasmsimd, &gemm_f32_5x8_wasmsimd_packed},
#endif
    };
#ifdef __wasm_simd128__
    if (relaxed_simd_available())
      list.push_back({"gemm_f32_5x8_wasmrelaxed", &gemm_f32_5x8_wasmrelaxed, &pack_f32_5x8_wasmsimd,
                      &gemm_f32_5x8_wasmrelaxed_packed});
#endif
    return list;
  }();
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

const std::vector<Variant<ActivationFn>>& gelu_tanh_variants() {
  static const std::vector<Variant<ActivationFn>> variants = {
      {"gelu_tanh_scalar", &gelu_tanh_scalar},
#ifdef __wasm_simd128__
      {"gelu_tanh_wasmsimd", &gelu_tanh_wasmsimd},
#endif
  };
  return variants;
}

const std::vector<Variant<ActivationFn>>& silu_variants() {
  static const std::vector<Variant<ActivationFn>> variants = {
      {"silu_scalar", &silu_scalar},
#ifdef __wasm_simd128__
      {"silu_wasmsimd", &silu_wasmsimd},
#endif
  };
  return variants;
}

const std::vector<Variant<LowBitGemmFn>>& low_bit_gemm_variants(Storage storage) {
  static const std::vector<Variant<LowBitGemmFn>> bf16 = {
      {"gemm_f32_bf16w_scalar", &gemm_f32_bf16w_scalar},
      {"gemm_f32_bf16w_eigen", &gemm_f32_bf16w_eigen},
#ifdef __wasm_simd128__
      {"gemm_f32_bf16w_4x2_wasmsimd", &gemm_f32_bf16w_4x2_wasmsimd},
      {"gemm_f32_bf16w_gemv_wasmsimd", &gemm_f32_bf16w_gemv_wasmsimd},
      {"gemm_f32_bf16w_5x8_wasmsimd", &gemm_f32_bf16w_5x8_wasmsimd},
      {"gemm_f32_bf16w_wasmsimd", &gemm_f32_bf16w_wasmsimd},
#endif
  };
  static const std::vector<Variant<LowBitGemmFn>> f16 = {
      {"gemm_f32_f16w_scalar", &gemm_f32_f16w_scalar},
      {"gemm_f32_f16w_eigen", &gemm_f32_f16w_eigen},
#ifdef __wasm_simd128__
      {"gemm_f32_f16w_4x2_wasmsimd", &gemm_f32_f16w_4x2_wasmsimd},
      {"gemm_f32_f16w_gemv_wasmsimd", &gemm_f32_f16w_gemv_wasmsimd},
      {"gemm_f32_f16w_5x8_wasmsimd", &gemm_f32_f16w_5x8_wasmsimd},
      {"gemm_f32_f16w_wasmsimd", &gemm_f32_f16w_wasmsimd},
#endif
  };
  static const std::vector<Variant<LowBitGemmFn>> q8_0 = {
      {"gemm_f32_q8_0w_scalar", &gemm_f32_q8_0w_scalar},
      {"gemm_f32_q8_0w_eigen", &gemm_f32_q8_0w_eigen},
#ifdef __wasm_simd128__
      {"gemm_f32_q8_0w_4x2_wasmsimd", &gemm_f32_q8_0w_4x2_wasmsimd},
      {"gemm_f32_q8_0w_gemv_wasmsimd", &gemm_f32_q8_0w_gemv_wasmsimd},
      {"gemm_f32_q8_0w_5x8_wasmsimd", &gemm_f32_q8_0w_5x8_wasmsimd},
      {"gemm_f32_q8_0w_wasmsimd", &gemm_f32_q8_0w_wasmsimd},
#endif
  };
  return storage == Storage::F16 ? f16 : storage == Storage::Q8_0 ? q8_0 : bf16;
}

// The last variant listed is the one the fast path uses: the wasm SIMD kernels
// where built (the relaxed GEMM in a .wasm rewritten for it), else Eigen for GEMM and
// the scalar softmax and GELU.
const Variant<GemmFn>& fastest_gemm() { return gemm_variants().back(); }
const Variant<SoftmaxFn>& fastest_softmax() { return softmax_variants().back(); }
const Variant<ActivationFn>& fastest_gelu_tanh() { return gelu_tanh_variants().back(); }
const Variant<ActivationFn>& fastest_silu() { return silu_variants().back(); }
const Variant<LowBitGemmFn>& fastest_low_bit_gemm(Storage storage) { return low_bit_gemm_variants(storage).back(); }

}  // namespace attention::kernels

namespace attention {

FastKernels fast_kernels() {
  FastKernels kernels{kernels::fastest_gemm().name, kernels::fastest_softmax().name, kernels::fastest_gelu_tanh().name};
#ifdef __wasm_simd128__
  kernels.relaxed_simd = kernels::fastest_gemm().fn == &kernels::gemm_f32_5x8_wasmrelaxed;
#endif
  return kernels;
}

}  // namespace attention

namespace attention::kernels {

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

namespace {

// Chunks of C's rows start at multiples of the SIMD kernel's tile height, so the split
// leaves the tiles whole. (A row's result never depends on its tile, so results do not
// depend on the thread count either way.)
constexpr int kRowBlock = kFastGemmTileRows;

// Runs `run` on row ranges of C in parallel (parallel_for): each range is the same product
// restricted to rows [r0, r1) of op(A) and C.
void split_rows(const GemmArgs& args, const std::function<void(const GemmArgs&)>& run) {
  const double flops = 2.0 * args.m * args.n * args.k;
  if (max_threads() < 2 || flops < kMinParallelFlops || args.m < 2 * kRowBlock) {
    run(args);
    return;
  }
  const int blocks = (args.m + kRowBlock - 1) / kRowBlock;
  parallel_for(blocks, 1, [&](int b0, int b1) {
    const int r0 = b0 * kRowBlock, r1 = std::min(args.m, b1 * kRowBlock);
    GemmArgs part = args;
    part.m = r1 - r0;
    part.a = args.trans_a ? args.a + r0 : args.a + static_cast<std::size_t>(r0) * args.lda;  // (K, M): columns
    part.c = args.c + static_cast<std::size_t>(r0) * args.ldc;
    run(part);
  });
}

}  // namespace

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
    split_rows(args, [&](const GemmArgs& part) { fast.gemm_packed(part, packed->panels.data()); });
  else
    split_rows(args, fast.fn);
}

void gemm(GemmFn fn, int m, int n, int k, const float* a, const float* b, Layout layout, float alpha, const float* bias,
          float* c) {
  split_rows(dense(m, n, k, a, b, layout, alpha, bias, c), fn);
}

void gemm_low_bit(LowBitGemmFn fn, Storage storage, int m, int n, int k, const float* a, const std::uint8_t* w,
                  const float* bias, float* c) {
  // The row-splitting of the float products, on the same arguments (only m, a and c change).
  GemmArgs shape = dense(m, n, k, a, nullptr, Layout::NT, 1.0f, bias, c);
  const std::size_t w_row_bytes = row_bytes(storage, k);
  split_rows(shape, [&](const GemmArgs& part) {
    LowBitGemmArgs args;
    args.m = part.m;
    args.n = n;
    args.k = k;
    args.a = part.a;
    args.lda = k;
    args.w = w;
    args.w_row_bytes = w_row_bytes;
    args.bias = bias;
    args.c = part.c;
    args.ldc = n;
    fn(args);
  });
}

void gemm_accumulate(GemmFn fn, int m, int n, int k, const float* a, bool trans_a, const float* b, Layout layout,
                     float* c) {
  GemmArgs args = dense(m, n, k, a, b, layout, 1.0f, nullptr, c);
  args.trans_a = trans_a;
  args.lda = trans_a ? m : k;
  args.accumulate = true;
  split_rows(args, fn);
}

}  // namespace attention::kernels
