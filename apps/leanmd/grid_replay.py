#!/usr/bin/env python3
"""LeanMD's step on many PEs in two clusters, replayed from recorded loads and messages.

A plain replay prices a step as its busiest PE's load; that ignores what the grid strategies are
for: a PE runs the objects whose inputs are local while a message from the other cluster is on
its way (latency masking). This replays LeanMD's step structure event by event instead:

  * a cell's task runs once the forces of the previous step from all its computes are in (at
    time 0 for the first step): it integrates and sends its positions to its computes;
  * a compute's task runs once the positions of both its cells are in (one cell for a cell
    paired with itself) and sends each cell its forces;
  * a PE runs one ready task at a time, in the order they became ready (ties: lower object id
    first), each for the object's recorded load per step divided by the PE's speed;
  * a message between objects on one PE arrives when sent (its cost is in the loads); between
    PEs of one cluster after --alpha + bytes x --beta; between clusters after L more.

The step time is the mean time between the ends of consecutive steps (the last cell's task)
after the first steps (--warmup). Not modelled: contention for the network (every message
travels alone), the runtime's own work (the instance's PE background), atoms moving between
cells (their messages every few steps are left out), and the balancing step itself.

Objects follow LeanMD's numbering: with C^3 cells, objects 0 .. C^3-1 are the cells and object
C^3 + k is compute k, whose first cell is k // 14; the rest of the structure comes from the
recorded edges (a cell's edges to computes, a compute's edges to cells).

Subcommands:
  prepare DUMP... -o OUT --clusters 64,64   an instance at another PE count: loads and bytes
      per step (each object's median over the dumps), PEs in the given clusters, objects
      placed as LeanMD places them (cells in ranges, computes with their first cell);
      --work-per-pe MS scales every load alike so that a PE's share is MS per step
  simulate INSTANCE... --latency MS,...    the step time of each placement (instance file)
  table --vela-lb BIN INSTANCE -s S,...    runs each strategy on the prepared instance
      (vela-lb run -o) and prints the step time against L for each placement
"""
import argparse
import heapq
import json
import os
import subprocess
import sys
import tempfile

PAIR_SLOTS = 14  # computes per cell in LeanMD's numbering


def read(path):
    with open(path) as f:
        return json.load(f)


def cell_count(n_objects, cells=None):
    """C^3 from 15 C^3 objects (or --cells)."""
    if cells is not None:
        return cells
    c = round((n_objects / (1 + PAIR_SLOTS)) ** (1 / 3))
    if c ** 3 * (1 + PAIR_SLOTS) != n_objects:
        raise SystemExit(f"grid_replay: {n_objects} objects is not 15 C^3 (LeanMD's); give --cells")
    return c ** 3


