#!/usr/bin/env bash
# The runtime micro-benchmarks on a busy machine: a CPU-burning loop takes one core (core 1,
# pinned with taskset when there is one, else wherever the scheduler puts it) while
# build/bench/runtime_bench runs, so its figures and floors show what other tenants cost.
# Usage: bench/runtime_busy.sh [runtime_bench flags...]   e.g. --benchmark_filter=PingPong
#   bash scripts/bench.sh runtime_bench   the idle-machine run (builds first)
#   bench/runtime_busy.sh                 the busy one (build first: cmake --build build)
# BURN_CORE=N burns core N instead of core 1.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=build/bench/runtime_bench
[[ -x $bench ]] || {
  echo "runtime_busy.sh: $bench not built (bash scripts/bench.sh runtime_bench, or" \
    "cmake -S . -B build -G Ninja -DVELA_BUILD_BENCH=ON && cmake --build build)" >&2
  exit 2
}

core=${BURN_CORE:-1}
if command -v taskset >/dev/null && taskset -c "$core" true 2>/dev/null; then
  taskset -c "$core" bash -c 'while :; do :; done' &
  echo "runtime_busy.sh: burning core $core (pid $!)" >&2
else
  bash -c 'while :; do :; done' &
  echo "runtime_busy.sh: burning one core, unpinned (pid $!)" >&2
fi
burner=$!
trap 'kill "$burner" 2>/dev/null || true; wait "$burner" 2>/dev/null || true' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"$bench" "$@"
