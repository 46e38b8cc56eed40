#!/usr/bin/env bash
# Builds the engine twice (wasm-simd, wasm-scalar presets) and copies each
# attention-*.{mjs,wasm} into dist/wasm/, where the package's loader finds them (the
# SIMD engines also with their relaxed-SIMD twin, attention-*-relaxed.wasm); then
# the threaded engine (wasm-simd-threads: attention-simd-threads.{mjs,wasm,worker.js},
# the engine target only, its own copy of the core compiled with -pthread).
# Also builds the core test suite for wasm (run by ctest --preset wasm-*), then
# writes the TypeScript view of the engine's settings schema (scripts/gen-schema.mjs)
# and compiles the TypeScript facade into dist/.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
export NODE_PATH=/usr/share/nodejs   # emcc 3.1.6 needs acorn from Debian's node modules at -O2+
mkdir -p dist/wasm
for preset in wasm-simd wasm-scalar; do
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  cp "build/$preset/wasm/attention-${preset#wasm-}.mjs" "build/$preset/wasm/attention-${preset#wasm-}.wasm" \
     "build/$preset/wasm/attention-${preset#wasm-}-inline.mjs" dist/wasm/
  [ "$preset" = wasm-scalar ] || cp "build/$preset/wasm/attention-${preset#wasm-}-relaxed.wasm" \
     "build/$preset/wasm/attention-${preset#wasm-}-embed-inline.mjs" \
     "build/$preset/wasm/attention-${preset#wasm-}-gzip-inline.mjs" dist/wasm/
done
cmake --preset wasm-simd-threads >/dev/null
cmake --build --preset wasm-simd-threads --target attention_engine
cp build/wasm-simd-threads/wasm/attention-simd-threads{.mjs,.wasm,.worker.js,-relaxed.wasm} \
   build/wasm-simd-threads/wasm/package.json dist/wasm/
node scripts/gen-schema.mjs
npx tsc -p wasm/tsconfig.json
node scripts/bundle-vendor.mjs   # @huggingface/jinja into dist/vendor/jinja.js (zero runtime dependencies)

# Sizes as shipped (quoted in the README).
for build in simd scalar simd-threads; do
  for file in "$build.wasm" "$build-relaxed.wasm" "$build.mjs" "$build-inline.mjs" "$build-gzip-inline.mjs" "$build-embed-inline.mjs" "$build.worker.js"; do
    [ -f "dist/wasm/attention-$file" ] || continue
    f="dist/wasm/attention-$file"
    printf 'size: %-32s %8d bytes raw %8d bytes gzip\n' "$f" "$(stat -c %s "$f")" "$(gzip -9 -c "$f" | wc -c)"
  done
done
