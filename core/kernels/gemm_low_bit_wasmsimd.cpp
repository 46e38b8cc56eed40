// The low-bit GEMM for 128-bit wasm SIMD, C = A W^T + bias, in three ways and a choice:
//   gemv: 1 to 4 rows of A (decode), W's rows read in place, 1 to 4 of them per tile (below;
//         F16 widens finite groups without its infinity/NaN select, Q8_0 converts by i32x4.dot).
//   4x2: W's rows read in place (no packing: panels would be a second copy of the weight).
//   5x8: 256 rows of W at a time widened into a float block that the float GEMM's 5x8 tile
//        packs and multiplies (the widening is shared by every row of A).
//   the fast path: gemv up to kLowBitGemvUpToRows (4, kernels.hpp) rows of A; 5x8 from the format's
//   kWidenFromRows rows of A on (F16, Q8_0: 16); else 4x2.
//   With LowBitGemmArgs::activations Int16 or Int8, Q8_0's gemv multiplies in integers
//   (gemv_integer, below); every other kernel multiplies A's rows rounded and widened back
//   (with_rounded_a).
//   Q8_0 interleaved by 4 rows (storage.hpp's Interleaved4, activations Int16 or Int8):
//   gemv_q8_0x4 (below), the same bits as gemv_integer on the row-major W.
// The 4x2 kernel: a tile takes 4 rows of A
// and 2 rows of W and runs along K 8 values at a time: W's 8 values are widened in
// registers (BF16: a shift; F16: the bits moved to float32's places and rebiased by a
// multiply, which the GEMV moves into x's rows when they are small enough; Q8_0: int8 ->
// float times the block's scale, exact), then multiplied with A's 8 values into 8 f32x4
// accumulators, summed across lanes at the end. Each row of W is read from memory once per
// 4 rows of A, which is what decode (M = 1) is bound by.
#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "kernels.hpp"
#include "relaxed_simd.hpp"

namespace attention::kernels {

namespace {

// The GEMV's constants (masks, the F16 rebias, Q8_0's magic number), built once per tile from a
// zero LLVM cannot see through: LLVM 14 rematerializes a v128.const at every use inside a loop,
// and V8 builds each one anew from immediates (a few instructions; no constant pool), which
// was most of F16's and Q8_0's widening (F16's GEMV ran at a quarter of BF16's speed). Made
// from an opaque value, the constants are loop-invariant locals that stay in registers.
volatile int opaque_zero_value = 0;
inline int opaque_zero() { return opaque_zero_value; }
inline v128_t splat_bits(unsigned bits, int zero) { return wasm_i32x4_splat(static_cast<int>(bits) + zero); }

// Where a run of W's values starts: group(row, p) for the value p of a row (the values up to
// the end of p's group of 32, a Q8_0 block, share it: the block's scale is read once), then
// load8(group, offset) widens the 8 values from p + offset (offset a multiple of 8).
struct Group {
  const std::uint8_t* at;  // the bytes of value p
  v128_t d;                // Q8_0: the block's scale, splat
};

// kWidenFromRows: from this many rows of A on, the fast path widens blocks of W (5x8)
// instead of running the dot kernel (4x2); measured with bench/kernel_bench.cpp at 1, 16 and
// 64 rows (docs/performance.md). BF16's widening is one shift, cheap enough inside the dot
// kernel that widening blocks did not pay off.
struct Bf16 {
  static constexpr Storage kStorage = Storage::BF16;
  static constexpr bool kScaled = false;  // load8 gives the values themselves
  static constexpr bool kSplit = true;    // the GEMV reads 8 values as even and odd halves
  static constexpr int kWidenFromRows = 1 << 30;
  static constexpr int kGemvTileRows = 1;         // rows of W per GEMV tile (1 or 2 rows of A): see gemv_on
  static constexpr bool kFiniteFastPath = false;  // F16 only: see there
  static constexpr bool kPrescalable = false;     // F16 only: see there
  static constexpr bool kRelaxedMadd = false;     // the GEMV's products: mul + add (Relaxed<F>: madd)
  static inline Group group(const std::uint8_t* row, int p) {
    return {row + 2 * static_cast<std::size_t>(p), wasm_f32x4_splat(0.0f)};
  }
  static inline void load8(const Group& g, int offset, v128_t& lo, v128_t& hi) {
    const v128_t v = wasm_v128_load(g.at + 2 * offset);
    lo = wasm_i32x4_shl(wasm_u32x4_extend_low_u16x8(v), 16);
    hi = wasm_i32x4_shl(wasm_u32x4_extend_high_u16x8(v), 16);
  }
  // The GEMV's load: 8 values as read, a 32-bit lane holding values 2i (low half) and 2i + 1:
  // even = values 0, 2, 4, 6 and odd = 1, 3, 5, 7, each one op (A's rows are reordered to match).
  struct Consts {
    v128_t high;  // a lane's upper half
    explicit Consts(int zero) : high(splat_bits(0xffff0000u, zero)) {}
  };
  static inline void load8_split(const Group& g, int offset, v128_t& even, v128_t& odd, const Consts& k) {
    const v128_t v = wasm_v128_load(g.at + 2 * offset);
    even = wasm_i32x4_shl(v, 16);
    odd = wasm_v128_and(v, k.high);
  }
};

struct F16 {
  static constexpr Storage kStorage = Storage::F16;
  static constexpr bool kScaled = false;
  static constexpr bool kSplit = true;
  static constexpr int kWidenFromRows = 16;
  static constexpr int kGemvTileRows = 4;
  // 4 halves in the low 16 bits of each lane; rebias: 2^(112 - e) splat for halves holding w 2^e
  // (f16_rebias; LowBitGemmArgs::w_held_exponent).
  static inline v128_t widen4(v128_t h, v128_t rebias = wasm_f32x4_splat(0x1.0p112f)) {
    const v128_t sign = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x8000)), 16);
    const v128_t magnitude = wasm_i32x4_shl(wasm_v128_and(h, wasm_i32x4_splat(0x7fff)), 13);
    const v128_t finite = wasm_f32x4_mul(magnitude, rebias);
    const v128_t special = wasm_v128_or(magnitude, wasm_i32x4_splat(0x7f800000));
    const v128_t is_special = wasm_i32x4_eq(wasm_v128_and(h, wasm_i32x4_splat(0x7c00)), wasm_i32x4_splat(0x7c00));
    return wasm_v128_or(wasm_v128_bitselect(special, finite, is_special), sign);
  }
  // d: the rebias, 2^112 for halves as they are (load8_group sets W's).
  static inline Group group(const std::uint8_t* row, int p) {
    return {row + 2 * static_cast<std::size_t>(p), wasm_f32x4_splat(0x1.0p112f)};
  }
  static inline void load8(const Group& g, int offset, v128_t& lo, v128_t& hi) {
    const v128_t v = wasm_v128_load(g.at + 2 * offset);
    lo = widen4(wasm_u32x4_extend_low_u16x8(v), g.d);
    hi = widen4(wasm_u32x4_extend_high_u16x8(v), g.d);
  }
  // 4 halves in the high 16 bits of each lane (low bits zero), widened exactly without a
  // table: an arithmetic shift by 3 moves exponent and mantissa to float32's places (the
  // sign's copies in bits 30..28 cleared, the sign stays in bit 31), so the bits read as
  // the half's value times 2^-112 (normals and subnormals alike); a multiply by 2^112 rebiases.
  // Infinity and NaN (exponent 31) keep sign and mantissa with float32's exponent 255.
  struct Consts {
    v128_t high;      // a lane's upper half
    v128_t moved;     // the sign and the shifted exponent and mantissa (0x8fffffff)
    v128_t rebias;    // 2^(112 - e) as float32 bits, halves holding w 2^e (LowBitGemmArgs::w_held_exponent)
    v128_t infinity;  // float32's exponent 255
    v128_t exponent;  // a half's exponent bits, in the upper half
    explicit Consts(int zero, int held_exponent = 0)
        : high(splat_bits(0xffff0000u, zero)),
          moved(splat_bits(0x8fffffffu, zero)),
          rebias(splat_bits(bits_of(f16_rebias(held_exponent)), zero)),
          infinity(splat_bits(0x7f800000u, zero)),
          exponent(splat_bits(0x7c000000u, zero)),
          moved_odd(splat_bits(0x8fffe000u, zero)),
          finite_top16(splat_bits(0xf7fff7ffu, zero)) {}
    // The GEMV's path for finite halves (has_special, load8_split_finite_prescaled).
    v128_t moved_odd;     // as moved, without the even half's bits shifted in below
    v128_t finite_top16;  // a finite half's largest magnitude shifted left by 1, in each 16-bit lane
  };
  // kRebias false: the finite halves without the multiply by 2^112 (x carries it: kPrescale).
  template <bool kRebias = true>
  static inline v128_t widen4_high(v128_t y, const Consts& k) {
    const v128_t moved = wasm_v128_and(wasm_i32x4_shr(y, 3), k.moved);
    const v128_t finite = kRebias ? wasm_f32x4_mul(moved, k.rebias) : moved;
    const v128_t special = wasm_v128_or(moved, k.infinity);
    const v128_t is_special = wasm_i32x4_eq(wasm_v128_and(y, k.exponent), k.exponent);
    return wasm_v128_bitselect(special, finite, is_special);
  }
  template <bool kRebias = true>
  static inline void load8_split(const Group& g, int offset, v128_t& even, v128_t& odd, const Consts& k) {
    const v128_t v = wasm_v128_load(g.at + 2 * offset);
    even = widen4_high<kRebias>(wasm_i32x4_shl(v, 16), k);
    odd = widen4_high<kRebias>(wasm_v128_and(v, k.high), k);
  }
  // The GEMV's fast path: when a group of 32 halves holds no infinity or NaN (exponent 31),
  // widen4_high's select is not needed: moved times 2^112 (folded into x, below) is exact for zeros, subnormals and
  // normals, 3 or 4 ops per 4 halves instead of 7 or 8 (the odd halves skip the shift to the
  // top: the arithmetic shift by 3 brings them there, moved_odd drops the even half's bits).
  // The same float for every half as widen4_high, so the results do not change. A model's
  // weights are finite, so the branch is always predicted, and when W's owner knows so
  // (LowBitGemmArgs::w_finite: a model's Parameter) the check is skipped. (An integer add of 112 << 23
  // instead of the multiply would be exact for normals only: the check for zero and
  // subnormal halves, about 0.3% of a model's, took 9% of a group's branches and all it
  // saved, measured: docs/performance.md.) has_special: does a group need widen4_high?
  // A half's magnitude shifted left by 1 (the sign dropped) is above finite_top16 exactly
  // for exponent 31.
  static constexpr bool kFiniteFastPath = true;
  static inline bool has_special(const Group& g, const Consts& k) {
    v128_t top = wasm_i16x8_shl(wasm_v128_load(g.at), 1);
    for (int i = 1; i < kQ8BlockValues / 8; ++i)
      top = wasm_u16x8_max(top, wasm_i16x8_shl(wasm_v128_load(g.at + 16 * i), 1));
    return wasm_v128_any_true(wasm_u16x8_gt(top, k.finite_top16));
  }
  // The rebias moved into x: when every |x| < kPrescaleBelow (2^15; x times 2^112 stays below
  // float32's 2^128), the GEMV multiplies x's rows by prescale (2^112, exact; 2^102 for halves
  // held w 2^10, LowBitGemmArgs::w_held_exponent: the same products again) once per call and
  // widens W's halves without the multiply: moved times (x 2^112) is the same real number as
  // (moved 2^112) times x, so every product rounds to the same float and the sums, in the same
  // order, are bit for bit the same (2 of the finite path's 7 widening ops per 8 halves saved).
  // Infinity and NaN keep their select: times x 2^112 they give what they gave times x.
  // Only prescaled calls take the finite fast path: a call with some |x| >= 2^15 (rare: a
  // model's activations stay far below) widens every half with the select (load8_split), so
  // the GEMV's tiles are compiled once with the fast path, not twice: the one-file element
  // carries this code (its size budget, docs/embedding.md), about 3.5 KB gzip.
  static constexpr bool kPrescalable = true;
  static constexpr bool kRelaxedMadd = false;
  static inline float prescale(const LowBitGemmArgs& g) { return f16_rebias(g.w_held_exponent); }
  static constexpr float kPrescaleBelow = 0x1.0p15f;
  static inline void load8_split_finite_prescaled(const Group& g, int offset, v128_t& even, v128_t& odd,
                                                  const Consts& k) {
    const v128_t v = wasm_v128_load(g.at + 2 * offset);
    even = wasm_v128_and(wasm_i32x4_shr(wasm_i32x4_shl(v, 16), 3), k.moved);
    odd = wasm_v128_and(wasm_i32x4_shr(v, 3), k.moved_odd);
  }
};

