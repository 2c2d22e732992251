#!/usr/bin/env python3
"""Vela, Open MPI and AMPI side by side on the same MPI programs, built unchanged by each
system's compiler wrapper and run alternately, ROUNDS rounds of every (program, system) pair:

- pingpong:     bench/rank_pingpong.cpp, 2 ranks; one-way latency of 8 B and 1 MiB (µs);
- stencil:      apps/jacobi2d/ranks.c (-DJACOBI2D_STANDALONE), 8 ranks, a heavy square in the
                middle and MPI_Migrate every 10 steps; no balancing and greedy balancing (Vela
                --lb greedy, AMPI +balancer GreedyLB; Open MPI cannot balance); its own time,
                peak resident set and checksum;
- many-ranks:   bench/ampi/many_ranks.c, 10^4 ranks (--many N) on Vela and AMPI (10^4 Open MPI
                processes would not fit): barrier + allreduce inside the program (ms), the
                run's seconds; the ranks share the program's globals (Vela --vp-privatize
                none, AMPI as built by ampicc);
- many-ranks private: the same, each rank with globals of its own (Vela's default, AMPI
                -pieglobals);
- brams:        the BRAMS proxy's plain-MPI source (apps/brams/model.cpp, -DBRAMS_STANDALONE),
                32 ranks, without and with greedy balancing; its own time, peak resident set
                and checksum;
- lulesh:       LULESH 2.0 (lulesh=DIR: its sources), `-s 15 -i 100`, 8 ranks; the run's
                seconds, minor page faults and peak resident set, its final origin energy
                compared;
- hpcg:         HPCG 3.x (hpcg=DIR: the top of its tree), `--nx=16 --ny=16 --nz=16 --rt=1`, 8
                ranks; its GFLOP/s rating, which it prints only when its own validation passed.

Vela runs the ranks on 2 PEs of one process (`--vp N --pes 2`), Open MPI as N processes
(`mpirun --oversubscribe -np N`), AMPI as N ranks on 2 PEs (`+p2 +vpN`, a multicore build).
AMPI builds the programs whose globals change (the BRAMS proxy, HPCG) with -pieglobals, its
way of giving each rank its own, and MPI_Migrate through bench/ampi/migrate_shim.h; HPCG also
with -DAMPI_RENAME_EXIT=0 (AMPI's mpi.h renames exit, which breaks HPCG's std::exit). Prints a
table of medians (ranges) with Vela's ratios (below 1 is Vela ahead, except for GFLOP/s), and
the load average at each round's start; docs/results/ranks.md keeps its figures. The peak
resident set is that of the run's largest process: Vela's and AMPI's one process holding every
rank, one of Open MPI's N processes.

    bench/side_by_side.py [--build DIR] [--charm CHARM_BUILD] [--rounds N] [--work DIR]
                          [--only NAME,...] [--many N] [lulesh=DIR] [hpcg=DIR]

CHARM_BUILD is a Charm++ build directory with AMPI (CHARM/multicore-linux-x86_64 from
`./build AMPI multicore-linux-x86_64 --with-production` in a Charm++ checkout; Charm++ is not a
Debian package and this script never downloads it); without it the AMPI column is left out.
LULESH and HPCG are fetched by the user (their public repositories), never kept here; a
program whose directory is not given is left out. Exit status 2 on a usage or build error, 1
when a run fails or the systems disagree on a result.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parent.parent
SHIM = REPO / "bench" / "ampi" / "migrate_shim.h"


class Failure(Exception):
    pass


@dataclass
class Run:
    out: str  # its standard output and error, interleaved
    seconds: float  # wall
    faults: int  # minor page faults of the command's process and its reaped descendants
    peak_mb: float  # the largest resident set any one of its processes reached


def run(command: list[str], cwd: Path, timeout: float = 600) -> Run:
    """Runs the command, reaping it with wait4, whose usage covers the process and its reaped
    descendants (mpirun's ranks): their page faults summed, the largest resident set."""
    start = time.monotonic()
    proc = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    chunks: list[bytes] = []
    reader = threading.Thread(target=lambda: chunks.append(proc.stdout.read()))
    reader.start()
    killed = threading.Event()

    def kill() -> None:
        killed.set()
        proc.kill()

    timer = threading.Timer(timeout, kill)
    timer.start()
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        timer.cancel()
        reader.join()
        proc.stdout.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.monotonic() - start
    out = b"".join(chunks).decode(errors="replace")
    if killed.is_set():
        raise subprocess.TimeoutExpired(command, timeout, output=out)
    if proc.returncode != 0:
        raise Failure(f"{' '.join(command)} failed ({proc.returncode}):\n{out}")
    return Run(out, seconds, usage.ru_minflt, usage.ru_maxrss / 1024)


def build(command: list[str], cwd: Path) -> None:
    r = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"side_by_side.py: {' '.join(command)} failed:\n{r.stdout}{r.stderr}",
              file=sys.stderr)
        sys.exit(2)


