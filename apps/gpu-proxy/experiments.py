#!/usr/bin/env python3
"""The seed-004 experiments on the GPU proxy, in the shape of the seed's tables.

Runs build/apps/gpu-proxy/gpu-proxy and prints, as Markdown:
  sync-async   every step synchronous against every step asynchronous, 2 ranks a PE, and
               one rank a PE (twice the PEs; the same PEs) without virtualization (Table I);
  scaling      the scaling loop alone (gpu-proxy-scaling): time against the problem size, on
               the CPU and, with --backend cuda, on the device (Table II);
  fixed        a fixed heavy region on the first half of the ranks (all on the first PE),
               greedy at the one MPI_Migrate() in the middle, against no balancing (Table III);
  moving       a heavy region crossing the domain, MPI_Migrate() every --lb-every steps: greedy
               at the first call, refine-swap after (the `sequence` policy), against no
               balancing, for two virtualization ratios (Tables IV and V).
Each configuration runs --repeats times, the configurations of an experiment taking turns, and
each figure is the median, its range beside it (a change within the ranges is marked "within
noise"); the load average and a calibration loop are printed at the start and the end, with a
warning when the machine was busy. Besides the wall
time of each interval between MPI_Migrate() calls, the balancing experiments report its
compute makespan: the largest over the PEs of the thread CPU time its ranks used in the
interval (--lb-cpu-time, read from the --lb-dump instance written at the interval's end; the
unbalanced runs use the dummy strategy, which moves nothing, so that they are dumped too).
Other processes on the machine do not enter it, so it is what the interval would take on
cores of its own. (The runs take one step more than the seed's, so that the last interval
ends at an MPI_Migrate() and is measured too; that step is not counted.)
Every run of an experiment must print the same checksum (the fields are bitwise the same
whatever the balancer): a difference fails the script.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from noise import machine_state, overlap, spread  # noqa: E402


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--binary", default="build/apps/gpu-proxy/gpu-proxy", help="the gpu-proxy executable")
    p.add_argument("--backend", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--pes", type=int, default=2, help="PEs (default 2)")
    p.add_argument("--grid", default="64x64x40", help="NXxNYxNZ (default 64x64x40)")
    p.add_argument("--fields", type=int, default=8)
    p.add_argument("--repeats", type=int, default=3, help="runs per configuration; the median counts, the range is printed beside it")
    p.add_argument("--experiments", default="sync-async,scaling,fixed,moving", help="which (comma-separated)")
    p.add_argument("--scaling-binary", default="build/apps/gpu-proxy/gpu-proxy-scaling",
                   help="the gpu-proxy-scaling executable (the scaling experiment)")
    p.add_argument("--scaling-inner", type=int, default=2000,
                   help="serial steps per element in the scaling experiment (the seed: 200000)")
    p.add_argument("--scaling-device-only", action="store_true",
                   help="scaling: time the device alone (with --backend cuda; for inner trips the CPU "
                        "would take minutes over)")
    args = p.parse_args()
    if not os.access(args.binary, os.X_OK):
        p.error(f"--binary {args.binary}: not an executable (build it: cmake --build build --target gpu-proxy)")
    if not re.fullmatch(r"\d+x\d+x\d+", args.grid):
        p.error(f"--grid {args.grid}: expected NXxNYxNZ, such as 64x64x40")
    if "scaling" in args.experiments.split(",") and not os.access(args.scaling_binary, os.X_OK):
        p.error(f"--scaling-binary {args.scaling_binary}: not an executable (build it: cmake --build "
                "build --target gpu-proxy-scaling)")
    for name in ("pes", "fields", "repeats", "scaling_inner"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} {getattr(args, name)}: expected a positive integer")
    return args


def run(args, options, pes=None):
    nx, ny, nz = args.grid.split("x")
    command = [args.binary, "--nx", nx, "--ny", ny, "--nz", nz, "--fields", str(args.fields),
               "--backend", args.backend, "--pes", str(pes or args.pes), "--no-pin"] + options
    with tempfile.TemporaryDirectory() as dumps:
        out = subprocess.run(command + ["--lb-cpu-time", "--lb-dump", dumps], capture_output=True, text=True)
        makespans = []
        for k in range(1, 1000):
            path = os.path.join(dumps, f"ranks-step{k}.json")
            if not os.path.exists(path):
                break
            with open(path) as f:
                objects = json.load(f)["objects"]
            per_pe = {}
            for load, pe in zip(objects["load"], objects["pe"]):
                per_pe[pe] = per_pe.get(pe, 0.0) + load
            makespans.append(max(per_pe.values()))
    if out.returncode != 0:
        sys.exit(f"experiments.py: {' '.join(command)} failed:\n{out.stdout}{out.stderr}")
    result = {"command": " ".join(command[1:]) + " --lb-cpu-time --lb-dump DIR", "intervals": {},
              "makespans": makespans}
    for line in out.stdout.splitlines():
        if m := re.match(r"checksum: (\w+)", line):
            result["checksum"] = m.group(1)
        elif m := re.match(r"(sync|async) steps: (\d+), ([\d.]+) s per step", line):
            result[m.group(1)] = float(m.group(3)) if int(m.group(2)) > 0 else None
        elif m := re.match(r"steps (\d+)-(\d+): ([\d.]+) s", line):
            result["intervals"][(int(m.group(1)), int(m.group(2)))] = float(m.group(3))
        elif m := re.match(r"time: ([\d.]+)", line):
            result["time"] = float(m.group(1))
        elif m := re.match(r"pes: .* migrations: (\d+)", line):
            result["migrations"] = int(m.group(1))
    return result


def median(runs):
    """Figure by figure, the median of the runs of one configuration; every run's figures kept
    (`all`) for their ranges."""
    def mid(values):
        ordered = sorted(values)
        return ordered[(len(ordered) - 1) // 2]
    result = dict(runs[0])
    result["all"] = runs
    for key in ("time", "sync", "async"):
        values = [r[key] for r in runs if r.get(key) is not None]
        result[key] = mid(values) if values else None
    result["intervals"] = {k: mid([r["intervals"][k] for r in runs]) for k in runs[0]["intervals"]}
    result["makespans"] = [mid(m) for m in zip(*(r["makespans"] for r in runs))]
    return result


def figure(result, key, digits):
    """A figure's median and range over the runs: spread() of each run's `key`."""
    return spread([r[key] for r in result["all"] if r.get(key) is not None], digits)


def best(args, configurations, checksums, pes=None):
    """Each configuration (a list of options) --repeats times, taking turns; the median of each.
    pes: each configuration's PEs (default --pes for all)."""
    runs = [[] for _ in configurations]
    for _ in range(args.repeats):
        for c, options in enumerate(configurations):
            runs[c].append(run(args, options, pes[c] if pes else None))
    for r in runs:
        checksums.update(x["checksum"] for x in r)
    return [median(r) for r in runs]


