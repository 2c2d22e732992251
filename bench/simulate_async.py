#!/usr/bin/env python3
"""Seed 001's inline against asynchronous balancing (Pearce, chapter 5), simulated on SimGrid.

The trace of docs/results/policies.md section 4 (1,024 objects on 64 PEs, 600 steps, the moving
storm plus drift on half the objects), on the shipped xt5 platform, greedy every 25 steps with the
strategy taking x mean step times (the never-late balancer's step: greedy inline at no cost).
Inline (vela-lb simulate) the PEs wait for the strategy at each balancing point; asynchronously
(--async) they run on, the strategy runs on the decision step's loads beside them, and its answer
moves the objects at the end of the furthest step reached when it is ready. Beside each, the
replay's figures for the same trace and strategy time (vela-lb replay, with and without --async).

Usage: bench/simulate_async.py [--steps X,...] [--trace-steps N] [--out DIR] [--vela-lb BIN]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
POLICY = ["--policy", "periodic", "-P", "every=25", "-P", "strategy=greedy"]
GENERATE = ["--seed", "4", "--base-load", "0.08", "--object-bytes", "8000000",
            "--drift-fraction", "0.5", "--drift-rate", "0.05", "--quiet"]
# The replay's migration prices, as in docs/results/policies.md section 4.
REPLAY_COSTS = ["--startup", "1e-5", "--per-byte", "1e-9", "--migration-startup", "1e-3",
                "--migration-per-byte", "4e-9"]


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        raise SystemExit("simulate_async: failed: " + " ".join(cmd))
    return r.stdout


def simulated(a, trace, extra):
    out = run([a.vela_lb, "simulate", trace, "--platform", "xt5", "-f", "json"] + extra)
    p = json.loads(out)["policies"][0]
    return {"total": p["total"], "balances": p["balances"], "migrations": p["migrations"],
            "unapplied": p["answers_unapplied"], "overlapped": p["strategy_overlapped"]}


def replayed(a, trace, extra):
    out = run([a.vela_lb, "replay", trace, "-f", "csv"] + REPLAY_COSTS + extra)
    lines = out.strip().splitlines()
    header = lines[0].split(",")
    row = lines[1].split(",")
    return float(row[header.index("total")])


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--steps", default="0.5,2,5,10,20",
                   help="strategy times in mean step times (default 0.5,2,5,10,20)")
    p.add_argument("--vela-lb", default=os.path.join(ROOT, "build", "tools", "vela-lb", "vela-lb"))
    p.add_argument("--trace-steps", type=int, default=600,
                   help="steps of the generated trace (default 600, the figure's)")
    p.add_argument("--out", help="keep the trace and the figures (figures.json) here")
    a = p.parse_args()
    if not os.access(a.vela_lb, os.X_OK):
        p.error(f"--vela-lb: {a.vela_lb} is not built (cmake --build build --target vela-lb)")
    try:
        xs = [float(x) for x in a.steps.split(",") if x]
    except ValueError:
        p.error(f"--steps '{a.steps}': expected numbers such as 0.5,2,5")
    if not xs or any(not x > 0 for x in xs):
        p.error(f"--steps '{a.steps}': expected numbers > 0")
    if a.trace_steps < 50:
        p.error(f"--trace-steps {a.trace_steps}: expected at least 50 (two balancing periods)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = a.out or tmp
        os.makedirs(folder, exist_ok=True)
        trace = os.path.join(folder, "drift.trace")
        run([a.vela_lb, "trace", "generate", "-o", trace, "--steps", str(a.trace_steps)] + GENERATE)
        never = simulated(a, trace, [])["total"]
        ideal = simulated(a, trace, POLICY + ["--strategy-time", "0"])
        free = simulated(a, trace, POLICY + ["--strategy-time", "0", "--async"])
        step = ideal["total"] / a.trace_steps
        replay_never = replayed(a, trace, [])
        print(f"xt5, 64 PEs: never {never:.1f} s; the never-late balancer {ideal['total']:.1f} s "
              f"({ideal['total'] / never:.3f} of never), a mean step of {step:.3f} s; "
              f"asynchronously with no strategy time {free['total']:.1f} s "
              f"({free['total'] / never:.3f})\n")
        print("| strategy time | inline / never | async / never | async over inline | "
              "answers applied (too late) | replay: inline / never | replay: async / never |")
        print("|---:|---:|---:|---:|---:|---:|---:|")
        rows = {}
        for x in xs:
            seconds = f"{x * step:.6g}"
            inline = simulated(a, trace, POLICY + ["--strategy-time", seconds])
            late = simulated(a, trace, POLICY + ["--strategy-time", seconds, "--async"])
            r_inline = replayed(a, trace, POLICY + ["--strategy-time", seconds])
            r_async = replayed(a, trace, POLICY + ["--strategy-time", seconds, "--async"])
            gain = 1 - late["total"] / inline["total"]
            rows[str(x)] = {"inline": inline, "async": late, "replay_inline": r_inline,
                            "replay_async": r_async}
            print(f"| {x:g} steps | {inline['total'] / never:.3f} | {late['total'] / never:.3f} | "
                  f"{100 * gain:.1f}% | {late['balances']} ({late['unapplied']}) | "
                  f"{r_inline / replay_never:.3f} | {r_async / replay_never:.3f} |")
        if a.out:
            with open(os.path.join(folder, "figures.json"), "w") as f:
                json.dump({"never": never, "ideal": ideal, "async_free": free,
                           "replay_never": replay_never,
                           "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
