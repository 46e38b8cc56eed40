#!/usr/bin/env bash
# `npm run lint`: the checks that keep the house in order, each a line "lint: <name> ok|FAILED";
# exits non-zero when any fails. Needs the package built (dist/: the tests' types import it).
#   clang-format  every C++ file as .clang-format says (clang-format 14, Debian 12)
#   prettier      every TypeScript / JavaScript file as .prettierrc.json says
#   eslint        typescript-eslint's recommended rules (eslint.config.js)
#   tsc tests     the TypeScript tests type-check (Vitest runs them without checking)
#   imports       web/src's import rules between its folders (.dependency-cruiser.cjs)
#   docs          the generated blocks of docs/ are current (docs:check) and the API reference
#                 builds (TypeDoc, warnings as errors)
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
failed=0
check() {  # $1: name; the rest: the command
  local name=$1; shift
  if "$@" > "test-output/lint-$name.log" 2>&1; then echo "lint: $name ok"
  else echo "lint: $name FAILED"; tail -30 "test-output/lint-$name.log"; failed=$((failed + 1)); fi
}
mkdir -p test-output
check clang-format bash -c "git ls-files -z '*.cpp' '*.hpp' '*.h' | xargs -0 clang-format --dry-run --Werror"
check prettier npx prettier --check "**/*.{ts,js,mjs,cjs}"
check eslint npx eslint .
check tsc-tests npx tsc -p tests/tsconfig.json
check imports npm run --silent lint:imports
check docs-tables npm run --silent docs:check
check typedoc npm run --silent docs
[ "$failed" = 0 ]
