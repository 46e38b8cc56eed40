// The decode step's attention kernels: one query row against the K and V rows of a cache
// (Sk rows of d_h values each, read in place), without a GEMM's packing of K for a single
// row of Q. The scalar variants are the spec (kernels.hpp); the wasm SIMD ones add each row's
// products in the spec's order (one row per lane), so they equal it exactly.
#include <cstddef>

#include "kernels.hpp"
#ifdef __wasm_simd128__
#include <wasm_simd128.h>
#endif

namespace attention::kernels {

void dot_rows_scalar(const float* x, const float* rows, int count, int n, float alpha, float* out) {
  for (int j = 0; j < count; ++j) {
    const float* row = rows + static_cast<std::size_t>(j) * n;
    float sum = 0.0f;
    for (int i = 0; i < n; ++i) sum += x[i] * row[i];
    out[j] = alpha * sum;
  }
}

void weighted_sum_rows_scalar(const float* weights, const float* rows, int count, int n, float* out) {
  for (int j = 0; j < count; ++j) {
    if (weights[j] == 0.0f) continue;  // a blocked key: exp(-inf) = 0 (its row may be unwritten)
    const float* row = rows + static_cast<std::size_t>(j) * n;
    for (int i = 0; i < n; ++i) out[i] += weights[j] * row[i];
  }
}

#ifdef __wasm_simd128__

// Four rows at a time, one row per lane: a 4x4 block of the rows is transposed so that each
// lane adds its row's products in order of i, as the scalar spec does: the same float results,
// not merely close ones. (The full forward's GEMM tile sums in that order too, but with relaxed
// SIMD's fused madd in a relaxed .wasm, and V in blocks of 256 keys; ring caches of window
// layers go in slot order: there the cached step is the full forward's within rounding.)
void dot_rows_wasmsimd(const float* x, const float* rows, int count, int n, float alpha, float* out) {
  const int vector_end = n & ~3;
  const v128_t scale = wasm_f32x4_splat(alpha);
  int j = 0;
  for (; j + 4 <= count; j += 4) {
    const float* r0 = rows + static_cast<std::size_t>(j) * n;
    const float *r1 = r0 + n, *r2 = r1 + n, *r3 = r2 + n;
    v128_t sums = wasm_f32x4_splat(0.0f);  // (rows j..j+3)
    for (int i = 0; i < vector_end; i += 4) {
      const v128_t a = wasm_v128_load(r0 + i), b = wasm_v128_load(r1 + i), c = wasm_v128_load(r2 + i),
                   d = wasm_v128_load(r3 + i);
      const v128_t ab_low = wasm_i32x4_shuffle(a, b, 0, 4, 1, 5), ab_high = wasm_i32x4_shuffle(a, b, 2, 6, 3, 7);
      const v128_t cd_low = wasm_i32x4_shuffle(c, d, 0, 4, 1, 5), cd_high = wasm_i32x4_shuffle(c, d, 2, 6, 3, 7);
      sums =
          wasm_f32x4_add(sums, wasm_f32x4_mul(wasm_f32x4_splat(x[i]), wasm_i32x4_shuffle(ab_low, cd_low, 0, 1, 4, 5)));
      sums = wasm_f32x4_add(sums,
                            wasm_f32x4_mul(wasm_f32x4_splat(x[i + 1]), wasm_i32x4_shuffle(ab_low, cd_low, 2, 3, 6, 7)));
      sums = wasm_f32x4_add(
          sums, wasm_f32x4_mul(wasm_f32x4_splat(x[i + 2]), wasm_i32x4_shuffle(ab_high, cd_high, 0, 1, 4, 5)));
      sums = wasm_f32x4_add(
          sums, wasm_f32x4_mul(wasm_f32x4_splat(x[i + 3]), wasm_i32x4_shuffle(ab_high, cd_high, 2, 3, 6, 7)));
    }
    for (int i = vector_end; i < n; ++i)
      sums = wasm_f32x4_add(sums, wasm_f32x4_mul(wasm_f32x4_splat(x[i]), wasm_f32x4_make(r0[i], r1[i], r2[i], r3[i])));
    wasm_v128_store(out + j, wasm_f32x4_mul(scale, sums));
  }
  dot_rows_scalar(x, rows + static_cast<std::size_t>(j) * n, count - j, n, alpha, out + j);
}

// Four rows at a time where all four weights are non-zero: `out` loaded and stored once for
// the four, each row's product still added to it in order of j (the spec's, and the GEMM's
// order over the depth); a block with a zero weight goes row by row, so a skipped row is
// never read.
void weighted_sum_rows_wasmsimd(const float* weights, const float* rows, int count, int n, float* out) {
  const int vector_end = n & ~3;
  const auto one_row = [&](int j) {
    if (weights[j] == 0.0f) return;
    const float* row = rows + static_cast<std::size_t>(j) * n;
    const v128_t w = wasm_f32x4_splat(weights[j]);
    for (int i = 0; i < vector_end; i += 4)
      wasm_v128_store(out + i, wasm_f32x4_add(wasm_v128_load(out + i), wasm_f32x4_mul(w, wasm_v128_load(row + i))));
    for (int i = vector_end; i < n; ++i) out[i] += weights[j] * row[i];
  };
  int j = 0;
  for (; j + 4 <= count; j += 4) {
    if (weights[j] == 0.0f || weights[j + 1] == 0.0f || weights[j + 2] == 0.0f || weights[j + 3] == 0.0f) {
      for (int k = j; k < j + 4; ++k) one_row(k);
      continue;
    }
    const float* r0 = rows + static_cast<std::size_t>(j) * n;
    const float *r1 = r0 + n, *r2 = r1 + n, *r3 = r2 + n;
    const v128_t w0 = wasm_f32x4_splat(weights[j]), w1 = wasm_f32x4_splat(weights[j + 1]),
                 w2 = wasm_f32x4_splat(weights[j + 2]), w3 = wasm_f32x4_splat(weights[j + 3]);
    for (int i = 0; i < vector_end; i += 4) {
      v128_t o = wasm_v128_load(out + i);
      o = wasm_f32x4_add(o, wasm_f32x4_mul(w0, wasm_v128_load(r0 + i)));
      o = wasm_f32x4_add(o, wasm_f32x4_mul(w1, wasm_v128_load(r1 + i)));
      o = wasm_f32x4_add(o, wasm_f32x4_mul(w2, wasm_v128_load(r2 + i)));
      o = wasm_f32x4_add(o, wasm_f32x4_mul(w3, wasm_v128_load(r3 + i)));
      wasm_v128_store(out + i, o);
    }
    for (int i = vector_end; i < n; ++i)
      out[i] =
          (((out[i] + weights[j] * r0[i]) + weights[j + 1] * r1[i]) + weights[j + 2] * r2[i]) + weights[j + 3] * r3[i];
  }
  for (; j < count; ++j) one_row(j);
}

#endif  // __wasm_simd128__

}  // namespace attention::kernels
