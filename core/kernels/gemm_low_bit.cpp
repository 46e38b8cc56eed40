// The low-bit GEMM's portable variants: the scalar reference (the spec, kernels.hpp) and
// a blocked one that widens 64 rows of W at a time into a scratch buffer (64 x K floats,
// not a copy of W) and multiplies each block with Eigen: the native fast path.
#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels.hpp"

namespace attention::kernels {

namespace {

// Element p of W's row `row` in storage S, widened (storage.hpp's widen_value, inlined; F16's
// halves holding w 2^held_exponent give w).
template <Storage S>
inline float element(const std::uint8_t* row, int p, int held_exponent) {
  if constexpr (S == Storage::BF16) return widen_bf16(load_u16(row + 2 * static_cast<std::size_t>(p)));
  if constexpr (S == Storage::F16) return widen_f16(load_u16(row + 2 * static_cast<std::size_t>(p)), held_exponent);
  if constexpr (S == Storage::Q8_0) {
    const std::uint8_t* block = row + static_cast<std::size_t>(p / kQ8BlockValues) * kQ8BlockBytes;
    return widen_f16(load_u16(block)) * static_cast<float>(static_cast<std::int8_t>(block[2 + p % kQ8BlockValues]));
  }
  return 0.0f;
}

template <Storage S>
void scalar(const LowBitGemmArgs& g) {
  if (g.activations != Q8Activations::F32) {
    thread_local std::vector<float> rounded;
    scalar<S>(with_rounded_a(g, rounded));
    return;
  }
  for (int i = 0; i < g.m; ++i)
    for (int j = 0; j < g.n; ++j) {
      const std::uint8_t* row = g.w + static_cast<std::size_t>(j) * g.w_row_bytes;
      float sum = 0.0f;
      for (int p = 0; p < g.k; ++p)
        sum += g.a[static_cast<std::size_t>(i) * g.lda + p] * element<S>(row, p, g.w_held_exponent);
      g.c[static_cast<std::size_t>(i) * g.ldc + j] = sum + (g.bias ? g.bias[j] : 0.0f);
    }
}

constexpr int kWidenRows = 64;  // rows of W widened at a time: 64 K floats of scratch

template <Storage S>
void widened_blocks(const LowBitGemmArgs& g) {
  if (g.m <= 0 || g.n <= 0) return;
  if (g.activations != Q8Activations::F32) {
    thread_local std::vector<float> rounded;
    widened_blocks<S>(with_rounded_a(g, rounded));
    return;
  }
  thread_local std::vector<float> scratch;  // (kWidenRows, K), reused across calls
  scratch.resize(static_cast<std::size_t>(kWidenRows) * std::max(g.k, 1));
  for (int j0 = 0; j0 < g.n; j0 += kWidenRows) {
    const int rows = std::min(kWidenRows, g.n - j0);
    for (int r = 0; r < rows; ++r)
      widen_row(S, g.w + static_cast<std::size_t>(j0 + r) * g.w_row_bytes, g.k,
                scratch.data() + static_cast<std::size_t>(r) * g.k, g.w_held_exponent);
    GemmArgs part;
    part.m = g.m;
    part.n = rows;
    part.k = g.k;
    part.a = g.a;
    part.lda = g.lda;
    part.b = scratch.data();
    part.ldb = g.k;
    part.layout = Layout::NT;
    part.bias = g.bias ? g.bias + j0 : nullptr;
    part.c = g.c + j0;
    part.ldc = g.ldc;
    gemm_f32_eigen(part);
  }
}

}  // namespace

// The one rounding of activations (kernels.hpp): Q's largest value is the level count L.
template <class Q>
void round_row(const float* x, int k, Q* q, float* scales) {
  constexpr float kLargest = std::numeric_limits<Q>::max();
  for (int b = 0; b < q8_blocks(k); ++b) {
    const int begin = b * kQ8BlockValues, end = std::min(k, begin + kQ8BlockValues);
    float largest = 0.0f;
    bool finite = true;
    for (int p = begin; p < end; ++p) {
      finite = finite && std::isfinite(x[p]);
      largest = std::max(largest, std::fabs(x[p]));
    }
    const float d = finite ? largest / kLargest : std::numeric_limits<float>::quiet_NaN();
    scales[b] = d;
    for (int p = begin; p < begin + kQ8BlockValues; ++p)
      q[p] = p < end && d > 0.0f ? static_cast<Q>(std::min(kLargest, std::max(-kLargest, std::round(x[p] / d)))) : Q{0};
  }
}
template void round_row<std::int16_t>(const float*, int, std::int16_t*, float*);
template void round_row<std::int8_t>(const float*, int, std::int8_t*, float*);

namespace {
template <class Q>
void round_rows_back(const LowBitGemmArgs& g, float* out) {
  const int blocks = q8_blocks(g.k);
  std::vector<Q> q(static_cast<std::size_t>(blocks) * kQ8BlockValues);
  std::vector<float> scales(static_cast<std::size_t>(blocks));
  for (int i = 0; i < g.m; ++i) {
    round_row(g.a + static_cast<std::size_t>(i) * g.lda, g.k, q.data(), scales.data());
    float* row = out + static_cast<std::size_t>(i) * g.k;
    for (int p = 0; p < g.k; ++p) row[p] = static_cast<float>(q[p]) * scales[p / kQ8BlockValues];
  }
}
}  // namespace

LowBitGemmArgs with_rounded_a(const LowBitGemmArgs& g, std::vector<float>& scratch) {
  scratch.resize(static_cast<std::size_t>(std::max(g.m, 0)) * std::max(g.k, 1));
  if (g.activations == Q8Activations::Int8)
    round_rows_back<std::int8_t>(g, scratch.data());
  else
    round_rows_back<std::int16_t>(g, scratch.data());
  LowBitGemmArgs rounded = g;
  rounded.a = scratch.data();
  rounded.lda = g.k;
  rounded.activations = Q8Activations::F32;
  return rounded;
}

void gemm_f32_bf16w_scalar(const LowBitGemmArgs& g) { scalar<Storage::BF16>(g); }
void gemm_f32_f16w_scalar(const LowBitGemmArgs& g) { scalar<Storage::F16>(g); }
void gemm_f32_q8_0w_scalar(const LowBitGemmArgs& g) { scalar<Storage::Q8_0>(g); }
void gemm_f32_bf16w_eigen(const LowBitGemmArgs& g) { widened_blocks<Storage::BF16>(g); }
void gemm_f32_f16w_eigen(const LowBitGemmArgs& g) { widened_blocks<Storage::F16>(g); }
void gemm_f32_q8_0w_eigen(const LowBitGemmArgs& g) { widened_blocks<Storage::Q8_0>(g); }

}  // namespace attention::kernels
