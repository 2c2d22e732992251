#!/usr/bin/env bash
# Koenig's experiments (seed 002, chapters 4 to 7) with the delay device: Jacobi2D on two
# clusters joined by a WAN of latency L, emulated in one process (--clusters, --wan-latency).
#   bench/koenig.sh [MESH] [STEPS] [REPS]        defaults: 2048 40 3
# Prints three tables (milliseconds per step, the median of REPS runs):
#   A. per-step time against L and objects per PE: 2 PEs, one per cluster, block map;
#   B. naive and block maps, with and without border prioritization (the Grid Queue):
#      4 PEs, 2 per cluster, 8 x 8 blocks (16 per PE);
#   C. the grid strategies in the runtime on a heterogeneous pair of clusters (cluster 1 at half
#      speed, emulated), L = 4 ms, against greedy and metis: step time, WAN bytes per step
#      (halos and migrated elements) and migrations; 100 steps, a threshold policy (balance
#      when λ > 10%) asked every 10 steps; 2 PEs (1 + 1) and 4 PEs (2 + 2).
# Every run's checksum must equal the first one's (the script stops otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
mesh=${1:-2048}
steps=${2:-40}
reps=${3:-3}
bin=build/apps/jacobi2d/jacobi2d
[[ -x $bin ]] || { echo "koenig.sh: build first (cmake --build build)" >&2; exit 2; }
latencies="0 1 2 4 8 16 32"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Runs jacobi2d REPS times (after --mesh, --steps); prints "median-ms-per-step
# wan-bytes-per-step migrations". Checksums are compared per step count (file in $work).
source bench/median_run.sh
measure() {
  median_run koenig.sh "$work/checksum-$1" 's/^step: //p' "$bin" --mesh "$mesh" --no-pin --steps "$@"
}

echo "A. Jacobi2D ${mesh}^2, $steps steps, 2 PEs in 2 clusters (1 + 1), block map: ms per step"
printf '| L (ms) |'
for m in 2 4 8 16; do printf ' %d objects/PE |' $((m * m / 2)); done
printf '\n|---|---|---|---|---|\n'
for l in $latencies; do
  printf '| %s |' "$l"
  for m in 2 4 8 16; do
    read -r ms _ < <(measure "$steps" --pes 2 --clusters 1,1 --wan-latency "$l" --objects "$m" \
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
      read -r ms _ < <(measure "$steps" --pes 4 --clusters 2,2 --wan-latency "$l" --objects 8 \
        --sync-every 0 --map "$map" --grid-queue-period "$period")
      printf ' %s |' "$ms"
    done
  done
  printf '\n'
done

echo
echo "C. 2 clusters, cluster 1 at half speed (--pe-speed 1,0.5), L = 4 ms, 16 x 16 blocks, 100"
echo "   steps, --lb-policy threshold (λ > 10%) asked every 10 steps"
echo "| PEs | strategy | ms per step | WAN bytes per step | migrations |"
echo "|---|---|---|---|---|"
for layout in "2 1,1" "4 2,2"; do
  read -r pes clusters <<<"$layout"
  for lb in none greedy metis grid-comm grid-metis grid-hybrid; do
    args=(--pes "$pes" --clusters "$clusters" --pe-speed 1,0.5 --wan-latency 4 --objects 16
      --sync-every 10)
    [[ $lb != none ]] && args+=(--lb "$lb" --lb-policy threshold)
    read -r ms wan moved < <(measure 100 "${args[@]}")
    printf '| %s | %s | %s | %s | %s |\n' "$pes" "$lb" "$ms" "$wan" "$moved"
  done
done
echo
echo "every run's checksum equals the first run's of the same step count: $(cat "$work"/checksum-* | sort -u | tr '\n' ' ')"
