#pragma once
// Hot loops behind one signature each, with a registry of every variant built for
// this platform. The scalar variants are the spec; every other variant is tested
// against them over many odd shapes (tests/core/test_kernels.cpp).
//
//   GEMM:    C (M, N) = alpha * op(A) * op(B) + bias (N), or C += that (accumulate)
//            op(B) = B^T for B stored (N, K) ("NT": a linear layer's weight, or K in Q K^T)
//            op(B) = B   for B stored (K, N) ("NN": V in weights x V)
//            op(A) = A (M, K), or A^T for A stored (K, M) (trans_a: the backward's dW = dy^T x)
//   softmax: each of `rows` rows of length n, in place (see attention.hpp for the rules
//            about -inf, all-blocked rows and +inf).
//   GELU (tanh approximation): n values in place, each gelu_tanh(x).
//   SiLU: n values in place, each silu(x) = x sigmoid(x) (SwiGLU's gate).
//   Dot rows: out[j] = alpha * sum_i x[i] rows[j][i] for `count` rows of n (decode: q against K).
//   Weighted sum of rows: out[i] += sum_j w[j] rows[j][i], rows with w[j] = 0 skipped (decode:
//            the weights against V; a blocked key's row is never read).
//   Low-bit GEMM: C (M, N) = A (M, K) W^T + bias (N), W (N, K) held row by row in 16 or
//            8 bits (storage.hpp), widened on the fly (never a float copy of W). The
//            scalar variant is the spec: each product a[i][p] * widen(W[j][p]) summed in
//            order of p in float, then + bias[j]: gemm_f32_scalar on the widened W.
//            With activations Int16 or Int8 (Q8_0's integer options, docs/pretrained.md) each
//            row of A is first rounded per block of 32 along K (round_row); the spec is then
//            the scalar variant on the rounded A, q_a d_a (every variant, any storage).
#include <cstddef>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "attention/page_aligned.hpp"
#include "attention/storage.hpp"

