# Sourced by the project's scripts: puts the project's own Node.js first on PATH when
# setup.sh had to install one (Debian 12's nodejs is 18; Vite and Vitest need >= 20).
_ap_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ -x "$_ap_root/.tools/node/bin/node" ]; then
  export PATH="$_ap_root/.tools/node/bin:$PATH"
fi
unset _ap_root
