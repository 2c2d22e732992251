#!/usr/bin/env bash
# The 8-byte one-way latency of Open MPI's ping-pong, Vela ranks' and Vela elements' between two
# processes, launched alternately N times (the host's load moves from one launch to the next:
# each launch's figures are compared with its neighbours'), and the ratios to Open MPI.
#   bench/pingpong_pairs.sh [BUILD_DIR [N [OTHER_BUILD_DIR]]]      (defaults: build, 10)
# With OTHER_BUILD_DIR (another build of Vela, e.g. configured with -DVELA_LTO=OFF), each launch
# also runs that build's ranks and elements, right after this build's, in extra columns.
set -euo pipefail

build=${1:-build}
n=${2:-10}
other=${3:-}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "pingpong_pairs.sh: N: expected a positive count, got '$n'" >&2; exit 2; }
for dir in "$build" ${other:+"$other"}; do
  for program in rank_pingpong_openmpi rank_pingpong_vela distribution_bench; do
    [[ -x $dir/bench/$program ]] || {
      echo "pingpong_pairs.sh: $dir/bench/$program not built (cmake --build $dir --target $program)" >&2
      exit 2
    }
  done
done
if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# The µs column of the 8-byte row of a table printed by one of the programs.
eight_bytes() { awk -F'|' -v column="$1" '$2 ~ /^ *8 *$/ { sub(/\(.*/, "", $column); gsub(/ /, "", $column); print $column }'; }
ranks_of() { mpirun -np 2 "$1/bench/rank_pingpong_vela" --vp 2 20 8 | eight_bytes 3; }
elements_of() { mpirun -np 2 "$1/bench/distribution_bench" --mode pe-shm --bytes 8 --reps 20 | eight_bytes 4; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }

if [[ -z $other ]]; then
  echo "| launch | Open MPI µs | Vela ranks µs | Vela elements µs | ranks / Open MPI | elements / Open MPI |"
  echo "|---:|---:|---:|---:|---:|---:|"
else
  echo "| launch | Open MPI µs | Vela ranks µs | other build's ranks µs | Vela elements µs | other build's elements µs | ranks / Open MPI | other's ranks / Open MPI | elements / Open MPI | other's elements / Open MPI |"
  echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
fi
ranks=() elements=() other_ranks=() other_elements=()
for ((i = 1; i <= n; ++i)); do
  o=$(mpirun -np 2 "$build/bench/rank_pingpong_openmpi" 20 8 | eight_bytes 3)
  r=$(ranks_of "$build")
  ranks+=("$(ratio "$r" "$o")")
  if [[ -n $other ]]; then
    r2=$(ranks_of "$other")
    other_ranks+=("$(ratio "$r2" "$o")")
  fi
  e=$(elements_of "$build")
  elements+=("$(ratio "$e" "$o")")
  if [[ -z $other ]]; then
    echo "| $i | $o | $r | $e | ${ranks[-1]} | ${elements[-1]} |"
    continue
  fi
  e2=$(elements_of "$other")
  other_elements+=("$(ratio "$e2" "$o")")
  echo "| $i | $o | $r | $r2 | $e | $e2 | ${ranks[-1]} | ${other_ranks[-1]} | ${elements[-1]} | ${other_elements[-1]} |"
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo
echo "median ratio to Open MPI: ranks $(median "${ranks[@]}"), elements $(median "${elements[@]}")"
if [[ -n $other ]]; then
  echo "the other build's: ranks $(median "${other_ranks[@]}"), elements $(median "${other_elements[@]}")"
fi