struct Q8 {
  static constexpr Storage kStorage = Storage::Q8_0;
  static constexpr bool kScaled = true;  // load8_unscaled gives q; a value is q times the group's d
  static constexpr bool kSplit = true;   // the GEMV reads 8 values as even and odd halves
  static constexpr int kWidenFromRows = 16;
  static constexpr int kGemvTileRows = 1;
  static constexpr bool kFiniteFastPath = false;
  static constexpr bool kPrescalable = false;
  static constexpr bool kRelaxedMadd = false;
  static inline Group group(const std::uint8_t* row, int p) {
    const unsigned u = static_cast<unsigned>(p);
    const std::uint8_t* block = row + static_cast<std::size_t>(u / kQ8BlockValues) * kQ8BlockBytes;
    return {block + 2 + u % kQ8BlockValues, wasm_f32x4_splat(widen_f16(load_u16(block)))};
  }
  // int32 lanes (values of int8) -> float, exactly: the bits of 1.5 x 2^23 plus q read as
  // the float 1.5 x 2^23 + q (its last place is 1), minus 1.5 x 2^23. Not f32x4.convert: LLVM 14
  // folds convert(extend(i8 -> i16 -> i32)) into a conversion from i16 that wasm lacks and
  // scalarizes it (one f32.convert_i32_s a value: Q8_0 ran at a quarter of BF16's speed).
  static inline v128_t to_float(v128_t q32) {
    const v128_t magic = wasm_i32x4_splat(0x4b400000);
    return wasm_f32x4_sub(wasm_i32x4_add(q32, magic), magic);
  }
  static inline void load8(const Group& g, int offset, v128_t& lo, v128_t& hi) {
    const v128_t q = wasm_i16x8_load8x8(g.at + offset);
    lo = wasm_f32x4_mul(to_float(wasm_i32x4_extend_low_i16x8(q)), g.d);
    hi = wasm_f32x4_mul(to_float(wasm_i32x4_extend_high_i16x8(q)), g.d);
  }
  // The GEMV's load: 8 values as int16 (one extending load), then even = values 0, 2, 4, 6 and
  // odd = 1, 3, 5, 7 as int32 by a dot product with (1, 0) and (0, 1) pairs (i32x4.dot_i16x8_s:
  // one instruction, and opaque to LLVM, so f32x4.convert after it stays one instruction),
  // converted exactly: 5 ops per 8 values instead of the extend-and-magic-number's 7.
  struct Consts {
    v128_t even;  // int16 pairs (1, 0)
    v128_t odd;   // int16 pairs (0, 1)
    explicit Consts(int zero) : even(splat_bits(0x00000001u, zero)), odd(splat_bits(0x00010000u, zero)) {}
  };
  static inline void load8_unscaled(const Group& g, int offset, v128_t& even, v128_t& odd, const Consts& k) {
    const v128_t q = wasm_i16x8_load8x8(g.at + offset);
    even = wasm_f32x4_convert_i32x4(wasm_i32x4_dot_i16x8(q, k.even));
    odd = wasm_f32x4_convert_i32x4(wasm_i32x4_dot_i16x8(q, k.odd));
  }
};

// A format whose GEMV multiplies and adds with relaxed SIMD's madd (fused or not, the engine's
// choice: relaxed_simd.hpp), only in a .wasm rewritten for it, where the registry lists it:
// two operations a step instead of four. Q8_0's with int8 activations uses relaxed SIMD's
// integer dot too (gemv_integer).
template <class F>
struct Relaxed : F {
  static constexpr bool kRelaxedMadd = true;
};

// The GEMV's load of 8 values: BF16 and F16 as even and odd values (against A's rows
// reordered so), Q8_0 in order and without the scale.
// Prescaled: F16's halves without the rebias (x's rows carry it: F16::prescale).
template <class F, bool Prescaled>
inline void load8_unscaled(const Group& g, int offset, v128_t& lo, v128_t& hi, const typename F::Consts& k) {
  if constexpr (F::kScaled)
    F::load8_unscaled(g, offset, lo, hi, k);
  else if constexpr (Prescaled)
    F::template load8_split<false>(g, offset, lo, hi, k);
  else
    F::load8_split(g, offset, lo, hi, k);
}

// F::group for F::load8 (the 4x2 tile, the widening): F16's d is W's rebias, 2^(112 - e) for
// halves holding w 2^e (rebias: f16_rebias(LowBitGemmArgs::w_held_exponent), splat).
template <class F>
inline Group load8_group(const std::uint8_t* row, int p, v128_t rebias) {
  Group group = F::group(row, p);
  if constexpr (F::kStorage == Storage::F16) group.d = rebias;
  return group;
}

