#!/usr/bin/env bash
# Jacobi2D with a heavy region on 2 PEs: step time without balancing and with greedy, refine
# and hilbert, against the ideal (the 1-PE time halved: all the work spread evenly).
#   bench/jacobi2d_lb.sh [MESH] [OBJECTS] [STEPS] [HEAVY]      defaults: 4096 16 60 16
set -euo pipefail
cd "$(dirname "$0")/.."
mesh=${1:-4096}
objects=${2:-16}
steps=${3:-60}
heavy=${4:-16}
bin=build/apps/jacobi2d/jacobi2d
[[ -x $bin ]] || { echo "jacobi2d_lb.sh: build first (cmake --build build)" >&2; exit 2; }

common="--mesh $mesh --objects $objects --steps $steps --heavy $heavy --sync-every 10 --no-pin"
run() {  # prints "time checksum"
  local out
  out=$("$bin" $common "$@")
  echo "$(sed -n 's/^time: //p' <<<"$out") $(sed -n 's/^checksum: //p' <<<"$out")"
}

read -r t1 c1 < <(run --pes 1)
ideal=$(awk -v t="$t1" 'BEGIN { printf "%.4f", t / 2 }')
echo "Jacobi2D ${mesh}^2 in ${objects}x${objects} blocks, $steps steps, heavy factor $heavy, 2 PEs"
echo "(balancing every 10 steps; ideal = 1-PE time / 2 = $ideal s)"
echo
printf '%-10s %10s %12s %12s  %s\n' balancer "time s" "ms/step" "x ideal" checksum
for lb in none greedy refine hilbert; do
  if [[ $lb == none ]]; then read -r t c < <(run --pes 2); else read -r t c < <(run --pes 2 --lb "$lb"); fi
  awk -v lb="$lb" -v t="$t" -v s="$steps" -v i="$ideal" -v c="$c" \
    'BEGIN { printf "%-10s %10.3f %12.2f %12.3f  %s\n", lb, t, 1000 * t / s, t / i, c }'
done
printf '%-10s %10.3f %12.2f %12.3f  %s\n' "1 PE" "$t1" "$(awk -v t="$t1" -v s="$steps" 'BEGIN{print 1000*t/s}')" 2.000 "$c1"
