#!/usr/bin/env bash
# `npm run bench`: builds the native roof (-march=native), the wasm builds, the site
# and the kernel timer, then runs bench/run.mjs (engines, trace, kernels) and
# bench/browser_latency.mjs (keystroke to painted frame, default and heavy settings, in
# Chromium and Firefox ESR; bench/results/latency.json), browser_train.mjs and
# browser_pretrained.mjs (GPT-2 small against onnxruntime-web in Chromium), browser_heads.mjs (the
# head tools on GPT-2 small: activation and attribution patching, detectors) and browser_modern.mjs
# (SmolLM2-135M against onnxruntime-web, Qwen3-0.6B, F32 / BF16 / 8-bit loads, in Chromium; then with
# --big Qwen3-0.6B in BF16 and Llama 3.2 1B in 8 bits against the memory rule, writing a 2.5 GB
# checkpoint into bench/.cache the first time), and browser_decode.mjs (decoding: a 64-token prompt then
# 64 greedy tokens, GPT-2 small and SmolLM2-135M, one thread and two, against onnxruntime-web's
# decode graph with past keys and values from bench/make_decode.py; bench/results/decode.json). Takes a
# few minutes; run it on a quiet machine.
#
# `npm run bench -- --build-only` builds every bench target and stops (CI runs it so, through
# npm as a person would, so a target that no longer builds cannot go unnoticed); it reuses
# the wasm builds when scripts/build.sh has already made them.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
build_only=false
[ "${1:-}" = --build-only ] && build_only=true
bash scripts/setup.sh
cmake --preset native-bench >/dev/null
cmake --build --preset native-bench --target native_bench train_step_bench
if ! $build_only || [ ! -f dist/wasm/attention-simd.wasm ]; then bash scripts/build.sh; fi
NODE_PATH=/usr/share/nodejs cmake --build --preset wasm-simd --target kernel_bench sampler_bench
if $build_only; then
  for script in bench/*.mjs; do node --check "$script"; done
  /usr/bin/python3 bench/make_modern.py --check  # the modern checkpoints' pipeline, shrunk (seconds)
  /usr/bin/python3 bench/make_decode.py --check  # the decode graphs' export, shrunk (seconds)
  echo "bench: every target built, every script parses"
  exit 0
fi
node bench/run.mjs
node bench/modern_train.mjs
node bench/browser_latency.mjs
node bench/browser_train.mjs
/usr/bin/python3 bench/make_gpt2.py  # GPT-2 small for the next one; skipped when bench/.cache/gpt2-small is complete
node bench/browser_pretrained.mjs
node bench/browser_heads.mjs  # the head tools on the same GPT-2 small: patching, attribution, detectors
/usr/bin/python3 bench/make_modern.py  # SmolLM2-135M and Qwen3-0.6B; skipped when bench/.cache has them
node bench/browser_modern.mjs
node bench/browser_modern.mjs --big  # Qwen3-0.6B BF16 and Llama 3.2 1B q8_0: load, forward, peak memory
/usr/bin/python3 bench/make_decode.py  # the decode graphs (ONNX with past K/V); skipped when there
node bench/browser_decode.mjs  # decoding speed and its share of the memory bandwidth