// C[i0 .. i0 + R)[j0 .. j0 + C) = A's R rows . W's C rows + bias.
template <class F, int R, int C>
void tile(const LowBitGemmArgs& g, int i0, int j0) {
  const float* a[R];
  const std::uint8_t* w[C];
  for (int r = 0; r < R; ++r) a[r] = g.a + static_cast<std::size_t>(i0 + r) * g.lda;
  for (int c = 0; c < C; ++c) w[c] = g.w + static_cast<std::size_t>(j0 + c) * g.w_row_bytes;
  v128_t acc[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) acc[r][c] = wasm_f32x4_splat(0.0f);
  // 8 values of W's C rows widened (from each row's group, `offset` values on), multiplied
  // with A's R rows' 8 values at p.
  const auto step = [&](const Group(&groups)[C], int offset, int p) __attribute__((always_inline)) {
    v128_t lo[C], hi[C];
    for (int c = 0; c < C; ++c) F::load8(groups[c], offset, lo[c], hi[c]);
    for (int r = 0; r < R; ++r) {
      const v128_t a_lo = wasm_v128_load(a[r] + p), a_hi = wasm_v128_load(a[r] + p + 4);
      for (int c = 0; c < C; ++c) {
        acc[r][c] = wasm_f32x4_add(acc[r][c], wasm_f32x4_mul(a_lo, lo[c]));
        acc[r][c] = wasm_f32x4_add(acc[r][c], wasm_f32x4_mul(a_hi, hi[c]));
      }
    }
  };
  const v128_t rebias = wasm_f32x4_splat(f16_rebias(g.w_held_exponent));
  Group groups[C];
  int p = 0;
  for (; p + kQ8BlockValues <= g.k; p += kQ8BlockValues) {  // whole groups of 32 (a Q8_0 block each)
    for (int c = 0; c < C; ++c) groups[c] = load8_group<F>(w[c], p, rebias);
    for (int offset = 0; offset < kQ8BlockValues; offset += 8) step(groups, offset, p + offset);
  }
  for (; p + 8 <= g.k; p += 8) {
    for (int c = 0; c < C; ++c) groups[c] = load8_group<F>(w[c], p, rebias);
    step(groups, 0, p);
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const v128_t v = acc[r][c];
      float sum = (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
                  (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
      for (int q = p; q < g.k; ++q) sum += a[r][q] * widen_value(F::kStorage, w[c], q, g.w_held_exponent);
      g.c[static_cast<std::size_t>(i0 + r) * g.ldc + j0 + c] = sum + (g.bias ? g.bias[j0 + c] : 0.0f);
    }
}

template <class F, int C>
void row_tiles(const LowBitGemmArgs& g, int j0) {
  int i = 0;
  for (; i + 4 <= g.m; i += 4) tile<F, 4, C>(g, i, j0);
  switch (g.m - i) {
    case 3:
      tile<F, 3, C>(g, i, j0);
      break;
    case 2:
      tile<F, 2, C>(g, i, j0);
      break;
    case 1:
      tile<F, 1, C>(g, i, j0);
      break;
    default:
      break;
  }
}

template <class F>
void multiply(const LowBitGemmArgs& g) {
  if (g.m <= 0 || g.n <= 0) return;
  int j = 0;
  for (; j + 2 <= g.n; j += 2) row_tiles<F, 2>(g, j);
  if (j < g.n) row_tiles<F, 1>(g, j);
}

// F::Consts for W (F16's rebias for its halves' held exponent), from an opaque zero (above).
template <class F>
inline typename F::Consts gemv_consts(const LowBitGemmArgs& g) {
  if constexpr (F::kStorage == Storage::F16)
    return typename F::Consts(opaque_zero(), g.w_held_exponent);
  else
    return typename F::Consts(opaque_zero());
}

// GEMV (decode: 1 to 4 rows of A): R rows of A by C rows of W, W's rows read in place once
// per R rows of A. Unlike the 4x2 tile, each 8-value step's two products are summed in a
// fresh register before one add into a row's accumulator (the 4x2 tile's two dependent adds
// a step were its limit at M = 1: a chain of adds, not memory), C = 4 chains run side by
// side, and a group of 32 values is summed in fresh registers before one add into the
// accumulator (Q8_0's scale multiplies that sum once, (sum_p a_p q_p) d, instead of each
// value): the same products, rounded in another order (within the scalar spec's tolerance).
// Prescaled (F16 only): A's rows were multiplied by F16::prescale, except the tail after
// the last whole 8 (the scalar loop below widens W's values with their rebias).
template <class F, int R, int C, bool Prescaled>
void gemv_tile(const LowBitGemmArgs& g, int i0, int j0) {
  const float* a[R];
  const std::uint8_t* w[C];
  for (int r = 0; r < R; ++r) a[r] = g.a + static_cast<std::size_t>(i0 + r) * g.lda;
  for (int c = 0; c < C; ++c) w[c] = g.w + static_cast<std::size_t>(j0 + c) * g.w_row_bytes;
  v128_t acc[R][C];
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) acc[r][c] = wasm_f32x4_splat(0.0f);
  const typename F::Consts k = gemv_consts<F>(g);
  // sum[r][c] += A's row r (8 values at p) . W's row c (8 values from its group, offset on).
  // load(group, offset, lo, hi): load8_unscaled, or F16's fast path for finite halves.
  const auto step = [&](v128_t(&sum)[R][C], const Group(&groups)[C], int offset, int p, auto load)
      __attribute__((always_inline)) {
    v128_t lo[C], hi[C];
    for (int c = 0; c < C; ++c) load(groups[c], offset, lo[c], hi[c]);
    for (int r = 0; r < R; ++r) {
      const v128_t a_lo = wasm_v128_load(a[r] + p), a_hi = wasm_v128_load(a[r] + p + 4);
      for (int c = 0; c < C; ++c) {
        if constexpr (F::kRelaxedMadd)
          sum[r][c] = attention_relaxed_madd_f32x4(a_hi, hi[c], attention_relaxed_madd_f32x4(a_lo, lo[c], sum[r][c]));
        else
          sum[r][c] =
              wasm_f32x4_add(sum[r][c], wasm_f32x4_add(wasm_f32x4_mul(a_lo, lo[c]), wasm_f32x4_mul(a_hi, hi[c])));
      }
    }
  };
  // Adds a group's sums (times its scale, Q8_0) to the accumulators.
  const auto into_acc = [&](v128_t(&sum)[R][C], const Group(&groups)[C]) __attribute__((always_inline)) {
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c)
        acc[r][c] = wasm_f32x4_add(acc[r][c], F::kScaled ? wasm_f32x4_mul(sum[r][c], groups[c].d) : sum[r][c]);
  };
  // A group's steps summed in fresh registers, then added to the accumulators: the only chain
  // carried from group to group is one add per group (per step, BF16's GEMV was bound by it).
  const auto group_steps = [&](const Group(&groups)[C], int p, int values, auto load) __attribute__((always_inline)) {
    v128_t sum[R][C];
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) sum[r][c] = wasm_f32x4_splat(0.0f);
    for (int offset = 0; offset < values; offset += 8) step(sum, groups, offset, p + offset, load);
    into_acc(sum, groups);
  };
  const auto load = [&](const Group& group, int offset, v128_t& lo, v128_t& hi) __attribute__((always_inline)) {
    load8_unscaled<F, Prescaled>(group, offset, lo, hi, k);
  };
  Group groups[C];
  int p = 0;
  for (; p + kQ8BlockValues <= g.k; p += kQ8BlockValues) {  // whole groups of 32 (a Q8_0 block each)
    for (int c = 0; c < C; ++c) groups[c] = F::group(w[c], p);
    if constexpr (F::kFiniteFastPath && Prescaled) {
      bool special = false;
      if (!g.w_finite)
        for (int c = 0; c < C; ++c) special |= F::has_special(groups[c], k);
      if (__builtin_expect(special, 0)) {
        group_steps(groups, p, kQ8BlockValues, load);
      } else {
        const auto load_finite = [&](const Group& group, int offset, v128_t& lo, v128_t& hi)
            __attribute__((always_inline)) {
          F::load8_split_finite_prescaled(group, offset, lo, hi, k);
        };
        group_steps(groups, p, kQ8BlockValues, load_finite);
      }
    } else {
      group_steps(groups, p, kQ8BlockValues, load);
    }
  }
  for (; p + 8 <= g.k; p += 8) {
    for (int c = 0; c < C; ++c) groups[c] = F::group(w[c], p);
    group_steps(groups, p, 8, load);
  }
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      const v128_t v = acc[r][c];
      float sum = (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
                  (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
      for (int q = p; q < g.k; ++q) sum += a[r][q] * widen_value(F::kStorage, w[c], q, g.w_held_exponent);
      g.c[static_cast<std::size_t>(i0 + r) * g.ldc + j0 + c] = sum + (g.bias ? g.bias[j0 + c] : 0.0f);
    }
}

// W's rows C at a time (4 with 1 or 2 rows of A: the registers allow it; 2 with 3 or 4),
// each tile over all of A's rows, R <= 4 at a time. Three rows left run as 2 + 1 (W's rows
// read twice; a value's sum is the same whatever the tile): no tile of 3 rows to compile,
// which the one-file element's size budget counts (docs/embedding.md).
template <class F, int C, bool Prescaled>
void gemv_rows(const LowBitGemmArgs& g, int j0) {
  int i = 0;
  for (; i + 4 <= g.m; i += 4) gemv_tile<F, 4, (C > 2 ? 2 : C), Prescaled>(g, i, j0);
  if (g.m - i >= 2) {
    gemv_tile<F, 2, C, Prescaled>(g, i, j0);
    i += 2;
  }
  if (g.m - i == 1) gemv_tile<F, 1, C, Prescaled>(g, i, j0);
}

// With 1 or 2 rows of A, a tile takes F::kGemvTileRows rows of W: BF16 and Q8_0 one, so W
// is read as one sequential stream. Four rows side by side are four streams, each only a
// row long (1152 bytes for SmolLM2's BF16 rows of 576), too short for the hardware prefetcher:
// SmolLM2's BF16 LM head (49152 x 576) took 9.3 ms with 4 and 2.3 ms with 1 (25 GB/s), Q8_0's
// 14.3 and 7.7 ms. F16's widening is the bound, and its 4 independent rows keep it busier
// (with the finite fast path too: SmolLM2's 576 x 1536 0.12 ms with 4, 0.145 with 1). A
// value's sum is the same whatever the tile: the results do not change.
template <class F, bool Prescaled = false>
void gemv_on(const LowBitGemmArgs& g) {
  int j = 0;
  if (g.m <= 2 && F::kGemvTileRows == 1) {
    for (; j < g.n; ++j) gemv_rows<F, 1, Prescaled>(g, j);
  } else if (g.m <= 2) {
    for (; j + 4 <= g.n; j += 4) gemv_rows<F, 4, Prescaled>(g, j);
  } else {
    for (; j + 4 <= g.n; j += 4) {  // 2 rows of W at a time, twice: the same W rows, A's groups of 4
      gemv_rows<F, 2, Prescaled>(g, j);
      gemv_rows<F, 2, Prescaled>(g, j + 2);
    }
  }
  for (; j + 2 <= g.n; j += 2) gemv_rows<F, 2, Prescaled>(g, j);
  if (j < g.n) gemv_rows<F, 1, Prescaled>(g, j);
}

// Is every |A's value| in the first `upto` of each row below `below`? (NaN is not.)
inline bool all_below(const LowBitGemmArgs& g, int upto, float below) {
  const v128_t limit = wasm_f32x4_splat(below);
  v128_t below_all = wasm_i32x4_splat(-1);
  for (int i = 0; i < g.m; ++i) {
    const float* row = g.a + static_cast<std::size_t>(i) * g.lda;
    for (int p = 0; p + 4 <= upto; p += 4)
      below_all = wasm_v128_and(below_all, wasm_f32x4_lt(wasm_f32x4_abs(wasm_v128_load(row + p)), limit));
  }
  return wasm_i32x4_all_true(below_all);
}

