#!/usr/bin/env bash
# Sets up and starts the playground. Until the web playground lands, this builds
# the core and prints the trace of a sentence; pass your own text as arguments.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset native-release >/dev/null
cmake --build --preset native-release
exec ./build/native-release/attention_trace "$@"
