#!/usr/bin/env bash
# Installs the Debian packages ordo builds with. Idempotent: does nothing (quickly) when all are present.
set -euo pipefail

# libopenmpi-dev, openmpi-bin: `mpirun -np N ordo fuzz` (optional at build time, tested in CI).
# clang, libclang-rt-dev and lld: the libFuzzer targets of the parsers (fuzz/); libFuzzer's runtime is only a
# Recommends of clang, and this installs without them; lld links the fuzz targets with --gc-sections.
# libboost-dev: Boost.Multiprecision, the third exact engine (oracle/exact_dot_boost.h, header-only).
packages=(cmake g++ make git libmpfr-dev libgmp-dev libboost-dev librapidcheck-dev libgtest-dev nlohmann-json3-dev
          libcli11-dev clang libclang-rt-dev lld libopenmpi-dev openmpi-bin chromium fonts-dejavu-core)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The CUDA toolkit (nvcc, cudart, cuBLAS) is not a Debian package of the right version: it must be
# installed already. No GPU is needed to build or to run the host tests.
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: the CUDA toolkit (nvcc >= 12) is required to build ordo; install it under /usr/local/cuda" >&2
  exit 1
fi

# The Python package's test environment (build/python-venv: numpy, pytest, hypothesis; the package installed
# editable, which registers its pytest plugin), made once; the ctest test python_package runs in it.
"$(dirname "$0")/setup-python.sh"