// BF16 and F16 widen a lane's two halves in place (even and odd values), so A's rows are
// copied with each run of 8 values reordered 0 2 4 6 1 3 5 7 (the tail after the last whole
// 8 as it is): M x K floats, a small copy next to W's N x K values. F16's copy also takes
// the rebias (times F16::prescale) when every value it scales is small enough.
template <class F>
void gemv(const LowBitGemmArgs& g) {
  if (g.m <= 0 || g.n <= 0) return;
  if constexpr (!F::kSplit) {
    gemv_on<F>(g);
  } else {
    const int whole8 = g.k / 8 * 8;
    bool prescaled = false;
    float factor = 1.0f;  // times 1: the copy as it is
    if constexpr (F::kPrescalable) {
      prescaled = all_below(g, whole8, F::kPrescaleBelow);
      if (prescaled) factor = F::prescale(g);
    }
    const v128_t scale = wasm_f32x4_splat(factor);
    thread_local std::vector<float> reordered;
    reordered.resize(static_cast<std::size_t>(g.m) * std::max(g.k, 1));
    for (int i = 0; i < g.m; ++i) {
      const float* from = g.a + static_cast<std::size_t>(i) * g.lda;
      float* to = reordered.data() + static_cast<std::size_t>(i) * g.k;
      int p = 0;
      for (; p < whole8; p += 8) {
        const v128_t lo = wasm_f32x4_mul(wasm_v128_load(from + p), scale);
        const v128_t hi = wasm_f32x4_mul(wasm_v128_load(from + p + 4), scale);
        wasm_v128_store(to + p, wasm_i32x4_shuffle(lo, hi, 0, 2, 4, 6));
        wasm_v128_store(to + p + 4, wasm_i32x4_shuffle(lo, hi, 1, 3, 5, 7));
      }
      for (; p < g.k; ++p) to[p] = from[p];
    }
    LowBitGemmArgs on = g;
    on.a = reordered.data();
    on.lda = g.k;
    if constexpr (F::kPrescalable) {
      if (prescaled) {
        gemv_on<F, true>(on);
        return;
      }
    }
    gemv_on<F>(on);
  }
}

// A whole block of 32 values rounded as round_row does: d = max|x| / L (NaN with an infinity
// or NaN in the block, then q = 0), q = round(x / d) half away from zero, clamped to [-L, L].
// The quotient is f32x4.div's (IEEE, the scalar's); half away from zero as trunc(y) plus y's
// sign where |y - trunc(y)| >= 0.5 (y - trunc(y) is exact), which is std::round's value; the
// clamp and the narrowing conversions are exact on |q| <= L.
template <class Q>
inline void round_block(const float* x, Q* q, float& scale) {
  constexpr float kLargest = std::numeric_limits<Q>::max();
  v128_t v[kQ8BlockValues / 4];
  v128_t largest = wasm_f32x4_splat(0.0f);
  v128_t finite = wasm_i32x4_splat(-1);
  const v128_t infinity = wasm_f32x4_splat(std::numeric_limits<float>::infinity());
  for (int i = 0; i < kQ8BlockValues / 4; ++i) {
    v[i] = wasm_v128_load(x + 4 * i);
    const v128_t magnitude = wasm_f32x4_abs(v[i]);
    finite = wasm_v128_and(finite, wasm_f32x4_lt(magnitude, infinity));  // false for NaN
    largest = wasm_f32x4_pmax(largest, magnitude);
  }
  if (!wasm_i32x4_all_true(finite)) {
    scale = std::numeric_limits<float>::quiet_NaN();
    std::fill(q, q + kQ8BlockValues, Q{0});
    return;
  }
  largest = wasm_f32x4_pmax(largest, wasm_i32x4_shuffle(largest, largest, 2, 3, 0, 1));
  largest = wasm_f32x4_pmax(largest, wasm_i32x4_shuffle(largest, largest, 1, 0, 3, 2));
  const float d = wasm_f32x4_extract_lane(largest, 0) / kLargest;
  scale = d;
  if (!(d > 0.0f)) {
    std::fill(q, q + kQ8BlockValues, Q{0});
    return;
  }
  const v128_t dv = wasm_f32x4_splat(d), half = wasm_f32x4_splat(0.5f), one = wasm_f32x4_splat(1.0f);
  const v128_t top = wasm_f32x4_splat(kLargest), bottom = wasm_f32x4_splat(-kLargest);
  const v128_t sign_bit = wasm_i32x4_splat(static_cast<int>(0x80000000u));
  v128_t ints[kQ8BlockValues / 4];
  for (int i = 0; i < kQ8BlockValues / 4; ++i) {
    const v128_t y = wasm_f32x4_div(v[i], dv);
    const v128_t t = wasm_f32x4_trunc(y);
    const v128_t away = wasm_f32x4_ge(wasm_f32x4_abs(wasm_f32x4_sub(y, t)), half);
    const v128_t step = wasm_v128_and(away, wasm_v128_or(one, wasm_v128_and(y, sign_bit)));  // +-1 or 0
    const v128_t r = wasm_f32x4_min(top, wasm_f32x4_max(bottom, wasm_f32x4_add(t, step)));
    ints[i] = wasm_i32x4_trunc_sat_f32x4(r);
  }
  for (int i = 0; i < kQ8BlockValues / 8; ++i) {
    const v128_t q16 = wasm_i16x8_narrow_i32x4(ints[2 * i], ints[2 * i + 1]);
    if constexpr (sizeof(Q) == 2) {
      wasm_v128_store(q + 8 * i, q16);
    } else if (i % 2 == 1) {
      const v128_t previous = wasm_i16x8_narrow_i32x4(ints[2 * i - 2], ints[2 * i - 1]);
      wasm_v128_store(q + 8 * (i - 1), wasm_i8x16_narrow_i16x8(previous, q16));
    }
  }
}

}  // namespace

template <class Q>
void round_row_wasmsimd(const float* x, int k, Q* q, float* scales) {
  const int whole = k / kQ8BlockValues;
  for (int b = 0; b < whole; ++b) round_block(x + b * kQ8BlockValues, q + b * kQ8BlockValues, scales[b]);
  if (whole * kQ8BlockValues < k)
    round_row(x + whole * kQ8BlockValues, k - whole * kQ8BlockValues, q + whole * kQ8BlockValues, scales + whole);
}
template void round_row_wasmsimd<std::int16_t>(const float*, int, std::int16_t*, float*);
template void round_row_wasmsimd<std::int8_t>(const float*, int, std::int8_t*, float*);

