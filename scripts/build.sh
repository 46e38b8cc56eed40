#!/usr/bin/env bash
# Builds everything that ships: the engine and the package in dist/ (wasm builds,
# TypeScript facade, the one-file element bundle) and the static site in dist-web/
# (playground, iframe page, tutorial, and the element bundle to download, with the part it
# loads on demand).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
bash scripts/build-wasm.sh
# Vite strips the front end's types without checking them: check them here (against dist/*.d.ts).
npx tsc -p web/tsconfig.json
# The element and its on-demand part; prints their sizes, the record docs/embedding.md states (dist/sizes.json).
npx vite build -c vite.element.config.ts --logLevel warn
cp web/src/element/element.d.ts dist/element.d.ts
# The shipped checkpoints next to the element bundle, which loads them from there.
rm -rf dist/checkpoints && cp -r web/public/checkpoints dist/checkpoints
npx vite build --logLevel warn
cp dist/element.js dist-web/attention-playground.js
cp dist/attention-playground-pretrained.js dist/attention-playground-generate.js dist-web/
