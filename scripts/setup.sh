#!/usr/bin/env bash
# Installs everything the project needs on Debian 12 (as root, or with sudo), then
# the npm dependencies from package-lock.json. Safe to run again: it installs only
# what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

# Debian packages: toolchains (g++; clang with its sanitizer and libFuzzer runtime),
# libraries, the wasm compiler, and the browser for end-to-end tests.
packages=(cmake ninja-build g++ clang libclang-rt-14-dev libeigen3-dev libgtest-dev nlohmann-json3-dev emscripten chromium)
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

node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then
  echo "setup: Node.js $(node --version) found; the web build needs Node.js >= 20" >&2
fi

# npm dependencies, exactly as locked; skipped when node_modules already matches the lock.
if [ -f package-lock.json ]; then
  if [ ! -f node_modules/.package-lock.json ] || ! cmp -s <(node scripts/lock-digest.mjs package-lock.json) \
      <(node scripts/lock-digest.mjs node_modules/.package-lock.json 2>/dev/null); then
    echo "setup: npm ci"
    npm ci --no-audit --no-fund --loglevel=error
  fi
fi
echo "setup: ready"