namespace {

// Q8_0's GEMV in integers, with A's rows rounded per block of 32 (LowBitGemmArgs::activations,
// round_row): R rows of A by W's row j. Per block: the integer sum of q_w q_x in an i32x4
// (exact: each lane sums at most 32 products of at most 128 x 32767), converted to float and
// times d_w d_x into the row's accumulator, in the same order whatever the Dot below (so two
// Dots whose lanes hold the same integer sums give the same bits). W's padding in its last
// block meets A's zeros there, so every block is whole. kFinite (W's owner knows its values
// finite, LowBitGemmArgs::w_finite, so each scale is): the scale widens without widen_f16's
// infinity/NaN select and without its rebias, which x's block scales carry (q8_scale_prescaled:
// the same products).
//
// A Dot: X, a row of A as gemv_integer prepares it once per call, and block(w, x, b, sum):
// sum[r] += block b's products of W (w: its 32 int8) with row r's, in i32x4 lanes, lane i the
// values 4i .. 4i + 3 of each 16 (relaxed SIMD's i32x4.relaxed_dot_i8x16_i7x16_add_s sums so).
// Four blocks at a time sum each block's lanes into one integer first, x's rows advanced to block
// b by at(x, b); the last blocks, fewer than four, take the per-lane epilogue, hence every Dot's
// matching lanes (and the interleaved GEMV's, below: the same bits).
//   PlainDot (q8Activations 'int16'; and 'int8' without relaxed SIMD): int16 dots, W's 16 bytes
//     shuffled so that the low 8 are values 0 1 4 5 8 9 12 13 and the high 8 are 2 3 6 7 10
//     11 14 15, each widened and i32x4.dot_i16x8_s with x's int16 in the same order: lane i
//     of the two dots' sum is 4i .. 4i + 3. (int16's lanes were values 2i, 2i + 1 of each 8, one
//     block at a time, until its interleaved GEMV had to give the same bits: docs/performance.md.)
//   Int8Dot (q8Activations 'int8', ggml's Q8_0 x Q8_0). Three ways, the
//     fastest the engine computes right (kernels::int8_dot(): Int8DotUnsigned, Int8DotRelaxed,
//     PlainDot; engine.kernels.int8Dot 'unsigned', 'split', 'plain'):
//     Unsigned: where the runtime's relaxed dot takes its second operand's bytes as unsigned and
//     sums exactly (AVX-VNNI's vpdpbusd, Chromium's lowering there: relaxed_dot_unsigned), W's
//     bytes flipped to q_w + 128 in [0, 255] against q_x, one dot per 16 values and x's offset,
//     128 sum q_x, subtracted (Int8DotUnsigned, below: about 10% less a step than the split where
//     W is in cache, docs/performance.md).
//     Relaxed (split): its second operand must be in [0, 127] for the same result on every engine, so
//     x is split into its positive and negative parts, b+ = max(q_x, 0) and b- = max(-q_x, 0)
//     (both precomputed per call): q_w q_x = q_w b+ - q_w b-, two dots per 16 values per row
//     of A into two sums, one subtract per block (was ggml's sign transfer, a = (q_w ^ m) - m
//     against |q_x|: an xor, a subtract and a dot per 16 values; measured in
//     docs/performance.md, "Decoding in the browser"). The split holds for any q_w, -128 too.
//     Plain: PlainDot on q_x widened to int16.
// A Dot whose lanes are the exact sums as they come: four_blocks_exact(t, x, b) and
// lanes_exact(lanes, x, b) (the four-block epilogue's block sums, the last blocks' lanes) give
// them back as they are; Int8DotUnsigned subtracts x's offsets there instead.
struct ExactLanes {
  template <class X>
  static inline v128_t four_blocks_exact(v128_t t, const X&, int) {
    return t;
  }
  template <class X>
  static inline v128_t lanes_exact(v128_t lanes, const X&, int) {
    return lanes;
  }
};

struct PlainDot : ExactLanes {
  struct X {
    const std::int16_t* q;  // (M, blocks x 32): q_x as int16, each 16 in the order 0 1 4 5 8 9 12 13 2 3 6 7 ...
  };
  static inline X at(const X& x, int b) { return {x.q + static_cast<std::size_t>(b) * kQ8BlockValues}; }
  static constexpr int kOrder[16] = {0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15};
  // |q_w q_x| <= 128 x 32767: a dot's lane (2 products) and a block's lane (8) fit int32 easily.
  template <int R>
  static inline void block(const std::uint8_t* w, const X (&x)[R], int b, v128_t (&sum)[R]) {
    for (int offset = 0; offset < kQ8BlockValues; offset += 16) {
      const v128_t v = wasm_v128_load(w + offset);
      const v128_t s = wasm_i8x16_shuffle(v, v, 0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);
      const v128_t lo = wasm_i16x8_extend_low_i8x16(s), hi = wasm_i16x8_extend_high_i8x16(s);
      for (int r = 0; r < R; ++r) {
        const std::int16_t* xq = x[r].q + b * kQ8BlockValues + offset;
        const v128_t two = wasm_i32x4_add(wasm_i32x4_dot_i16x8(lo, wasm_v128_load(xq)),
                                          wasm_i32x4_dot_i16x8(hi, wasm_v128_load(xq + 8)));
        sum[r] = wasm_i32x4_add(sum[r], two);
      }
    }
  }
};

struct Int8DotRelaxed : ExactLanes {
  struct X {
    const std::uint8_t* positive;  // (M, blocks x 32): max(q_x, 0)
    const std::uint8_t* negative;  // (M, blocks x 32): max(-q_x, 0)
  };
  static inline X at(const X& x, int b) {
    const std::size_t at = static_cast<std::size_t>(b) * kQ8BlockValues;
    return {x.positive + at, x.negative + at};
  }
  template <int R>
  static inline void block(const std::uint8_t* w, const X (&x)[R], int b, v128_t (&sum)[R]) {
    v128_t negative[R];
    for (int r = 0; r < R; ++r) negative[r] = wasm_i32x4_splat(0);
    for (int offset = 0; offset < kQ8BlockValues; offset += 16) {
      const v128_t v = wasm_v128_load(w + offset);
      for (int r = 0; r < R; ++r) {
        const std::size_t at = static_cast<std::size_t>(b) * kQ8BlockValues + offset;
        sum[r] = attention_relaxed_dot_i8x16_i7x16_add_s(v, wasm_v128_load(x[r].positive + at), sum[r]);
        negative[r] = attention_relaxed_dot_i8x16_i7x16_add_s(v, wasm_v128_load(x[r].negative + at), negative[r]);
      }
    }
    for (int r = 0; r < R; ++r) sum[r] = wasm_i32x4_sub(sum[r], negative[r]);
  }
};

// Int8DotUnsigned: a = q_x (signed) against b = q_w XOR 0x80 = q_w + 128 (unsigned, [0, 255]),
// one relaxed dot per 16 values per row of A: lane i gets the plain lane plus 128 times the sum of
// q_x over the same bytes, an offset of x alone, computed once per call (x is shared by every row
// of W) and subtracted: per block from the four-block epilogue's block sums (X::block_offsets), per
// lane in the last blocks' (X::lane_offsets). The same integers as the plain twin, so the same
// bits. Only where relaxed_dot_unsigned() (relaxed_simd.hpp) found the engine's dot unsigned and
// exact for b in [128, 255] (AVX-VNNI's vpdpbusd); an xor and a dot per 16 values where the split
// takes two dots and a second load of x.
struct Int8DotUnsigned {
  struct X {
    const std::int8_t* q;               // (M, blocks x 32): q_x
    const std::int32_t* block_offsets;  // (M, blocks): 128 sum of q_x over the block
    const std::int32_t* lane_offsets;   // (M, blocks x 4): lane i, 128 sum of q_x over bytes 4i .. 4i + 3 of each 16
    v128_t flip;                        // 0x80 in each byte, built from opaque_zero() (see there) once per call
  };
  static inline X at(const X& x, int b) {
    return {x.q + static_cast<std::size_t>(b) * kQ8BlockValues, x.block_offsets + b,
            x.lane_offsets + 4 * static_cast<std::size_t>(b), x.flip};
  }
  template <int R>
  static inline void block(const std::uint8_t* w, const X (&x)[R], int b, v128_t (&sum)[R]) {
    for (int offset = 0; offset < kQ8BlockValues; offset += 16) {
      const v128_t v = wasm_v128_xor(wasm_v128_load(w + offset), x[0].flip);
      for (int r = 0; r < R; ++r) {
        const std::size_t at = static_cast<std::size_t>(b) * kQ8BlockValues + offset;
        sum[r] = attention_relaxed_dot_i8x16_i7x16_add_s(wasm_v128_load(x[r].q + at), v, sum[r]);
      }
    }
  }
  // The four blocks' sums t (lane q: block b + q) and one block's lanes without x's offsets.
  static inline v128_t four_blocks_exact(v128_t t, const X& x, int b) {
    return wasm_i32x4_sub(t, wasm_v128_load(x.block_offsets + b));
  }
  static inline v128_t lanes_exact(v128_t lanes, const X& x, int b) {
    return wasm_i32x4_sub(lanes, wasm_v128_load(x.lane_offsets + 4 * static_cast<std::size_t>(b)));
  }
};

// kFinite: the scales' bits as float32's, dw 2^-112 exactly (F16::widen4_high without its rebias;
// for zeros, subnormals and normals): x's block scales carry the 2^112 instead (dx 2^112, exact:
// gemv_integer_on), so dw 2^-112 times dx 2^112 is the real number dw dx and rounds to the same
// float as before, the sums in the same order: the same bits, 2 operations per four scales instead
// of 6 (LowBitGemm.Int8GemvGivesTheSameBitsWithTheRebiasInX).
inline float q8_scale_prescaled(std::uint16_t h) {
  return float_from_bits(static_cast<std::uint32_t>(static_cast<std::int32_t>(std::uint32_t{h} << 16) >> 3) &
                         0x8fffe000u);
}

template <int R, bool kFinite, class Dot>
void gemv_integer_tile(const LowBitGemmArgs& g, const typename Dot::X* xs, const float* da, int i0, int j) {
  const int blocks = q8_blocks(g.k);
  typename Dot::X x[R];
  const float* dx[R];  // kFinite: times 2^112
  for (int r = 0; r < R; ++r) {
    x[r] = xs[i0 + r];
    dx[r] = da + static_cast<std::size_t>(i0 + r) * blocks;
  }
  const std::uint8_t* w = g.w + static_cast<std::size_t>(j) * g.w_row_bytes;
  v128_t acc[R];
  for (int r = 0; r < R; ++r) acc[r] = wasm_f32x4_splat(0.0f);
  int b = 0;
  // Four blocks' sums, each reduced across its lanes (exact, in integers) into one lane of t
  // (lane q: block b + q), converted at once and times their d_w d_x, a vector of four: one
  // float epilogue per four blocks instead of one per block (with its scale's widening), the
  // bound of the GEMV once its dot is one instruction (docs/performance.md).
  const v128_t moved = splat_bits(0x8fffe000u, opaque_zero());  // F16::Consts::moved_odd
  for (; b + 4 <= blocks; b += 4) {
    const std::uint8_t* block = w + static_cast<std::size_t>(b) * kQ8BlockBytes;
    // x's rows from block b on: the four blocks' loads at constant offsets from one address
    // (indexed by b + q, each x address took an or and an add: 12 scalar operations per four blocks)
    typename Dot::X xb[R];
    for (int r = 0; r < R; ++r) xb[r] = Dot::at(x[r], b);
    v128_t sum[4][R];
    for (int q = 0; q < 4; ++q) {
      for (int r = 0; r < R; ++r) sum[q][r] = wasm_i32x4_splat(0);
      Dot::block(block + q * kQ8BlockBytes + 2, xb, q, sum[q]);
    }
    // The four scales, each loaded in place into a lane of zeros (v128.load16_lane: 4
    // operations instead of 4 scalar loads and i32x4.make; measured in docs/performance.md):
    // kFinite into the lane's upper half, widened to dw 2^-112 (q8_scale_prescaled); else into
    // its lower half, F16's widen4 with the infinity/NaN select.
    v128_t dw;
    if constexpr (kFinite) {
      v128_t h = wasm_v128_load16_lane(block, wasm_i32x4_splat(0), 1);
      h = wasm_v128_load16_lane(block + kQ8BlockBytes, h, 3);
      h = wasm_v128_load16_lane(block + 2 * kQ8BlockBytes, h, 5);
      h = wasm_v128_load16_lane(block + 3 * kQ8BlockBytes, h, 7);
      dw = wasm_v128_and(wasm_i32x4_shr(h, 3), moved);
    } else {
      v128_t h = wasm_v128_load16_lane(block, wasm_i32x4_splat(0), 0);
      h = wasm_v128_load16_lane(block + kQ8BlockBytes, h, 2);
      h = wasm_v128_load16_lane(block + 2 * kQ8BlockBytes, h, 4);
      h = wasm_v128_load16_lane(block + 3 * kQ8BlockBytes, h, 6);
      dw = F16::widen4(h);
    }
    for (int r = 0; r < R; ++r) {
      const v128_t s01 = wasm_i32x4_add(wasm_i32x4_shuffle(sum[0][r], sum[1][r], 0, 2, 4, 6),
                                        wasm_i32x4_shuffle(sum[0][r], sum[1][r], 1, 3, 5, 7));
      const v128_t s23 = wasm_i32x4_add(wasm_i32x4_shuffle(sum[2][r], sum[3][r], 0, 2, 4, 6),
                                        wasm_i32x4_shuffle(sum[2][r], sum[3][r], 1, 3, 5, 7));
      const v128_t t = Dot::four_blocks_exact(
          wasm_i32x4_add(wasm_i32x4_shuffle(s01, s23, 0, 2, 4, 6), wasm_i32x4_shuffle(s01, s23, 1, 3, 5, 7)), xb[r], 0);
      acc[r] = wasm_f32x4_add(
          acc[r], wasm_f32x4_mul(wasm_f32x4_convert_i32x4(t), wasm_f32x4_mul(dw, wasm_v128_load(dx[r] + b))));
    }
  }
  for (; b < blocks; ++b) {
    const std::uint8_t* block = w + static_cast<std::size_t>(b) * kQ8BlockBytes;
    const std::uint16_t h = load_u16(block);
    const float dw = kFinite ? q8_scale_prescaled(h) : widen_f16(h);
    v128_t sum[R];
    for (int r = 0; r < R; ++r) sum[r] = wasm_i32x4_splat(0);
    Dot::block(block + 2, x, b, sum);
    for (int r = 0; r < R; ++r)
      acc[r] = wasm_f32x4_add(acc[r], wasm_f32x4_mul(wasm_f32x4_convert_i32x4(Dot::lanes_exact(sum[r], x[r], b)),
                                                     wasm_f32x4_splat(dw * dx[r][b])));
  }
  for (int r = 0; r < R; ++r) {
    const v128_t v = acc[r];
    const float sum = (wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1)) +
                      (wasm_f32x4_extract_lane(v, 2) + wasm_f32x4_extract_lane(v, 3));
    g.c[static_cast<std::size_t>(i0 + r) * g.ldc + j] = sum + (g.bias ? g.bias[j] : 0.0f);
  }
}

