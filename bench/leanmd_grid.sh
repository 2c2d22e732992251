#!/usr/bin/env bash
# LeanMD on two clusters behind the delay device (seed 002, chapter 8): no balancing, greedy and
# the grid strategies against the WAN latency L, emulated in one process (--clusters,
# --wan-latency).
#   bench/leanmd_grid.sh [STEPS] [REPS] [LAYOUTS]      defaults: 30 3 "2:1,1" (PES:CLUSTERS ...;
#   "4:2,2" adds 4 PEs, two per cluster, which doubles the time)
# The box: 6^3 cells of 40 atoms, the corner octant with 160 (--dense-atoms), so the computes
# there cost up to 16 times the others. Balancing points every 10 steps (at 10 and 20 for 30
# steps), each strategy run at every one. Per run: milliseconds per step after the last
# balancing point (the median of REPS runs), WAN bytes per step over the whole run (migrated
# elements included) and migrations. Every run's checksum must equal the first one's (the
# script stops otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
steps=${1:-30}
reps=${2:-3}
layouts=${3:-"2:1,1"}
bin=build/apps/leanmd/leanmd
[[ -x $bin ]] || { echo "leanmd_grid.sh: build first (cmake --build build --target leanmd)" >&2; exit 2; }
latencies="0 1 2 4 8 16 32"
strategies="none greedy grid-comm grid-metis grid-hybrid"
problem=(--cells 6 --atoms-per-cell 40 --dense-atoms 160 --steps "$steps" --sync-every 10 --no-pin
  --quiet)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ref="$work/checksum"  # a file: measure runs in a subshell

# Runs leanmd REPS times with the given options; prints "median-ms-per-step wan-bytes-per-step
# migrations".
source bench/median_run.sh
measure() {
  median_run leanmd_grid.sh "$ref" 's/^steady step: \([0-9.]*\).*/\1/p' "$bin" "${problem[@]}" "$@"
}

for layout in $layouts; do
  pes=${layout%%:*}
  clusters=${layout#*:}
  echo "LeanMD 6^3 cells (40 atoms, octant 160), $pes PEs in 2 clusters ($clusters), $steps steps,"
  echo "balancing every 10: ms per step after the last balancing point, median of $reps"
  printf '| L (ms) |'
  for lb in $strategies; do printf ' %s |' "$lb"; done
  printf '\n|---|---|---|---|---|---|\n'
  declare -A wan_of=() moved_of=()
  for l in $latencies; do
    printf '| %s |' "$l"
    for lb in $strategies; do
      args=(--pes "$pes" --clusters "$clusters" --wan-latency "$l")
      [[ $lb != none ]] && args+=(--lb "$lb")
      read -r ms wan moved < <(measure "${args[@]}")
      printf ' %s |' "$ms"
      wan_of[$lb]+="$wan "
      moved_of[$lb]+="$moved "
    done
    printf '\n'
  done
  echo
  echo "WAN bytes per step and migrations (the median over the latencies; both vary little with L):"
  echo "| strategy | WAN bytes per step | migrations |"
  echo "|---|---|---|"
  for lb in $strategies; do
    w=$(tr ' ' '\n' <<<"${wan_of[$lb]}" | sed '/^$/d' | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
    m=$(tr ' ' '\n' <<<"${moved_of[$lb]}" | sed '/^$/d' | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}')
    printf '| %s | %s | %s |\n' "$lb" "$w" "$m"
  done
  unset wan_of moved_of
  echo
done
echo "every run's checksum: $(cat "$ref")"
