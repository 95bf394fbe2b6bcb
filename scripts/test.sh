#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs every test. Without a GPU the tests
# labelled `gpu` are reported as skipped, with the reason. Usage: scripts/test.sh [preset] [ctest args]
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
shift || true
scripts/build.sh "$preset"
# The CLI under ASan + UBSan (the test ordo_cli_under_sanitizers runs it): only what it runs is built.
if [ "$preset" = default ]; then
  scripts/build.sh sanitize ordo ordo_test_plugin_correct ordo_test_write_outputs
fi
ctest --preset "$preset" "$@"
