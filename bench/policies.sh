#!/usr/bin/env bash
# When to balance (docs/user-guide.md, *When to balance: replay, predict, policies*), replayed
# offline on generated load traces (docs/results/policies.md):
#  1. seed 000 Table 4.7: Hilbert, check interval {1, 10, 100} x threshold {5, 10, 20, 50}%, plus
#     the automatic threshold, 1,024 objects / 64 PEs / 2,400 steps, radiation every 100 steps;
#  2. seed 001 §3.4.2: how often the cost model picks the fastest of none / global / diffusive
#     over generated scenarios, and what a wrong pick costs;
#  3. load predictors on storm, drift and creation/deletion traces;
#  4. inline vs asynchronous balancing (seed 001 ch. 5) on a drifting trace with a slow strategy.
# Usage: bench/policies.sh [1|2|3|4 ...]   (default: all); SCENARIOS=N for part 2 (default 120),
# ROWS=FILE to keep part 2's per-scenario totals (i pes side factor static|moving, then none
# global diffusive model for the seed's model and again for the granular one).
# Every figure is a ratio from one replay model: absolute seconds are the generator's units.
set -euo pipefail
cd "$(dirname "$0")/.."
lb=${VELA_LB:-build/tools/vela-lb/vela-lb}
[[ -x $lb ]] || { echo "policies.sh: build first (cmake --build build), or set VELA_LB" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
parts=("$@")
[[ ${#parts[@]} -gt 0 ]] || parts=(1 2 3 4)
want() { [[ " ${parts[*]} " == *" $1 "* ]]; }

# Mean total load per step of a trace (from `trace info`).
mean_load() { $lb trace info "$1" | sed -n 's/^total load per step: .*mean \([0-9.e+-]*\),.*/\1/p'; }
# Column $2 of the CSV row whose first cell is $1 (replay -f csv).
cell() { awk -F, -v p="$1" -v c="$2" '$1 == p { print $c }'; }

# BRAMS-like costs: 8 MB per object (a VP of 16x16x40 columns, ~100 fields); halo messages at
# 10 µs + 1 ns/byte; a migration at 1 ms + 4 ns/byte (33 ms per object, pack and unpack included).
costs=(--startup 1e-5 --per-byte 1e-9 --migration-startup 1e-3 --migration-per-byte 4e-9)

if want 1; then
  echo "1. Interval x threshold with Hilbert (seed 000 Table 4.7): total time / no balancing"
  t=$work/storm.trace
  $lb trace generate -o "$t" --seed 1 --steps 2400 --base-load 0.08 --radiation-period 100 \
    --object-bytes 8000000 --storm 9.6,12.8,6,2,0.005333,0 >/dev/null
  args=(--compare never --compare periodic:strategy=hilbert,every=600)
  for k in 100 10 1; do
    for th in 50 20 10 5; do args+=(--compare "threshold:strategy=hilbert,every=$k,threshold=$th"); done
  done
  args+=(--compare auto-threshold:strategy=hilbert,interval=1
         --compare auto-threshold:strategy=hilbert,interval=10)
  csv=$($lb replay "$t" "${args[@]}" --strategy-time 0.1 "${costs[@]}" -f csv)
  echo "   storm ×2 radius 6 moving +x, radiation ×2 every 100 steps; mean step $(awk -v m="$(mean_load "$t")" 'BEGIN { printf "%.3f", m / 64 }') s"
  printf '%10s %9s %9s %9s %9s\n' interval "θ=50%" "θ=20%" "θ=10%" "θ=5%"
  for k in 100 10 1; do
    printf '%10s' "$k"
    for th in 50 20 10 5; do
      printf ' %9.4f' "$(cell "threshold:strategy=hilbert;every=$k;threshold=$th" 3 <<<"$csv")"
    done
    echo
  done
  for p in periodic:strategy=hilbert\;every=600 auto-threshold:strategy=hilbert\;interval=1 \
           auto-threshold:strategy=hilbert\;interval=10; do
    printf '%-44s %9.4f  (%s balances)\n' "$p" "$(cell "$p" 3 <<<"$csv")" "$(cell "$p" 9 <<<"$csv")"
  done
  echo
fi

if want 2; then
  n=${SCENARIOS:-120}
  echo "2. Cost model: none / global (metis) / diffusive (diffusion each step), decided once for"
  echo "   100 steps; the fastest found by replaying each choice ($n scenarios; migrations priced"
  echo "   by the busiest PE, as the model prices them)"
  rows=$work/cost_model.csv
  : >"$rows"
  for ((i = 1; i <= n; ++i)); do
    # Scenario i: PEs, grid, one storm (static or moving), drift, and costs relative to a step.
    read -r pes side cx cy r f vx drift g dfrac m < <(awk -v s="$i" 'BEGIN {
      srand(s); p[0] = 4; p[1] = 16; p[2] = 64; pes = p[s % 3]; side = (rand() < 0.5) ? 16 : 32
      r = (0.05 + 0.3 * rand()) * side; f = 1.05 + 5 * rand() ^ 2
      vx = (rand() < 0.5) ? 0 : 0.05 * rand(); drift = (rand() < 0.5) ? 0 : 0.5
      g = exp(log(0.3) + rand() * log(300)); dfrac = exp(log(0.001) + rand() * log(30))
      m = exp(log(0.05) + rand() * log(200))
      printf "%d %d %.3f %.3f %.3f %.3f %.4f %s %.5g %.5g %.5g\n", pes, side, rand() * side,
        rand() * side, r, f, vx, drift, g, dfrac, m }')
    t=$work/s$i.trace
    $lb trace generate -o "$t" --seed "$i" --steps 100 --nx "$side" --ny "$side" --pes "$pes" \
      --object-bytes 1000000 --storm "$cx,$cy,$r,$f,$vx,0" --drift-fraction "$drift" \
      --drift-rate 0.02 >/dev/null
    step=$(awk -v m="$(mean_load "$t")" -v p="$pes" 'BEGIN { print m / p }')
    # Global costs g steps, a diffusive step dfrac of that, moving one PE's objects m steps.
    read -r G D beta < <(awk -v s="$step" -v g="$g" -v d="$dfrac" -v m="$m" -v o=$((side * side / pes)) \
      'BEGIN { printf "%.6g %.6g %.6g\n", g * s, g * s * d, m * s / (o * 1e6) }')
    common="global=metis,diffusive=diffusion,horizon=100,every=100,global_seconds=$G,diffusion_seconds=$D"
    args=()
    for floor in mean granular; do
      for force in none global diffusive model; do
        args+=(--compare "cost-model:$common,floor=$floor,force=$force")
      done
    done
    csv=$($lb replay "$t" "${args[@]}" --strategy-time metis="$G" --strategy-time diffusion="$D" \
      --migration-per-byte "$beta" --migration-cost busiest-pe -f csv)
    kind=$(awk -v v="$vx" -v d="$drift" 'BEGIN { print (v == 0 && d == 0) ? "static" : "moving" }')
    echo "$i $pes $side $f $kind $(awk -F, 'NR > 1 { printf "%s ", $2 }' <<<"$csv")" >>"$rows"
  done
  [[ -z ${ROWS:-} ]] || cp "$rows" "$ROWS"
  printf '   %-18s %9s %14s %12s %12s %8s %8s %8s %10s\n' "model, scenarios" "fastest" \
    "loss if wrong" "worst loss" "mean loss" global diffusive none "gain/none"
  for variant in mean:6:static mean:6:moving mean:6:all granular:10:static granular:10:moving \
                 granular:10:all; do
    IFS=: read -r name c which <<<"$variant"
    awk -v name="$name, $which" -v c="$c" -v which="$which" 'which == "all" || $5 == which {
        none = $c; global = $(c + 1); diff = $(c + 2); model = $(c + 3)
        best = none; if (diff < best) best = diff; if (global < best) best = global
        ++n; loss = (model - best) / best
        if (loss <= 1e-9) ++right; else { ++wrong; wrong_loss += loss; if (loss > worst) worst = loss }
        all += loss; g += (global - best) / best; d += (diff - best) / best; z += (none - best) / best
        gain += (none - model) / none
        fastest[(best == none) ? "none" : (best == diff) ? "diffusive" : "global"]++
        picked[(model == none) ? "none" : (model == global) ? "global" : (model == diff) ? "diffusive" : "other"]++
      } END {
        printf "   %-18s %8.1f%% %13.2f%% %11.2f%% %11.2f%% %7.2f%% %7.2f%% %7.2f%% %9.1f%%\n", name " " n,
          100 * right / n, wrong ? 100 * wrong_loss / wrong : 0, 100 * worst, 100 * all / n,
          100 * g / n, 100 * d / n, 100 * z / n, 100 * gain / n
        printf "   %18s fastest: none %d, global %d, diffusive %d; picked: none %d, global %d, diffusive %d\n", "",
          fastest["none"], fastest["global"], fastest["diffusive"], picked["none"], picked["global"],
          picked["diffusive"]
      }' "$rows"
  done
  echo "   (fastest: share of scenarios where the model's pick was the fastest of the three replays;"
  echo "    loss: its total over the fastest total, minus 1; global/diffusive/none: the mean loss of"
  echo "    always taking that choice; gain/none: the model's mean saving over no balancing)"
  echo
fi

if want 3; then
  echo "3. Load predictors: each step predicted from the steps before it (1,024 objects, 64 PEs, 600 steps)"
  gen=(--seed 3 --steps 600 --base-load 0.08 --object-bytes 8000000)
  $lb trace generate -o "$work/p_storm.trace" "${gen[@]}" --radiation-period 100 >/dev/null
  $lb trace generate -o "$work/p_drift.trace" "${gen[@]}" --drift-fraction 0.5 --drift-rate 0.05 >/dev/null
  $lb trace generate -o "$work/p_churn.trace" "${gen[@]}" --create-rate 2 --delete-rate 2 \
    --create-where storm >/dev/null
  printf '%-26s %-12s %11s %10s %11s %10s %11s\n' trace predictor "object RMSE" "rank corr" \
    "PE RMSE" "rank corr" "max PE err"
  for kind in "storm + radiation:p_storm" "storm + drift 5%:p_drift" "storm + churn 2/step:p_churn"; do
    label=${kind%%:*}
    $lb predict "$work/${kind##*:}.trace" -f csv | awk -F, -v t="$label" 'NR > 1 {
      printf "%-26s %-12s %10.2f%% %10.4f %10.2f%% %10.4f %10.2f%%\n", t, $1, 100 * $5, $6, 100 * $8, $9, 100 * $10 }'
  done
  echo
fi

if want 4; then
  echo "4. Inline vs asynchronous balancing (seed 001 ch. 5): drift 5% on half the objects plus the"
  echo "   moving storm, 1,024 objects, 64 PEs, 600 steps; greedy every 25 steps, strategy time fixed"
  t=$work/drift.trace
  $lb trace generate -o "$t" --seed 4 --steps 600 --base-load 0.08 --object-bytes 8000000 \
    --drift-fraction 0.5 --drift-rate 0.05 >/dev/null
  step=$(awk -v m="$(mean_load "$t")" 'BEGIN { print m / 64 }')
  never=$($lb replay "$t" --policy never "${costs[@]}" -f csv | cell never 2)
  printf '%16s %14s %14s %14s %16s\n' "strategy time" "inline / never" "async / never" \
    "async gain" "answer after"
  for x in 0.5 2 5 10 20; do
    s=$(awk -v s="$step" -v x="$x" 'BEGIN { printf "%.6g", s * x }')
    run() { $lb replay "$t" --policy periodic -P every=25 -P strategy=greedy --strategy-time "$s" \
              "${costs[@]}" "$@" -f csv | awk -F, 'NR == 2 { print $2 }'; }
    inline=$(run)
    async=$(run --async)
    printf '%11s steps %14.4f %14.4f %13.1f%% %10s steps\n' "$x" \
      "$(awk -v a="$inline" -v n="$never" 'BEGIN { print a / n }')" \
      "$(awk -v a="$async" -v n="$never" 'BEGIN { print a / n }')" \
      "$(awk -v a="$async" -v i="$inline" 'BEGIN { print 100 * (i - a) / i }')" \
      "≈$(awk -v x="$x" 'BEGIN { k = int(x); if (k < x) ++k; print (k < 1) ? 1 : k }')"
  done
fi
