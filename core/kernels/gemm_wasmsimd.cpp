// GEMM for 128-bit wasm SIMD. op(B) is packed into panels of 8 columns (zero-padded
// past N) and cut into blocks of kNC columns x kKC depth; a 5x8 register tile (10 f32x4
// accumulators) runs down one panel slice of a block for 5 rows of A at a time, two depth
// steps per iteration. A block (at most 256 x 256 floats, 256 KB) stays in L2 while every
// row of A passes over it, and a panel slice (256 x 8, 8 KB) stays in L1 across the row
// tiles; the depth blocks are summed in C. Two variants share all of it but the step:
// mul + add (plain wasm SIMD), and relaxed SIMD's fused multiply-add (relaxed_simd.hpp).
//
// Measured on GPT-2 small's products (64 rows, K 768 / 3072, N 768 to 3072; alternating
// runs against the unblocked 4x8 tile this replaced): 1.11x in Chromium 156, 1.08x in
// Node 20. A 6x8 tile was 1.17x in Chromium but 0.76x in Node 20, whose V8 spills its
// 12 accumulators (V8 allocates 15 of the 16 xmm registers); 10 accumulators fit in both.
// A row's result does not depend on the tile height (each row sums in the same order), so
// the choice changes no bits.
//
// Relaxed SIMD's madd over mul + add on the same products, alternating runs: 1.21x in
// Node 20 (--experimental-wasm-relaxed-simd), 1.35x in Chromium 156 (noisy machine).
//
// Decode's product of one row of A (gemm_fast, kFastGemmGemvUpToRows) runs the GEMV on the
// same panels instead (gemm_f32_gemv_*: any number of rows, each alone): the tile's one row
// has only two chains of dependent adds, so it waits on their latency (relaxed madd: 4
// cycles); the GEMV sums the depth in three chains (six accumulators; V8 spills eight).
// Measured in Node 20 (kernel_bench f32gemv, W in cache, tile vs GEMV alternating, one
// run, load average 5 to 10 on the 2 cores): relaxed 1.84x to 1.99x on GPT-2's and
// SmolLM2's layer shapes (36 -> 72 GB/s of W), plain mul + add 0.99x to 1.02x (its tile
// already ran at 65 GB/s); with 2 or 4 rows the GEMV was 0.65x / 0.95x (plain) and
// 1.1x / 1.2x (relaxed), and slower on the LM heads, so the tile keeps them. The GEMV sums
// in another order than the tile: a row's result differs from the tile's by rounding
// (cached decoding against the full forward: 1.3e-5 relative, test_generation.cpp).
//
// Out of cache (decoding's case: kernel_bench f32gemv-memory, one pass of one row through
// 4 GPT-2 layers' W, 113 MB, or an LM head, 113 / 154 MB, against a plain f32x4 read loop over
// the same packed bytes in the same run; relaxed, Node 20, 2026-11-27, load average 3.5 to 6.7)
// the GEMV reads W at 0.88x to 1.02x of that loop's rate (GPT-2 layers), 0.82x to 1.12x (LM
// heads; plain mul + add 0.95x to 1.04x), while the loop itself ran at 15 to 37 GB/s from run to
// run: the kernel is at what one thread reads, and these did not beat it (ratio of the read,
// alternating with this kernel): a 4-byte load 2 KB ahead twice per iteration (the same bits;
// 0.52x to 0.79x against 0.78x to 1.01x), two panels of a block in flight 128 KB apart sharing
// x's splat (two chains each, 8 accumulators: 0.56x to 0.93x against 0.94x to 1.08x; one chain
// each: 0.66x to 1.18x against 0.82x to 1.12x; in cache the two chains each ran 40 against 73 GB/s,
// written with arrays or with eight named accumulators alike: V8 spills). A panel kept in registers through all its
// depth blocks was not built: reading the bytes in that order (slices 256 KB apart) ran at 0.4x to 0.6x of the
// sequential read for GPT-2's K = 768.
//
// A may be stored transposed (trans_a) and C may be accumulated into (the backward's needs).
#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include <algorithm>
#include <cassert>
#include <memory>

