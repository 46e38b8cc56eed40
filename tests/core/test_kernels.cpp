// Every kernel variant in the registry against the scalar reference, over many
// odd shapes (sizes that are not multiples of the 5x8 tile, the 256 x 256 blocks or the vector width),
// both B layouts, with and without bias and alpha. Runs natively and in wasm.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>

#include "kernels/kernels.hpp"
#include "kernels/relaxed_simd.hpp"
#include "test_util.hpp"

using namespace attention;
using namespace attention::kernels;
using attention::testing::all_close;
using attention::testing::random_vector;

class GemmVariants : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

// Variants sum the K products in different orders (blocks of depth, several partial sums);
// the float rounding of a sum of k terms of mixed sign grows like sqrt(k).
double sum_tolerance(int k) { return std::max(1e-5, 2e-6 * std::sqrt(static_cast<double>(k))); }

TEST_P(GemmVariants, MatchTheScalarReference) {
  const auto [m, n, k] = GetParam();
  const std::vector<float> a = random_vector(static_cast<std::size_t>(m) * k, 1 + m);
  const std::vector<float> b = random_vector(static_cast<std::size_t>(n) * k, 2 + n);
  const std::vector<float> bias = random_vector(static_cast<std::size_t>(n), 3 + k);
  ASSERT_GE(gemm_variants().size(), 2u);
  for (Layout layout : {Layout::NT, Layout::NN})
    for (bool with_bias : {false, true})
      for (float alpha : {1.0f, 0.125f}) {
        std::vector<float> expected(static_cast<std::size_t>(m) * n), actual(expected.size());
        gemm(&gemm_f32_scalar, m, n, k, a.data(), b.data(), layout, alpha, with_bias ? bias.data() : nullptr,
             expected.data());
        for (const auto& variant : gemm_variants()) {
          SCOPED_TRACE(variant.name + (layout == Layout::NT ? " NT" : " NN") + (with_bias ? " bias" : ""));
          std::fill(actual.begin(), actual.end(), -7.0f);
          gemm(variant.fn, m, n, k, a.data(), b.data(), layout, alpha, with_bias ? bias.data() : nullptr,
               actual.data());
          EXPECT_TRUE(all_close(actual, expected, sum_tolerance(k)));
        }
      }
}

TEST_P(GemmVariants, PackedOnceMatchesTheScalarReference) {
  const auto [m, n, k] = GetParam();
  const std::vector<float> a = random_vector(static_cast<std::size_t>(m) * k, 5 + m);
  const std::vector<float> b = random_vector(static_cast<std::size_t>(n) * k, 6 + n);
  const std::vector<float> bias = random_vector(static_cast<std::size_t>(n), 7 + k);
  std::vector<float> expected(static_cast<std::size_t>(m) * n);
  gemm(&gemm_f32_scalar, m, n, k, a.data(), b.data(), Layout::NT, 1.0f, bias.data(), expected.data());
  const PackedWeight packed = pack_weight(b.data(), n, k);  // empty where the fast GEMM does not pack
  for (int call = 0; call < 2; ++call) {                    // the same panels, used twice
    std::vector<float> actual(expected.size(), -7.0f);
    gemm_fast(m, n, k, a.data(), b.data(), Layout::NT, 1.0f, bias.data(), actual.data(), &packed);
    EXPECT_TRUE(all_close(actual, expected, sum_tolerance(k)))
        << fastest_gemm().name << (packed.panels.empty() ? "" : " packed");
  }
#ifdef __wasm_simd128__
  EXPECT_FALSE(packed.panels.empty());
  // On a page, wherever the allocator is (PageAlignedAllocator: the GEMV's speed depended on it).
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(packed.panels.data()) % PageAlignedAllocator<float>::kAlignment, 0u);
#endif
}

