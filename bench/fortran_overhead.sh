#!/usr/bin/env bash
# What a Fortran rank's MPI call costs over a C rank's, and the BRAMS proxy's Fortran twin against
# the C++ proxy (issue targets: within 20 ns per call; within 1.1x the time). Builds the ping-pong
# twins (bench/fortran/pingpong.{c,f90}) with vela-mpicc and vela-mpif90 (both loaded images), then
# runs, alternately N times:
#   - the two ping-pongs, 2 ranks on one PE (an MPI_Send and MPI_Recv per rank and round: the
#     call path, not a transport), one-way µs;
#   - the C++ proxy built unchanged by vela-mpicxx (apps/brams's brams_image) and its Fortran twin
#     (apps/brams-fortran) on the same problem, --vp 8 --pes 2, no balancing: the run's seconds.
# Prints each launch, then medians with their spread (max - min).
#   bench/fortran_overhead.sh [BUILD_DIR [N]]     (defaults: build, 7)
set -euo pipefail

build=${1:-build}
n=${2:-7}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "fortran_overhead.sh: N: expected a positive count, got '$n'" >&2; exit 2; }
for program in bin/vela-mpicc bin/vela-mpif90 apps/brams/brams_image apps/brams-fortran/brams-fortran; do
  [[ -x $build/$program ]] || {
    echo "fortran_overhead.sh: $build/$program not built (cmake --build $build)" >&2
    exit 2
  }
done
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/vela-mpicc" -O2 -o "$work/pingpong_c" "$here/fortran/pingpong.c"
"$build/bin/vela-mpif90" -O2 -o "$work/pingpong_f" "$here/fortran/pingpong.f90"

problem="--nx 128 --ny 96 --nz 24 --steps 100 --lb-every 0 --radiation-every 10"
one_way() { "$1" --vp 2 --pes 1 --no-pin 200000 | awk '/^one-way us:/ { print $3 }'; }
seconds() {
  local start end
  start=$(date +%s.%N)
  "$1" --vp 8 --pes 2 --no-pin $problem >"$work/out" 2>&1 || { cat "$work/out" >&2; exit 1; }
  end=$(date +%s.%N)
  grep -q '^checksum: ' "$work/out" || { cat "$work/out" >&2; exit 1; }
  awk -v a="$start" -v b="$end" 'BEGIN { printf "%.3f", b - a }'
}
median_spread() { sort -g | awk '{ v[NR] = $1 } END { m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4g (spread %.3g)", m, v[NR] - v[1] }'; }

echo "| launch | load | C ping-pong µs | Fortran ping-pong µs | C++ proxy s | Fortran proxy s |"
echo "|---:|---:|---:|---:|---:|---:|"
c_pp=() f_pp=() c_run=() f_run=()
for ((i = 1; i <= n; ++i)); do
  load=$(cut -d' ' -f1 /proc/loadavg)
  c_pp+=("$(one_way "$work/pingpong_c")")
  f_pp+=("$(one_way "$work/pingpong_f")")
  c_run+=("$(seconds "$build/apps/brams/brams_image")")
  f_run+=("$(seconds "$build/apps/brams-fortran/brams-fortran")")
  echo "| $i | $load | ${c_pp[-1]} | ${f_pp[-1]} | ${c_run[-1]} | ${f_run[-1]} |"
done
echo
echo "C ping-pong one-way µs: $(printf '%s\n' "${c_pp[@]}" | median_spread)"
echo "Fortran ping-pong one-way µs: $(printf '%s\n' "${f_pp[@]}" | median_spread)"
echo "C++ proxy s: $(printf '%s\n' "${c_run[@]}" | median_spread)"
echo "Fortran proxy s: $(printf '%s\n' "${f_run[@]}" | median_spread)"
