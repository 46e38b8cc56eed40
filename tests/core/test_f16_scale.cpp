// F16 matrices held Scaled (storage.hpp's F16Scale: the halves of w 2^kF16HeldExponent, so no
// F16 widening multiplies a float32 denormal): every half goes there and back exactly, and a
// Parameter held so gives the values, the products (every variant, both backends) and a loaded
// checkpoint's logits of its copy held as is, bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "attention/linear.hpp"
#include "attention/param.hpp"
#include "hub_fixture.hpp"
#include "kernels/kernels.hpp"
#include "test_util.hpp"

namespace attention {
namespace {

using attention::testing::random_vector;

// Equal bits, or both NaN (a NaN's sign and payload may differ between orders of operations).
bool same_bits(float a, float b) { return (std::isnan(a) && std::isnan(b)) || bits_of(a) == bits_of(b); }
::testing::AssertionResult same_bits(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() != want.size()) return ::testing::AssertionFailure() << "sizes " << got.size() << ", " << want.size();
  for (std::size_t i = 0; i < got.size(); ++i)
    if (!same_bits(got[i], want[i]))
      return ::testing::AssertionFailure() << "element " << i << ": " << got[i] << " (0x" << std::hex << bits_of(got[i])
                                           << "), want " << want[i] << " (0x" << bits_of(want[i]) << ")";
  return ::testing::AssertionSuccess();
}

TEST(LowBitF16Scale, EveryHalfGoesToTheScaledFormAndBackExactly) {
  int scaled_count = 0, subnormals = 0;
  for (unsigned h = 0; h < 65536; ++h) {
    SCOPED_TRACE("half 0x" + std::to_string(h));
    const std::uint8_t bytes[2] = {static_cast<std::uint8_t>(h & 0xff), static_cast<std::uint8_t>(h >> 8)};
    const float w = widen_f16(static_cast<std::uint16_t>(h));
    const bool finite = std::isfinite(w);
    ASSERT_EQ(f16_scalable(bytes, 1), !finite || std::fabs(w) < 64.0f);
    std::uint8_t there[2] = {bytes[0], bytes[1]};
    if (!f16_scalable(bytes, 1)) continue;
    scale_f16_halves(there, 1, kF16HeldExponent);
    const std::uint16_t held = load_u16(there);
    if (!finite || w == 0.0f) {  // infinities, NaN and zeros keep their bits
      ASSERT_EQ(held, h);
    } else {
      ++scaled_count;
      subnormals += (h & 0x7c00u) == 0;
      // w 2^10 exactly, a normal half, whose bits moved to float32's places are no denormal.
      ASSERT_EQ(bits_of(widen_f16(held)), bits_of(w * 1024.0f));
      ASSERT_NE(held & 0x7c00u, 0u);
      ASSERT_NE(std::fpclassify(float_from_bits(std::uint32_t{held & 0x7fffu} << 13)), FP_SUBNORMAL);
    }
    // Widened with its held exponent: w, bit for bit (NaN's payload too).
    ASSERT_EQ(bits_of(widen_f16(held, kF16HeldExponent)), bits_of(w));
    ASSERT_EQ(bits_of(widen_value(Storage::F16, there, 0, kF16HeldExponent)), bits_of(w));
    scale_f16_halves(there, 1, -kF16HeldExponent);
    ASSERT_EQ(load_u16(there), h);
  }
  EXPECT_EQ(subnormals, 2 * 1023);
  EXPECT_EQ(scaled_count, 2 * (1023 + 20 * 1024));  // subnormals and exponents 1 .. 20, both signs
  // All of them in one call (blocks of halves, some holding subnormals, some not): each as alone.
  std::vector<std::uint8_t> all, alone;
  for (unsigned h = 0; h < 65536; ++h) {
    const std::uint8_t bytes[2] = {static_cast<std::uint8_t>(h & 0xff), static_cast<std::uint8_t>(h >> 8)};
    if (!f16_scalable(bytes, 1)) continue;
    all.insert(all.end(), bytes, bytes + 2);
    std::uint8_t there[2] = {bytes[0], bytes[1]};
    scale_f16_halves(there, 1, kF16HeldExponent);
    alone.insert(alone.end(), there, there + 2);
  }
  const std::vector<std::uint8_t> original = all;
  ASSERT_TRUE(f16_scalable(all.data(), all.size() / 2));
  scale_f16_halves(all.data(), all.size() / 2, kF16HeldExponent);
  EXPECT_EQ(all, alone);
  scale_f16_halves(all.data(), all.size() / 2, -kF16HeldExponent);
  EXPECT_EQ(all, original);
  all.push_back(0x00), all.push_back(0x54);  // 64
  EXPECT_FALSE(f16_scalable(all.data(), all.size() / 2));
}

// A (rows, cols) matrix as F16 with the halves the re-encoding treats apart: subnormals (the
// smallest, the largest), zeros of both signs, the smallest normal, +-63.96875 (the largest
// below 64), values near 1; `special`: an infinity and a NaN too (in a group of 32 and in the
// run of 8); `large`: one value of 64 or more, which keeps the matrix as is.
Parameter f16_matrix(int rows, int cols, std::uint64_t seed, bool special, bool large) {
  std::vector<float> w = random_vector(static_cast<std::size_t>(rows) * cols, seed);
  const float values[] = {0x1.0p-24f, -0x1.ff8p-15f, 0.0f,     -0.0f,      0x1.0p-14f, 63.96875f,
                          -63.96875f, 3.0e-7f,       -7.0e-6f, 0x1.8p-20f, 1.0f / 3,   -2.5e-3f};
  for (std::size_t i = 0; i < w.size(); i += 3) w[i] = values[(i / 3) % std::size(values)];
  if (special) {
    w[static_cast<std::size_t>(cols) + 40 % cols] = std::numeric_limits<float>::infinity();
    w[static_cast<std::size_t>(rows - 1) * cols + 100 % cols] = std::nanf("");
  }
  if (large) w[w.size() / 2] = -64.0f;
  Parameter p("w", {rows, cols}, w);
  p.set_storage(Storage::F16);
  EXPECT_EQ(p.f16_scale(), F16Scale::AsIs);
  return p;
}

Parameter scaled(const Parameter& as_is) {
  Parameter p = as_is;
  p.set_f16_scale(F16Scale::Scaled);
  return p;
}

TEST(LowBitF16Scale, AScaledParameterHoldsTheSameValuesAndGoesBackToTheSameBits) {
  for (bool special : {false, true}) {
    SCOPED_TRACE(special ? "with an infinity and a NaN" : "finite");
    const Parameter as_is = f16_matrix(9, 109, 3, special, false);
    Parameter p = scaled(as_is);
    ASSERT_EQ(p.f16_scale(), F16Scale::Scaled);
    ASSERT_EQ(p.bytes(), as_is.bytes());
    EXPECT_NE(std::memcmp(p.row_bits(0), as_is.row_bits(0), p.bytes()), 0);  // re-encoded
    EXPECT_NE(p.version(), as_is.version());
    EXPECT_EQ(p.all_finite(), !special);
    EXPECT_TRUE(same_bits(p.widened(), as_is.widened()));
    std::vector<float> some(static_cast<std::size_t>(3) * 109), want(some.size());
    p.widen_rows(5, 3, some.data());
    as_is.widen_rows(5, 3, want.data());
    EXPECT_TRUE(same_bits(some, want));
    for (std::size_t i = 0; i < p.size(); ++i)
      ASSERT_TRUE(same_bits(p.widened_value(i), as_is.widened_value(i))) << "value " << i;
    // Back as is: the very bytes (and so by a write, which takes the bytes as they are).
    Parameter back = p;
    back.set_f16_scale(F16Scale::AsIs);
    EXPECT_EQ(std::memcmp(back.row_bits(0), as_is.row_bits(0), p.bytes()), 0);
    Parameter written = p;
    written.mutable_row_bits(2);
    EXPECT_EQ(written.f16_scale(), F16Scale::AsIs);
    EXPECT_EQ(std::memcmp(written.row_bits(0), as_is.row_bits(0), p.bytes()), 0);
    // Converted to other storage from the values, not from the held halves (Q8_0 quantizes
    // finite values only: storage.hpp's store_row).
    for (Storage storage : {Storage::F32, Storage::BF16, Storage::Q8_0}) {
      if (special && storage == Storage::Q8_0) continue;
      Parameter a = p, b = as_is;
      a.set_storage(storage);
      b.set_storage(storage);
      EXPECT_EQ(a.f16_scale(), F16Scale::AsIs);
      EXPECT_TRUE(same_bits(a.widened(), b.widened())) << to_string(storage);
    }
  }
}

TEST(LowBitF16Scale, AMatrixWithAValueOf64OrMoreStaysAsIs) {
  const Parameter as_is = f16_matrix(5, 40, 4, true, true);
  Parameter p = scaled(as_is);
  EXPECT_EQ(p.f16_scale(), F16Scale::AsIs);
  EXPECT_EQ(p.version(), as_is.version());
  EXPECT_EQ(std::memcmp(p.row_bits(0), as_is.row_bits(0), p.bytes()), 0);
  // Other storage has no scale to take.
  Parameter bf16("b", {4, 32}, random_vector(128, 6));
  bf16.set_storage(Storage::BF16);
  bf16.set_f16_scale(F16Scale::Scaled);
  EXPECT_EQ(bf16.f16_scale(), F16Scale::AsIs);
}

// Every F16 variant (the spec, Eigen or the wasm 4x2 tile, GEMV and 5x8 blocks, the fast path,
// the relaxed twins where built) on the Scaled halves told their exponent gives the bits it gives
// on the halves as is; so does linear_parameter_rows on the two Parameters, both backends. x
// holds float32 subnormals, zeros and values just below 2^15 (the GEMV's rebias in x), and in
// a second trial a value of 2^15 (the rebias in W's widening); W finite or not, told so or not.
TEST(LowBitF16Scale, ProductsOfAScaledMatrixAreTheAsIsOnesBitForBit) {
  const int n = 13, k = 109;  // three groups of 32, a run of 8 and a tail of 5
  const float x_specials[] = {0x1.0p-149f, -0x1.0p-130f, 1.0e-30f, 0.0f, -0.0f, 0x1.fffffep14f, -12345.678f};
  for (bool special : {false, true}) {
    const Parameter as_is = f16_matrix(n, k, 7, special, false);
    const Parameter p = scaled(as_is);
    ASSERT_EQ(p.f16_scale(), F16Scale::Scaled);
    const std::vector<float> bias = random_vector(n, 8);
    for (int m : {1, 2, 3, 4, 5, 16, 17})
      for (bool rebias_in_w : {false, true}) {
        SCOPED_TRACE(std::string(special ? "special" : "finite") + ", m " + std::to_string(m) +
                     (rebias_in_w ? ", some |x| = 2^15" : ""));
        std::vector<float> x = random_vector(static_cast<std::size_t>(m) * k, 20 + m, 4.0f);
        for (std::size_t i = m % 3; i < x.size(); i += 5) x[i] = x_specials[(i / 5) % std::size(x_specials)];
        if (rebias_in_w) x[x.size() - 11] = 0x1.0p15f;
        for (const auto& variant : kernels::low_bit_gemm_variants(Storage::F16))
          for (bool told_finite : {false, !special}) {
            kernels::LowBitOptions held{told_finite};
            held.w_held_exponent = kF16HeldExponent;
            std::vector<float> got(static_cast<std::size_t>(m) * n, -1.0f), want(got.size(), -2.0f);
            kernels::gemm_low_bit(variant.fn, Storage::F16, m, n, k, x.data(), p.row_bits(0), bias.data(), got.data(),
                                  held);
            kernels::gemm_low_bit(variant.fn, Storage::F16, m, n, k, x.data(), as_is.row_bits(0), bias.data(),
                                  want.data(), {told_finite});
            EXPECT_TRUE(same_bits(got, want)) << variant.name << (told_finite ? ", told finite" : "");
          }
        for (Backend backend : {Backend::Fast, Backend::Reference})
          for (const auto& [begin, count] : {std::pair{0, n}, std::pair{3, 7}, std::pair{12, 1}}) {
            std::vector<float> got(static_cast<std::size_t>(m) * count, -1.0f), want(got.size(), -2.0f);
            linear_parameter_rows(x.data(), m, k, p, begin, bias.data() + begin, count, got.data(), backend);
            linear_parameter_rows(x.data(), m, k, as_is, begin, bias.data() + begin, count, want.data(), backend);
            EXPECT_TRUE(same_bits(got, want))
                << (backend == Backend::Fast ? "fast" : "reference") << ", rows " << begin << " + " << count;
          }
      }
  }
}

// A loaded F16 checkpoint holds its matrices Scaled (their |w| are far below 64), and its logits
// are those of the same model with every matrix back as is, bit for bit: one token (decode's
// GEMV), 3 (the GEMV's rows), 6 (the 4x2 tiles) and 17 (the 5x8 blocks), both backends; the
// embedding lookup (a tied F16 table's rows) reads the Scaled rows too.
TEST(LowBitF16Scale, ALoadedF16CheckpointIsHeldScaledAndGivesTheAsIsLogits) {
  for (const char* dir : {"/pretrained/gpt2-tiny-f16", "/hub/llama-linear-bias-f16"}) {
    SCOPED_TRACE(dir);
    Result<Transformer> model = pretrained::load_fixture(std::string(ATTENTION_FIXTURE_DIR) + dir, {}),
                        again = pretrained::load_fixture(std::string(ATTENTION_FIXTURE_DIR) + dir, {});
    ASSERT_TRUE(model) << model.error();
    ASSERT_TRUE(again) << again.error();
    int f16 = 0;
    model.value().visit_parameters([&](const Parameter& p) {
      if (p.storage() != Storage::F16) return;
      ++f16;
      EXPECT_EQ(p.f16_scale(), F16Scale::Scaled) << p.name();
    });
    ASSERT_GT(f16, 0);
    Transformer& as_is = again.value();
    as_is.visit_parameters([](Parameter& p) { p.set_f16_scale(F16Scale::AsIs); });
    for (int seq : {1, 3, 6, 17}) {
      ForwardInput in;
      in.batch = 1;
      in.seq = seq;
      for (int i = 0; i < seq; ++i) in.ids.push_back((i * 37 + 5) % 64);
      for (Backend backend : {Backend::Fast, Backend::Reference}) {
        ForwardOptions forward;
        forward.backend = backend;
        Result<ForwardOutput> got = model.value().forward(in, forward), want = as_is.forward(in, forward);
        ASSERT_TRUE(got) << got.error();
        ASSERT_TRUE(want) << want.error();
        EXPECT_TRUE(same_bits(got.value().logits.data, want.value().logits.data))
            << "seq " << seq << (backend == Backend::Fast ? ", fast" : ", reference");
      }
    }
  }
}

}  // namespace
}  // namespace attention
