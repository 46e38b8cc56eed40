#!/usr/bin/env bash
# `npm run bench`: builds the native roof (-march=native), both wasm builds and the
# kernel timer, then runs bench/run.mjs. Takes a few minutes; run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
bash scripts/setup.sh
cmake --preset native-bench >/dev/null
cmake --build --preset native-bench --target native_bench
bash scripts/build-wasm.sh
NODE_PATH=/usr/share/nodejs cmake --build --preset wasm-simd --target kernel_bench
node bench/run.mjs