def window_steps(inst, ncells):
    """Steps a dump covers: the messages on a cell-to-compute edge (one a step)."""
    ids = inst["objects"]["id"]
    e = inst["edges"]
    for f, t, m in zip(e["from"], e["to"], e["messages"]):
        if f < ncells <= t:
            return m
    raise SystemExit("grid_replay: the instance has no cell-to-compute edge")


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def prepare(dumps, clusters, cells=None, scale=1.0, work_per_pe=None):
    insts = [read(d) for d in dumps]
    first = insts[0]
    n = len(first["objects"]["id"])
    ncells = cell_count(n, cells)
    per_object = {}
    for inst in insts:
        steps = window_steps(inst, ncells)
        for i, load in zip(inst["objects"]["id"], inst["objects"]["load"]):
            per_object.setdefault(i, []).append(load / steps)
    ids = sorted(per_object)
    pes = sum(clusters)
    cluster_of = [c for c, k in enumerate(clusters) for _ in range(k)]

    def placed(i):
        cell = i if i < ncells else (i - ncells) // PAIR_SLOTS
        return cell * pes // ncells

    steps = window_steps(first, ncells)
    e = first["edges"]
    edges = {"from": [], "to": [], "messages": [], "bytes": []}
    for f, t, m, b in zip(e["from"], e["to"], e["messages"], e["bytes"]):
        if (f < ncells) == (t < ncells):
            continue  # atoms moving between cells: not part of the step
        edges["from"].append(f)
        edges["to"].append(t)
        edges["messages"].append(max(1, m // steps))
        edges["bytes"].append(b // steps)
    sizes = dict(zip(first["objects"]["id"], first["objects"]["size"]))
    if work_per_pe is not None:  # a scale that gives each PE this much work on average
        scale = work_per_pe * pes / sum(median(per_object[i]) for i in ids)
    return {
        "format": "vela-instance", "version": 1, "dims": 1,
        "pes": {"speed": [1] * pes, "background": [0] * pes, "cluster": cluster_of},
        "objects": {"id": ids, "load": [scale * median(per_object[i]) for i in ids],
                    "size": [sizes[i] for i in ids], "pe": [placed(i) for i in ids],
                    "migratable": [True] * len(ids), "x": ids},
        "edges": edges,
    }


class Model:
    """The step structure of one placement."""

    def __init__(self, inst, cells=None):
        o = inst["objects"]
        self.ids = o["id"]
        n = len(self.ids)
        self.ncells = cell_count(n, cells)
        position = {i: k for k, i in enumerate(self.ids)}
        self.load = [l / inst["pes"]["speed"][p] for l, p in zip(o["load"], o["pe"])]
        self.pe = o["pe"]
        self.cluster = inst["pes"]["cluster"]
        self.npes = len(self.cluster)
        self.is_cell = [i < self.ncells for i in self.ids]
        self.out = [[] for _ in range(n)]  # (destination, bytes per message)
        self.needs = [0] * n
        e = inst["edges"]
        for f, t, m, b in zip(e["from"], e["to"], e["messages"], e["bytes"]):
            a, z = position[f], position[t]
            if self.is_cell[a] == self.is_cell[z]:
                continue
            self.out[a].append((z, b / max(1, m)))
            self.needs[z] += 1
        for k in range(n):
            if self.needs[k] == 0 and not self.is_cell[k]:
                raise SystemExit(f"grid_replay: compute {self.ids[k]} receives no positions")

    def border(self):
        """Objects with a message to or from the other cluster."""
        b = set()
        for a, outs in enumerate(self.out):
            for z, _ in outs:
                if self.cluster[self.pe[a]] != self.cluster[self.pe[z]]:
                    b.add(a)
                    b.add(z)
        return b

    def step_time(self, latency, alpha=1e-5, beta=1e-9, steps=8, warmup=3):
        """Mean seconds per step from step `warmup` to `steps`, with a WAN latency in seconds."""
        n = len(self.ids)
        pe, cluster, load, out = self.pe, self.cluster, self.load, self.out
        got = [0] * (2 * n)  # inputs of object k for a step of parity s % 2: got[2k + s % 2]
        events = []  # (time, sequence, kind, object, step): 0 arrival, 1 task end
        ready = [[] for _ in range(self.npes)]  # (ready time, object id, object, step)
        busy = [False] * self.npes
        seq = 0
        end_of_step = [0.0] * (steps + 1)
        left = [self.ncells] * (steps + 1)

        def start(p, now):
            nonlocal seq
            if busy[p] or not ready[p]:
                return
            _, _, k, s = heapq.heappop(ready[p])
            busy[p] = True
            seq += 1
            heapq.heappush(events, (now + load[k], seq, 1, k, s))

        for k in range(n):
            if self.is_cell[k]:
                heapq.heappush(ready[pe[k]], (0.0, self.ids[k], k, 0))
        for p in range(self.npes):
            start(p, 0.0)
        while events:
            now, _, kind, k, s = heapq.heappop(events)
            if kind == 1:
                p = pe[k]
                busy[p] = False
                if self.is_cell[k]:
                    end_of_step[s] = max(end_of_step[s], now)
                    left[s] -= 1
                    if s == steps:
                        start(p, now)
                        continue
                    sent = s  # positions of step s
                else:
                    sent = s + 1  # forces of step s feed the cells' task s + 1
                for z, nbytes in out[k]:
                    q = pe[z]
                    delay = 0.0
                    if q != p:
                        delay = alpha + nbytes * beta
                        if cluster[q] != cluster[p]:
                            delay += latency
                    seq += 1
                    heapq.heappush(events, (now + delay, seq, 0, z, sent))
                start(p, now)
            else:
                slot = 2 * k + s % 2
                got[slot] += 1
                if got[slot] == self.needs[k]:
                    got[slot] = 0
                    heapq.heappush(ready[pe[k]], (now, self.ids[k], k, s))
                    start(pe[k], now)
        if any(left):
            raise SystemExit("grid_replay: the simulation stalled (a cell never got its forces)")
        return (end_of_step[steps] - end_of_step[warmup]) / (steps - warmup)


def parse_list(text, kind=float):
    return [kind(x) for x in text.split(",") if x]


def cmd_prepare(a):
    inst = prepare(a.dumps, parse_list(a.clusters, int), a.cells, a.scale,
                   None if a.work_per_pe is None else a.work_per_pe / 1e3)
    with open(a.output, "w") as f:
        json.dump(inst, f)
    loads = inst["objects"]["load"]
    print(f"wrote {a.output}: {len(loads)} objects on {len(inst['pes']['speed'])} PEs, "
          f"{sum(loads) * 1e3:.3f} ms of work per step")


def cmd_simulate(a):
    latencies = parse_list(a.latency)
    print("| placement | " + " | ".join(f"L = {l:g}" for l in latencies) + " |")
    print("|---|" + "---|" * len(latencies))
    for path in a.instances:
        m = Model(read(path), a.cells)
        times = [m.step_time(l / 1e3, a.alpha, a.beta, a.steps, a.warmup) for l in latencies]
        print(f"| {os.path.basename(path)} | " + " | ".join(f"{1e3 * t:.2f}" for t in times) + " |")


def cmd_table(a):
    latencies = parse_list(a.latency)
    strategies = a.strategies.split(",")
    base = read(a.instance)
    rows, saved = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        for s in strategies:
            path = a.instance
            if s != "none":
                path = os.path.join(tmp, s + ".json")
                r = subprocess.run([a.vela_lb, "run", "-s", s, a.instance, "-o", path],
                                   capture_output=True, text=True)
                if r.returncode != 0:
                    sys.stderr.write(r.stdout + r.stderr)
                    raise SystemExit(f"grid_replay: vela-lb run -s {s} failed")
            inst = read(path)
            m = Model(inst, a.cells)
            pes = [0.0] * m.npes
            for k, l in enumerate(m.load):
                pes[m.pe[k]] += l
            wan = sum(b for k, outs in enumerate(m.out) for z, b in outs
                      if m.cluster[m.pe[k]] != m.cluster[m.pe[z]])
            moved = sum(1 for p0, p1 in zip(base["objects"]["pe"], inst["objects"]["pe"])
                        if p0 != p1)
            times = [m.step_time(l / 1e3, a.alpha, a.beta, a.steps, a.warmup) for l in latencies]
            border = m.border()
            per_pe = [0] * m.npes
            for k in border:
                per_pe[m.pe[k]] += 1
            rows.append((s, max(pes), wan, len(border), max(per_pe), moved, times))
            saved[s] = {"max_pe_load": max(pes), "wan_bytes": wan, "border": len(border),
                        "most_border_per_pe": max(per_pe), "migrations": moved,
                        "step_ms": dict(zip(map(str, latencies), (1e3 * t for t in times)))}
    print("ms per step against the WAN latency L (ms):")
    print("| strategy | " + " | ".join(f"{l:g}" for l in latencies) + " |")
    print("|---|" + "---|" * len(latencies))
    for s, _, _, _, _, _, times in rows:
        print(f"| {s} | " + " | ".join(f"{1e3 * t:.1f}" for t in times) + " |")
    print()
    print("| strategy | busiest PE (ms) | WAN bytes per step | border objects | most on a PE | "
          "migrations |")
    print("|---|---|---|---|---|---|")
    for s, most, wan, border, per_pe, moved, _ in rows:
        print(f"| {s} | {1e3 * most:.1f} | {wan:.0f} | {border} | {per_pe} | {moved} |")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(saved, f, indent=1)


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--cells", type=int, help="cells (C^3); default: objects / 15")
    sub = p.add_subparsers(dest="command", required=True)
    q = sub.add_parser("prepare", help="an instance at another PE count from --lb-dump files")
    q.add_argument("dumps", nargs="+")
    q.add_argument("-o", "--output", required=True)
    q.add_argument("--clusters", default="64,64", help="PEs per cluster (default 64,64)")
    q.add_argument("--scale", type=float, default=1.0, help="multiplies every load")
    q.add_argument("--work-per-pe", type=float,
                   help="instead of --scale: scale the loads to this many ms per PE per step")
    q.set_defaults(run=cmd_prepare)
    for name, f in (("simulate", cmd_simulate), ("table", cmd_table)):
        q = sub.add_parser(name)
        if name == "simulate":
            q.add_argument("instances", nargs="+", help="instances whose pe column is the placement")
        else:
            q.add_argument("instance", help="a prepared instance (its placement: no balancing)")
            q.add_argument("-s", "--strategies", default="none,greedy,grid-comm,grid-metis,grid-hybrid")
            q.add_argument("--vela-lb", default="build/tools/vela-lb/vela-lb")
            q.add_argument("--json", help="write the figures to this file")
        q.add_argument("--latency", default="0,1,2,4,8,16,32,64,128", help="WAN latencies, ms")
        q.add_argument("--alpha", type=float, default=1e-5, help="seconds per message between PEs")
        q.add_argument("--beta", type=float, default=1e-9, help="seconds per byte between PEs")
        q.add_argument("--steps", type=int, default=8, help="steps simulated")
        q.add_argument("--warmup", type=int, default=3, help="first steps left out of the mean")
        q.set_defaults(run=f)
    a = p.parse_args()
    if getattr(a, "warmup", 0) >= getattr(a, "steps", 1):
        p.error("--warmup must be below --steps")
    a.run(a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
