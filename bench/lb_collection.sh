#!/usr/bin/env bash
# Balancing's data collection at 64 PEs: the time from the root asking every PE for its
# measurements to the instance being complete, against the strategy's time, for measurement
# trees of several fan-ins (0: every PE reports straight to PE 0).
#   bench/lb_collection.sh [REPS]        default 3 (the median is shown)
# Jacobi2D, 512^2 in 32 x 32 blocks (1,024 elements, 3,968 edges), balancing every 5 steps of
# 20; 64 PEs as one process of 64 threads and as 4 processes of 16 (mpirun), on however many
# cores the machine has.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-3}
bin=build/apps/jacobi2d/jacobi2d
[[ -x $bin ]] || { echo "lb_collection.sh: build first (cmake --build build)" >&2; exit 2; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader \
  OMPI_MCA_rmaps_base_oversubscribe=1
problem="--mesh 512 --objects 32 --steps 20 --sync-every 5 --no-pin"

# Prints "median-collect-ms median-strategy-ms" over REPS runs of the command.
measure() {
  local c=() s=() out
  for ((r = 0; r < reps; r++)); do
    out=$("$@")
    c+=("$(sed -n 's/^lb: \([0-9.]*\) ms collecting.*/\1/p' <<<"$out")")
    s+=("$(sed -n 's/.*collecting, \([0-9.]*\) ms in the strategy.*/\1/p' <<<"$out")")
  done
  local mc ms
  mc=$(printf '%s\n' "${c[@]}" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
  ms=$(printf '%s\n' "${s[@]}" | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
  echo "$mc $ms"
}

echo "| layout | strategy | fan-in | collection ms | strategy ms | collection / strategy |"
echo "|---|---|---|---|---|---|"
for layout in "1x64" "4x16"; do
  for lb in greedy metis; do
    for fan in 0 2 4 8 16; do
      if [[ $layout == 1x64 ]]; then
        read -r c s < <(measure "$bin" $problem --pes 64 --lb "$lb" --lb-fan-in "$fan")
      else
        read -r c s < <(measure mpirun -np 4 "$bin" $problem --pes-per-process 16 --lb "$lb" \
          --lb-fan-in "$fan")
      fi
      awk -v l="$layout" -v lb="$lb" -v f="$fan" -v c="$c" -v s="$s" \
        'BEGIN {printf "| %s | %s | %s | %.3f | %.3f | %.2f |\n", l, lb, f, c, s, c / s}'
    done
  done
done
