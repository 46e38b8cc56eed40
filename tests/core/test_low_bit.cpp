// Weights held in 16 or 8 bits (storage.hpp): the conversions against PyTorch's bits, Q8_0
// against the numpy reference (tests/reference/generate_low_bit_fixtures.py), the low-bit
// GEMM's variants against its scalar spec over odd shapes, the read-only rules, and
// checkpoints loaded with each weights mode against their PyTorch outputs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "attention/pretrained.hpp"
#include "attention/safetensors.hpp"
#include "attention/tasks.hpp"
#include "attention/trainer.hpp"
#include "attention/weights_io.hpp"
#include "hub_fixture.hpp"
#include "kernels/kernels.hpp"
#ifdef __wasm_simd128__
#include "kernels/relaxed_simd.hpp"
#endif
#include "test_util.hpp"

namespace attention {
namespace {

using json = nlohmann::json;
using attention::testing::all_close;
using attention::testing::random_vector;

using pretrained::read_text;

const json& golden() {
  static const json data = json::parse(read_text(std::string(ATTENTION_FIXTURE_DIR) + "/low_bit.json"));
  return data;
}

TEST(LowBitConversions, RoundToBf16AndF16AsPyTorchDoes) {
  const json& c = golden()["conversions"];
  const auto f32 = c["f32_bits"].get<std::vector<std::uint32_t>>();
  const auto bf16 = c["bf16_bits"].get<std::vector<std::uint32_t>>();
  const auto f16 = c["f16_bits"].get<std::vector<std::uint32_t>>();
  ASSERT_GT(f32.size(), 400u);
  for (std::size_t i = 0; i < f32.size(); ++i) {
    const float x = float_from_bits(f32[i]);
    if (std::isnan(x)) {  // a NaN (PyTorch's vectorised path gives 0xFFFF, its scalar one 0x7FC0)
      EXPECT_TRUE(std::isnan(widen_bf16(round_to_bf16(x))) && std::isnan(widen_f16(round_to_f16(x))));
      continue;
    }
    EXPECT_EQ(round_to_bf16(x), bf16[i]) << std::hex << "f32 bits 0x" << f32[i];
    EXPECT_EQ(round_to_f16(x), f16[i]) << std::hex << "f32 bits 0x" << f32[i];
    if (std::isfinite(x)) {  // widening is exact: rounding the widened value gives the same bits
      EXPECT_EQ(round_to_bf16(widen_bf16(static_cast<std::uint16_t>(bf16[i]))), bf16[i]);
      if ((f16[i] & 0x7c00u) != 0x7c00u) EXPECT_EQ(round_to_f16(widen_f16(static_cast<std::uint16_t>(f16[i]))), f16[i]);
    }
  }
  EXPECT_EQ(widen_f16(0x0001), std::ldexp(1.0f, -24));  // the smallest subnormal half
  EXPECT_EQ(widen_f16(0x7bff), 65504.0f);
  EXPECT_TRUE(std::isinf(widen_f16(0xfc00)) && widen_f16(0xfc00) < 0);
  EXPECT_TRUE(std::isnan(widen_f16(0x7e00)));
  EXPECT_EQ(widen_bf16(0x3f80), 1.0f);
}

// Our quantizer never makes q = -128 (storage.hpp), as ggml's:
// blocks whose largest magnitude is negative, at scales from 1e-30 to 1e30, with the other values
// anywhere in between, quantize into [-127, 127], the extremes hit exactly (as ggml's).
TEST(LowBitConversions, Q8_0NeverMakesMinus128) {
  const int rows = 61, cols = 96;  // 3 blocks a row
  std::vector<float> values = random_vector(static_cast<std::size_t>(rows) * cols, 81);
  SplitMix64 rng(82);
  for (int r = 0; r < rows; ++r) {
    const float scale = std::pow(10.0f, -30.0f + 60.0f * r / (rows - 1));
    for (int b = 0; b < 3; ++b) {
      float* block = values.data() + static_cast<std::size_t>(r) * cols + b * 32;
      for (int i = 0; i < 32; ++i) block[i] *= scale;
      block[(r + 7 * b) % 32] = -scale * (1.0f + 0.5f * static_cast<float>(rng.symmetric_unit() + 1.0));
    }
  }
  Parameter w("w", {rows, cols}, values);
  w.set_storage(Storage::Q8_0);
  int extremes = 0;
  for (int r = 0; r < rows; ++r)
    for (int b = 0; b < 3; ++b)
      for (int i = 0; i < 32; ++i) {
        const auto q = static_cast<std::int8_t>(w.row_bits(r)[b * kQ8BlockBytes + 2 + i]);
        EXPECT_NE(q, -128) << r << ", " << b << ", " << i;
        extremes += q == -127;
      }
  EXPECT_GE(extremes, rows * 3);  // each block's largest magnitude, negative, is -127
}

TEST(LowBitConversions, Q8_0MatchesTheNumpyReference) {
  for (const json& m : golden()["q8_0"]) {
    const int rows = m["rows"], cols = m["cols"];
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
    const auto value_bits = m["values_bits"].get<std::vector<std::uint32_t>>();
    const auto scales = m["scale_bits"].get<std::vector<std::uint32_t>>();
    const auto q = m["q"].get<std::vector<int>>();
    const auto back = m["dequantized_bits"].get<std::vector<std::uint32_t>>();
    const int blocks = (cols + 31) / 32;
    ASSERT_EQ(row_bytes(Storage::Q8_0, cols), static_cast<std::size_t>(blocks) * 34);
    std::vector<float> values(value_bits.size());
    for (std::size_t i = 0; i < values.size(); ++i) values[i] = float_from_bits(value_bits[i]);
    Parameter p("w", {rows, cols}, values);
    p.set_storage(Storage::Q8_0);
    ASSERT_EQ(p.bytes(), static_cast<std::size_t>(rows) * blocks * 34);
    for (int r = 0; r < rows; ++r) {
      const std::uint8_t* row = p.row_bits(r);
      for (int b = 0; b < blocks; ++b) {
        const std::uint8_t* block = row + b * 34;
        EXPECT_EQ(load_u16(block), scales[static_cast<std::size_t>(r) * blocks + b]) << "row " << r << " block " << b;
        for (int i = 0; i < 32; ++i)
          ASSERT_EQ(static_cast<std::int8_t>(block[2 + i]), q[(static_cast<std::size_t>(r) * blocks + b) * 32 + i])
              << "row " << r << " block " << b << " value " << i;
      }
    }
    const std::vector<float> widened = p.widened();
    for (std::size_t i = 0; i < widened.size(); ++i) EXPECT_EQ(bits_of(widened[i]), back[i]) << "value " << i;
  }
}

// Low-bit GEMM: every variant against the scalar spec, and the spec against the float GEMM
// on the widened weight (exactly: the same products summed in the same order).
class LowBitGemm : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(LowBitGemm, VariantsMatchTheScalarSpec) {
  const auto [m, n, k] = GetParam();
  const std::vector<float> a = random_vector(static_cast<std::size_t>(m) * k, 31 + m);
  const std::vector<float> w = random_vector(static_cast<std::size_t>(n) * k, 32 + n, 0.5f);
  const std::vector<float> bias = random_vector(static_cast<std::size_t>(n), 33 + k);
  for (Storage storage : {Storage::BF16, Storage::F16, Storage::Q8_0}) {
    Parameter weight("w", {n, k}, w);
    weight.set_storage(storage);
    const std::vector<float> widened = weight.widened();
    for (const float* b : {static_cast<const float*>(nullptr), bias.data()}) {
      std::vector<float> on_floats(static_cast<std::size_t>(m) * n), expected(on_floats.size());
      kernels::gemm(&kernels::gemm_f32_scalar, m, n, k, a.data(), widened.data(), kernels::Layout::NT, 1.0f, b,
                    on_floats.data());
      const auto& variants = kernels::low_bit_gemm_variants(storage);
      ASSERT_GE(variants.size(), 2u);
      kernels::gemm_low_bit(variants.front().fn, storage, m, n, k, a.data(), weight.row_bits(0), b, expected.data());
      EXPECT_EQ(expected, on_floats) << variants.front().name;
      for (const auto& variant : variants) {
        std::vector<float> actual(expected.size(), -7.0f);
        kernels::gemm_low_bit(variant.fn, storage, m, n, k, a.data(), weight.row_bits(0), b, actual.data());
        EXPECT_TRUE(all_close(actual, expected, std::max(1e-5, 2e-6 * std::sqrt(static_cast<double>(k)))))
            << variant.name << (b ? " bias" : "");
        // Told that W is finite (as a model's Parameter tells it), a kernel gives the same floats.
        std::vector<float> told_finite(expected.size(), -7.0f);
        kernels::gemm_low_bit(variant.fn, storage, m, n, k, a.data(), weight.row_bits(0), b, told_finite.data(),
                              {/*w_finite=*/true});
        EXPECT_EQ(told_finite, actual) << variant.name << (b ? " bias" : "");
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(OddShapes, LowBitGemm,
                         ::testing::Values(std::make_tuple(1, 1, 1), std::make_tuple(1, 7, 8),
                                           std::make_tuple(3, 5, 33), std::make_tuple(5, 3, 31),
                                           std::make_tuple(4, 2, 64), std::make_tuple(9, 11, 70),
                                           std::make_tuple(1, 65, 97), std::make_tuple(17, 66, 130),
                                           std::make_tuple(64, 9, 256), std::make_tuple(8, 300, 40)));

// Q8_0's integer options (LowBitGemmArgs::activations): A's rows rounded per block of 32 to
// int16 or int8 levels (one function, round_row, the levels its type's largest value).
template <class Q>
void expect_rounding_keeps_levels_per_block() {
  constexpr int kLargest = std::numeric_limits<Q>::max();
  // K = 70: blocks of 32, 32 and 6 (padded to 32 with zeros).
  std::vector<float> x = random_vector(70, 5, 3.0f);
  for (int p = 32; p < 64; ++p) x[p] = 0.0f;  // a zero block
  x[5] = -4.0f;                               // block 0's largest magnitude, negative
  std::vector<Q> q(3 * 32, 99);
  std::vector<float> d(3, -1.0f);
  kernels::round_row(x.data(), 70, q.data(), d.data());
  EXPECT_EQ(d[0], 4.0f / static_cast<float>(kLargest));
  EXPECT_EQ(q[5], -kLargest);
  EXPECT_EQ(d[1], 0.0f);
  for (int p = 32; p < 64; ++p) EXPECT_EQ(q[p], 0) << p;
  for (int p = 70; p < 96; ++p) EXPECT_EQ(q[p], 0) << "padding " << p;
  for (int p = 0; p < 70; ++p) {
    const float dp = d[p / 32];
    EXPECT_LE(std::abs(int{q[p]}), kLargest) << p;
    if (dp == 0.0f) continue;
    EXPECT_EQ(q[p], static_cast<Q>(std::round(x[p] / dp))) << p;
    EXPECT_LE(std::fabs(x[p] - q[p] * dp), 0.5f * dp * (1 + 1e-5f)) << p;  // half a step of max/L
  }
  // A block holding NaN or infinity: its scale is NaN (the products are NaN, as the float ones).
  x[40] = std::numeric_limits<float>::infinity();
  x[66] = std::numeric_limits<float>::quiet_NaN();
  kernels::round_row(x.data(), 70, q.data(), d.data());
  EXPECT_EQ(d[0], 4.0f / static_cast<float>(kLargest));
  EXPECT_TRUE(std::isnan(d[1]) && std::isnan(d[2]));
}
TEST(LowBitGemm, Int16RoundingOfARowKeepsFifteenBitsPerBlock) {
  expect_rounding_keeps_levels_per_block<std::int16_t>();
}
TEST(LowBitGemm, Int8RoundingOfARowKeepsSevenBitsPerBlock) { expect_rounding_keeps_levels_per_block<std::int8_t>(); }

#ifdef __wasm_simd128__
// The integer GEMV's rounding (round_row_wasmsimd) is the spec's, round_row, bit for bit: every
// q and every scale (NaN included) over rows with ties at half a level, a zero block, a block
// whose scale underflows to 0, one whose scale is subnormal, signed zeros, an infinity, a NaN and a
// partial last block.
template <class Q>
void expect_simd_rounding_is_the_specs() {
  constexpr float kLargest = std::numeric_limits<Q>::max();
  for (const int k : {32, 70, 96, 768}) {
    for (const float scale : {1e-3f, 1.0f, 300.0f}) {
      std::vector<float> x = random_vector(static_cast<std::size_t>(k), 7 + k, scale);
      if (k >= 64) {
        // Block 0: d = 0.25 exactly (largest L / 4), values on and between half levels.
        x[0] = kLargest / 4;
        for (int p = 1; p < 32; ++p) x[p] = (static_cast<float>(p % 11) - 5.5f) * 0.25f * (p % 2 ? 1.0f : -1.0f);
        x[1] = -0.0f;
        for (int p = 32; p < 64; ++p) x[p] = p % 3 ? 1e-44f : 0.0f;  // d underflows to 0
      }
      if (k == 96) {
        x[70] = std::numeric_limits<float>::infinity();
        x[64] = -0.0f;
      }
      if (k == 768) {
        x[700] = std::numeric_limits<float>::quiet_NaN();
        // Block 2: a subnormal nonzero scale (max |x| 1e-40), where |x / d| can pass L and the clamp holds it.
        for (int p = 64; p < 96; ++p) x[p] = static_cast<float>(p % 5 - 2) * 2.7e-41f;
        x[77] = -1e-40f;
      }
      const int blocks = kernels::q8_blocks(k);
      std::vector<Q> want(static_cast<std::size_t>(blocks) * 32, 99), got(want.size(), 98);
      std::vector<float> want_d(static_cast<std::size_t>(blocks), -1.0f), got_d(want_d.size(), -2.0f);
      kernels::round_row(x.data(), k, want.data(), want_d.data());
      kernels::round_row_wasmsimd(x.data(), k, got.data(), got_d.data());
      EXPECT_EQ(got, want) << "k " << k << " scale " << scale;
      EXPECT_EQ(std::memcmp(got_d.data(), want_d.data(), want_d.size() * sizeof(float)), 0) << k << " " << scale;
    }
  }
}
TEST(LowBitGemm, WasmSimdRoundingIsTheSpecsBitForBit) {
  expect_simd_rounding_is_the_specs<std::int16_t>();
  expect_simd_rounding_is_the_specs<std::int8_t>();
}
#endif

// With activations Int16 or Int8, the scalar spec multiplies A's rows rounded (q d) exactly as
// the float spec does, every variant matches it (Q8_0's GEMV in integers, Int8's relaxed dot and
// its plain twin), and the rounding moves a result by at most half a step per value:
// |c - c_float| <= sum_p |w_p| d_block(p) / 2, plus float rounding.
template <class Q>
void expect_rounded_activations_match_the_spec(int m, int n, int k, kernels::LowBitOptions options) {
  const std::vector<float> a = random_vector(static_cast<std::size_t>(m) * k, 51 + m);
  const std::vector<float> w = random_vector(static_cast<std::size_t>(n) * k, 52 + n, 0.5f);
  const std::vector<float> bias = random_vector(static_cast<std::size_t>(n), 53 + k);
  const int blocks = kernels::q8_blocks(k);
  std::vector<float> rounded(static_cast<std::size_t>(m) * k), step(static_cast<std::size_t>(m) * blocks);
  std::vector<Q> q(static_cast<std::size_t>(blocks) * 32);
  for (int i = 0; i < m; ++i) {
    kernels::round_row(a.data() + static_cast<std::size_t>(i) * k, k, q.data(), step.data() + i * blocks);
    for (int p = 0; p < k; ++p) rounded[static_cast<std::size_t>(i) * k + p] = q[p] * step[i * blocks + p / 32];
  }
  for (Storage storage : {Storage::Q8_0, Storage::BF16}) {
    Parameter weight("w", {n, k}, w);
    weight.set_storage(storage);
    const std::vector<float> widened = weight.widened();
    std::vector<float> spec(static_cast<std::size_t>(m) * n), on_floats(spec.size());
    kernels::gemm(&kernels::gemm_f32_scalar, m, n, k, rounded.data(), widened.data(), kernels::Layout::NT, 1.0f,
                  bias.data(), spec.data());
    kernels::gemm(&kernels::gemm_f32_scalar, m, n, k, a.data(), widened.data(), kernels::Layout::NT, 1.0f, bias.data(),
                  on_floats.data());
    for (const auto& variant : kernels::low_bit_gemm_variants(storage)) {
      std::vector<float> actual(spec.size(), -7.0f);
      kernels::gemm_low_bit(variant.fn, storage, m, n, k, a.data(), weight.row_bits(0), bias.data(), actual.data(),
                            options);
      if (&variant == &kernels::low_bit_gemm_variants(storage).front())
        EXPECT_EQ(actual, spec) << variant.name;
      else
        EXPECT_TRUE(all_close(actual, spec, std::max(1e-5, 2e-6 * std::sqrt(static_cast<double>(k))))) << variant.name;
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          double bound = 0;
          for (int p = 0; p < k; ++p)
            bound += std::fabs(widened[static_cast<std::size_t>(j) * k + p]) * step[i * blocks + p / 32] / 2;
          const std::size_t at = static_cast<std::size_t>(i) * n + j;
          EXPECT_LE(std::fabs(double(actual[at]) - on_floats[at]), bound + 1e-5 * std::sqrt(double(k)))
              << variant.name << " (" << i << ", " << j << ")";
        }
    }
  }
}
TEST_P(LowBitGemm, Int16ActivationsMatchTheSpecOnTheRoundedRows) {
  const auto [m, n, k] = GetParam();
  expect_rounded_activations_match_the_spec<std::int16_t>(m, n, k, {true, Q8Activations::Int16});
}
TEST_P(LowBitGemm, Int8ActivationsMatchTheSpecOnTheRoundedRows) {
  const auto [m, n, k] = GetParam();
  expect_rounded_activations_match_the_spec<std::int8_t>(m, n, k, {true, Q8Activations::Int8});
}

// Int8's GEMV gives the same bits whichever dot sums its blocks (the relaxed GEMV, _wasmrelaxed
// where the engine has relaxed SIMD, with every dot this runtime computes right: kernels::Int8Dot's
// unsigned and split; the plain int16 twin in _wasmsimd): the integer sums are exact and the float
// epilogue is shared. So does W holding q = -128 and 127 (written as a file could, our quantizer
// never makes -128) against x's blocks holding +-127, the unsigned dot's extremes (q_w + 128 in
// {0, 255}), and every variant also multiplies that as the scalar spec does. Shapes with K a
// multiple of 128 take the four-block epilogue only, others its last blocks' per-lane one too.
// Where a dot cannot run (the unsigned one needs AVX-VNNI's lowering: Chromium, not Node 20) the
// test says so; tests/e2e/int8-dot.test.mjs runs the unsigned dot in Chromium.
TEST(LowBitGemm, Int8GemvIsTheSameWithEveryDot) {
  for (const auto& shape :
       {std::make_tuple(1, 7, 40), std::make_tuple(1, 33, 200), std::make_tuple(2, 9, 128), std::make_tuple(3, 5, 97),
        std::make_tuple(4, 6, 256), std::make_tuple(5, 4, 64), std::make_tuple(1, 3, 576)}) {
    const int m = std::get<0>(shape), n = std::get<1>(shape), k = std::get<2>(shape);
    std::vector<float> a = random_vector(static_cast<std::size_t>(m) * k, 71 + k);
    // Row 0's block 1 all at +-max|x| (rounds to +-127); row m - 1's first value the block's largest negative
    for (int p = 32; p < std::min(k, 64); ++p) a[p] = p % 3 ? 2.0f : -2.0f;
    a[static_cast<std::size_t>(m - 1) * k] = -4.0f;
    Parameter weight("w", {n, k}, random_vector(static_cast<std::size_t>(n) * k, 72 + n, 0.5f));
    weight.set_storage(Storage::Q8_0);
    const auto run = [&](const Parameter& w, kernels::LowBitGemmFn fn) {
      std::vector<float> c(static_cast<std::size_t>(m) * n, -7.0f);
      kernels::gemm_low_bit(fn, Storage::Q8_0, m, n, k, a.data(), w.row_bits(0), nullptr, c.data(),
                            {true, Q8Activations::Int8});
      return c;
    };
    std::vector<const kernels::Variant<kernels::LowBitGemmFn>*> gemvs;
    for (const auto& variant : kernels::low_bit_gemm_variants(Storage::Q8_0))
      if (variant.name.find("gemv") != std::string::npos) gemvs.push_back(&variant);
#ifdef __wasm_simd128__
    // the plain GEMV, and the relaxed one where the engine has relaxed SIMD (natively there are none)
    ASSERT_EQ(gemvs.size(), kernels::relaxed_simd_available() ? 2u : 1u);
#endif
    // Some q = -128 and 127 in W: every other row's block 0 holds both, the others one -128.
    Parameter odd("w", {n, k}, Storage::Q8_0);
    for (int r = 0; r < n; ++r) std::memcpy(odd.mutable_row_bits(r), weight.row_bits(r), weight.row_bytes());
    for (int r = 0; r < n; r += 2) odd.mutable_row_bits(r)[2 + (r % 32)] = 0x80;
    for (int r = 1; r < n; r += 2)
      for (int p = 0; p < std::min(k, 32); ++p) odd.mutable_row_bits(r)[2 + p] = p % 2 ? 0x80 : 0x7f;
    const kernels::Int8Dot best = kernels::int8_dot();
    for (const Parameter* w :
         gemvs.empty() ? std::vector<const Parameter*>{} : std::vector<const Parameter*>{&weight, &odd}) {
      const std::vector<float> plain = run(*w, gemvs.front()->fn);
      for (const auto* variant : gemvs)
        for (kernels::Int8Dot dot : {kernels::Int8Dot::Plain, kernels::Int8Dot::Split, kernels::Int8Dot::Unsigned}) {
          if (kernels::limit_int8_dot(dot) != dot) continue;  // not computed right here (said below)
          EXPECT_TRUE(run(*w, variant->fn) == plain) << variant->name << " with the " << kernels::int8_dot_name(dot)
                                                     << " dot, m " << m << " k " << k << (w == &odd ? " -128" : "");
        }
      kernels::limit_int8_dot(kernels::Int8Dot::Unsigned);
    }
    EXPECT_EQ(kernels::int8_dot(), best);
    const std::vector<float> spec = run(odd, kernels::low_bit_gemm_variants(Storage::Q8_0).front().fn);
    for (const auto& variant : kernels::low_bit_gemm_variants(Storage::Q8_0))
      EXPECT_TRUE(all_close(run(odd, variant.fn), spec, 1e-5 * std::sqrt(double(k)))) << variant.name;
  }
  if (kernels::int8_dot() != kernels::Int8Dot::Unsigned)
    std::printf(
        "[ NOTE     ] the int8 GEMV's dots compared here: up to '%s' (this runtime's best); "
        "the 'unsigned' dot did not run (tests/e2e/int8-dot.test.mjs runs it in Chromium)\n",
        kernels::int8_dot_name(kernels::int8_dot()));
}

#ifdef __wasm_simd128__
// The unsigned dot's probe (relaxed_simd.hpp, relaxed_dot_unsigned) says yes exactly where this
// runtime's relaxed dot takes b's bytes as unsigned and sums exactly: checked on vectors of
// its own, a at +-127 and b in [128, 255] (where signed bytes, int16 saturation or a dropped
// accumulator show), and a random spread. Runs in the relaxed suite; in Node 20 (with or
// without Liftoff) the verdict is no, in Chromium on an AVX-VNNI machine yes (the e2e test).
std::vector<std::int32_t> relaxed_dot(const std::int8_t* a, const std::uint8_t* b, std::int32_t c) {
  const v128_t r = attention_relaxed_dot_i8x16_i7x16_add_s(wasm_v128_load(a), wasm_v128_load(b), wasm_i32x4_splat(c));
  std::vector<std::int32_t> out(4);
  wasm_v128_store(out.data(), r);
  return out;
}
TEST(LowBitGemm, DISABLED_TheUnsignedDotsProbeTellsWhatTheDotComputes) {
  ASSERT_TRUE(kernels::relaxed_simd_available());
  std::uint32_t state = 12345;
  const auto next = [&] { return state = state * 1664525u + 1013904223u, state >> 24; };
  bool all_unsigned_exact = true;
  for (int trial = 0; trial < 64; ++trial) {
    std::int8_t a[16];
    std::uint8_t b[16];
    for (int j = 0; j < 16; ++j) {
      const unsigned r = next();
      a[j] = static_cast<std::int8_t>(trial < 32 ? (r % 2 ? 127 : -127) : static_cast<int>(r % 255) - 127);
      b[j] = static_cast<std::uint8_t>(trial < 32 ? 128 + next() % 128 : next());
    }
    const std::int32_t c = static_cast<std::int32_t>(next()) - 128;
    const std::vector<std::int32_t> got = relaxed_dot(a, b, c);
    for (int i = 0; i < 4; ++i) {
      std::int32_t want = c;
      for (int j = 4 * i; j < 4 * i + 4; ++j) want += a[j] * b[j];
      all_unsigned_exact = all_unsigned_exact && got[i] == want;
    }
  }
  EXPECT_EQ(kernels::relaxed_dot_unsigned(), all_unsigned_exact);
  std::printf("[ NOTE     ] this runtime's relaxed dot is %s for b in [128, 255]; the int8 GEMV runs the '%s' dot\n",
              all_unsigned_exact ? "unsigned and exact" : "not unsigned and exact",
              kernels::int8_dot_name(kernels::int8_dot()));
}
#endif

// A row of A holding NaN gives NaN in that row of C (no trap, no garbage), the others as usual.
TEST(LowBitGemm, RoundedActivationsCarryNaNToItsRowOnly) {
  const int m = 2, n = 5, k = 64;
  std::vector<float> a = random_vector(static_cast<std::size_t>(m) * k, 61);
  a[k + 40] = std::numeric_limits<float>::quiet_NaN();
  Parameter weight("w", {n, k}, random_vector(static_cast<std::size_t>(n) * k, 62, 0.5f));
  weight.set_storage(Storage::Q8_0);
  for (Q8Activations mode : {Q8Activations::Int16, Q8Activations::Int8})
    for (const auto& variant : kernels::low_bit_gemm_variants(Storage::Q8_0)) {
      std::vector<float> c(static_cast<std::size_t>(m) * n, -7.0f);
      kernels::gemm_low_bit(variant.fn, Storage::Q8_0, m, n, k, a.data(), weight.row_bits(0), nullptr, c.data(),
                            {true, mode});
      for (int j = 0; j < n; ++j) {
        EXPECT_TRUE(std::isfinite(c[j])) << variant.name;
        EXPECT_TRUE(std::isnan(c[n + j])) << variant.name;
      }
    }
}

// Every variant widens each value exactly: with x's rows one-hot (row r picks column p_r),
// y = x W^T is W's column p_r, one product of 1 and a widened value plus zeros, the same in
// any summation order. W holds F16's extremes (subnormals down to 2^-24, 65504, -0) and
// values whose F16, BF16 and Q8_0 forms differ; 1 to 4 rows of x (the GEMV) and 5.
TEST(LowBitGemm, EveryVariantWidensEachValueExactly) {
  const int n = 13, k = 77;  // k: two Q8_0 blocks, a run of 8 and a tail of 5
  const float specials[] = {0x1.0p-24f, -0x1.0p-24f, 0x1.ff8p-15f, 0x1.0p-14f, 65504.0f, -65504.0f,
                            -0.0f,      1.0f / 3,    -2.5e-3f,     1000.125f,  3.0e-7f,  -7.0e-6f};
  std::vector<float> w(static_cast<std::size_t>(n) * k);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = specials[i % std::size(specials)] * (i % 5 == 4 ? -1.0f : 1.0f);
  for (Storage storage : {Storage::BF16, Storage::F16, Storage::Q8_0}) {
    Parameter weight("w", {n, k}, w);
    weight.set_storage(storage);
    const std::vector<float> widened = weight.widened();
    for (int m = 1; m <= 5; ++m) {
      for (int p0 : {0, 31, 32, 64, 70, 76}) {
        std::vector<float> a(static_cast<std::size_t>(m) * k, 0.0f);
        for (int r = 0; r < m; ++r) a[static_cast<std::size_t>(r) * k + (p0 + 9 * r) % k] = 1.0f;
        for (const auto& variant : kernels::low_bit_gemm_variants(storage)) {
          std::vector<float> c(static_cast<std::size_t>(m) * n, -7.0f);
          kernels::gemm_low_bit(variant.fn, storage, m, n, k, a.data(), weight.row_bits(0), nullptr, c.data());
          for (int r = 0; r < m; ++r)
            for (int j = 0; j < n; ++j) {
              const float want = widened[static_cast<std::size_t>(j) * k + (p0 + 9 * r) % k];
              const float got = c[static_cast<std::size_t>(r) * n + j];
              // -0 widened may come back +0 (0 + -0): compare values, and the bits where nonzero.
              ASSERT_TRUE(got == want && (want == 0.0f || std::signbit(got) == std::signbit(want)))
                  << variant.name << " m " << m << " row " << r << " W row " << j << ": " << got << ", widened "
                  << want;
            }
        }
      }
    }
  }
}

// F16's infinities and NaN (F16's GEMV widens groups of 32 without its select for them unless
// a group holds one): each variant gives the spec's infinity or NaN in the rows that hold
// one, wherever it sits (first group, second group, the run of 8, the tail), and the spec's
// values in the other rows.
TEST(LowBitGemm, F16InfinityAndNaNGiveWhatTheSpecGives) {
  const int n = 7, k = 77;
  std::vector<float> w = random_vector(static_cast<std::size_t>(n) * k, 41, 0.5f);
  const float inf = std::numeric_limits<float>::infinity();
  const std::pair<int, float> placed[] = {{5, inf}, {40, -inf}, {33, std::nanf("")}, {66, inf}, {75, -inf}};
  for (int row = 0; row < 5; ++row) w[static_cast<std::size_t>(row) * k + placed[row].first] = placed[row].second;
  Parameter weight("w", {n, k}, w);
  weight.set_storage(Storage::F16);
  ASSERT_FALSE(weight.all_finite());
  const auto& variants = kernels::low_bit_gemm_variants(Storage::F16);
  for (int m = 1; m <= 5; ++m) {
    std::vector<float> a = random_vector(static_cast<std::size_t>(m) * k, 42 + m, 0.5f);
    for (float& x : a) x += 1.0f;  // all > 0: an infinity times them stays one
    std::vector<float> expected(static_cast<std::size_t>(m) * n);
    kernels::gemm_low_bit(variants.front().fn, Storage::F16, m, n, k, a.data(), weight.row_bits(0), nullptr,
                          expected.data());
    for (int r = 0; r < m; ++r) {
      EXPECT_EQ(expected[static_cast<std::size_t>(r) * n + 0], inf);
      EXPECT_EQ(expected[static_cast<std::size_t>(r) * n + 1], -inf);
      EXPECT_TRUE(std::isnan(expected[static_cast<std::size_t>(r) * n + 2]));
      EXPECT_TRUE(std::isfinite(expected[static_cast<std::size_t>(r) * n + 5]));
    }
    for (const auto& variant : variants) {
      std::vector<float> actual(expected.size(), -7.0f);
      kernels::gemm_low_bit(variant.fn, Storage::F16, m, n, k, a.data(), weight.row_bits(0), nullptr, actual.data());
      for (std::size_t i = 0; i < expected.size(); ++i) {
        if (std::isfinite(expected[i]))
          EXPECT_NEAR(actual[i], expected[i], 1e-4 * (1 + std::abs(expected[i])))
              << variant.name << " m " << m << " " << i;
        else if (std::isnan(expected[i]))
          EXPECT_TRUE(std::isnan(actual[i])) << variant.name << " m " << m << " " << i;
        else
          EXPECT_EQ(actual[i], expected[i]) << variant.name << " m " << m << " " << i;
      }
    }
  }
}

// F16's GEMV moves W's rebias (2^112) into x when every |x| < 2^15, and keeps it in W's
// widening otherwise: the same products rounded the same way, so the bits must not change.
// A row of x alone (small: the rebias in x) must give the very bits it gives beside a row
// holding 2^15 (the whole call keeps the rebias in W; each row's sums run in the same order
// whatever the other rows). x spans float32's subnormals (products that underflow), zeros,
// -0 and values just below 2^15; W F16's subnormals, zeros, 65504, and (second round) an
// infinity and a NaN in groups of 32 and in the run of 8.
TEST(LowBitGemm, F16GemvGivesTheSameBitsWithTheRebiasInXOrInW) {
  const int n = 9, k = 109;  // three groups of 32, a run of 8 and a tail of 5
  const float w_specials[] = {0x1.0p-24f, -0x1.8p-20f, 0x1.ff8p-15f, 0.0f, -0.0f, 65504.0f, -3.0e-7f};
  const float x_specials[] = {0x1.0p-149f,    -0x1.0p-130f,    1.0e-30f,   0.0f,     -0.0f,
                              0x1.fffffep14f, -0x1.fffffep14f, 12345.678f, -1.0e-20f};
  for (bool with_special : {false, true}) {
    std::vector<float> w = random_vector(static_cast<std::size_t>(n) * k, 61, 2.0f);
    for (std::size_t i = 0; i < w.size(); i += 5) w[i] = w_specials[(i / 5) % std::size(w_specials)];
    if (with_special) {
      w[0 * k + 40] = std::numeric_limits<float>::infinity();
      w[3 * k + 100] = std::nanf("");
    }
    Parameter weight("w", {n, k}, w);
    weight.set_storage(Storage::F16);
    ASSERT_EQ(weight.all_finite(), !with_special);
    for (int trial = 0; trial < 3; ++trial) {
      std::vector<float> x = random_vector(static_cast<std::size_t>(k), 70 + trial, trial == 0 ? 1.0f : 30000.0f);
      for (std::size_t i = trial; i < x.size(); i += 4) x[i] = x_specials[(i / 4) % std::size(x_specials)];
      std::vector<float> pair = x;
      pair.resize(2 * static_cast<std::size_t>(k), 0.25f);
      pair[k + 17] = 0x1.0p15f;
      for (const auto& variant : kernels::low_bit_gemm_variants(Storage::F16)) {
        // Native Eigen multiplies 1 row (a GEMV) and 2 rows (a GEMM) with sums in other orders: not
        // comparable bit for bit (VariantsMatchTheScalarSpec checks it); the spec and the wasm kernels are.
        if (variant.name.find("eigen") != std::string::npos) continue;
        for (bool w_finite : {false, !with_special}) {
          std::vector<float> alone(n, -7.0f), beside(2 * static_cast<std::size_t>(n), -7.0f);
          kernels::gemm_low_bit(variant.fn, Storage::F16, 1, n, k, x.data(), weight.row_bits(0), nullptr, alone.data(),
                                {w_finite});
          kernels::gemm_low_bit(variant.fn, Storage::F16, 2, n, k, pair.data(), weight.row_bits(0), nullptr,
                                beside.data(), {w_finite});
          for (int j = 0; j < n; ++j) {
            if (std::isnan(beside[j])) {
              EXPECT_TRUE(std::isnan(alone[j])) << variant.name << " W row " << j;
              continue;
            }
            std::uint32_t a_bits, b_bits;
            std::memcpy(&a_bits, &alone[j], 4);
            std::memcpy(&b_bits, &beside[j], 4);
            EXPECT_EQ(a_bits, b_bits) << variant.name << " trial " << trial << " W row " << j << ": " << alone[j]
                                      << " alone, " << beside[j] << " beside 2^15";
          }
          if (with_special) {
            EXPECT_EQ(alone[0], std::numeric_limits<float>::infinity() * (x[40] > 0 ? 1.0f : -1.0f)) << variant.name;
            EXPECT_TRUE(std::isnan(alone[3])) << variant.name;
          }
        }
      }
    }
  }
}

// Q8_0's integer GEMV with W finite (LowBitGemmArgs::w_finite) widens each block's scale to
// dw 2^-112 (its bits moved to float32's places, no multiply) and takes x's block scales times
// 2^112 when every one is below 2^16; otherwise, and with W not known finite, it widens the
// scales as F16's widen4 does: the same real products, so the bits must not change. A row of x
// alone (the rebias in x) must give the very bits it gives without w_finite, and beside a row
// whose scale is 2^16 or more (the whole call takes the select's path). W's scales span F16's
// subnormals, zeros, -0, its smallest normal and 65504 (with both signs), where products
// underflow or overflow; x's blocks 0, tiny, up to just below 2^16 a step. Int8 (every dot this
// runtime computes right) and Int16, K with and without blocks after the last four.
TEST(LowBitGemm, Int8GemvGivesTheSameBitsWithTheRebiasInX) {
  const std::uint16_t scales[] = {0x0001, 0x83ff, 0x0400, 0x0000, 0x8000, 0x7bff, 0xfbff, 0x3c00, 0x0155, 0x9abc};
  const float x_scales[] = {0.0f, 1.0e-30f, 0x1.0p-140f, 1.0f, 300.0f, -65535.0f, 12345.678f, 65535.5f};
  for (const int k : {224, 97, 256}) {
    const int n = 11, blocks = kernels::q8_blocks(k);
    Parameter weight("w", {n, k}, random_vector(static_cast<std::size_t>(n) * k, 81 + k, 0.5f));
    weight.set_storage(Storage::Q8_0);
    Parameter w("w", {n, k}, Storage::Q8_0);
    for (int r = 0; r < n; ++r) {
      std::uint8_t* row = w.mutable_row_bits(r);
      std::memcpy(row, weight.row_bits(r), weight.row_bytes());
      for (int b = 0; b < blocks; ++b)  // every other block keeps its scale; q's bytes stay
        if ((r + b) % 2 == 0) std::memcpy(row + b * kQ8BlockBytes, &scales[(r * 3 + b) % 10], 2);
    }
    for (int trial = 0; trial < 2; ++trial) {
      // each block's largest |x| is 127 (int8) steps of a scale from x_scales, its others random below
      std::vector<float> x = random_vector(static_cast<std::size_t>(k), 90 + trial, 1.0f);
      for (int p = 0; p < k; ++p) {
        const float step = x_scales[(p / 32 + 3 * trial) % std::size(x_scales)];
        x[p] = p % 32 == 5 ? 127.0f * step : x[p] * 100.0f * std::fabs(step);
      }
      for (const Q8Activations mode : {Q8Activations::Int8, Q8Activations::Int16}) {
        std::vector<float> pair = x;  // and a row with one block's scale exactly 2^16
        pair.resize(2 * static_cast<std::size_t>(k), 0.25f);
        pair[k + 40] = (mode == Q8Activations::Int8 ? 127.0f : 32767.0f) * 0x1.0p16f;
        for (const auto& variant : kernels::low_bit_gemm_variants(Storage::Q8_0)) {
          if (variant.name.find("eigen") != std::string::npos) continue;  // sums 1 and 2 rows in other orders
          const bool relaxed = variant.name.find("relaxed") != std::string::npos;
          const kernels::Int8Dot best = kernels::int8_dot();
          for (kernels::Int8Dot dot : {kernels::Int8Dot::Plain, kernels::Int8Dot::Split, kernels::Int8Dot::Unsigned}) {
            if (kernels::limit_int8_dot(dot) != dot || (dot != best && !relaxed)) continue;
            std::vector<float> alone(n, -7.0f), select(n, -7.0f), beside(2 * static_cast<std::size_t>(n), -7.0f),
                beside_select(beside.size(), -7.0f);
            kernels::gemm_low_bit(variant.fn, Storage::Q8_0, 1, n, k, x.data(), w.row_bits(0), nullptr, alone.data(),
                                  {true, mode});
            kernels::gemm_low_bit(variant.fn, Storage::Q8_0, 1, n, k, x.data(), w.row_bits(0), nullptr, select.data(),
                                  {false, mode});
            kernels::gemm_low_bit(variant.fn, Storage::Q8_0, 2, n, k, pair.data(), w.row_bits(0), nullptr,
                                  beside.data(), {true, mode});
            kernels::gemm_low_bit(variant.fn, Storage::Q8_0, 2, n, k, pair.data(), w.row_bits(0), nullptr,
                                  beside_select.data(), {false, mode});
            for (int j = 0; j < n; ++j) {
              std::uint32_t bits[5];
              std::memcpy(&bits[0], &alone[j], 4);
              std::memcpy(&bits[1], &select[j], 4);
              std::memcpy(&bits[2], &beside[j], 4);
              std::memcpy(&bits[3], &beside[n + j], 4);  // the row with scale 2^16
              std::memcpy(&bits[4], &beside_select[n + j], 4);
              const std::string what = variant.name + " " + kernels::int8_dot_name(dot) + " dot, " +
                                       (mode == Q8Activations::Int8 ? "int8" : "int16") + ", k " + std::to_string(k) +
                                       ", trial " + std::to_string(trial) + ", W row " + std::to_string(j);
              EXPECT_EQ(bits[0], bits[1]) << what << ": " << alone[j] << " prescaled, " << select[j] << " select";
              EXPECT_EQ(bits[0], bits[2]) << what << ": " << alone[j] << " prescaled, " << beside[j] << " beside 2^16";
              EXPECT_EQ(bits[3], bits[4]) << what << ": " << beside[n + j] << " the row at 2^16 told W finite, "
                                          << beside_select[n + j] << " not";
            }
          }
          kernels::limit_int8_dot(kernels::Int8Dot::Unsigned);
          EXPECT_EQ(kernels::int8_dot(), best);
        }
      }
    }
  }
}

// Q8_0 interleaved by 4 rows (storage.hpp's Interleaved4): interleave_q8_0 puts each byte where the
// layout says (a row's block scale as float32 in its group's block, its q flipped to q ^ 0x80 4
// bytes a row per 16, padding rows q = 0 and scale 0), and deinterleave_q8_0 gives back the very
// bytes, any row range: scales that are infinities, NaNs with payloads (quiet and signalling),
// subnormals and -0, q = -128, the padding of a partial last block, N not a multiple of 4.
TEST(LowBitConversions, Q8_0InterleavedBy4HoldsEachByteWhereTheLayoutSaysAndRoundTrips) {
  const std::uint16_t odd_scales[] = {0x7c00, 0xfc00, 0x7e01, 0x7d55, 0xfe00, 0x0001, 0x8000, 0x83ff, 0x7bff, 0x0000};
  for (const auto& [n, cols] : {std::make_pair(7, 200), std::make_pair(4, 64), std::make_pair(1, 31),
                                std::make_pair(13, 96), std::make_pair(6, 32)}) {
    const std::size_t row_size = row_bytes(Storage::Q8_0, cols);
    const int blocks = kernels::q8_blocks(cols);
    std::vector<std::uint8_t> rows(static_cast<std::size_t>(n) * row_size);
    SplitMix64 rng(500 + 7 * n + cols);
    for (auto& byte : rows) byte = static_cast<std::uint8_t>(rng.next() >> 56);
    for (int r = 0; r < n; ++r)
      for (int b = 0; b < blocks; ++b) {
        std::uint8_t* block = rows.data() + r * row_size + b * kQ8BlockBytes;
        // scales: half ordinary (random F16 bits below 0x7c00 in magnitude), half from odd_scales
        const std::uint16_t h = (r + b) % 2 ? odd_scales[(3 * r + b) % std::size(odd_scales)]
                                            : static_cast<std::uint16_t>(load_u16(block) & 0xbbffu);
        block[0] = static_cast<std::uint8_t>(h & 0xff);
        block[1] = static_cast<std::uint8_t>(h >> 8);
        block[2 + (r + b) % 32] = 0x80;  // q = -128
      }
    const int groups = (n + kQ8x4Rows - 1) / kQ8x4Rows;
    ASSERT_EQ(q8x4_group_bytes(cols), static_cast<std::size_t>(blocks) * kQ8x4BlockBytes);
    std::vector<std::uint8_t> interleaved(groups * q8x4_group_bytes(cols) + 1, 0x5a);  // one byte past the end
    interleave_q8_0(rows.data(), n, cols, interleaved.data());
    EXPECT_EQ(interleaved.back(), 0x5a) << "interleave_q8_0 wrote past its groups, n " << n << " cols " << cols;
    for (int r = 0; r < groups * kQ8x4Rows; ++r)
      for (int b = 0; b < blocks; ++b) {
        const std::uint8_t* at = interleaved.data() + (r / 4) * q8x4_group_bytes(cols) + b * kQ8x4BlockBytes;
        const std::uint8_t* block = r < n ? rows.data() + r * row_size + b * kQ8BlockBytes : nullptr;
        std::uint32_t scale;
        std::memcpy(&scale, at + 4 * (r % 4), 4);
        EXPECT_EQ(scale, r < n ? bits_of(widen_f16(load_u16(block))) : 0u) << "row " << r << " block " << b;
        for (int v = 0; v < kQ8BlockValues; ++v)
          ASSERT_EQ(at[kQ8x4ScaleBytes + 16 * (v / 4) + 4 * (r % 4) + v % 4], r < n ? block[2 + v] ^ 0x80 : 0x80)
              << "row " << r << " block " << b << " value " << v << ", n " << n << " cols " << cols;
      }
    std::vector<std::uint8_t> back(rows.size(), 0);
    deinterleave_q8_0(interleaved.data(), cols, 0, n, back.data());
    EXPECT_TRUE(back == rows) << "n " << n << " cols " << cols;
    if (n >= 5) {  // a range starting inside a group, ending in another
      std::vector<std::uint8_t> part(3 * row_size, 0);
      deinterleave_q8_0(interleaved.data(), cols, 2, 3, part.data());
      EXPECT_EQ(0, std::memcmp(part.data(), rows.data() + 2 * row_size, part.size())) << "n " << n << " cols " << cols;
    }
  }
}

// gemv_q8_0x4 (kernels::q8_0x4_gemv(): the plain dot in wasm SIMD, its relaxed twin with the
// unsigned dot for Int8 where int8_dot() is Unsigned) on W interleaved by 4 gives the bits of the
// row-major integer GEMV (gemm_f32_q8_0w_gemv_wasm*) on W, activations Int8 and Int16 (their
// preferred layout is Interleaved4 where the kernel exists): every M (rows of A one at a time),
// N (the last group's padding rows never written), K (whole runs of four blocks and the last
// blocks' per-lane epilogue, a partial last block), with and without bias, ldc > N and lda > K
// (C's gaps untouched), W told finite or not; W random with blocks of q = -128 and 127 and x's
// blocks at +-127 or +-32767 (the dots' extremes), and a W with infinite and NaN scales (in a run of
// four blocks and in the last blocks). Each entry point with every dot this runtime computes right.
TEST(LowBitGemm, Q8_0x4GemvGivesTheRowMajorIntegerGemvsBits) {
  const kernels::LowBitGemmFn chosen = kernels::q8_0x4_gemv();
  EXPECT_EQ(kernels::preferred_q8_layout(Q8Activations::F32), Q8Layout::RowMajor);
#ifndef __wasm_simd128__
  EXPECT_EQ(chosen, nullptr);
  EXPECT_EQ(kernels::preferred_q8_layout(Q8Activations::Int16), Q8Layout::RowMajor);
  EXPECT_EQ(kernels::preferred_q8_layout(Q8Activations::Int8), Q8Layout::RowMajor);
  GTEST_SKIP() << "no wasm SIMD here, so no q8_0x4 kernel (q8_0x4_gemv() is null, no weight is interleaved); "
                  "the wasm SIMD suites (Node, and the relaxed one) run this test";
#else
  ASSERT_NE(chosen, nullptr);
  EXPECT_EQ(chosen,
            kernels::relaxed_simd_available() ? &kernels::gemv_q8_0x4_wasmrelaxed : &kernels::gemv_q8_0x4_wasmsimd);
  EXPECT_EQ(kernels::preferred_q8_layout(Q8Activations::Int16), Q8Layout::Interleaved4);
  EXPECT_EQ(kernels::preferred_q8_layout(Q8Activations::Int8), Q8Layout::Interleaved4);
  std::vector<std::pair<std::string, kernels::LowBitGemmFn>> kernels_here = {
      {"gemv_q8_0x4_wasmsimd", &kernels::gemv_q8_0x4_wasmsimd}};
  if (kernels::relaxed_simd_available())
    kernels_here.push_back({"gemv_q8_0x4_wasmrelaxed", &kernels::gemv_q8_0x4_wasmrelaxed});
  const std::string reference_name =
      kernels::relaxed_simd_available() ? "gemm_f32_q8_0w_gemv_wasmrelaxed" : "gemm_f32_q8_0w_gemv_wasmsimd";
  kernels::LowBitGemmFn reference = nullptr;
  for (const auto& variant : kernels::low_bit_gemm_variants(Storage::Q8_0))
    if (variant.name.rfind(reference_name, 0) == 0) reference = variant.fn;
  ASSERT_NE(reference, nullptr) << reference_name;
  const kernels::Int8Dot best = kernels::int8_dot();
  const float sentinel = float_from_bits(0x7fc0beefu);
  int compared = 0, compared_int16 = 0;
  for (const int k : {31, 32, 96, 160, 200}) {
    const int blocks = kernels::q8_blocks(k);
    const std::size_t row_size = row_bytes(Storage::Q8_0, k);
    for (const int n : {1, 3, 4, 7, 13, 67}) {
      // W: random rows quantized; row r's block (r % blocks) holds q = -128 and 127 alternately
      std::vector<std::uint8_t> w(static_cast<std::size_t>(n) * row_size);
      const std::vector<float> values = random_vector(static_cast<std::size_t>(n) * k, 300 + 7 * n + k, 0.5f);
      for (int r = 0; r < n; ++r) {
        std::uint8_t* row = w.data() + r * row_size;
        store_row(Storage::Q8_0, values.data() + static_cast<std::size_t>(r) * k, k, row);
        const int b = r % blocks;
        for (int v = 0; v < kQ8BlockValues && b * kQ8BlockValues + v < k; ++v)
          if ((v + r) % 3 == 0) row[b * kQ8BlockBytes + 2 + v] = (v / 3) % 2 ? 0x7f : 0x80;
      }
      // and a copy with an infinite and a NaN scale (so w_finite false only)
      std::vector<std::uint8_t> w_odd = w;
      const std::uint16_t odd[] = {0x7c00, 0xfc00, 0x7e01, 0x7d55};
      for (int r = 0; r < n; r += 2) {
        const int b = (r / 2) % blocks;
        const std::uint16_t h = odd[(r / 2) % 4];
        w_odd[r * row_size + b * kQ8BlockBytes] = static_cast<std::uint8_t>(h & 0xff);
        w_odd[r * row_size + b * kQ8BlockBytes + 1] = static_cast<std::uint8_t>(h >> 8);
      }
      for (const auto* weight : {&w, &w_odd}) {
        const int groups = (n + kQ8x4Rows - 1) / kQ8x4Rows;
        std::vector<std::uint8_t> interleaved(groups * q8x4_group_bytes(k));
        interleave_q8_0(weight->data(), n, k, interleaved.data());
        for (const int m : {1, 2, 3, 5}) {
          const int lda = m == 1 ? k : k + 3, ldc = n + 5;
          std::vector<float> a = random_vector(static_cast<std::size_t>(m) * lda, 400 + m + k);
          // x's block 0 of row 0 at +-max (q_x = +-127 or +-32767), row m - 1's last block's largest
          // value negative
          for (int p = 0; p < std::min(k, 32); ++p) a[p] = p % 3 ? 1.5f : -1.5f;
          a[static_cast<std::size_t>(m - 1) * lda + k - 1] = -3.0f;
          const std::vector<float> bias = random_vector(static_cast<std::size_t>(n), 600 + n);
          for (const Q8Activations mode : {Q8Activations::Int8, Q8Activations::Int16})
            for (const bool with_bias : {false, true})
              for (const bool finite : {true, false}) {
                if (weight == &w_odd && finite) continue;
                kernels::LowBitGemmArgs args;
                args.m = m;
                args.n = n;
                args.k = k;
                args.a = a.data();
                args.lda = lda;
                args.bias = with_bias ? bias.data() : nullptr;
                args.ldc = ldc;
                args.w_finite = finite;
                args.activations = mode;
                std::vector<float> want(static_cast<std::size_t>(m) * ldc + 4, sentinel);
                kernels::LowBitGemmArgs row_major = args;
                row_major.w = weight->data();
                row_major.w_row_bytes = row_size;
                row_major.c = want.data();
                reference(row_major);
                for (const auto& [name, fn] : kernels_here)
                  for (kernels::Int8Dot dot :
                       {kernels::Int8Dot::Plain, kernels::Int8Dot::Split, kernels::Int8Dot::Unsigned}) {
                    if (kernels::limit_int8_dot(dot) != dot) continue;  // not computed right here
                    if (mode == Q8Activations::Int16 && dot != kernels::Int8Dot::Plain) continue;  // int16: one dot
                    std::vector<float> got(want.size(), sentinel);
                    kernels::LowBitGemmArgs x4 = args;
                    x4.w = interleaved.data();
                    x4.w_row_bytes = q8x4_row_bytes(k);
                    x4.w_layout = Q8Layout::Interleaved4;
                    x4.c = got.data();
                    fn(x4);
                    ++compared;
                    compared_int16 += mode == Q8Activations::Int16;
                    for (std::size_t i = 0; i < got.size(); ++i) {
                      const bool in_c = i < static_cast<std::size_t>(m) * ldc && static_cast<int>(i % ldc) < n;
                      if (!in_c) ASSERT_EQ(bits_of(got[i]), bits_of(sentinel)) << name << " wrote C's gap at " << i;
                      ASSERT_EQ(bits_of(got[i]), bits_of(want[i]))
                          << name << (mode == Q8Activations::Int16 ? " int16" : " int8") << " with the "
                          << kernels::int8_dot_name(dot) << " dot: C[" << i / ldc << "][" << i % ldc << "] " << got[i]
                          << ", row-major " << want[i] << "; m " << m << " n " << n << " k " << k
                          << (with_bias ? " bias" : "") << (finite ? " w_finite" : "")
                          << (weight == &w_odd ? " (inf/NaN scales)" : "");
                    }
                  }
                kernels::limit_int8_dot(kernels::Int8Dot::Unsigned);
              }
        }
      }
    }
  }
  EXPECT_EQ(kernels::int8_dot(), best);
  EXPECT_GT(compared_int16, 0);
  EXPECT_GT(compared - compared_int16, 0);
  std::printf(
      "[ NOTE     ] q8_0x4 compared %d products bit for bit with the row-major integer GEMV (%d int16), int8 "
      "dots up to '%s'%s\n",
      compared, compared_int16, kernels::int8_dot_name(best),
      best == kernels::Int8Dot::Unsigned ? "" : " (the unsigned dot did not run: tests/e2e/int8-dot.test.mjs)");
#endif
}

TEST(LowBitGemm, RegistryNamesWhatIsBuilt) {
  EXPECT_EQ(kernels::low_bit_gemm_variants(Storage::BF16).front().name, "gemm_f32_bf16w_scalar");
  EXPECT_EQ(kernels::low_bit_gemm_variants(Storage::F16).front().name, "gemm_f32_f16w_scalar");
  EXPECT_EQ(kernels::low_bit_gemm_variants(Storage::Q8_0).front().name, "gemm_f32_q8_0w_scalar");
#ifdef __wasm_simd128__
  // The relaxed twin (scripts/run-relaxed.cjs) lists the GEMV with madd last.
  const char* suffix = kernels::relaxed_simd_available() ? "relaxed" : "simd";
  EXPECT_EQ(kernels::fastest_low_bit_gemm(Storage::BF16).name, std::string("gemm_f32_bf16w_wasm") + suffix);
  EXPECT_EQ(kernels::fastest_low_bit_gemm(Storage::Q8_0).name, std::string("gemm_f32_q8_0w_wasm") + suffix);
#else
  EXPECT_EQ(kernels::fastest_low_bit_gemm(Storage::BF16).name, "gemm_f32_bf16w_eigen");
#endif
}

TEST(LowBitParameter, HoldsItsBytesAndRefusesWrites) {
  Parameter p("layers.0.linear1.weight", {3, 40}, random_vector(120, 5));
  const std::vector<float> original = p.values();
  EXPECT_TRUE(p.writable());
  p.set_storage(Storage::BF16);
  EXPECT_EQ(p.bytes(), 240u);
  EXPECT_EQ(p.size(), 120u);
  EXPECT_TRUE(p.low_bit());
  const Status w = p.writable();
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error_value().code, error_code::kReadOnly);
  EXPECT_EQ(w.error_value().field, "layers.0.linear1.weight");
  const std::vector<float> rounded = p.widened();
  for (std::size_t i = 0; i < original.size(); ++i) {
    EXPECT_EQ(rounded[i], widen_bf16(round_to_bf16(original[i])));
    EXPECT_EQ(p.widened_value(i), rounded[i]);
  }
  EXPECT_TRUE(p.all_finite());
  EXPECT_EQ(p.packed_rows(0, 3, 40), nullptr);  // never packed: read in place
  // the rows start on a page (page_aligned.hpp: a decode step streams them)
  const auto page_offset = [&] { return reinterpret_cast<std::uintptr_t>(p.row_bits(0)) % 4096; };
  EXPECT_EQ(page_offset(), 0u);
  p.set_storage(Storage::Q8_0);  // from BF16: quantizes the rounded values
  EXPECT_EQ(p.bytes(), 3u * 2 * 34);
  EXPECT_EQ(page_offset(), 0u);
  p.set_storage(Storage::F32);  // widens exactly
  EXPECT_TRUE(p.writable());
  EXPECT_EQ(p.size(), 120u);
  EXPECT_EQ(p.bytes(), 480u);
  Parameter bias("b", {4}, random_vector(4, 6));
  bias.set_storage(Storage::BF16);  // vectors stay F32
  EXPECT_EQ(bias.storage(), Storage::F32);
}

#if GTEST_HAS_DEATH_TEST  // natively (a wasm build has no fork)
TEST(LowBitParameterDeathTest, FloatReadsOfALowBitWeightAbortNamingIt) {
  Parameter p("embed.weight", {2, 4}, random_vector(8, 7));
  p.set_storage(Storage::F16);
  EXPECT_DEATH((void)p.data(), "embed.weight.*f16");
}
#endif

// --- checkpoints ---

const std::string kDir = std::string(ATTENTION_FIXTURE_DIR) + "/pretrained/";

Result<Transformer> load(const std::string& dir, pretrained::WeightsMode mode) {
  return pretrained::load_fixture(kDir + dir, {mode});
}

// Values of every matrix weight (2-D parameters but the positions).
std::size_t matrix_values(const Transformer& model) {
  std::size_t n = 0;
  model.visit_parameters([&](const Parameter& p) {
    if (p.shape().size() == 2 && p.name() != "pos.weight") n += p.size();
  });
  return n;
}

// The logits of a fixed input, widest first.
std::vector<float> logits_of(const Transformer& model, Backend backend = Backend::Fast) {
  ForwardInput in;
  in.batch = 1;
  in.seq = 6;
  in.ids = {5, 17, 3, 200, 9, 42};
  ForwardOptions options;
  options.backend = backend;
  Result<ForwardOutput> out = model.forward(in, options);
  EXPECT_TRUE(out) << out.error();
  return out ? out.value().logits.data : std::vector<float>{};
}

TEST(LowBitCheckpoints, AutoKeepsBf16AndF16WeightsInTwoBytesAndGivesTheF32Results) {
  for (const auto& [dir, storage] :
       {std::pair{"gpt2-tiny-bf16", Storage::BF16}, std::pair{"gpt2-tiny-f16", Storage::F16}}) {
    SCOPED_TRACE(dir);
    Result<Transformer> wide = load(dir, pretrained::WeightsMode::F32);
    Result<Transformer> narrow = load(dir, pretrained::WeightsMode::Auto);
    ASSERT_TRUE(wide) << wide.error();
    ASSERT_TRUE(narrow) << narrow.error();
    const std::size_t matrices = matrix_values(narrow.value());
    const Transformer::WeightBytes bytes = narrow.value().weight_bytes();
    EXPECT_EQ(storage == Storage::BF16 ? bytes.bf16 : bytes.f16, 2 * matrices);
    EXPECT_EQ(bytes.total() - 2 * matrices, wide.value().weight_bytes().total() - 4 * matrices);  // the rest: F32
    EXPECT_EQ(wide.value().weight_bytes().bf16 + wide.value().weight_bytes().f16, 0u);
    // The same values, widened exactly: both engines compute the same function.
    wide.value().visit_parameters([&](const Parameter& p) {
      const Parameter* q = narrow.value().find_parameter(p.name());
      ASSERT_NE(q, nullptr);
      EXPECT_EQ(q->widened(), p.values()) << p.name();
    });
    for (Backend backend : {Backend::Fast, Backend::Reference}) {
      const std::vector<float> want = logits_of(wide.value(), backend);
      EXPECT_TRUE(all_close(logits_of(narrow.value(), backend), want, 1e-4));
    }
  }
}

// The largest |got - want| and the largest |want| (the logits' scale), in double.
std::pair<double, double> largest_difference(const std::vector<float>& got, const std::vector<float>& want) {
  double max_diff = 0, max_abs = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    max_diff = std::max(max_diff, std::fabs(double(got[i]) - want[i]));
    max_abs = std::max(max_abs, std::fabs(double(want[i])));
  }
  return {max_diff, max_abs};
}

TEST(LowBitCheckpoints, Q8_0HoldsAnEighthPlusTheScalesAndStaysClose) {
  Result<Transformer> wide = load("gpt2-tiny-bf16", pretrained::WeightsMode::F32);
  Result<Transformer> q8 = load("gpt2-tiny-bf16", pretrained::WeightsMode::Q8_0);
  ASSERT_TRUE(wide && q8);
  // d_model 24: each row of 24 values is one (padded) block of 34 bytes, each of 96 (c_proj) three.
  std::size_t expected = 0;
  q8.value().visit_parameters([&](const Parameter& p) {
    if (p.storage() == Storage::Q8_0) {
      expected += static_cast<std::size_t>(p.rows()) * ((p.cols() + 31) / 32) * 34;
      // Every row equals the quantized F32 row.
      const Parameter* f = wide.value().find_parameter(p.name());
      std::vector<std::uint8_t> bits(p.row_bytes());
      for (int r = 0; r < p.rows(); ++r) {
        store_row(Storage::Q8_0, f->data() + static_cast<std::size_t>(r) * p.cols(), p.cols(), bits.data());
        ASSERT_TRUE(std::equal(bits.begin(), bits.end(), p.row_bits(r))) << p.name() << " row " << r;
      }
    }
  });
  EXPECT_EQ(q8.value().weight_bytes().q8_0, expected);
  EXPECT_GT(expected, 0u);
  // 8 bits: close to the float model, not equal (the measured deviation: docs/pretrained.md).
  const std::vector<float> want = logits_of(wide.value());
  const std::vector<float> got = logits_of(q8.value());
  ASSERT_EQ(got.size(), want.size());
  const auto [max_diff, max_abs] = largest_difference(got, want);
  EXPECT_GT(max_diff, 0.0);
  EXPECT_LT(max_diff, 0.05 * max_abs);
}

// q8Activations 'int16' and 'int8': every Q8_0 matrix of the model rounds its activations per
// block; the logits stay within a stated share of the max logit of q8_0's exact path, and not
// equal to them (the option is on). Measured on this tiny GPT-2 (d_model 24, docs/pretrained.md):
// int16 7.4e-5, int8 2.6e-2 (int8's step is 258 times int16's).
void expect_rounded_activations_stay_close(Q8Activations mode, double tolerance) {
  Result<Transformer> exact = load("gpt2-tiny-bf16", pretrained::WeightsMode::Q8_0);
  ASSERT_TRUE(exact);
  Result<Transformer> rounded =
      pretrained::load_fixture(kDir + "gpt2-tiny-bf16", {pretrained::WeightsMode::Q8_0, mode});
  ASSERT_TRUE(rounded) << rounded.error();
  int flagged = 0;
  rounded.value().visit_parameters([&](const Parameter& p) {
    EXPECT_EQ(p.q8_activations(), p.storage() == Storage::Q8_0 ? mode : Q8Activations::F32) << p.name();
    flagged += p.q8_activations() == mode;
  });
  EXPECT_GT(flagged, 0);
  for (Backend backend : {Backend::Fast, Backend::Reference}) {
    const std::vector<float> want = logits_of(exact.value(), backend);
    const std::vector<float> got = logits_of(rounded.value(), backend);
    ASSERT_EQ(got.size(), want.size());
    const auto [max_diff, max_abs] = largest_difference(got, want);
    EXPECT_GT(max_diff, 0.0);
    EXPECT_LT(max_diff, tolerance * max_abs) << "measured " << max_diff / max_abs;
    std::printf("%s activations, %s: max |logit - q8_0's| = %.3g of the max logit %.3g\n", pretrained::to_string(mode),
                backend == Backend::Fast ? "fast" : "reference", max_diff / max_abs, max_abs);
  }
}
TEST(LowBitCheckpoints, Int16ActivationsStayWithinATenThousandthOfQ8_0) {
  expect_rounded_activations_stay_close(Q8Activations::Int16, 2e-4);
}
TEST(LowBitCheckpoints, Int8ActivationsStayWithinAFewHundredthsOfQ8_0) {
  expect_rounded_activations_stay_close(Q8Activations::Int8, 5e-2);
}

// A load option's parser: each good name reads back as itself (to_string), and a bad one is an
// invalid_argument naming the field and the value. Returns the bad one's message.
template <typename Parse>
std::string expect_names_and_refusal(Parse parse, std::initializer_list<const char*> good, const char* bad,
                                     const char* field) {
  for (const char* name : good) {
    auto mode = parse(name);
    EXPECT_TRUE(mode) << name;
    if (mode) EXPECT_EQ(std::string(pretrained::to_string(mode.value())), name);
  }
  auto refused = parse(bad);
  EXPECT_FALSE(refused) << bad;
  if (refused) return "";
  EXPECT_EQ(refused.error_value().code, error_code::kInvalidArgument);
  EXPECT_EQ(refused.error_value().field, field);
  EXPECT_NE(refused.error().find(std::string("'") + bad + "'"), std::string::npos) << refused.error();
  return refused.error();
}

// The option's values and its rule: 'int16' and 'int8' only with weights 'q8_0'.
TEST(LowBitCheckpoints, RoundedActivationsNeedQ8_0AndAKnownName) {
  const std::string message =
      expect_names_and_refusal(pretrained::parse_q8_activations, {"f32", "int16", "int8"}, "int4", "q8Activations");
  EXPECT_EQ(message, "q8Activations must be 'f32', 'int16' or 'int8', not 'int4'");
  Result<pretrained::HubConfig> config = pretrained::read_config(read_text(kDir + "gpt2-tiny-bf16/config.json"));
  ASSERT_TRUE(config);
  for (pretrained::WeightsMode weights : {pretrained::WeightsMode::F32, pretrained::WeightsMode::Auto})
    for (Q8Activations mode : {Q8Activations::Int16, Q8Activations::Int8}) {
      Result<pretrained::CheckpointLoader> loader =
          pretrained::CheckpointLoader::create(config.value(), {weights, mode});
      ASSERT_FALSE(loader);
      EXPECT_EQ(loader.error_value().code, error_code::kInvalidArgument);
      EXPECT_EQ(loader.error_value().field, "q8Activations");
      EXPECT_NE(loader.error().find(pretrained::to_string(weights)), std::string::npos) << loader.error();
    }
}

TEST(LowBitCheckpoints, AReadOnlyModelRefusesTrainingAndLoadingButSavesWidened) {
  Result<Transformer> narrow = load("gpt2-tiny-bf16", pretrained::WeightsMode::Auto);
  ASSERT_TRUE(narrow);
  auto model = std::make_shared<Transformer>(std::move(narrow).value());
  Result<std::unique_ptr<Trainer>> trainer = Trainer::create(model, OptimizerOptions{}, TrainerSettings{}, nullptr);
  ASSERT_FALSE(trainer);
  EXPECT_EQ(trainer.error_value().code, error_code::kReadOnly);
  EXPECT_EQ(trainer.error_value().field, "embed.weight");
  const std::vector<std::uint8_t> saved = save_safetensors(*model);
  Status loaded = load_safetensors(*model, saved.data(), saved.size());
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error_value().code, error_code::kReadOnly);
  // The saved file is the widened model: an F32 model loads it and computes the same logits.
  Result<Transformer> f32 = load("gpt2-tiny-bf16", pretrained::WeightsMode::F32);
  ASSERT_TRUE(f32);
  Result<Transformer> copy = Transformer::create(model->spec());
  ASSERT_TRUE(copy);
  ASSERT_TRUE(load_safetensors(copy.value(), saved.data(), saved.size()));
  EXPECT_EQ(logits_of(copy.value()), logits_of(f32.value()));
}

// The modern families' 16-bit fixtures (tests/reference/fixtures/hub, written by PyTorch
// from the rounded weights): held in 16 bits they match the reference to 1e-4 like the
// float32 engine, in 2 bytes a matrix value; in Q8_0, 34 bytes per block of 32.
TEST(LowBitCheckpoints, ModernFamiliesIn16BitsMatchTheirReferenceIn2BytesAValue) {
  const std::string hub = std::string(ATTENTION_FIXTURE_DIR) + "/hub/";
  for (const char* dir : {"qwen3-tiny-bf16", "smollm2-tiny-bf16", "llama-linear-bias-f16", "gemma3-mm-tiny-bf16"}) {
    SCOPED_TRACE(dir);
    Result<pretrained::HubConfig> config = pretrained::read_config(read_text(hub + dir + "/config.json"));
    ASSERT_TRUE(config) << config.error();
    const std::string text = read_text(hub + dir + "/model.safetensors");
    const std::vector<std::uint8_t> bytes(text.begin(), text.end());
    for (pretrained::WeightsMode mode :
         {pretrained::WeightsMode::Auto, pretrained::WeightsMode::F32, pretrained::WeightsMode::Q8_0}) {
      Result<pretrained::CheckpointLoader> loader = pretrained::CheckpointLoader::create(config.value(), {mode});
      ASSERT_TRUE(loader);
      ASSERT_TRUE(loader.value().add_file(bytes.data(), bytes.size(), "model.safetensors"));
      Result<Transformer> model = loader.value().finish();
      ASSERT_TRUE(model) << model.error();
      std::size_t matrices = 0, q8_bytes = 0;
      model.value().visit_parameters([&](const Parameter& p) {
        if (p.low_bit()) matrices += p.size();
        if (p.storage() == Storage::Q8_0) q8_bytes += static_cast<std::size_t>(p.rows()) * ((p.cols() + 31) / 32) * 34;
      });
      const Transformer::WeightBytes held = model.value().weight_bytes();
      if (mode == pretrained::WeightsMode::Auto) {
        EXPECT_GT(matrices, 0u);
        EXPECT_EQ(held.bf16 + held.f16, 2 * matrices);
        pretrained::check_against_expected(model.value(), hub + dir + "/expected.json", dir);
      } else if (mode == pretrained::WeightsMode::F32) {
        EXPECT_EQ(held.total(), held.f32);
        pretrained::check_against_expected(model.value(), hub + dir + "/expected.json", dir);
      } else {
        EXPECT_EQ(held.q8_0, q8_bytes);
        EXPECT_GT(q8_bytes, 0u);
      }
    }
  }
}

// The parameter limit counts bytes as held: Qwen3-0.6B's shape fits in BF16 (not in F32),
// Llama 3.2 1B's in Q8_0 (not in 16 bits).
TEST(LowBitCheckpoints, TheParameterLimitCountsTheStorageTheMatricesTake) {
  ModelSpec qwen3;  // Qwen3-0.6B's config.json
  qwen3.vocab_size = 151936;
  qwen3.d_model = 1024;
  qwen3.layers = 28;
  qwen3.heads = 16;
  qwen3.kv_heads = 8;
  qwen3.head_dim_setting = 128;
  qwen3.ffn_dim = 3072;
  qwen3.ffn = FfnKind::Gated;
  qwen3.norm_type = NormType::RmsNorm;
  qwen3.norm = NormPlacement::Pre;
  qwen3.final_norm = true;
  qwen3.positions = Positions::Rope;
  qwen3.causal = true;
  qwen3.activation = Activation::SiLU;
  qwen3.qk_norm = true;
  qwen3.qkv_bias = qwen3.out_bias = qwen3.mlp_bias = qwen3.head_bias = false;
  qwen3.head = OutputHead::Tied;
  qwen3.max_seq = 512;
  ModelSpec llama = qwen3;  // Llama 3.2 1B's
  llama.vocab_size = 128256;
  llama.d_model = 2048;
  llama.layers = 16;
  llama.heads = 32;
  llama.kv_heads = 8;
  llama.head_dim_setting = 64;
  llama.ffn_dim = 8192;
  llama.qk_norm = false;
  ASSERT_TRUE(validate(qwen3)) << validate(qwen3).error();
  ASSERT_TRUE(validate(llama)) << validate(llama).error();
  EXPECT_NEAR(parameter_floats(qwen3), 596e6, 1e6);  // as the hub's model card counts them
  EXPECT_NEAR(parameter_floats(llama), 1236e6, 1e6);
  EXPECT_EQ(check_parameter_bytes(qwen3, Storage::F32).error_value().code, error_code::kLimitExceeded);
  EXPECT_TRUE(check_parameter_bytes(qwen3, Storage::BF16));
  EXPECT_EQ(check_parameter_bytes(llama, Storage::BF16).error_value().code, error_code::kLimitExceeded);
  EXPECT_TRUE(check_parameter_bytes(llama, Storage::Q8_0));
}

TEST(LowBitCheckpoints, AnUnknownWeightsModeNamesTheFieldAndValue) {
  const std::string message =
      expect_names_and_refusal(pretrained::parse_weights_mode, {"f32", "auto", "bf16", "q8_0"}, "int4", "weights");
  EXPECT_NE(message.find("'f32', 'auto', 'bf16' or 'q8_0'"), std::string::npos) << message;
}

// Weights 'bf16': every matrix BF16, each value the file's rounded to nearest-even (F32 and
// F16 files; the rounding is checked against PyTorch's bits above), a BF16 file as stored;
// the rest F32; the logits close to the float model's (the measured deviation: docs/pretrained.md).
TEST(LowBitCheckpoints, Bf16RoundsEveryMatrixToNearestEvenOnLoad) {
  for (const char* dir : {"gpt2-tiny", "gpt2-tiny-f16", "gpt2-tiny-bf16", "gpt2-tiny-untied", "gpt2-tiny-lmhead"}) {
    SCOPED_TRACE(dir);
    Result<Transformer> wide = load(dir, pretrained::WeightsMode::F32);
    Result<Transformer> held = load(dir, pretrained::WeightsMode::BF16);
    ASSERT_TRUE(wide) << wide.error();
    ASSERT_TRUE(held) << held.error();
    const std::size_t matrices = matrix_values(held.value());
    const Transformer::WeightBytes bytes = held.value().weight_bytes();
    EXPECT_EQ(bytes.bf16, 2 * matrices);
    EXPECT_EQ(bytes.f16 + bytes.q8_0, 0u);
    EXPECT_EQ(bytes.f32, wide.value().weight_bytes().total() - 4 * matrices);
    std::size_t rounded = 0;
    wide.value().visit_parameters([&](const Parameter& p) {
      const Parameter* q = held.value().find_parameter(p.name());
      ASSERT_NE(q, nullptr);
      const std::vector<float> got = q->widened();
      if (q->storage() != Storage::BF16) {
        EXPECT_EQ(got, p.values()) << p.name();
        return;
      }
      for (std::size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i], widen_bf16(round_to_bf16(p.values()[i]))) << p.name() << " " << i;
        rounded += got[i] != p.values()[i];
      }
    });
    if (std::string(dir) == "gpt2-tiny-bf16")
      EXPECT_EQ(rounded, 0u);
    else
      EXPECT_GT(rounded, matrices / 2);
    // Close to the float model (as Q8_0's check above): the largest logit difference against the largest logit.
    const std::vector<float> want = logits_of(wide.value()), got = logits_of(held.value());
    ASSERT_EQ(got.size(), want.size());
    const auto [max_diff, max_abs] = largest_difference(got, want);
    EXPECT_LT(max_diff, 0.05 * max_abs);
  }
}

}  // namespace
}  // namespace attention

