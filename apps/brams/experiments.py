#!/usr/bin/env python3
"""The seed-000 experiments on the BRAMS proxy, in the shape of the seed's tables.

Runs build/apps/brams/brams on this machine's cores and prints:
  Table 4.2      a storm that does not move, 4 PEs x 16 ranks (the seed's processors and
                 threads): no balancing against moving 2 and 3 ranks of the busiest PE by hand
                 (MPI_Migrate_to_pe, --explicit-moves) at the first balancing point;
  Table 4.3/4.4  no virtualization (ranks = PEs) against virtualization 2..32, no balancing,
                 with cache misses from `perf stat` where the machine exposes the counters;
  Table 4.5/4.6  virtualization 16 balanced at the 600-step-equivalent points (a quarter of
                 the run) by each strategy, and what balancing cost (time in MPI_Migrate);
  Table 4.7      hilbert under the threshold policy, interval x threshold, and the automatic
                 threshold (seed 000 section 4.6) against the best fixed one;
  Table 4.1      privatization on one PE: TLS against copy-in/copy-out (and privatized<T>).
With --fortran DIR (apps/brams-fortran's build directory), also the proxy's Fortran twin:
  Table 4.1 from Fortran: its automatic privatization against TLS (!$omp threadprivate) and
                 copy-in/copy-out of its globals, on one PE;
  Table 4.5 beside the C++ proxy: the twin's time with no balancer and two strategies, each
  configuration run again for the C++ proxy in turn with the twin (the times compared alike).
  The twin's runs must give the C++ proxy's checksum.
Every run's checksum must equal the others of its configuration (the fields are bitwise the
same whatever the ranks, PEs, balancer or policy): a difference fails the script.
Writes runs.csv and results.json into --out, and report.html: `vela-lb report` on the step logs
of Table 4.5 and one more hilbert run (not timed) that writes its LB dumps, a Chrome trace and a
recorded load trace, with the strategies compared on its first dump and policies replayed on its
recording.
"""
import argparse
import csv
import glob
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from noise import machine_state, overlap  # noqa: E402

STRATEGIES = ["greedy", "refine-comm", "rec-bisect-bf", "metis", "hilbert", "refine-swap"]
THRESHOLDS = [50, 20, 10, 5]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--binary", default="build/apps/brams/brams", help="the brams executable")
    p.add_argument("--pes", type=int, default=os.cpu_count() or 1, help="PEs (default: all cores)")
    p.add_argument("--out", default="out/brams", help="directory for runs.csv, results.json, step logs")
    p.add_argument("--nx", type=int, default=64)
    p.add_argument("--ny", type=int, default=64)
    p.add_argument("--nz", type=int, default=20)
    p.add_argument("--steps", type=int, default=240,
                   help="steps of the run; the seed's 2,400 scale to this (intervals too)")
    p.add_argument("--repeats", type=int, default=1,
                   help="runs per configuration: the median counts, the range is printed beside it")
    p.add_argument("--tables", default="4.3,4.2,4.5,4.7,4.1", help="which tables (comma-separated)")
    p.add_argument("--max-ratio", type=int, default=32, help="largest virtualization ratio of Table 4.3")
    p.add_argument("--fortran", metavar="DIR",
                   help="apps/brams-fortran's build directory: the Fortran twin's tables too")
    p.add_argument("--vela-lb", default="build/tools/vela-lb/vela-lb",
                   help="the vela-lb executable that writes report.html (skipped when it is missing)")
    p.add_argument("--no-report", action="store_true", help="do not write report.html")
    p.add_argument("--no-simulation", action="store_true",
                   help="do not print the short simulation at 64 processors after the tables")
    p.add_argument("--cache-sim", type=int, default=0, metavar="STEPS",
                   help="Table 4.4 by simulation where perf cannot count: run each Table 4.3 "
                        "configuration for STEPS steps under valgrind's cachegrind, once with this "
                        "machine's L2 and once with its L3 as the simulated last level (0: off)")
    args = p.parse_args()
    for name in ("pes", "nx", "ny", "nz", "steps", "repeats", "max_ratio"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} {getattr(args, name)}: expected a positive integer")
    if not os.access(args.binary, os.X_OK):
        p.error(f"--binary {args.binary}: not an executable (build it: cmake --build build --target brams)")
    if args.fortran:
        for name in ("brams-fortran", "brams-fortran-tls"):
            if not os.access(os.path.join(args.fortran, name), os.X_OK):
                p.error(f"--fortran {args.fortran}: no executable {name} there (build it: "
                        "cmake --build build --target brams_fortran_program; it needs gfortran)")
    unknown = set(args.tables.split(",")) - {"4.1", "4.2", "4.3", "4.5", "4.7"}
    if unknown:
        p.error(f"--tables: unknown {', '.join(sorted(unknown))} (expected 4.1, 4.2, 4.3, 4.5, 4.7)")
    return args


