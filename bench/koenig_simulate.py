#!/usr/bin/env python3
"""Seed 002's tables at its PE counts, simulated on SimGrid (vela-lb simulate, docs/simulation.md).

Two clusters of P/2 single-core hosts joined by the link "wan" (the shipped two-clusters
platform, cut to P/2 hosts a side), its latency L swept per run with --link-latency. SimGrid's
CM02 network model (a message takes the route's latency plus its bytes over the bandwidth): the
seed added L to every message between clusters with a delay device, and the default model's
latency factor (13.01, its fit of TCP on Ethernet) would turn an added 8 ms into 104 ms.

jacobi: Jacobi2D, Tables 6.1-6.5 (naive and block maps, with and without border prioritization),
    and the same at 128 PEs (8192², 1,024 blocks) to 256 ms.
    An M x M mesh of blocks of an N x N grid, one object per block, each block's step its points
    times a cost per point, then a halo of N/M doubles to each of its four neighbours (the
    mesh's edges have none). PE p < P/2 is in cluster a. Naive places block i on PE i mod P (the
    seed's: with 8 PEs a cluster's border is one PE's column of blocks); block gives each PE a
    rectangle of its cluster's half of the mesh (the half's full height when there are no more
    PEs than columns). Prioritization is the runtime's Grid Queue (--grid-queue 8). The cost per
    point is calibrated, one figure per grid size: the seed's naive step at L = 0 on the fewest
    PEs of that size (Tables 6.1 and 6.4); every other figure is predicted.

leanmd: LeanMD, the 128-PE sweep and Tables 8.1-8.2 (16 to 128 PEs at L = 2 and 32 ms) with no
    balancing and greedy, grid-comm, grid-metis and grid-hybrid. LeanMD is recorded on 1 PE
    (--lb-dump, CPU time), prepared at P PEs as bench/leanmd_grid_replay.sh prepares it (loads
    scaled to the seed's work per step, apps/leanmd/grid_replay.py), and simulated with its cells
    in phase 0 and its computes in phase 1 (a compute's step waits for its cells' positions of the
    same step, a cell's for its computes' forces of the step before). The policy balances every
    8 steps (the strategy sees the loads, the platform moves the objects); a step's time is the
    mean of the steps after the last balance but its first (and the run's last two).

Usage: bench/koenig_simulate.py [jacobi|leanmd|all] [--out DIR] [--quick]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "apps", "leanmd"))

# The seed's Tables 6.1-6.5: ms per step against L (ms) for naive, naive with prioritization,
# block, block with prioritization.
SEED_JACOBI = {
    (2048, 8, 64): {0: (21.94, 21.97, 21.93, 21.90), 2: (22.36, 22.28, 21.95, 21.66),
                    4: (22.17, 22.05, 21.98, 21.92), 8: (22.43, 22.43, 21.94, 21.85),
                    12: (24.89, 24.89, 23.70, 21.92), 16: (25.85, 26.03, 23.84, 23.51),
                    20: (29.09, 28.93, 24.86, 24.56), 24: (30.16, 30.33, 28.35, 28.17),
                    32: (35.72, 35.88, 35.31, 36.35)},
    (2048, 16, 64): {0: (11.02, 11.06, 10.98, 11.01), 2: (11.91, 11.69, 11.73, 11.71),
                     4: (12.90, 12.97, 12.61, 12.44), 8: (15.94, 15.74, 15.36, 14.55),
                     12: (17.40, 16.89, 16.83, 16.87), 16: (18.96, 18.97, 18.92, 18.88),
                     20: (23.00, 22.84, 22.80, 22.77), 24: (26.83, 26.79, 26.78, 26.79),
                     32: (34.79, 34.79, 34.78, 34.79)},
    (2048, 32, 256): {0: (6.91, 7.02, 6.31, 6.30), 2: (7.03, 7.07, 6.35, 6.30),
                      4: (7.04, 7.07, 6.92, 6.80), 8: (9.78, 9.74, 9.99, 10.02),
                      12: (13.82, 13.70, 13.55, 12.94), 16: (18.08, 18.07, 17.17, 16.92),
                      20: (21.76, 21.74, 21.20, 21.01), 24: (25.76, 25.66, 25.14, 24.95),
                      32: (33.75, 33.63, 33.28, 33.17)},
    (8192, 16, 64): {0: (220.20, 219.90, 217.43, 218.09), 2: (220.33, 220.45, 219.09, 218.70),
                     4: (222.30, 222.09, 219.63, 218.53), 8: (225.68, 225.20, 223.06, 219.35),
                     12: (228.62, 228.31, 226.47, 221.29), 16: (233.23, 233.16, 226.94, 222.97),
                     20: (238.26, 238.36, 227.39, 224.79), 24: (239.13, 238.07, 229.88, 228.46),
                     32: (244.33, 244.95, 234.25, 228.48)},
    (8192, 64, 256): {0: (54.75, 55.03, 52.71, 52.10), 2: (55.33, 54.89, 54.67, 54.41),
                      4: (57.94, 57.83, 54.95, 52.79), 8: (61.29, 60.81, 56.97, 53.40),
                      12: (62.45, 62.20, 55.76, 54.69), 16: (64.45, 64.51, 58.57, 56.07),
                      20: (65.95, 65.81, 61.25, 58.98), 24: (66.28, 66.55, 61.09, 59.64)},
}
SEED_TABLE = {(2048, 8, 64): "6.1", (2048, 16, 64): "6.2", (2048, 32, 256): "6.3",
              (8192, 16, 64): "6.4", (8192, 64, 256): "6.5"}
# The configuration whose naive L = 0 step calibrates each grid size's cost per point.
CALIBRATION = {2048: (2048, 8, 64), 8192: (8192, 16, 64)}
COLUMNS = ("naive", "naive + prio.", "block", "block + prio.")
# Beyond the seed's tables: the seed's clusters at 128 PEs (the LeanMD tables' size), 8192² in
# 32 x 32 blocks, to 256 ms.
SWEEP = (8192, 128, 1024)
SWEEP_LATENCIES = (0, 1, 2, 4, 8, 16, 32, 64, 128, 256)

# The seed's Tables 8.1 (L = 2 ms) and 8.2 (L = 32 ms): ms per step, by PEs and strategy.
SEED_LEANMD = {
    16: {"none": (986.0, 1011.5), "greedy": (896.1, 911.8), "grid-comm": (924.7, 922.9),
         "grid-metis": (899.3, 912.0), "grid-hybrid": (890.6, 889.4)},
    32: {"none": (546.6, 548.9), "greedy": (464.1, 459.5), "grid-comm": (470.1, 476.2),
         "grid-metis": (447.8, 447.9), "grid-hybrid": (451.4, 455.8)},
    64: {"none": (439.8, 424.3), "greedy": (233.8, 238.2), "grid-comm": (246.1, 243.5),
         "grid-metis": (227.4, 222.6), "grid-hybrid": (235.8, 234.3)},
    128: {"none": (227.5, 226.5), "greedy": (119.7, 150.0), "grid-comm": (123.5, 143.8),
          "grid-metis": (120.2, 136.4), "grid-hybrid": (119.2, 127.8)},
}
STRATEGIES = ("none", "greedy", "grid-comm", "grid-metis", "grid-hybrid")


def platform(pes, folder):
    """The two-clusters platform with pes / 2 hosts a side; returns its path."""
    with open(os.path.join(ROOT, "platforms", "two-clusters.xml")) as f:
        text = f.read()
    if 'radical="0-63"' not in text:
        raise SystemExit("koenig_simulate: platforms/two-clusters.xml no longer has 64 hosts a side")
    path = os.path.join(folder, f"two-clusters-{pes}.xml")
    with open(path, "w") as f:
        f.write(text.replace('radical="0-63"', f'radical="0-{pes // 2 - 1}"'))
    return path


def simulate(vela_lb, trace, plat, latency_ms, extra, window):
    """Mean simulated seconds per step over the steps of window (first, end), and the run's JSON.

    The window leaves out the first steps (the PEs start together, before their steps
    interleave) and the last two (with no next step to feed, they end early), and spans an even
    number of steps (a step can alternate between two lengths)."""
    cmd = [vela_lb, "simulate", trace, "--platform", plat, "-f", "json", "--cfg",
           "network/model:CM02", "--link-latency", f"wan={latency_ms / 1e3:.6g}"] + extra
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        raise SystemExit("koenig_simulate: failed: " + " ".join(cmd))
    run = json.loads(r.stdout)["policies"][0]
    times = run["series"]["time"][window[0]:window[1]]
    return sum(times) / len(times), run


# --- Jacobi2D -----------------------------------------------------------------------------------


def jacobi_placement(m, pes, kind):
    """The PE of each block (row-major ids) under the naive or block map."""
    if kind == "naive":
        return [i % pes for i in range(m * m)]
    half = pes // 2  # each cluster takes m / 2 rows
    rows = m // 2
    cols_per_pe = max(1, m // half)
    splits = max(1, half // m)  # PEs per column strip when there are more PEs than columns
    if m % cols_per_pe or rows % splits or (m // cols_per_pe) * splits != half:
        raise SystemExit(f"koenig_simulate: no block map of {m}x{m} blocks on {pes} PEs")
    out = []
    for i in range(m * m):
        r, c = divmod(i, m)
        cluster, rr = divmod(r, rows)
        out.append(cluster * half + (c // cols_per_pe) * splits + rr * splits // rows)
    return out


def jacobi_trace(n, m, pes, kind, point_seconds, steps, path):
    b = n // m
    ids = list(range(m * m))
    load = b * b * point_seconds
    edges = {"from": [], "to": [], "messages": [], "bytes": []}
    for i in ids:
        r, c = divmod(i, m)
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= rr < m and 0 <= cc < m:
                edges["from"].append(i)
                edges["to"].append(rr * m + cc)
                edges["messages"].append(1)
                edges["bytes"].append(8 * b)
    initial = {"format": "vela-instance", "version": 1, "dims": 2,
               "pes": {"speed": [1] * pes, "background": [0] * pes,
                       "cluster": [p * 2 // pes for p in range(pes)]},
               "objects": {"id": ids, "load": [load] * len(ids), "size": [16 * b * b] * len(ids),
                           "pe": jacobi_placement(m, pes, kind), "migratable": [True] * len(ids),
                           "x": [i % m for i in ids], "y": [i // m for i in ids]},
               "edges": edges}
    with open(path, "w") as f:
        json.dump({"format": "vela-trace", "version": 1, "initial": initial,
                   "steps": [{"loads": [load] * len(ids)} for _ in range(steps)]}, f)


def jacobi(a, folder):
    steps, window = (8, (2, 6)) if a.quick else (40, (10, 38))
    point = {}
    for size, config in CALIBRATION.items():
        n, pes, objects = config
        m = int(round(objects ** 0.5))
        trace = os.path.join(folder, "calibrate.json")
        jacobi_trace(n, m, pes, "naive", 1e-9, steps, trace)
        unit, _ = simulate(a.vela_lb, trace, platform(pes, folder), 0.0, [], window)
        # The step grows with the cost per point: the secant method, to 0.1%.
        target = SEED_JACOBI[config][0][0] / 1e3
        x0, y0 = 1e-9, unit
        x1 = x0 * target / y0
        for _ in range(8):
            jacobi_trace(n, m, pes, "naive", x1, steps, trace)
            y1, _ = simulate(a.vela_lb, trace, platform(pes, folder), 0.0, [], window)
            if abs(y1 - target) < 1e-3 * target or y1 == y0:
                break
            x0, y0, x1 = x1, y1, x1 + (target - y1) * (x1 - x0) / (y1 - y0)
        point[size] = x1
    print("Cost per point (calibrated on the seed's naive step at L = 0): " +
          ", ".join(f"{n}²: {1e9 * s:.2f} ns" for n, s in point.items()))
    results = {}
    configs = list(SEED_JACOBI) + [SWEEP] if not a.quick else [(2048, 8, 64), (2048, 16, 64)]
    for config in configs:
        n, pes, objects = config
        m = int(round(objects ** 0.5))
        plat = platform(pes, folder)
        seed = SEED_JACOBI.get(config)
        traces = {}
        for kind in ("naive", "block"):
            traces[kind] = os.path.join(folder, f"jacobi-{n}-{pes}-{kind}.json")
            jacobi_trace(n, m, pes, kind, point[n], steps, traces[kind])
        rows = {}
        for latency in sorted(seed) if seed else SWEEP_LATENCIES:
            row = []
            for kind, trace in traces.items():
                for extra in ([], ["--grid-queue", "8"]):
                    t, _ = simulate(a.vela_lb, trace, plat, latency, extra, window)
                    row.append(1e3 * t)
            rows[latency] = row
        results[f"{n}-{pes}-{objects}"] = rows
        if seed:
            print(f"\nTable {SEED_TABLE[config]}: Jacobi2D {n}x{n}, {pes} PEs, {objects} objects "
                  "(ms per step: simulated / seed)")
        else:
            print(f"\nJacobi2D {n}x{n}, {pes} PEs (64 + 64), {objects} objects, to 256 ms "
                  "(ms per step, simulated)")
        print("| L (ms) | " + " | ".join(COLUMNS) + " |")
        print("|---:|" + "---:|" * len(COLUMNS))
        for latency, row in rows.items():
            cells = ([f"{x:.2f} / {s:.2f}" for x, s in zip(row, seed[latency])] if seed else
                     [f"{x:.2f}" for x in row])
            print(f"| {latency} | " + " | ".join(cells) + " |")
    return {"point_seconds": {str(k): v for k, v in point.items()}, "tables": results}


# --- LeanMD -------------------------------------------------------------------------------------


def leanmd_dumps(a, folder):
    dumps = os.path.join(folder, "dumps")
    cmd = [a.leanmd, "--cells", "6", "--atoms-per-cell", "40", "--dense-atoms", "160",
           "--steps", "50", "--sync-every", "10", "--pes", "1", "--no-pin", "--quiet",
           "--lb", "greedy", "--lb-cpu-time", "--lb-dump", dumps]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stdout + r.stderr)
        raise SystemExit("koenig_simulate: LeanMD failed: " + " ".join(cmd))
    # The windows of steps 10-19, 20-29 and 30-39 (the first holds the start-up).
    return [os.path.join(dumps, f"leanmd-step{k}.json") for k in (2, 3, 4)]


def leanmd_trace(instance, steps, path):
    """Writes the prepared instance as a trace of `steps` equal steps; returns the --phase that
    puts the computes (the ids after the cells, LeanMD's numbering) in phase 1."""
    import grid_replay

    with open(path, "w") as f:
        json.dump({"format": "vela-trace", "version": 1, "initial": instance,
                   "steps": [{"loads": instance["objects"]["load"]} for _ in range(steps)]}, f)
    ids = instance["objects"]["id"]
    return f"{grid_replay.cell_count(len(ids))}-{max(ids)}=1"


def leanmd(a, folder):
    import grid_replay

    steps, every = (12, 6) if a.quick else (24, 8)
    first = (steps - 1) // every * every + 1  # after the last balance, less its first step
    window = (first, first + (steps - 2 - first) // 2 * 2)
    dumps = leanmd_dumps(a, folder)
    sweep = [2, 32] if a.quick else [0, 1, 2, 4, 8, 16, 32, 64, 128, 256]
    results = {}
    for pes in (128, 64, 32, 16):
        if a.quick and pes != 128:
            continue
        inst = grid_replay.prepare(dumps, [pes // 2, pes // 2], work_per_pe=128 * 0.119 / pes)
        trace = os.path.join(folder, f"leanmd-{pes}.json")
        phase = leanmd_trace(inst, steps, trace)
        plat = platform(pes, folder)
        latencies = sweep if pes == 128 else [2, 32]
        rows = {}
        for s in STRATEGIES:
            extra = ["--phase", phase, "--strategy-time", "0"]
            if s != "none":
                extra += ["--policy", "periodic", "-P", f"strategy={s}", "-P", f"every={every}"]
            row = {}
            for latency in latencies:
                t, run = simulate(a.vela_lb, trace, plat, latency, extra, window)
                row[latency] = {"ms": 1e3 * t, "migrations": run["migrations"],
                                "wan_bytes_per_step": run["cluster_bytes"] / steps}
            rows[s] = row
        results[pes] = rows
        if pes == 128:
            print(f"\nLeanMD, 128 PEs (64 + 64): ms per step against L (ms)")
            print("| strategy | " + " | ".join(f"{l:g}" for l in latencies) + " |")
            print("|---|" + "---|" * len(latencies))
            for s, row in rows.items():
                print(f"| {s} | " + " | ".join(f"{row[l]['ms']:.1f}" for l in latencies) + " |")
            print("\n| strategy | migrations | WAN bytes per step (L = 2 ms, run mean) |")
            print("|---|---:|---:|")
            for s, row in rows.items():
                cell = row[2]
                print(f"| {s} | {cell['migrations']} | {cell['wan_bytes_per_step']:.0f} |")
    print("\nLeanMD, Tables 8.1 (L = 2 ms) and 8.2 (L = 32 ms): ms per step, simulated / seed")
    print("| PEs | strategy | 2 ms | 32 ms |")
    print("|---:|---|---:|---:|")
    for pes in sorted(results):
        for s, row in results[pes].items():
            seed = SEED_LEANMD[pes][s]
            print(f"| {pes} | {s} | {row[2]['ms']:.1f} / {seed[0]:.1f} | "
                  f"{row[32]['ms']:.1f} / {seed[1]:.1f} |")
    return {str(p): {s: {str(l): c for l, c in row.items()} for s, row in rows.items()}
            for p, rows in results.items()}


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", nargs="?", default="all", choices=("jacobi", "leanmd", "all"))
    p.add_argument("--vela-lb", default=os.path.join(ROOT, "build", "tools", "vela-lb", "vela-lb"))
    p.add_argument("--leanmd", default=os.path.join(ROOT, "build", "apps", "leanmd", "leanmd"))
    p.add_argument("--out", help="keep the traces, platforms and figures (figures.json) here")
    p.add_argument("--quick", action="store_true",
                   help="fewer steps, tables and latencies (a check that the script runs)")
    a = p.parse_args()
    needed = [("--vela-lb", a.vela_lb)] + ([("--leanmd", a.leanmd)] if a.what != "jacobi" else [])
    for option, binary in needed:
        if not os.access(binary, os.X_OK):
            p.error(f"{option}: {binary} is not built (cmake --build build --target vela-lb leanmd)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = a.out or tmp
        os.makedirs(folder, exist_ok=True)
        figures = {}
        if a.what in ("jacobi", "all"):
            figures["jacobi"] = jacobi(a, folder)
        if a.what in ("leanmd", "all"):
            figures["leanmd"] = leanmd(a, folder)
        if a.out:
            with open(os.path.join(folder, "figures.json"), "w") as f:
                json.dump(figures, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
