#!/usr/bin/env bash
# Koenig's experiments (seed 002, chapters 4 to 7) with the delay device: Jacobi2D on two
# clusters joined by a WAN of latency L, emulated in one process (--clusters, --wan-latency).
#   bench/koenig.sh [MESH] [STEPS] [REPS]        defaults: 2048 40 3
# Prints three tables (milliseconds per step, the median of REPS runs):
#   A. per-step time against L and objects per PE: 2 PEs, one per cluster, block map;
#   B. naive and block maps, with and without border prioritization (the Grid Queue):
#      4 PEs, 2 per cluster, 8 x 8 blocks (16 per PE);
#   C. the grid strategies in the runtime on a heterogeneous pair of clusters (cluster 1 at half
#      speed, emulated), L = 4 ms, against greedy and metis: step time and WAN bytes per step.
# Every run's checksum must equal the first one's (the script stops otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
mesh=${1:-2048}
steps=${2:-40}
reps=${3:-3}
bin=build/apps/jacobi2d/jacobi2d
[[ -x $bin ]] || { echo "koenig.sh: build first (cmake --build build)" >&2; exit 2; }
latencies="0 1 2 4 8 16 32"
reference=""

# Runs jacobi2d REPS times; prints "median-ms-per-step wan-bytes-per-step".
measure() {
  local out ms=() wan=0 sum
  for ((r = 0; r < reps; r++)); do
    out=$("$bin" --mesh "$mesh" --steps "$steps" --no-pin "$@")
    sum=$(sed -n 's/^checksum: //p' <<<"$out")
    if [[ -z $reference ]]; then reference=$sum; fi
    if [[ $sum != "$reference" ]]; then
      echo "koenig.sh: checksum $sum differs from $reference for: $*" >&2
      exit 1
    fi
    ms+=("$(sed -n 's/^step: //p' <<<"$out")")
    wan=$(sed -n 's/.*(\([0-9]*\) bytes\/step).*/\1/p' <<<"$out")
  done
  printf '%s\n' "${ms[@]}" | sort -g | awk -v w="${wan:-0}" '{v[NR] = $1}
    END {printf "%.2f %s\n", 1000 * v[int((NR + 1) / 2)], w}'
}

echo "A. Jacobi2D ${mesh}^2, $steps steps, 2 PEs in 2 clusters (1 + 1), block map: ms per step"
printf '| L (ms) |'
for m in 2 4 8 16; do printf ' %d objects/PE |' $((m * m / 2)); done
printf '\n|---|---|---|---|---|\n'
for l in $latencies; do
  printf '| %s |' "$l"
  for m in 2 4 8 16; do
    read -r ms _ < <(measure --pes 2 --clusters 1,1 --wan-latency "$l" --objects "$m" \
      --sync-every 0)
    printf ' %s |' "$ms"
  done
  printf '\n'
done

echo
echo "B. 4 PEs in 2 clusters (2 + 2), 8 x 8 blocks (16 per PE): maps and border prioritization"
echo "| L (ms) | naive | naive + prioritization | block | block + prioritization |"
echo "|---|---|---|---|---|"
for l in $latencies; do
  printf '| %s |' "$l"
  for map in naive block; do
    for period in 0 8; do
      read -r ms _ < <(measure --pes 4 --clusters 2,2 --wan-latency "$l" --objects 8 \
        --sync-every 0 --map "$map" --grid-queue-period "$period")
      printf ' %s |' "$ms"
    done
  done
  printf '\n'
done

echo
echo "C. 2 PEs in 2 clusters, cluster 1 at half speed (--pe-speed 1,0.5), L = 4 ms, 16 x 16"
echo "   blocks, balancing every 10 steps"
echo "| strategy | ms per step | WAN bytes per step |"
echo "|---|---|---|"
for lb in none greedy metis grid-comm grid-metis grid-hybrid; do
  args=(--pes 2 --clusters 1,1 --pe-speed 1,0.5 --wan-latency 4 --objects 16 --sync-every 10)
  [[ $lb != none ]] && args+=(--lb "$lb")
  read -r ms wan < <(measure "${args[@]}")
  printf '| %s | %s | %s |\n' "$lb" "$ms" "$wan"
done
echo
echo "checksum of every run: $reference"
