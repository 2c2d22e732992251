#!/usr/bin/env bash
# The comparison scripts (bench/side_by_side.py, bench/alloc_ranks.py, bench/lb_async.py) refuse
# bad command lines with status 2 and a message naming the argument and what was expected, before
# building or running anything. BUILD_DIR: Vela's build (bin/vela-mpicxx).
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: bench_usage_test.sh BUILD_DIR}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0

# shellcheck source=../support/expect.sh
source "$repo/tests/support/expect.sh"

sbs=("$repo/bench/side_by_side.py" --build "$build")
expect 2 "--rounds: expected a positive count, got 0" "${sbs[@]}" --rounds 0
expect 2 "--many: expected a rank count of at least 2, got 1" "${sbs[@]}" --many 1
expect 2 "--build: $scratch/bin/vela-mpicxx not found" "$repo/bench/side_by_side.py" --build "$scratch"
expect 2 "--charm: $scratch/bin/ampicxx not found" "${sbs[@]}" --charm "$scratch"
expect 2 "--only: unknown program 'lammps'" "${sbs[@]}" --only lammps
expect 2 "npb=/x: expected lulesh=DIR or hpcg=DIR" "${sbs[@]}" npb=/x
expect 2 "lulesh=$scratch/none: $scratch/none is not a directory" "${sbs[@]}" "lulesh=$scratch/none"
mkdir -p "$scratch/empty"
expect 2 "lulesh=$scratch/empty: no lulesh*.cc there" "${sbs[@]}" --only lulesh \
  "lulesh=$scratch/empty"

expect 2 "hpcg=$scratch/empty: no src/main.cpp there" "${sbs[@]}" "hpcg=$scratch/empty"

ar=("$repo/bench/alloc_ranks.py" --build "$build")
expect 2 "--rounds: expected a positive count, got 0" "${ar[@]}" --rounds 0
expect 2 "--build: $scratch/bin/vela-mpicc not found" "$repo/bench/alloc_ranks.py" --build "$scratch"

la=("$repo/bench/lb_async.py" --build "$build")
expect 2 "--rounds: expected a positive count, got 0" "${la[@]}" --rounds 0
expect 2 "--every: expected a positive count, got x" "${la[@]}" --every x
expect 2 "--steps: expected positive step counts separated by commas, got 2,-1" "${la[@]}" \
  --steps 2,-1
expect 2 "--app: expected brams or graph, got lulesh" "${la[@]}" --app lulesh
expect 2 "--build: $scratch/apps/brams/brams not found" "$repo/bench/lb_async.py" --build "$scratch"

[[ $failures -eq 0 ]] && echo "all passed"
exit $((failures > 0))