// --- the 8-bit option's deviation, measured on trained models ---

namespace attention {
namespace {

struct Deviation {
  int positions = 0;
  double top1_agreement = 0, mean_kl = 0, max_kl = 0;
};

// The shipped checkpoints (web/public/checkpoints, trained by scripts/train-checkpoints.mjs)
// on their task's held-out examples: at every scored position, the next-token distribution
// of the model with its matrices held in `storage` against the float32 model's:
// KL(p_f32 || p_low) in nats, and whether the two argmaxes agree.
Deviation deviation_of(const std::string& id, Storage storage) {
  const std::string dir = std::string(ATTENTION_FIXTURE_DIR) + "/../../../web/public/checkpoints/";
  const std::string text = read_text(dir + id + ".safetensors");
  const std::vector<std::uint8_t> bytes(text.begin(), text.end());
  Result<safetensors::Index> index = safetensors::read_index(bytes.data(), bytes.size());
  EXPECT_TRUE(index);
  Result<ModelSpec> spec = from_json(model_spec_schema(), Json::parse(index.value().metadata.at("spec")));
  EXPECT_TRUE(spec) << spec.error();
  Result<Transformer> wide = Transformer::create(spec.value());
  EXPECT_TRUE(wide);
  EXPECT_TRUE(load_safetensors(wide.value(), bytes.data(), bytes.size()));
  Transformer narrow = wide.value();
  narrow.visit_parameters([&](Parameter& p) {
    if (p.shape().size() == 2 && p.name() != "pos.weight") p.set_storage(storage);
  });
  const json index_json = json::parse(read_text(dir + "index.json"));
  std::string settings;
  for (const json& c : index_json["checkpoints"])
    if (c["id"] == id) settings = c["settings"];
  TaskOptions options;
  const std::size_t at = settings.find("task=");
  if (at != std::string::npos) options.name = settings.substr(at + 5, settings.find('&', at) - at - 5);
  Result<std::unique_ptr<Task>> task = make_task(options);
  EXPECT_TRUE(task) << task.error();
  Deviation d;
  const int vocab = spec.value().vocab_size;
  for (const Example& example : task.value()->evaluation_set(27, 60)) {
    ForwardInput in;
    in.batch = 1;
    in.seq = static_cast<int>(example.ids.size());
    in.ids = example.ids;
    Result<ForwardOutput> p = wide.value().forward(in), q = narrow.forward(in);
    EXPECT_TRUE(p && q);
    for (int s = 0; s < in.seq; ++s) {
      if (example.targets[static_cast<std::size_t>(s)] < 0) continue;
      const float* lp = p.value().logits.ptr() + static_cast<std::size_t>(s) * vocab;
      const float* lq = q.value().logits.ptr() + static_cast<std::size_t>(s) * vocab;
      const auto log_softmax = [&](const float* l) {
        double max = l[0], sum = 0;
        for (int v = 0; v < vocab; ++v) max = std::max(max, double(l[v]));
        for (int v = 0; v < vocab; ++v) sum += std::exp(l[v] - max);
        std::vector<double> out(static_cast<std::size_t>(vocab));
        for (int v = 0; v < vocab; ++v) out[static_cast<std::size_t>(v)] = l[v] - max - std::log(sum);
        return out;
      };
      const std::vector<double> a = log_softmax(lp), b = log_softmax(lq);
      double kl = 0;
      for (int v = 0; v < vocab; ++v)
        kl += std::exp(a[static_cast<std::size_t>(v)]) *
              (a[static_cast<std::size_t>(v)] - b[static_cast<std::size_t>(v)]);
      d.mean_kl += kl;
      d.max_kl = std::max(d.max_kl, kl);
      d.top1_agreement += (std::max_element(lp, lp + vocab) - lp) == (std::max_element(lq, lq + vocab) - lq);
      ++d.positions;
    }
  }
  d.mean_kl /= d.positions;
  d.top1_agreement /= d.positions;
  return d;
}

TEST(LowBitDeviation, EightBitWeightsOfTrainedModelsPredictAsTheFloatOnes) {
  // The numbers docs/pretrained.md quotes ("Weights in memory"); printed for it.
  for (const char* id : {"sort", "reverse", "induction"})
    for (Storage storage : {Storage::BF16, Storage::Q8_0}) {
      const Deviation d = deviation_of(id, storage);
      std::printf("deviation %s %s: %d positions, top-1 agreement %.4f, KL mean %.3g max %.3g nats\n", id,
                  to_string(storage), d.positions, d.top1_agreement, d.mean_kl, d.max_kl);
      EXPECT_GT(d.positions, 200);
      EXPECT_GE(d.top1_agreement, 0.99) << id << " " << to_string(storage);
      EXPECT_LT(d.mean_kl, 1e-3) << id << " " << to_string(storage);
      EXPECT_GT(d.mean_kl, 0.0);  // measured, not identical
    }
}

}  // namespace
}  // namespace attention
