#!/usr/bin/env python3
"""The seed-004 experiments on the GPU proxy, in the shape of the seed's tables.

Runs build/apps/gpu-proxy/gpu-proxy and prints, as Markdown:
  sync/async   every step synchronous against every step asynchronous (seed Table I);
  fixed        a fixed heavy region on the first half of the ranks (all on the first PE),
               greedy at the one MPI_Migrate() in the middle, against no balancing (Table III);
  moving       a heavy region crossing the domain, MPI_Migrate() every --lb-every steps: greedy
               at the first call, refine-swap after (the `sequence` policy), against no
               balancing, for two virtualization ratios (Tables IV and V).
Each configuration runs --repeats times and each figure is the fastest (other load on the
machine only ever adds time). Every run of an experiment must print the same checksum (the
fields are bitwise the same whatever the balancer): a difference fails the script.
"""
import argparse
import os
import re
import subprocess
import sys


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--binary", default="build/apps/gpu-proxy/gpu-proxy", help="the gpu-proxy executable")
    p.add_argument("--backend", default="cpu", choices=["cpu", "cuda"])
    p.add_argument("--pes", type=int, default=2, help="PEs (default 2)")
    p.add_argument("--grid", default="64x64x40", help="NXxNYxNZ (default 64x64x40)")
    p.add_argument("--fields", type=int, default=8)
    p.add_argument("--repeats", type=int, default=3, help="runs per configuration; the fastest counts")
    p.add_argument("--experiments", default="sync-async,fixed,moving", help="which (comma-separated)")
    args = p.parse_args()
    if not os.access(args.binary, os.X_OK):
        p.error(f"--binary {args.binary}: not an executable (build it: cmake --build build --target gpu-proxy)")
    if not re.fullmatch(r"\d+x\d+x\d+", args.grid):
        p.error(f"--grid {args.grid}: expected NXxNYxNZ, such as 64x64x40")
    for name in ("pes", "fields", "repeats"):
        if getattr(args, name) < 1:
            p.error(f"--{name} {getattr(args, name)}: expected a positive integer")
    return args


def run(args, options):
    nx, ny, nz = args.grid.split("x")
    command = [args.binary, "--nx", nx, "--ny", ny, "--nz", nz, "--fields", str(args.fields),
               "--backend", args.backend, "--pes", str(args.pes), "--no-pin"] + options
    out = subprocess.run(command, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"experiments.py: {' '.join(command)} failed:\n{out.stdout}{out.stderr}")
    result = {"command": " ".join(command[1:]), "intervals": {}}
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


def best(args, options, checksums):
    """The fastest of --repeats runs, figure by figure."""
    runs = [run(args, options) for _ in range(args.repeats)]
    checksums.update(r["checksum"] for r in runs)
    fastest = dict(runs[0])
    for key in ("time", "sync", "async"):
        values = [r[key] for r in runs if r.get(key) is not None]
        fastest[key] = min(values) if values else None
    fastest["intervals"] = {k: min(r["intervals"][k] for r in runs) for k in runs[0]["intervals"]}
    return fastest


def check(name, checksums):
    if len(checksums) != 1:
        sys.exit(f"experiments.py: {name}: runs printed different checksums {sorted(checksums)}")


def sync_async(args):
    checksums = set()
    ranks = 2 * args.pes
    common = ["--ranks", str(ranks), "--steps", "20", "--load", "none", "--lb-every", "0"]
    sync = best(args, common + ["--launch", "sync"], checksums)
    asyn = best(args, common + ["--launch", "async"], checksums)
    check("sync-async", checksums)
    print(f"### Synchronous against asynchronous steps ({ranks} ranks on {args.pes} PEs, {args.backend})\n")
    print("| mode | s per step | vs sync |\n|---|---:|---:|")
    print(f"| synchronous | {sync['sync']:.4f} | 1.00 |")
    print(f"| asynchronous | {asyn['async']:.4f} | {asyn['async'] / sync['sync']:.2f} |")
    print(f"\n`{sync['command']}`; `--launch async` for the second row.\n")


def print_intervals(title, rows):
    """rows: (label, result); one line per interval, one column per row, the ratio to the first."""
    intervals = list(rows[0][1]["intervals"])
    head = " | ".join(f"{label} (s)" for label, _ in rows)
    print(f"| steps | {head} | {rows[-1][0]} vs {rows[0][0]} |")
    print("|---|" + "---:|" * (len(rows) + 1))
    for k in intervals:
        first, last = rows[0][1]["intervals"][k], rows[-1][1]["intervals"][k]
        cells = " | ".join(f"{r['intervals'][k]:.3f}" for _, r in rows)
        print(f"| {k[0]}-{k[1]} | {cells} | {100 * (last / first - 1):+.1f}% |")
    print()
    for label, r in rows:
        print(f"- {label}: `{r['command']}` ({r.get('migrations', 0)} migrations)")
    print()


def fixed(args):
    checksums = set()
    ranks = 2 * args.pes
    # The seed: 15 asynchronous steps, 5 synchronous (measured) ones, MPI_Migrate, 20 more.
    common = ["--ranks", str(ranks), "--steps", "40", "--lb-every", "20", "--measure-steps", "5",
              "--load", "fixed"]
    none = best(args, common, checksums)
    greedy = best(args, common + ["--lb", "greedy"], checksums)
    check("fixed", checksums)
    print(f"### Fixed imbalance ({ranks} ranks on {args.pes} PEs, {args.backend})\n")
    print_intervals("fixed", [("no balancing", none), ("greedy", greedy)])


def moving(args):
    for ratio in (4, 8):
        checksums = set()
        ranks = ratio * args.pes
        # The seed: 40 steps, MPI_Migrate every 10, the last 4 of each 10 synchronous.
        common = ["--ranks", str(ranks), "--steps", "40", "--lb-every", "10", "--measure-steps", "4",
                  "--load", "moving"]
        none = best(args, common, checksums)
        sequence = best(args, common + ["--lb", "greedy", "--lb-policy", "sequence",
                                        "--lb-policy-param", "every=1",
                                        "--lb-policy-param", "threshold=0"], checksums)
        check("moving", checksums)
        print(f"### Moving load ({ranks} ranks on {args.pes} PEs, {args.backend})\n")
        print_intervals("moving", [("no balancing", none), ("greedy, then refine-swap", sequence)])


def main():
    args = parse_args()
    chosen = args.experiments.split(",")
    for name in chosen:
        if name not in ("sync-async", "fixed", "moving"):
            sys.exit(f"experiments.py: --experiments: unknown '{name}' (expected sync-async, fixed, moving)")
    if "sync-async" in chosen:
        sync_async(args)
    if "fixed" in chosen:
        fixed(args)
    if "moving" in chosen:
        moving(args)


if __name__ == "__main__":
    main()