#include "kernels.hpp"
#include "relaxed_simd.hpp"

namespace attention::kernels {

namespace {

constexpr int kMR = kFastGemmTileRows;      // rows of the register tile
constexpr int kNR = kFastGemmPanelColumns;  // columns: two f32x4
constexpr int kKC = 256;                    // depth of a block
constexpr int kNC = kFastGemmColumnBlock;   // columns of a block: 32 panels
static_assert(kNR == 8 && kNC % kNR == 0, "a panel is two f32x4; a block holds whole panels");

int panel_count(int n) { return (n + kNR - 1) / kNR; }

// The packed layout: blocks of op(B) in the order (column block, depth block); inside a
// block its panels one after another, each (depth, 8) row-major. The block at columns n0
// and depth k0 therefore starts at 8 (panel(n0) K + panels_in_block k0) floats.
std::size_t block_offset(int n0, int panels_in_block, int k0, int k) {
  return static_cast<std::size_t>(kNR) *
         (static_cast<std::size_t>(n0 / kNR) * k + static_cast<std::size_t>(panels_in_block) * k0);
}

// dst (kl, 8) = op(B)[k0 .. k0 + kl)[j0 .. j0 + cols), zero past cols.
void pack_slice(const GemmArgs& g, int j0, int cols, int k0, int kl, float* dst) {
  if (g.layout == Layout::NN) {
    for (int kk = 0; kk < kl; ++kk) {
      const float* src = g.b + static_cast<std::size_t>(k0 + kk) * g.ldb + j0;
      float* row = dst + kk * kNR;
      if (cols == kNR) {
        wasm_v128_store(row, wasm_v128_load(src));
        wasm_v128_store(row + 4, wasm_v128_load(src + 4));
      } else {
        for (int jj = 0; jj < kNR; ++jj) row[jj] = jj < cols ? src[jj] : 0.0f;
      }
    }
    return;
  }
  // NT: op(B)[kk][j] = b[j][kk]: a transpose, done in 4x4 blocks of f32x4.
  int jj = 0;
  for (; jj + 4 <= cols; jj += 4) {
    const float* rows[4];
    for (int r = 0; r < 4; ++r) rows[r] = g.b + static_cast<std::size_t>(j0 + jj + r) * g.ldb + k0;
    int kk = 0;
    for (; kk + 4 <= kl; kk += 4) {
      const v128_t r0 = wasm_v128_load(rows[0] + kk), r1 = wasm_v128_load(rows[1] + kk);
      const v128_t r2 = wasm_v128_load(rows[2] + kk), r3 = wasm_v128_load(rows[3] + kk);
      const v128_t t0 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5);
      const v128_t t2 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7), t3 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
      wasm_v128_store(dst + (kk + 0) * kNR + jj, wasm_i32x4_shuffle(t0, t1, 0, 1, 4, 5));
      wasm_v128_store(dst + (kk + 1) * kNR + jj, wasm_i32x4_shuffle(t0, t1, 2, 3, 6, 7));
      wasm_v128_store(dst + (kk + 2) * kNR + jj, wasm_i32x4_shuffle(t2, t3, 0, 1, 4, 5));
      wasm_v128_store(dst + (kk + 3) * kNR + jj, wasm_i32x4_shuffle(t2, t3, 2, 3, 6, 7));
    }
    for (; kk < kl; ++kk)
      for (int r = 0; r < 4; ++r) dst[kk * kNR + jj + r] = rows[r][kk];
  }
  for (; jj < kNR; ++jj) {  // the last columns of a ragged panel, then zero padding
    if (jj >= cols) {
      for (int kk = 0; kk < kl; ++kk) dst[kk * kNR + jj] = 0.0f;
      continue;
    }
    const float* src = g.b + static_cast<std::size_t>(j0 + jj) * g.ldb + k0;
    for (int kk = 0; kk < kl; ++kk) dst[kk * kNR + jj] = src[kk];
  }
}

