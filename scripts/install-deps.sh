#!/usr/bin/env bash
# Installs the Debian packages Vela needs, only those that are missing (idempotent).
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config clang-format python3
  gfortran                       # Fortran programs as ranks (vela-mpif90, mpif.h, use mpi)
  make                           # GCC runs link-time optimization's parallel jobs with it
  libboost-context-dev           # user-level threads (VP ranks)
  libopenmpi-dev openmpi-bin     # distribution across processes
  libmetis-dev libscotch-dev     # graph partitioning
  libtrilinos-zoltan-dev         # hypergraph partitioning
  libglpk-dev                    # exact (ILP) reference strategy
  libhwloc-dev                   # pinning PEs to cores
  nlohmann-json3-dev libcli11-dev libfmt-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  clang libclang-rt-14-dev       # libFuzzer (scripts/fuzz.sh)
  libnetcdf-dev                  # the BRAMS proxy's --output (netCDF, CF conventions)
  libbrotli-dev                  # DARMA vt's brotli-compressed LB data files
  linux-perf                     # cache-miss counts in the demo, where the machine exposes them
  python3-matplotlib             # vela-lb report's pictures
  chromium                       # the report's test looks at the page in a headless browser
  tmux                           # a real terminal for the progress-line tests
  libblas-dev                    # HPC Challenge's HPL (scripts/real-codes.py, in CI)
  libsimgrid-dev                 # vela-lb simulate (SimGrid), optional: the build works without it
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: missing packages: ${missing[*]}" >&2
  echo "install-deps: run this script as root (or: sudo apt-get install ${missing[*]})" >&2
  exit 1
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
