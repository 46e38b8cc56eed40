// The imports that stand in for relaxed SIMD in a .wasm as linked (see relaxed_simd.hpp);
// scripts/relax-wasm.mjs replaces their calls in the relaxed twin.
mergeInto(LibraryManager.library, {
  attention_relaxed_simd_rewritten: function () {
    return 0;
  },
  attention_relaxed_madd_f32x4: function () {
    throw new Error('attention_relaxed_madd_f32x4 called in a .wasm not rewritten for relaxed SIMD');
  },
  attention_relaxed_dot_i8x16_i7x16_add_s: function () {
    throw new Error('attention_relaxed_dot_i8x16_i7x16_add_s called in a .wasm not rewritten for relaxed SIMD');
  },
});
