#!/usr/bin/env python3
"""The graph benchmark's cost-model experiment (docs/results/graph-bench.md).

For every configuration of the generators (gamma shape, cluster overload, drift, units per PE)
it runs graph-bench with the cost model (global=metis, diffusive=diffusion) forced to none, global and diffusive (total time after
step 0, the best of --repeats), and asks the model itself, seed's (flow=fluid) and boundary
(flow=boundary), for its pick on short runs. It prints: the runs per configuration; how often
each model picked the measured fastest and what a wrong pick cost; predicted against measured
step time after each kind of balancing.
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


def run(binary, args, policy, steps, horizon):
    cmd = [binary, *args, "--steps", str(steps), "--pes", "2", "--quiet", "--lb-policy",
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
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--binary", default="build/apps/graph-bench/graph-bench")
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--repeats", type=int, default=2, help="runs per forced mode; the fastest counts")
    ap.add_argument("--quick", action="store_true", help="four configurations, one repeat")
    a = ap.parse_args()
    repeats = 1 if a.quick else a.repeats
    rows = []
    print("| configuration | none (s) | global (s) | diffusive (s) | fastest | seed's pick | boundary pick |")
    print("|---|---:|---:|---:|---|---|---|")
    for label, args in configurations(a.quick):
        best = {}
        forced = {}
        for _ in range(repeats):
            for mode in MODES:  # interleaved, so slow phases of a shared machine hit all three
                r = run(a.binary, args, [f"force={mode}"], a.steps, a.steps)
                if mode not in best or r["after"] < best[mode]["after"]:
                    best[mode] = r
                forced.setdefault(mode, []).append(r)
        sums = {r["checksum"] for rs in forced.values() for r in rs}
        if len(sums) != 1:
            sys.exit(f"graph_bench: {label}: checksums differ between balancers: {sums}")
        # The model's picks: made on step 0's measurements, for the whole run (horizon = steps).
        fluid = run(a.binary, args, ["force=model", "flow=fluid"], 3, a.steps)["pick"]
        boundary = run(a.binary, args, ["force=model", "flow=boundary"], 3, a.steps)["pick"]
        times = {m: best[m]["after"] for m in MODES}
        fastest = min(times, key=times.get)
        rows.append({"label": label, "times": times, "fastest": fastest, "fluid": fluid,
                     "boundary": boundary, "best": best})
        print(f"| {label} | {times['none']:.3f} | {times['global']:.3f} | {times['diffusive']:.3f} "
              f"| {fastest} | {fluid} | {boundary} |", flush=True)

    print()
    print("| model | configurations | picks the fastest | mean loss when wrong | worst loss | mean loss, all |")
    print("|---|---:|---:|---:|---:|---:|")
    for model, name in (("fluid", "seed's (flow=fluid)"), ("boundary", "boundary (flow=boundary)")):
        for subset, which in (("static", lambda r: "drift" not in r["label"]),
                              ("drift", lambda r: "drift" in r["label"]),
                              ("all", lambda r: True)):
            chosen = [r for r in rows if which(r)]
            if not chosen:
                continue
            losses = [r["times"][r[model]] / r["times"][r["fastest"]] - 1 for r in chosen]
            wrong = [x for x, r in zip(losses, chosen) if r[model] != r["fastest"]]
            right = len(chosen) - len(wrong)
            print(f"| {name}, {subset} | {len(chosen)} | {right} ({100 * right / len(chosen):.0f}%) | "
                  f"{100 * statistics.mean(wrong) if wrong else 0:.1f}% | "
                  f"{100 * max(wrong) if wrong else 0:.1f}% | {100 * statistics.mean(losses):.1f}% |")
    for mode in MODES:
        losses = [r["times"][mode] / r["times"][r["fastest"]] - 1 for r in rows]
        print(f"| always {mode} | {len(rows)} | {sum(r['fastest'] == mode for r in rows)} | | "
              f"{100 * max(losses):.1f}% | {100 * statistics.mean(losses):.1f}% |")

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


if __name__ == "__main__":
    main()
