#!/usr/bin/env bash
# Configures and builds one CMake preset (default: "default", into build/). Usage: scripts/build.sh [preset]
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/usr/local/cuda/bin:$PATH"
preset="${1:-default}"
scripts/setup.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "$(nproc)"
