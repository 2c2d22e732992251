#!/usr/bin/env bash
# Two experiments of seed 000 §4.5 on BRAMS-like storm instances:
#  1. central vs distributed Hilbert: time, rounds and messages from 10^3 to 1.2*10^5 objects;
#  2. diffusion vs Hilbert over 50 invocations at 16,384 objects, 16 and 64 objects per PE.
set -euo pipefail
cd "$(dirname "$0")/.."
lb=build/tools/vela-lb/vela-lb
[[ -x $lb ]] || { echo "hilbert_diffusion.sh: build first (cmake --build build)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

stat() { sed -n "s/^  $1: //p"; }

echo "1. Central vs distributed Hilbert (64 PEs; times of a first call, curve order included)"
printf '%10s %12s %12s %14s %8s %12s\n' objects "central ms" "distrib. ms" "distrib. cut" rounds messages
for side in 32 100 224 346; do   # 1,024  10,000  50,176  119,716 objects
  f=$work/h$side.json
  $lb generate brams --nx $side --ny $side --pes 64 -o "$f" >/dev/null
  c=$($lb run -s hilbert "$f")
  d=$($lb run -s hilbert-distributed "$f")
  printf '%10d %12.3f %12.3f %14.3f %8d %12.0f\n' $((side * side)) \
    "$(sed -n 's/^strategy: *hilbert (\([0-9.]*\) ms)/\1/p' <<<"$c")" \
    "$(sed -n 's/^strategy: *hilbert-distributed (\([0-9.]*\) ms)/\1/p' <<<"$d")" \
    "$(stat cut_ms <<<"$d")" "$(stat rounds <<<"$d")" "$(stat messages <<<"$d")"
done

echo
echo "2. Diffusion vs Hilbert: λ after each of 50 invocations (16,384 objects, one storm)"
printf '%8s %8s %10s %10s %10s %10s %10s %12s\n' ratio strategy "after 1" "after 5" "after 10" "after 20" "after 50" "migrations"
for ratio in 16 64; do
  f=$work/d$ratio.json
  $lb generate brams --nx 128 --ny 128 --pes $((16384 / ratio)) -o "$f" >/dev/null
  for s in diffusion hilbert; do
    out=$($lb run -s $s --repeat 50 "$f")
    lambda() { awk -v k="$1" '$1 == k && NF == 4 { sub("%", "", $2); print $2 }' <<<"$out"; }
    moves=$(sed -n 's/^migrations: *\([0-9]*\) objects.*/\1/p' <<<"$out")
    printf '%8d %8s %9.2f%% %9.2f%% %9.2f%% %9.2f%% %9.2f%% %12s\n' "$ratio" "$s" \
      "$(lambda 1)" "$(lambda 5)" "$(lambda 10)" "$(lambda 20)" "$(lambda 50)" "$moves"
  done
done
