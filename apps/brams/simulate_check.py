#!/usr/bin/env python3
"""The simulator (vela-lb simulate) checked against this machine on the BRAMS proxy.

Runs build/apps/brams/brams on --pes PEs at each virtualization ratio (ranks = PEs x ratio, no
balancing) and, with --strategies, balanced at a quarter of the run by each strategy at ratio
16; each run records its trace (--record, the ranks' measured CPU seconds per step). The runs go
round robin, --repeats times, and the median run of each configuration counts (its trace is the
one simulated).

Then it simulates every recorded trace on a platform of this machine: --pes single-core hosts
whose messages cost --latency and --bandwidth (SimGrid's CM02 model: latency plus bytes over
bandwidth, as shared memory has no TCP), with the proxy's per-step MPI_Allreduce
(--step-reduction 8). Nothing is fitted: the compute is each rank's recorded CPU time, the
balanced runs' strategies run again in the simulation (seeing, as the runtime does, the loads
since the last balance), and the runtime's own time is not charged unless --object-overhead or
--message-overhead give it. Prints measured against simulated with the error, and writes the
figures as JSON with --json.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

PLATFORM = """<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- This machine as simulate_check.py sees it: one single-core host per PE. -->
<platform version="4.1">
  <zone id="world" routing="Full">
    <cluster id="here" prefix="core-" suffix="" radical="0-{last}" speed="1Gf"
             bw="{bandwidth}Bps" lat="{half_latency}s"/>
  </zone>
