#!/usr/bin/env python3
"""Seed 000's tables at the seed's scale by simulation on SimGrid (docs/simulation.md).

1. Records the BRAMS proxy here with each rank count of --ranks (brams --record, the ranks'
   CPU seconds per step, placed in blocks over --pes PEs), unless the traces are already in --out.
2. The baseline without virtualization, exactly: the proxy's plain-MPI source built with SimGrid's
   smpicxx and run by smpirun as --pes processes on the platform (the real code, simulated; its
   compute is timed here and charged at the platform's core speed).
3. `vela-lb simulate` of each recording on the same platform, never balanced (Table 4.3:
   virtualization alone), and of the --table-ranks recording balanced every quarter of the run
   by each strategy (Table 4.5/4.6, with Figure 4.6's cross-processor bytes) and by hilbert under the threshold policy (Table 4.7).
   Both runs carry the proxy's per-step MPI_Allreduce (--step-reduction 8) and SimGrid's SMPI
   network model, as smpirun does.

Prints each table beside the seed's figures; writes the figures as JSON with --json.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

from experiments import table  # the same table printer as the 2-core experiments

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
STRATEGIES = ["greedy", "refine-comm", "rec-bisect-bf", "metis", "hilbert", "refine-swap"]
THRESHOLDS = [50, 20, 10, 5]
# Seed 000, 64 processors: Table 4.3's time reductions by virtualization alone (the time fell
# by these percentages), and Table 4.5's
# reductions by each balancer (of the time without virtualization).
SEED_4_3 = {256: 22.4, 1024: 25.3, 2048: 10.7}
SEED_4_5 = {"greedy": 24.5, "refine-comm": 25.5, "rec-bisect-bf": 9.2, "metis": 32.0, "hilbert": 32.5}


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--binary", default="build/apps/brams/brams", help="the brams executable")
    p.add_argument("--vela-lb", default="build/tools/vela-lb/vela-lb", help="the vela-lb executable")
    p.add_argument("--smpicxx", default="smpicxx", help="SimGrid's MPI C++ compiler")
    p.add_argument("--smpirun", default="smpirun", help="SimGrid's MPI launcher")
    p.add_argument("--platform", default=os.path.join(ROOT, "platforms", "xt5.xml"),
                   help="SimGrid platform file (default: the shipped Cray XT5-like torus)")
    p.add_argument("--pes", type=int, default=64, help="simulated processors (default 64, the seed's)")
    p.add_argument("--ranks", default="256,1024,2048", help="virtualized rank counts (comma-separated)")
    p.add_argument("--table-ranks", type=int, default=1024, help="ranks of Tables 4.5-4.7 (default 1024)")
    p.add_argument("--nx", type=int, default=512)
    p.add_argument("--ny", type=int, default=512)
    p.add_argument("--nz", type=int, default=40)
    p.add_argument("--steps", type=int, default=240, help="steps (the seed ran 2,400)")
    p.add_argument("--storm-work", type=int, default=6)
    p.add_argument("--storm-drift", type=int, default=15)
    p.add_argument("--strategy-time", default="measured", help="as vela-lb simulate's (default: measured)")
    p.add_argument("--out", default="out/brams-sim", help="directory for the traces and the baseline build")
    p.add_argument("--json", default=None, help="write the figures to this file")
    a = p.parse_args()
    try:
        a.rank_list = sorted({int(r) for r in a.ranks.split(",")})
    except ValueError:
        p.error(f"--ranks: expected whole numbers separated by commas, got '{a.ranks}'")
    for name in ("pes", "table_ranks", "nx", "ny", "nz", "steps"):
        if getattr(a, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(a, name)}")
    if min(a.rank_list) < a.pes:
        p.error(f"--ranks: every count must be at least --pes ({a.pes}), got {a.ranks}")
    if a.table_ranks not in a.rank_list:
        a.rank_list = sorted(set(a.rank_list) | {a.table_ranks})
    for path in (a.binary, a.vela_lb):
        if not os.access(path, os.X_OK):
            p.error(f"'{path}' is not an executable (build it first: cmake --build build --target brams vela-lb)")
    if not os.path.isfile(a.platform):
        p.error(f"--platform '{a.platform}': no such file")
    return a


def model(a):
    return ["--nx", str(a.nx), "--ny", str(a.ny), "--nz", str(a.nz), "--steps", str(a.steps),
            "--storm-work", str(a.storm_work), "--storm-drift", str(a.storm_drift), "--lb-every", "0"]


def run(cmd, what):
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout + proc.stderr)
        raise SystemExit(f"simulate_tables: {what} failed (exit {proc.returncode}): {' '.join(cmd)}")
    return proc.stdout


def record(a, ranks):
    """The trace of `ranks` ranks, recorded here on 2 PEs (reused when already in --out)."""
    trace = os.path.join(a.out, f"brams-{ranks}.json")
    if not os.path.exists(trace):
        print(f"recording {ranks} ranks ...", file=sys.stderr)
        run([a.binary, "--pes", "2", "--ranks", str(ranks), "--no-pin", "--quiet", "--record", trace,
             "--record-pes", str(a.pes)] + model(a), "recording")
    return trace


def cluster_hosts(platform):
    """(host name, cores) of the platform's <cluster> elements, and the first one's speed."""
    hosts, speed = [], None
    for c in ET.parse(platform).getroot().iter("cluster"):
        speed = speed or c.get("speed")
        cores = int(c.get("core", "1"))
        for part in c.get("radical").split(","):
            lo, _, hi = part.partition("-")
            for n in range(int(lo), int(hi or lo) + 1):
                hosts.append((f"{c.get('prefix')}{n}{c.get('suffix', '')}", cores))
    if not hosts:
        raise SystemExit(f"simulate_tables: platform {platform} has no <cluster> to lay the baseline's processes on")
    return hosts, speed


def baseline(a):
    """The proxy's plain-MPI source under smpirun on --pes processes: its simulated time."""
    program = os.path.join(a.out, "brams_smpi")
    src = os.path.join(ROOT, "apps", "brams")
    run([a.smpicxx, "-std=c++20", "-O3", "-DBRAMS_STANDALONE", "-I", os.path.join(ROOT, "include"),
         os.path.join(src, "model.cpp"), os.path.join(src, "netcdf_output.cpp"), "-o", program],
        "building the baseline with smpicxx")
    hosts, speed = cluster_hosts(a.platform)
    hostfile = os.path.join(a.out, "hostfile")
    with open(hostfile, "w") as f:
        placed = 0
        for name, cores in hosts:
            if placed >= a.pes:
                break
            f.write(f"{name}:{min(cores, a.pes - placed)}\n")
            placed += cores
    out = run([a.smpirun, "-np", str(a.pes), "-platform", a.platform, "-hostfile", hostfile,
               f"--cfg=smpi/host-speed:{speed}", "--log=root.thresh:warning", program] + model(a),
              "the baseline under smpirun")
    m = re.search(r"^time: ([0-9.]+)", out, re.M)
    if not m:
        raise SystemExit(f"simulate_tables: the baseline printed no time:\n{out}")
    return float(m.group(1)), re.search(r"^checksum: (\S+)", out, re.M).group(1)


