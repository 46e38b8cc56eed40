#!/usr/bin/env bash
# `npm run bench`: builds the native roof (-march=native), the wasm builds, the site
# and the kernel timer, then runs bench/run.mjs (engines, trace, kernels) and
# bench/browser_latency.mjs (keystroke to painted frame, default and heavy settings, in
# Chromium and Firefox ESR; bench/results/latency.json), browser_train.mjs and
# browser_pretrained.mjs (GPT-2 small against onnxruntime-web in Chromium). Takes a few minutes;
# run it on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
bash scripts/setup.sh
cmake --preset native-bench >/dev/null
cmake --build --preset native-bench --target native_bench train_step_bench
bash scripts/build.sh
NODE_PATH=/usr/share/nodejs cmake --build --preset wasm-simd --target kernel_bench
node bench/run.mjs
node bench/browser_latency.mjs
node bench/browser_train.mjs
/usr/bin/python3 bench/make_gpt2.py  # GPT-2 small for the next one; skipped when bench/.cache/gpt2-small is complete
node bench/browser_pretrained.mjs
