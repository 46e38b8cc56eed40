// Row softmax: the scalar reference and a wasm SIMD variant (vector max, a
// polynomial exp fused with the sum, then one scale). Both follow the same rules:
// -inf (blocked) and NaN entries become exactly 0, a row with nothing unblocked
// becomes all 0, and +inf scores share the row's weight equally.
#include <cmath>
#include <limits>

#include "kernels.hpp"
#ifdef __wasm_simd128__
#include "simd_math.hpp"
#endif

namespace attention::kernels {

namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// Rows whose maximum is -inf (all blocked) or +inf (overflowed scores).
bool special_row(float* row, int n, float max_value) {
  if (max_value == kNegInf) {
    for (int j = 0; j < n; ++j) row[j] = 0.0f;
    return true;
  }
  if (std::isinf(max_value)) {
    int count = 0;
    for (int j = 0; j < n; ++j) count += row[j] == max_value;
    for (int j = 0; j < n; ++j) row[j] = row[j] == max_value ? 1.0f / static_cast<float>(count) : 0.0f;
    return true;
  }
  return false;
}

void softmax_row_scalar(float* row, int n) {
  float max_value = kNegInf;
  for (int j = 0; j < n; ++j)
    if (row[j] > max_value) max_value = row[j];
  if (special_row(row, n, max_value)) return;
  float sum = 0.0f;
  for (int j = 0; j < n; ++j) {
    const float e = (row[j] == kNegInf || std::isnan(row[j])) ? 0.0f : std::exp(row[j] - max_value);
    row[j] = e;
    sum += e;
  }
  const float inverse = 1.0f / sum;
  for (int j = 0; j < n; ++j) row[j] *= inverse;
}

}  // namespace

void softmax_rows_scalar(float* data, int rows, int n) {
  for (int r = 0; r < rows; ++r) softmax_row_scalar(data + static_cast<std::size_t>(r) * n, n);
}

#ifdef __wasm_simd128__
namespace {

inline float horizontal_sum(v128_t v) {
  return wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1) + wasm_f32x4_extract_lane(v, 2) +
         wasm_f32x4_extract_lane(v, 3);
}

inline float horizontal_max(v128_t v) {
  float m = wasm_f32x4_extract_lane(v, 0);
  for (float x : {wasm_f32x4_extract_lane(v, 1), wasm_f32x4_extract_lane(v, 2), wasm_f32x4_extract_lane(v, 3)})
    if (x > m) m = x;
  return m;
}

void softmax_row_wasmsimd(float* row, int n) {
  const int vector_end = n & ~3;
  v128_t max4 = wasm_f32x4_splat(kNegInf);
  for (int j = 0; j < vector_end; j += 4) max4 = wasm_f32x4_pmax(max4, wasm_v128_load(row + j));  // NaN ignored
  float max_value = horizontal_max(max4);
  for (int j = vector_end; j < n; ++j)
    if (row[j] > max_value) max_value = row[j];
  if (special_row(row, n, max_value)) return;
  const v128_t shift = wasm_f32x4_splat(max_value);
  v128_t sum4 = wasm_f32x4_splat(0.0f);
  for (int j = 0; j < vector_end; j += 4) {
    const v128_t e = exp_nonpositive(wasm_f32x4_sub(wasm_v128_load(row + j), shift));
    wasm_v128_store(row + j, e);
    sum4 = wasm_f32x4_add(sum4, e);
  }
  float sum = horizontal_sum(sum4);
  for (int j = vector_end; j < n; ++j) {
    const float e = (row[j] == kNegInf || std::isnan(row[j])) ? 0.0f : std::exp(row[j] - max_value);
    row[j] = e;
    sum += e;
  }
  const float inverse = 1.0f / sum;
  const v128_t scale = wasm_f32x4_splat(inverse);
  for (int j = 0; j < vector_end; j += 4) wasm_v128_store(row + j, wasm_f32x4_mul(wasm_v128_load(row + j), scale));
  for (int j = vector_end; j < n; ++j) row[j] *= inverse;
}

}  // namespace

void softmax_rows_wasmsimd(float* data, int rows, int n) {
  for (int r = 0; r < rows; ++r) softmax_row_wasmsimd(data + static_cast<std::size_t>(r) * n, n);
}
#endif  // __wasm_simd128__

}  // namespace attention::kernels
