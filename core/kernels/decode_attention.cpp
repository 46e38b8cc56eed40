// The decode step's attention kernels: one query row against the K and V rows of a cache
// (Sk rows of d_h values each, read in place), without a GEMM's packing of K for a single
// row of Q. The scalar variants are the spec (kernels.hpp). The wasm SIMD dot_rows sums each
// row's products by slices of the depth (one multiply-add per 4 products, the slices added at
// the end), so it equals the spec within float rounding, not bit for bit (a sum of n products
// in another order: tests/core/test_kernels.cpp bounds it like the GEMM's, growing as sqrt(n));
// the plain wasm SIMD weighted_sum_rows adds in the spec's order and equals it exactly. Their
// relaxed twins (relaxed_simd.hpp's fused-or-not madd, listed only in a .wasm rewritten for
// it) equal the spec within rounding. The full forward's attention (the GEMM's tiles) sums in
// other orders again: the cached step is the full forward's within rounding (test_generation).
#include <cstddef>

#include "kernels.hpp"
#include "relaxed_simd.hpp"

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

namespace {

// acc + a b, in the two forms the kernels come in (as the float GEMM's, gemm_wasmsimd.cpp).
struct MulAdd {
  static v128_t apply(v128_t a, v128_t b, v128_t acc) { return wasm_f32x4_add(acc, wasm_f32x4_mul(a, b)); }
};
struct RelaxedMadd {
  static v128_t apply(v128_t a, v128_t b, v128_t acc) { return attention_relaxed_madd_f32x4(a, b, acc); }
};

// One row at a time against x (n), read as one sequential stream (rows side by side were as
// many streams, each one row long: slower from memory, where a step's cache is), its products
// summed in four accumulators over steps of 16 values (lane l of accumulator a holds the
// products at i = 16 t + 4 a + l), then the accumulators and their lanes added. Each row's sum
// is its own: a key's score does not depend on the rows around it.
template <class Madd>
void dot_rows_by_depth_lanes(const float* x, const float* rows, int count, int n, float alpha, float* out) {
  const int step_end = n & ~15, vector_end = n & ~3;
  const v128_t zero = wasm_f32x4_splat(0.0f);
  for (int j = 0; j < count; ++j) {
    const float* row = rows + static_cast<std::size_t>(j) * n;
    v128_t a = zero, b = zero, c = zero, d = zero;
    int i = 0;
    for (; i < step_end; i += 16) {
      a = Madd::apply(wasm_v128_load(x + i), wasm_v128_load(row + i), a);
      b = Madd::apply(wasm_v128_load(x + i + 4), wasm_v128_load(row + i + 4), b);
      c = Madd::apply(wasm_v128_load(x + i + 8), wasm_v128_load(row + i + 8), c);
      d = Madd::apply(wasm_v128_load(x + i + 12), wasm_v128_load(row + i + 12), d);
    }
    if (i + 4 <= vector_end) a = Madd::apply(wasm_v128_load(x + i), wasm_v128_load(row + i), a);
    if (i + 8 <= vector_end) b = Madd::apply(wasm_v128_load(x + i + 4), wasm_v128_load(row + i + 4), b);
    if (i + 12 <= vector_end) c = Madd::apply(wasm_v128_load(x + i + 8), wasm_v128_load(row + i + 8), c);
    const v128_t s = wasm_f32x4_add(wasm_f32x4_add(a, b), wasm_f32x4_add(c, d));
    const v128_t pairs = wasm_f32x4_add(s, wasm_i32x4_shuffle(s, s, 2, 3, 0, 1));  // (s0+s2, s1+s3, ...)
    float sum = wasm_f32x4_extract_lane(pairs, 0) + wasm_f32x4_extract_lane(pairs, 1);
    for (i = vector_end; i < n; ++i) sum += x[i] * row[i];
    out[j] = alpha * sum;
  }
}

// out (n) += the rows weighted, two rows at a time (adjacent: the rows are still read as one
// sequential stream, and out is loaded and stored once for the two), each value adding its
// rows in order of j, the spec's order (with MulAdd the spec's results exactly). A pair with a
// zero weight goes row by row, so a skipped row (a blocked key) is never read. (Rows four at a
// time, or 32 values of out kept in registers over every row in two passes over V, measured
// slower from memory: kernel_bench decode-attention.)
template <class Madd>
void weighted_sum_rows_in_order(const float* weights, const float* rows, int count, int n, float* out) {
  const int vector_end = n & ~3;
  const auto one_row = [&](int j) {
    if (weights[j] == 0.0f) return;  // a blocked key: exp(-inf) = 0 (its row may be unwritten)
    const float* row = rows + static_cast<std::size_t>(j) * n;
    const v128_t w = wasm_f32x4_splat(weights[j]);
    for (int i = 0; i < vector_end; i += 4)
      wasm_v128_store(out + i, Madd::apply(w, wasm_v128_load(row + i), wasm_v128_load(out + i)));
    for (int i = vector_end; i < n; ++i) out[i] += weights[j] * row[i];
  };
  int j = 0;
  for (; j + 2 <= count; j += 2) {
    if (weights[j] == 0.0f || weights[j + 1] == 0.0f) {
      one_row(j);
      one_row(j + 1);
      continue;
    }
    const float* r0 = rows + static_cast<std::size_t>(j) * n;
    const float* r1 = r0 + n;
    const v128_t w0 = wasm_f32x4_splat(weights[j]), w1 = wasm_f32x4_splat(weights[j + 1]);
    for (int i = 0; i < vector_end; i += 4) {
      const v128_t o = Madd::apply(w0, wasm_v128_load(r0 + i), wasm_v128_load(out + i));
      wasm_v128_store(out + i, Madd::apply(w1, wasm_v128_load(r1 + i), o));
    }
    for (int i = vector_end; i < n; ++i) out[i] = (out[i] + weights[j] * r0[i]) + weights[j + 1] * r1[i];
  }
  if (j < count) one_row(j);
}

}  // namespace

void dot_rows_wasmsimd(const float* x, const float* rows, int count, int n, float alpha, float* out) {
  dot_rows_by_depth_lanes<MulAdd>(x, rows, count, n, alpha, out);
}
void dot_rows_wasmrelaxed(const float* x, const float* rows, int count, int n, float alpha, float* out) {
  dot_rows_by_depth_lanes<RelaxedMadd>(x, rows, count, n, alpha, out);
}
void weighted_sum_rows_wasmsimd(const float* weights, const float* rows, int count, int n, float* out) {
  weighted_sum_rows_in_order<MulAdd>(weights, rows, count, n, out);
}
void weighted_sum_rows_wasmrelaxed(const float* weights, const float* rows, int count, int n, float* out) {
  weighted_sum_rows_in_order<RelaxedMadd>(weights, rows, count, n, out);
}

#endif  // __wasm_simd128__

}  // namespace attention::kernels
