// The low-bit GEMM for 128-bit wasm SIMD: C = A W^T + bias with W's rows read in place
// (no packing: panels would be a second copy of the weight). A tile takes 4 rows of A
// and 2 rows of W and runs along K 8 values at a time: W's 8 values are widened in
// registers (BF16: a shift; F16: the bits moved to float32's places and rebiased by a
// multiply; Q8_0: int8 -> float times the block's scale, exact), then multiplied with
// A's 8 values into 8 f32x4 accumulators, summed across lanes at the end. Each row of W
// is read from memory once per 4 rows of A, which is what decode (M = 1) is bound by.
#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include <algorithm>

#include "kernels.hpp"

namespace attention::kernels {

namespace {

struct Bf16 {
  static constexpr Storage kStorage = Storage::BF16;
  static inline void load8(const std::uint8_t* row, int p, v128_t& lo, v128_t& hi) {
    const v128_t v = wasm_v128_load(row + 2 * static_cast<std::size_t>(p));
    lo = wasm_i32x4_shl(wasm_u32x4_extend_low_u16x8(v), 16);
    hi = wasm_i32x4_shl(wasm_u32x4_extend_high_u16x8(v), 16);
  }
};

struct F16 {
  static constexpr Storage kStorage = Storage::F16;
  static inline v128_t widen4(v128_t h) {  // 4 halves in the low 16 bits of each lane
    const v128_t sign = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x8000)), 16);
    const v128_t magnitude = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x7fff)), 13);
    const v128_t finite = wasm_f32x4_mul(magnitude, wasm_f32x4_splat(0x1.0p112f));
    const v128_t special = wasm_v128_or(magnitude, wasm_i32x4_splat(0x7f800000));
    const v128_t is_special = wasm_i32x4_eq(wasm_v128_and(h, wasm_i32x4_splat(0x7c00)), wasm_i32x4_splat(0x7c00));
    return wasm_v128_or(wasm_v128_bitselect(special, finite, is_special), sign);
  }
  static inline void load8(const std::uint8_t* row, int p, v128_t& lo, v128_t& hi) {
    const v128_t v = wasm_v128_load(row + 2 * static_cast<std::size_t>(p));
    lo = widen4(wasm_u32x4_extend_low_u16x8(v));
    hi = widen4(wasm_u32x4_extend_high_u16x8(v));
  }
};

struct Q8 {
  static constexpr Storage kStorage = Storage::Q8_0;
  static inline void load8(const std::uint8_t* row, int p, v128_t& lo, v128_t& hi) {
    const std::uint8_t* block = row + static_cast<std::size_t>(p / kQ8BlockValues) * kQ8BlockBytes;
    const v128_t d = wasm_f32x4_splat(widen_f16(load_u16(block)));
    const v128_t q = wasm_i16x8_load8x8(block + 2 + p % kQ8BlockValues);
    lo = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_low_i16x8(q)), d);
    hi = wasm_f32x4_mul(wasm_f32x4_convert_i32x4(wasm_i32x4_extend_high_i16x8(q)), d);
  }
};

// C[i0 .. i0 + R)[j0 .. j0 + C) = A's R rows . W's C rows + bias.
template <class F, int R, int C>
void tile(const LowBitGemmArgs& g, int i0, int j0) {
  const float* a[R];
  const std::uint8_t* w[C];
  for (int r = 0; r < R; ++r) a[r] = g.a + static_cast<std::size_t>(i0 + r) * g.lda;
  for (int c = 0; c < C; ++c) w[c] = g.w + static_cast<std::size_t>(j0 + c) * g.w_row_bytes;
  v128_t acc[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) acc[r][c] = wasm_f32x4_splat(0.0f);
  int p = 0;
  for (; p + 8 <= g.k; p += 8) {
    v128_t lo[C], hi[C];
    for (int c = 0; c < C; ++c) F::load8(w[c], p, lo[c], hi[c]);
    for (int r = 0; r < R; ++r) {
      const v128_t a_lo = wasm_v128_load(a[r] + p), a_hi = wasm_v128_load(a[r] + p + 4);
      for (int c = 0; c < C; ++c) {
        acc[r][c] = wasm_f32x4_add(acc[r][c], wasm_f32x4_mul(a_lo, lo[c]));
        acc[r][c] = wasm_f32x4_add(acc[r][c], wasm_f32x4_mul(a_hi, hi[c]));
      }
    }
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const v128_t v = acc[r][c];
      float sum = (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
                  (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
      for (int q = p; q < g.k; ++q) sum += a[r][q] * widen_value(F::kStorage, w[c], q);
      g.c[static_cast<std::size_t>(i0 + r) * g.ldc + j0 + c] = sum + (g.bias ? g.bias[j0 + c] : 0.0f);
    }
}

template <class F, int C>
void row_tiles(const LowBitGemmArgs& g, int j0) {
  int i = 0;
  for (; i + 4 <= g.m; i += 4) tile<F, 4, C>(g, i, j0);
  switch (g.m - i) {
    case 3:
      tile<F, 3, C>(g, i, j0);
      break;
    case 2:
      tile<F, 2, C>(g, i, j0);
      break;
    case 1:
      tile<F, 1, C>(g, i, j0);
      break;
    default:
      break;
  }
}

template <class F>
void multiply(const LowBitGemmArgs& g) {
  if (g.m <= 0 || g.n <= 0) return;
  int j = 0;
  for (; j + 2 <= g.n; j += 2) row_tiles<F, 2>(g, j);
  if (j < g.n) row_tiles<F, 1>(g, j);
}

}  // namespace

void gemm_f32_bf16w_4x2_wasmsimd(const LowBitGemmArgs& g) { multiply<Bf16>(g); }
void gemm_f32_f16w_4x2_wasmsimd(const LowBitGemmArgs& g) { multiply<F16>(g); }
void gemm_f32_q8_0w_4x2_wasmsimd(const LowBitGemmArgs& g) { multiply<Q8>(g); }

}  // namespace attention::kernels
#endif  // __wasm_simd128__
