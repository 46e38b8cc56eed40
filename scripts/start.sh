#!/usr/bin/env bash
# Sets up everything, builds the engine and the playground site, and serves it at
# http://127.0.0.1:4173/ (PORT=... to change). The built site in dist-web/ is
# static: any static host can serve it, and it works offline.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
bash scripts/setup.sh
npm run build
echo
echo "Attention Playground: http://127.0.0.1:${PORT:-4173}/   (Ctrl+C stops it)"
exec npx vite preview --host 127.0.0.1 --port "${PORT:-4173}" --strictPort