void pack_b(const GemmArgs& g, float* packed) {
  for (int n0 = 0; n0 < g.n; n0 += kNC) {
    const int block_panels = panel_count(std::min(kNC, g.n - n0));
    for (int k0 = 0; k0 == 0 || k0 < g.k; k0 += kKC) {
      const int kl = std::min(kKC, g.k - k0);
      float* block = packed + block_offset(n0, block_panels, k0, g.k);
      for (int q = 0; q < block_panels; ++q) {
        const int j0 = n0 + q * kNR;
        pack_slice(g, j0, std::min(kNR, g.n - j0), k0, kl, block + static_cast<std::size_t>(q) * kl * kNR);
      }
    }
  }
}

// What a tile does with its sums over one depth block: the first block writes C, later
// ones add to it; the last one also scales by alpha and adds the bias (cols <= 8 of it).
// accumulate (only with a single depth block): C += alpha sums + bias.
struct Epilogue {
  bool first = true, last = true, accumulate = false;
  float alpha = 1.0f;
  const float* bias = nullptr;
};

// acc + a b, the step's one operation, in its two forms.
struct MulAdd {
  static v128_t apply(v128_t a, v128_t b, v128_t acc) { return wasm_f32x4_add(acc, wasm_f32x4_mul(a, b)); }
};
struct RelaxedMadd {
  static v128_t apply(v128_t a, v128_t b, v128_t acc) { return attention_relaxed_madd_f32x4(a, b, acc); }
};

// One step p of the depth: acc (ROWS, 8) += op(a)[:, p] * slice row p.
template <class Madd, int ROWS, bool TRANS_A>
inline __attribute__((always_inline)) void multiply_add_step(const float* a, int lda, const float* slice_row, int p,
                                                             v128_t (&acc0)[ROWS], v128_t (&acc1)[ROWS]) {
  const v128_t b0 = wasm_v128_load(slice_row);
  const v128_t b1 = wasm_v128_load(slice_row + 4);
  for (int r = 0; r < ROWS; ++r) {
    const v128_t av = wasm_v128_load32_splat(TRANS_A ? a + static_cast<std::size_t>(p) * lda + r : a + r * lda + p);
    acc0[r] = Madd::apply(av, b0, acc0[r]);
    acc1[r] = Madd::apply(av, b1, acc1[r]);
  }
}

// A panel's bias (cols <= 8 of it) as two vectors, 0 past cols. A whole panel's is loaded
// where it is: padding every panel's (a loop the compiler makes a call to memcpy) slowed a
// decode step measurably (docs/performance.md). Out of line, so store stays small enough to
// be inlined into the tiles.
__attribute__((noinline)) void load_bias_padded(const float* bias, int cols, v128_t& lo, v128_t& hi) {
  alignas(16) float padded[kNR] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int j = 0; j < cols; ++j) padded[j] = bias[j];
  lo = wasm_v128_load(padded);
  hi = wasm_v128_load(padded + 4);
}

inline void load_bias(const float* bias, int cols, v128_t& lo, v128_t& hi) {
  if (cols < kNR) return load_bias_padded(bias, cols, lo, hi);
  lo = wasm_v128_load(bias);
  hi = wasm_v128_load(bias + 4);
}

