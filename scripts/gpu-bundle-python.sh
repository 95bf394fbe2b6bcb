#!/usr/bin/env bash
# Puts the Python package into a GPU bundle: DEST/ordo with libordo_harness.so of BUILD and the MPFR and GMP it
# loads, a dist-info that registers the pytest plugin, the tests, and site.zip (pytest, pure Python).
# Usage: scripts/gpu-bundle-python.sh BUILD_DIR DEST (scripts/gpu-bundle.sh calls it with build-gpu-bundle).
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:?usage: gpu-bundle-python.sh BUILD_DIR DEST}"
dest="${2:?usage: gpu-bundle-python.sh BUILD_DIR DEST}"
rm -rf "$dest"
mkdir -p "$dest"
dest_abs="$(cd "$dest" && pwd)"
# The Python package for any Python 3 there (ctypes: no extension module to match its version): python/ordo with
# libordo_harness.so and the MPFR and GMP it loads (found through its RUNPATH $ORIGIN) in ordo/_native/; a
# dist-info so that PYTHONPATH=python registers the pytest plugin with no installer; its tests; and site.zip,
# pytest and its dependencies as pure-Python packages from build/python-venv, for a machine without pytest and
# without a package registry (gpu-run.sh adds it only when `import pytest` fails there).
mkdir -p "$dest"/ordo/_native
cp python/ordo/*.py "$dest"/ordo/
cp "$build"/api/libordo_harness.so "$dest"/ordo/_native/
strip --strip-unneeded "$dest"/ordo/_native/libordo_harness.so
for dep in $(ldd "$build"/api/libordo_harness.so | awk '/libmpfr|libgmp/ {print $3}'); do
  cp -L "$dep" "$dest"/ordo/_native/
done
dist="$dest"/ordo-0.1.0.dist-info
mkdir -p "$dist"
printf 'Metadata-Version: 2.1\nName: ordo\nVersion: 0.1.0\n' > "$dist/METADATA"
printf '[pytest11]\nordo = ordo.pytest_plugin\n' > "$dist/entry_points.txt"
cp -r python/tests "$dest"/tests
site=build/python-venv/lib/python3*/site-packages
if compgen -G "$site/pytest" >/dev/null; then
  # Hypothesis is left out: it carries a compiled module (hypothesis._native) of this Python's version only;
  # without it the strategies' tests skip, with the reason.
  (cd $site && zip -qr -9 "$dest_abs/site.zip" pytest _pytest py.py pluggy iniconfig packaging pygments \
     pytest-*.dist-info pluggy-*.dist-info iniconfig-*.dist-info packaging-*.dist-info pygments-*.dist-info \
     -x '*__pycache__*')
else
  echo "gpu-bundle: build/python-venv has no pytest (scripts/setup.sh makes it): site.zip not bundled" >&2
fi
find "$dest" -name __pycache__ -prune -exec rm -rf {} +
if ldd "$dest"/ordo/_native/libordo_harness.so | grep -E 'not found|stdc\+\+|cudart' >/dev/null; then
  echo "gpu-bundle: libordo_harness.so links a library the GPU machine lacks:" >&2
  ldd "$dest"/ordo/_native/libordo_harness.so >&2
  exit 1
fi
