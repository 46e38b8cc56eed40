#pragma once
// Relaxed SIMD's fused multiply-add (f32x4.relaxed_madd) for the wasm SIMD kernels.
//
// Debian's toolchain (LLVM 14) knows relaxed SIMD only by its prototype opcodes, which no
// shipping engine accepts. So the kernels call two imported functions in its place, and
// scripts/relax-wasm.mjs turns a linked .wasm into its relaxed twin: every call of
// attention_relaxed_madd_f32x4(a, b, c) becomes f32x4.relaxed_madd (a b + c, fused or not,
// the engine's choice), and attention_relaxed_simd_rewritten() becomes i32.const 1. In the
// .wasm as linked, the second returns 0 (relaxed_simd_placeholders.js) and the registry
// then never lists the kernels that call the first, so a build runs either way.
#ifdef __wasm_simd128__
#include <wasm_simd128.h>

extern "C" v128_t attention_relaxed_madd_f32x4(v128_t a, v128_t b, v128_t c);
extern "C" int attention_relaxed_simd_rewritten(void);

namespace attention::kernels {
// Whether this .wasm was rewritten, i.e. the relaxed kernels can run (checked once).
inline bool relaxed_simd_available() {
  static const bool available = attention_relaxed_simd_rewritten() == 1;
  return available;
}
}  // namespace attention::kernels
#endif