// c (ROWS, cols) (+)= the tile's sums (lo: columns 0..3, hi: 4..7), by the epilogue e.
// Always inlined: the 5-row tile's call to it was kept out of line otherwise.
template <int ROWS>
__attribute__((always_inline)) inline void store(const v128_t (&acc0)[ROWS], const v128_t (&acc1)[ROWS],
                                                 const Epilogue& e, float* c, int ldc, int cols) {
  const v128_t scale = wasm_f32x4_splat(e.alpha);
  v128_t bias0 = wasm_f32x4_splat(0.0f), bias1 = bias0;
  if (e.last && e.bias) load_bias(e.bias, cols, bias0, bias1);
  for (int r = 0; r < ROWS; ++r) {
    float* out = c + static_cast<std::size_t>(r) * ldc;
    alignas(16) float tmp[kNR];
    const bool reads_c = !e.first || e.accumulate;
    const float* old = out;
    if (cols < kNR && reads_c) {
      for (int j = 0; j < cols; ++j) tmp[j] = out[j];
      old = tmp;
    }
    v128_t lo = acc0[r], hi = acc1[r];
    if (!e.first) {
      lo = wasm_f32x4_add(lo, wasm_v128_load(old));
      hi = wasm_f32x4_add(hi, wasm_v128_load(old + 4));
    }
    if (e.last) {
      lo = wasm_f32x4_add(wasm_f32x4_mul(lo, scale), bias0);
      hi = wasm_f32x4_add(wasm_f32x4_mul(hi, scale), bias1);
    }
    if (e.accumulate) {
      lo = wasm_f32x4_add(wasm_v128_load(old), lo);
      hi = wasm_f32x4_add(wasm_v128_load(old + 4), hi);
    }
    if (cols == kNR) {
      wasm_v128_store(out, lo);
      wasm_v128_store(out + 4, hi);
    } else {
      wasm_v128_store(tmp, lo);
      wasm_v128_store(tmp + 4, hi);
      for (int j = 0; j < cols; ++j) out[j] = tmp[j];
    }
  }
}

// c (ROWS, cols) (+)= sums over the slice: op(a) (ROWS, kl) * slice (kl, 8), cols <= 8.
// TRANS_A: a is stored (K, M) with row stride lda, so the tile's ROWS values at step p
// are contiguous at a + p lda. Two steps per iteration (measured ~4% faster in Chromium).
template <class Madd, int ROWS, bool TRANS_A>
void tile(const float* a, int lda, const float* slice, int kl, const Epilogue& e, float* c, int ldc, int cols) {
  v128_t acc0[ROWS], acc1[ROWS];
  for (int r = 0; r < ROWS; ++r) acc0[r] = acc1[r] = wasm_f32x4_splat(0.0f);
  int p = 0;
  for (; p + 2 <= kl; p += 2) {
    multiply_add_step<Madd, ROWS, TRANS_A>(a, lda, slice + p * kNR, p, acc0, acc1);
    multiply_add_step<Madd, ROWS, TRANS_A>(a, lda, slice + (p + 1) * kNR, p + 1, acc0, acc1);
  }
  if (p < kl) multiply_add_step<Madd, ROWS, TRANS_A>(a, lda, slice + p * kNR, p, acc0, acc1);
  store<ROWS>(acc0, acc1, e, c, ldc, cols);
}

// The GEMV's tile (few rows of A): the same sums as `tile`, but along the depth in
// kGemvChains independent chains (step p of the slice goes to chain p mod 3), so that
// 6 multiply-adds a row are in flight instead of 2: `tile`'s one row waits on the latency
// of its two chains of adds (or fused multiply-adds), not on memory. The chains are summed
// at the end as (chain 0 + chain 1) + chain 2. Three chains, not four: V8 keeps 6
// accumulators, their 6 loads of B and 3 splats of A in registers, but spills 8 of them
// (it loads a whole iteration's B first), and measured in Node 20 (GEMV 1 x 2304 x 768,
// W in cache, GB/s of W): plain 1 / 2 / 3 / 4 chains 63 / 74 / 78 / 45, relaxed
// 34 / 65 / 78 / 52. A tile of 2 rows with 2 or 3 chains spills too (21 to 24 GB/s), so
// each row runs alone: the rows of a call reread the slice from L1.
constexpr int kGemvChains = 3;