@dataclass
class System:
    name: str
    cc: str
    cxx: str
    launch: Callable[[str, list[str], int], list[str]]
    balance: list[str]  # run arguments that turn greedy balancing on


def systems(a: argparse.Namespace) -> list[System]:
    out = [
        System("Vela", str(a.build / "bin" / "vela-mpicc"), str(a.build / "bin" / "vela-mpicxx"),
               lambda binary, args, n: [binary, *args, "--vp", str(n), "--pes", "2"],
               ["--lb", "greedy"]),
        System("Open MPI", "mpicc", "mpicxx",
               lambda binary, args, n: ["mpirun", "--oversubscribe", "-np", str(n), binary, *args],
               []),
    ]
    if a.charm is not None:
        out.append(System("AMPI", str(a.charm / "bin" / "ampicc"),
                          str(a.charm / "bin" / "ampicxx"),
                          lambda binary, args, n: [binary, *args, "+p2", f"+vp{n}"],
                          ["+balancer", "GreedyLB"]))
    return out


def ampi_flags(s: System, globals_change: bool) -> list[str]:
    """What AMPI needs to build a program unchanged: MPI_Migrate, and per-rank globals."""
    if s.name != "AMPI":
        return []
    return ["-include", str(SHIM)] + (["-pieglobals"] if globals_change else [])


# ---- builders: (system, the fetched sources or None, a directory of its own) -> the binary ----

def build_pingpong(s: System, _source: Path | None, dest: Path) -> str:
    build([s.cxx, "-O3", str(REPO / "bench" / "rank_pingpong.cpp"), "-o", "pingpong"], dest)
    return str(dest / "pingpong")


def build_stencil(s: System, _source: Path | None, dest: Path) -> str:
    build([s.cc, "-O3", "-DJACOBI2D_STANDALONE", *ampi_flags(s, False),
           "-I", str(REPO / "apps" / "jacobi2d"), str(REPO / "apps" / "jacobi2d" / "ranks.c"),
           "-o", "stencil", "-lm"], dest)
    return str(dest / "stencil")


def build_many(s: System, _source: Path | None, dest: Path) -> str:
    build([s.cc, "-O3", str(REPO / "bench" / "ampi" / "many_ranks.c"), "-o", "many_ranks"], dest)
    return str(dest / "many_ranks")


def build_many_private(s: System, _source: Path | None, dest: Path) -> str:
    """many_ranks.c with each rank's globals its own: AMPI's -pieglobals (Vela's default)."""
    extra = ["-pieglobals"] if s.name == "AMPI" else []
    build([s.cc, "-O3", *extra, str(REPO / "bench" / "ampi" / "many_ranks.c"), "-o",
           "many_ranks"], dest)
    return str(dest / "many_ranks")


def build_brams(s: System, _source: Path | None, dest: Path) -> str:
    brams = REPO / "apps" / "brams"
    build([s.cxx, "-O3", "-std=c++20", "-DBRAMS_STANDALONE", *ampi_flags(s, True),
           "-I", str(REPO / "include"),
           str(brams / "model.cpp"), str(brams / "netcdf_output.cpp"), "-o", "brams"], dest)
    return str(dest / "brams")


def build_lulesh(s: System, source: Path | None, dest: Path) -> str:
    sources = sorted(str(p) for p in source.glob("lulesh*.cc"))  # checked by main()
    build([s.cxx, "-O3", "-DUSE_MPI=1", *sources, "-o", "lulesh2.0", "-lm"], dest)
    return str(dest / "lulesh2.0")


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


def build_hpcg(s: System, source: Path | None, dest: Path) -> str:
    tree = dest / "hpcg"
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(source, tree, ignore=shutil.ignore_patterns(".git"))
    flags = "-pieglobals -DAMPI_RENAME_EXIT=0" if s.name == "AMPI" else ""
    (tree / "setup" / "Make.side_by_side").write_text(MAKE.format(cxx=s.cxx, flags=flags))
    (tree / "bin").mkdir(exist_ok=True)
    build(["make", "-j2", "arch=side_by_side"], tree)
    return str(tree / "bin" / "xhpcg")


# ---- measurers: (the run, its directory) -> figures ----

def number(pattern: str, text: str, what: str) -> str:
    m = re.search(pattern, text, re.M)
    if m is None:
        raise Failure(f"no {what} in its output:\n{text[-3000:]}")
    return m.group(1)