def check(name, checksums):
    if len(checksums) != 1:
        sys.exit(f"experiments.py: {name}: runs printed different checksums {sorted(checksums)}")


def sync_async(args):
    checksums = set()
    ranks = 2 * args.pes
    common = ["--ranks", str(ranks), "--steps", "20", "--load", "none", "--lb-every", "0"]
    alone = ["--steps", "20", "--load", "none", "--lb-every", "0", "--launch", "async"]
    # The seed's last two rows: plain MPI, one process (here: one rank) per GPU share, with
    # as many processes as the virtualized runs have ranks, and with as many as they have PEs.
    sync, asyn, many, few = best(
        args, [common + ["--launch", "sync"], common + ["--launch", "async"],
               alone + ["--ranks", str(ranks)], alone + ["--ranks", str(args.pes)]],
        checksums, pes=[args.pes, args.pes, ranks, args.pes])
    check("sync-async", checksums)
    print(f"### Synchronous against asynchronous steps ({args.backend})\n")
    def versus(result, key):
        ratio = f"{result[key] / sync['sync']:.2f}"
        mine = [r[key] for r in result["all"] if r.get(key) is not None]
        base = [r["sync"] for r in sync["all"] if r.get("sync") is not None]
        return ratio + (" (within noise)" if overlap(mine, base) else "")
    print("| mode | s per step (range) | vs sync |\n|---|---:|---:|")
    print(f"| synchronous, {ranks} ranks on {args.pes} PEs | {figure(sync, 'sync', 5)} | 1.00 |")
    print(f"| asynchronous, {ranks} ranks on {args.pes} PEs | {figure(asyn, 'async', 5)} | {versus(asyn, 'async')} |")
    print(f"| {ranks} ranks on {ranks} PEs (one a PE) | {figure(many, 'async', 5)} | {versus(many, 'async')} |")
    print(f"| {args.pes} ranks on {args.pes} PEs (one a PE) | {figure(few, 'async', 5)} | {versus(few, 'async')} |")
    print(f"\n`{sync['command']}`; `--launch async` for the second row; `--pes {ranks} --ranks {ranks} "
          f"--launch async` and `--pes {args.pes} --ranks {args.pes} --launch async` for the others.\n")


