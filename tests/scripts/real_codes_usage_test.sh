#!/usr/bin/env bash
# scripts/real-codes.py and scripts/fetch-sources.sh refuse bad command lines with status 2 and a
# message naming the argument and what was expected, before building or fetching anything.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
failures=0

# shellcheck source=../support/expect.sh
source "$repo/tests/support/expect.sh"

rc=("$repo/scripts/real-codes.py" --vela-bin "$scratch")
expect 2 "no program given" "${rc[@]}"
expect 2 "unknown program 'gromacs' in 'gromacs=/x'" "${rc[@]}" gromacs=/x
expect 2 "argument 'hpcg' is not NAME=DIR" "${rc[@]}" hpcg
expect 2 "'hpcg' given twice" "${rc[@]}" hpcg=/a hpcg=/b
expect 2 "--repeat '0': expected a positive integer" "${rc[@]}" --repeat 0 hpcg=/a
expect 2 "--jobs 'x': expected a positive integer" "${rc[@]}" --jobs x hpcg=/a
expect 2 "--osu-sizes '1-4': expected MIN:MAX" "${rc[@]}" --osu-sizes 1-4 osu=/a
expect 2 "--only comd: no comd=DIR given" "${rc[@]}" --only comd hpcg=/a
expect 2 "hpcg=$scratch/none: no such directory (expected the top of an HPCG source tree" \
  "${rc[@]}" "hpcg=$scratch/none"
mkdir -p "$scratch/empty"
expect 2 "netpipe=$scratch/empty: no src/netpipe.c there" "${rc[@]}" "netpipe=$scratch/empty"
expect 2 "lammps=$scratch/empty: no src/lammps.cpp there" "${rc[@]}" "lammps=$scratch/empty"
expect 2 "--vela-bin $scratch: no executable vela-mpicc there" "${rc[@]}" "netpipe=$scratch/empty"
expect 2 "mumps=DIR needs scalapack=DIR too" "${rc[@]}" mumps=/a
expect 2 "npb=$scratch/empty: no sys/setparams.c there" "${rc[@]}" "npb=$scratch/empty"
expect 0 "NAME=DIR names the top of a program's source tree" "${rc[@]}" --help

fs=("$repo/scripts/fetch-sources.sh")
expect 2 "usage: fetch-sources DIR PACKAGE" "${fs[@]}" "$scratch"
expect 2 "'Bad_Name': not a Debian package name" "${fs[@]}" "$scratch" Bad_Name

[[ $failures -eq 0 ]] && echo "all passed"
exit $((failures > 0))
