#!/usr/bin/env bash
# Seed 002's LeanMD figures at its PE counts (16 to 128, half in each of two clusters), by
# replay: LeanMD's per-object loads (CPU time) and messages are recorded on 1 PE with --lb-dump,
# rescaled to P PEs with apps/leanmd/grid_replay.py (the seed's total work per step: 128 PEs x
# 119 ms, its balanced step), the strategies run on them (vela-lb run) and each placement's step
# is replayed event by event against the WAN latency.
#   bench/leanmd_grid_replay.sh [OUT]        default OUT: a temporary directory; about 3 minutes
# Prints the 128-PE table against L = 0 .. 128 ms and, for 16, 32 and 64 PEs too, L = 2 and 32
# ms (the seed's Tables 8.1 and 8.2).
set -euo pipefail
cd "$(dirname "$0")/.."
bin=build/apps/leanmd/leanmd
vela_lb=build/tools/vela-lb/vela-lb
for b in "$bin" "$vela_lb"; do
  [[ -x $b ]] || { echo "leanmd_grid_replay.sh: build first (cmake --build build --target leanmd vela-lb)" >&2; exit 2; }
done
out=${1:-$(mktemp -d)}
mkdir -p "$out"
replay=(python3 apps/leanmd/grid_replay.py)

"$bin" --cells 6 --atoms-per-cell 40 --dense-atoms 160 --steps 50 --sync-every 10 --pes 1 \
  --no-pin --quiet --lb greedy --lb-cpu-time --lb-dump "$out/dumps" | grep -E '^(checksum|step):'
# The windows of steps 10-19, 20-29 and 30-39 (the first holds the start-up).
dumps=("$out"/dumps/leanmd-step{2,3,4}.json)
for pes in 128 64 32 16; do
  half=$((pes / 2))
  "${replay[@]}" prepare "${dumps[@]}" -o "$out/leanmd-$pes.json" --clusters "$half,$half" \
    --work-per-pe "$(awk -v p="$pes" 'BEGIN {print 128 * 119 / p}')"
done
echo
echo "128 PEs (64 + 64):"
"${replay[@]}" table "$out/leanmd-128.json" --vela-lb "$vela_lb" --json "$out/leanmd-128-figures.json"
for pes in 64 32 16; do
  echo
  echo "$pes PEs ($((pes / 2)) + $((pes / 2))):"
  "${replay[@]}" table "$out/leanmd-$pes.json" --vela-lb "$vela_lb" --latency 2,32
done
echo
echo "files: $out"
