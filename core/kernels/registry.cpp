#include "kernels.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <utility>

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
        {"gemm_f32_gemv_wasmsimd", &gemm_f32_gemv_wasmsimd, &pack_f32_5x8_wasmsimd, &gemm_f32_gemv_wasmsimd_packed,
         nullptr, &gemm_f32_gemv_wasmsimd_columns},
        {"gemm_f32_5x8_wasmsimd", &gemm_f32_5x8_wasmsimd, &pack_f32_5x8_wasmsimd, &gemm_f32_5x8_wasmsimd_packed,
         &gemm_f32_gemv_wasmsimd_packed, &gemm_f32_gemv_wasmsimd_columns},
#endif
    };
#ifdef __wasm_simd128__
    if (relaxed_simd_available()) {
      list.push_back({"gemm_f32_gemv_wasmrelaxed", &gemm_f32_gemv_wasmrelaxed, &pack_f32_5x8_wasmsimd,
                      &gemm_f32_gemv_wasmrelaxed_packed, nullptr, &gemm_f32_gemv_wasmrelaxed_columns});
      list.push_back({"gemm_f32_5x8_wasmrelaxed", &gemm_f32_5x8_wasmrelaxed, &pack_f32_5x8_wasmsimd,
                      &gemm_f32_5x8_wasmrelaxed_packed, &gemm_f32_gemv_wasmrelaxed_packed,
                      &gemm_f32_gemv_wasmrelaxed_columns});
    }
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

const std::vector<Variant<DotRowsFn>>& dot_rows_variants() {
  static const std::vector<Variant<DotRowsFn>> variants = [] {
    std::vector<Variant<DotRowsFn>> list = {
        {"dot_rows_scalar", &dot_rows_scalar},
#ifdef __wasm_simd128__
        {"dot_rows_wasmsimd", &dot_rows_wasmsimd},
#endif
    };
#ifdef __wasm_simd128__
    if (relaxed_simd_available()) list.push_back({"dot_rows_wasmrelaxed", &dot_rows_wasmrelaxed});
#endif
    return list;
  }();
  return variants;
}

const std::vector<Variant<WeightedSumRowsFn>>& weighted_sum_rows_variants() {
  static const std::vector<Variant<WeightedSumRowsFn>> variants = [] {
    std::vector<Variant<WeightedSumRowsFn>> list = {
        {"weighted_sum_rows_scalar", &weighted_sum_rows_scalar},
#ifdef __wasm_simd128__
        {"weighted_sum_rows_wasmsimd", &weighted_sum_rows_wasmsimd},
#endif
    };
#ifdef __wasm_simd128__
    if (relaxed_simd_available()) list.push_back({"weighted_sum_rows_wasmrelaxed", &weighted_sum_rows_wasmrelaxed});
#endif
    return list;
  }();
  return variants;
}

// The last variant listed is the one the fast path uses: the wasm SIMD kernels
// where built (the relaxed GEMM in a .wasm rewritten for it), else Eigen for GEMM and
// the scalar softmax and GELU. The low-bit GEMM's list is in registry_low_bit.cpp.
const Variant<GemmFn>& fastest_gemm() { return gemm_variants().back(); }
const Variant<SoftmaxFn>& fastest_softmax() { return softmax_variants().back(); }
const Variant<ActivationFn>& fastest_gelu_tanh() { return gelu_tanh_variants().back(); }
const Variant<ActivationFn>& fastest_silu() { return silu_variants().back(); }
const Variant<DotRowsFn>& fastest_dot_rows() { return dot_rows_variants().back(); }
const Variant<WeightedSumRowsFn>& fastest_weighted_sum_rows() { return weighted_sum_rows_variants().back(); }

}  // namespace attention::kernels

namespace attention {

FastKernels fast_kernels() {
  FastKernels kernels{kernels::fastest_gemm().name, kernels::fastest_softmax().name, kernels::fastest_gelu_tanh().name};
#ifdef __wasm_simd128__
  kernels.relaxed_simd = kernels::fastest_gemm().fn == &kernels::gemm_f32_5x8_wasmrelaxed;
#endif
  kernels.int8_dot = kernels::int8_dot_name(kernels::int8_dot());
  return kernels;
}

std::string limit_int8_dot(const std::string& most) {
  kernels::Int8Dot dot;
  if (!kernels::int8_dot_from_name(most, dot)) return "";
  return kernels::int8_dot_name(kernels::limit_int8_dot(dot));
}

}  // namespace attention

