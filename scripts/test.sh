#!/usr/bin/env bash
# Sets up (scripts/setup.sh) and runs every test suite. Exits non-zero if any
# suite fails; ends with one line "tests: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
bash scripts/setup.sh || exit 1

mkdir -p test-output
summary=test-output/summary.txt
: > "$summary"
status=0

# Prints a stage's heading with the minutes spent so far (the CI budget is 40).
stage() { echo; echo "== $1  [$((SECONDS / 60))m$((SECONDS % 60))s]"; }

# Adds "passed failed" to the summary from a suite's own report.
record() { echo "$1 $2 $3" >> "$summary"; }

run_ctest() {  # $1: label, $2: preset
  local log="test-output/ctest-$2.log" reports="build/$2/test-reports"
  if ! { NODE_PATH=/usr/share/nodejs cmake --preset "$2" >/dev/null && cmake --build --preset "$2"; }; then
    echo "build $2 failed"; record "$1" 0 1; status=1; return
  fi
  rm -rf "$reports"
  ctest --preset "$2" --parallel 2 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local line total failed
  line=$(grep -E "tests passed, [0-9]+ tests? failed out of [0-9]+" "$log" | tail -1)
  failed=$(echo "$line" | sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/')
  total=$(echo "$line" | sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\2/')
  if [ -z "$line" ] || [ "$total" = 0 ]; then echo "$1: ran no test"; record "$1" 0 1; status=1; return; fi
  if [ -d "$reports" ]; then
    # The wasm suites run as one process each (tests/core/CMakeLists.txt): count their
    # GoogleTest cases from the XML reports; a suite that died without one fails below.
    local report count=0 bad=0 failed_here
    for report in "$reports"/*.xml; do
      [ -f "$report" ] || continue
      failed_here=$(( $(suites_attr "$report" failures) + $(suites_attr "$report" errors) ))
      count=$((count + $(grep -c 'status="run"' "$report") - failed_here)); bad=$((bad + failed_here))
    done
    [ "$(find "$reports" -name "*.xml" | wc -l)" = "$total" ] || { echo "$1: $total suites, fewer reports"; bad=$((bad + 1)); }
    record "$1" "$count" "$bad"
  else
    record "$1" $((total - failed)) "$failed"
  fi
  [ "$rc" = 0 ] || status=1
}

# The number in attribute $2 of the <testsuites> element of the XML report $1 (0 if none).
suites_attr() {
  local value
  value=$(grep -o '<testsuites[^>]*' "$1" | grep -o " $2=\"[0-9]*\"" | grep -o '[0-9]*' | head -1)
  echo "${value:-0}"
}

# Records the counts of a JUnit XML report.
record_junit() {  # $1: label, $2: file, $3: exit code of the runner
  local tests failures
  tests=$(suites_attr "$2" tests)
  failures=$(( $(suites_attr "$2" failures) + $(suites_attr "$2" errors) ))
  if [ "$tests" = 0 ]; then echo "$1: ran no test"; record "$1" 0 1; status=1; return; fi
  record "$1" $((tests - failures)) "$failures"
  [ "$3" = 0 ] || status=1
}

# Reads the "# pass N" / "# fail N" lines of node's test runner.
run_node_tests() {  # $1: label, $2...: node --test arguments
  local label=$1; shift
  local log="test-output/$label.log"
  node --test --test-reporter=spec --test-reporter=tap --test-reporter-destination=stdout \
    --test-reporter-destination="test-output/$label.tap" "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local pass fail cancelled
  pass=$(grep -E '^# pass [0-9]+' "test-output/$label.tap" | grep -o '[0-9]*' | tail -1)
  fail=$(grep -E '^# fail [0-9]+' "test-output/$label.tap" | grep -o '[0-9]*' | tail -1)
  cancelled=$(grep -E '^# cancelled [0-9]+' "test-output/$label.tap" | grep -o '[0-9]*' | tail -1)
  fail=$(( ${fail:-0} + ${cancelled:-0} ))  # a cancelled test (e.g. its setup failed) did not pass
  if [ -z "$pass" ] || [ "$((pass + ${fail:-0}))" = 0 ]; then echo "$label: ran no test"; record "$label" 0 1; status=1; return; fi
  record "$label" "$pass" "${fail:-0}"
  [ "$rc" = 0 ] || status=1
}

# The suite natively runs under the sanitizers (clang); `npm run test:native` runs it as a
# plain g++ debug build (left out here for the 40-minute CI budget).
stage "C++ core natively, under AddressSanitizer + UndefinedBehaviorSanitizer (clang)"
run_ctest core-asan native-asan

stage "libFuzzer: tokenizers, config validation, forward pass, safetensors reader, checkpoints"
bash scripts/fuzz.sh 2>&1 | tee test-output/fuzz.log
fuzz_rc=${PIPESTATUS[0]}
fuzz_line=$(grep -E '^fuzz: [0-9]+ passed, [0-9]+ failed' test-output/fuzz.log | tail -1)
if [ -n "$fuzz_line" ]; then
  record fuzz "$(echo "$fuzz_line" | sed -E 's/fuzz: ([0-9]+) passed.*/\1/')" "$(echo "$fuzz_line" | sed -E 's/.* ([0-9]+) failed/\1/')"
else
  record fuzz 0 1
fi
[ "$fuzz_rc" = 0 ] || status=1

stage "the reference scripts and their committed fixtures against each other (tests/reference/selfcheck*.py, PyTorch)"
# Each checks fixtures the other suites compare against: an independent float64 forward from
# the raw weights, the safetensors reader's rejections, the modern families' invariants.
selfcheck_ok=0; selfcheck_bad=0
for script in tests/reference/selfcheck*.py; do
  if /usr/bin/python3 "$script" > "test-output/$(basename "$script" .py).log" 2>&1; then
    selfcheck_ok=$((selfcheck_ok + 1))
  else
    echo "reference-selfcheck: $script failed (test-output/$(basename "$script" .py).log):"
    tail -20 "test-output/$(basename "$script" .py).log"
    selfcheck_bad=$((selfcheck_bad + 1))
  fi
done
record reference-selfcheck "$selfcheck_ok" "$selfcheck_bad"
[ "$selfcheck_bad" = 0 ] && [ "$selfcheck_ok" -gt 0 ] || status=1

stage "build: wasm engines, the package (TypeScript facade, element bundle), the site"
if ! bash scripts/build.sh; then echo "build failed"; record build 0 1; status=1; fi

stage "benchmarks: every bench target builds, through npm run as a person runs them (not timed here)"
npm run --silent bench -- --build-only 2>&1 | tee test-output/bench-build.log
if [ "${PIPESTATUS[0]}" = 0 ]; then record bench-build 1 0
else echo "bench-build: a bench target failed to build"; record bench-build 0 1; status=1; fi

stage "lint: clang-format, ESLint, the tests' types, the docs' generated blocks and API reference"
bash scripts/lint.sh 2>&1 | tee test-output/lint.log
lint_ok=$(grep -c '^lint: .* ok$' test-output/lint.log); lint_bad=$(grep -c '^lint: .* FAILED$' test-output/lint.log)
record lint "$lint_ok" "$lint_bad"
[ "$lint_bad" = 0 ] && [ "$lint_ok" -gt 0 ] || status=1

stage "C++ core compiled to wasm, under Node"
run_ctest core-wasm-simd wasm-simd
run_ctest core-wasm-scalar wasm-scalar

stage "the npm module in Node (Vitest, both builds) and the playground's view logic"
rm -f test-output/vitest-junit.xml
npx vitest run
rc=$?
record_junit js-wasm test-output/vitest-junit.xml $rc

stage "the packed package: publint, attw, Node, Vite app and plain page in Chromium"
run_node_tests package tests/package/

stage "the playground, the embeds and the tutorial in Chromium (screenshots in test-output/screenshots/)"
run_node_tests e2e tests/e2e/

stage "the same checks in Firefox ESR (puppeteer-core, WebDriver BiDi): playground, tutorial, one-file element, package"
run_node_tests firefox tests/browsers/firefox.test.mjs

stage "the same checks in WebKitGTK (WebKitWebDriver + MiniBrowser under xvfb-run), with and without wasm SIMD"
run_node_tests webkit tests/browsers/webkit.test.mjs

stage "summary"
passed=0; failed=0
while read -r label p f; do
  printf '  %-20s %5s passed %5s failed\n' "$label" "$p" "$f"
  passed=$((passed + p)); failed=$((failed + f))
done < "$summary"
[ "$failed" = 0 ] || status=1
echo "tests: $passed passed, $failed failed"
exit $status
