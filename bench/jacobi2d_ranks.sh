#!/usr/bin/env bash
# Jacobi2D as MPI ranks (ranks.c on vela/mpi.h) on 2 PEs: virtualization 1, 4 and 16 ranks per
# PE, without balancing and with greedy at MPI_Migrate every 10 steps, against the object
# version with as many blocks. Prints ms per step (whole run) and the checksum of each row.
#   bench/jacobi2d_ranks.sh [MESH] [STEPS] [HEAVY]      defaults: 2048 60 16
set -euo pipefail
cd "$(dirname "$0")/.."
mesh=${1:-2048}
steps=${2:-60}
heavy=${3:-16}
bin=build/apps/jacobi2d/jacobi2d
[[ -x $bin ]] || { echo "jacobi2d_ranks.sh: build first (cmake --build build)" >&2; exit 2; }
common="--mesh $mesh --steps $steps --heavy $heavy --sync-every 10 --no-pin --pes 2"
run() { "$bin" $common "$@"; }
field() { sed -n "s/^$1: //p"; }

echo "Jacobi2D ${mesh}^2, $steps steps, heavy factor $heavy, 2 PEs, balancing every 10 steps"
printf '| %-6s | %-16s | %-8s | %12s | %10s | %s |\n' "ranks" "per PE" "balancer" "ms per step" "migrations" "checksum"
printf '|---:|---|---|---:|---:|---|\n'
for per_pe in 1 4 16; do
  ranks=$((2 * per_pe))
  for lb in none greedy; do
    extra=()
    [[ $lb != none ]] && extra=(--lb "$lb")
    out=$(run --ranks "$ranks" "${extra[@]}")
    ms=$(awk -v t="$(field time <<<"$out")" -v s="$steps" 'BEGIN { printf "%.2f", 1000 * t / s }')
    moved=$(sed -n 's/.*migrations: \([0-9]*\).*/\1/p' <<<"$out")
    printf '| %-6s | %-16s | %-8s | %12s | %10s | %s |\n' "$ranks" "$per_pe" "$lb" "$ms" "$moved" "$(field checksum <<<"$out")"
  done
done
# The object version with the same decomposition as 16 ranks per PE (32 blocks = 8 x 4 is not
# square: the object version uses M x M blocks, so 6 x 6 = 36 blocks is the nearest).
for lb in none greedy; do
  extra=()
  [[ $lb != none ]] && extra=(--lb "$lb")
  out=$(run --objects 6 "${extra[@]}")
  ms=$(awk -v t="$(field time <<<"$out")" -v s="$steps" 'BEGIN { printf "%.2f", 1000 * t / s }')
  moved=$(sed -n 's/.*migrations: \([0-9]*\).*/\1/p' <<<"$out")
  printf '| %-6s | %-16s | %-8s | %12s | %10s | %s |\n' "objects 36" "18 (objects)" "$lb" "$ms" "$moved" "$(field checksum <<<"$out")"
done
