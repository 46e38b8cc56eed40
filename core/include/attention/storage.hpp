#pragma once
// How a parameter's values are held in memory. F32 is the engine's own form (every
// parameter can be F32, and only F32 can be written or trained). Matrix weights of a
// loaded checkpoint (linear weights, the embedding table, an untied output head) may
// instead be held in 16 or 8 bits; the GEMM widens them on the fly (core/kernels).
//
//   F32   4 bytes a value.
//   BF16  2 bytes: the upper half of a float32 (bfloat16).
//   F16   2 bytes: IEEE binary16 (subnormals, ±inf and NaN as IEEE says).
//   Q8_0  ggml's 8-bit blocks: each row of a (rows, cols) matrix is cut into
//         ceil(cols / 32) blocks of 32 consecutive values, the last one zero-padded.
//         A block is 34 bytes: d, the scale, as F16 (little-endian), then 32 int8 q.
//         Quantizing (as ggml's quantize_row_q8_0_ref): d = max|x| / 127 (in float32),
//         q = round(x * (1 / d)), rounding half away from zero (0 when d is 0), and the
//         stored scale is d rounded to F16. A value reads back as f16(d) * q, exactly
//         (an 11-bit by 8-bit product fits float32's 24 bits). Every q our quantizer makes
//         is in [-127, 127] (|x| d^-1 <= 127 up to rounding, far from 127.5), never -128, as
//         ggml's; the kernels take any byte (a file may hold -128).
// Conversions to 16 bits round to nearest, ties to even, as PyTorch's .to(torch.bfloat16)
// and .to(torch.float16) do (NaN becomes a quiet NaN, 0x7FC0 / 0x7E00; loaded weights
// are checked finite first, so none is ever stored).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>