TEST(GemmVariants, RespectRowStrides) {
  // C (3, 5) written into a (3, 9) buffer from A (3, 4) inside a (3, 6) buffer.
  const std::vector<float> a = random_vector(3 * 6, 11), b = random_vector(5 * 4, 12);
  for (const auto& variant : gemm_variants()) {
    std::vector<float> c(3 * 9, 42.0f), expected(3 * 9, 42.0f);
    GemmArgs args;
    args.m = 3;
    args.n = 5;
    args.k = 4;
    args.a = a.data();
    args.lda = 6;
    args.b = b.data();
    args.ldb = 4;
    args.c = expected.data();
    args.ldc = 9;
    gemm_f32_scalar(args);
    args.c = c.data();
    variant.fn(args);
    EXPECT_TRUE(all_close(c, expected, 1e-5)) << variant.name;  // the gaps keep their 42s
  }
}

// The backward's products: op(A) = A^T (A stored (K, M)) and C += the product.
TEST_P(GemmVariants, TransposedAAndAccumulateMatchTheScalarReference) {
  const auto [m, n, k] = GetParam();
  const std::vector<float> a = random_vector(static_cast<std::size_t>(m) * k, 21 + m);
  const std::vector<float> b = random_vector(static_cast<std::size_t>(n) * k, 22 + n);
  const std::vector<float> bias = random_vector(static_cast<std::size_t>(n), 23 + k);
  const std::vector<float> c0 = random_vector(static_cast<std::size_t>(m) * n, 24 + k);
  // A^T stored (K, M): the same op(A) as `a` (M, K).
  std::vector<float> at(a.size());
  for (int i = 0; i < m; ++i)
    for (int p = 0; p < k; ++p) at[static_cast<std::size_t>(p) * m + i] = a[static_cast<std::size_t>(i) * k + p];
  for (Layout layout : {Layout::NT, Layout::NN})
    for (bool trans_a : {false, true})
      for (bool accumulate : {false, true})
        for (bool with_bias : {false, true}) {
          GemmArgs args;
          args.m = m;
          args.n = n;
          args.k = k;
          args.a = trans_a ? at.data() : a.data();
          args.lda = trans_a ? m : k;
          args.trans_a = trans_a;
          args.b = b.data();
          args.ldb = layout == Layout::NT ? k : n;
          args.layout = layout;
          args.alpha = 0.5f;
          args.bias = with_bias ? bias.data() : nullptr;
          args.ldc = n;
          args.accumulate = accumulate;
          // The spec, spelled out: C = (accumulate ? C : 0) + (alpha A op(B) + bias).
          std::vector<float> product(c0.size()), expected = c0;
          gemm(&gemm_f32_scalar, m, n, k, a.data(), b.data(), layout, 0.5f, args.bias, product.data());
          for (std::size_t i = 0; i < expected.size(); ++i) expected[i] = accumulate ? c0[i] + product[i] : product[i];
          for (const auto& variant : gemm_variants()) {
            SCOPED_TRACE(variant.name + (layout == Layout::NT ? " NT" : " NN") + (trans_a ? " trans_a" : "") +
                         (accumulate ? " accumulate" : "") + (with_bias ? " bias" : ""));
            std::vector<float> actual = c0;
            args.c = actual.data();
            variant.fn(args);
            EXPECT_TRUE(all_close(actual, expected, sum_tolerance(k)));
            if (variant.gemm_packed) {  // the same through panels packed beforehand
              std::vector<float> again = c0;
              args.c = again.data();
              const Panels panels = variant.pack(args);
              variant.gemm_packed(args, panels.data());
              EXPECT_EQ(again, actual);
            }
          }
        }
}

INSTANTIATE_TEST_SUITE_P(
    OddShapes, GemmVariants,
    ::testing::Values(std::make_tuple(1, 1, 1), std::make_tuple(3, 5, 7), std::make_tuple(4, 8, 16),
                      std::make_tuple(5, 17, 3), std::make_tuple(17, 9, 63), std::make_tuple(63, 65, 17),
                      std::make_tuple(65, 63, 65), std::make_tuple(1, 33, 64), std::make_tuple(67, 1, 5),
                      std::make_tuple(130, 24, 96), std::make_tuple(9, 20, 600), std::make_tuple(70, 17, 513),
                      // several column and depth blocks of the packed layout, ragged at both ends
                      std::make_tuple(13, 523, 520), std::make_tuple(6, 257, 256), std::make_tuple(7, 256, 257),
                      // decode's few rows (the float GEMV: the _gemv_ variants, and the fast path at one
                      // row): K not a multiple of 4, 8 or 256, N not of 8, several column and depth blocks
                      std::make_tuple(1, 263, 771), std::make_tuple(2, 19, 517), std::make_tuple(3, 300, 258),
                      std::make_tuple(4, 13, 259)));