namespace attention::kernels {

namespace {
constexpr std::pair<Int8Dot, const char*> kInt8DotNames[] = {
    {Int8Dot::Plain, "plain"}, {Int8Dot::Split, "split"}, {Int8Dot::Unsigned, "unsigned"}};
}  // namespace

const char* int8_dot_name(Int8Dot dot) {
  for (const auto& [value, name] : kInt8DotNames)
    if (value == dot) return name;
  return "plain";
}

bool int8_dot_from_name(const std::string& name, Int8Dot& dot) {
  for (const auto& [value, known] : kInt8DotNames)
    if (name == known) {
      dot = value;
      return true;
    }
  return false;
}

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

// A product of fewer rows than two tiles (decode's GEMV, M = 1): split along C's columns
// instead, `block` columns at a time (each column is the same dot products wherever the
// split falls, so results do not depend on the thread count); run(j0, j1) computes columns
// [j0, j1). Without threads, or for little work, one call over every column.
void split_columns(const GemmArgs& args, int block, const std::function<void(int j0, int j1)>& run) {
  const double flops = 2.0 * args.m * args.n * args.k;
  const int blocks = (args.n + block - 1) / block;
  if (max_threads() < 2 || flops < kMinParallelFlops || blocks < 2) {
    run(0, args.n);
    return;
  }
  // Chunks of at least kMinParallelFlops, give or take a block (rounded down: a 768 x 768
  // GEMV's 3 blocks of 256 columns still split, 2 + 1).
  const int min_chunk = std::max(1, static_cast<int>(kMinParallelFlops / (flops / blocks)));
  parallel_for(blocks, min_chunk, [&](int b0, int b1) { run(b0 * block, std::min(args.n, b1 * block)); });
}

#ifdef ATTENTION_THREADS
// Decode's float GEMV (one row of A, packed panels): split along C's columns at panel edges
// (kFastGemmPanelColumns), into even parts claimed by the threads (parallel_for_balanced), each
// reading at least kMinParallelBytes of W; run(j0, j1) computes columns [j0, j1). Each column
// is the same sums wherever the split falls, so results do not depend on the thread count.
// Whether to split it: false without threads or for less than two chunks' worth of W.
bool split_gemv(const GemmArgs& args) {
  const double w_bytes = static_cast<double>(sizeof(float)) * args.n * args.k;
  return max_threads() >= 2 && w_bytes >= 2 * kMinParallelBytes && args.n >= 2 * kFastGemmPanelColumns;
}
void split_gemv_columns(const GemmArgs& args, const std::function<void(int j0, int j1)>& run) {
  const int panels = (args.n + kFastGemmPanelColumns - 1) / kFastGemmPanelColumns;
  const double panel_bytes = static_cast<double>(sizeof(float)) * kFastGemmPanelColumns * args.k;
  const int min_chunk = std::max(1, static_cast<int>(std::ceil(kMinParallelBytes / panel_bytes)));
  parallel_for_balanced(panels, min_chunk, [&](int p0, int p1) {
    run(p0 * kFastGemmPanelColumns, std::min(args.n, p1 * kFastGemmPanelColumns));
  });
}
#endif

// Few rows of A: by columns; else by rows.
bool few_rows(const GemmArgs& args) { return args.m < 2 * kRowBlock; }

// Rows of W (C's columns) a thread takes at a time in the low-bit GEMM of few rows: whole
// 4-row tiles of the wasm GEMV, whole 64-row blocks of the native kernel's widening (so each
// part multiplies the blocks the unsplit product does).
constexpr int kLowBitColumnBlock = 64;

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
  const bool panels = packed && !packed->panels.empty() && fast.gemm_packed;
  const float* panel_data = panels ? packed->panels.data() : nullptr;
  // One row of a weight not packed (yet: a weight is packed on its second use, Parameter::
  // packed_rows) is packed here and multiplied by the GEMV, as a packed weight's row is: a
  // row's bits must not depend on whether its weight was packed yet (the same prompt would
  // give other logits the second time). The tile's own call packs B the same way.
  Panels packed_now;
  if (!panels && m <= kFastGemmGemvUpToRows && fast.gemv_packed && fast.pack) {
    packed_now = fast.pack(args);
    panel_data = packed_now.data();
  }
#ifdef ATTENTION_THREADS
  // Decode's one row by the GEMV (its sums along the depth in independent chains), in parts on
  // the threads. Only in builds with threads: the single-threaded engine's gemm_fast keeps its
  // code as it was (GPT-2's one-thread decode ran slower in Node with this branch compiled in
  // and never taken, though the kernels timed alone were equal: docs/performance.md).
  if (panel_data && m <= kFastGemmGemvUpToRows && fast.gemv_columns && split_gemv(args)) {
    split_gemv_columns(args, [&](int j0, int j1) { fast.gemv_columns(args, panel_data, j0, j1); });
    return;
  }
#endif
  if (panel_data && few_rows(args)) {
    // Decode's one row by the GEMV on one thread, a few rows by the tile (split by column blocks).
    static_assert(kFastGemmGemvUpToRows < 2 * kRowBlock, "few rows");
    const PackedGemmFn product = m <= kFastGemmGemvUpToRows && fast.gemv_packed ? fast.gemv_packed : fast.gemm_packed;
    // Columns [j0, j1) of C: in the packed layout the column blocks from j0 (a multiple of
    // kFastGemmColumnBlock) on, j0 K floats in; each block is multiplied as it is unsplit.
    split_columns(args, kFastGemmColumnBlock, [&](int j0, int j1) {
      GemmArgs part = args;
      part.n = j1 - j0;
      part.c = args.c + j0;
      part.bias = args.bias ? args.bias + j0 : nullptr;
      product(part, panel_data + static_cast<std::size_t>(j0) * k);
    });
  } else if (panels) {
    split_rows(args, [&](const GemmArgs& part) { fast.gemm_packed(part, packed->panels.data()); });
  } else {
    split_rows(args, fast.fn);
  }
}