def measure_pingpong(r: Run, _cwd: Path) -> dict:
    out = r.out
    return {"8 B one-way (µs)": float(number(r"^\|\s*8\s*\|\s*([0-9.]+)", out, "8-byte row")),
            "1 MiB one-way (µs)": float(number(r"^\|\s*1048576\s*\|\s*([0-9.]+)", out,
                                               "1 MiB row"))}


def measure_own_time(r: Run, _cwd: Path) -> dict:
    return {"its time (s)": float(number(r"^time: ([0-9.]+)", r.out, "time")),
            "peak RSS (MB)": r.peak_mb,
            "same": number(r"^checksum: (\S+)", r.out, "checksum")}


def measure_many(r: Run, _cwd: Path) -> dict:
    return {"barrier + allreduce (ms)": float(number(r"barrier\+allreduce ms ([0-9.]+)", r.out,
                                                     "collective time")),
            "whole run (s)": r.seconds}


def measure_lulesh(r: Run, _cwd: Path) -> dict:
    return {"seconds": r.seconds, "minor page faults": r.faults, "peak RSS (MB)": r.peak_mb,
            "same": number(r"Final Origin Energy\s*=\s*(\S+)", r.out, "final origin energy")}


def measure_hpcg(r: Run, cwd: Path) -> dict:
    out = r.out
    files = sorted(cwd.glob("HPCG-Benchmark*.txt"))
    text = files[-1].read_text(errors="replace") if files else ""
    for f in [*files, *cwd.glob("hpcg*.txt")]:
        f.unlink()
    return {"GFLOP/s": float(number(r"HPCG result is VALID with a GFLOP/s rating of=([0-9.]+)",
                                    text + "\n" + out, "valid HPCG result"))}


@dataclass
class Program:
    name: str
    builder: Callable[[System, Path | None, Path], str]
    measure: Callable[[Run, Path], dict]
    ranks: int
    args: list[str]
    balanced: bool = False  # run with the systems' greedy balancing (Open MPI left out)
    systems: tuple[str, ...] = ("Vela", "Open MPI", "AMPI")
    source: str | None = None  # the PROGRAM=DIR argument it needs
    vela_args: tuple[str, ...] = ()  # given to Vela's runs only