template <class Madd, int ROWS, bool TRANS_A>
void gemv_tile(const float* a, int lda, const float* slice, int kl, const Epilogue& e, float* c, int ldc, int cols) {
  static_assert(kGemvChains == 3, "the steps and the chains' sum below are written out for 3");
  v128_t acc0[kGemvChains][ROWS], acc1[kGemvChains][ROWS];
  for (int h = 0; h < kGemvChains; ++h)
    for (int r = 0; r < ROWS; ++r) acc0[h][r] = acc1[h][r] = wasm_f32x4_splat(0.0f);
  int p = 0;
  for (; p + kGemvChains <= kl; p += kGemvChains)
    for (int h = 0; h < kGemvChains; ++h)
      multiply_add_step<Madd, ROWS, TRANS_A>(a, lda, slice + (p + h) * kNR, p + h, acc0[h], acc1[h]);
  // The last kl mod 3 steps into chains 0 and 1 (constant indices: an index known only at
  // run time keeps the arrays in memory).
  if (p < kl) multiply_add_step<Madd, ROWS, TRANS_A>(a, lda, slice + p * kNR, p, acc0[0], acc1[0]);
  if (p + 1 < kl) multiply_add_step<Madd, ROWS, TRANS_A>(a, lda, slice + (p + 1) * kNR, p + 1, acc0[1], acc1[1]);
  v128_t sum0[ROWS], sum1[ROWS];
  for (int r = 0; r < ROWS; ++r) {
    sum0[r] = wasm_f32x4_add(wasm_f32x4_add(acc0[0][r], acc0[1][r]), acc0[2][r]);
    sum1[r] = wasm_f32x4_add(wasm_f32x4_add(acc1[0][r], acc1[1][r]), acc1[2][r]);
  }
  store<ROWS>(sum0, sum1, e, c, ldc, cols);
}

template <class Madd, int ROWS, bool TRANS_A>
void row_tile_over_block(const GemmArgs& g, const float* a, const float* block, int n0, int block_panels, int kl,
                         Epilogue e, float* c) {
  for (int q = 0; q < block_panels; ++q) {
    const int j0 = n0 + q * kNR;
    e.bias = g.bias ? g.bias + j0 : nullptr;
    tile<Madd, ROWS, TRANS_A>(a, g.lda, block + static_cast<std::size_t>(q) * kl * kNR, kl, e, c + j0, g.ldc,
                              std::min(kNR, g.n - j0));
  }
}

// The GEMV over one block: for each panel slice (8 KB, in L1 after the first row), each
// row of A on its own, so a row's sums do not depend on how many rows there are.
template <class Madd, bool TRANS_A>
void gemv_over_block(const GemmArgs& g, const float* a, const float* block, int n0, int block_panels, int kl,
                     Epilogue e) {
  for (int q = 0; q < block_panels; ++q) {
    const int j0 = n0 + q * kNR;
    e.bias = g.bias ? g.bias + j0 : nullptr;
    const float* slice = block + static_cast<std::size_t>(q) * kl * kNR;
    for (int i = 0; i < g.m; ++i)
      gemv_tile<Madd, 1, TRANS_A>(TRANS_A ? a + i : a + static_cast<std::size_t>(i) * g.lda, g.lda, slice, kl, e,
                                  g.c + static_cast<std::size_t>(i) * g.ldc + j0, g.ldc, std::min(kNR, g.n - j0));
  }
}

enum class Path { Tile, Gemv };

