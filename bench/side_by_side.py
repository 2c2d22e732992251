#!/usr/bin/env python3
"""Vela, Open MPI and AMPI side by side on the same MPI programs, built unchanged by each
system's compiler wrapper and run alternately, ROUNDS rounds of every (program, system) pair:

- pingpong: bench/rank_pingpong.cpp, 2 ranks; one-way latency of 8 B and 1 MiB (µs);
- lulesh:   LULESH 2.0 (LULESH=DIR: its sources, lulesh.cc and the rest), `-s 15 -i 100`,
            8 ranks; the run's seconds and minor page faults, its final origin energy compared;
- hpcg:     HPCG 3.x (HPCG=DIR: the top of its tree), `--nx=16 --ny=16 --nz=16 --rt=1`, 8 ranks;
            its GFLOP/s rating, which it prints only when its own validation passed.

Vela runs the ranks on 2 PEs of one process (`--vp N --pes 2`), Open MPI as N processes
(`mpirun --oversubscribe -np N`), AMPI as N ranks on 2 PEs (`+p2 +vpN`, a multicore build).
Prints a table of medians (ranges) with Vela's ratios, and the load average at each round's
start; docs/results/ranks.md keeps its figures.

    bench/side_by_side.py [--build DIR] [--charm CHARM_BUILD] [--rounds N] [--work DIR]
                          [lulesh=DIR] [hpcg=DIR]

CHARM_BUILD is a Charm++ build directory with AMPI (CHARM/multicore-linux-x86_64 from
`./build AMPI multicore-linux-x86_64 --with-production` in a Charm++ checkout; Charm++ is not a
Debian package and this script never downloads it); without it the AMPI column is left out.
LULESH and HPCG are fetched by the user (their public repositories), never kept here; a
program whose directory is not given is left out. AMPI builds HPCG with -pieglobals (its
globals made per rank) and -DAMPI_RENAME_EXIT=0 (AMPI's mpi.h renames exit, which breaks
HPCG's std::exit). Exit status 2 on a usage or build error, 1 when a run fails or the systems
disagree on a result.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
RANKS = 8


class Failure(Exception):
    pass


def run(command: list[str], cwd: Path, timeout: float = 600) -> tuple[str, float, int]:
    """Output, wall seconds and minor page faults of every process the command started."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt
    start = time.monotonic()
    r = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    seconds = time.monotonic() - start
    faults = resource.getrusage(resource.RUSAGE_CHILDREN).ru_minflt - before
    if r.returncode != 0:
        raise Failure(f"{' '.join(command)} failed ({r.returncode}):\n{r.stdout}{r.stderr}")
    return r.stdout + r.stderr, seconds, faults


def build(command: list[str], cwd: Path) -> None:
    r = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"side_by_side.py: {' '.join(command)} failed:\n{r.stdout}{r.stderr}",
              file=sys.stderr)
        sys.exit(2)


class System:
    def __init__(self, name: str, cxx: str, extra: list[str], launch):
        self.name, self.cxx, self.extra, self.launch = name, cxx, extra, launch


def systems(a: argparse.Namespace) -> list[System]:
    out = [
        System("Vela", str(a.build / "bin" / "vela-mpicxx"), [],
               lambda binary, args, n: [binary, *args, "--vp", str(n), "--pes", "2"]),
        System("Open MPI", "mpicxx", [],
               lambda binary, args, n: ["mpirun", "--oversubscribe", "-np", str(n), binary, *args]),
    ]
    if a.charm is not None:
        out.append(System("AMPI", str(a.charm / "bin" / "ampicxx"), [],
                          lambda binary, args, n: [binary, *args, "+p2", f"+vp{n}"]))
    return out


# ---- the programs: build(system, source, dest) -> binary; measure(output, seconds, faults) ----

def build_pingpong(s: System, _source: Path, dest: Path) -> str:
    build([s.cxx, "-O3", str(REPO / "bench" / "rank_pingpong.cpp"), "-o", "pingpong"], dest)
    return str(dest / "pingpong")


