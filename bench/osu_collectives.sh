#!/usr/bin/env bash
# OSU collective benchmarks at R ranks on the same machine, Vela against Open MPI and AMPI, run
# alternately (one benchmark on each system in turn, round after round), with the median and
# range of each system's figures per message size (docs/results/mpi-layer.md).
#
#   bench/osu_collectives.sh --osu DIR [--ampi DIR] [--vela-bin DIR] [--work DIR]
#                            [--ranks R] [--pes P] [--rounds N] [--sizes MIN:MAX] [TEST...]
#
#   --osu DIR       an OSU micro-benchmarks tree: mpi/collective/osu_coll.c (OMB 5.x) or
#                   c/mpi/collective/ with c/util/ (OMB 6.x; AMPI, an MPI 2 library to OMB's
#                   helpers, needs OMB 5)
#   --ampi DIR      a Charm++ tree built with AMPI (DIR/bin/ampicc); without it, no AMPI column
#   --vela-bin DIR  where vela-mpicc is (default: build/bin of this repository)
#   --work DIR      where the benchmarks are built and their outputs kept (default: a new
#                   temporary directory)
#   --ranks R       ranks (default 8); --pes P: Vela's PEs and AMPI's +p (default 2)
#   --rounds N      rounds (default 3); --sizes MIN:MAX (default 8:1048576)
#   TEST...         osu_ names without the prefix (default: allreduce alltoall allgather bcast
#                   gather reduce reduce_scatter scatter barrier)
#
# The runs: Vela `osu_X --vp R --pes P`, Open MPI `mpirun --oversubscribe -np R --mca btl
# self,vader osu_X`, AMPI `osu_X +pP +vp R`; each with `-m MIN:MAX -i 50 -x 10`.
set -euo pipefail
me=osu_collectives
die() { echo "$me: $*" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)

osu="" ampi="" vela_bin=$repo/build/bin work="" ranks=8 pes=2 rounds=3 sizes=8:1048576
tests=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --osu | --ampi | --vela-bin | --work | --ranks | --pes | --rounds | --sizes)
      [[ $# -ge 2 && -n $2 ]] || die "$1 needs a value"
      case "$1" in
        --osu) osu=$2 ;; --ampi) ampi=$2 ;; --vela-bin) vela_bin=$2 ;; --work) work=$2 ;;
        --ranks) ranks=$2 ;; --pes) pes=$2 ;; --rounds) rounds=$2 ;; --sizes) sizes=$2 ;;
      esac
      shift 2 ;;
    -h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [[ $1 =~ ^[a-z_]+$ ]] || die "'$1': expected a test name such as alltoall"; tests+=("$1"); shift ;;
  esac
done
[[ -n $osu ]] || die "--osu DIR is needed (an OSU micro-benchmarks tree)"
for v in ranks pes rounds; do
  [[ ${!v} =~ ^[1-9][0-9]{0,4}$ ]] || die "--$v '${!v}': expected a positive integer"
