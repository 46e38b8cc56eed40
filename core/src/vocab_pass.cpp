// vocab_pass.hpp's passes over a row of V logits: the plain loops, then their wasm SIMD
// twins (same bits), then the names the build runs.
#include "attention/vocab_pass.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#ifdef __wasm_simd128__
#include <wasm_simd128.h>

// The constants and the 2^(k/128) table libm's exp reads (emscripten's musl,
// src/math/exp_data.h; the layout of its struct exp_data). The vector exp below uses them so
// that its results are std::exp's bits; test_vocab_pass.cpp checks that over millions of
// values, so a libm with another exp fails there, not silently.
extern "C" {
struct MuslExpData {
  double invln2N;
  double shift;
  double negln2hiN;
  double negln2loN;
  double poly[4];  // C2..C5
  double exp2_shift;
  double exp2_poly[5];
  std::uint64_t tab[2 * 128];  // per k: the tail's bits, then the scale's bits minus k << 45
};
extern const MuslExpData __exp_data;
}
#endif

namespace attention::vocab_pass {

namespace {

constexpr double kNegInf = -std::numeric_limits<double>::infinity();

// One score's weight and its part of the sums (the plain loop's body; `w` may alias the score).
inline void add_weight(double s, double top, double* w, WeightSums& sums) {
  const double gap = s - top;
  const double weight = s == kNegInf ? 0.0 : std::exp(gap);
  *w = weight;
  sums.sum += weight;
  if (weight > 0) sums.expected_gap += weight * gap;
}

inline double score(float logit, double divisor) {
  return divisor == 1.0 ? static_cast<double>(logit) : static_cast<double>(logit) / divisor;
}

}  // namespace

float max_value_plain(const float* x, int n) { return *std::max_element(x, x + n); }

int argmax_plain(const float* x, int n) { return static_cast<int>(std::max_element(x, x + n) - x); }

WeightSums exp_weights_plain(const float* logits, int n, double divisor, double top, double* w) {
  WeightSums sums;
  for (int i = 0; i < n; ++i) add_weight(score(logits[i], divisor), top, w + i, sums);
  return sums;
}

WeightSums exp_weights_plain(const double* scores, int n, double top, double* w) {
  WeightSums sums;
  for (int i = 0; i < n; ++i) add_weight(scores[i], top, w + i, sums);
  return sums;
}

int next_above_plain(const double* w, int from, int n, double floor) {
  int i = from;
  while (i < n && w[i] <= floor) ++i;
  return i;
}

void exp_each_plain(const double* in, int n, double* out) {
  for (int i = 0; i < n; ++i) out[i] = std::exp(in[i]);
}

#ifdef __wasm_simd128__

namespace {

// True where both lanes take libm's main path: 2^-54 <= |x| < 512 (biased exponents 969 to
// 1031, the range musl tests on the exponent bits; NaN fails both comparisons).
inline bool exp_main_path(v128_t x) {
  const v128_t magnitude = wasm_f64x2_abs(x);
  return wasm_i64x2_all_true(wasm_v128_and(wasm_f64x2_ge(magnitude, wasm_f64x2_splat(0x1p-54)),
                                           wasm_f64x2_lt(magnitude, wasm_f64x2_splat(512.0))));
}

// std::exp of both lanes when both take libm's main path (else false, nothing written):
// musl's exp (Arm's: x = k ln2/128 + r, 2^(k/128) from the table, e^r - 1 by a degree-5
// polynomial) operation for operation in the scalar code's order. Each operation is one
// IEEE-rounded wasm instruction as there (wasm has no fused multiply-add to contract into),
// so the lanes get the scalar bits.
inline bool exp_lanes(v128_t x, v128_t* out) {
  if (!exp_main_path(x)) return false;
  const MuslExpData& d = __exp_data;
  const v128_t shift = wasm_f64x2_splat(d.shift);
  const v128_t z = wasm_f64x2_mul(wasm_f64x2_splat(d.invln2N), x);
  const v128_t k_shifted = wasm_f64x2_add(z, shift);  // k in the low mantissa bits
  const v128_t kd = wasm_f64x2_sub(k_shifted, shift);
  const v128_t r = wasm_f64x2_add(wasm_f64x2_add(x, wasm_f64x2_mul(kd, wasm_f64x2_splat(d.negln2hiN))),
                                  wasm_f64x2_mul(kd, wasm_f64x2_splat(d.negln2loN)));
  // Each lane's table pair (the tail's bits, the scale's bits minus k << 45) in one load.
  const v128_t pair0 = wasm_v128_load(d.tab + 2 * (wasm_u64x2_extract_lane(k_shifted, 0) % 128));
  const v128_t pair1 = wasm_v128_load(d.tab + 2 * (wasm_u64x2_extract_lane(k_shifted, 1) % 128));
  const v128_t tail = wasm_i64x2_shuffle(pair0, pair1, 0, 2);
  const v128_t scale = wasm_i64x2_add(wasm_i64x2_shuffle(pair0, pair1, 1, 3), wasm_i64x2_shl(k_shifted, 52 - 7));
  const v128_t r2 = wasm_f64x2_mul(r, r);
  const v128_t c23 = wasm_f64x2_add(wasm_f64x2_splat(d.poly[0]), wasm_f64x2_mul(r, wasm_f64x2_splat(d.poly[1])));
  const v128_t c45 = wasm_f64x2_add(wasm_f64x2_splat(d.poly[2]), wasm_f64x2_mul(r, wasm_f64x2_splat(d.poly[3])));
  const v128_t tmp = wasm_f64x2_add(wasm_f64x2_add(wasm_f64x2_add(tail, r), wasm_f64x2_mul(r2, c23)),
                                    wasm_f64x2_mul(wasm_f64x2_mul(r2, r2), c45));
  *out = wasm_f64x2_add(scale, wasm_f64x2_mul(scale, tmp));
  return true;
}

// Two scores' weights and sums, in index order: a score of -inf has a gap of -inf or NaN,
// outside the main path, so the vector path only sees finite gaps and weights > 0.
inline void add_weights2(v128_t s, v128_t top, double* w, WeightSums& sums) {
  const v128_t gap = wasm_f64x2_sub(s, top);
  v128_t weight;
  if (!exp_lanes(gap, &weight)) {
    add_weight(wasm_f64x2_extract_lane(s, 0), wasm_f64x2_extract_lane(top, 0), w, sums);
    add_weight(wasm_f64x2_extract_lane(s, 1), wasm_f64x2_extract_lane(top, 0), w + 1, sums);
    return;
  }
  wasm_v128_store(w, weight);
  const v128_t part = wasm_f64x2_mul(weight, gap);
  sums.sum += wasm_f64x2_extract_lane(weight, 0);
  sums.expected_gap += wasm_f64x2_extract_lane(part, 0);
  sums.sum += wasm_f64x2_extract_lane(weight, 1);
  sums.expected_gap += wasm_f64x2_extract_lane(part, 1);
}

// The largest of x's values (NaN when x[0] is NaN); of equal zeros, either sign.
float largest_simd(const float* x, int n) {
  // pmax(a, b) = a < b ? b : a keeps the running value on a NaN, as max_element does; the
  // lanes start at x[0], so they are all NaN when it is and never otherwise.
  v128_t a = wasm_f32x4_splat(x[0]), b = a;
  int i = 0;
  for (; i + 8 <= n; i += 8) {
    a = wasm_f32x4_pmax(a, wasm_v128_load(x + i));
    b = wasm_f32x4_pmax(b, wasm_v128_load(x + i + 4));
  }
  a = wasm_f32x4_pmax(a, b);
  float largest = wasm_f32x4_extract_lane(a, 0);
  const float lanes[3] = {wasm_f32x4_extract_lane(a, 1), wasm_f32x4_extract_lane(a, 2), wasm_f32x4_extract_lane(a, 3)};
  for (float v : lanes)
    if (largest < v) largest = v;
  for (; i < n; ++i)
    if (largest < x[i]) largest = x[i];
  return largest;
}

// max_element's index is the first that equals the largest value (-0 equals +0, a NaN
// equals nothing), or 0 when x[0] is NaN.
int argmax_simd(const float* x, int n) {
  const float largest = largest_simd(x, n);
  if (std::isnan(largest)) return 0;
  const v128_t target = wasm_f32x4_splat(largest);
  int i = 0;
  for (; i + 4 <= n; i += 4)
    if (const std::uint32_t hits = wasm_i32x4_bitmask(wasm_f32x4_eq(wasm_v128_load(x + i), target)))
      return i + __builtin_ctz(hits);
  for (; i < n; ++i)
    if (x[i] == largest) return i;
  return 0;  // not reached: the largest is one of x
}

// max_element's value: the sign of a largest zero is the first such zero's.
float max_value_simd(const float* x, int n) {
  const float largest = largest_simd(x, n);
  return largest == 0.0f ? x[argmax_simd(x, n)] : largest;
}

template <bool kDivide>
WeightSums exp_weights_simd(const float* logits, int n, double divisor, double top, double* w) {
  WeightSums sums;
  const v128_t top2 = wasm_f64x2_splat(top), divisor2 = wasm_f64x2_splat(divisor);
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    const v128_t four = wasm_v128_load(logits + i);
    v128_t low = wasm_f64x2_promote_low_f32x4(four);
    v128_t high = wasm_f64x2_promote_low_f32x4(wasm_i32x4_shuffle(four, four, 2, 3, 2, 3));
    if (kDivide) {
      low = wasm_f64x2_div(low, divisor2);
      high = wasm_f64x2_div(high, divisor2);
    }
    add_weights2(low, top2, w + i, sums);
    add_weights2(high, top2, w + i + 2, sums);
  }
  for (; i < n; ++i) add_weight(score(logits[i], divisor), top, w + i, sums);
  return sums;
}

WeightSums exp_weights_simd(const double* scores, int n, double top, double* w) {
  WeightSums sums;
  const v128_t top2 = wasm_f64x2_splat(top);
  int i = 0;
  for (; i + 2 <= n; i += 2) add_weights2(wasm_v128_load(scores + i), top2, w + i, sums);
  for (; i < n; ++i) add_weight(scores[i], top, w + i, sums);
  return sums;
}

int next_above_simd(const double* w, int from, int n, double floor) {
  const v128_t level = wasm_f64x2_splat(floor);
  int i = from;
  for (; i + 8 <= n; i += 8) {
    const v128_t below = wasm_v128_and(
        wasm_v128_and(wasm_f64x2_le(wasm_v128_load(w + i), level), wasm_f64x2_le(wasm_v128_load(w + i + 2), level)),
        wasm_v128_and(wasm_f64x2_le(wasm_v128_load(w + i + 4), level),
                      wasm_f64x2_le(wasm_v128_load(w + i + 6), level)));
    if (!wasm_i64x2_all_true(below)) break;  // one of the eight is above: find it below
  }
  while (i < n && w[i] <= floor) ++i;
  return i;
}

void exp_each_simd(const double* in, int n, double* out) {
  int i = 0;
  for (; i + 2 <= n; i += 2) {
    const v128_t x = wasm_v128_load(in + i);
    v128_t y;
    if (exp_lanes(x, &y)) {
      wasm_v128_store(out + i, y);
    } else {
      out[i] = std::exp(wasm_f64x2_extract_lane(x, 0));
      out[i + 1] = std::exp(wasm_f64x2_extract_lane(x, 1));
    }
  }
  for (; i < n; ++i) out[i] = std::exp(in[i]);
}

}  // namespace