#ifdef __wasm_simd128__
// The float GEMV (gemm_fast's product of kFastGemmGemvUpToRows row of A with packed panels:
// decode of one sequence; the _gemv_ variants run it on any number of rows) sums each row
// alone, so a row's result is the same bits whatever the other rows, and the same in any
// part of C's columns that starts at a column block (kFastGemmColumnBlock: how threads split
// a few rows' product) or, by gemv_columns, at a panel (how threads split decode's one row,
// gemm_fast), so the thread count changes nothing. It sums in another
// order than the 5x8 tile (three chains along the depth), so it matches the tile within
// sum_tolerance only (both match the scalar spec, above).
TEST(GemmVariants, FloatGemvRowsAndColumnPartsGiveTheSameBits) {
  constexpr int kRows = 4;
  const int n = 2 * kFastGemmColumnBlock + 37, k = 517;
  const std::vector<float> a = random_vector(static_cast<std::size_t>(kRows) * k, 31);
  const std::vector<float> b = random_vector(static_cast<std::size_t>(n) * k, 32);
  const std::vector<float> bias = random_vector(static_cast<std::size_t>(n), 33);
  const Variant<GemmFn>& fast = fastest_gemm();
  const Variant<GemmFn>& gemv = gemm_variants()[gemm_variants().size() - 2];
  ASSERT_NE(gemv.name.find("_gemv_"), std::string::npos);
  ASSERT_EQ(fast.gemv_packed, gemv.gemm_packed);
  const PackedWeight packed = pack_weight(b.data(), n, k);
  GemmArgs args;
  args.n = n;
  args.k = k;
  args.a = a.data();
  args.lda = k;
  args.bias = bias.data();
  args.ldc = n;
  // Each row alone, all columns at once: what the fast path gives.
  std::vector<float> alone(static_cast<std::size_t>(kRows) * n, -7.0f);
  for (int i = 0; i < kRows; ++i)
    gemm_fast(1, n, k, a.data() + static_cast<std::size_t>(i) * k, b.data(), Layout::NT, 1.0f, bias.data(),
              alone.data() + static_cast<std::size_t>(i) * n, &packed);
  // A weight not packed yet (a model's weight on its first use) gives a row the same bits.
  for (int i = 0; i < kRows; ++i) {
    std::vector<float> unpacked(static_cast<std::size_t>(n), -7.0f);
    gemm_fast(1, n, k, a.data() + static_cast<std::size_t>(i) * k, b.data(), Layout::NT, 1.0f, bias.data(),
              unpacked.data(), nullptr);
    EXPECT_TRUE(std::equal(unpacked.begin(), unpacked.end(), alone.begin() + static_cast<std::ptrdiff_t>(i) * n))
        << "row " << i;
  }
  for (int m = 1; m <= kRows; ++m) {
    SCOPED_TRACE(std::to_string(m) + " rows");
    const std::vector<float> expected(alone.begin(), alone.begin() + static_cast<std::ptrdiff_t>(m) * n);
    std::vector<float> whole(expected.size(), -7.0f), parts(expected.size(), -7.0f);
    args.m = m;
    args.c = whole.data();
    gemv.gemm_packed(args, packed.panels.data());
    EXPECT_EQ(whole, expected);
    // Columns [0, 256) and [256, n) as split_columns cuts them: the second part's panels
    // from 256 K floats on.
    for (const auto& [j0, j1] : {std::pair{0, kFastGemmColumnBlock}, std::pair{kFastGemmColumnBlock, n}}) {
      GemmArgs part = args;
      part.n = j1 - j0;
      part.c = parts.data() + j0;
      part.bias = bias.data() + j0;
      gemv.gemm_packed(part, packed.panels.data() + static_cast<std::size_t>(j0) * k);
    }
    EXPECT_EQ(parts, expected);
    // Parts cut at any panel's edge (gemv_columns: how threads split decode's product), inside
    // a column block and across one, the last one ragged.
    std::vector<float> panel_parts(expected.size(), -7.0f);
    ASSERT_NE(gemv.gemv_columns, nullptr);
    ASSERT_EQ(fast.gemv_columns, gemv.gemv_columns);
    GemmArgs into_parts = args;
    into_parts.c = panel_parts.data();
    for (const auto& [j0, j1] : {std::pair{0, 8}, std::pair{8, 136}, std::pair{136, kFastGemmColumnBlock + 24},
                                 std::pair{kFastGemmColumnBlock + 24, n}})
      gemv.gemv_columns(into_parts, packed.panels.data(), j0, j1);
    EXPECT_EQ(panel_parts, expected);
    // The 5x8 tile on the same rows: the same sums in another order.
    std::vector<float> tiled(expected.size());
    args.c = tiled.data();
    fast.gemm_packed(args, packed.panels.data());
    EXPECT_TRUE(all_close(tiled, expected, sum_tolerance(k)));
    EXPECT_FALSE(tiled == expected);  // the GEMV did run: its order rounds some sums otherwise
  }
}
#endif

