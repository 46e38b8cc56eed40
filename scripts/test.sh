#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs every test suite. Exits non-zero if any
# suite fails; ends with one line "tests: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1

mkdir -p test-output
summary=test-output/summary.txt
: > "$summary"
status=0

# Adds "passed failed" to the summary from a suite's own report.
record() { echo "$1 $2 $3" >> "$summary"; }

run_ctest() {  # $1: label, $2: preset
  local log="test-output/ctest-$2.log"
  if ! { cmake --preset "$2" >/dev/null && cmake --build --preset "$2"; }; then
    echo "build $2 failed"; record "$1" 0 1; status=1; return
  fi
  ctest --preset "$2" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local line total failed
  line=$(grep -E "tests passed, [0-9]+ tests? failed out of [0-9]+" "$log" | tail -1)
  failed=$(echo "$line" | sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/')
  total=$(echo "$line" | sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/')
  if [ -z "$line" ] || [ "$total" = 0 ]; then echo "$1: ran no test"; record "$1" 0 1; status=1; return; fi
  record "$1" $((total - failed)) "$failed"
  [ "$rc" = 0 ] || status=1
}

echo "== C++ core (native, debug)"
run_ctest core-native native-debug

echo
echo "== summary"
passed=0; failed=0
while read -r label p f; do
  printf '  %-20s %5s passed %5s failed\n' "$label" "$p" "$f"
  passed=$((passed + p)); failed=$((failed + f))
done < "$summary"
[ "$failed" = 0 ] || status=1
echo "tests: $passed passed, $failed failed"
exit $status
