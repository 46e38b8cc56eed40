#pragma once
// Vector math shared by the wasm SIMD kernels (softmax, activations).
#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include <limits>

namespace attention::kernels {

// exp(x) for x <= 0, relative error ~1e-7 (Cephes expf): x = k ln2 + r, |r| <= ln2/2,
// exp(r) by a degree-6 polynomial, 2^k built in the exponent bits. -inf and NaN give 0.
inline v128_t exp_nonpositive(v128_t x) {
  const v128_t zero_mask =
      wasm_v128_or(wasm_f32x4_eq(x, wasm_f32x4_splat(-std::numeric_limits<float>::infinity())), wasm_f32x4_ne(x, x));
  x = wasm_f32x4_pmax(x, wasm_f32x4_splat(-87.0f));  // below: 2^k would leave the normal range
  const v128_t k = wasm_f32x4_nearest(wasm_f32x4_mul(x, wasm_f32x4_splat(1.44269504088896341f)));
  v128_t r = wasm_f32x4_sub(x, wasm_f32x4_mul(k, wasm_f32x4_splat(0.693359375f)));
  r = wasm_f32x4_sub(r, wasm_f32x4_mul(k, wasm_f32x4_splat(-2.12194440e-4f)));
  v128_t p = wasm_f32x4_splat(1.9875691500e-4f);
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.3981999507e-3f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(8.3334519073e-3f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(4.1665795894e-2f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(1.6666665459e-1f));
  p = wasm_f32x4_add(wasm_f32x4_mul(p, r), wasm_f32x4_splat(5.0000001201e-1f));
  p = wasm_f32x4_add(wasm_f32x4_add(wasm_f32x4_mul(wasm_f32x4_mul(p, r), r), r), wasm_f32x4_splat(1.0f));
  const v128_t two_k = wasm_i32x4_shl(wasm_i32x4_add(wasm_i32x4_trunc_sat_f32x4(k), wasm_i32x4_splat(127)), 23);
  return wasm_v128_andnot(wasm_f32x4_mul(p, two_k), zero_mask);
}

}  // namespace attention::kernels
#endif  // __wasm_simd128__
