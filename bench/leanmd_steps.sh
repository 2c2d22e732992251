#!/usr/bin/env bash
# LeanMD's time per step: the default box (6^3 cells, 3,024 computes) on 1 PE and on all cores,
# without balancing and with greedy, the best of REPEATS runs of STEPS steps each, and each
# row's ratio to 1 PE in the same run (a regression shows as a ratio growing).
#   bench/leanmd_steps.sh [STEPS] [REPEATS]      defaults: 40, 3
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-40}
repeats=${2:-3}
bin=build/apps/leanmd/leanmd
[[ -x $bin ]] || { echo "leanmd_steps.sh: build first (cmake --build build --target leanmd)" >&2; exit 2; }

source bench/best_step.sh

echo "LeanMD, 6^3 cells x 40 atoms, $steps steps, best of $repeats"
printf '| %-4s | %-8s | %12s | %9s |\n' "PEs" "balancer" "ms per step" "vs 1 PE"
printf '|---:|---|---:|---:|\n'
base=""
for pes in 1 $(nproc); do
  for lb in none greedy; do
    extra=()
    [[ $lb != none ]] && extra=(--lb "$lb")
    s=$(best_step "$bin" "$repeats" --no-pin --steps "$steps" --pes "$pes" "${extra[@]}")
    [[ -z $base ]] && base=$s
    awk -v p="$pes" -v l="$lb" -v s="$s" -v b="$base" \
      'BEGIN { printf "| %-4d | %-8s | %12.3f | %9.2f |\n", p, l, 1000 * s, s / b }'
  done
done