def simulate(a, trace, policies):
    cmd = [a.vela_lb, "simulate", trace, "--platform", a.platform, "--step-reduction", "8",
           "--cfg", "network/model:SMPI", "--strategy-time", a.strategy_time, "--format", "json"]
    for p in policies:
        cmd += ["--compare", p]
    doc = json.loads(run(cmd, "vela-lb simulate"))
    return {p["policy"]: p for p in doc["policies"]}


def secs(t):
    return f"{t:.3f}" if t < 10 else f"{t:.2f}"


def pct(base, x):
    return f"{(base - x) / base * 100:.1f}%"


def main():
    a = parse_args()
    os.makedirs(a.out, exist_ok=True)
    results = {"platform": a.platform, "pes": a.pes, "model": model(a)}
    base_time, checksum = baseline(a)
    results["baseline"] = {"time": base_time, "checksum": checksum}
    traces = {r: record(a, r) for r in sorted(set(a.rank_list) | {a.pes})}

    # Table 4.3: virtualization alone.
    plain = {r: simulate(a, traces[r], ["never"])["never"]["total"] for r in traces}
    rows = [["no virtualization: the real code (smpirun)", a.pes, secs(base_time), "-", "-"],
            ["no virtualization: simulated trace", a.pes, secs(plain[a.pes]),
             f"{(plain[a.pes] - base_time) / base_time * 100:+.1f}% of smpirun", "-"]]
    for r in a.rank_list:
        if r == a.pes:
            continue
        rows.append([f"virtualization {r // a.pes}", r, secs(plain[r]),
                     pct(base_time, plain[r]), f"{SEED_4_3[r]:.1f}%" if r in SEED_4_3 else "-"])
    table(f"Table 4.3 at {a.pes} processors (simulated, {os.path.basename(a.platform)}): time and "
          "reduction against the real code without virtualization",
          ["configuration", "ranks", "time (s)", "reduction", "seed"], rows)
    results["table_4_3"] = {"simulated": plain}

    # Tables 4.5/4.6: each balancer every quarter of the run.
    quarter = max(1, a.steps // 4)
    trace = traces[a.table_ranks]
    policies = ["never"] + [f"periodic:every={quarter},strategy={s}" for s in STRATEGIES]
    sims = simulate(a, trace, policies)
    never = sims["never"]["total"]
    never_bytes = sims["never"]["bytes_sent"]
    rows = [[f"no virtualization (smpirun)", secs(base_time), "-", "-", "-", "-", "-"],
            [f"{a.table_ranks} ranks, never balanced", secs(never), pct(base_time, never), "-", "-",
             "1.00", "-"]]
    saved = []
    for s in STRATEGIES:
        x = sims[f"periodic:every={quarter},strategy={s}"]
        rows.append([f"{s} - every {quarter}", secs(x['total']), pct(base_time, x["total"]),
                     x["migrations"], f"{x['balancing']:.3f}",
                     f"{x['bytes_sent'] / never_bytes:.2f}" if never_bytes else "-",
                     f"{SEED_4_5[s]:.1f}%" if s in SEED_4_5 else "-"])
        saved.append({"strategy": s, "total": x["total"], "migrations": x["migrations"],
                      "balancing": x["balancing"], "strategy_seconds": x["strategy"],
                      "bytes_sent": x["bytes_sent"]})
    table(f"Table 4.5/4.6 at {a.pes} processors (simulated): {a.table_ranks} ranks balanced every "
          f"{quarter} steps; reduction against the real code without virtualization",
          ["configuration", "time (s)", "reduction", "migrations", "balancing (s)",
           "cross-PE bytes (Fig. 4.6, x never)", "seed"], rows)
    results["table_4_5"] = {"never": never, "never_bytes": never_bytes, "balancers": saved}

    # Table 4.7: hilbert under the threshold policy, interval x threshold.
    intervals = sorted({max(1, a.steps // 24), max(1, a.steps // 80), 1}, reverse=True)
    grid = [f"threshold:every={e},threshold={t},strategy=hilbert" for e in intervals for t in THRESHOLDS]
    sims = simulate(a, trace, grid)
    rows, saved = [], []
    for e in intervals:
        row = [e]
        for t in THRESHOLDS:
            x = sims[f"threshold:every={e},threshold={t},strategy=hilbert"]
            row.append(f"{secs(x['total'])} ({pct(base_time, x['total'])}, {x['balances']})")
            saved.append({"every": e, "threshold": t, "total": x["total"], "balances": x["balances"]})
        rows.append(row)
    table(f"Table 4.7 at {a.pes} processors (simulated): hilbert, interval x threshold: time (s) "
          "(reduction against the real code without virtualization, balances)",
          ["interval"] + [f"{t}%" for t in THRESHOLDS], rows)
    results["table_4_7"] = saved
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
        print(f"\nfigures: {a.json}")


if __name__ == "__main__":
    main()
