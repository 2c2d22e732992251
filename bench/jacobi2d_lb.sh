#!/usr/bin/env bash
# Jacobi2D with a heavy region on 2 PEs: step time without balancing and after balancing with
# greedy, refine and hilbert, against the ideal step time (sum of the measured loads / PEs).
#   bench/jacobi2d_lb.sh [MESH] [OBJECTS] [STEPS] [HEAVY]      defaults: 4096 16 60 16
# Balancing happens every 10 steps. The step time after balancing is (T(STEPS) - T(10)) /
# (STEPS - 10): the first 10 steps, before the first balancing, are taken out. The ideal is
# the mean over balancing steps 2.. of (sum of object loads / PEs / 10), from --lb-dump.
set -euo pipefail
cd "$(dirname "$0")/.."
mesh=${1:-4096}
objects=${2:-16}
steps=${3:-60}
heavy=${4:-16}
bin=build/apps/jacobi2d/jacobi2d
[[ -x $bin ]] || { echo "jacobi2d_lb.sh: build first (cmake --build build)" >&2; exit 2; }
(( steps > 20 )) || { echo "jacobi2d_lb.sh: STEPS must be > 20" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

common="--mesh $mesh --objects $objects --heavy $heavy --sync-every 10 --no-pin --pes 2"
time_of() { "$bin" $common "$@" | sed -n 's/^time: //p'; }
checksum_of() { "$bin" $common "$@" | sed -n 's/^checksum: //p'; }

ideal_per_step() {  # mean of sum(load) / pes / 10 over the dumps after the first
  python3 - "$1" <<'PY'
import json, sys, pathlib
files = sorted(pathlib.Path(sys.argv[1]).glob("*.json"), key=lambda p: int(p.stem.split("step")[1]))
vals = []
for f in files[1:]:
    d = json.loads(f.read_text())
    vals.append(sum(d["objects"]["load"]) / len(d["pes"]["speed"]) / 10)
print(f"{sum(vals) / len(vals):.6f}")
PY
}

echo "Jacobi2D ${mesh}^2 in ${objects}x${objects} blocks, heavy factor $heavy, 2 PEs, balancing every 10 steps"
printf '%-8s %14s %14s %14s %10s  %s\n' balancer "first 10 ms/st" "after ms/step" "ideal ms/step" "x ideal" checksum
t10=$(time_of --steps 10)
row() {  # balancer, time of all steps, ideal ms per step, checksum
  awk -v lb="$1" -v t10="$t10" -v tn="$2" -v ideal="$3" -v sum="$4" -v s="$steps" 'BEGIN {
    after = (tn - t10) / (s - 10)
    printf "%-8s %14.1f %14.2f %14.2f %10.3f  %s\n", lb, 100 * t10, 1000 * after, 1000 * ideal, after / ideal, sum }'
}
for lb in greedy refine hilbert; do
  tn=$(time_of --steps "$steps" --lb "$lb" --lb-dump "$work/$lb")
  ideal=$(ideal_per_step "$work/$lb")
  [[ $lb == greedy ]] && greedy_ideal=$ideal
  row "$lb" "$tn" "$ideal" "$(checksum_of --steps "$steps" --lb "$lb")"
done
# Without balancing there are no dumps: the same work, so greedy's ideal.
row none "$(time_of --steps "$steps")" "$greedy_ideal" "$(checksum_of --steps "$steps")"
