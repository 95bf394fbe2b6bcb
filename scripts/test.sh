#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs every test. Without a GPU the tests
# labelled `gpu` are reported as skipped, with the reason. Usage: scripts/test.sh [preset] [ctest args]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
shift || true
scripts/build.sh "$preset"
ctest --preset "$preset" "$@"
