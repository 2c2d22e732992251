#!/usr/bin/env bash
# Figure 4.1 from Fortran: what a rank switch costs under automatic privatization
# (--vp-privatize auto, every rank its own instance of the program) against none, for a Fortran
# program whose module holds 1 to 10^4 INTEGER module variables (generated here, in a scratch
# directory), built by vela-mpif90. 2 ranks on 1 PE each increment a module variable and call
# MPI_YIELD, YIELDS times, 7 times per launch (the best counts); auto and none are launched
# alternately N times each; medians with their range, in ns per switch.
#   bench/fortran_privatization.sh [BUILD_DIR [N]]      (defaults: build, 5)
set -euo pipefail

build=${1:-build}
n=${2:-5}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "fortran_privatization.sh: N: expected a positive count, got '$n'" >&2; exit 2; }
[[ -x $build/bin/vela-mpif90 ]] || {
  echo "fortran_privatization.sh: $build/bin/vela-mpif90 not built (cmake --build $build)" >&2
  exit 2
}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# The program with 10^$1 module variables.
generate() {
  local count=$((10 ** $1)) dir=$scratch/e$1
  mkdir -p "$dir"
  {
    echo "module globals"
    echo "  implicit none"
    for ((i = 0; i < count; ++i)); do echo "  integer :: g$i = 1"; done
    echo "end module globals"
  } >"$dir/globals.f90"
  cat >"$dir/switch.f90" <<'FORTRAN'
program switch
  use globals, only: g0
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, round, i, yields, length
  character(len=16) :: argument
  double precision :: start, best
  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  yields = 100000
  call get_command_argument(1, argument, length)
  if (length > 0) read (argument, *) yields
  best = 1d30
  do round = 1, 7
    call MPI_BARRIER(MPI_COMM_WORLD, ierr)
    start = MPI_WTIME()
    do i = 1, yields
      g0 = g0 + 1
      call MPI_YIELD(ierr)
    end do
    best = min(best, MPI_WTIME() - start)
  end do
  ! Each yield of a rank is two switches (to the other rank and back).
  if (rank == 0) print '(a,f0.2)', 'ns per switch: ', best / (2 * yields) * 1d9
  call MPI_FINALIZE(ierr)
end program switch
FORTRAN
  "$build/bin/vela-mpif90" -O2 -J"$dir" -o "$dir/switch" "$dir/globals.f90" "$dir/switch.f90"
}

ns() { "$1" --vp 2 --pes 1 --no-pin --vp-privatize "$2" 100000 | awk '/^ns per switch:/ { print $4 }'; }
summary() {
  sort -g | awk '{ v[NR] = $1 } END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.1f (%.1f–%.1f)", m, v[1], v[NR] }'
}

echo "| module variables | auto ns/switch | none ns/switch | load |"
echo "|---:|---:|---:|---:|"
for e in 0 1 2 3 4; do
  generate "$e"
  auto=() none=()
  load=$(cut -d' ' -f1 /proc/loadavg)
  for ((i = 0; i < n; ++i)); do
    auto+=("$(ns "$scratch/e$e/switch" auto)")
    none+=("$(ns "$scratch/e$e/switch" none)")
  done
  echo "| $((10 ** e)) | $(printf '%s\n' "${auto[@]}" | summary) | $(printf '%s\n' "${none[@]}" | summary) | $load |"
done
