#include "attention/storage.hpp"

#include <algorithm>
#include <cmath>

namespace attention {

const char* to_string(Storage storage) {
  switch (storage) {
    case Storage::F32:
      return "f32";
    case Storage::BF16:
      return "bf16";
    case Storage::F16:
      return "f16";
    case Storage::Q8_0:
      return "q8_0";
  }
  return "?";
}

std::size_t row_bytes(Storage storage, int cols) {
  const std::size_t n = static_cast<std::size_t>(cols);
  switch (storage) {
    case Storage::F32:
      return 4 * n;
    case Storage::BF16:
    case Storage::F16:
      return 2 * n;
    case Storage::Q8_0:
      return kQ8BlockBytes * ((n + kQ8BlockValues - 1) / kQ8BlockValues);
  }
  return 0;
}

std::uint16_t round_to_bf16(float x) {
  if (std::isnan(x)) return 0x7fc0;
  const std::uint32_t bits = bits_of(x);
  // Adding 0x7fff plus the lowest kept bit rounds to nearest, ties to the even one.
  return static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

std::uint16_t round_to_f16(float x) {
  // The float unit does the rounding: scaling |x| up by 2^112 and down by 2^-110 rounds it
  // to float16's precision at its exponent (subnormals included) and overflows to inf;
  // adding a power of two aligned with its exponent then leaves the half's bits in place.
  const std::uint32_t w = bits_of(x);
  const std::uint32_t shl1_w = w + w;
  const std::uint32_t sign = w & 0x80000000u;
  float base = (std::fabs(x) * 0x1.0p112f) * 0x1.0p-110f;
  std::uint32_t bias = shl1_w & 0xff000000u;
  if (bias < 0x71000000u) bias = 0x71000000u;
  base = float_from_bits((bias >> 1) + 0x07800000u) + base;
  const std::uint32_t bits = bits_of(base);
  const std::uint32_t exp_bits = (bits >> 13) & 0x00007c00u;
  const std::uint32_t mantissa_bits = bits & 0x00000fffu;
  const std::uint32_t nonsign = exp_bits + mantissa_bits;
  return static_cast<std::uint16_t>((sign >> 16) | (shl1_w > 0xff000000u ? 0x7e00u : nonsign));
}

namespace {

void store_u16(std::uint16_t v, std::uint8_t* p) {
  p[0] = static_cast<std::uint8_t>(v & 0xff);
  p[1] = static_cast<std::uint8_t>(v >> 8);
}

// One Q8_0 block of n <= 32 values (zero-padded to 32). Every q is in [-127, 127], never -128
// (|x| (1 / d) is 127 at most, up to a rounding error far below 0.5), as ggml's.
void quantize_block(const float* x, int n, std::uint8_t* out) {
  float amax = 0.0f;
  for (int i = 0; i < n; ++i) amax = std::fmax(amax, std::fabs(x[i]));
  const float d = amax / 127.0f;
  const float id = d != 0.0f ? 1.0f / d : 0.0f;
  store_u16(round_to_f16(d), out);
  for (int i = 0; i < kQ8BlockValues; ++i) {
    const float q = i < n ? std::round(x[i] * id) : 0.0f;  // std::round: half away from zero
    out[2 + i] = static_cast<std::uint8_t>(static_cast<std::int8_t>(q));
  }
}

}  // namespace

void store_row(Storage storage, const float* values, int cols, std::uint8_t* out) {
  switch (storage) {
    case Storage::F32:
      std::memcpy(out, values, 4 * static_cast<std::size_t>(cols));
      return;
    case Storage::BF16:
      for (int i = 0; i < cols; ++i) store_u16(round_to_bf16(values[i]), out + 2 * i);
      return;
    case Storage::F16:
      for (int i = 0; i < cols; ++i) store_u16(round_to_f16(values[i]), out + 2 * i);
      return;
    case Storage::Q8_0:
      for (int b = 0; b * kQ8BlockValues < cols; ++b)
        quantize_block(values + b * kQ8BlockValues, std::min(kQ8BlockValues, cols - b * kQ8BlockValues),
                       out + static_cast<std::size_t>(b) * kQ8BlockBytes);
      return;
  }
}

std::size_t q8x4_group_bytes(int cols) {
  return static_cast<std::size_t>(kQ8x4BlockBytes) *
         ((static_cast<std::size_t>(cols) + kQ8BlockValues - 1) / kQ8BlockValues);
}

namespace {
// The F16 bits widen_f16 took: finite values round back exactly, inf / NaN keep their payload.
std::uint16_t narrow_f16_exact(float d) {
  const std::uint32_t bits = bits_of(d);
  if ((bits & 0x7f800000u) != 0x7f800000u) return round_to_f16(d);
  return static_cast<std::uint16_t>(((bits >> 16) & 0x8000u) | 0x7c00u | ((bits >> 13) & 0x3ffu));
}
}  // namespace

void interleave_q8_0(const std::uint8_t* rows, int n, int cols, std::uint8_t* groups) {
  const std::size_t row_size = row_bytes(Storage::Q8_0, cols);
  const int blocks = static_cast<int>(row_size / kQ8BlockBytes);
  const int group_count = (n + kQ8x4Rows - 1) / kQ8x4Rows;
  for (int group = 0; group < group_count; ++group)
    for (int b = 0; b < blocks; ++b) {
      std::uint8_t* out = groups + (static_cast<std::size_t>(group) * blocks + b) * kQ8x4BlockBytes;
      for (int r = 0; r < kQ8x4Rows; ++r) {
        const int row = group * kQ8x4Rows + r;
        const std::uint8_t* block =
            row < n ? rows + static_cast<std::size_t>(row) * row_size + static_cast<std::size_t>(b) * kQ8BlockBytes
                    : nullptr;
        const float d = block ? widen_f16(load_u16(block)) : 0.0f;
        std::memcpy(out + 4 * r, &d, sizeof d);
        for (int c = 0; c < kQ8BlockValues / 4; ++c)
          for (int t = 0; t < 4; ++t)
            out[kQ8x4ScaleBytes + 16 * c + 4 * r + t] =
                block ? static_cast<std::uint8_t>(block[2 + 4 * c + t] ^ 0x80u) : std::uint8_t{0x80};
      }
    }
}

void deinterleave_q8_0(const std::uint8_t* groups, int cols, int row_begin, int count, std::uint8_t* rows) {
  const std::size_t row_size = row_bytes(Storage::Q8_0, cols);
  const int blocks = static_cast<int>(row_size / kQ8BlockBytes);
  for (int i = 0; i < count; ++i) {
    const int row = row_begin + i, group = row / kQ8x4Rows, r = row % kQ8x4Rows;
    for (int b = 0; b < blocks; ++b) {
      const std::uint8_t* in = groups + (static_cast<std::size_t>(group) * blocks + b) * kQ8x4BlockBytes;
      std::uint8_t* block = rows + static_cast<std::size_t>(i) * row_size + static_cast<std::size_t>(b) * kQ8BlockBytes;
      float d;
      std::memcpy(&d, in + 4 * r, sizeof d);
      store_u16(narrow_f16_exact(d), block);
      for (int c = 0; c < kQ8BlockValues / 4; ++c) {  // 4 bytes at a time: prefill's products read every row
        std::uint32_t four;
        std::memcpy(&four, in + kQ8x4ScaleBytes + 16 * c + 4 * r, sizeof four);
        four ^= 0x80808080u;
        std::memcpy(block + 2 + 4 * c, &four, sizeof four);
      }
    }
  }
}

float widen_q8x4_value(const std::uint8_t* groups, int cols, int row, int col) {
  const int blocks = (cols + kQ8BlockValues - 1) / kQ8BlockValues, r = row % kQ8x4Rows, v = col % kQ8BlockValues;
  const std::uint8_t* block =
      groups + (static_cast<std::size_t>(row / kQ8x4Rows) * blocks + col / kQ8BlockValues) * kQ8x4BlockBytes;
  float d;
  std::memcpy(&d, block + 4 * r, sizeof d);
  const auto q = static_cast<std::int8_t>(block[kQ8x4ScaleBytes + 16 * (v / 4) + 4 * r + v % 4] ^ 0x80u);
  return d * static_cast<float>(q);
}

float widen_value(Storage storage, const std::uint8_t* row, int col, int f16_held_exponent) {
  switch (storage) {
    case Storage::F32: {
      float f;
      std::memcpy(&f, row + 4 * static_cast<std::size_t>(col), sizeof f);
      return f;
    }
    case Storage::BF16:
      return widen_bf16(load_u16(row + 2 * static_cast<std::size_t>(col)));
    case Storage::F16:
      return widen_f16(load_u16(row + 2 * static_cast<std::size_t>(col)), f16_held_exponent);
    case Storage::Q8_0: {
      const std::uint8_t* block = row + static_cast<std::size_t>(col / kQ8BlockValues) * kQ8BlockBytes;
      return widen_f16(load_u16(block)) * static_cast<float>(static_cast<std::int8_t>(block[2 + col % kQ8BlockValues]));
    }
  }
  return 0.0f;
}

void widen_row(Storage storage, const std::uint8_t* row, int cols, float* out, int f16_held_exponent) {
  if (storage == Storage::F32) {
    std::memcpy(out, row, 4 * static_cast<std::size_t>(cols));
    return;
  }
  for (int i = 0; i < cols; ++i) out[i] = widen_value(storage, row, i, f16_held_exponent);
}

namespace {
constexpr unsigned kF16Exponent = 0x7c00u;  // a half's exponent bits (31: infinity, NaN)
// Both run over every F16 value of a model once per load (GPT-2: 124M), so their loops are
// branch-free over 16-bit words (LLVM vectorizes them), kF16Block halves at a time; a subnormal
// half on either side (0.5% of GPT-2's) is handled apart, in the blocks that hold one.
constexpr std::size_t kF16Block = 64;
inline std::uint16_t word_at(const std::uint8_t* p) {  // little-endian, as load_u16
  std::uint16_t w;
  std::memcpy(&w, p, sizeof w);
  return w;
}
}  // namespace

bool f16_scalable(const std::uint8_t* halves, std::size_t count) {
  // The first magnitude whose exponent plus kF16HeldExponent would reach 31 (64's half, 0x5400).
  constexpr unsigned kTooLarge = (31u - kF16HeldExponent) << 10;
  unsigned bad = 0;  // a finite magnitude from kTooLarge on (the range as one unsigned compare)
  for (std::size_t i = 0; i < count; ++i)
    bad |= static_cast<std::uint16_t>((word_at(halves + 2 * i) & 0x7fffu) - kTooLarge) < kF16Exponent - kTooLarge;
  return bad == 0;
}

void scale_f16_halves(std::uint8_t* halves, std::size_t count, int exponent) {
  // Exponents e that stay normal, e + exponent in [1, 30], move by an add to the exponent field:
  // magnitudes m with m - first < span (unsigned).
  const unsigned first = static_cast<unsigned>(std::max(1, 1 - exponent)) << 10;
  const unsigned span = (static_cast<unsigned>(std::min(30, 30 - exponent)) << 10) + 0x400u - first;
  const auto step = static_cast<std::uint16_t>(exponent * 0x400);
  // The rest but zeros, infinities and NaN (which keep their bits): a subnormal half on one side,
  // the value exactly times 2^exponent, a half too, so round_to_f16 gives its bits exactly.
  const float factor = std::ldexp(1.0f, exponent);
  for (std::size_t b = 0; b < count; b += kF16Block) {
    const std::size_t n = std::min(kF16Block, count - b);
    std::uint8_t* block = halves + 2 * b;
    std::uint16_t words[kF16Block];
    unsigned any_apart = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint16_t h = word_at(block + 2 * i);
      const unsigned m = h & 0x7fffu;
      const unsigned moves = static_cast<std::uint16_t>(m - first) < span;
      any_apart |= (moves ^ 1u) & (m != 0) & (m < kF16Exponent);
      words[i] = static_cast<std::uint16_t>(h + (moves ? step : 0));
    }
    if (any_apart)  // from the block's bits as they were
      for (std::size_t i = 0; i < n; ++i) {
        const std::uint16_t h = word_at(block + 2 * i);
        const unsigned m = h & 0x7fffu;
        if (m != 0 && m < kF16Exponent && static_cast<std::uint16_t>(m - first) >= span)
          words[i] = round_to_f16(widen_f16(h) * factor);
      }
    std::memcpy(block, words, 2 * n);
  }
}

}  // namespace attention