class SoftmaxVariants : public ::testing::TestWithParam<int> {};

TEST_P(SoftmaxVariants, MatchTheScalarReference) {
  const int n = GetParam();
  constexpr float inf = std::numeric_limits<float>::infinity();
  std::vector<float> rows = random_vector(static_cast<std::size_t>(6) * n, 40 + n, 20.0f);
  for (int j = 0; j < n; j += 3) rows[static_cast<std::size_t>(n) + j] = -inf;   // row 1: some blocked
  for (int j = 0; j < n; ++j) rows[static_cast<std::size_t>(2) * n + j] = -inf;  // row 2: all blocked
  rows[static_cast<std::size_t>(3) * n + n / 2] = inf;                           // row 3: an overflowed score
  for (int j = 0; j < n; ++j) rows[static_cast<std::size_t>(4) * n + j] = 1e30f * (j % 2 ? 1 : -1);  // row 4: huge
  rows[static_cast<std::size_t>(5) * n] = std::numeric_limits<float>::quiet_NaN();  // row 5: NaN counts as blocked
  std::vector<float> expected = rows;
  softmax_rows_scalar(expected.data(), 6, n);
  for (const auto& variant : softmax_variants()) {
    std::vector<float> actual = rows;
    variant.fn(actual.data(), 6, n);
    EXPECT_TRUE(all_close(actual, expected, 1e-6)) << variant.name;
    for (int j = 0; j < n; j += 3) EXPECT_EQ(actual[static_cast<std::size_t>(n) + j], 0.0f) << variant.name;
    for (float v : actual) EXPECT_TRUE(std::isfinite(v)) << variant.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Lengths, SoftmaxVariants, ::testing::Values(1, 2, 3, 4, 5, 7, 8, 17, 63, 65, 128));

// GELU (tanh): every variant against the scalar reference over [-20, 20] in steps of
// 0.005, plus values around zero and far out; the length leaves a tail past the vectors.
TEST(GeluTanhVariants, MatchTheScalarReference) {
  std::vector<float> x;
  for (int i = -4000; i <= 4000; ++i) x.push_back(0.005f * static_cast<float>(i));
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-7f, -3e-5f, 40.0f, -40.0f, 1e4f, -1e4f, 3e12f, -3e12f})
    x.push_back(v);
  ASSERT_NE(x.size() % 4, 0u);
  std::vector<float> expected = x;
  gelu_tanh_scalar(expected.data(), expected.size());
  EXPECT_FLOAT_EQ(expected[4000 + 200], gelu_tanh(1.0f));
  EXPECT_NEAR(gelu_tanh(1.0f), 0.8411920f, 1e-6);  // torch.nn.functional.gelu(torch.tensor(1.), approximate='tanh')
  for (const auto& variant : gelu_tanh_variants()) {
    std::vector<float> actual = x;
    variant.fn(actual.data(), actual.size());
    EXPECT_TRUE(all_close(actual, expected, 1e-6)) << variant.name;
    for (float v : actual) EXPECT_TRUE(std::isfinite(v)) << variant.name;
  }
}

