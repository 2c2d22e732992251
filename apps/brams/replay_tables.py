#!/usr/bin/env python3
"""Seed 000's balancing tables at the seed's scale, by replay of a recorded BRAMS proxy trace.

The trace comes from `brams --record FILE --record-pes 64` (every rank's compute time per step,
the halo messages as edges, the ranks placed in blocks over 64 PEs). `vela-lb replay` then runs
it at 64 PEs under each policy and strategy: a step costs its busiest PE's load plus what that
PE sends to others (--startup per message, --per-byte per byte), a balance its strategy time and
its migration. "No virtualization" is the never-balanced replay: the 16 ranks of a PE form one
block of columns, so their summed loads are what one rank per PE would compute (the replay does
not model what over-decomposition itself costs or saves: caches, overlap).

Prints Table 4.5/4.6 (balancing every quarter of the run, as the seed did at steps 600, 1200 and
1800) and Table 4.7 (hilbert, interval x threshold; the automatic threshold), and writes the
figures as JSON with --json.
"""
import argparse
import csv
import io
import json
import os
import subprocess
import sys

from experiments import table  # the same table printer as the 2-core experiments

STRATEGIES = ["greedy", "refine-comm", "rec-bisect-bf", "metis", "hilbert", "refine-swap"]
THRESHOLDS = [50, 20, 10, 5]


def replay(args, policies):
    cmd = [args.vela_lb, "replay", args.trace, "-f", "csv", "--startup", str(args.startup),
           "--per-byte", str(args.per_byte), "--strategy-time", args.strategy_time,
           "--migration-cost", args.migration_cost]
    for option in ("migration_startup", "migration_per_byte"):
        if getattr(args, option) is not None:
            cmd += ["--" + option.replace("_", "-"), str(getattr(args, option))]
    for p in policies:
        cmd += ["--compare", p]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"replay_tables: vela-lb replay failed (exit {proc.returncode})")
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    return {r["policy"].replace(";", ","): r for r in rows}


def steps_of(trace, vela_lb):
    if trace.endswith(".json"):
        with open(trace) as f:
            return len(json.load(f)["steps"])
    out = subprocess.run([vela_lb, "trace", "info", trace], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith("steps: "):
            return int(line.split()[1])
    raise SystemExit(f"replay_tables: cannot read the step count of {trace}")


def reduction(base, value):
    return f"{100.0 * (base - value) / base:.1f}%"


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("trace", help="a trace recorded with brams --record")
    p.add_argument("--vela-lb", default="build/tools/vela-lb/vela-lb")
    p.add_argument("--startup", type=float, default=1e-5, help="seconds per message and per migrated rank")
    p.add_argument("--per-byte", type=float, default=1e-9, help="seconds per byte sent or migrated")
    p.add_argument("--migration-startup", type=float, help="seconds per migrated rank (default: --startup)")
    p.add_argument("--migration-per-byte", type=float, help="seconds per migrated byte (default: --per-byte)")
    p.add_argument("--migration-cost", default="busiest-pe", choices=["total", "busiest-pe"],
                   help="price a migration by the busiest PE's share (PEs move at once; default) "
                        "or by every moved rank in turn")
    p.add_argument("--strategy-time", default="measured", help="as vela-lb replay's (default: measured)")
    p.add_argument("--json", help="write the figures to this file")
    args = p.parse_args()
    if not os.path.exists(args.trace):
        p.error(f"trace {args.trace}: no such file")
    if not os.access(args.vela_lb, os.X_OK):
        p.error(f"--vela-lb {args.vela_lb}: not an executable (cmake --build build --target vela-lb)")
    S = steps_of(args.trace, args.vela_lb)
    quarter = max(1, S // 4)
    results = {"trace": os.path.basename(args.trace), "steps": S, "startup": args.startup,
               "per_byte": args.per_byte, "migration_startup": args.migration_startup,
               "migration_per_byte": args.migration_per_byte,
               "migration_cost": args.migration_cost}

    policies = ["never"] + [f"periodic:every={quarter},strategy={s}" for s in STRATEGIES]
    r = replay(args, policies)
    never = float(r["never"]["total"])
    rows, cost, saved = [["no virtualization (never balanced)", f"{never:.1f}", "-", "-", "-"]], [], []
    for s in STRATEGIES:
        x = r[f"periodic:every={quarter},strategy={s}"]
        total = float(x["total"])
        rows.append([f"{s} - every {quarter}", f"{total:.1f}", reduction(never, total), x["migrations"],
                     f"{float(x['communication']):.2f}"])
        cost.append([s, f"{float(x['strategy']) + float(x['migration']):.3f}", f"{float(x['strategy']):.3f}",
                     f"{float(x['migration']):.3f}"])
        saved.append({"strategy": s, "total": total, "reduction": (never - total) / never,
                      "migrations": int(x["migrations"]), "communication": float(x["communication"]),
                      "strategy_seconds": float(x["strategy"]), "migration_seconds": float(x["migration"])})
    table(f"Table 4.5 shape at 64 PEs (replay): balancing every {quarter} steps",
          ["configuration", "time (s)", "reduction", "migrations", "communication (s)"], rows)
    table("Table 4.6 shape at 64 PEs (replay): cost of balancing, summed over the balances",
          ["balancer", "balancing (s)", "strategy (s)", "migration (s)"], cost)
    results["never"] = never
    results["table_4_5"] = saved

    middle = S // 240 if S // 240 > 1 else max(1, S // 80)
    intervals = sorted({max(1, S // 24), middle, 1}, reverse=True)
    grid = [f"threshold:every={e},threshold={t},strategy=hilbert" for e in intervals for t in THRESHOLDS]
    auto = f"auto-threshold:strategy=hilbert,interval={middle},every={max(1, S // 24)}"
    r = replay(args, ["never"] + grid + [auto])
    rows, saved = [], []
    for e in intervals:
        row = [e]
        for t in THRESHOLDS:
            x = r[f"threshold:every={e},threshold={t},strategy=hilbert"]
            total = float(x["total"])
            row.append(f"{total:.1f} ({reduction(never, total)}, {x['balances']})")
            saved.append({"every": e, "threshold": t, "total": total, "balances": int(x["balances"]),
                          "migrations": int(x["migrations"])})
        rows.append(row)
    table("Table 4.7 shape at 64 PEs (replay): hilbert, interval x threshold: time (s) (reduction "
          "against no virtualization, balances)", ["interval"] + [f"{t}%" for t in THRESHOLDS], rows)
    best = min(saved, key=lambda x: x["total"])
    a = r[auto]
    auto_total = float(a["total"])
    print(f"  best fixed: every {best['every']}, {best['threshold']}%: {best['total']:.1f} s "
          f"({reduction(never, best['total'])})")
    print(f"  automatic threshold (checks every {middle}, θ re-chosen every {max(1, S // 24)}): "
          f"{auto_total:.1f} s ({reduction(never, auto_total)}; {a['balances']} balances)")
    results["table_4_7"] = {"grid": saved, "best": best,
                            "auto": {"total": auto_total, "balances": int(a["balances"])}}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
        print(f"\nfigures: {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