def measure_pingpong(out: str, _seconds: float, _faults: int) -> dict[str, float]:
    figures = {}
    for row, name in (("8", "8 B one-way (µs)"), ("1048576", "1 MiB one-way (µs)")):
        m = re.search(r"^\|\s*" + row + r"\s*\|\s*([0-9.]+)", out, re.M)
        if m is None:
            raise Failure(f"pingpong printed no {row}-byte row:\n{out}")
        figures[name] = float(m.group(1))
    return figures


def build_lulesh(s: System, source: Path, dest: Path) -> str:
    sources = sorted(str(p) for p in source.glob("lulesh*.cc"))
    if not sources:
        sys.exit(f"side_by_side.py: lulesh={source}: no lulesh*.cc there")
    build([s.cxx, "-O3", "-DUSE_MPI=1", *sources, "-o", "lulesh2.0", "-lm"], dest)
    return str(dest / "lulesh2.0")


def measure_lulesh(out: str, seconds: float, faults: int) -> dict[str, float]:
    m = re.search(r"Final Origin Energy\s*=\s*(\S+)", out)
    if m is None:
        raise Failure(f"LULESH printed no final origin energy:\n{out}")
    return {"seconds": seconds, "minor page faults": faults, "energy": float(m.group(1))}


MAKE = """SHELL = /bin/sh
CD = cd
CP = cp
LN_S = ln -s -f
MKDIR = mkdir -p
RM = /bin/rm -f
TOUCH = touch
TOPdir = .
SRCdir = $(TOPdir)/src
INCdir = $(TOPdir)/src
BINdir = $(TOPdir)/bin
HPCG_INCLUDES = -I$(INCdir)
HPCG_LIBS =
HPCG_OPTS = -DHPCG_NO_OPENMP
HPCG_DEFS = $(HPCG_OPTS) $(HPCG_INCLUDES)
CXX = {cxx}
CXXFLAGS = $(HPCG_DEFS) -O3 {flags}
LINKER = $(CXX)
LINKFLAGS = $(CXXFLAGS)
ARCHIVER = ar
ARFLAGS = r
RANLIB = echo
"""


def build_hpcg(s: System, source: Path, dest: Path) -> str:
    if not (source / "src" / "main.cpp").is_file():
        sys.exit(f"side_by_side.py: hpcg={source}: no src/main.cpp there")
    tree = dest / "hpcg"
    shutil.copytree(source, tree, ignore=shutil.ignore_patterns(".git"))
    flags = "-pieglobals -DAMPI_RENAME_EXIT=0" if s.name == "AMPI" else ""
    (tree / "setup" / "Make.side_by_side").write_text(MAKE.format(cxx=s.cxx, flags=flags))
    (tree / "bin").mkdir(exist_ok=True)
    build(["make", "-j2", "arch=side_by_side"], tree)
    return str(tree / "bin" / "xhpcg")


def measure_hpcg(out: str, _seconds: float, _faults: int, cwd: Path | None = None) -> dict[str, float]:
    files = sorted(cwd.glob("HPCG-Benchmark*.txt")) if cwd else []
    text = files[-1].read_text(errors="replace") if files else ""
    m = re.search(r"HPCG result is VALID with a GFLOP/s rating of=([0-9.]+)", text)
    if m is None:
        raise Failure(f"HPCG wrote no valid result:\n{out}\n{text[-2000:]}")
    for f in files:
        f.unlink()
    for f in cwd.glob("hpcg*.txt"):
        f.unlink()
    return {"GFLOP/s": float(m.group(1))}


PROGRAMS = {
    "pingpong": (build_pingpong, measure_pingpong, 2, []),
    "lulesh": (build_lulesh, measure_lulesh, RANKS, ["-s", "15", "-i", "100"]),
    "hpcg": (build_hpcg, measure_hpcg, RANKS, ["--nx=16", "--ny=16", "--nz=16", "--rt=1"]),
}