// SiLU: every variant against the scalar reference over the same values.
TEST(SiluVariants, MatchTheScalarReference) {
  std::vector<float> x;
  for (int i = -4000; i <= 4000; ++i) x.push_back(0.005f * static_cast<float>(i));
  for (float v : {0.0f, -0.0f, 1e-30f, -1e-30f, 1e-7f, -3e-5f, 40.0f, -40.0f, 1e4f, -1e4f, 3e12f, -3e12f})
    x.push_back(v);
  ASSERT_NE(x.size() % 4, 0u);
  std::vector<float> expected = x;
  silu_scalar(expected.data(), expected.size());
  EXPECT_NEAR(silu(1.0f), 0.7310586f, 1e-6);    // torch.nn.functional.silu(torch.tensor(1.))
  EXPECT_NEAR(silu(-2.0f), -0.2384058f, 1e-6);  // torch.nn.functional.silu(torch.tensor(-2.))
  EXPECT_EQ(silu(-1e4f), -0.0f);
  for (const auto& variant : silu_variants()) {
    std::vector<float> actual = x;
    variant.fn(actual.data(), actual.size());
    EXPECT_TRUE(all_close(actual, expected, 1e-6)) << variant.name;
    for (float v : actual) EXPECT_TRUE(std::isfinite(v)) << variant.name;
  }
}

// The decode step's attention kernels against the scalar reference, for head sizes with and
// without a tail past the vectors (and past the dot's steps of 16) and key counts from one row
// on: dot_rows' fast variants sum each row's n products by slices of the depth, so they equal
// the spec within a sum's rounding (sum_tolerance(n), scaled by the products' size: x and the
// rows within +-2), and give a row the same bits alone as among other rows.
TEST(DecodeAttentionVariants, DotRowsMatchTheScalarReference) {
  for (int n : {1, 3, 4, 7, 8, 9, 12, 16, 63, 64, 65, 128, 257})
    for (int count : {1, 2, 5, 33}) {
      const std::vector<float> x = random_vector(static_cast<std::size_t>(n), 7 + n, 2.0f);
      const std::vector<float> rows = random_vector(static_cast<std::size_t>(count) * n, 11 + count, 2.0f);
      std::vector<float> expected(static_cast<std::size_t>(count));
      dot_rows_scalar(x.data(), rows.data(), count, n, 0.125f, expected.data());
      float by_hand = 0.0f;  // the spec, row 0: alpha times the plain sum
      for (int i = 0; i < n; ++i) by_hand += x[i] * rows[i];
      EXPECT_FLOAT_EQ(expected[0], 0.125f * by_hand);
      for (const auto& variant : dot_rows_variants()) {
        SCOPED_TRACE(variant.name + " n " + std::to_string(n) + " count " + std::to_string(count));
        std::vector<float> actual(static_cast<std::size_t>(count), -1.0f);
        variant.fn(x.data(), rows.data(), count, n, 0.125f, actual.data());
        EXPECT_TRUE(all_close(actual, expected, 4.0 * sum_tolerance(n)));
        std::vector<float> last_alone(1, -1.0f);  // the last row on its own: the same bits as among the others
        variant.fn(x.data(), rows.data() + static_cast<std::size_t>(count - 1) * n, 1, n, 0.125f, last_alone.data());
        EXPECT_EQ(last_alone[0], actual.back());
      }
    }
}

