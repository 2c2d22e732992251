#!/usr/bin/env bash
# Builds and runs the benchmarks; tables go to stdout and to out/bench/NAME.txt.
#   scripts/bench.sh                 every benchmark
#   scripts/bench.sh strategies_bench --benchmark_filter=greedy   one, with its own flags
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DVELA_BUILD_BENCH=ON >/dev/null
cmake --build build
mkdir -p out/bench

if [[ $# -gt 0 ]]; then
  name="$1"
  shift
  [[ -x "build/bench/$name" ]] || { echo "bench.sh: no benchmark '$name' in build/bench" >&2; exit 2; }
  "build/bench/$name" "$@" | tee "out/bench/$name.txt"
  exit 0
fi
for b in build/bench/*_bench; do
  name=$(basename "$b")
  echo "== $name"
  "$b" | tee "out/bench/$name.txt"
done