// C = alpha op(A) op(B) + bias, or C += that when g.accumulate (then K <= kKC: one depth block).
// Every row by the 5x8 tile, or (Path::Gemv) each row alone by the GEMV.
template <class Madd, bool TRANS_A>
void multiply(const GemmArgs& g, const float* packed, Path path) {
  const bool gemv = path == Path::Gemv;
  for (int n0 = 0; n0 < g.n; n0 += kNC) {
    const int block_panels = panel_count(std::min(kNC, g.n - n0));
    for (int k0 = 0; k0 == 0 || k0 < g.k; k0 += kKC) {
      const int kl = std::min(kKC, g.k - k0);
      const float* block = packed + block_offset(n0, block_panels, k0, g.k);
      const Epilogue e{k0 == 0, k0 + kl >= g.k, g.accumulate, g.alpha, nullptr};
      if (gemv) {
        gemv_over_block<Madd, TRANS_A>(g, TRANS_A ? g.a + static_cast<std::size_t>(k0) * g.lda : g.a + k0, block, n0,
                                       block_panels, kl, e);
        continue;
      }
      for (int i = 0; i < g.m; i += kMR) {
        // op(A)'s rows from i, columns from k0: at a + i lda + k0, or (trans_a) a + k0 lda + i.
        const float* a =
            TRANS_A ? g.a + static_cast<std::size_t>(k0) * g.lda + i : g.a + static_cast<std::size_t>(i) * g.lda + k0;
        float* c = g.c + static_cast<std::size_t>(i) * g.ldc;
        static_assert(kMR == 5, "one case per tile height up to kMR");
        switch (std::min(kMR, g.m - i)) {
          case 5:
            row_tile_over_block<Madd, 5, TRANS_A>(g, a, block, n0, block_panels, kl, e, c);
            break;
          case 4:
            row_tile_over_block<Madd, 4, TRANS_A>(g, a, block, n0, block_panels, kl, e, c);
            break;
          case 3:
            row_tile_over_block<Madd, 3, TRANS_A>(g, a, block, n0, block_panels, kl, e, c);
            break;
          case 2:
            row_tile_over_block<Madd, 2, TRANS_A>(g, a, block, n0, block_panels, kl, e, c);
            break;
          default:
            row_tile_over_block<Madd, 1, TRANS_A>(g, a, block, n0, block_panels, kl, e, c);
            break;
        }
      }
    }
  }
}

// The GEMV's columns [j0, j1) of C (j0 a multiple of kNR; j1 too, or N) from the whole
// product's panels: in each column block the panels in the range, each depth block's slice of
// a panel multiplied by gemv_tile as gemv_over_block does (the same bits in any part). A plain
// product (gemm_fast's: A not transposed, C not accumulated into). Its own loop rather than
// gemv_over_block with a range of panels: that shared loop slowed GPT-2's one-thread decode in
// Node, which the kernel alone did not show (docs/performance.md).
template <class Madd>
void gemv_columns(const GemmArgs& g, const float* packed, int j0, int j1) {
  assert(!g.trans_a && !g.accumulate);  // the only product its callers (split_gemv) make
  for (int n0 = j0 / kNC * kNC; n0 < j1; n0 += kNC) {
    const int block_panels = panel_count(std::min(kNC, g.n - n0));
    const int q0 = std::max(j0 - n0, 0) / kNR, q1 = panel_count(std::min(j1, n0 + kNC) - n0);
    for (int k0 = 0; k0 == 0 || k0 < g.k; k0 += kKC) {
      const int kl = std::min(kKC, g.k - k0);
      Epilogue e{k0 == 0, k0 + kl >= g.k, false, g.alpha, nullptr};
      const float* block = packed + block_offset(n0, block_panels, k0, g.k);
      for (int q = q0; q < q1; ++q) {
        const int col = n0 + q * kNR;
        e.bias = g.bias ? g.bias + col : nullptr;
        const float* slice = block + static_cast<std::size_t>(q) * kl * kNR;
        for (int i = 0; i < g.m; ++i)
          gemv_tile<Madd, 1, false>(g.a + static_cast<std::size_t>(i) * g.lda + k0, g.lda, slice, kl, e,
                                    g.c + static_cast<std::size_t>(i) * g.ldc + col, g.ldc, std::min(kNR, g.n - col));
      }
    }
  }
}

