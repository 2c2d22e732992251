#!/usr/bin/env python3
"""Memory allocation in ranks against plain glibc: bench/alloc/alloc_ranks.c (blocks of 16 B to
16 MiB, one byte written per page, each malloc after a free of the same size) built with
vela-mpicc and with Open MPI's mpicc, run in every layout below, alternately, ROUNDS times.
Prints a table per block size: nanoseconds per malloc/free pair (median, range over the
rounds) and minor page faults per thousand allocations (median), and the load average at the
start of each round.

    bench/alloc_ranks.py [--build DIR] [--rounds N]

Layouts: plain glibc in one plain process (Open MPI, 1 process); Vela ranks on 2 PEs of one
process with 1, 2, 4 and 8 ranks per PE (glibc's malloc, tuned by the runtime to keep freed
memory); the same with each rank's own heap (--vp-heap, the heap that moves with the rank);
Vela ranks over 2 processes (mpirun, rank heaps), 4 ranks per PE. Exit status 2 on a usage or
build error, 1 when a run fails.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "bench" / "alloc" / "alloc_ranks.c"
HEAP = "512m"  # 8 blocks of 16 MiB: 8 blocks of 32 MiB with headers, under half of it


def layouts(vela: Path, plain: Path) -> list[tuple[str, list[str]]]:
    rows = [("glibc, plain process", ["mpirun", "-np", "1", str(plain)])]
    for per_pe in (1, 2, 4, 8):
        rows.append((f"Vela, {per_pe}/PE", [str(vela), "--vp", str(2 * per_pe), "--pes", "2"]))
    for per_pe in (1, 8):
        rows.append((f"Vela heaps, {per_pe}/PE",
                     [str(vela), "--vp", str(2 * per_pe), "--pes", "2", "--vp-heap", HEAP]))
    rows.append(("Vela, 2 processes, 4/PE",
                 ["mpirun", "-np", "2", str(vela), "--vp", "8", "--vp-heap", HEAP]))
    return rows


def run(command: list[str]) -> dict[int, tuple[float, float]]:
    r = subprocess.run(command, capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        sys.exit(f"alloc_ranks.py: {' '.join(command)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    out = {}
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) == 6 and f[0] == "size":
            out[int(f[1])] = (float(f[3]), float(f[5]))
    if not out:
        sys.exit(f"alloc_ranks.py: {' '.join(command)} printed no sizes:\n{r.stdout}{r.stderr}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", type=Path, default=REPO / "build",
                        help="Vela's build directory (bin/vela-mpicc)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds over every layout")
    a = parser.parse_args()
    if a.rounds < 1:
        parser.error(f"--rounds: expected a positive count, got {a.rounds}")
    vela_cc = a.build / "bin" / "vela-mpicc"
    if not vela_cc.is_file():
        parser.error(f"--build: {vela_cc} not found (build the target vela_mpi_wrappers)")
    if shutil.which("mpicc") is None or shutil.which("mpirun") is None:
        parser.error("Open MPI's mpicc and mpirun are needed for the plain-glibc layout")
    if os.getuid() == 0:
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    with tempfile.TemporaryDirectory(prefix="vela-alloc-") as tmp:
        vela, plain = Path(tmp) / "alloc_vela", Path(tmp) / "alloc_plain"
        for cc, out in ((str(vela_cc), vela), ("mpicc", plain)):
            b = subprocess.run([cc, "-O2", str(SOURCE), "-o", str(out)], capture_output=True,
                               text=True)
            if b.returncode != 0:
                print(f"alloc_ranks.py: {cc} failed:\n{b.stdout}{b.stderr}", file=sys.stderr)
                sys.exit(2)
        rows = layouts(vela, plain)
        results: dict[str, list[dict[int, tuple[float, float]]]] = {name: [] for name, _ in rows}
        loads = []
        for _ in range(a.rounds):
            loads.append(os.getloadavg()[0])
            for name, command in rows:
                results[name].append(run(command))
    sizes = sorted(results[rows[0][0]][0])
    print("# Allocation in ranks: ns per malloc/free pair (median, range), minor faults per "
          "1000 allocations\n")
    print(f"{a.rounds} rounds; load average at each round's start: "
          + ", ".join(f"{x:.2f}" for x in loads) + "\n")
    names = [name for name, _ in rows]
    print("| block | " + " | ".join(names) + " |")
    print("|---:|" + "---:|" * len(names))
    for size in sizes:
        cells = []
        for name in names:
            ns = [r[size][0] for r in results[name]]
            faults = statistics.median(r[size][1] for r in results[name])
            cells.append(f"{statistics.median(ns):.0f} ({min(ns):.0f}–{max(ns):.0f}); "
                         f"{faults:.0f}")
        label = f"{size >> 20} MiB" if size >= 1 << 20 else (
            f"{size >> 10} KiB" if size >= 1 << 10 else f"{size} B")
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