// W's rows one at a time, each against up to 4 rows of A: W is read as one sequential stream
// (kGemvTileRows 1). At M = 1 (decode) in a loop of its own, with g and x's row copied: the
// .wasm then has gemv_integer_tile<1> as a function of its own (about 530 lines of text) where
// it was inlined beside the 4- and 2-row tiles into one of 15,500, and decodes faster
// (docs/performance.md; which of the two made the difference was not measured apart).
template <bool kFinite, class Dot>
void gemv_integer_rows(const LowBitGemmArgs& args, const typename Dot::X* x, const float* da) {
  const LowBitGemmArgs g = args;
  if (g.m == 1) {
    const typename Dot::X x0[1] = {x[0]};
    for (int j = 0; j < g.n; ++j) gemv_integer_tile<1, kFinite, Dot>(g, x0, da, 0, j);
    return;
  }
  for (int j = 0; j < g.n; ++j) {
    int i = 0;
    for (; i + 4 <= g.m; i += 4) gemv_integer_tile<4, kFinite, Dot>(g, x, da, i, j);
    if (g.m - i >= 2) {  // three rows left: 2 + 1, as gemv_rows
      gemv_integer_tile<2, kFinite, Dot>(g, x, da, i, j);
      i += 2;
    }
    if (g.m - i == 1) gemv_integer_tile<1, kFinite, Dot>(g, x, da, i, j);
  }
}

// da: x's block scales (M x blocks), which W finite (kFinite) takes times 2^112, in place, where
// every one is below 2^16 (exact, and below float32's 2^128: not NaN or infinite); a call with
// one that is not (rare: a model's activations stay far below 127 x 2^16) takes the select's
// tiles, the same floats (so the tiles are compiled twice, not three times).
template <class Dot>
void gemv_integer_on(const LowBitGemmArgs& g, const typename Dot::X* x, float* da) {
  const std::size_t scales = static_cast<std::size_t>(g.m) * q8_blocks(g.k);
  bool below = g.w_finite;
  for (std::size_t i = 0; below && i < scales; ++i) below = da[i] < 0x1.0p16f;
  if (!below) return gemv_integer_rows<false, Dot>(g, x, da);
  for (std::size_t i = 0; i < scales; ++i) da[i] *= 0x1.0p112f;
  gemv_integer_rows<true, Dot>(g, x, da);
}

// Per lane i, the sum of x's values 4i .. 4i + 3 of each 16 over a block of 32 (exact: pairwise
// widening adds; int16's |sum| <= 8 x 32767).
inline v128_t lane_sums(const std::int8_t* q) {
  return wasm_i32x4_add(wasm_i32x4_extadd_pairwise_i16x8(wasm_i16x8_extadd_pairwise_i8x16(wasm_v128_load(q))),
                        wasm_i32x4_extadd_pairwise_i16x8(wasm_i16x8_extadd_pairwise_i8x16(wasm_v128_load(q + 16))));
}
inline v128_t lane_sums(const std::int16_t* q) {
  v128_t lanes = wasm_i32x4_splat(0);
  for (int h = 0; h < kQ8BlockValues; h += 16) {
    const v128_t lo = wasm_i32x4_extadd_pairwise_i16x8(wasm_v128_load(q + h));  // values (0 1) (2 3) (4 5) (6 7)
    const v128_t hi = wasm_i32x4_extadd_pairwise_i16x8(wasm_v128_load(q + h + 8));
    lanes = wasm_i32x4_add(
        lanes, wasm_i32x4_add(wasm_i32x4_shuffle(lo, hi, 0, 2, 4, 6), wasm_i32x4_shuffle(lo, hi, 1, 3, 5, 7)));
  }
  return lanes;
}

// A's rows rounded per call (round_row_wasmsimd to Q's levels: M x K values, cheap next to W's
// N x K) into this thread's buffers, valid until its next round_a<Q>: q (M, blocks x 32) and da
// (M, blocks), x's block scales. With `offsets`, also x's offsets for a dot against W's bytes
// flipped to u = q_w + 128 (Int8DotUnsigned, the interleaved GEMV): u q_x sums q_w q_x + 128 q_x,
// so per block 128 sum q_x (block_offsets, (M, blocks)) and per lane i 128 times lane_sums' lane i
// (lane_offsets, (M, blocks x 4)); int16's |128 sum q_x| <= 128 x 32 x 32767 < 2^31.
template <class Q>
struct RoundedA {
  int blocks = 0;              // per row
  std::size_t row_values = 0;  // blocks x 32
  std::vector<Q> q;
  std::vector<float> da;
  std::vector<std::int32_t> block_offsets, lane_offsets;
};

template <class Q>
RoundedA<Q>& round_a(const LowBitGemmArgs& g, bool offsets) {
  thread_local RoundedA<Q> x;
  x.blocks = q8_blocks(g.k);
  x.row_values = static_cast<std::size_t>(x.blocks) * kQ8BlockValues;
  const std::size_t all_blocks = static_cast<std::size_t>(g.m) * x.blocks;
  x.q.resize(all_blocks * kQ8BlockValues);
  x.da.resize(all_blocks);
  for (int i = 0; i < g.m; ++i)
    round_row_wasmsimd(g.a + static_cast<std::size_t>(i) * g.lda, g.k, x.q.data() + i * x.row_values,
                       x.da.data() + static_cast<std::size_t>(i) * x.blocks);
  if (offsets) {
    x.block_offsets.resize(all_blocks);
    x.lane_offsets.resize(4 * all_blocks);
    for (std::size_t b = 0; b < all_blocks; ++b) {
      const v128_t lanes = wasm_i32x4_shl(lane_sums(x.q.data() + b * kQ8BlockValues), 7);
      wasm_v128_store(x.lane_offsets.data() + 4 * b, lanes);
      x.block_offsets[b] = wasm_i32x4_extract_lane(lanes, 0) + wasm_i32x4_extract_lane(lanes, 1) +
                           wasm_i32x4_extract_lane(lanes, 2) + wasm_i32x4_extract_lane(lanes, 3);
    }
  }
  return x;
}

// PlainDot's rows of x: a's q as int16, each 16 in PlainDot::kOrder (this thread's buffers).
template <class Q>
const PlainDot::X* plain_dot_x(const LowBitGemmArgs& g, const RoundedA<Q>& a) {
  thread_local std::vector<std::int16_t> q16;
  thread_local std::vector<PlainDot::X> x;
  q16.resize(a.q.size());
  for (std::size_t v = 0; v < q16.size(); v += 16)
    for (int p = 0; p < 16; ++p) q16[v + p] = a.q[v + PlainDot::kOrder[p]];
  x.resize(static_cast<std::size_t>(g.m));
  for (int i = 0; i < g.m; ++i) x[i] = {q16.data() + i * a.row_values};
  return x.data();
}

// A's rows rounded once per call, then W's rows. Int16: PlainDot. Int8: kRelaxed, its fastest
// relaxed Dot the engine computes right (int8_dot(): unsigned, else split), else PlainDot.
template <bool kRelaxed>
void gemv_integer(const LowBitGemmArgs& g) {
  if (g.m <= 0 || g.n <= 0) return;
  if (g.activations == Q8Activations::Int16) {
    RoundedA<std::int16_t>& a = round_a<std::int16_t>(g, false);
    return gemv_integer_on<PlainDot>(g, plain_dot_x(g, a), a.da.data());
  }
  const Int8Dot dot = kRelaxed ? int8_dot() : Int8Dot::Plain;
  RoundedA<std::int8_t>& a = round_a<std::int8_t>(g, dot == Int8Dot::Unsigned);
  if (dot == Int8Dot::Unsigned) {
    thread_local std::vector<Int8DotUnsigned::X> x;
    x.resize(static_cast<std::size_t>(g.m));
    const v128_t flip = wasm_i8x16_splat(static_cast<std::int8_t>(0x80 + opaque_zero()));
    for (int i = 0; i < g.m; ++i)
      x[i] = {a.q.data() + i * a.row_values, a.block_offsets.data() + static_cast<std::size_t>(i) * a.blocks,
              a.lane_offsets.data() + 4 * static_cast<std::size_t>(i) * a.blocks, flip};
    return gemv_integer_on<Int8DotUnsigned>(g, x.data(), a.da.data());
  }
  if (dot == Int8Dot::Split) {
    thread_local std::vector<std::uint8_t> positive;
    thread_local std::vector<std::uint8_t> negative;
    thread_local std::vector<Int8DotRelaxed::X> x;
    const std::size_t values = a.q.size();
    positive.resize(values);
    negative.resize(values);
    x.resize(static_cast<std::size_t>(g.m));
    const v128_t zero = wasm_i8x16_splat(0);
    for (std::size_t v = 0; v < values; v += 16) {
      const v128_t q = wasm_v128_load(a.q.data() + v);  // in [-127, 127]: -q does not wrap
      wasm_v128_store(positive.data() + v, wasm_i8x16_max(q, zero));
      wasm_v128_store(negative.data() + v, wasm_i8x16_max(wasm_i8x16_neg(q), zero));
    }
    for (int i = 0; i < g.m; ++i) x[i] = {positive.data() + i * a.row_values, negative.data() + i * a.row_values};
    return gemv_integer_on<Int8DotRelaxed>(g, x.data(), a.da.data());
  }
  gemv_integer_on<PlainDot>(g, plain_dot_x(g, a), a.da.data());
}