void gemm(GemmFn fn, int m, int n, int k, const float* a, const float* b, Layout layout, float alpha, const float* bias,
          float* c) {
  split_rows(dense(m, n, k, a, b, layout, alpha, bias, c), fn);
}

namespace {

// The kernel's arguments for C's columns [j0, j1) against `rows` rows of A (a, lda K; c, ldc):
// W's rows from row j0 on, w_row_bytes apart (a quarter of a group when interleaved).
LowBitGemmArgs low_bit_args(int rows, int k, const float* a, const std::uint8_t* w, std::size_t w_row_bytes,
                            Q8Layout layout, const float* bias, float* c, int ldc, int j0, int j1,
                            const LowBitOptions& options) {
  LowBitGemmArgs args;
  args.m = rows;
  args.n = j1 - j0;
  args.k = k;
  args.a = a;
  args.lda = k;
  args.w = w + static_cast<std::size_t>(j0) * w_row_bytes;
  args.w_row_bytes = w_row_bytes;
  args.w_layout = layout;
  args.bias = bias ? bias + j0 : nullptr;
  args.c = c + j0;
  args.ldc = ldc;
  args.w_finite = options.w_finite;
  args.w_held_exponent = options.w_held_exponent;
  args.activations = options.activations;
  return args;
}

// C's columns [0, n) of the product, row stride ldc >= n, W's rows row-major (w_row_bytes each):
// split over threads by rows of C like the other products (by columns for few rows of A).
void multiply_low_bit(LowBitGemmFn fn, int m, int n, int ldc, int k, const float* a, const std::uint8_t* w,
                      std::size_t w_row_bytes, const float* bias, float* c, const LowBitOptions& options) {
  GemmArgs shape = dense(m, n, k, a, nullptr, Layout::NT, 1.0f, bias, c);
  shape.ldc = ldc;
  const auto args_for = [&](int rows, const float* a_rows, float* c_rows, int j0, int j1) {
    return low_bit_args(rows, k, a_rows, w, w_row_bytes, Q8Layout::RowMajor, bias, c_rows, ldc, j0, j1, options);
  };
  if (few_rows(shape)) {  // W's rows [j0, j1): C's columns
    split_columns(shape, kLowBitColumnBlock, [&](int j0, int j1) { fn(args_for(m, a, c, j0, j1)); });
    return;
  }
  split_rows(shape, [&](const GemmArgs& part) { fn(args_for(part.m, part.a, part.c, 0, n)); });
}

// Rows of an interleaved W de-interleaved at a time for a kernel that reads rows (a multiple of
// kLowBitColumnBlock, so each chunk splits over threads as the whole would).
constexpr int kDeinterleavedRows = 4 * kLowBitColumnBlock;

// W interleaved by 4 (storage.hpp's Interleaved4; w: group 0). Decode's integer GEMV (activations
// Int16 or Int8, the fast path's choice up to kLowBitGemvUpToRows rows of A) reads it in place; any other product (the
// scalar spec, more rows of A, other activations) gets W's rows back row-major, a chunk at a
// time, and multiplies them as before: a column's bits do not depend on the chunks.
void gemm_q8_0x4(LowBitGemmFn fn, int m, int n, int k, const float* a, const std::uint8_t* w, const float* bias,
                 float* c, const LowBitOptions& options) {
  const LowBitGemmFn gemv = q8_0x4_gemv();
  const std::size_t group_row_bytes = q8x4_row_bytes(k);
  if (gemv && options.activations != Q8Activations::F32 && m <= kLowBitGemvUpToRows &&
      fn == fastest_low_bit_gemm(Storage::Q8_0).fn) {
    const GemmArgs shape = dense(m, n, k, a, nullptr, Layout::NT, 1.0f, bias, c);
    split_columns(shape, kLowBitColumnBlock, [&](int j0, int j1) {
      // Several rows of A: W a block of rows at a time, so it is read from cache by the next row.
      const int step = m == 1 ? j1 - j0 : kLowBitColumnBlock;
      for (int b0 = j0; b0 < j1; b0 += step)  // b0 is a multiple of 4: a group's first row
        gemv(low_bit_args(m, k, a, w, group_row_bytes, Q8Layout::Interleaved4, bias, c, n, b0, std::min(j1, b0 + step),
                          options));
    });
    return;
  }
  // A's rows rounded once here, not once per chunk, where the kernel would multiply them rounded
  // and widened back anyway (every variant but the fast path's integer GEMV: with_rounded_a).
  std::vector<float> rounded;
  LowBitOptions chunk_options = options;
  if (options.activations != Q8Activations::F32 &&
      !(m <= kLowBitGemvUpToRows && fn == fastest_low_bit_gemm(Storage::Q8_0).fn)) {
    LowBitGemmArgs whole;
    whole.m = m;
    whole.k = k;
    whole.a = a;
    whole.lda = k;
    whole.activations = options.activations;
    a = with_rounded_a(whole, rounded).a;  // (M, K), lda K
    chunk_options.activations = Q8Activations::F32;
  }
  const std::size_t w_row_bytes = row_bytes(Storage::Q8_0, k);
  std::vector<std::uint8_t> rows(static_cast<std::size_t>(std::min(n, kDeinterleavedRows)) * w_row_bytes);
  for (int j0 = 0; j0 < n; j0 += kDeinterleavedRows) {
    const int count = std::min(kDeinterleavedRows, n - j0);
    deinterleave_q8_0(w, k, j0, count, rows.data());
    multiply_low_bit(fn, m, count, n, k, a, rows.data(), w_row_bytes, bias ? bias + j0 : nullptr, c + j0,
                     chunk_options);
  }
}

}  // namespace

void gemm_low_bit(LowBitGemmFn fn, Storage storage, int m, int n, int k, const float* a, const std::uint8_t* w,
                  const float* bias, float* c, const LowBitOptions& options) {
  if (storage == Storage::Q8_0 && options.layout == Q8Layout::Interleaved4)
    return gemm_q8_0x4(fn, m, n, k, a, w, bias, c, options);
  multiply_low_bit(fn, m, n, n, k, a, w, row_bytes(storage, k), bias, c, options);
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
