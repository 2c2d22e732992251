#!/usr/bin/env python3
"""Runs under load: the ranks' ping-pong between 2 PEs of one process (bench/rank_pingpong.cpp:
8 B and 1 MiB one-way) and the BRAMS proxy (32 ranks, 2 PEs, no balancing), first QUIET times on
the quiet machine, then RUNS times while busy loops of this script's own spin on the cores
(`taskset -c CPU`, one per core by default, or only on CPU with --busy CPU), each run pinned
(the default) and with --no-pin alternately. Prints per figure the quiet median, the loaded
median and maximum, the worst run over the quiet median, and how many loaded runs took more
than 10 times the quiet median; and the load average before the loops started.

    bench/under_load.py [--build DIR] [--runs N] [--quiet N] [--busy CPU]

Exit status 2 on a usage error, 1 when a run fails.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def pingpong(build: Path, extra: list[str]) -> dict[str, float]:
    out = run([str(build / "bench" / "rank_pingpong_vela"), "--vp", "2", "--pes", "2", *extra,
               "3", "8,1048576"])
    figures = {}
    for row, name in (("8", "ping-pong 8 B (µs)"), ("1048576", "ping-pong 1 MiB (µs)")):
        m = re.search(r"^\|\s*" + row + r"\s*\|\s*([0-9.]+)", out, re.M)
        if m is None:
            sys.exit(f"under_load.py: the ping-pong printed no {row}-byte row:\n{out}")
        figures[name] = float(m.group(1))
    return figures


def brams(build: Path, extra: list[str]) -> dict[str, float]:
    out = run([str(build / "apps" / "brams" / "brams"), "--ranks", "32", "--pes", "2", *extra])
    m = re.search(r"^time: ([0-9.]+)", out, re.M)
    if m is None:
        sys.exit(f"under_load.py: brams printed no time:\n{out}")
    return {"BRAMS 32 ranks (s)": float(m.group(1))}


def run(command: list[str]) -> str:
    r = subprocess.run(command, capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        sys.exit(f"under_load.py: {' '.join(command)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return r.stdout


def sample(build: Path, extra: list[str]) -> dict[str, float]:
    return {**pingpong(build, extra), **brams(build, extra)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", type=Path, default=REPO / "build")
    parser.add_argument("--runs", type=int, default=50, help="loaded runs of each kind")
    parser.add_argument("--quiet", type=int, default=5, help="quiet runs of each kind")
    parser.add_argument("--busy", type=int, help="one busy loop, on this CPU only")
    a = parser.parse_args()
    if a.runs < 1 or a.quiet < 1:
        parser.error(f"--runs and --quiet: expected positive counts, got {a.runs} and {a.quiet}")
    for program in ("bench/rank_pingpong_vela", "apps/brams/brams"):
        if not (a.build / program).is_file():
            parser.error(f"--build: {a.build / program} not built")
    cpus = sorted(os.sched_getaffinity(0))
    if a.busy is not None and a.busy not in cpus:
        parser.error(f"--busy: CPU {a.busy} is not one this process may use ({cpus})")
    modes = {"pinned": [], "--no-pin": ["--no-pin"]}
    quiet = {m: [sample(a.build, extra) for _ in range(a.quiet)] for m, extra in modes.items()}
    load_before = os.getloadavg()[0]
    loops = [subprocess.Popen(["taskset", "-c", str(cpu), "sh", "-c", "while :; do :; done"])
             for cpu in ([a.busy] if a.busy is not None else cpus)]
    loaded: dict[str, list[dict[str, float]]] = {m: [] for m in modes}
    try:
        time.sleep(0.5)
        for _ in range(a.runs):
            for m, extra in modes.items():
                loaded[m].append(sample(a.build, extra))
    finally:
        for p in loops:
            p.kill()
            p.wait()
    where = f"CPU {a.busy}" if a.busy is not None else f"each of CPUs {cpus}"
    print(f"# Under load: {a.runs} runs with a busy loop on {where}, {a.quiet} quiet runs\n")
    print(f"Load average before the loops: {load_before:.2f}\n")
    print("| figure | mode | quiet median | loaded median | loaded max | max / quiet median "
          "| runs over 10x |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for figure in quiet["pinned"][0]:
        for m in modes:
            q = statistics.median(r[figure] for r in quiet[m])
            values = [r[figure] for r in loaded[m]]
            over = sum(v > 10 * q for v in values)
            print(f"| {figure} | {m} | {q:.3g} | {statistics.median(values):.3g} | "
                  f"{max(values):.3g} | {max(values) / q:.1f} | {over} |")


if __name__ == "__main__":
    main()
