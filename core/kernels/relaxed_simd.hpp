#pragma once
// Relaxed SIMD's fused multiply-add (f32x4.relaxed_madd) and integer dot
// (i32x4.relaxed_dot_i8x16_i7x16_add_s) for the wasm SIMD kernels.
//
// Debian's toolchain (LLVM 14) knows relaxed SIMD only by its prototype opcodes, which no
// shipping engine accepts. So the kernels call two imported functions in its place, and
// scripts/relax-wasm.mjs turns a linked .wasm into its relaxed twin: every call of
// attention_relaxed_madd_f32x4(a, b, c) becomes f32x4.relaxed_madd (a b + c, fused or not,
// the engine's choice), every call of attention_relaxed_dot_i8x16_i7x16_add_s(a, b, c)
// becomes i32x4.relaxed_dot_i8x16_i7x16_add_s (lane i: c_i + the sum of a_j b_j over the bytes
// j = 4i .. 4i + 3, a signed; the same on every engine only when each b_j is in [0, 127]:
// b_j in [128, 255] is read as unsigned, as signed, or its products saturate, by engine and CPU),
// and attention_relaxed_simd_rewritten() becomes i32.const 1. In the .wasm as linked, the
// last returns 0 (relaxed_simd_placeholders.js) and the registry then never lists the kernels
// that call the others, so a build runs either way.
#ifdef __wasm_simd128__
#include <wasm_simd128.h>

#include <cstdint>

extern "C" v128_t attention_relaxed_madd_f32x4(v128_t a, v128_t b, v128_t c);
extern "C" v128_t attention_relaxed_dot_i8x16_i7x16_add_s(v128_t a, v128_t b, v128_t c);
extern "C" int attention_relaxed_simd_rewritten(void);

namespace attention::kernels {
// Whether this .wasm was rewritten, i.e. the relaxed kernels can run (checked once).
inline bool relaxed_simd_available() {
  static const bool available = attention_relaxed_simd_rewritten() == 1;
  return available;
}
// Whether the relaxed dot adds its accumulator as the proposal says (false in a .wasm not
// rewritten for relaxed SIMD): Node 20's V8 (relaxed SIMD behind a flag) compiles it wrong in its
// baseline tier, Liftoff, returning twice the dot and dropping c (measured: its optimizing tier
// and Chromium 156's both tiers are right). Every function starts in the baseline tier and the
// check runs once in a function of its own (never inlined into a kernel that may have tiered up
// already), so it sees what a kernel's first calls get; where it fails, Q8_0's int8 GEMV takes
// its plain twin (the same numbers). scripts/run-relaxed.cjs runs the relaxed suite there without
// the baseline tier, so the relaxed dot is tested.
[[gnu::noinline]] inline bool relaxed_dot_check() {
  static volatile int opaque_one = 1;  // LLVM must not fold the call's operands
  const int one = opaque_one;
  const v128_t r = attention_relaxed_dot_i8x16_i7x16_add_s(wasm_i8x16_splat(static_cast<std::int8_t>(-one)),
                                                           wasm_i8x16_splat(static_cast<std::int8_t>(2 * one)),
                                                           wasm_i32x4_splat(5 * one));
  return wasm_i32x4_extract_lane(r, 0) == -3 && wasm_i32x4_extract_lane(r, 3) == -3;  // 4 x (-1 x 2) + 5
}
inline bool relaxed_dot_adds() {
  static const bool adds = relaxed_simd_available() && relaxed_dot_check();
  return adds;
}
// Whether the relaxed dot takes its second operand's bytes as unsigned and sums exactly, c added
// (x86's AVX-VNNI vpdpbusd, as Chromium 156 lowers it there): then Q8_0's int8 GEMV may pass W's
// bytes flipped to q_w + 128 in [0, 255] (Int8DotUnsigned in gemm_low_bit_wasmsimd.cpp). The
// probe's lanes tell that apart from every other lowering known: lane 0, a = (-127, 127, 127, 127)
// against b = (255, 128, 200, 1): 9398 unsigned, -23114 where b's bytes are signed (AVX-VNNI-INT8's
// vpdpbssd, ARM's sdot); lanes 1 and 2, +-127 x 255 four times: +-129540 exact, +-65536 where
// pairs saturate to int16 (SSSE3's pmaddubsw); lane 3, (1, 2, 3, 4) x 1: 10. Every lane adds
// c = 5 (Node 20's Liftoff drops it and doubles the dot). Its own function, run once, as
// relaxed_dot_check (the baseline tier's code is what it sees). The GEMV it admits runs in the
// optimizing tier: this relies on V8 lowering the instruction alike in both (Liftoff and
// TurboFan call one macro-assembler routine, which picks vpdpbusd by the same CPU-feature test).
// A runtime whose tiers differed here would pass the probe and sum wrong in the hot GEMV: the
// e2e test (tests/e2e/int8-dot.test.mjs) decodes with this dot and the plain one, bit for bit.
[[gnu::noinline]] inline bool relaxed_dot_unsigned_check() {
  static volatile int opaque_zero = 0;  // LLVM must not fold the call's operands
  const v128_t zero = wasm_i8x16_splat(static_cast<std::int8_t>(opaque_zero));
  const v128_t a = wasm_i8x16_add(
      wasm_i8x16_const(-127, 127, 127, 127, -127, -127, -127, -127, 127, 127, 127, 127, 1, 2, 3, 4), zero);
  const v128_t b =
      wasm_i8x16_add(wasm_u8x16_const(255, 128, 200, 1, 255, 255, 255, 255, 255, 255, 255, 255, 1, 1, 1, 1), zero);
  const v128_t r = attention_relaxed_dot_i8x16_i7x16_add_s(a, b, wasm_i32x4_add(wasm_i32x4_splat(5), zero));
  return wasm_i32x4_extract_lane(r, 0) == -127 * 255 + 127 * 128 + 127 * 200 + 127 + 5 &&
         wasm_i32x4_extract_lane(r, 1) == -4 * 127 * 255 + 5 && wasm_i32x4_extract_lane(r, 2) == 4 * 127 * 255 + 5 &&
         wasm_i32x4_extract_lane(r, 3) == 10 + 5;
}
inline bool relaxed_dot_unsigned() {
  static const bool unsigned_exact = relaxed_simd_available() && relaxed_dot_unsigned_check();
  return unsigned_exact;
}
}  // namespace attention::kernels
#endif