def scaling(args):
    """Seed 004's Table II: the loop over an N x M array (N = 1024, M halving from 512), each
    element --scaling-inner serial steps; the CPU back end always, the device with --backend cuda."""
    if args.scaling_device_only and args.backend != "cuda":
        sys.exit("experiments.py: --scaling-device-only needs --backend cuda")
    backends = ([] if args.scaling_device_only else ["cpu"]) + (["cuda"] if args.backend == "cuda" else [])
    rows = []
    for m in (512, 256, 128, 64, 32):
        row = {"m": m}
        for backend in backends:
            command = [args.scaling_binary, "--backend", backend, "--n", "1024", "--m", str(m),
                       "--inner", str(args.scaling_inner), "--repeats", str(args.repeats)]
            out = subprocess.run(command, capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit(f"experiments.py: {' '.join(command)} failed:\n{out.stdout}{out.stderr}")
            fields = dict(line.split(": ", 1) for line in out.stdout.splitlines() if ": " in line)
            row[backend] = (float(fields["seconds"]), fields["sum"])
        if len(backends) == 2 and row["cpu"][1] != row["cuda"][1]:
            sys.exit(f"experiments.py: scaling, M = {m}: the CPU and the device summed "
                     f"{row['cpu'][1]} and {row['cuda'][1]}")
        rows.append(row)
    print(f"### Scaling with problem size (N = 1024, inner = {args.scaling_inner})\n")
    header = "| N | M | inner | " + " | ".join(f"{b.upper()} time (s) | vs the row before" for b in backends)
    print(header + " |\n|---|---:|---:|" + "---:|---:|" * len(backends))
    for r, row in enumerate(rows):
        cells = []
        for b in backends:
            t = row[b][0]
            before = f"{100 * t / rows[r - 1][b][0]:.1f}%" if r > 0 and rows[r - 1][b][0] > 0 else ""
            cells.append(f"{t:.6f} | {before}")
        print(f"| 1024 | {row['m']} | {args.scaling_inner} | " + " | ".join(cells) + " |")
    print(f"\n`{args.scaling_binary} --backend B --n 1024 --m M --inner {args.scaling_inner} "
          f"--repeats {args.repeats}`; the program's own figure, the fastest of its repeats "
          "(its computation alone).\n")


def print_intervals(title, rows, steps):
    """rows: (label, result); one line per interval of the seed's run (up to `steps`): the wall
    time and the compute makespan of each row, and the last row's against the first's."""
    intervals = [k for k in rows[0][1]["intervals"] if k[1] <= steps]
    a, b = rows[0][0], rows[-1][0]
    print(f"| steps | wall: {a} (s) | wall: {b} (s) | change | makespan: {a} (s) | makespan: {b} (s) | change |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for n, k in enumerate(intervals):
        w0, w1 = rows[0][1]["intervals"][k], rows[-1][1]["intervals"][k]
        m0, m1 = rows[0][1]["makespans"][n], rows[-1][1]["makespans"][n]
        wa = [r["intervals"][k] for r in rows[0][1]["all"]]
        wb = [r["intervals"][k] for r in rows[-1][1]["all"]]
        ma = [r["makespans"][n] for r in rows[0][1]["all"]]
        mb = [r["makespans"][n] for r in rows[-1][1]["all"]]
        noise = lambda a, b: " (within noise)" if overlap(a, b) else ""
        print(f"| {k[0]}-{k[1]} | {spread(wa, 4)} | {spread(wb, 4)} | "
              f"{100 * (w1 / w0 - 1):+.1f}%{noise(wa, wb)} "
              f"| {spread(ma, 4)} | {spread(mb, 4)} | {100 * (m1 / m0 - 1):+.1f}%{noise(ma, mb)} |")
    print()
    for label, r in rows:
        print(f"- {label}: `{r['command']}` ({r.get('migrations', 0)} migrations)")
    print()


def fixed(args):
    checksums = set()
    ranks = 2 * args.pes
    # The seed: 15 asynchronous steps, 5 synchronous (measured) ones, MPI_Migrate, 20 more.
    common = ["--ranks", str(ranks), "--steps", "41", "--lb-every", "20", "--measure-steps", "5",
              "--load", "fixed"]
    none, greedy = best(args, [common + ["--lb", "dummy"], common + ["--lb", "greedy"]], checksums)
    check("fixed", checksums)
    print(f"### Fixed imbalance ({ranks} ranks on {args.pes} PEs, {args.backend})\n")
    print_intervals("fixed", [("no balancing", none), ("greedy", greedy)], 40)


def moving(args):
    for ratio in (4, 8):
        checksums = set()
        ranks = ratio * args.pes
        # The seed: 40 steps, MPI_Migrate every 10, the last 4 of each 10 synchronous.
        common = ["--ranks", str(ranks), "--steps", "41", "--lb-every", "10", "--measure-steps", "4",
                  "--load", "moving"]
        sequence = ["--lb", "greedy", "--lb-policy", "sequence", "--lb-policy-param", "every=1",
                    "--lb-policy-param", "threshold=0"]
        none, balanced = best(args, [common + ["--lb", "dummy"], common + sequence], checksums)
        check("moving", checksums)
        print(f"### Moving load ({ranks} ranks on {args.pes} PEs, {args.backend})\n")
        print_intervals("moving", [("no balancing", none), ("greedy, then refine-swap", balanced)], 40)


def main():
    args = parse_args()
    calibration = machine_state("start")
    print()
    chosen = args.experiments.split(",")
    for name in chosen:
        if name not in ("sync-async", "scaling", "fixed", "moving"):
            sys.exit(f"experiments.py: --experiments: unknown '{name}' (expected sync-async, scaling, "
                     "fixed, moving)")
    if "sync-async" in chosen:
        sync_async(args)
    if "scaling" in chosen:
        scaling(args)
    if "fixed" in chosen:
        fixed(args)
    if "moving" in chosen:
        moving(args)
    machine_state("end", calibration)


if __name__ == "__main__":
    main()
