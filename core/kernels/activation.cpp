// GELU with the tanh approximation (GPT-2's gelu_new), and SiLU, in place: the scalar reference
// and a wasm SIMD variant. The SIMD one uses 0.5 (1 + tanh(u)) = sigmoid(2u), with
// exp of a non-positive argument only (no overflow): t = exp(-2|u|), then
// sigmoid(2u) = 1 / (1 + t) for u >= 0 and t / (1 + t) for u < 0.
#include <cmath>

#include "kernels.hpp"
#ifdef __wasm_simd128__
#include "simd_math.hpp"
#endif

namespace attention::kernels {

namespace {
constexpr float kSqrt2OverPi = 0.79788456080286536f;
constexpr float kCubic = 0.044715f;
}  // namespace

float gelu_tanh(float x) {
  const float inner = kSqrt2OverPi * (x + kCubic * x * x * x);
  return 0.5f * x * (1.0f + std::tanh(inner));
}

void gelu_tanh_scalar(float* data, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) data[i] = gelu_tanh(data[i]);
}

float silu(float x) {
  const float t = std::exp(-std::fabs(x));  // sigmoid(x) = 1 / (1 + t) for x >= 0, t / (1 + t) below
  return x * (x >= 0.0f ? 1.0f : t) / (1.0f + t);
}

void silu_scalar(float* data, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) data[i] = silu(data[i]);
}

#ifdef __wasm_simd128__
void silu_wasmsimd(float* data, std::size_t n) {
  const v128_t one = wasm_f32x4_splat(1.0f), zero = wasm_f32x4_splat(0.0f);
  const std::size_t vector_end = n & ~static_cast<std::size_t>(3);
  for (std::size_t i = 0; i < vector_end; i += 4) {
    const v128_t x = wasm_v128_load(data + i);
    const v128_t t = exp_nonpositive(wasm_f32x4_neg(wasm_f32x4_abs(x)));
    const v128_t numerator = wasm_v128_bitselect(one, t, wasm_f32x4_ge(x, zero));
    wasm_v128_store(data + i, wasm_f32x4_mul(x, wasm_f32x4_div(numerator, wasm_f32x4_add(one, t))));
  }
  for (std::size_t i = vector_end; i < n; ++i) data[i] = silu(data[i]);
}

void gelu_tanh_wasmsimd(float* data, std::size_t n) {
  const v128_t sqrt_2_over_pi = wasm_f32x4_splat(kSqrt2OverPi), cubic = wasm_f32x4_splat(kCubic);
  const v128_t one = wasm_f32x4_splat(1.0f), minus_two = wasm_f32x4_splat(-2.0f);
  const std::size_t vector_end = n & ~static_cast<std::size_t>(3);
  for (std::size_t i = 0; i < vector_end; i += 4) {
    const v128_t x = wasm_v128_load(data + i);
    const v128_t x3 = wasm_f32x4_mul(wasm_f32x4_mul(x, x), x);
    const v128_t u = wasm_f32x4_mul(sqrt_2_over_pi, wasm_f32x4_add(x, wasm_f32x4_mul(cubic, x3)));
    const v128_t t = exp_nonpositive(wasm_f32x4_mul(minus_two, wasm_f32x4_abs(u)));
    const v128_t numerator = wasm_v128_bitselect(one, t, wasm_f32x4_ge(u, wasm_f32x4_splat(0.0f)));
    wasm_v128_store(data + i, wasm_f32x4_mul(x, wasm_f32x4_div(numerator, wasm_f32x4_add(one, t))));
  }
  for (std::size_t i = vector_end; i < n; ++i) data[i] = gelu_tanh(data[i]);
}
#endif  // __wasm_simd128__

}  // namespace attention::kernels