def cell(values: list[float]) -> str:
    med = statistics.median(values)
    fmt = "{:.0f}" if med >= 1000 else "{:.3g}"
    return f"{fmt.format(med)} ({fmt.format(min(values))}–{fmt.format(max(values))})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", type=Path, default=REPO / "build", help="Vela's build directory")
    parser.add_argument("--charm", type=Path, help="a Charm++ build directory with AMPI")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--work", type=Path, help="where to build and run (default: a temporary "
                        "directory, removed)")
    parser.add_argument("sources", nargs="*", metavar="PROGRAM=DIR",
                        help="lulesh=DIR, hpcg=DIR: sources of the fetched programs")
    a = parser.parse_args()
    if a.rounds < 1:
        parser.error(f"--rounds: expected a positive count, got {a.rounds}")
    if not (a.build / "bin" / "vela-mpicxx").is_file():
        parser.error(f"--build: {a.build}/bin/vela-mpicxx not found")
    if a.charm is not None and not (a.charm / "bin" / "ampicxx").is_file():
        parser.error(f"--charm: {a.charm}/bin/ampicxx not found (a Charm++ build with AMPI: "
                     "./build AMPI multicore-linux-x86_64 --with-production)")
    for tool in ("mpicxx", "mpirun", "make"):
        if shutil.which(tool) is None:
            parser.error(f"{tool} not found (Open MPI and make are needed)")
    chosen = {"pingpong": None}
    for item in a.sources:
        name, _, directory = item.partition("=")
        if name not in ("lulesh", "hpcg") or not directory:
            parser.error(f"{item}: expected lulesh=DIR or hpcg=DIR")
        if not Path(directory).is_dir():
            parser.error(f"{item}: {directory} is not a directory")
        chosen[name] = Path(directory).resolve()
    if os.getuid() == 0:
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    work = a.work or Path(tempfile.mkdtemp(prefix="vela-side-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        sys.exit(compare(a, systems(a), chosen, work))
    finally:
        if a.work is None:
            shutil.rmtree(work, ignore_errors=True)


def compare(a: argparse.Namespace, sys_list: list[System], chosen: dict, work: Path) -> int:
    binaries = {}
    for program, source in chosen.items():
        builder = PROGRAMS[program][0]
        for s in sys_list:
            dest = work / program / s.name.replace(" ", "")
            dest.mkdir(parents=True, exist_ok=True)
            binaries[program, s.name] = (builder(s, source, dest), dest)
    results = {key: [] for key in binaries}
    loads = []
    status = 0
    for _ in range(a.rounds):
        loads.append(os.getloadavg()[0])
        for program in chosen:
            _, measure, ranks, args = PROGRAMS[program]
            for s in sys_list:
                binary, dest = binaries[program, s.name]
                try:
                    out, seconds, faults = run(s.launch(binary, args, ranks), dest)
                    if program == "hpcg":
                        figures = measure_hpcg(out, seconds, faults, dest)
                    else:
                        figures = measure(out, seconds, faults)
                except (Failure, subprocess.TimeoutExpired) as e:
                    print(f"side_by_side.py: {program} on {s.name}: {e}", file=sys.stderr)
                    return 1
                results[program, s.name].append(figures)
    print(f"# Side by side: {a.rounds} alternating rounds, medians (ranges)\n")
    print("Load average at each round's start: " + ", ".join(f"{x:.2f}" for x in loads) + "\n")
    names = [s.name for s in sys_list]
    ratios = [f"Vela/{n}" for n in names[1:]]
    print("| program | figure | " + " | ".join(names + ratios) + " |")
    print("|---|---|" + "---:|" * (len(names) + len(ratios)))
    for program in chosen:
        figures = [k for k in results[program, "Vela"][0] if k != "energy"]
        for figure in figures:
            values = {n: [r[figure] for r in results[program, n]] for n in names}
            row = [cell(values[n]) for n in names]
            row += [f"{statistics.median(values['Vela']) / statistics.median(values[n]):.2f}"
                    for n in names[1:]]
            print(f"| {program} | {figure} | " + " | ".join(row) + " |")
        if program == "lulesh":
            energies = {f"{r['energy']:.6e}" for n in names for r in results[program, n]}
            print(f"| lulesh | final origin energy | " + " / ".join(sorted(energies)) + " |")
            if len(energies) != 1:
                print("side_by_side.py: the systems disagree on LULESH's energy", file=sys.stderr)
                status = 1
    return status


if __name__ == "__main__":
    main()