</platform>
"""


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--binary", default="build/apps/brams/brams", help="the brams executable")
    p.add_argument("--vela-lb", default="build/tools/vela-lb/vela-lb", help="the vela-lb executable")
    p.add_argument("--pes", type=int, default=2, help="PEs of the measured runs (default 2)")
    p.add_argument("--ratios", default="1,2,4,8,16,32", help="virtualization ratios (comma-separated)")
    p.add_argument("--strategies", default="greedy,hilbert",
                   help="strategies balanced at ratio 16 every quarter of the run ('' for none)")
    p.add_argument("--nx", type=int, default=64)
    p.add_argument("--ny", type=int, default=64)
    p.add_argument("--nz", type=int, default=20)
    p.add_argument("--steps", type=int, default=240)
    p.add_argument("--repeats", type=int, default=3, help="runs per configuration (the median counts)")
    p.add_argument("--latency", type=float, default=1e-6,
                   help="seconds of a message between two PEs here (default 1e-6)")
    p.add_argument("--bandwidth", type=float, default=5e9,
                   help="bytes per second between two PEs here (default 5e9)")
    p.add_argument("--object-overhead", type=float, default=0.0,
                   help="vela-lb simulate's --object-overhead: seconds per object step (default 0)")
    p.add_argument("--message-overhead", type=float, default=0.0,
                   help="vela-lb simulate's --message-overhead: seconds per message (default 0)")
    p.add_argument("--out", default=None, help="directory for the traces (default: a temporary one)")
    p.add_argument("--json", default=None, help="write the figures to this file")
    a = p.parse_args()
    for name in ("pes", "nx", "ny", "nz", "steps", "repeats"):
        if getattr(a, name) < 1:
            p.error(f"--{name} must be at least 1, got {getattr(a, name)}")
    if not (a.latency > 0 and a.bandwidth > 0):
        p.error("--latency and --bandwidth must be > 0")
    if not (a.object_overhead >= 0 and a.message_overhead >= 0):
        p.error("--object-overhead and --message-overhead must be >= 0")
    try:
        a.ratio_list = [int(r) for r in a.ratios.split(",")]
    except ValueError:
        p.error(f"--ratios: expected whole numbers separated by commas, got '{a.ratios}'")
    if not a.ratio_list or min(a.ratio_list) < 1:
        p.error("--ratios: give at least one ratio, each at least 1")
    a.strategy_list = [s for s in a.strategies.split(",") if s]
    for path in (a.binary, a.vela_lb):
        if not os.access(path, os.X_OK):
            p.error(f"'{path}' is not an executable (build it first: cmake --build build --target brams vela-lb)")
    return a


class Config:
    def __init__(self, label, ratio, extra, policy):
        self.label, self.ratio, self.extra, self.policy = label, ratio, extra, policy
        self.runs = []  # (measured seconds, trace path)

    def median(self):
        """The median run (of an even count, the lower): its measured seconds and its trace."""
        ordered = sorted(self.runs)
        return ordered[(len(ordered) - 1) // 2]


def run_brams(a, c, ranks, trace):
    cmd = [a.binary, "--pes", str(a.pes), "--ranks", str(ranks), "--no-pin", "--nx", str(a.nx),
           "--ny", str(a.ny), "--nz", str(a.nz), "--steps", str(a.steps), "--record", trace,
           "--record-pes", str(a.pes)] + c.extra
    proc = subprocess.run(cmd, capture_output=True, text=True)
    m = re.search(r"^time: ([0-9.]+)", proc.stdout, re.M)
    if proc.returncode != 0 or not m:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"simulate_check: this run failed (exit {proc.returncode}): {' '.join(cmd)}")
    return float(m.group(1))


def simulate(a, platform, trace, policy, overheads):
    cmd = [a.vela_lb, "simulate", trace, "--platform", platform, "--cfg", "network/model:CM02",
           "--step-reduction", "8", "--object-overhead", repr(overheads[0]),
           "--message-overhead", repr(overheads[1]), "--format", "json"] + policy
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"simulate_check: vela-lb simulate failed (exit {proc.returncode}): {' '.join(cmd)}")
    return json.loads(proc.stdout)["policies"][0]


def main():
    a = parse_args()
    out = a.out or tempfile.mkdtemp(prefix="simulate_check_")
    os.makedirs(out, exist_ok=True)
    platform = os.path.join(out, "here.xml")
    with open(platform, "w") as f:
        f.write(PLATFORM.format(last=a.pes - 1, bandwidth=repr(a.bandwidth), half_latency=repr(a.latency / 2)))

    quarter = max(1, a.steps // 4)
    configs = [Config(f"virtualization {r}", r, ["--lb-every", "0"], []) for r in a.ratio_list]
    for s in a.strategy_list:
        configs.append(Config(f"ratio 16, {s} every {quarter} steps", 16,
                              ["--lb-every", str(quarter), "--lb", s],
                              ["--policy", "periodic", "-P", f"every={quarter}", "-P", f"strategy={s}",
                               "--strategy-time", "measured"]))
    for rep in range(a.repeats):  # round robin: each configuration sees the machine's moods alike
        for k, c in enumerate(configs):
            trace = os.path.join(out, f"c{k}-r{rep}.json")
            c.runs.append((run_brams(a, c, a.pes * c.ratio, trace), trace))
    overheads = (a.object_overhead, a.message_overhead)
    print(f"BRAMS proxy {a.nx} x {a.ny} x {a.nz}, {a.steps} steps, {a.pes} PEs here; median of "
          f"{a.repeats} runs (range in brackets); simulated on {a.pes} cores of "
          f"{a.latency * 1e6:g} us and {a.bandwidth / 1e9:g} GB/s with the step reduction; "
          f"runtime's own time {overheads[0] * 1e6:g} us per object step, "
          f"{overheads[1] * 1e6:g} us per message")
    print()
    header = f"{'configuration':<34} {'ranks':>6} {'measured s':>22} {'simulated s':>12} {'error':>8}"
    print(header)
    print("-" * len(header))
    figures = []
    for c in configs:
        measured, trace = c.median()
        times = [t for t, _ in c.runs]
        sim = simulate(a, platform, trace, c.policy, overheads)
        error = (sim["total"] - measured) / measured
        spread = f"{measured:.3f} [{min(times):.3f}-{max(times):.3f}]"
        print(f"{c.label:<34} {a.pes * c.ratio:>6} {spread:>22} {sim['total']:>12.3f} {error * 100:>7.1f}%")
        figures.append({"configuration": c.label, "ranks": a.pes * c.ratio, "measured": measured,
                        "measured_runs": times, "simulated": sim["total"], "error": error,
                        "balances": sim["balances"], "migrations": sim["migrations"]})
    errors = [abs(f["error"]) for f in figures]
    print(f"\nlargest error {max(errors) * 100:.1f}%, median {statistics.median(errors) * 100:.1f}% "
          f"(target: within 10%)")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"pes": a.pes, "model": [a.nx, a.ny, a.nz, a.steps], "repeats": a.repeats,
                       "latency": a.latency, "bandwidth": a.bandwidth,
                       "object_overhead": overheads[0], "message_overhead": overheads[1],
                       "configurations": figures}, f, indent=1)


if __name__ == "__main__":
    main()