done
[[ $sizes =~ ^[0-9]+:[0-9]+$ ]] || die "--sizes '$sizes': expected MIN:MAX in bytes"
[[ ${#tests[@]} -gt 0 ]] || tests=(allreduce alltoall allgather bcast gather reduce reduce_scatter scatter barrier)
if [[ -f $osu/mpi/collective/osu_coll.c ]]; then
  coll=$osu/mpi/collective helpers=("$coll/osu_coll.c") includes=(-I"$coll")
elif [[ -f $osu/c/mpi/collective/osu_alltoall.c && -f $osu/c/util/osu_util.c ]]; then
  coll=$osu/c/mpi/collective helpers=("$osu/c/util/osu_util.c" "$osu/c/util/osu_util_mpi.c")
  includes=(-I"$osu/c/util" -DPACKAGE_VERSION='"bench"')
else
  die "--osu $osu: no mpi/collective/osu_coll.c (OMB 5) nor c/mpi/collective/ with c/util/ (OMB 6) there"
fi
[[ -x $vela_bin/vela-mpicc ]] || die "--vela-bin $vela_bin: no executable vela-mpicc there"
vela_bin=$(cd "$vela_bin" && pwd)  # the builds run in the work directory
[[ -z $ampi || -x $ampi/bin/ampicc ]] || die "--ampi $ampi: no executable bin/ampicc there (a Charm++ tree built with AMPI)"
[[ -z $ampi ]] || ampi=$(cd "$ampi" && pwd)
command -v mpicc > /dev/null || die "mpicc: not found (Open MPI's)"
for t in "${tests[@]}"; do [[ -f $coll/osu_$t.c ]] || die "$t: no $coll/osu_$t.c"; done
work=${work:-$(mktemp -d "${TMPDIR:-/tmp}/vela-osu-coll.XXXXXX")}
mkdir -p "$work/runs"
work=$(cd "$work" && pwd)

systems=(vela openmpi)
[[ -z $ampi ]] || systems+=(ampi)
declare -A cc=([vela]=$vela_bin/vela-mpicc [openmpi]=mpicc [ampi]=${ampi:+$ampi/bin/ampicc})
for t in "${tests[@]}"; do
  for s in "${systems[@]}"; do
    (cd "$work" && "${cc[$s]}" -O2 "${includes[@]}" -o "${s}_$t" "$coll/osu_$t.c" "${helpers[@]}" -lm) \
      > "$work/${s}_$t.build.log" 2>&1 || die "$s: osu_$t did not build ($work/${s}_$t.build.log)"
  done
done

mpirun=(mpirun --oversubscribe --mca btl self,vader)
[[ $(id -u) -ne 0 ]] || mpirun+=(--allow-run-as-root)
args=(-m "$sizes" -i 50 -x 10)
echo "$me: $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1 /proc/loadavg), outputs in $work"
for r in $(seq 1 "$rounds"); do
  for t in "${tests[@]}"; do
    a=("${args[@]}")
    [[ $t != barrier ]] || a=(-i 50 -x 10)
    timeout 600 "$work/vela_$t" "${a[@]}" --vp "$ranks" --pes "$pes" > "$work/runs/vela_$t.$r" 2>&1 || echo "$me: vela osu_$t round $r failed" >&2
    timeout 600 "${mpirun[@]}" -np "$ranks" "$work/openmpi_$t" "${a[@]}" > "$work/runs/openmpi_$t.$r" 2>&1 || echo "$me: openmpi osu_$t round $r failed" >&2
    if [[ -n $ampi ]]; then
      (cd "$work" && timeout 600 "./ampi_$t" "+p$pes" +vp "$ranks" "${a[@]}") > "$work/runs/ampi_$t.$r" 2>&1 || echo "$me: ampi osu_$t round $r failed" >&2
    fi
  done
done
echo "$me: load average $(cut -d' ' -f1 /proc/loadavg) at the end"

python3 - "$work/runs" "${systems[*]}" "${tests[@]}" << 'PY'
import re, statistics, sys
from pathlib import Path
runs, systems, tests = Path(sys.argv[1]), sys.argv[2].split(), sys.argv[3:]
for t in tests:
    table = {}
    for s in systems:
        for f in sorted(runs.glob(f"{s}_{t}.*")):
            for line in f.read_text(errors="replace").splitlines():
                m = re.match(r"^(\d+)\s+([\d.]+)\s*$", line) or re.match(r"^(\d+)\s+([\d.]+)\s", line)
                if m:
                    table.setdefault(int(m.group(1)), {}).setdefault(s, []).append(float(m.group(2)))
                elif re.match(r"^\s*[\d.]+\s*$", line) and t == "barrier":
                    table.setdefault(0, {}).setdefault(s, []).append(float(line))
    print(f"\nosu_{t} (µs; median (min–max) of the rounds)\n")
    print("| bytes | " + " | ".join(systems) + " | " +
          " | ".join(f"vela/{s}" for s in systems[1:]) + " |")
    print("|---:|" + "---:|" * (2 * len(systems) - 1))
    for size in sorted(table):
        row = table[size]
        cells = [f"{statistics.median(row[s]):.2f} ({min(row[s]):.2f}–{max(row[s]):.2f})"
                 if s in row else "-" for s in systems]
        ratios = [f"{statistics.median(row['vela']) / statistics.median(row[s]):.2f}"
                  if "vela" in row and s in row and statistics.median(row[s]) > 0 else "-"
                  for s in systems[1:]]
        print(f"| {size if size else '-'} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
PY
