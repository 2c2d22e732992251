# Sourced by the bench scripts that time an application several times (koenig.sh,
# leanmd_grid.sh).
#
#   median_run NAME REF STEP_SED COMMAND...
#
# Runs COMMAND $reps times (the caller's variable). Each run's "checksum:" line must equal the
# one kept in file REF (the first run writes it); otherwise NAME says so and the script exits 1.
# Prints "median-ms-per-step wan-bytes-per-step migrations": the seconds per step that the sed
# script STEP_SED prints from a run's output (the median over the runs, in ms), then the last
# run's "(N bytes/step)" and "migrations: N" figures.
median_run() {
  local name=$1 ref=$2 step_sed=$3
  shift 3
  local out ms=() wan=0 moved=0 sum
  for ((r = 0; r < reps; r++)); do
    out=$("$@")
    sum=$(sed -n 's/^checksum: //p' <<<"$out")
    [[ -s $ref ]] || echo "$sum" >"$ref"
    if [[ -z $sum || $sum != "$(cat "$ref")" ]]; then
      echo "$name: checksum '$sum' differs from $(cat "$ref") for: $*" >&2
      exit 1
    fi
    ms+=("$(sed -n "$step_sed" <<<"$out")")
    wan=$(sed -n 's/.*(\([0-9]*\) bytes\/step).*/\1/p' <<<"$out")
    moved=$(sed -n 's/.*migrations: \([0-9]*\) .*/\1/p' <<<"$out")
  done
  printf '%s\n' "${ms[@]}" | sort -g | awk -v w="${wan:-0}" -v m="${moved:-0}" '{v[NR] = $1}
    END {printf "%.2f %s %s\n", 1000 * v[int((NR + 1) / 2)], w, m}'
}
