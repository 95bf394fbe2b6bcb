#!/usr/bin/env bash
# Creates build/python-venv with what the Python package's tests need (numpy, pytest, hypothesis), when it
# is missing or incomplete; then installs python/ (editable) into it, which registers the pytest plugin.
# Idempotent and quick when everything is there. Usage: scripts/setup-python.sh [VENV_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${1:-build/python-venv}"
python="${PYTHON:-python3}"
if ! "$python" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  # Debian splits venv and ensurepip out of python3.
  echo "setup-python: installing python3-venv"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
fi
if [ ! -x "$venv/bin/python" ]; then
  echo "setup-python: creating $venv"
  "$python" -m venv "$venv"
fi
if ! "$venv/bin/python" -c 'import numpy, pytest, hypothesis' >/dev/null 2>&1; then
  echo "setup-python: installing numpy, pytest, hypothesis into $venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check numpy pytest hypothesis
fi
if ! "$venv/bin/python" -c 'import importlib.metadata as m; m.distribution("ordo")' >/dev/null 2>&1; then
  echo "setup-python: installing python/ (editable) into $venv"
  "$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps -e python
fi