float max_value(const float* x, int n) { return max_value_simd(x, n); }
int argmax(const float* x, int n) { return argmax_simd(x, n); }
WeightSums exp_weights(const float* logits, int n, double divisor, double top, double* w) {
  return divisor == 1.0 ? exp_weights_simd<false>(logits, n, divisor, top, w)
                        : exp_weights_simd<true>(logits, n, divisor, top, w);
}
WeightSums exp_weights(const double* scores, int n, double top, double* w) {
  return exp_weights_simd(scores, n, top, w);
}
int next_above(const double* w, int from, int n, double floor) { return next_above_simd(w, from, n, floor); }
void exp_each(const double* in, int n, double* out) { exp_each_simd(in, n, out); }

#else  // no SIMD: the plain loops

float max_value(const float* x, int n) { return max_value_plain(x, n); }
int argmax(const float* x, int n) { return argmax_plain(x, n); }
WeightSums exp_weights(const float* logits, int n, double divisor, double top, double* w) {
  return exp_weights_plain(logits, n, divisor, top, w);
}
WeightSums exp_weights(const double* scores, int n, double top, double* w) {
  return exp_weights_plain(scores, n, top, w);
}
int next_above(const double* w, int from, int n, double floor) { return next_above_plain(w, from, n, floor); }
void exp_each(const double* in, int n, double* out) { exp_each_plain(in, n, out); }

#endif

}  // namespace attention::vocab_pass
