#!/usr/bin/env bash
# The BRAMS proxy's time per step by rank count (virtualization 1 to 32 on the PEs), without
# balancing: the best of REPEATS runs of STEPS steps each, and the ratio to ranks = PEs in the
# same run (regressions in the rank machinery show as a growing ratio).
#   bench/brams_steps.sh [PES] [STEPS] [REPEATS]      defaults: all cores, 40, 3
set -euo pipefail
cd "$(dirname "$0")/.."
pes=${1:-$(nproc)}
steps=${2:-40}
repeats=${3:-3}
bin=build/apps/brams/brams
[[ -x $bin ]] || { echo "brams_steps.sh: build first (cmake --build build --target brams)" >&2; exit 2; }

source bench/best_step.sh

echo "BRAMS proxy, default grid, $steps steps, $pes PEs, best of $repeats"
printf '| %-6s | %-5s | %12s | %10s |\n' "ranks" "ratio" "ms per step" "vs ratio 1"
printf '|---:|---:|---:|---:|\n'
base=""
for ratio in 1 2 4 8 16 32; do
  ranks=$((pes * ratio))
  s=$(best_step "$bin" "$repeats" --pes "$pes" --no-pin --steps "$steps" --lb-every 0 --ranks "$ranks")
  [[ -z $base ]] && base=$s
  awk -v r="$ranks" -v v="$ratio" -v s="$s" -v b="$base" \
    'BEGIN { printf "| %-6d | %-5d | %12.3f | %10.2f |\n", r, v, 1000 * s, s / b }'
done