namespace attention {

enum class Storage : std::uint8_t { F32, BF16, F16, Q8_0 };

// "f32", "bf16", "f16", "q8_0": the names the package and the docs use.
const char* to_string(Storage storage);

inline constexpr int kQ8BlockValues = 32;  // values per Q8_0 block
inline constexpr int kQ8BlockBytes = 34;   // F16 scale + 32 int8

// How a product with a matrix takes its activations (x, A's rows): F32 as they are, or rounded
// per block of 32 along K (Q8_0's blocks of W) to Int16 or Int8 levels first (kernels.hpp's
// round_row), so Q8_0's GEMV multiplies in integers. The loader's option q8Activations names
// them (pretrained.hpp's kQ8ActivationsModes: "f32", "int16", "int8").
enum class Q8Activations : std::uint8_t { F32, Int16, Int8 };

// Bytes one row of `cols` values takes in `storage`.
std::size_t row_bytes(Storage storage, int cols);
// Where a Q8_0 matrix's blocks lie in memory.
//   RowMajor      rows one after the other, each row_bytes(Q8_0, cols) long (the file's order).
//   Interleaved4  made for decode's int16 and int8 GEMV (core/kernels, gemv_q8_0x4): rows in groups of 4
//                 (the last group padded with rows of q = 0, scale 0), and per group and per
//                 block b of 32 values, kQ8x4BlockBytes bytes:
//                   16 bytes: the 4 rows' scales d as float32 (widened from F16, exactly);
//                   128 bytes: for c = 0 .. 7, row 0, 1, 2, 3's q of values 4c .. 4c + 3 (4 bytes
//                   a row), each stored flipped, q + 128 in [0, 255] (the byte q ^ 0x80).
//                 So one 16-byte load holds 4 values of 4 rows, and a dot of it with x's 4 values
//                 (one splat) gives the 4 rows' partial sums in its 4 lanes.
//                 A group is q8x4_group_bytes(cols) long; row arithmetic takes
//                 q8x4_row_bytes(cols), a quarter of it, so row 4g's address is group g's.
//                 Only rows at multiples of 4 have an address; one row reads back through
//                 deinterleave_q8_0. 36 bytes per 32 values a row instead of 34.
enum class Q8Layout : std::uint8_t { RowMajor, Interleaved4 };
inline constexpr int kQ8x4Rows = 4;
inline constexpr int kQ8x4ScaleBytes = kQ8x4Rows * 4;                                 // 4 float32
inline constexpr int kQ8x4BlockBytes = kQ8x4ScaleBytes + kQ8x4Rows * kQ8BlockValues;  // 144
std::size_t q8x4_group_bytes(int cols);
inline std::size_t q8x4_row_bytes(int cols) { return q8x4_group_bytes(cols) / kQ8x4Rows; }
// `n` row-major Q8_0 rows of `cols` values -> ceil(n / 4) groups (ceil(n / 4) * q8x4_group_bytes).
void interleave_q8_0(const std::uint8_t* rows, int n, int cols, std::uint8_t* groups);
// Rows [row_begin, row_begin + count) of interleaved `groups` -> row-major Q8_0 rows, the very
// bytes interleave_q8_0 took (a scale's float32 narrows back to its F16 bits exactly).
void deinterleave_q8_0(const std::uint8_t* groups, int cols, int row_begin, int count, std::uint8_t* rows);
// Element (row, col) of interleaved `groups`, widened: the same float as the row-major block's.
float widen_q8x4_value(const std::uint8_t* groups, int cols, int row, int col);

inline float float_from_bits(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
inline std::uint32_t bits_of(float f) {
  std::uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

// How an F16 matrix's halves hold its values w (a Parameter's f16_scale()).
//   AsIs    the halves are the values (the file's bits).
//   Scaled  the halves are w 2^kF16HeldExponent, exactly; only for a matrix whose finite |w| are
//           all below 64 (a normal half's exponent plus 10 stays below 31). Zeros, infinities and
//           NaN keep their bits; a subnormal half becomes a normal one. Why: F16's widening moves
//           a half's bits to float32's places (the value times 2^-112) and multiplies them by 2^112
//           (widen_f16, the kernels), so a subnormal half is a float32 denormal there, and an Intel
//           core takes a microcode assist (about 40 ns) for each multiply with a denormal input
//           (wasm cannot set DAZ; docs/performance.md, "F16 on the Intel Xeon"). Held scaled, every
//           nonzero finite half's moved bits are w 2^-102 >= 2^-126, a normal float32, and the
//           widening multiplies by 2^102 instead (f16_rebias): the same float w, the same products.
inline constexpr int kF16HeldExponent = 10;
enum class F16Scale : std::uint8_t { AsIs, Scaled };
// e of the halves' w 2^e: 0 or kF16HeldExponent.
inline int held_exponent(F16Scale scale) { return scale == F16Scale::Scaled ? kF16HeldExponent : 0; }
// 2^(112 - e) as float32: what the bits of a half holding w 2^e, moved to float32's places, are
// multiplied by to give w (2^112 for halves as they are).
inline float f16_rebias(int held_exponent) {
  return float_from_bits(static_cast<std::uint32_t>(127 + 112 - held_exponent) << 23);
}

// 16-bit values -> float32, exactly.
inline float widen_bf16(std::uint16_t bits) { return float_from_bits(std::uint32_t{bits} << 16); }
// held_exponent: the half holds w 2^held_exponent (F16Scale); w comes back.
inline float widen_f16(std::uint16_t h, int held_exponent = 0) {
  // The exponent and mantissa move to float32's places; multiplying by 2^112 rebias-es
  // the exponent (15 -> 127) and turns the subnormals into normals, exactly.
  const std::uint32_t sign = std::uint32_t{h & 0x8000u} << 16;
  const std::uint32_t magnitude = std::uint32_t{h & 0x7fffu} << 13;
  float value = (h & 0x7c00u) == 0x7c00u ? float_from_bits(magnitude | 0x7f800000u)  // inf, NaN
                                         : float_from_bits(magnitude) * f16_rebias(held_exponent);
  return float_from_bits(bits_of(value) | sign);
}
inline std::uint16_t load_u16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }

// float32 -> 16 bits, round to nearest even (as PyTorch).
std::uint16_t round_to_bf16(float x);
std::uint16_t round_to_f16(float x);

// One row of `cols` values <-> its bytes in `storage` (row_bytes(storage, cols) of them).
// Quantizing and rounding are for finite values (the loader checks first). F16 halves are
// stored as they are; widened, they hold w 2^f16_held_exponent (F16Scale).
void store_row(Storage storage, const float* values, int cols, std::uint8_t* out);
void widen_row(Storage storage, const std::uint8_t* row, int cols, float* out, int f16_held_exponent = 0);
// Element `col` of one row, widened.
float widen_value(Storage storage, const std::uint8_t* row, int col, int f16_held_exponent = 0);

// Can `count` halves (little-endian) be held Scaled: is every finite |w| below 64?
bool f16_scalable(const std::uint8_t* halves, std::size_t count);
// `count` halves in place times 2^exponent, exactly: +kF16HeldExponent to the Scaled form (halves
// f16_scalable says can be), -kF16HeldExponent back (halves so made; their bits come back).
// Zeros, infinities and NaN keep their bits.
void scale_f16_halves(std::uint8_t* halves, std::size_t count, int exponent);

}  // namespace attention