// ---- Q8_0 interleaved by 4 rows (storage.hpp's Q8Layout::Interleaved4): decode's integer GEMV.
// W: groups of 4 rows, each blocks x kQ8x4BlockBytes (144) bytes: per block the 4 rows' scales as
// float32, then 8 chunks of 16 bytes, chunk c holding rows 0 .. 3's values 4c .. 4c + 3 (4 bytes a
// row), flipped to u = q_w + 128 in [0, 255]. Per chunk, x's 4 values as a splat against the
// chunk's 16 bytes give rows 0 .. 3's partial sums in lanes 0 .. 3: no xor, no lane reduction, one
// float epilogue per block for 4 rows. Each lane sums u q_x = q_w q_x + 128 q_x, so x's offset (128
// sum q_x, the same for every row: round_a's offsets) is subtracted, as Int8DotUnsigned does.
// Two dots, the same integers:
//   X4DotUnsigned: relaxed SIMD's dot, one per chunk (q_x signed against u unsigned), only where
//     int8_dot() is Unsigned (relaxed_simd.hpp: AVX-VNNI's vpdpbusd; Chromium on x86).
//   X4DotPlain: wasm SIMD 128 only (Node 20, ARM, a capped engine), and int16 activations
//     everywhere: u's 16 bytes widened to two u16x8 (rows 0-1, rows 2-3), x's 4 values as int16
//     twice (one load64_splat; int8's q_x widened once per call, int16's as rounded), one
//     i32x4.dot_i16x8_s each (lane 2r + h: row r's values 2h, 2h + 1), the two halves' sums kept
//     apart over the block and their lanes combined pairwise once (rows(), below). No overflow
//     with int16's q_x: |u q_x| <= 255 x 32767, so a row's sum over a block (32 products) and
//     128 sum q_x stay below 2^28.
// The float epilogue is gemv_integer_tile's, row by row, bit for bit (so the results are the
// row-major integer GEMV's, with any of its dots): acc[k][i]'s lane r is that tile's acc lane i for
// row r of group k (whole runs of four blocks: lane i takes block b + i's sum, float(t) times
// (d_w d_x); the last blocks, fewer than four: lane i takes the block's sum over values 4i .. 4i +
// 3 of each 16, i.e. chunks i and i + 4, minus x's lane offset), and the final (l0 + l1) + (l2 +
// l3) + bias is the same adds for 4 rows at once. The scales are float32 already, widened exactly
// at interleave: d_w d_x is the real product the tile's F16 (or prescaled, kFinite) scales give,
// rounded once, so w_finite changes nothing here.
// Q8X4_GROUPS groups (4 x Q8X4_GROUPS rows of W) per pass share x's loads (the prototype, branch
// q8x4-probe, measured 2 faster than 1 in Chromium with the unsigned dot, and so was the plain dot
// here, though 1 was faster for it in Node: docs/performance.md); an odd last group runs alone.
#ifndef Q8X4_GROUPS
#define Q8X4_GROUPS 2
#endif

struct X4DotUnsigned {
  using Q = std::int8_t;  // x's values as the dot takes them: q_x
  struct Acc {
    v128_t s;
  };
  // x's offset (minus 128 sum q_x, a splat) as the sums' start: no subtract
  static inline Acc start(v128_t offset) { return {offset}; }
  static inline v128_t with_offset(v128_t rows, v128_t) { return rows; }
  static inline v128_t x4(const Q* q) { return wasm_v128_load32_splat(q); }
  static inline void chunk(Acc& acc, v128_t x, const std::uint8_t* w) {
    acc.s = attention_relaxed_dot_i8x16_i7x16_add_s(x, wasm_v128_load(w), acc.s);
  }
  static inline v128_t rows(const Acc& acc) { return acc.s; }
};

struct X4DotPlain {
  using Q = std::int16_t;  // q_x as int16 (int8's widened), so that 4 values are one load64_splat
  struct Acc {
    v128_t lo, hi;  // rows 0-1 and rows 2-3, each row's sum in two lanes
  };
  // rows() adds lane pairs, so x's offset is added to its result (one add) rather than started from
  static inline Acc start(v128_t) { return {wasm_i32x4_splat(0), wasm_i32x4_splat(0)}; }
  static inline v128_t with_offset(v128_t rows, v128_t offset) { return wasm_i32x4_add(rows, offset); }
  static inline v128_t x4(const Q* q) { return wasm_v128_load64_splat(q); }
  static inline void chunk(Acc& acc, v128_t x, const std::uint8_t* w) {
    const v128_t u = wasm_v128_load(w);
    acc.lo = wasm_i32x4_add(acc.lo, wasm_i32x4_dot_i16x8(wasm_u16x8_extend_low_u8x16(u), x));
    acc.hi = wasm_i32x4_add(acc.hi, wasm_i32x4_dot_i16x8(wasm_u16x8_extend_high_u8x16(u), x));
  }
  static inline v128_t rows(const Acc& acc) {
    return wasm_i32x4_add(wasm_i32x4_shuffle(acc.lo, acc.hi, 0, 2, 4, 6),
                          wasm_i32x4_shuffle(acc.lo, acc.hi, 1, 3, 5, 7));
  }
};

// G groups of W (from group0) against one row of A: q its values (Dot::Q), dx its block scales,
// negative_offsets minus x's block offsets, lane_offsets x's lane offsets (round_a),
// out_row its row of C.
template <int G, class Dot>
void gemv_q8_0x4_groups(const std::uint8_t* w, std::size_t group_bytes, int n, int blocks, int group0,
                        const typename Dot::Q* q, const float* dx, const std::int32_t* negative_offsets,
                        const std::int32_t* lane_offsets, const float* bias, float* out_row) {
  const std::uint8_t* p[G];
  v128_t acc[G][4];
  for (int k = 0; k < G; ++k) {
    p[k] = w + static_cast<std::size_t>(group0 + k) * group_bytes;
    for (int i = 0; i < 4; ++i) acc[k][i] = wasm_f32x4_splat(0.0f);
  }
  int b = 0;
  for (; b + 4 <= blocks; b += 4) {
    // Unrolled so that acc[] stays in locals (LLVM 14 otherwise keeps a loop over i with acc in
    // memory). The even and odd chunks in two sums (two dependency chains), minus x's offset
    // (Dot::start, Dot::with_offset).
#pragma clang loop unroll(full)
    for (int i = 0; i < 4; ++i) {
      const std::size_t at = static_cast<std::size_t>(b + i) * kQ8x4BlockBytes;
      const typename Dot::Q* xq = q + static_cast<std::size_t>(b + i) * kQ8BlockValues;
      const v128_t offset = wasm_v128_load32_splat(negative_offsets + b + i);
      typename Dot::Acc s0[G], s1[G];
      for (int k = 0; k < G; ++k) {
        s0[k] = Dot::start(offset);
        s1[k] = Dot::start(wasm_i32x4_splat(0));
      }
#pragma clang loop unroll(full)
      for (int c = 0; c < kQ8BlockValues / 4; c += 2) {
        const v128_t x0 = Dot::x4(xq + 4 * c), x1 = Dot::x4(xq + 4 * c + 4);
        for (int k = 0; k < G; ++k) {
          const std::uint8_t* quants = p[k] + at + kQ8x4ScaleBytes + 16 * c;
          Dot::chunk(s0[k], x0, quants);
          Dot::chunk(s1[k], x1, quants + 16);
        }
      }
      const v128_t d = wasm_v128_load32_splat(dx + b + i);
      for (int k = 0; k < G; ++k) {
        const v128_t t = Dot::with_offset(wasm_i32x4_add(Dot::rows(s0[k]), Dot::rows(s1[k])), offset);
        acc[k][i] = wasm_f32x4_add(
            acc[k][i], wasm_f32x4_mul(wasm_f32x4_convert_i32x4(t), wasm_f32x4_mul(wasm_v128_load(p[k] + at), d)));
      }
    }
  }
  for (; b < blocks; ++b) {
    const std::size_t at = static_cast<std::size_t>(b) * kQ8x4BlockBytes;
    const typename Dot::Q* xq = q + static_cast<std::size_t>(b) * kQ8BlockValues;
    for (int k = 0; k < G; ++k) {
      typename Dot::Acc s[4];
      for (int i = 0; i < 4; ++i) s[i] = Dot::start(wasm_i32x4_splat(0));
      for (int c = 0; c < kQ8BlockValues / 4; ++c)
        Dot::chunk(s[c % 4], Dot::x4(xq + 4 * c), p[k] + at + kQ8x4ScaleBytes + 16 * c);
      const v128_t d = wasm_f32x4_mul(wasm_v128_load(p[k] + at), wasm_v128_load32_splat(dx + b));
      for (int i = 0; i < 4; ++i) {
        const v128_t lanes =
            wasm_i32x4_sub(Dot::rows(s[i]), wasm_v128_load32_splat(lane_offsets + 4 * static_cast<std::size_t>(b) + i));
        acc[k][i] = wasm_f32x4_add(acc[k][i], wasm_f32x4_mul(wasm_f32x4_convert_i32x4(lanes), d));
      }
    }
  }
  for (int k = 0; k < G; ++k) {
    const int j = (group0 + k) * kQ8x4Rows;
    const v128_t sum = wasm_f32x4_add(wasm_f32x4_add(acc[k][0], acc[k][1]), wasm_f32x4_add(acc[k][2], acc[k][3]));
    if (n - j >= kQ8x4Rows) {
      wasm_v128_store(out_row + j, wasm_f32x4_add(sum, bias ? wasm_v128_load(bias + j) : wasm_f32x4_splat(0.0f)));
    } else {  // the last group's rows past n are padding: C is not written there
      float out[kQ8x4Rows];
      wasm_v128_store(out, sum);
      for (int r = 0; r < n - j; ++r) out_row[j + r] = out[r] + (bias ? bias[j + r] : 0.0f);
    }
  }
}