class Runner:
    def __init__(self, args):
        self.args = args
        self.runs = []
        self.perf = perf_events()
        os.makedirs(args.out, exist_ok=True)

    def model(self, steps=None):
        a = self.args
        return ["--nx", str(a.nx), "--ny", str(a.ny), "--nz", str(a.nz), "--steps", str(steps or a.steps)]

    def run(self, table, label, ranks, pes, extra, steps=None, perf=False, optional=False, variant=""):
        """The median of --repeats runs; with optional, None when the build lacks the feature."""
        log = os.path.join(self.args.out, "steps", f"{table}-{slug(label)}.csv")
        os.makedirs(os.path.dirname(log), exist_ok=True)
        cmd = [self.args.binary, "--pes", str(pes), "--ranks", str(ranks), "--no-pin",
               "--step-log", log + ".run"] + self.model(steps) + extra
        return self.best_of(cmd, table, label, ranks, pes, steps, perf, optional, variant, log)

    def run_fortran(self, table, label, binary, ranks, pes, extra, steps=None):
        """The Fortran twin (a program run as ranks: --vp for the ranks, no step log)."""
        cmd = [binary, "--vp", str(ranks), "--pes", str(pes), "--no-pin"] + self.model(steps) + extra
        return self.best_of(cmd, table, label, ranks, pes, steps, False, False, "", None)

    def best_of(self, cmd, table, label, ranks, pes, steps, perf, optional, variant, log):
        """The median of --repeats runs (the step log its run's), with every run's time."""
        results = []
        for i in range(self.args.repeats):
            result = execute(cmd, self.perf if perf else None, optional)
            if result is None:
                return None
            if log:
                os.replace(log + ".run", f"{log}.{i}")
            results.append((result["time"], i, result))
        results.sort(key=lambda x: x[0])
        _, kept, chosen = results[(len(results) - 1) // 2]  # of an even count, the lower
        if log:
            for _, i, _ in results:
                if i == kept:
                    os.replace(f"{log}.{i}", log)
                else:
                    os.unlink(f"{log}.{i}")
            cmd[cmd.index("--step-log") + 1] = log
        chosen.update(table=table, label=label, ranks=ranks, pes=pes, steps=steps or self.args.steps,
                      variant=variant, command=" ".join(cmd), times=[t for t, _, _ in results])
        self.runs.append(chosen)
        return chosen


def slug(text):
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower()


def perf_events():
    """The cache events perf can count here, or an empty list (with why) when it cannot."""
    if shutil.which("perf") is None:
        return []
    events = ["cache-misses", "LLC-load-misses"]
    try:
        out = subprocess.run(["perf", "stat", "-x", ",", "-e", ",".join(events), "true"],
                             capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return []
    usable = [e for e in events if re.search(rf"^\d+,[^,]*,{re.escape(e)},", out.stderr, re.M)]
    return usable


def execute(cmd, perf_events_list, optional=False):
    perf_file = None
    if perf_events_list:
        perf_file = tempfile.NamedTemporaryFile(suffix=".perf", delete=False).name
        cmd = ["perf", "stat", "-x", ",", "-o", perf_file, "-e", ",".join(perf_events_list), "--"] + cmd
    started = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - started
    if proc.returncode != 0 and optional and "is not available" in proc.stderr:
        return None  # e.g. the TLS method in a sanitizer build
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"experiments: this run failed (exit {proc.returncode}): {' '.join(cmd)}")
    out = proc.stdout

    def field(pattern, cast=float, default=None):
        m = re.search(pattern, out, re.M)
        return cast(m.group(1)) if m else default

    result = {
        "checksum": field(r"^checksum: ([0-9a-f]+)", str),
        "time": field(r"^time: ([0-9.]+)"),
        "step": field(r"^step: ([0-9.]+)"),
        "migrate_calls": field(r"^migrate: (\d+) calls", int, 0),
        "migrate_seconds": field(r"^migrate: \d+ calls, ([0-9.]+) s", float, 0.0),
        "lb_steps": field(r"lb steps: (\d+)", int, 0),
        "migrations": field(r"migrations: (\d+)", int, 0),
        "strategy_ms": field(r"collecting, ([0-9.]+) ms in the strategy", float, 0.0),
        "explicit_moves": len(re.findall(r" rank \d+ \(PE \d+ -> \d+\)", out)),
        "wall": wall,
    }
    if result["checksum"] is None or result["time"] is None:
        sys.stderr.write(out + proc.stderr)
        raise SystemExit(f"experiments: no checksum or time in the output of {' '.join(cmd)}")
    if perf_file:
        with open(perf_file) as f:
            for line in f:
                parts = line.strip().split(",")
                if len(parts) > 2 and parts[0].isdigit():
                    result[parts[2]] = int(parts[0])
        os.unlink(perf_file)
    return result


def cache_levels():
    """(level, size, ways, line) of this CPU's L2 and L3 from sysfs, when present."""
    levels = []
    base = "/sys/devices/system/cpu/cpu0/cache"
    for entry in sorted(os.listdir(base)) if os.path.isdir(base) else []:
        d = os.path.join(base, entry)
        try:
            level = int(open(os.path.join(d, "level")).read())
            kind = open(os.path.join(d, "type")).read().strip()
            size = open(os.path.join(d, "size")).read().strip()
            ways = int(open(os.path.join(d, "ways_of_associativity")).read())
            line = int(open(os.path.join(d, "coherency_line_size")).read())
        except (OSError, ValueError):
            continue
        if level in (2, 3) and kind == "Unified" and size.endswith("K"):
            levels.append((level, int(size[:-1]) * 1024, ways, line))
    return levels


def simulate_caches(args, ranks, pes):
    """Misses counted by cachegrind for a short run: D1, and the last level set to L2 then L3."""
    if shutil.which("valgrind") is None:
        return {}
    counts = {}
    for level, size, ways, line in cache_levels():
        out = tempfile.NamedTemporaryFile(suffix=".cg", delete=False).name
        cmd = ["valgrind", "--tool=cachegrind", "--cache-sim=yes", f"--LL={size},{ways},{line}",
               f"--cachegrind-out-file={out}", args.binary, "--pes", str(pes), "--ranks", str(ranks),
               "--no-pin", "--lb-every", "0", "--nx", str(args.nx), "--ny", str(args.ny),
               "--nz", str(args.nz), "--steps", str(args.cache_sim)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        os.unlink(out)
        if proc.returncode != 0:
            return {}
        d1 = re.search(r"D1  misses:\s+([\d,]+)", proc.stderr)
        ll = re.search(r"LLd misses:\s+([\d,]+)", proc.stderr)
        if d1 and ll:
            counts["D1 misses"] = int(d1.group(1).replace(",", ""))
            counts[f"L{level} misses (sim)"] = int(ll.group(1).replace(",", ""))
    return counts


def pct(base, value):
    return f"{100.0 * (base - value) / base:+.1f}%" if base > 0 else "-"


def secs(res):
    """A run's time: the median, and the range of its repeats when there were several."""
    times = res.get("times", [res["time"]])
    if len(times) < 2:
        return f"{res['time']:.3f}"
    return f"{res['time']:.3f} ({min(times):.3f}-{max(times):.3f})"


def vs(base, res):
    """The reduction of `res` against `base`, marked when their ranges of repeats overlap: the
    difference is then within the noise of this machine."""
    text = pct(base["time"], res["time"])
    if overlap(base.get("times", []), res.get("times", [])):
        text += " (within noise)"
    return text




def table(title, header, rows):
    print(f"\n{title}")
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) for i, h in enumerate(header)]
    print("| " + " | ".join(str(h).ljust(w) for h, w in zip(header, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print("| " + " | ".join(str(c).ljust(w) for c, w in zip(r, widths)) + " |")
    sys.stdout.flush()


def write_report(args, steps_of_45):
    """report.html from one traced hilbert run and Table 4.5's step logs; its path, or None."""
    if args.no_report:
        return None
    if not os.access(args.vela_lb, os.X_OK):
        print(f"\nreport: skipped (no vela-lb at {args.vela_lb}; build it: cmake --build build "
              "--target vela-lb)")
        return None
    P, S = args.pes, args.steps
    base = os.path.join(args.out, "report")
    dumps = os.path.join(base, "dumps")
    shutil.rmtree(base, ignore_errors=True)
    os.makedirs(base)
    trace, record = os.path.join(base, "trace.json"), os.path.join(base, "record.json")
    every = max(1, S // 4)
    run = [args.binary, "--pes", str(P), "--ranks", str(16 * P), "--no-pin",
           "--nx", str(args.nx), "--ny", str(args.ny), "--nz", str(args.nz), "--steps", str(S),
           "--lb-every", str(every), "--lb", "hilbert", "--lb-dump", dumps, "--trace", trace,
           "--record", record, "--record-pes", str(P)]
    vela_lb = [args.vela_lb]
    steps = [
        run,
        vela_lb + ["compare", os.path.join(dumps, "ranks-step1.json"), "--format", "json",
                   "--strategies", ",".join(STRATEGIES)],
        vela_lb + ["replay", record, "--format", "json", "--strategy-time", "0.001",
                   "--compare", "never", "--compare", f"periodic:every={every},strategy=hilbert",
                   "--compare", "threshold:threshold=10,strategy=hilbert,every=1"],
    ]
    outputs = [None, os.path.join(base, "compare.json"), os.path.join(base, "replay.json")]
    for cmd, output in zip(steps, outputs):
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            sys.stderr.write(proc.stdout + proc.stderr)
            raise SystemExit(f"experiments: the report's run failed (exit {proc.returncode}): "
                             f"{' '.join(cmd)}")
        if output:
            with open(output, "w") as f:
                f.write(proc.stdout)
    page = os.path.join(args.out, "report.html")
    cmd = (vela_lb + ["report", "-o", page, "--title",
                      f"BRAMS proxy: {args.nx} x {args.ny} x {args.nz}, {S} steps, {16 * P} ranks "
                      f"on {P} PEs"]
           + steps_of_45 + sorted(glob.glob(os.path.join(dumps, "*.json")))
           + [trace] + outputs[1:])
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"experiments: vela-lb report failed (exit {proc.returncode}): "
                         f"{' '.join(cmd)}")
    return page


def main():
    args = parse_args()
    r = Runner(args)
    P, S = args.pes, args.steps
    quarter = max(1, S // 4)  # the seed balanced at steps 600, 1200, 1800 of 2,400
    tables = args.tables.split(",")
    report_logs = []  # the step logs report.html draws
    results = {"machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
               "config": {"pes": P, "nx": args.nx, "ny": args.ny, "nz": args.nz, "steps": S},
               "tables": {}}
    print(f"BRAMS proxy: {args.nx} x {args.ny} columns x {args.nz} levels, {S} steps "
          f"(the seed: 512 x 512 x 40, 2,400 steps), {P} PEs")
    print(f"times: the median of {args.repeats} run(s) per configuration"
          + (", its range in parentheses; a reduction within the ranges is marked (within noise)"
             if args.repeats > 1 else " (no range: --repeats 3 or more shows the noise)"))
    calibration = machine_state("start")

    base = r.run("4.3", "no virtualization", P, P, ["--lb-every", "0"], perf=True)
    t0 = base["time"]
    if "4.3" in tables:
        rows, saved = [], []
        ratio = 2
        sims = {}
        if args.cache_sim:
            sims[P] = simulate_caches(args, P, P)
        plain = [["no virtualization", P, 1, secs(base), "-"] + cache_columns(r.perf, base)]
        while ratio <= args.max_ratio:
            if P * ratio <= args.nx * args.ny:
                res = r.run("4.3", f"virtualization {ratio}", P * ratio, P, ["--lb-every", "0"], perf=True)
                rows.append([f"{P * ratio} ranks", P * ratio, ratio, secs(res),
                             vs(base, res)] + cache_columns(r.perf, res))
                saved.append({"ratio": ratio, "ranks": P * ratio, "time": res["time"]})
                if args.cache_sim:
                    sims[P * ratio] = simulate_caches(args, P * ratio, P)
            ratio *= 2
        cache_header = [f"{e}" for e in r.perf] or ["cache misses"]
        table("Table 4.3/4.4 shape: virtualization without balancing (reduction against no virtualization)",
              ["configuration", "ranks", "ratio", "time (s)", "reduction"] + cache_header, plain + rows)
        if not r.perf:
            print("  cache misses: perf cannot read hardware cache counters on this machine "
                  "(no PMU exposed); the column stays empty")
        if args.cache_sim:
            keys = sorted({k for c in sims.values() for k in c})
            if keys:
                sim_rows = [[ranks, ranks // P] + [f"{c.get(k, 0) / 1e6:.2f}M" for k in keys]
                            for ranks, c in sims.items()]
                table(f"Table 4.4 shape by simulation: valgrind cachegrind, {args.cache_sim} steps "
                      "(one simulated cache shared by the PE threads)", ["ranks", "ratio"] + keys,
                      sim_rows)
                results["tables"]["4.4_simulated"] = {str(k): v for k, v in sims.items()}
            else:
                print("  cache simulation: valgrind is missing or failed; no Table 4.4 figures")
        best = min(saved, key=lambda x: x["time"]) if saved else None
        if best:
            print(f"  sweet spot: ratio {best['ratio']} ({best['ranks']} ranks), {pct(t0, best['time'])} "
                  "against no virtualization")
        results["tables"]["4.3"] = {"no_virtualization": t0, "ratios": saved, "best": best}

    if "4.2" in tables:
        # The seed's 4 processors x 16 threads and a storm that stays where it develops; the moves
        # at the first of the balancing points every eighth of the run (the later ones move nothing).
        pes, v, every = 4, 64, max(1, S // 8)
        static = ["--storm-drift", "0", "--lb-every", str(every)]
        rows, saved = [], []
        base = None
        for moves in (0, 2, 3):
            label = "without load balancing" if moves == 0 else f"{moves} explicit migrations"
            res = r.run("4.2", label, v, pes, static + ["--explicit-moves", str(moves)],
                        variant="static storm")
            base = base or res
            rows.append([label, secs(res), vs(base, res) if moves else "-",
                         res["explicit_moves"], f"{1e3 * res['migrate_seconds']:.2f}"])
            saved.append({"moves": moves, "made": res["explicit_moves"], "time": res["time"],
                          "migrate_seconds": res["migrate_seconds"]})
        table(f"Table 4.2 shape: a storm that does not move, {pes} PEs x 16 ranks, ranks of the busiest PE "
              f"moved by hand (MPI_Migrate_to_pe) at step {every}",
              ["configuration", "time (s)", "reduction", "moves made", "time in MPI_Migrate (ms)"], rows)
        results["tables"]["4.2"] = {"pes": pes, "ranks": v, "moved_at": every, "runs": saved}

    if "4.5" in tables:
        v = 16 * P
        none = r.run("4.5", "no balancer", v, P, ["--lb-every", "0"])
        rows = [["no virtualization", secs(base), "-", "-", "-", "-"],
                [f"no balancer - {v} ranks", secs(none), vs(base, none), "-", "-", "-"]]
        cost_rows, saved = [], []
        report_logs.append(os.path.join(args.out, "steps", "4.5-no-balancer.csv"))
        for s in STRATEGIES:
            res = r.run("4.5", s, v, P, ["--lb-every", str(quarter), "--lb", s])
            if s in ("greedy", "hilbert"):
                report_logs.append(os.path.join(args.out, "steps", f"4.5-{slug(s)}.csv"))
            rows.append([f"{s} - {v} ranks", secs(res), vs(base, res),
                         res["migrations"], res["lb_steps"], vs(none, res)])
            strategy_s = res["strategy_ms"] * res["lb_steps"] / 1000.0
            cost_rows.append([s, f"{1e3 * res['migrate_seconds']:.2f}", f"{1e3 * strategy_s:.2f}",
                              res["migrations"]])
            saved.append({"strategy": s, "time": res["time"], "migrations": res["migrations"],
                          "balancing_seconds": res["migrate_seconds"], "strategy_seconds": strategy_s})
        table(f"Table 4.5 shape: virtualization 16, balancing every {quarter} steps (the seed's 600 of 2,400)",
              ["configuration", "time (s)", "reduction", "migrations", "lb steps", "vs no balancer"], rows)
        table("Table 4.6 shape: cost of balancing (time in MPI_Migrate on rank 0, summed over the calls; "
              "of it, the strategy)", ["balancer", "balancing time (ms)", "strategy (ms)", "migrations"],
              cost_rows)
        results["tables"]["4.5"] = {"no_virtualization": t0, "no_balancer": none["time"],
                                    "every": quarter, "strategies": saved}

    if "4.7" in tables:
        v = 16 * P
        # The seed's 100, 10 and 1 of 2,400 steps; 10 of 2,400 becomes S/80 when S/240 would
        # round to the same interval as 1.
        middle = S // 240 if S // 240 > 1 else max(1, S // 80)
        intervals = sorted({max(1, S // 24), middle, 1}, reverse=True)
        grid, rows, saved = {}, [], []
        for every in intervals:
            row = [f"{every}"]
            for th in THRESHOLDS:
                res = r.run("4.7", f"hilbert every {every} threshold {th}", v, P,
                            ["--lb-every", str(every), "--lb", "hilbert", "--lb-policy", "threshold",
                             "--lb-policy-param", "strategy=hilbert", "--lb-policy-param", "every=1",
                             "--lb-policy-param", f"threshold={th}"])
                grid[(every, th)] = res["time"]
                row.append(f"{secs(res)} [{res['migrations']}]")
                saved.append({"every": every, "threshold": th, "time": res["time"],
                              "migrations": res["migrations"]})
            rows.append(row)
        table(f"Table 4.7 shape: hilbert, MPI_Migrate every K steps x imbalance threshold, time (s) "
              f"[migrations]; the seed's 100, 10, 1 of 2,400 steps scale to {', '.join(map(str, intervals))}",
              ["interval"] + [f"{t}%" for t in THRESHOLDS], rows)
        (be, bt), bv = min(grid.items(), key=lambda kv: kv[1])
        every = max(1, S // 240)
        auto = r.run("4.7", "hilbert auto-threshold", v, P,
                     ["--lb-every", str(every), "--lb", "hilbert", "--lb-policy", "auto-threshold",
                      "--lb-policy-param", "strategy=hilbert",
                      "--lb-policy-param", f"window={max(5, S // 48)}",
                      "--lb-policy-param", f"every={max(1, S // 24 // every)}"])
        print(f"  best fixed: every {be}, {bt}%: {bv:.3f} s ({pct(t0, bv)} against no virtualization)")
        print(f"  automatic threshold (every {every}): {auto['time']:.3f} s ({pct(t0, auto['time'])} "
              f"against no virtualization, {pct(bv, auto['time'])} against the best fixed), "
              f"{auto['migrations']} migrations")
        results["tables"]["4.7"] = {"grid": saved, "best": {"every": be, "threshold": bt, "time": bv},
                                    "auto": {"every": every, "time": auto["time"],
                                             "migrations": auto["migrations"]}}

    if "4.1" in tables:
        short = max(1, S // 4)
        rows, saved = [], []
        one = r.run("4.1", "1 rank", 1, 1, ["--lb-every", "0"], steps=short)
        for ranks in (4, 8, 16):
            row = [ranks]
            for method in ("copy", "tls", "privatized"):
                res = r.run("4.1", f"{method} {ranks}", ranks, 1,
                            ["--lb-every", "0", "--privatize", method], steps=short, optional=True)
                row.append(secs(res) if res else "n/a (not in this build)")
                saved.append({"ranks": ranks, "method": method, "time": res["time"] if res else None})
            rows.append(row)
        table(f"Table 4.1 shape: privatization on 1 PE, {short} steps, time (s); 1 rank: {one['time']:.3f}",
              ["ranks", "copy in/out (GOT-like)", "TLS", "privatized<T>"], rows)
        results["tables"]["4.1"] = {"one_rank": one["time"], "steps": short, "runs": saved}

    if args.fortran:
        fortran_tables(args, r, results, tables, P, S, quarter)

    # Every run of one configuration (grid, steps) computes the same fields (the Fortran twin's
    # runs included: the C++ proxy's checksum).
    groups = {}
    for run in r.runs:
        groups.setdefault((run["steps"], run.get("variant", "")), set()).add(run["checksum"])
    bad = {s: c for s, c in groups.items() if len(c) != 1}
    results["checksums_identical"] = not bad
    with open(os.path.join(args.out, "runs.csv"), "w", newline="") as f:
        keys = ["table", "label", "ranks", "pes", "steps", "time", "step", "migrations", "lb_steps",
                "migrate_calls", "migrate_seconds", "strategy_ms", "checksum", "variant"] + r.perf + ["command"]
        w = csv.DictWriter(f, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        for run in r.runs:
            w.writerow(run)
    results["runs"] = r.runs
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    print()
    results["machine"]["calibration"] = [calibration, machine_state("end", calibration)]
    if not args.no_simulation:
        simulation(args)
    print(f"\nchecksums: {len(r.runs)} runs, "
          + ("every configuration's runs identical bit for bit" if not bad else f"DIFFERENT: {bad}"))
    print(f"results: {os.path.join(args.out, 'runs.csv')}, {os.path.join(args.out, 'results.json')}, "
          f"per-step logs in {os.path.join(args.out, 'steps')}/")
    page = write_report(args, report_logs)
    if page:
        print(f"report: {page} (open it in a browser; it needs nothing else)")
    return 1 if bad else 0


def fortran_tables(args, r, results, tables, P, S, quarter):
    """The Fortran twin's tables: Table 4.1's methods from Fortran, Table 4.5 beside the C++."""
    twin = os.path.join(args.fortran, "brams-fortran")
    twin_tls = os.path.join(args.fortran, "brams-fortran-tls")  # built with -fopenmp
    if "4.1" in tables:
        short = max(1, S // 4)
        rows, saved = [], []
        for ranks in (4, 8, 16):
            row = [ranks]
            for method, binary in (("auto", twin), ("tls", twin_tls), ("copy", twin)):
                res = r.run_fortran("4.1-fortran", f"{method} {ranks}", binary, ranks, 1,
                                    ["--lb-every", "0", "--vp-privatize", method], steps=short)
                row.append(secs(res))
                saved.append({"ranks": ranks, "method": method, "time": res["time"]})
            rows.append(row)
        table(f"Table 4.1 shape from Fortran (apps/brams-fortran): privatization on 1 PE, {short} steps, "
              "time (s)", ["ranks", "automatic (an instance per rank)", "TLS (!$omp threadprivate)",
                           "copy in/out (the program's globals)"], rows)
        results["tables"]["4.1_fortran"] = {"steps": short, "runs": saved}
    if "4.5" in tables:
        v = 16 * P
        cxx = {run["label"]: run for run in r.runs if run["table"] == "4.5"}
        rows, saved = [], []
        for label, extra in (("no balancer", ["--lb-every", "0"]),
                             ("greedy", ["--lb-every", str(quarter), "--lb", "greedy"]),
                             ("hilbert", ["--lb-every", str(quarter), "--lb", "hilbert"])):
            c = cxx.get(label)
            # The twin's ranks form the C++ proxy's grid of blocks, which the C++ proxy gives the
            # runtime itself; an unchanged MPI program is given it by --vp-grid, for the
            # geometric strategy's coordinates.
            px, py = rank_grid(v)
            grid = ["--vp-grid", f"{px}x{py}"] if label == "hilbert" else []
            cmd = [twin, "--vp", str(v), "--pes", str(P), "--no-pin"] + grid + r.model(None) + extra
            if c is None:
                res = r.run_fortran("4.5-fortran", label, twin, v, P, extra)
                rows.append([f"{label} - {v} ranks", "-", secs(res), "-"])
                saved.append({"balancer": label, "cxx": None, "fortran": res["time"]})
                continue
            # The C++ proxy's run of Table 4.5 again, alternately with the twin, so that the
            # machine's drift since that table falls on both.
            cxx_cmd = strip_step_log(c["command"].split())
            c, res = alternately(cxx_cmd, cmd, args.repeats)
            for run, name, command in ((c, "4.5-beside-fortran", cxx_cmd), (res, "4.5-fortran", cmd)):
                run.update(table=name, label=label, ranks=v, pes=P, steps=args.steps, variant="",
                           command=" ".join(command))
                r.runs.append(run)  # its checksum joins the check of every configuration's runs
            rows.append([f"{label} - {v} ranks", secs(c), secs(res),
                         f"{res['time'] / c['time']:.2f}"])
            saved.append({"balancer": label, "cxx": c["time"], "fortran": res["time"],
                          "cxx_times": c["times"], "fortran_times": res["times"]})
        table(f"Table 4.5 shape beside the C++ proxy: its Fortran twin, virtualization 16, balancing "
              f"every {quarter} steps", ["configuration", "C++ time (s)", "Fortran time (s)",
                                         "Fortran / C++"], rows)
        results["tables"]["4.5_fortran"] = {"every": quarter, "runs": saved}


def simulation(args):
    """A short simulation after the measured tables: seed 000's Tables 4.3, 4.5 and 4.7 at 64
    processors of the simulated Cray XT5 (apps/brams/simulate_tables.py), this run's grid with
    256 and 1,024 ranks, the baseline the proxy's own source under smpirun."""
    if not os.access(args.vela_lb, os.X_OK):
        print(f"\nsimulation at 64 processors: skipped ({args.vela_lb} not found: --vela-lb)")
        return
    probe = subprocess.run([args.vela_lb, "simulate", os.devnull, "--platform", "xt5"],
                           capture_output=True, text=True)
    if "without SimGrid" in probe.stdout + probe.stderr or shutil.which("smpicxx") is None:
        print("\nsimulation at 64 processors: skipped (this build has no SimGrid: "
              "apt-get install libsimgrid-dev and build again)")
        return
    if args.nx * args.ny < 1024:
        print(f"\nsimulation at 64 processors: skipped (the grid's {args.nx * args.ny} columns are "
              "fewer than its 1,024 ranks)")
        return
    print(f"\nA short simulation: this grid at 64 processors of a simulated Cray XT5 "
          f"(docs/results/simulation.md has the seed's own size)", flush=True)
    out = os.path.join(args.out, "simulation")
    cmd = [sys.executable, os.path.join(os.path.dirname(os.path.abspath(__file__)), "simulate_tables.py"),
           "--binary", args.binary, "--vela-lb", args.vela_lb, "--nx", str(args.nx), "--ny", str(args.ny),
           "--nz", str(args.nz), "--steps", str(args.steps), "--storm-work", "128", "--storm-drift", "55",
           "--ranks", "256,1024", "--strategy-time", "measured", "--out", out,
           "--json", os.path.join(args.out, "simulation.json")]
    shutil.rmtree(out, ignore_errors=True)
    proc = subprocess.run(cmd, capture_output=True, text=True)
    sys.stdout.write(proc.stdout)
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr)
        raise SystemExit(f"experiments: the simulation failed (exit {proc.returncode}): {' '.join(cmd)}")


def rank_grid(n):
    """The proxy's grid of blocks for n ranks (brams_rank_grid, the twin's rank_grid): the
    closest to square, px >= py, rank r at (r mod px, r div px)."""
    py = max(d for d in range(1, int(n ** 0.5) + 1) if n % d == 0)
    return n // py, py


def strip_step_log(cmd):
    """A command without its --step-log FILE (a run made again only for its time)."""
    if "--step-log" in cmd:
        at = cmd.index("--step-log")
        cmd = cmd[:at] + cmd[at + 2:]
    return cmd


def alternately(first, second, repeats):
    """Runs two commands in turn `repeats` times: each one's median run, with every time."""
    runs = ([], [])
    for _ in range(max(1, repeats)):
        for cmd, kept in zip((first, second), runs):
            kept.append(execute(list(cmd), None))
    chosen = []
    for kept in runs:
        times = [k["time"] for k in kept]
        median = sorted(kept, key=lambda k: k["time"])[(len(kept) - 1) // 2]
        chosen.append(dict(median, times=times))
    return chosen[0], chosen[1]


def cache_columns(events, res):
    if not events:
        return ["n/a"]
    return [f"{res.get(e, 0) / 1e6:.1f}M" for e in events]


if __name__ == "__main__":
    sys.exit(main())
