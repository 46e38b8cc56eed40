// The decode step's attention kernels: one query row against the K and V rows of a cache
// (Sk rows of d_h values each, read in place), without a GEMM's packing of K for a single
// row of Q. The scalar variants are the spec (kernels.hpp); the wasm SIMD ones sum in four
// lanes and then across them (a different order: equal within float rounding).
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

void dot_rows_wasmsimd(const float* x, const float* rows, int count, int n, float alpha, float* out) {
  const int vector_end = n & ~7;
  for (int j = 0; j < count; ++j) {
    const float* row = rows + static_cast<std::size_t>(j) * n;
    v128_t a = wasm_f32x4_splat(0.0f), b = a;  // two chains: the adds overlap
    for (int i = 0; i < vector_end; i += 8) {
      a = wasm_f32x4_add(a, wasm_f32x4_mul(wasm_v128_load(x + i), wasm_v128_load(row + i)));
      b = wasm_f32x4_add(b, wasm_f32x4_mul(wasm_v128_load(x + i + 4), wasm_v128_load(row + i + 4)));
    }
    const v128_t s = wasm_f32x4_add(a, b);
    float sum = (wasm_f32x4_extract_lane(s, 0) + wasm_f32x4_extract_lane(s, 1)) +
                (wasm_f32x4_extract_lane(s, 2) + wasm_f32x4_extract_lane(s, 3));
    for (int i = vector_end; i < n; ++i) sum += x[i] * row[i];
    out[j] = alpha * sum;
  }
}

void weighted_sum_rows_wasmsimd(const float* weights, const float* rows, int count, int n, float* out) {
  const int vector_end = n & ~3;
  for (int j = 0; j < count; ++j) {
    if (weights[j] == 0.0f) continue;
    const float* row = rows + static_cast<std::size_t>(j) * n;
    const v128_t w = wasm_f32x4_splat(weights[j]);
    for (int i = 0; i < vector_end; i += 4)
      wasm_v128_store(out + i, wasm_f32x4_add(wasm_v128_load(out + i), wasm_f32x4_mul(w, wasm_v128_load(row + i))));
    for (int i = vector_end; i < n; ++i) out[i] += weights[j] * row[i];
  }
}

#endif  // __wasm_simd128__

}  // namespace attention::kernels