// The weighted sums: the plain variants add each row in the spec's order and equal it exactly;
// the relaxed twin (a fused multiply-add where the engine fuses) within rounding.
TEST(DecodeAttentionVariants, WeightedSumsMatchTheScalarReferenceAndSkipZeroWeights) {
  constexpr float nan = std::numeric_limits<float>::quiet_NaN();
  for (int n : {1, 3, 4, 7, 8, 16, 20, 36, 64, 65, 100})
    for (int count : {1, 2, 5, 33}) {
      std::vector<float> weights = random_vector(static_cast<std::size_t>(count), 3 + count, 1.0f);
      std::vector<float> rows = random_vector(static_cast<std::size_t>(count) * n, 5 + n, 2.0f);
      // Blocked keys (weight 0): their rows (here NaN, as an unwritten slot could hold) are not
      // read, whichever block of out they would add to.
      for (int j : {0, 6}) {
        if (j >= count) continue;
        weights[static_cast<std::size_t>(j)] = 0.0f;
        for (int i = 0; i < n; ++i) rows[static_cast<std::size_t>(j) * n + i] = nan;
      }
      const std::vector<float> start = random_vector(static_cast<std::size_t>(n), 9, 1.0f);
      std::vector<float> expected = start;
      weighted_sum_rows_scalar(weights.data(), rows.data(), count, n, expected.data());
      for (float v : expected) EXPECT_TRUE(std::isfinite(v));
      if (count == 2) EXPECT_FLOAT_EQ(expected[0], start[0] + weights[1] * rows[static_cast<std::size_t>(n)]);
      for (const auto& variant : weighted_sum_rows_variants()) {
        std::vector<float> actual = start;
        variant.fn(weights.data(), rows.data(), count, n, actual.data());
        if (variant.name.find("relaxed") == std::string::npos)
          EXPECT_EQ(actual, expected) << variant.name << " n " << n << " count " << count;  // the spec's order
        else
          EXPECT_TRUE(all_close(actual, expected, 4.0 * sum_tolerance(count))) << variant.name << " n " << n;
      }
    }
}

#ifdef __wasm_simd128__
// Run only on the relaxed-SIMD twin of this suite (scripts/run-relaxed.cjs): there the
// rewrite must have taken, so the GemmVariants tests above covered the relaxed kernel.
TEST(Kernels, DISABLED_RelaxedSimdIsInUse) {
  EXPECT_TRUE(relaxed_simd_available());
  EXPECT_EQ(gemm_variants().back().name, "gemm_f32_5x8_wasmrelaxed");
  EXPECT_EQ(fastest_low_bit_gemm(attention::Storage::BF16).name, "gemm_f32_bf16w_wasmrelaxed");
  EXPECT_EQ(fastest_low_bit_gemm(attention::Storage::F16).name, "gemm_f32_f16w_wasmrelaxed");
  EXPECT_EQ(fastest_low_bit_gemm(attention::Storage::Q8_0).name, "gemm_f32_q8_0w_wasmrelaxed");
  EXPECT_EQ(fastest_dot_rows().name, "dot_rows_wasmrelaxed");
  EXPECT_EQ(fastest_weighted_sum_rows().name, "weighted_sum_rows_wasmrelaxed");
  // The relaxed dot computes right here, so Q8_0's int8 GEMV tests (test_low_bit.cpp) ran it.
  EXPECT_TRUE(relaxed_dot_adds());
}
#endif

TEST(Kernels, RegistryNamesWhatIsBuilt) {
  EXPECT_EQ(gemm_variants().front().name, "gemm_f32_scalar");
#ifdef __wasm_simd128__
  // The GEMV alone before the fast path (5x8 tile and GEMV) in each of its two forms.
  EXPECT_EQ(gemm_variants()[gemm_variants().size() - 2].name,
            relaxed_simd_available() ? "gemm_f32_gemv_wasmrelaxed" : "gemm_f32_gemv_wasmsimd");
#endif
  EXPECT_EQ(softmax_variants().front().name, "softmax_rows_scalar");
  EXPECT_EQ(gelu_tanh_variants().front().name, "gelu_tanh_scalar");
#ifdef __wasm_simd128__
  EXPECT_EQ(fastest_gelu_tanh().name, "gelu_tanh_wasmsimd");
  EXPECT_EQ(fastest_silu().name, "silu_wasmsimd");
  EXPECT_EQ(fastest_gemm().name, relaxed_simd_available() ? "gemm_f32_5x8_wasmrelaxed" : "gemm_f32_5x8_wasmsimd");
  EXPECT_EQ(fastest_softmax().name, "softmax_rows_wasmsimd");
  EXPECT_EQ(fastest_dot_rows().name, relaxed_simd_available() ? "dot_rows_wasmrelaxed" : "dot_rows_wasmsimd");
  EXPECT_EQ(fastest_weighted_sum_rows().name,
            relaxed_simd_available() ? "weighted_sum_rows_wasmrelaxed" : "weighted_sum_rows_wasmsimd");
#else
  EXPECT_EQ(fastest_gemm().name, "gemm_f32_eigen");
#endif
}