namespace attention::kernels {

enum class Layout { NT, NN };

struct GemmArgs {
  int m = 0, n = 0, k = 0;
  const float* a = nullptr;  // (M, K), or (K, M) with trans_a; row stride lda
  int lda = 0;
  bool trans_a = false;
  const float* b = nullptr;  // (N, K) for NT or (K, N) for NN, row stride ldb
  int ldb = 0;
  Layout layout = Layout::NT;
  float alpha = 1.0f;
  const float* bias = nullptr;  // (N) or nullptr
  float* c = nullptr;           // (M, N), row stride ldc
  int ldc = 0;
  // C += alpha op(A) op(B) + bias: the product is rounded to float, then added to C, so
  // the result equals computing C' = alpha op(A) op(B) + bias and adding C' to C.
  bool accumulate = false;
};

struct LowBitGemmArgs {
  int m = 0, n = 0, k = 0;
  const float* a = nullptr;  // (M, K), row stride lda
  int lda = 0;
  const std::uint8_t* w = nullptr;  // W's row 0: N rows of w_row_bytes bytes, each K values
  std::size_t w_row_bytes = 0;
  // Q8_0 only: W's blocks row-major, or Interleaved4 (storage.hpp): w is then group 0's first
  // byte and w_row_bytes q8x4_row_bytes(K), a quarter of a group. Only gemv_q8_0x4 takes
  // Interleaved4; gemm_low_bit (below) hands every other kernel row-major rows.
  Q8Layout w_layout = Q8Layout::RowMajor;
  const float* bias = nullptr;  // (N) or nullptr
  float* c = nullptr;           // (M, N), row stride ldc
  int ldc = 0;
  // Every value of W is finite (no infinity or NaN), known by its owner: F16's GEMV then skips
  // its per-group check for them (a kernel must give the same results either way).
  bool w_finite = false;
  // F16 only: W's halves hold w 2^w_held_exponent (storage.hpp's F16Scale: 0, or kF16HeldExponent
  // when Scaled); every F16 kernel widens them to w (the rebias 2^(112 - e), f16_rebias).
  int w_held_exponent = 0;
  // A's rows as they are (F32) or rounded per block of 32 first (Int16, Int8: round_row):
  // Q8_0's GEMV then multiplies in integers; every other variant multiplies A rounded and
  // widened back.
  Q8Activations activations = Q8Activations::F32;
};

// A row x of K values rounded per block of 32 consecutive values (Q8_0's blocks of W) to the
// levels of Q, L = its largest value (int16: 32767, int8: 127; ggml's Q8_0 x Q8_0 for int8):
// d = max|x_block| / L (float32), q = round(x / d) in [-L, L], half away from zero, so a
// block's dot with W's is d_w d sum(q_w q) with the integer sum exact (|q_w q| <= 128 L).
// A block of zeros, or one so small that d underflows to 0, gives d = 0 and q = 0; a block
// holding an infinity or NaN gives d = NaN and q = 0 (the product is NaN, as the float one).
// q: ceil(K / 32) x 32 values (the last block zero-padded, as W's); scales: ceil(K / 32).
// Defined for Q = std::int16_t and std::int8_t.
template <class Q>
void round_row(const float* x, int k, Q* q, float* scales);
inline int q8_blocks(int k) { return (k + kQ8BlockValues - 1) / kQ8BlockValues; }
#ifdef __wasm_simd128__
// round_row in wasm SIMD, the same q and scales bit for bit (the whole blocks 8 lanes x 4 at a
// time, the last partial block by round_row): the integer GEMV rounds x once per call with it.
template <class Q>
void round_row_wasmsimd(const float* x, int k, Q* q, float* scales);
#endif
// g with A replaced by its rows rounded (round_row to g.activations' levels) and widened
// back, q d, into `scratch` (M x K floats, lda K), activations F32: what a float variant multiplies.
LowBitGemmArgs with_rounded_a(const LowBitGemmArgs& g, std::vector<float>& scratch);

using GemmFn = void (*)(const GemmArgs&);
using LowBitGemmFn = void (*)(const LowBitGemmArgs&);
using SoftmaxFn = void (*)(float* data, int rows, int n);
using ActivationFn = void (*)(float* data, std::size_t n);
using DotRowsFn = void (*)(const float* x, const float* rows, int count, int n, float alpha, float* out);
using WeightedSumRowsFn = void (*)(const float* weights, const float* rows, int count, int n, float* out);
// Packed panels start on a page (attention/page_aligned.hpp): the same GEMV ran GPT-2's one-thread
// decode slower in Node when an unused field in the kernel lists moved the allocations after it.
using Panels = std::vector<float, attention::PageAlignedAllocator<float>>;
// For variants that repack op(B) (the wasm SIMD kernel): pack once, multiply many times.
// pack: (args with b, ldb, n, k, layout) -> panels; gemm_packed: args.b is ignored.
using PackFn = Panels (*)(const GemmArgs&);
using PackedGemmFn = void (*)(const GemmArgs&, const float* panels);
// Columns [j0, j1) of C of the product `whole` (A not transposed, C not accumulated into), from
// its panels (j0 a multiple of kFastGemmPanelColumns; j1 too, or N): each column the same bits
// as in the whole product, so threads may split C's columns anywhere on a panel's edge.
using PackedColumnsFn = void (*)(const GemmArgs& whole, const float* panels, int j0, int j1);

// Rows of the fast GEMM's register tile: threads split C's rows at multiples of it.
constexpr int kFastGemmTileRows = 5;
// Rows of A up to which gemm_fast multiplies packed panels by the variant's GEMV
// (gemv_packed: decode of one sequence) instead of its register tile: one. With 2 or 4 rows
// the tile, which loads B once for all of them, was as fast or faster (docs/performance.md,
// "Decode: one row of x"). The two sum in other orders, so a row's result differs between
// them by float rounding.
constexpr int kFastGemmGemvUpToRows = 1;
// Columns of the packed GEMM's column block (256, 32 panels of 8; gemm_wasmsimd.cpp's kNC):
// a product of few rows (decode's GEMV) is split across threads along C's columns at
// multiples of it, so each thread's part of the packed panels is one contiguous run.
constexpr int kFastGemmColumnBlock = 256;
// Columns of a packed panel (gemm_wasmsimd.cpp's kNR): decode's GEMV (gemv_columns) is split
// across threads at multiples of it, so the parts are even (a 768-column product in halves of
// 384, not blocks of 256 and 512).
constexpr int kFastGemmPanelColumns = 8;

void gemm_f32_scalar(const GemmArgs& args);
void gemm_f32_eigen(const GemmArgs& args);
void softmax_rows_scalar(float* data, int rows, int n);
// 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))): GPT-2's gelu_new, PyTorch's
// gelu(approximate='tanh'). One value: the spec the variants follow.
float gelu_tanh(float x);
void gelu_tanh_scalar(float* data, std::size_t n);
// x * sigmoid(x), with exp of a non-positive argument only (no overflow).
float silu(float x);
void silu_scalar(float* data, std::size_t n);
void dot_rows_scalar(const float* x, const float* rows, int count, int n, float alpha, float* out);
void weighted_sum_rows_scalar(const float* weights, const float* rows, int count, int n, float* out);
void gemm_f32_bf16w_scalar(const LowBitGemmArgs& args);
void gemm_f32_f16w_scalar(const LowBitGemmArgs& args);
void gemm_f32_q8_0w_scalar(const LowBitGemmArgs& args);
// Widens W in blocks of 64 rows into a scratch buffer and multiplies each with Eigen.
void gemm_f32_bf16w_eigen(const LowBitGemmArgs& args);
void gemm_f32_f16w_eigen(const LowBitGemmArgs& args);
void gemm_f32_q8_0w_eigen(const LowBitGemmArgs& args);
#ifdef __wasm_simd128__
// Dot products along K on W's rows in place: 4 rows of A x 2 rows of W per tile, W widened
// 8 values at a time in registers (decode: few rows of A).
void gemm_f32_bf16w_4x2_wasmsimd(const LowBitGemmArgs& args);
void gemm_f32_f16w_4x2_wasmsimd(const LowBitGemmArgs& args);
void gemm_f32_q8_0w_4x2_wasmsimd(const LowBitGemmArgs& args);
// GEMV (decode, 1 to 4 rows of A; any M works): 4 rows of W per tile with 1 or 2 rows of A,
// each step's products summed before one add per accumulator, Q8_0's scale once per block.
void gemm_f32_bf16w_gemv_wasmsimd(const LowBitGemmArgs& args);
void gemm_f32_f16w_gemv_wasmsimd(const LowBitGemmArgs& args);
void gemm_f32_q8_0w_gemv_wasmsimd(const LowBitGemmArgs& args);
// 256 rows of W at a time widened into a float block for the float GEMM's 5x8 tile (prefill).
void gemm_f32_bf16w_5x8_wasmsimd(const LowBitGemmArgs& args);
void gemm_f32_f16w_5x8_wasmsimd(const LowBitGemmArgs& args);
void gemm_f32_q8_0w_5x8_wasmsimd(const LowBitGemmArgs& args);
// The fast path: GEMV up to 4 rows of A; F16 and Q8_0 5x8 from 16 rows of A on; else 4x2.
void gemm_f32_bf16w_wasmsimd(const LowBitGemmArgs& args);
void gemm_f32_f16w_wasmsimd(const LowBitGemmArgs& args);
void gemm_f32_q8_0w_wasmsimd(const LowBitGemmArgs& args);
// The GEMV, and the fast path with it, with relaxed SIMD's madd: only in a .wasm rewritten for
// it (relaxed_simd.hpp), where the registry lists them.
void gemm_f32_bf16w_gemv_wasmrelaxed(const LowBitGemmArgs& args);
void gemm_f32_f16w_gemv_wasmrelaxed(const LowBitGemmArgs& args);
void gemm_f32_q8_0w_gemv_wasmrelaxed(const LowBitGemmArgs& args);
void gemm_f32_bf16w_wasmrelaxed(const LowBitGemmArgs& args);
void gemm_f32_f16w_wasmrelaxed(const LowBitGemmArgs& args);
void gemm_f32_q8_0w_wasmrelaxed(const LowBitGemmArgs& args);
// Q8_0 interleaved by 4 (args.w_layout Interleaved4, activations Int16 or Int8): q8_0x4_gemv() below.
void gemv_q8_0x4_wasmsimd(const LowBitGemmArgs& args);
void gemv_q8_0x4_wasmrelaxed(const LowBitGemmArgs& args);
void gelu_tanh_wasmsimd(float* data, std::size_t n);
void silu_wasmsimd(float* data, std::size_t n);
void gemm_f32_5x8_wasmsimd(const GemmArgs& args);
Panels pack_f32_5x8_wasmsimd(const GemmArgs& args);
void gemm_f32_5x8_wasmsimd_packed(const GemmArgs& args, const float* panels);
// The GEMV on the same panels: each row of A alone, its products summed in three chains
// along the depth (decode's product of one row; any number of rows works).
void gemm_f32_gemv_wasmsimd(const GemmArgs& args);
void gemm_f32_gemv_wasmsimd_packed(const GemmArgs& args, const float* panels);
void gemm_f32_gemv_wasmsimd_columns(const GemmArgs& whole, const float* panels, int j0, int j1);
// The same two with relaxed SIMD's fused multiply-add: only in a .wasm rewritten for it
// (relaxed_simd.hpp), where the registry lists them; same packing.
void gemm_f32_5x8_wasmrelaxed(const GemmArgs& args);
void gemm_f32_5x8_wasmrelaxed_packed(const GemmArgs& args, const float* panels);
void gemm_f32_gemv_wasmrelaxed(const GemmArgs& args);
void gemm_f32_gemv_wasmrelaxed_packed(const GemmArgs& args, const float* panels);
void gemm_f32_gemv_wasmrelaxed_columns(const GemmArgs& whole, const float* panels, int j0, int j1);

void softmax_rows_wasmsimd(float* data, int rows, int n);
// The decode step's attention (decode_attention.cpp): dot_rows by slices of the depth (the
// spec's sums within rounding), weighted_sum_rows in the spec's order (its bits); the relaxed
// twins with relaxed SIMD's madd, only in a .wasm rewritten for it, where the registry lists them.
void dot_rows_wasmsimd(const float* x, const float* rows, int count, int n, float alpha, float* out);
void weighted_sum_rows_wasmsimd(const float* weights, const float* rows, int count, int n, float* out);
void dot_rows_wasmrelaxed(const float* x, const float* rows, int count, int n, float alpha, float* out);
void weighted_sum_rows_wasmrelaxed(const float* weights, const float* rows, int count, int n, float* out);
#endif

template <class Fn>
struct Variant {
  std::string name;
  Fn fn;
  PackFn pack = nullptr;                   // GEMM variants that pack op(B): how
  PackedGemmFn gemm_packed = nullptr;      // ... and the product with panels packed earlier
  PackedGemmFn gemv_packed = nullptr;      // ... and with few rows of A (kFastGemmGemvUpToRows), if not the same
  PackedColumnsFn gemv_columns = nullptr;  // ... gemv_packed's product on a range of C's columns
};

// Every variant built here, the scalar reference first.
const std::vector<Variant<GemmFn>>& gemm_variants();
const std::vector<Variant<SoftmaxFn>>& softmax_variants();
const std::vector<Variant<ActivationFn>>& gelu_tanh_variants();
const std::vector<Variant<ActivationFn>>& silu_variants();
const std::vector<Variant<DotRowsFn>>& dot_rows_variants();
const std::vector<Variant<WeightedSumRowsFn>>& weighted_sum_rows_variants();
// The low-bit GEMM's variants for one storage (BF16, F16 or Q8_0), the scalar reference first.
const std::vector<Variant<LowBitGemmFn>>& low_bit_gemm_variants(Storage storage);

// The variant the fast path uses on this platform: the wasm SIMD kernels where they
// are built (measured faster than Eigen there), Eigen natively.
const Variant<GemmFn>& fastest_gemm();
const Variant<SoftmaxFn>& fastest_softmax();
const Variant<ActivationFn>& fastest_gelu_tanh();
const Variant<ActivationFn>& fastest_silu();
const Variant<DotRowsFn>& fastest_dot_rows();
const Variant<WeightedSumRowsFn>& fastest_weighted_sum_rows();
const Variant<LowBitGemmFn>& fastest_low_bit_gemm(Storage storage);
// The integer dot Q8_0's int8-activations GEMV sums its blocks with (gemm_low_bit_wasmsimd.cpp),
// slowest first; every one gives the same integers, so the same bits:
//   Plain: int16 dots (wasm SIMD without relaxed SIMD, or a runtime whose relaxed dot is wrong);
//   Split: relaxed SIMD's dot on x's positive and negative parts (its second operand in [0, 127],
//          the same on every engine: relaxed_simd.hpp's relaxed_dot_adds);
//   Unsigned: relaxed SIMD's dot on W's bytes flipped to [0, 255], one dot per 16 values (only
//          where the runtime's dot is unsigned and exact there: relaxed_dot_unsigned, AVX-VNNI).
enum class Int8Dot { Plain, Split, Unsigned };
// The dot this engine runs: the fastest its runtime computes right, at most the limit below
// (Plain in an engine without the relaxed kernels or without the low-bit kernels).
Int8Dot int8_dot();
// Decode's integer GEMV on Q8_0 interleaved by 4 (storage.hpp's Interleaved4: args.w_layout so,
// activations Int16 or Int8, any M, A's rows one at a time), the same bits as the row-major
// integer GEMV (gemm_f32_q8_0w_gemv_wasmsimd) with any dot. Null where this engine has none (no wasm SIMD
// low-bit kernels): no weight is interleaved there (preferred_q8_layout).
LowBitGemmFn q8_0x4_gemv();
// The layout a Q8_0 weight multiplied with `activations` is read fastest in: Interleaved4 for
// Int16 and Int8 where q8_0x4_gemv() exists, else RowMajor.
Q8Layout preferred_q8_layout(Q8Activations activations);
// Caps int8_dot() at `most` (default Unsigned: no cap), so tests and benches can compare the
// dots in one engine; returns the dot that then runs.
Int8Dot limit_int8_dot(Int8Dot most);
// "plain", "split", "unsigned" (engine.kernels.int8Dot), and back (false for another name).
const char* int8_dot_name(Int8Dot dot);
bool int8_dot_from_name(const std::string& name, Int8Dot& dot);

// A weight matrix packed once for the fast GEMM (empty where the fast GEMM does not pack).
struct PackedWeight {
  Panels panels;
};
// weight: (n, k) as a linear layer's W (NT layout).
PackedWeight pack_weight(const float* weight, int n, int k);

// C = A * op(B) with dense rows; `packed`, if not null and not empty, is op(B) packed by
// pack_weight for the fastest variant and replaces the packing step (then up to
// kFastGemmGemvUpToRows rows of A are multiplied by the variant's gemv_packed, if any).
void gemm_fast(int m, int n, int k, const float* a, const float* b, Layout layout, float alpha, const float* bias,
               float* c, const PackedWeight* packed = nullptr);

// Convenience: C = A * op(B) with dense rows.
void gemm(GemmFn fn, int m, int n, int k, const float* a, const float* b, Layout layout, float alpha, const float* bias,
          float* c);

// C (m, n) = A (m, k) W^T + bias with W's rows held in `storage` (dense A and C), split
// over threads by rows of C like the other products.
// What W's owner knows of it and how A's rows are taken (LowBitGemmArgs' fields of the same names).
struct LowBitOptions {
  bool w_finite = false;
  Q8Activations activations = Q8Activations::F32;
  Q8Layout layout = Q8Layout::RowMajor;  // Q8_0's blocks (storage.hpp); w: group 0 when Interleaved4
  int w_held_exponent = 0;               // F16's halves: w 2^e (storage.hpp's F16Scale)
};
// Up to this many rows of A, the low-bit fast path multiplies by its GEMV (more: by tiles).
constexpr int kLowBitGemvUpToRows = 4;
void gemm_low_bit(LowBitGemmFn fn, Storage storage, int m, int n, int k, const float* a, const std::uint8_t* w,
                  const float* bias, float* c, const LowBitOptions& options = {});

// Convenience: C (m, n) += op(A) * op(B) with dense rows; A stored (m, k), or (k, m) if trans_a.
void gemm_accumulate(GemmFn fn, int m, int n, int k, const float* a, bool trans_a, const float* b, Layout layout,
                     float* c);

}  // namespace attention::kernels
