#!/usr/bin/env bash
# The simulation scripts (bench/simulate_scale.py, apps/brams/simulate_check.py,
# apps/brams/simulate_tables.py, bench/koenig_simulate.py, bench/simulate_async.py) refuse bad
# command lines with status 2 and a message naming the argument, and, where Vela was built with
# SimGrid, run end to end on a tiny case. BUILD_DIR:
# Vela's build.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:?usage: simulate_usage_test.sh BUILD_DIR}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0

# shellcheck source=../support/expect.sh
source "$repo/tests/support/expect.sh"

scale=("$repo/bench/simulate_scale.py" --build "$build")
expect 2 "--pes: expected a positive count, got 0" "${scale[@]}" --pes 0
expect 2 "--objects: expected a square number (a grid of blocks), got 10" "${scale[@]}" --objects 10
expect 2 "--build: $scratch/tools/vela-lb/vela-lb not found" "$repo/bench/simulate_scale.py" --build "$scratch"

brams=(--binary "$build/apps/brams/brams" --vela-lb "$build/tools/vela-lb/vela-lb")
check=("$repo/apps/brams/simulate_check.py" "${brams[@]}")
expect 2 "--ratios: expected whole numbers separated by commas, got '1,x'" "${check[@]}" --ratios 1,x
expect 2 "--latency and --bandwidth must be > 0" "${check[@]}" --latency 0
expect 2 "'$scratch/brams' is not an executable" "${check[@]}" --binary "$scratch/brams"

tables=("$repo/apps/brams/simulate_tables.py" "${brams[@]}")
expect 2 "--ranks: every count must be at least --pes (64), got 16,256" "${tables[@]}" --ranks 16,256
expect 2 "--platform '$scratch/none.xml': no such file" "${tables[@]}" --platform "$scratch/none.xml"
expect 2 "--steps must be at least 1, got 0" "${tables[@]}" --steps 0

vela_lb=(--vela-lb "$build/tools/vela-lb/vela-lb")
koenig=("$repo/bench/koenig_simulate.py" "${vela_lb[@]}" --leanmd "$build/apps/leanmd/leanmd")
expect 2 "invalid choice: 'both'" "${koenig[@]}" both
expect 2 "--leanmd: $scratch/leanmd is not built" "${koenig[@]}" leanmd --leanmd "$scratch/leanmd"
expect 2 "--vela-lb: $scratch/vela-lb is not built" "$repo/bench/koenig_simulate.py" jacobi \
  --vela-lb "$scratch/vela-lb"
async=("$repo/bench/simulate_async.py" "${vela_lb[@]}")
expect 2 "--steps '0,2': expected numbers > 0" "${async[@]}" --steps 0,2
expect 2 "--steps 'a': expected numbers such as 0.5,2,5" "${async[@]}" --steps a
expect 2 "--trace-steps 10: expected at least 50" "${async[@]}" --trace-steps 10

# End to end on a tiny case, where the build has the simulator and SimGrid's compiler is here.
if "$build/tools/vela-lb/vela-lb" simulate --help >/dev/null 2>&1 &&
  ! "$build/tools/vela-lb/vela-lb" simulate "$scratch/none" --platform xt5 2>&1 | grep -q "without SimGrid"; then
  expect 0 "largest error" "${check[@]}" --nx 16 --ny 16 --nz 4 --steps 12 --ratios 1,2 \
    --strategies greedy --repeats 1 --out "$scratch/check"
  expect 0 "Table 6.2: Jacobi2D 2048x2048, 16 PEs" "${koenig[@]}" all --quick
  expect 0 "async over inline" "${async[@]}" --trace-steps 60 --steps 2
  if command -v smpicxx >/dev/null; then
    expect 0 "Table 4.7 at 4 processors" "${tables[@]}" --nx 32 --ny 32 --nz 4 --steps 8 --pes 4 \
      --ranks 16 --table-ranks 16 --out "$scratch/tables"
  fi
fi

if [[ $failures -ne 0 ]]; then
  echo "simulate_usage_test: $failures failures"
  exit 1
fi
echo "simulate_usage_test: all passed"
