#!/usr/bin/env python3
"""The graph benchmark's cost-model experiment (docs/results/graph-bench.md).

For every configuration of the generators (gamma shape, cluster overload, drift, units per PE)
it runs graph-bench with the cost model (global=metis, diffusive=diffusion) forced to none,
global and diffusive, --repeats times each, interleaved (total time after step 0; the median
counts, the spread max - min is the run-to-run noise), and asks two versions of the model for
their pick on short runs: the seed's (formulas, no migration or strategy cost: trial=off,
--lb-startup 0 --lb-per-byte 0) and the measured one (graph-bench's defaults: migration cost
measured at start-up, the global strategy tried on the instance). It prints: the runs per
configuration; how often each model picked the fastest, or a mode within the noise of it, and
what a wrong pick cost; predicted against measured step time after each kind of balancing; the
migration cost measured at start-up against the one measured in the runs.
"""
import argparse
import re
import statistics
import subprocess
import sys

MODES = ("none", "global", "diffusive")
EVAL = re.compile(
    r"cost model at step \d+: pick (\w+)\s+follows (\w+)\s+predicted step \(ms\): none ([\d.]+) "
    r"global ([\d.]+) diffusive ([\d.]+)")
MEASURED = re.compile(r"steps \d+-\d+ after: mean ([\d.]+) ms")


def configurations(quick):
    work = []  # (label, args); the same work per step (units x ns per unit) everywhere
    for units in (256, 1024):
        for shape in (0.5, 2.0, 8.0):
            work.append((f"gamma k={shape:g} u/PE={units // 2}",
                         ["--gen", "gamma", "--shape", str(shape), "--scale", str(1 / shape)], units))
        for overload in (1.5, 3.0, 6.0):
            work.append((f"cluster x{overload:g} u/PE={units // 2}",
                         ["--gen", "cluster", "--overload", str(overload)], units))
    for label, args, units in [("gamma k=2", ["--gen", "gamma"], 1024),
                               ("gamma k=0.5", ["--gen", "gamma", "--shape", "0.5", "--scale", "2"], 256),
                               ("cluster x3", ["--gen", "cluster", "--overload", "3"], 1024),
                               ("cluster x1.5", ["--gen", "cluster", "--overload", "1.5"], 256)]:
        work.append((f"{label} u/PE={units // 2} drift 5%", args + ["--drift", "5"], units))
    out = []
    for label, args, units in work:
        out.append((label, args + ["--units", str(units), "--ns-per-unit", str(20e6 / units)]))
    return out[:4] if quick else out


MIGRATION = re.compile(r"migration cost: ([\d.]+) us per unit \+ ([\d.]+) ns per byte.*: ([\d.]+) us per unit")


def run(binary, args, policy, steps, horizon, extra=()):
    cmd = [binary, *args, *extra, "--steps", str(steps), "--pes", "2", "--quiet", "--lb-policy",
           "cost-model", "--lb-policy-param", "global=metis", "--lb-policy-param", f"horizon={horizon}", "--lb-policy-param",
           f"every={horizon}", *sum((["--lb-policy-param", p] for p in policy), [])]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"graph_bench: {' '.join(cmd)} failed:\n{r.stdout}{r.stderr}")
    m = EVAL.search(r.stdout)
    measured = MEASURED.search(r.stdout)
    fields = dict(line.split(": ", 1) for line in r.stdout.splitlines() if ": " in line)
    return {
        "after": float(fields["after step 0"]),
        "checksum": fields["checksum"],
        "pick": m.group(1),
        "predicted": dict(zip(MODES, (float(m.group(i)) for i in (3, 4, 5)))),
        "measured_after": float(measured.group(1)) if measured else None,
        "migration": MIGRATION.search(r.stdout),
        "migrations": int(re.search(r"migrations: (\d+)", r.stdout).group(1)),
    }


