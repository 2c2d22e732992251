#!/usr/bin/env bash
# What automatic privatization (--vp-privatize auto) costs against none, on the same program
# built by vela-mpicc with 10^0 to 10^5 int globals (bench/image/globals.c), each pair of
# figures from launches made alternately (auto, none, auto, ...) so that the host's load falls
# on both; medians with their range.
#   bench/image_privatization.sh [BUILD_DIR [N]]       (defaults: build, 5 launches per figure)
# Tables: 1. ns per rank switch (2 ranks on 1 PE yielding to each other, best of 7 inside each
# launch); 2. start-up of 10,000 ranks on 2 PEs (wall seconds, peak memory) and memory per rank
# against the image's writable size; 3. a rank's bytes in a checkpoint (what a move to another
# process sends) and the time of 8 ranks each moving 8 times between 2 processes.
set -euo pipefail

build=${1:-build}
n=${2:-5}
[[ $n =~ ^[1-9][0-9]*$ ]] || { echo "image_privatization.sh: N: expected a positive count, got '$n'" >&2; exit 2; }
for e in 0 1 2 3 4 5; do
  [[ -x $build/bench/image_globals_$e ]] || {
    echo "image_privatization.sh: $build/bench/image_globals_$e not built (cmake --build $build --target image_bench)" >&2
    exit 2
  }
done
if [[ $(id -u) -eq 0 ]]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# Median and range of the numbers on stdin: "median (min–max)".
summary() {
  sort -g | awk -v f="${1:-%.1f}" '{ v[NR] = $1 } END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf f " (" f "–" f ")", m, v[1], v[NR] }'
}
median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
program() { echo "$build/bench/image_globals_$1"; }
# Bytes of the image's writable segments (the program's own data, .bss and relocated tables).
writable_bytes() {
  objcopy -O binary --only-section=.vela_program_image "$1" "$scratch/image.so"
  readelf -lW "$scratch/image.so" | awk '$1 == "LOAD" && $7 ~ /W/ { print $6 }' |
    while read -r hex; do printf '%d\n' "$hex"; done | awk '{ s += $1 } END { print s + 0 }'
}

echo "1. ns per rank switch (2 ranks, 1 PE, MPI_Yield), median (range) of $n launches each"
echo
echo "| globals | none | auto | auto − none |"
echo "|---:|---:|---:|---:|"
for e in 0 1 2 3 4 5; do
  : >"$scratch/auto" && : >"$scratch/none"
  for ((i = 0; i < n; ++i)); do
    for method in auto none; do
      "$(program "$e")" switch 50000 --vp 2 --pes 1 --no-pin --vp-privatize "$method" |
        awk -F': ' '/ns per switch/ { print $2 }' >>"$scratch/$method"
    done
  done
  a=$(median <"$scratch/auto") && z=$(median <"$scratch/none")
  printf '| %s | %s | %s | %+.1f |\n' "$((10 ** e))" "$(summary <"$scratch/none")" \
    "$(summary <"$scratch/auto")" "$(awk -v a="$a" -v z="$z" 'BEGIN { print a - z }')"
done

echo
echo "2. 10,000 ranks on 2 PEs: start-up to the end (wall s) and peak memory, median (range) of $n launches"
echo
echo "| globals | writable image KiB | none s | auto s | none MiB | auto MiB | auto − none KiB per rank |"
echo "|---:|---:|---:|---:|---:|---:|---:|"
for e in 0 5; do
  : >"$scratch/ta" && : >"$scratch/tn" && : >"$scratch/ma" && : >"$scratch/mn"
  for ((i = 0; i < n; ++i)); do
    for method in auto none; do
      /usr/bin/time -f '%e %M' -o "$scratch/t" "$(program "$e")" start --vp 10000 --pes 2 --no-pin \
        --vp-privatize "$method" >/dev/null
      read -r seconds kib <"$scratch/t"
      echo "$seconds" >>"$scratch/t${method:0:1}"
      echo "$kib" >>"$scratch/m${method:0:1}"
    done
  done
  ma=$(median <"$scratch/ma") && mn=$(median <"$scratch/mn")
  printf '| %s | %.1f | %s | %s | %.0f | %.0f | %.1f |\n' "$((10 ** e))" \
    "$(awk -v b="$(writable_bytes "$(program "$e")")" 'BEGIN { print b / 1024 }')" \
    "$(summary %.2f <"$scratch/tn")" "$(summary %.2f <"$scratch/ta")" "$(awk -v k="$mn" 'BEGIN { print k / 1024 }')" \
    "$(awk -v k="$ma" 'BEGIN { print k / 1024 }')" "$(awk -v a="$ma" -v z="$mn" 'BEGIN { print (a - z) / 10000 }')"
done

echo
echo "3. Moving ranks: bytes per rank in a checkpoint (what a move to another process sends), and"
echo "   8 ranks each migrating 8 times over 2 processes (--lb rotate: every rank moves), wall s,"
echo "   median (range) of $n launches"
echo
echo "| globals | none bytes per rank | auto bytes per rank | none s | auto s |"
echo "|---:|---:|---:|---:|---:|"
for e in 0 5; do
  bytes=()
  for method in none auto; do
    rm -rf "$scratch/ckpt"
    "$(program "$e")" move 1 --vp 8 --pes 2 --no-pin --vp-privatize "$method" --checkpoint "$scratch/ckpt" \
      --checkpoint-every 1 >/dev/null
    bytes+=("$(( $(stat -c %s "$scratch/ckpt/ranks.ckpt") / 8 ))")
  done
  : >"$scratch/sa" && : >"$scratch/sn"
  for ((i = 0; i < n; ++i)); do
    for method in auto none; do
      /usr/bin/time -f '%e' -o "$scratch/t" mpirun --oversubscribe -np 2 "$(program "$e")" move 8 \
        --vp 8 --lb rotate --no-pin --vp-privatize "$method" >/dev/null
      cat "$scratch/t" >>"$scratch/s${method:0:1}"
    done
  done
  printf '| %s | %s | %s | %s | %s |\n' "$((10 ** e))" "${bytes[0]}" "${bytes[1]}" \
    "$(summary %.2f <"$scratch/sn")" "$(summary %.2f <"$scratch/sa")"
done