// W's groups against one row of A (its values q, scales dx, offsets as above), into its row c of C.
template <class Dot>
void gemv_q8_0x4_row(const LowBitGemmArgs& g, const typename Dot::Q* q, const float* dx,
                     const std::int32_t* negative_offsets, const std::int32_t* lane_offsets, float* c) {
  const int blocks = q8_blocks(g.k);
  const int groups = (g.n + kQ8x4Rows - 1) / kQ8x4Rows;
  const std::size_t group_bytes = kQ8x4Rows * g.w_row_bytes;
  int group = 0;
  if constexpr (Q8X4_GROUPS > 1)
    for (; group + Q8X4_GROUPS <= groups; group += Q8X4_GROUPS)
      gemv_q8_0x4_groups<Q8X4_GROUPS, Dot>(g.w, group_bytes, g.n, blocks, group, q, dx, negative_offsets, lane_offsets,
                                           g.bias, c);
  for (; group < groups; ++group)
    gemv_q8_0x4_groups<1, Dot>(g.w, group_bytes, g.n, blocks, group, q, dx, negative_offsets, lane_offsets, g.bias, c);
}

// A's rows rounded once per call (round_a, as gemv_integer), then W's groups against each row of A
// in turn. Int8: kRelaxed, the unsigned relaxed dot where int8_dot() is Unsigned, else the plain
// one on q_x widened. Int16: the plain one on q_x as rounded.
template <bool kRelaxed>
void gemv_q8_0x4(const LowBitGemmArgs& g) {
  if (g.m <= 0 || g.n <= 0) return;
  const auto each_row = [&](auto dot, auto& a, const typename decltype(dot)::Q* q) {
    using Dot = decltype(dot);
    for (auto& offset : a.block_offsets) offset = -offset;
    for (int i = 0; i < g.m; ++i)
      gemv_q8_0x4_row<Dot>(g, q + i * a.row_values, a.da.data() + static_cast<std::size_t>(i) * a.blocks,
                           a.block_offsets.data() + static_cast<std::size_t>(i) * a.blocks,
                           a.lane_offsets.data() + 4 * static_cast<std::size_t>(i) * a.blocks,
                           g.c + static_cast<std::size_t>(i) * g.ldc);
  };
  if (g.activations == Q8Activations::Int16) {
    RoundedA<std::int16_t>& a = round_a<std::int16_t>(g, true);
    return each_row(X4DotPlain{}, a, a.q.data());
  }
  RoundedA<std::int8_t>& a = round_a<std::int8_t>(g, true);
  if (kRelaxed && int8_dot() == Int8Dot::Unsigned) return each_row(X4DotUnsigned{}, a, a.q.data());
  thread_local std::vector<std::int16_t> q16;
  q16.resize(a.q.size());
  for (std::size_t v = 0; v < q16.size(); v += 16) {
    const v128_t x = wasm_v128_load(a.q.data() + v);
    wasm_v128_store(q16.data() + v, wasm_i16x8_extend_low_i8x16(x));
    wasm_v128_store(q16.data() + v + 8, wasm_i16x8_extend_high_i8x16(x));
  }
  each_row(X4DotPlain{}, a, q16.data());
}

// A kernel on floats: with activations Int16 or Int8, on A's rows rounded and widened back.
template <void (*Kernel)(const LowBitGemmArgs&)>
void on_float_a(const LowBitGemmArgs& g) {
  if (g.activations == Q8Activations::F32) return Kernel(g);
  thread_local std::vector<float> rounded;
  Kernel(with_rounded_a(g, rounded));
}

// Rows [j0, j0 + rows) of W widened into float rows of K (8 values at a time).
template <class F>
void widen_rows(const LowBitGemmArgs& g, int j0, int rows, float* out) {
  const v128_t rebias = wasm_f32x4_splat(f16_rebias(g.w_held_exponent));
  for (int r = 0; r < rows; ++r) {
    const std::uint8_t* row = g.w + static_cast<std::size_t>(j0 + r) * g.w_row_bytes;
    float* dst = out + static_cast<std::size_t>(r) * g.k;
    int p = 0;
    for (; p + 8 <= g.k; p += 8) {
      v128_t lo, hi;
      F::load8(load8_group<F>(row, p, rebias), 0, lo, hi);
      wasm_v128_store(dst + p, lo);
      wasm_v128_store(dst + p + 4, hi);
    }
    for (; p < g.k; ++p) dst[p] = widen_value(F::kStorage, row, p, g.w_held_exponent);
  }
}

constexpr int kWidenRows = 256;  // rows of W widened at a time: 256 K floats of scratch (1 MB at K 1024)

// Many rows of A: 256 rows of W at a time widened into a float block, which the float
// GEMM (5x8 tile) packs and multiplies; the widening is shared by every row of A.
template <class F>
void widened_blocks(const LowBitGemmArgs& g) {
  if (g.m <= 0 || g.n <= 0) return;
  thread_local std::vector<float> scratch;
  scratch.resize(static_cast<std::size_t>(kWidenRows) * std::max(g.k, 1));
  const GemmFn gemm = fastest_gemm().fn;
  for (int j0 = 0; j0 < g.n; j0 += kWidenRows) {
    const int rows = std::min(kWidenRows, g.n - j0);
    widen_rows<F>(g, j0, rows, scratch.data());
    GemmArgs part;
    part.m = g.m;
    part.n = rows;
    part.k = g.k;
    part.a = g.a;
    part.lda = g.lda;
    part.b = scratch.data();
    part.ldb = g.k;
    part.bias = g.bias ? g.bias + j0 : nullptr;
    part.c = g.c + j0;
    part.ldc = g.ldc;
    gemm(part);
  }
}

// Q8_0's GEMV: in integers with activations Int16 or Int8 (relaxed SIMD's dot in Relaxed<Q8>).
template <class F>
void gemv_any(const LowBitGemmArgs& g) {
  if constexpr (F::kStorage == Storage::Q8_0) {
    if (g.activations != Q8Activations::F32) return gemv_integer<F::kRelaxedMadd>(g);
  }
  on_float_a<gemv<F>>(g);
}

template <class F>
void fastest(const LowBitGemmArgs& g) {
  if (g.m >= F::kWidenFromRows)
    on_float_a<widened_blocks<F>>(g);
  else if (g.m <= kLowBitGemvUpToRows)
    gemv_any<F>(g);
  else
    on_float_a<multiply<F>>(g);
}

}  // namespace

void gemm_f32_bf16w_4x2_wasmsimd(const LowBitGemmArgs& g) { on_float_a<multiply<Bf16>>(g); }
void gemm_f32_f16w_4x2_wasmsimd(const LowBitGemmArgs& g) { on_float_a<multiply<F16>>(g); }
void gemm_f32_q8_0w_4x2_wasmsimd(const LowBitGemmArgs& g) { on_float_a<multiply<Q8>>(g); }
void gemm_f32_bf16w_gemv_wasmsimd(const LowBitGemmArgs& g) { gemv_any<Bf16>(g); }
void gemm_f32_f16w_gemv_wasmsimd(const LowBitGemmArgs& g) { gemv_any<F16>(g); }
void gemm_f32_q8_0w_gemv_wasmsimd(const LowBitGemmArgs& g) { gemv_any<Q8>(g); }
void gemm_f32_bf16w_5x8_wasmsimd(const LowBitGemmArgs& g) { on_float_a<widened_blocks<Bf16>>(g); }
void gemm_f32_f16w_5x8_wasmsimd(const LowBitGemmArgs& g) { on_float_a<widened_blocks<F16>>(g); }
void gemm_f32_q8_0w_5x8_wasmsimd(const LowBitGemmArgs& g) { on_float_a<widened_blocks<Q8>>(g); }
void gemm_f32_bf16w_wasmsimd(const LowBitGemmArgs& g) { fastest<Bf16>(g); }
void gemm_f32_f16w_wasmsimd(const LowBitGemmArgs& g) { fastest<F16>(g); }
void gemm_f32_q8_0w_wasmsimd(const LowBitGemmArgs& g) { fastest<Q8>(g); }
// The relaxed twins: the GEMV with madd (Relaxed<F>), the rest as above.
void gemm_f32_bf16w_gemv_wasmrelaxed(const LowBitGemmArgs& g) { gemv_any<Relaxed<Bf16>>(g); }
void gemm_f32_f16w_gemv_wasmrelaxed(const LowBitGemmArgs& g) { gemv_any<Relaxed<F16>>(g); }
void gemm_f32_q8_0w_gemv_wasmrelaxed(const LowBitGemmArgs& g) { gemv_any<Relaxed<Q8>>(g); }
void gemm_f32_bf16w_wasmrelaxed(const LowBitGemmArgs& g) {
  g.m <= kLowBitGemvUpToRows ? gemv_any<Relaxed<Bf16>>(g) : fastest<Bf16>(g);
}
void gemm_f32_f16w_wasmrelaxed(const LowBitGemmArgs& g) {
  g.m <= kLowBitGemvUpToRows ? gemv_any<Relaxed<F16>>(g) : fastest<F16>(g);
}
void gemm_f32_q8_0w_wasmrelaxed(const LowBitGemmArgs& g) {
  g.m <= kLowBitGemvUpToRows ? gemv_any<Relaxed<Q8>>(g) : fastest<Q8>(g);
}
// Q8_0 interleaved by 4 (Interleaved4): the plain dot; its relaxed twin takes the unsigned dot for
// Int8 where int8_dot() is Unsigned (registry_low_bit.cpp lists it only in a .wasm rewritten for relaxed SIMD).
void gemv_q8_0x4_wasmsimd(const LowBitGemmArgs& g) { gemv_q8_0x4<false>(g); }
void gemv_q8_0x4_wasmrelaxed(const LowBitGemmArgs& g) { gemv_q8_0x4<true>(g); }

}  // namespace attention::kernels
#endif  // __wasm_simd128__