template <class Madd>
void multiply_packed(const GemmArgs& g, const float* packed, Path path) {
  if (g.m <= 0 || g.n <= 0) return;
  if (g.accumulate && g.k > kKC) {
    // The depth blocks are summed in C, which here holds what the product is added to:
    // form the product apart, then add it (the contract: C += the rounded product).
    GemmArgs apart = g;
    std::unique_ptr<float[]> product(new float[static_cast<std::size_t>(g.m) * g.n]);
    apart.c = product.get();
    apart.ldc = g.n;
    apart.accumulate = false;
    multiply_packed<Madd>(apart, packed, path);
    for (int i = 0; i < g.m; ++i) {
      float* row = g.c + static_cast<std::size_t>(i) * g.ldc;
      const float* add = product.get() + static_cast<std::size_t>(i) * g.n;
      for (int j = 0; j < g.n; ++j) row[j] += add[j];
    }
    return;
  }
  if (g.trans_a)
    multiply<Madd, true>(g, packed, path);
  else
    multiply<Madd, false>(g, packed, path);
}

template <class Madd>
void pack_and_multiply(const GemmArgs& g, Path path) {
  if (g.m <= 0 || g.n <= 0) return;
  // The packed panels: on the stack when small (most attention heads), else on the
  // heap; never zero-filled first, pack_b writes every element.
  const std::size_t packed_size = static_cast<std::size_t>(panel_count(g.n)) * std::max(g.k, 1) * kNR;
  constexpr std::size_t kStackFloats = 16 * 1024;
  alignas(16) float stack_buffer[kStackFloats];
  std::unique_ptr<float[]> heap_buffer;
  float* packed = stack_buffer;
  if (packed_size > kStackFloats) {
    heap_buffer.reset(new float[packed_size]);
    packed = heap_buffer.get();
  }
  pack_b(g, packed);
  multiply_packed<Madd>(g, packed, path);
}

}  // namespace

Panels pack_f32_5x8_wasmsimd(const GemmArgs& g) {
  Panels packed(static_cast<std::size_t>(panel_count(g.n)) * std::max(g.k, 1) * kNR);
  pack_b(g, packed.data());
  return packed;
}

void gemm_f32_5x8_wasmsimd_packed(const GemmArgs& g, const float* packed) {
  multiply_packed<MulAdd>(g, packed, Path::Tile);
}
void gemm_f32_5x8_wasmsimd(const GemmArgs& g) { pack_and_multiply<MulAdd>(g, Path::Tile); }
void gemm_f32_5x8_wasmrelaxed_packed(const GemmArgs& g, const float* packed) {
  multiply_packed<RelaxedMadd>(g, packed, Path::Tile);
}
void gemm_f32_5x8_wasmrelaxed(const GemmArgs& g) { pack_and_multiply<RelaxedMadd>(g, Path::Tile); }
void gemm_f32_gemv_wasmsimd_packed(const GemmArgs& g, const float* packed) {
  multiply_packed<MulAdd>(g, packed, Path::Gemv);
}
void gemm_f32_gemv_wasmsimd(const GemmArgs& g) { pack_and_multiply<MulAdd>(g, Path::Gemv); }
void gemm_f32_gemv_wasmrelaxed_packed(const GemmArgs& g, const float* packed) {
  multiply_packed<RelaxedMadd>(g, packed, Path::Gemv);
}
void gemm_f32_gemv_wasmrelaxed(const GemmArgs& g) { pack_and_multiply<RelaxedMadd>(g, Path::Gemv); }
void gemm_f32_gemv_wasmsimd_columns(const GemmArgs& g, const float* packed, int j0, int j1) {
  gemv_columns<MulAdd>(g, packed, j0, j1);
}
void gemm_f32_gemv_wasmrelaxed_columns(const GemmArgs& g, const float* packed, int j0, int j1) {
  gemv_columns<RelaxedMadd>(g, packed, j0, j1);
}

}  // namespace attention::kernels
#endif  // __wasm_simd128__
