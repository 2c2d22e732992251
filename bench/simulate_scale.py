#!/usr/bin/env python3
"""How big a run the simulator takes: `vela-lb simulate` of a generated trace at --pes PEs and
--objects objects (a square grid of blocks with halos, a storm) for --steps steps, on each
--platforms platform, never balanced and balanced every quarter of the run by each of
--strategies (hilbert by default: it keeps neighbours together; greedy scatters them, so that
every halo crosses the network and the simulation takes several times longer). Prints the
simulator's wall time and peak memory per run (targets: 4,096 PEs, 65,536 objects and 100 steps
in under 5 minutes and 4 GiB) with the simulated time.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time


def positive(text):
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive count, got {text}")
    return value


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default="build", help="Vela's build directory (tools/vela-lb/vela-lb)")
    p.add_argument("--pes", type=positive, default=4096)
    p.add_argument("--objects", type=positive, default=65536, help="a square number of objects")
    p.add_argument("--steps", type=positive, default=100)
    p.add_argument("--platforms", default="xt5,fat-tree", help="shipped platforms or files (comma-separated)")
    p.add_argument("--strategies", default="hilbert", help="strategies balancing every quarter (comma-separated)")
    a = p.parse_args()
    side = math.isqrt(a.objects)
    if side * side != a.objects:
        p.error(f"--objects: expected a square number (a grid of blocks), got {a.objects}")
    vela_lb = os.path.join(a.build, "tools", "vela-lb", "vela-lb")
    if not os.access(vela_lb, os.X_OK):
        p.error(f"--build: {vela_lb} not found (cmake --build {a.build} --target vela-lb)")

    with tempfile.TemporaryDirectory() as scratch:
        trace = os.path.join(scratch, "scale.trace")
        subprocess.run([vela_lb, "trace", "generate", "-o", trace, "--nx", str(side), "--ny", str(side),
                        "--pes", str(a.pes), "--steps", str(a.steps), "--base-load", "0.01",
                        "--halo-bytes", "20000", "--object-bytes", "100000", "--quiet"], check=True)
        quarter = max(1, a.steps // 4)
        print(f"{a.pes} PEs, {a.objects} objects ({side} x {side}), {a.steps} steps; one run at a time\n")
        print(f"| platform | policy | simulated (s) | messages | wall (s) | peak memory (MiB) |")
        print(f"|---|---|---:|---:|---:|---:|")
        for platform in a.platforms.split(","):
            policies = [["--policy", "never"]] + [
                ["--policy", "periodic", "-P", f"every={quarter}", "-P", f"strategy={s}", "--strategy-time",
                 "measured"] for s in a.strategies.split(",") if s]
            for policy in policies:
                started = time.monotonic()
                proc = subprocess.run([vela_lb, "simulate", trace, "--platform", platform, "--format", "json"]
                                      + policy, capture_output=True, text=True)
                wall = time.monotonic() - started
                if proc.returncode != 0:
                    sys.stderr.write(proc.stdout + proc.stderr)
                    raise SystemExit(f"simulate_scale: vela-lb simulate failed on {platform}")
                r = json.loads(proc.stdout)["policies"][0]
                label = policy[1] if policy[1] == "never" else f"{policy[5][len('strategy='):]} every {quarter}"
                print(f"| {platform} | {label} | {r['total']:.2f} | {r['messages']} | {wall:.1f} | "
                      f"{r['peak_memory'] / 2**20:.0f} |", flush=True)


if __name__ == "__main__":
    main()
