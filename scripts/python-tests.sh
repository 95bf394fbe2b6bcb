#!/usr/bin/env bash
# Runs the Python package's tests (python/tests, pytest) against one libordo_harness.so.
# Usage: scripts/python-tests.sh LIBRARY [pytest args...]
# The interpreter is $ORDO_PYTHON, else build/python-venv/bin/python (scripts/setup.sh makes it: numpy, pytest,
# hypothesis, and the package installed editable, which registers its pytest plugin). Hypothesis keeps its
# example database in the current folder: run it from a scratch folder (ctest does).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
lib="${1:?usage: python-tests.sh LIBRARY [pytest args]}"
shift
python="${ORDO_PYTHON:-$root/build/python-venv/bin/python}"
if [ ! -x "$python" ]; then
  echo "python-tests: $python is missing: run scripts/setup.sh (it creates build/python-venv)" >&2
  exit 1
fi
if [ ! -f "$lib" ]; then
  echo "python-tests: $lib is missing: build it with scripts/build.sh default ordo_harness" >&2
  exit 1
fi
export ORDO_HARNESS_LIB="$lib"
exec "$python" -m pytest -q -p no:cacheprovider "$root/python/tests" "$@"
