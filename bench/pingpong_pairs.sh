#!/usr/bin/env bash
# The 8-byte one-way latency of Open MPI's ping-pong, Vela ranks' and Vela elements' between two
# processes, launched alternately N times (the host's load moves from one launch to the next:
# each launch's figures are compared with its neighbours'), and the ratios to Open MPI.
#   bench/pingpong_pairs.sh [BUILD_DIR [N]]      (defaults: build, 10)
set -euo pipefail

build=${1:-build}
n=${2:-10}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "pingpong_pairs.sh: N: expected a positive count, got '$n'" >&2; exit 2; }
for program in rank_pingpong_openmpi rank_pingpong_vela distribution_bench; do
  [[ -x $build/bench/$program ]] || {
    echo "pingpong_pairs.sh: $build/bench/$program not built (cmake --build $build --target $program)" >&2
    exit 2
  }
done
if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi

# The µs column of the 8-byte row of a table printed by one of the programs.
eight_bytes() { awk -F'|' -v column="$1" '$2 ~ /^ *8 *$/ { sub(/\(.*/, "", $column); gsub(/ /, "", $column); print $column }'; }

echo "| launch | Open MPI µs | Vela ranks µs | Vela elements µs | ranks / Open MPI | elements / Open MPI |"
echo "|---:|---:|---:|---:|---:|---:|"
ranks=()
elements=()
for ((i = 1; i <= n; ++i)); do
  o=$(mpirun -np 2 "$build/bench/rank_pingpong_openmpi" 20 8 | eight_bytes 3)
  r=$(mpirun -np 2 "$build/bench/rank_pingpong_vela" --vp 2 20 8 | eight_bytes 3)
  e=$(mpirun -np 2 "$build/bench/distribution_bench" --mode pe-shm --bytes 8 --reps 20 | eight_bytes 4)
  ranks+=("$(awk -v a="$r" -v b="$o" 'BEGIN { printf "%.2f", a / b }')")
  elements+=("$(awk -v a="$e" -v b="$o" 'BEGIN { printf "%.2f", a / b }')")
  echo "| $i | $o | $r | $e | ${ranks[-1]} | ${elements[-1]} |"
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo
echo "median ratio to Open MPI: ranks $(median "${ranks[@]}"), elements $(median "${elements[@]}")"
