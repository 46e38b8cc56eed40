#!/usr/bin/env bash
# Builds the libFuzzer harnesses (preset `native-asan`: clang, ASan, UBSan, coverage for
# libFuzzer; the sanitized test suite shares the build) and runs each
# for FUZZ_SECONDS (default 15: the CI budget) from the seed corpus in tests/fuzz/corpus/. The
# corpus is copied, so the repository is not changed. A crash, leak, UB report or
# broken invariant fails the run; the input that caused it is saved under
# test-output/fuzz/<name>/ — copy it to tests/fuzz/regressions/<name>/ to keep it
# as a regression test (test_fuzz_corpus.cpp replays those on every build).
# Prints "fuzz: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
seconds=${FUZZ_SECONDS:-15}
names=(${FUZZERS:-tokenizer config forward safetensors pretrained_tokenizers checkpoint})
cmake --preset native-asan >/dev/null && cmake --build --preset native-asan || { echo "fuzz: 0 passed, ${#names[@]} failed"; exit 1; }
passed=0; failed=0
for name in "${names[@]}"; do
  work=test-output/fuzz/$name
  rm -rf "$work"; mkdir -p "$work/corpus"
  cp tests/fuzz/corpus/$name/* "$work/corpus/"
  echo "== fuzz_$name for ${seconds}s"
  if ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
     "build/native-asan/tests/fuzz/fuzz_$name" "$work/corpus" -max_total_time="$seconds" -max_len=4096 \
       -rss_limit_mb=2048 -timeout=10 -artifact_prefix="$work/" -print_final_stats=1 > "$work/log.txt" 2>&1; then
    grep -E "^stat::number_of_executed_units|^#[0-9]+.*DONE" "$work/log.txt" | tail -2
    passed=$((passed + 1))
  else
    echo "fuzz_$name FOUND A PROBLEM: see $work/log.txt and the crash-* file there"
    grep -E "ERROR|invariant|SUMMARY" "$work/log.txt" | head -5
    failed=$((failed + 1))
  fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" = 0 ]
