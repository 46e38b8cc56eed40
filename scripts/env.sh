# Sourced by the project's scripts: puts the project's own Node.js first on PATH when
# setup.sh had to install one (Debian 12's nodejs is 18; Vite and Vitest need >= 20).
_ap_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -x "$_ap_root/.tools/node/bin/node" ]; then
  export PATH="$_ap_root/.tools/node/bin:$PATH"
fi
# `npm run` puts node_modules/.bin first on PATH, and with it the npm package binaryen's
# wasm-opt (v132, which scripts/relax-wasm.mjs uses as a library). Debian's emcc 3.1.6 runs
# its binaryen tools by bare name, so it would take that wasm-opt instead of Debian's (108),
# whose import-minifying pass prints the renaming emcc reads back: the .wasm's imports got
# minified but the JS glue kept the old names (a broken build, found by relax-wasm). The
# scripts call their npm tools through npx, so they need no node_modules/.bin on PATH.
PATH="$(printf '%s' "$PATH" | tr ':' '\n' | grep -v '/node_modules/\.bin$' | paste -sd: -)"
export PATH
unset _ap_root