MODELS = (("seed", "seed's (formulas, no costs)"), ("measured", "measured (trial, migration)"))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default="build/apps/graph-bench/graph-bench")
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--repeats", type=int, default=3, help="runs per forced mode; the median counts")
    ap.add_argument("--quick", action="store_true", help="four configurations, one repeat")
    a = ap.parse_args()
    repeats = 1 if a.quick else a.repeats
    rows = []
    print("| configuration | none (s) | global (s) | diffusive (s) | noise | fastest | within noise "
          "| seed's pick | measured pick |")
    print("|---|---:|---:|---:|---:|---|---|---|---|")
    for label, args in configurations(a.quick):
        forced = {}
        for _ in range(repeats):
            for mode in MODES:  # interleaved, so slow phases of the machine hit all three
                forced.setdefault(mode, []).append(run(a.binary, args, [f"force={mode}"], a.steps, a.steps))
        sums = {r["checksum"] for rs in forced.values() for r in rs}
        if len(sums) != 1:
            sys.exit(f"graph_bench: {label}: checksums differ between balancers: {sums}")
        # The model's picks: made on step 0's measurements, for the whole run (horizon = steps).
        seed = run(a.binary, args, ["force=model", "trial=off"], 3, a.steps,
                   ["--lb-startup", "0", "--lb-per-byte", "0"])["pick"]
        measured = run(a.binary, args, ["force=model"], 3, a.steps)["pick"]
        times = {m: statistics.median(r["after"] for r in forced[m]) for m in MODES}
        spread = {m: max(r["after"] for r in forced[m]) - min(r["after"] for r in forced[m]) for m in MODES}
        fastest = min(times, key=times.get)
        # A mode ties with the fastest when their medians differ by no more than either's spread.
        ties = {m for m in MODES if times[m] - times[fastest] <= max(spread[m], spread[fastest])}
        noise = max(spread.values()) / times[fastest]
        median_run = {m: sorted(forced[m], key=lambda r: r["after"])[len(forced[m]) // 2] for m in MODES}
        rows.append({"label": label, "times": times, "fastest": fastest, "ties": ties, "seed": seed,
                     "measured": measured, "best": median_run, "forced": forced})
        print(f"| {label} | {times['none']:.3f} | {times['global']:.3f} | {times['diffusive']:.3f} "
              f"| {100 * noise:.1f}% | {fastest} | {', '.join(m for m in MODES if m in ties)} "
              f"| {seed} | {measured} |", flush=True)

    print()
    print("| model | configurations | picks the fastest | within noise | mean loss when wrong | "
          "worst loss | mean loss, all |")
    print("|---|---:|---:|---:|---:|---:|---:|")

    def score(name, chosen, pick_of):
        losses = [r["times"][pick_of(r)] / r["times"][r["fastest"]] - 1 for r in chosen]
        wrong = [x for x, r in zip(losses, chosen) if pick_of(r) != r["fastest"]]
        right = len(chosen) - len(wrong)
        tie = sum(pick_of(r) in r["ties"] for r in chosen)
        n = len(chosen)
        print(f"| {name} | {n} | {right} ({100 * right / n:.0f}%) | {tie} ({100 * tie / n:.0f}%) | "
              f"{100 * statistics.mean(wrong) if wrong else 0:.1f}% | "
              f"{100 * max(wrong) if wrong else 0:.1f}% | {100 * statistics.mean(losses):.1f}% |")

    for model, name in MODELS:
        for subset, which in (("static", lambda r: "drift" not in r["label"]),
                              ("drift", lambda r: "drift" in r["label"]),
                              ("all", lambda r: True)):
            chosen = [r for r in rows if which(r)]
            if chosen:
                score(f"{name}, {subset}", chosen, lambda r, m=model: r[m])
    for mode in MODES:
        score(f"always {mode}", rows, lambda r, m=mode: m)

    print()
    print("| balancing | predicted step (ms) | measured step after (ms) | measured / predicted |")
    print("|---|---:|---:|---:|")
    for mode in MODES:
        pairs = [(r["best"][mode]["predicted"][mode], r["best"][mode]["measured_after"]) for r in rows
                 if r["best"][mode]["measured_after"]]
        if pairs:
            p = statistics.mean(x for x, _ in pairs)
            m = statistics.mean(y for _, y in pairs)
            ratios = [y / x for x, y in pairs]
            print(f"| {mode} | {p:.2f} | {m:.2f} | {statistics.mean(ratios):.2f} "
                  f"({min(ratios):.2f}-{max(ratios):.2f}) |")

    print()
    print("| balancing | runs | migrations per run | start-up price (us per unit) | "
          "measured in the run (us per unit) | measured / price |")
    print("|---|---:|---:|---:|---:|---:|")
    for mode in ("global", "diffusive"):
        runs = [r for row in rows for r in row["forced"][mode] if r["migration"] and r["migrations"] > 0]
        if not runs:
            continue
        price = [float(r["migration"].group(1)) + float(r["migration"].group(2)) * 16384e-3 for r in runs]
        seen = [float(r["migration"].group(3)) for r in runs]
        print(f"| {mode} | {len(runs)} | {statistics.mean(r['migrations'] for r in runs):.0f} | "
              f"{statistics.mean(price):.1f} | {statistics.mean(seen):.1f} | "
              f"{statistics.mean(y / x for x, y in zip(price, seen)):.2f} |")


if __name__ == "__main__":
    main()
