// Q8_0 matrices interleaved by 4 rows (storage.hpp's Q8Layout::Interleaved4, the layout decode's
// integer GEMV reads): the same values and the same products, bit for bit, as the row-major blocks
// the file gives. Natively no kernel reads the layout in place (kernels' q8_0x4_gemv is null), so
// the products go through gemm_low_bit's de-interleaving; in wasm SIMD the integer GEMV reads it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "attention/linear.hpp"
#include "attention/param.hpp"
#include "hub_fixture.hpp"
#include "kernels/kernels.hpp"
#include "test_util.hpp"

namespace attention {
namespace {

using attention::testing::random_vector;

// A (rows, cols) Q8_0 matrix of random values, row-major; some blocks hold the extreme q of +-127.
Parameter random_q8(int rows, int cols, std::uint64_t seed) {
  std::vector<float> values = random_vector(static_cast<std::size_t>(rows) * cols, seed);
  for (int r = 0; r < rows; r += 3) values[static_cast<std::size_t>(r) * cols] = r % 2 ? 9.0f : -9.0f;
  Parameter p("w", {rows, cols}, values);
  p.set_storage(Storage::Q8_0);
  EXPECT_EQ(p.q8_layout(), Q8Layout::RowMajor);
  return p;
}

Parameter interleaved(const Parameter& p) {
  Parameter q = p;
  q.set_q8_layout(Q8Layout::Interleaved4);
  EXPECT_EQ(q.q8_layout(), Q8Layout::Interleaved4);
  return q;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

TEST(Q8Layout, InterleavingKeepsEveryValueAndGoesBackToTheSameBytes) {
  for (const auto& [rows, cols] : {std::pair{1, 32}, std::pair{4, 31}, std::pair{13, 70}, std::pair{8, 160}}) {
    SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(cols));
    const Parameter row_major = random_q8(rows, cols, 7 + rows);
    Parameter p = interleaved(row_major);
    const std::size_t blocks = (cols + 31) / 32;
    EXPECT_EQ(p.bytes(), static_cast<std::size_t>((rows + 3) / 4) * blocks * kQ8x4BlockBytes);
    EXPECT_EQ(p.row_bytes() * 4, blocks * kQ8x4BlockBytes);
    EXPECT_EQ(p.widened(), row_major.widened());
    std::vector<float> some(static_cast<std::size_t>(2) * cols), want(some.size());
    p.widen_rows(rows - 2 < 0 ? 0 : rows / 2, rows > 1 ? 2 : 1, some.data());
    row_major.widen_rows(rows - 2 < 0 ? 0 : rows / 2, rows > 1 ? 2 : 1, want.data());
    EXPECT_EQ(some, want);
    for (std::size_t i = 0; i < p.size(); ++i)
      ASSERT_EQ(p.widened_value(i), row_major.widened_value(i)) << "value " << i;
    EXPECT_TRUE(p.all_finite());
    p.set_q8_layout(Q8Layout::RowMajor);
    ASSERT_EQ(p.bytes(), row_major.bytes());
    EXPECT_EQ(std::memcmp(p.row_bits(0), row_major.row_bits(0), p.bytes()), 0);
  }
}

TEST(Q8Layout, AnInfiniteOrNaNScaleIsSeenAndComesBackWithItsBits) {
  Parameter row_major = random_q8(6, 64, 3);
  // Row 5's second block's scale: infinity; row 2's first: a NaN with a payload.
  std::uint8_t* bits = row_major.mutable_row_bits(5) + kQ8BlockBytes;
  bits[0] = 0x00, bits[1] = 0x7c;
  bits = row_major.mutable_row_bits(2);
  bits[0] = 0x35, bits[1] = 0xfe;
  ASSERT_FALSE(row_major.all_finite());
  Parameter p = interleaved(row_major);
  EXPECT_FALSE(p.all_finite());
  EXPECT_FALSE(std::isfinite(p.widened_value(5 * 64 + 40)));
  EXPECT_TRUE(std::isnan(p.widened_value(2 * 64 + 1)));
  p.set_q8_layout(Q8Layout::RowMajor);
  EXPECT_EQ(std::memcmp(p.row_bits(0), row_major.row_bits(0), p.bytes()), 0);
}

TEST(Q8Layout, ProductsAreTheRowMajorOnesBitForBit) {
  // N = 13 (a padded last group), K = 200 (a partial last block); N = 301 (more rows than are
  // de-interleaved at a time); row ranges starting inside a group of 4 and on one; M of decode (1),
  // of the GEMV (up to 4) and of the tiles.
  for (const auto& [n, k] : {std::pair{13, 200}, std::pair{301, 64}})
    for (Q8Activations mode : {Q8Activations::F32, Q8Activations::Int16, Q8Activations::Int8}) {
      const Parameter base = random_q8(n, k, 11 + n);
      const std::vector<float> bias = random_vector(n, 12);
      Parameter row_major = base;
      row_major.set_q8_activations(mode);
      row_major.set_q8_layout(Q8Layout::RowMajor);
      Parameter p = interleaved(row_major);
      ASSERT_EQ(p.q8_activations(), mode);
      for (Backend backend : {Backend::Fast, Backend::Reference})
        for (int m : {1, 2, 4, 5, 17})
          for (const auto& [begin, count] : {std::pair{0, n}, std::pair{4, n - 4}, std::pair{1, 1}, std::pair{6, 5}}) {
            SCOPED_TRACE("mode " + std::to_string(static_cast<int>(mode)) + ", m " + std::to_string(m) + ", rows " +
                         std::to_string(begin) + " + " + std::to_string(count));
            const std::vector<float> x = random_vector(static_cast<std::size_t>(m) * k, 20 + m);
            std::vector<float> got(static_cast<std::size_t>(m) * count, -1.0f), want(got.size(), -2.0f);
            linear_parameter_rows(x.data(), m, k, p, begin, bias.data() + begin, count, got.data(), backend);
            linear_parameter_rows(x.data(), m, k, row_major, begin, bias.data() + begin, count, want.data(), backend);
            EXPECT_TRUE(same_bits(got, want));
          }
    }
}

TEST(Q8Layout, IntegerActivationsTakeTheLayoutTheKernelsPrefer) {
  Parameter p = random_q8(8, 64, 5);
  for (Q8Activations mode : {Q8Activations::Int16, Q8Activations::Int8}) {
    p.set_q8_activations(mode);
    EXPECT_EQ(p.q8_layout(), kernels::preferred_q8_layout(mode));
    // Where the engine has the interleaved GEMV, integer activations are what it is for.
    EXPECT_EQ(kernels::preferred_q8_layout(mode), kernels::q8_0x4_gemv() ? Q8Layout::Interleaved4 : Q8Layout::RowMajor);
  }
  p.set_q8_activations(Q8Activations::F32);
  EXPECT_EQ(p.q8_layout(), Q8Layout::RowMajor);
  // A write goes to row-major bytes; other storage has no layout to take.
  p.set_q8_layout(Q8Layout::Interleaved4);
  p.mutable_row_bits(3)[2] = 1;
  EXPECT_EQ(p.q8_layout(), Q8Layout::RowMajor);
  Parameter f16("f", {4, 32}, random_vector(128, 6));
  f16.set_storage(Storage::F16);
  f16.set_q8_layout(Q8Layout::Interleaved4);
  EXPECT_EQ(f16.q8_layout(), Q8Layout::RowMajor);
}

// A model loaded with int16 or int8 activations holds its Q8_0 matrices in the preferred layout and
// computes the logits it computes with them row-major, bit for bit, on either backend.
void expect_row_major_logits(Q8Activations mode) {
  Result<Transformer> model = pretrained::load_fixture(
      std::string(ATTENTION_FIXTURE_DIR) + "/pretrained/gpt2-tiny-bf16", {pretrained::WeightsMode::Q8_0, mode});
  ASSERT_TRUE(model) << model.error();
  int q8 = 0;
  model.value().visit_parameters([&](const Parameter& p) {
    if (p.storage() != Storage::Q8_0) return;
    ++q8;
    EXPECT_EQ(p.q8_layout(), kernels::preferred_q8_layout(mode)) << p.name();
  });
  ASSERT_GT(q8, 0);
  // 6 tokens (the products' GEMM, on rows de-interleaved) and 1 (their GEMV, on the layout in place)
  ForwardInput six, one;
  six.batch = one.batch = 1;
  six.seq = 6;
  six.ids = {5, 17, 3, 200, 9, 42};
  one.seq = 1;
  one.ids = {42};
  const auto logits = [&](const ForwardInput& in, Backend backend) {
    ForwardOptions forward;
    forward.backend = backend;
    Result<ForwardOutput> out = model.value().forward(in, forward);
    EXPECT_TRUE(out) << out.error();
    return out ? out.value().logits.data : std::vector<float>{};
  };
  const std::vector<float> fast = logits(six, Backend::Fast), reference = logits(six, Backend::Reference),
                           step = logits(one, Backend::Fast);
  // The bytes the matrices take follow the layout (36 bytes per 32 values when interleaved).
  const std::size_t before = model.value().weight_bytes().q8_0;
  model.value().visit_parameters([&](Parameter& p) { p.set_q8_layout(Q8Layout::RowMajor); });
  EXPECT_TRUE(same_bits(logits(six, Backend::Fast), fast));
  EXPECT_TRUE(same_bits(logits(six, Backend::Reference), reference));
  EXPECT_TRUE(same_bits(logits(one, Backend::Fast), step));
  if (kernels::preferred_q8_layout(mode) == Q8Layout::Interleaved4)
    EXPECT_GT(before, model.value().weight_bytes().q8_0);
  else
    EXPECT_EQ(before, model.value().weight_bytes().q8_0);
}

TEST(Q8Layout, AModelLoadedWithInt8ActivationsGivesTheRowMajorLogits) { expect_row_major_logits(Q8Activations::Int8); }
TEST(Q8Layout, AModelLoadedWithInt16ActivationsGivesTheRowMajorLogits) {
  expect_row_major_logits(Q8Activations::Int16);
}

}  // namespace
}  // namespace attention
