// GEMM for 128-bit wasm SIMD: op(B) is packed into panels of 8 columns (k-major,
// zero-padded past N), then a 4x8 register tile (8 f32x4 accumulators) runs down
// each panel; rows are blocked by 64 so the A block stays in cache while the
// panel (K x 8 floats) stays in L1. mul + add (no FMA in plain wasm SIMD). A may be
// stored transposed (trans_a) and C may be accumulated into (the backward's needs).
#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include <algorithm>
#include <memory>

#include "kernels.hpp"

namespace attention::kernels {

namespace {

constexpr int kMR = 4;   // rows of the register tile
constexpr int kNR = 8;   // columns: two f32x4
constexpr int kMC = 64;  // rows per cache block of A

// -> packed: (panels, K, 8), panel p holding columns [8p, 8p + 8) of op(B).
void pack_b(const GemmArgs& g, float* packed) {
  const int panels = (g.n + kNR - 1) / kNR;
  for (int p = 0; p < panels; ++p) {
    float* dst = packed + static_cast<std::size_t>(p) * g.k * kNR;
    const int j0 = p * kNR, cols = std::min(kNR, g.n - j0);
    if (g.layout == Layout::NN) {
      for (int kk = 0; kk < g.k; ++kk) {
        const float* src = g.b + static_cast<std::size_t>(kk) * g.ldb + j0;
        float* row = dst + kk * kNR;
        if (cols == kNR) {
          wasm_v128_store(row, wasm_v128_load(src));
          wasm_v128_store(row + 4, wasm_v128_load(src + 4));
        } else {
          for (int jj = 0; jj < kNR; ++jj) row[jj] = jj < cols ? src[jj] : 0.0f;
        }
      }
    } else {  // NT: op(B)[kk][j] = b[j][kk]: a transpose, done in 4x4 blocks of f32x4
      int jj = 0;
      for (; jj + 4 <= cols; jj += 4) {
        const float* rows[4];
        for (int r = 0; r < 4; ++r) rows[r] = g.b + static_cast<std::size_t>(j0 + jj + r) * g.ldb;
        int kk = 0;
        for (; kk + 4 <= g.k; kk += 4) {
          const v128_t r0 = wasm_v128_load(rows[0] + kk), r1 = wasm_v128_load(rows[1] + kk);
          const v128_t r2 = wasm_v128_load(rows[2] + kk), r3 = wasm_v128_load(rows[3] + kk);
          const v128_t t0 = wasm_i32x4_shuffle(r0, r1, 0, 4, 1, 5), t1 = wasm_i32x4_shuffle(r2, r3, 0, 4, 1, 5);
          const v128_t t2 = wasm_i32x4_shuffle(r0, r1, 2, 6, 3, 7), t3 = wasm_i32x4_shuffle(r2, r3, 2, 6, 3, 7);
          wasm_v128_store(dst + (kk + 0) * kNR + jj, wasm_i32x4_shuffle(t0, t1, 0, 1, 4, 5));
          wasm_v128_store(dst + (kk + 1) * kNR + jj, wasm_i32x4_shuffle(t0, t1, 2, 3, 6, 7));
          wasm_v128_store(dst + (kk + 2) * kNR + jj, wasm_i32x4_shuffle(t2, t3, 0, 1, 4, 5));
          wasm_v128_store(dst + (kk + 3) * kNR + jj, wasm_i32x4_shuffle(t2, t3, 2, 3, 6, 7));
        }
        for (; kk < g.k; ++kk)
          for (int r = 0; r < 4; ++r) dst[kk * kNR + jj + r] = rows[r][kk];
      }
      for (; jj < kNR; ++jj) {  // the last columns of a ragged panel, then zero padding
        if (jj >= cols) {
          for (int kk = 0; kk < g.k; ++kk) dst[kk * kNR + jj] = 0.0f;
          continue;
        }
        const float* src = g.b + static_cast<std::size_t>(j0 + jj) * g.ldb;
        for (int kk = 0; kk < g.k; ++kk) dst[kk * kNR + jj] = src[kk];
      }
    }
  }
}

// c (ROWS, cols) = alpha * op(a) (ROWS, K) * panel (K, 8) + bias, cols <= 8; or c += that.
// TRANS_A: a is stored (K, M) with row stride lda, so the tile's ROWS values at step p
// are contiguous: one load, then a splat of each lane (no transpose of A needed).
template <int ROWS, bool TRANS_A>
void tile(const float* a, int lda, const float* panel, int k, float alpha, const float* bias, float* c, int ldc,
          int cols, bool accumulate) {
  v128_t acc0[ROWS], acc1[ROWS];
  for (int r = 0; r < ROWS; ++r) acc0[r] = acc1[r] = wasm_f32x4_splat(0.0f);
  for (int p = 0; p < k; ++p) {
    const v128_t b0 = wasm_v128_load(panel + p * kNR);
    const v128_t b1 = wasm_v128_load(panel + p * kNR + 4);
    if constexpr (TRANS_A && ROWS == 4) {
      const v128_t column = wasm_v128_load(a + static_cast<std::size_t>(p) * lda);
      const v128_t a0 = wasm_i32x4_shuffle(column, column, 0, 0, 0, 0);
      const v128_t a1 = wasm_i32x4_shuffle(column, column, 1, 1, 1, 1);
      const v128_t a2 = wasm_i32x4_shuffle(column, column, 2, 2, 2, 2);
      const v128_t a3 = wasm_i32x4_shuffle(column, column, 3, 3, 3, 3);
      acc0[0] = wasm_f32x4_add(acc0[0], wasm_f32x4_mul(a0, b0));
      acc1[0] = wasm_f32x4_add(acc1[0], wasm_f32x4_mul(a0, b1));
      acc0[1] = wasm_f32x4_add(acc0[1], wasm_f32x4_mul(a1, b0));
      acc1[1] = wasm_f32x4_add(acc1[1], wasm_f32x4_mul(a1, b1));
      acc0[2] = wasm_f32x4_add(acc0[2], wasm_f32x4_mul(a2, b0));
      acc1[2] = wasm_f32x4_add(acc1[2], wasm_f32x4_mul(a2, b1));
      acc0[3] = wasm_f32x4_add(acc0[3], wasm_f32x4_mul(a3, b0));
      acc1[3] = wasm_f32x4_add(acc1[3], wasm_f32x4_mul(a3, b1));
    } else {
      for (int r = 0; r < ROWS; ++r) {
        const v128_t av = wasm_f32x4_splat(TRANS_A ? a[static_cast<std::size_t>(p) * lda + r] : a[r * lda + p]);
        acc0[r] = wasm_f32x4_add(acc0[r], wasm_f32x4_mul(av, b0));
        acc1[r] = wasm_f32x4_add(acc1[r], wasm_f32x4_mul(av, b1));
      }
    }
  }
  const v128_t scale = wasm_f32x4_splat(alpha);
  alignas(16) float padded_bias[kNR] = {0, 0, 0, 0, 0, 0, 0, 0};
  if (bias)
    for (int j = 0; j < cols; ++j) padded_bias[j] = bias[j];
  const v128_t bias0 = wasm_v128_load(padded_bias), bias1 = wasm_v128_load(padded_bias + 4);
  for (int r = 0; r < ROWS; ++r) {
    v128_t lo = wasm_f32x4_add(wasm_f32x4_mul(acc0[r], scale), bias0);
    v128_t hi = wasm_f32x4_add(wasm_f32x4_mul(acc1[r], scale), bias1);
    float* out = c + static_cast<std::size_t>(r) * ldc;
    if (cols == kNR) {
      if (accumulate) {
        lo = wasm_f32x4_add(wasm_v128_load(out), lo);
        hi = wasm_f32x4_add(wasm_v128_load(out + 4), hi);
      }
      wasm_v128_store(out, lo);
      wasm_v128_store(out + 4, hi);
    } else {
      alignas(16) float tmp[kNR];
      wasm_v128_store(tmp, lo);
      wasm_v128_store(tmp + 4, hi);
      for (int j = 0; j < cols; ++j) out[j] = accumulate ? out[j] + tmp[j] : tmp[j];
    }
  }
}

// Every tile of the rows [i0, i_end) against one panel.
template <bool TRANS_A>
void panel_rows(const GemmArgs& g, int i0, int i_end, const float* panel, int j0, int cols) {
  const float* bias = g.bias ? g.bias + j0 : nullptr;
  for (int i = i0; i < i_end; i += kMR) {
    // op(A)'s row i: at a + i lda, or (trans_a) the column a + i.
    const float* a = TRANS_A ? g.a + i : g.a + static_cast<std::size_t>(i) * g.lda;
    float* c = g.c + static_cast<std::size_t>(i) * g.ldc + j0;
    switch (std::min(kMR, i_end - i)) {
      case 4: tile<4, TRANS_A>(a, g.lda, panel, g.k, g.alpha, bias, c, g.ldc, cols, g.accumulate); break;
      case 3: tile<3, TRANS_A>(a, g.lda, panel, g.k, g.alpha, bias, c, g.ldc, cols, g.accumulate); break;
      case 2: tile<2, TRANS_A>(a, g.lda, panel, g.k, g.alpha, bias, c, g.ldc, cols, g.accumulate); break;
      default: tile<1, TRANS_A>(a, g.lda, panel, g.k, g.alpha, bias, c, g.ldc, cols, g.accumulate); break;
    }
  }
}

}  // namespace

std::vector<float> pack_f32_4x8_wasmsimd(const GemmArgs& g) {
  const int panels = (g.n + kNR - 1) / kNR;
  std::vector<float> packed(static_cast<std::size_t>(panels) * std::max(g.k, 1) * kNR);
  pack_b(g, packed.data());
  return packed;
}

void gemm_f32_4x8_wasmsimd_packed(const GemmArgs& g, const float* packed) {
  if (g.m <= 0 || g.n <= 0) return;
  const int panels = (g.n + kNR - 1) / kNR;
  for (int i0 = 0; i0 < g.m; i0 += kMC) {
    const int i_end = std::min(g.m, i0 + kMC);
    for (int p = 0; p < panels; ++p) {
      const float* panel = packed + static_cast<std::size_t>(p) * g.k * kNR;
      const int j0 = p * kNR, cols = std::min(kNR, g.n - j0);
      if (g.trans_a)
        panel_rows<true>(g, i0, i_end, panel, j0, cols);
      else
        panel_rows<false>(g, i0, i_end, panel, j0, cols);
    }
  }
}

void gemm_f32_4x8_wasmsimd(const GemmArgs& g) {
  if (g.m <= 0 || g.n <= 0) return;
  const int panels = (g.n + kNR - 1) / kNR;
  // The packed panels: on the stack when small (most attention heads), else on the
  // heap; never zero-filled first, pack_b writes every element.
  const std::size_t packed_size = static_cast<std::size_t>(panels) * std::max(g.k, 1) * kNR;
  constexpr std::size_t kStackFloats = 16 * 1024;
  alignas(16) float stack_buffer[kStackFloats];
  std::unique_ptr<float[]> heap_buffer;
  float* packed = stack_buffer;
  if (packed_size > kStackFloats) {
    heap_buffer.reset(new float[packed_size]);
    packed = heap_buffer.get();
  }
  pack_b(g, packed);
  gemm_f32_4x8_wasmsimd_packed(g, packed);
}

}  // namespace attention::kernels
#endif  // __wasm_simd128__