STENCIL = ["--mesh", "1536", "--steps", "200", "--sync-every", "10", "--heavy", "6"]
PROGRAMS = [
    Program("pingpong", build_pingpong, measure_pingpong, 2, []),
    Program("stencil", build_stencil, measure_own_time, 8, STENCIL),
    Program("stencil greedy", build_stencil, measure_own_time, 8, STENCIL, balanced=True),
    Program("many-ranks", build_many, measure_many, 10_000, ["10"], systems=("Vela", "AMPI"),
            vela_args=("--vp-privatize", "none")),
    Program("many-ranks private", build_many_private, measure_many, 10_000, ["10"],
            systems=("Vela", "AMPI")),
    Program("brams", build_brams, measure_own_time, 32, []),
    Program("brams greedy", build_brams, measure_own_time, 32, [], balanced=True),
    Program("lulesh", build_lulesh, measure_lulesh, 8, ["-s", "15", "-i", "100"],
            source="lulesh"),
    Program("hpcg", build_hpcg, measure_hpcg, 8, ["--nx=16", "--ny=16", "--nz=16", "--rt=1"],
            source="hpcg"),
]


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
    parser.add_argument("--only", help="comma-separated program names (default: all)")
    parser.add_argument("--many", type=int, default=10_000,
                        help="ranks of many-ranks (default 10^4; 10^5 needs vm.max_map_count "
                        "above 500000 on both systems)")
    parser.add_argument("sources", nargs="*", metavar="PROGRAM=DIR",
                        help="lulesh=DIR, hpcg=DIR: sources of the fetched programs")
    a = parser.parse_args()
    if a.rounds < 1:
        parser.error(f"--rounds: expected a positive count, got {a.rounds}")
    if a.many < 2:
        parser.error(f"--many: expected a rank count of at least 2, got {a.many}")
    for p in PROGRAMS:
        if p.name.startswith("many-ranks"):
            p.ranks = a.many
    if not (a.build / "bin" / "vela-mpicxx").is_file():
        parser.error(f"--build: {a.build}/bin/vela-mpicxx not found")
    if a.charm is not None and not (a.charm / "bin" / "ampicxx").is_file():
        parser.error(f"--charm: {a.charm}/bin/ampicxx not found (a Charm++ build with AMPI: "
                     "./build AMPI multicore-linux-x86_64 --with-production)")
    for tool in ("mpicc", "mpicxx", "mpirun", "make"):
        if shutil.which(tool) is None:
            parser.error(f"{tool} not found (Open MPI and make are needed)")
    sources: dict[str, Path] = {}
    for item in a.sources:
        name, _, directory = item.partition("=")
        if name not in ("lulesh", "hpcg") or not directory:
            parser.error(f"{item}: expected lulesh=DIR or hpcg=DIR")
        if not Path(directory).is_dir():
            parser.error(f"{item}: {directory} is not a directory")
        if name == "lulesh" and not any(Path(directory).glob("lulesh*.cc")):
            parser.error(f"{item}: no lulesh*.cc there (expected LULESH 2.0's sources)")
        if name == "hpcg" and not (Path(directory) / "src" / "main.cpp").is_file():
            parser.error(f"{item}: no src/main.cpp there (expected the top of an HPCG tree)")
        sources[name] = Path(directory).resolve()
    names = [p.name for p in PROGRAMS]
    only = a.only.split(",") if a.only else names
    for name in only:
        if name not in names:
            parser.error(f"--only: unknown program '{name}' (expected some of {', '.join(names)})")
    chosen = [p for p in PROGRAMS if p.name in only and (p.source is None or p.source in sources)]
    if os.getuid() == 0:
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        os.environ.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    work = a.work or Path(tempfile.mkdtemp(prefix="vela-side-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        sys.exit(compare(a, systems(a), chosen, sources, work))
    finally:
        if a.work is None:
            shutil.rmtree(work, ignore_errors=True)


def compare(a: argparse.Namespace, all_systems: list[System], chosen: list[Program],
            sources: dict[str, Path], work: Path) -> int:
    binaries: dict[tuple[str, str], tuple[str, Path]] = {}
    built: dict[tuple[str, str], str] = {}  # one build per (builder, system)
    for p in chosen:
        for s in all_systems:
            if s.name not in p.systems or (p.balanced and not s.balance):
                continue
            dest = work / p.name.replace(" ", "-") / s.name.replace(" ", "")
            dest.mkdir(parents=True, exist_ok=True)
            key = (p.builder.__name__, s.name)
            if key not in built:
                built[key] = p.builder(s, sources.get(p.source) if p.source else None, dest)
            binaries[p.name, s.name] = (built[key], dest)
    results: dict[tuple[str, str], list[dict]] = {key: [] for key in binaries}
    loads = []
    for _ in range(a.rounds):
        loads.append(os.getloadavg()[0])
        for p in chosen:
            for s in all_systems:
                if (p.name, s.name) not in binaries:
                    continue
                binary, dest = binaries[p.name, s.name]
                args = [*p.args, *(s.balance if p.balanced else []),
                        *(p.vela_args if s.name == "Vela" else [])]
                try:
                    results[p.name, s.name].append(p.measure(run(s.launch(binary, args, p.ranks),
                                                                 dest), dest))
                except (Failure, subprocess.TimeoutExpired) as e:
                    print(f"side_by_side.py: {p.name} on {s.name}: {e}", file=sys.stderr)
                    return 1
    return report(a, all_systems, chosen, results, loads)


def report(a: argparse.Namespace, all_systems: list[System], chosen: list[Program],
           results: dict, loads: list[float]) -> int:
    status = 0
    print(f"# Side by side: {a.rounds} alternating rounds, medians (ranges)\n")
    print("Load average at each round's start: " + ", ".join(f"{x:.2f}" for x in loads) + "\n")
    names = [s.name for s in all_systems]
    ratios = [f"Vela/{n}" for n in names[1:]]
    print("| program | figure | " + " | ".join(names + ratios) + " |")
    print("|---|---|" + "---:|" * (len(names) + len(ratios)))
    for p in chosen:
        present = [n for n in names if (p.name, n) in results]
        for figure in [k for k in results[p.name, "Vela"][0] if k != "same"]:
            values = {n: [r[figure] for r in results[p.name, n]] for n in present}
            row = [cell(values[n]) if n in values else "–" for n in names]
            row += [f"{statistics.median(values['Vela']) / statistics.median(values[n]):.2f}"
                    if n in values else "–" for n in names[1:]]
            print(f"| {p.name} | {figure} | " + " | ".join(row) + " |")
        if "same" in results[p.name, "Vela"][0]:
            seen = {r["same"] for n in present for r in results[p.name, n]}
            print(f"| {p.name} | result, every run | " + " / ".join(sorted(seen)) + " |")
            if len(seen) != 1:
                print(f"side_by_side.py: {p.name}: the runs disagree ({', '.join(sorted(seen))})",
                      file=sys.stderr)
                status = 1
    return status


if __name__ == "__main__":
    main()
