#!/usr/bin/env python3
"""Builds published MPI programs, unchanged, with Vela's wrappers and with Open MPI's, runs both
at equal rank counts on small inputs, compares their results and writes a table
(docs/results/real-codes.md is this script's output).

    scripts/real-codes.py [--vela-bin DIR] [--work DIR] [--out FILE] [--only NAME,...]
                          [--repeat K] [--jobs N] NAME=DIR...

NAME=DIR names the top of a program's source tree as its authors publish it. Nothing of these
programs is in this repository: fetch them yourself (docs/validation.md says from where; the
Debian ones with scripts/fetch-sources.sh). The programs this script knows:

    hpcg     HPCG 3.x (src/main.cpp)                        hpcg-benchmark/hpcg
    comd     CoMD 1.1 (src-mpi/Makefile.vanilla)             ECP-copa/CoMD
    lulesh   LULESH 2.0 (lulesh.cc)                          LLNL/LULESH
    minife   miniFE 2.x (ref/src/Makefile)                   Mantevo/miniFE
    miniamr  miniAMR 1.x (ref/main.c)                        Mantevo/miniAMR
    hpcc     HPC Challenge 1.5 (src/hpcc.c, hpl/)            Debian source package hpcc
    netpipe  NetPIPE 3.7 (src/netpipe.c)                     Debian source package netpipe
    lammps   LAMMPS (src/lammps.cpp, cmake/): its             Debian source package lammps
             Lennard-Jones benchmark (bench/in.lj)
    hypre    hypre 2.x: the library and its C examples       Debian source package hypre
             (src/configure, src/examples/)
    osu      OSU micro-benchmarks 6.x (c/mpi/, c/util/)      an OSU micro-benchmarks mirror
    blacs    ScaLAPACK 2.x's BLACS tester, Fortran           Reference-ScaLAPACK/scalapack
             (BLACS/TESTING/blacstest.f)                     (or Debian's scalapack)
    scalapack  ScaLAPACK 2.x's test drivers in its four     the same tree
             precisions (LU, Cholesky, QR, inverse, least
             squares; TESTING/traditional/LIN/), Fortran
    mumps    MUMPS 5.x's examples (its four arithmetics,    Debian source package mumps
             Fortran and C, and one program using all       (needs scalapack=DIR too)
             four), built on the ScaLAPACK of
             scalapack=DIR (examples/dsimpletest.F)
    npb      NAS Parallel Benchmarks 3.4, MPI: BT, SP,       NAS's NPB 3.4 release
             LU, CG, MG, FT, EP (Fortran) and IS (C),        (its NPB3.4-MPI directory)
             class W (NPB3.4-MPI/sys/setparams.c)

Options:
    --vela-bin DIR  where vela-mpicc and vela-mpicxx are (default: build/bin of this
                    repository; an installed prefix's bin works the same)
    --work DIR      where the copies are built and run (default: a new temporary directory);
                    kept, with every build log and run output
    --out FILE      the Markdown report (default: WORK/real-codes.md)
    --only NAME,... only these of the programs given
    --repeat K      run Vela's and Open MPI's timed runs K times each, alternately, and report
                    medians and ranges (default 1)
    --jobs N        make -j N (default: the number of cores)

Each program is built twice out of its tree (its own makefiles, with CC/CXX set to the
compiler), then run four ways, each under a time limit:

    vela         PROG ARGS --vp N --pes 2                   N ranks on 2 PEs, one process
    vela-mpirun  mpirun -np 2 PROG ARGS --vp N              N ranks over two processes
    vela-greedy  PROG ARGS --vp N --pes 2 --lb greedy --vp-balance-every allreduce:K
                 (a balancing point after every K-th MPI_Allreduce on MPI_COMM_WORLD)
    openmpi      mpirun --oversubscribe -np N PROG ARGS     N processes

and compared: every run must pass the program's own verification, and the values the program
prints (energies, residuals, iteration counts, checksums: each program's list below) must be
the same in every Vela run and equal to Open MPI's, exactly where the program prints bits that
do not depend on the order of a floating sum, else within a stated tolerance. OSU's benchmarks
are not compared: each must run to the end of its table in each of three layouts (--vp 2 --pes 2,
--vp 2 --pes 1, mpirun -np 2 ... --vp 2) and its figures are reported beside Open MPI's.

Exit status: 0 when every build that should work built and every run and comparison passed;
1 otherwise (the report says which); 2 on a usage error (the message names the argument).
"""

from __future__ import annotations

import argparse
import datetime
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

ME = "real-codes"
REPO = Path(__file__).resolve().parent.parent


class UsageError(Exception):
    pass


def log(text: str) -> None:
    print(f"{datetime.datetime.now():%H:%M:%S} {text}", flush=True)


# ---------------------------------------------------------------------------------------------
# Running things


@dataclass
class Outcome:
    label: str
    command: list[str]
    directory: Path
    status: int
    seconds: float

    @property
    def output(self) -> str:
        return (self.directory / "out.txt").read_text(errors="replace")

    def failure(self) -> str:
        """What went wrong, in a line: the status and the run's last telling lines."""
        what = {124: "timed out (deadlock or hang?)", 137: "killed after its time limit",
                139: "crashed (SIGSEGV)", 134: "aborted (SIGABRT)"}.get(self.status,
                                                                       f"status {self.status}")
        lines = [l for l in self.output.splitlines() if l.strip()]
        telling = [l for l in lines if re.search(r"error|fault|abort|deadlock|signal|killed|"
                                                r"terminat|vela:", l, re.I)]
        tail = "; ".join((telling or lines[-2:])[:3])[:300]
        return f"{what}: {tail}" if tail else what


def run(label: str, command: list[str], directory: Path, limit: int,
        prepare: Callable[[Path], None] | None = None) -> Outcome:
    """Runs `command` in a fresh `directory` (filled by `prepare`) under `timeout`, output in
    directory/out.txt."""
    if directory.exists():
        shutil.rmtree(directory)
    directory.mkdir(parents=True)
    if prepare:
        prepare(directory)
    (directory / "cmd.txt").write_text(shlex.join(command) + "\n")
    start = time.monotonic()
    given = directory / "stdin.txt"  # the program's input, where prepare wrote one
    with open(directory / "out.txt", "wb") as out, \
            open(given if given.exists() else os.devnull, "rb") as stdin:
        status = subprocess.call(["timeout", "-k", "10", str(limit), *command], cwd=directory,
                                 stdout=out, stderr=subprocess.STDOUT, stdin=stdin)
    return Outcome(label, command, directory, status, time.monotonic() - start)


def build(directory: Path, logfile: Path, command: list[str], env: dict | None = None) -> bool:
    with open(logfile, "ab") as out:
        out.write(("$ " + shlex.join(command) + "\n").encode())
        out.flush()
        merged = dict(os.environ, **(env or {}))
        return subprocess.call(command, cwd=directory, stdout=out, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, env=merged) == 0


def first_error(logfile: Path) -> str:
    for line in logfile.read_text(errors="replace").splitlines():
        if re.search(r"error|Error", line):
            return line.strip()[:240]
    return "(no line with 'error': see the log)"


def mpi_calls(tree: Path, binary: Path) -> list[str]:
    """The MPI functions a program calls: the VMPI_ symbols its objects and libraries built by
    vela-mpicc need (vela/mpi.h names every MPI_X VMPI_X), or, for a program built without
    leaving objects, the MPI_ symbols its Open MPI build needs (for C code only: Open MPI's C++
    bindings make a C++ program need nearly every function); Fortran's mpi_x_ as MPI_X."""
    files = [str(f) for f in tree.rglob("*") if f.suffix in (".o", ".a") and f.is_file()]
    pattern, command = r"\bV(MPI_[A-Z][A-Za-z0-9_]*)", ["nm", "--undefined-only", *files]
    if not files:
        pattern, command = r"\b(MPI_[A-Z][A-Za-z0-9_]*)", ["nm", "-D", "--undefined-only",
                                                           str(binary)]
    out = subprocess.run(command, capture_output=True, text=True).stdout
    calls = {m for m in re.findall(pattern, out) if "_f08" not in m}
    # Fortran code calls the bindings gfortran names mpi_x_ (MPI_X in the source).
    calls |= {"MPI_" + m[0].upper() + m[1:]
              for m in re.findall(r"\bmpi_([a-z][a-z0-9_]*?)_$", out, flags=re.M)}
    return sorted(calls)


# ---------------------------------------------------------------------------------------------
# The context every program's code sees


@dataclass
class Context:
    vela_bin: Path
    work: Path
    jobs: int
    repeat: int
    mpirun: list[str]
    trees: dict[str, Path] = field(default_factory=dict)  # every NAME=DIR given

    def compilers(self, kind: str) -> tuple[str, str]:
        if kind == "vela":
            return str(self.vela_bin / "vela-mpicc"), str(self.vela_bin / "vela-mpicxx")
        return shutil.which("mpicc") or "mpicc", shutil.which("mpicxx") or "mpicxx"

    def fortran(self, kind: str) -> str:
        if kind == "vela":
            return str(self.vela_bin / "vela-mpif90")
        return shutil.which("mpif90") or "mpif90"


# ---------------------------------------------------------------------------------------------
# Programs


@dataclass
class Program:
    name: str
    what: str
    marker: str                      # a file the tree must hold, relative to its top
    ranks: int
    args: list[str]
    build: Callable[[Context, str, Path, Path, Path], Path]  # ctx, kind, src, dest, log -> binary
    values: Callable[[Path], list[str]]       # the compared values of a run directory
    verify: Callable[[Path], str]             # what is wrong with a run by its own checks
    tolerance: float = 0.0                    # relative tolerance against Open MPI (0: exact)
    heap: str = ""                            # --vp-heap across processes, where needed
    prepare: Callable[[Path, Path], None] | None = None  # (run dir, built tree)
    balance_every: int = 1                    # K of --vp-balance-every allreduce:K
    limit: int = 600
    compared: str = ""                        # what the report says is compared


def copy_tree(src: Path, dest: Path) -> None:
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(src, dest, symlinks=True)


def output_of(run_dir: Path) -> str:
    """What a run printed (stdout and stderr, out.txt in its directory)."""
    return run_dir.joinpath("out.txt").read_text(errors="replace")


def lines_matching(text: str, pattern: str) -> list[str]:
    return [re.sub(r"\s+", " ", l.strip()) for l in text.splitlines() if re.search(pattern, l)]


def numbers_close(a: str, b: str, tolerance: float) -> bool:
    """Lines a and b equal word by word, numbers within `tolerance` relative (and two units of
    the last printed digit)."""
    wa, wb = a.split(), b.split()
    if len(wa) != len(wb):
        return False
    for x, y in zip(wa, wb):
        if x == y:
            continue
        try:
            fx, fy = float(x.rstrip(",;")), float(y.rstrip(",;"))
        except ValueError:
            return False
        digits = x.split("e")[0].split("E")[0]
        unit = 10 ** -(len(digits) - digits.index(".") - 1) if "." in digits else 1
        exponent = re.search(r"[eE]([-+]?\d+)$", x)
        if exponent:
            unit *= 10 ** int(exponent.group(1))
        if abs(fx - fy) > max(tolerance * max(abs(fx), abs(fy)), 2 * unit):
            return False
    return True


# HPCG --------------------------------------------------------------------------------------

def build_hpcg(ctx: Context, kind: str, src: Path, dest: Path, logf: Path) -> Path:
    copy_tree(src, dest)
    _, cxx = ctx.compilers(kind)
    (dest / "setup" / "Make.realcodes").write_text(
        "SHELL = /bin/sh\nCD = cd\nCP = cp\nLN_S = ln -s -f\nMKDIR = mkdir -p\n"
        "RM = /bin/rm -f\nTOUCH = touch\nTOPdir = .\nSRCdir = $(TOPdir)/src\n"
        "INCdir = $(TOPdir)/src\nBINdir = $(TOPdir)/bin\nHPCG_INCLUDES = -I$(INCdir)\n"
        "HPCG_LIBS =\nHPCG_OPTS = -DHPCG_NO_OPENMP\nHPCG_DEFS = $(HPCG_OPTS) $(HPCG_INCLUDES)\n"
        f"CXX = {cxx}\nCXXFLAGS = $(HPCG_DEFS) -O3\nLINKER = $(CXX)\nLINKFLAGS = $(CXXFLAGS)\n"
        "ARCHIVER = ar\nARFLAGS = r\nRANLIB = echo\n")
    (dest / "bin").mkdir(exist_ok=True)
    build(dest, logf, ["make", f"-j{ctx.jobs}", "arch=realcodes"])
    return dest / "bin" / "xhpcg"


def hpcg_yaml(run_dir: Path) -> str:
    files = sorted(run_dir.glob("HPCG-Benchmark*.txt"))
    return files[0].read_text(errors="replace") if files else ""


def hpcg_values(run_dir: Path) -> list[str]:
    return lines_matching(hpcg_yaml(run_dir),
                          r"(Distributed Processes|Global n[xyz]|::np[xyz]|Number of Equations|"
                          r"Number of Nonzero Terms|iteration count|iterations per set|::Result|"
                          r"Departure for|Scaled residual (mean|variance))=")


def hpcg_verify(run_dir: Path) -> str:
    y = hpcg_yaml(run_dir)
    if not y:
        return "no HPCG-Benchmark*.txt (its YAML report) written"
    if not sorted(run_dir.glob("hpcg*.txt")):
        return "no hpcgDATE.txt (its log) written"
    passed = y.count("::Result=PASSED")
    if passed < 4:
        return f"{passed} of its 4 V&V results PASSED"
    return "" if "HPCG result is VALID" in y else "not 'HPCG result is VALID'"


# CoMD --------------------------------------------------------------------------------------

def build_comd(ctx: Context, kind: str, src: Path, dest: Path, logf: Path) -> Path:
    copy_tree(src, dest)
    cc, _ = ctx.compilers(kind)
    d = dest / "src-mpi"
    if not (d / "Makefile").exists():
        shutil.copy(d / "Makefile.vanilla", d / "Makefile")
    build(d, logf, ["make", f"-j{ctx.jobs}", f"CC={cc}", "DOUBLE_PRECISION=ON", "DO_MPI=ON"])
    return dest / "bin" / "CoMD-mpi"


def comd_values(run_dir: Path) -> list[str]:
    out, values, table = output_of(run_dir), [], False
    for line in out.splitlines():
        words = line.split()
        if re.match(r"^#\s+Loop", line):
            table = True
        elif table and len(words) == 8 and words[0].isdigit():
            values.append(" ".join(words[:6] + words[7:]))  # without the timing column
        elif re.search(r"(Initial energy|Final energy|eFinal/eInitial|Final atom count)", line):
            values.append(re.sub(r"\s+", " ", line.strip()))
    return values


def comd_verify(run_dir: Path) -> str:
    out = output_of(run_dir)
    if "Final energy" not in out:
        return "no 'Final energy' line"
    return "" if "no atoms lost" in out else "atoms lost"


# LULESH ------------------------------------------------------------------------------------

def build_lulesh(ctx: Context, kind: str, src: Path, dest: Path, logf: Path) -> Path:
    copy_tree(src, dest)
    _, cxx = ctx.compilers(kind)
    objects = []
    for f in sorted(dest.glob("lulesh*.cc")):
        if not build(dest, logf, [cxx, "-DUSE_MPI=1", "-DUSE_OMP=0", "-O3", "-I.", "-c", f.name,
                                  "-o", f.stem + ".o"]):
            return dest / "lulesh2.0"
        objects.append(f.stem + ".o")
    build(dest, logf, [cxx, "-O3", *objects, "-o", "lulesh2.0", "-lm"])
    return dest / "lulesh2.0"


def lulesh_values(run_dir: Path) -> list[str]:
    return lines_matching(output_of(run_dir),
                          r"(Problem size|MPI tasks|Iteration count|Final Origin Energy|"
                          r"MaxAbsDiff|TotalAbsDiff|MaxRelDiff) *=")


def lulesh_verify(run_dir: Path) -> str:
    return "" if "Final Origin Energy" in output_of(run_dir) else "no 'Final Origin Energy' line"


# miniFE ------------------------------------------------------------------------------------

def build_minife(ctx: Context, kind: str, src: Path, dest: Path, logf: Path) -> Path:
    copy_tree(src, dest)
    cc, cxx = ctx.compilers(kind)
    build(dest / "ref" / "src", logf, ["make", f"-j{ctx.jobs}", f"CXX={cxx}", f"CC={cc}"])
    return dest / "ref" / "src" / "miniFE.x"


def minife_yaml(run_dir: Path) -> str:
    files = sorted(run_dir.glob("miniFE*.yaml"))
    return files[0].read_text(errors="replace") if files else ""


def minife_values(run_dir: Path) -> list[str]:
    # Every line of its YAML report but times, rates, memory, dates, host and compiler.
    return [re.sub(r"\s+", " ", l.strip()) for l in minife_yaml(run_dir).splitlines()
            if l.strip() and not re.search(r"time|flop|mem|date|host|compiler|cxx|mbytes|"
                                            r"allocated|percentage|rss", l, re.I)]


def minife_verify(run_dir: Path) -> str:
    y = minife_yaml(run_dir)
    if not y:
        return "no miniFE*.yaml report written"
    return "" if re.search(r"Iterations:\s*\d+", y) else "no CG iteration count in its report"


# miniAMR -----------------------------------------------------------------------------------

MINIAMR_ARGS = ("--num_refine 3 --max_blocks 2000 --npx 2 --npy 2 --npz 2 --nx 8 --ny 8 --nz 8 "
                "--num_objects 1 --object 2 0 -1.71 -1.71 -1.71 0.04 0.04 0.04 1.7 1.7 1.7 "
                "0.0 0.0 0.0 --num_tsteps 4 --checksum_freq 1").split()


def build_miniamr(ctx: Context, kind: str, src: Path, dest: Path, logf: Path) -> Path:
    copy_tree(src, dest)
    cc, _ = ctx.compilers(kind)
    build(dest / "ref", logf, ["make", f"-j{ctx.jobs}", f"CC={cc}", f"LD={cc}"])
    return dest / "ref" / "miniAMR.x"


def miniamr_values(run_dir: Path) -> list[str]:
    # Every line of its report without a measured time: the block counts per level and step,
    # the communication partners, the refinement and gridsum counts (its timings and rates are
    # the lines with 4 or more decimals, but the time steps').
    out = output_of(run_dir)
    return [re.sub(r"\s+", " ", l.strip()) for l in out.splitlines()
            if l.strip() and (l.startswith("Timestep") or
                              not re.search(r"\d\.\d{4,}|GFLOP|Summary", l))]


def miniamr_verify(run_dir: Path) -> str:
    # It checks its variables' sums at every stage (--checksum_freq 1) against 10^-8.
    out = output_of(run_dir)
    if "difference too large" in out:
        return "its checksum test failed: " + lines_matching(out, "difference too large")[0]
    return "" if "End report" in out else "no 'End report' line"


# HPC Challenge -----------------------------------------------------------------------------

def build_hpcc(ctx: Context, kind: str, src: Path, dest: Path, logf: Path) -> Path:
    copy_tree(src, dest)
    cc, _ = ctx.compilers(kind)
    template = (dest / "hpl" / "setup" / "Make.Linux_PII_FBLAS").read_text()
    settings = {"MPdir": "", "MPinc": "", "MPlib": "", "LAdir": "", "LAinc": "",
                "LAlib": "-lblas", "CC": cc, "LINKER": cc,
                # HPL 2.0 calls MPI_Type_struct and MPI_Address, which MPI 3.0 removed: Open
                # MPI 4 keeps them in its library but hides their declarations unless asked.
                "CCFLAGS": "$(HPL_DEFS) -O3 -fcommon -DOMPI_OMIT_MPI1_COMPAT_DECLS=0"}
    for key, value in settings.items():
        template = re.sub(rf"^{key}\s*=.*$", f"{key} = {value}", template, flags=re.M)
    (dest / "hpl" / "Make.realcodes").write_text(template)
    build(dest, logf, ["make", f"-j{ctx.jobs}", "arch=realcodes"])
    return dest / "hpcc"


def hpcc_prepare(run_dir: Path, tree: Path) -> None:
    shutil.copy(tree / "_hpccinf.txt", run_dir / "hpccinf.txt")


def hpcc_summary(run_dir: Path) -> dict[str, str]:
    f = run_dir / "hpccoutf.txt"
    text = f.read_text(errors="replace") if f.exists() else ""
    part = text.split("Begin of Summary section.")[-1]
    return dict(l.split("=", 1) for l in part.splitlines() if "=" in l)


# The summary's fields that are results rather than timings: sizes, errors, residuals.
HPCC_RESULTS = re.compile(r"^(HPL_N|HPL_NB|HPL_nprow|HPL_npcol|HPL_depth|HPL_nbdiv|HPL_nbmin|"
                          r"PTRANS_residual|PTRANS_n|PTRANS_nb|PTRANS_nprow|PTRANS_npcol|"
                          r"MPIRandomAccess_N|MPIRandomAccess_Errors|MPIRandomAccess_ErrorsFraction|"
                          r"MPIRandomAccess_LCG_N|MPIRandomAccess_LCG_Errors|"
                          r"MPIRandomAccess_LCG_ErrorsFraction|MPIFFT_N|MPIFFT_maxErr|"
                          r"CommWorldProcs|Success|Failure|HPL_rnorm\d?|HPL_Anorm\d|HPL_Xnorm\d?|"
                          r"HPL_Xnorm|HPL_Anorm1|HPL_AnormI)$")


def hpcc_values(run_dir: Path) -> list[str]:
    return [f"{k}={v}" for k, v in hpcc_summary(run_dir).items() if HPCC_RESULTS.match(k)]


def hpcc_verify(run_dir: Path) -> str:
    s = hpcc_summary(run_dir)
    if not s:
        return "no summary section in hpccoutf.txt"
    if s.get("Success") != "1":
        return f"Success={s.get('Success')} in its summary"
    f = run_dir / "hpccoutf.txt"
    text = f.read_text(errors="replace")
    if "FAILED" in text:
        return "a test FAILED: " + lines_matching(text, "FAILED")[0]
    return ""


# LAMMPS ------------------------------------------------------------------------------------

# Its CMake build with no optional package (the core: pair styles such as lj/cut, fixes, computes,
# neighbour lists, the spatial decomposition), no OpenMP and no image or compression libraries.
LAMMPS_CMAKE = ["-DCMAKE_BUILD_TYPE=Release", "-DBUILD_MPI=ON", "-DBUILD_OMP=OFF", "-DWITH_JPEG=OFF",
                "-DWITH_PNG=OFF", "-DWITH_GZIP=OFF", "-DWITH_FFMPEG=OFF", "-DBUILD_SHARED_LIBS=OFF"]


def build_lammps(ctx: Context, kind: str, src: Path, dest: Path, logf: Path) -> Path:
    _, cxx = ctx.compilers(kind)
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    # The Lennard-Jones melt of its benchmark suite (bench/in.lj: 32,000 atoms, 100 steps),
    # beside the binary for lammps_prepare.
    shutil.copy(src / "bench" / "in.lj", dest / "in.lj")
    if build(dest, logf, ["cmake", "-S", str(src / "cmake"), "-B", str(dest),
                          f"-DCMAKE_CXX_COMPILER={cxx}", *LAMMPS_CMAKE]):
        build(dest, logf, ["cmake", "--build", str(dest), "-j", str(ctx.jobs)])
    return dest / "lmp"


def lammps_prepare(run_dir: Path, tree: Path) -> None:
    shutil.copy(tree / "in.lj", run_dir / "in.lj")


def lammps_values(run_dir: Path) -> list[str]:
    # Its thermodynamic output (step, temperature, energies, pressure) and the atom count.
    out = output_of(run_dir)
    return (lines_matching(out, r"^\s*\d+\s+[-0-9.e+]+\s+[-0-9.e+]+\s+[-0-9.e+]+\s+[-0-9.e+]+") +
            re.findall(r"with (\d+ atoms)", out))


def lammps_verify(run_dir: Path) -> str:
    out = output_of(run_dir)
    if "ERROR" in out:
        return lines_matching(out, "ERROR")[0]
    if "Total wall time" not in out:
        return "no 'Total wall time' line (it did not finish)"
    return "" if len(lammps_values(run_dir)) >= 3 else "fewer than 2 thermo lines"


# NetPIPE -----------------------------------------------------------------------------------

def build_netpipe(ctx: Context, kind: str, src: Path, dest: Path, logf: Path) -> Path:
    copy_tree(src, dest)
    cc, _ = ctx.compilers(kind)
    build(dest, logf, ["make", "mpi", f"MPICC={cc}"])
    return dest / "NPmpi"


def netpipe_values(run_dir: Path) -> list[str]:
    # The sizes it went through (its integrity check moves real data each time).
    return re.findall(r"^\s*\d+:\s+(\d+) bytes", output_of(run_dir), flags=re.M)


def netpipe_verify(run_dir: Path) -> str:
    out = output_of(run_dir)
    if "Integrity check failed" in out or "integrity check failed" in out.lower():
        return "its integrity check failed"
    if "integrity check instead" not in out:
        return "it did not run its integrity check"
    sizes, passed = len(netpipe_values(run_dir)), out.count("Integrity check passed")
    if sizes == 0:
        return "no message sizes printed"
    return "" if passed == sizes else f"{passed} integrity checks passed for {sizes} sizes"


# ScaLAPACK's BLACS tester -------------------------------------------------------------------

def in_shared_build(name: str, folder: str,
                    where: Callable[[Context, str, Path, Path], Path | None],
                    binary: str) -> Callable[[Context, str, Path, Path, Path], Path]:
    """A program that is `binary` of a tree built once per kind: `where(ctx, kind, src, log)`
    builds it (its log WORK/folder/KIND.build.log) and gives the binary's directory, or None."""
    def build_program(ctx: Context, kind: str, src: Path, dest: Path, logf: Path) -> Path:
        dest.mkdir(parents=True, exist_ok=True)
        log_name = f"{folder}/{kind}.build.log"
        directory = where(ctx, kind, src, ctx.work / log_name)
        if directory is None or not (directory / binary).exists():
            logf.write_text(f"error: {name} did not build with {kind}'s compilers ({log_name})\n")
            return dest / binary
        return directory / binary
    return build_program


def write_slmake(ctx: Context, kind: str, tree: Path) -> None:
    """ScaLAPACK's SLmake.inc from its example, with `kind`'s compilers."""
    cc, _ = ctx.compilers(kind)
    fc = ctx.fortran(kind)
    # gfortran 10 and later reject calls of one routine with buffers of several types unless
    # told to accept them (-fallow-argument-mismatch), as ScaLAPACK's own example settings say.
    settings = {"FC": fc, "CC": cc, "FCLOADER": fc, "CCLOADER": cc,
                "FCFLAGS": "-O2 -fallow-argument-mismatch", "CCFLAGS": "-O2",
                "NOOPT": "-O0 -fallow-argument-mismatch"}
    text = (tree / "SLmake.inc.example").read_text()
    for key, value in settings.items():
        text = re.sub(rf"^{key}\s*=.*$", f"{key} = {value}", text, flags=re.M)
    (tree / "SLmake.inc").write_text(text)


def build_blacs(ctx: Context, kind: str, src: Path, dest: Path, logf: Path) -> Path:
    copy_tree(src, dest)
    write_slmake(ctx, kind, dest)
    build(dest, logf, ["make", "blacslib"])
    build(dest / "BLACS", logf, ["make", "tester"])
    return dest / "BLACS" / "TESTING" / "xFbtest"


def blacs_prepare(run_dir: Path, tree: Path) -> None:
    # Its input files; the auxiliary tests end with BLACS_ABORT (every MPI ends the run with
    # -1): left out, so that a run's status says whether it passed.
    for data in tree.glob("*.dat"):
        shutil.copy(data, run_dir / data.name)
    bt = run_dir / "bt.dat"
    bt.write_text(re.sub(r"^'T'(\s+Run AUX\?)", r"'F'\1", bt.read_text(), flags=re.M))


def blacs_values(run_dir: Path) -> list[str]:
    return lines_matching(output_of(run_dir), r"TESTS:\s+\d+ TESTS;")


def blacs_verify(run_dir: Path) -> str:
    summaries = blacs_values(run_dir)
    if len(summaries) < 20:
        return f"{len(summaries)} test summaries printed (expected the 25 of bt.dat)"
    failed = [line for line in summaries if not re.search(r"\s0 FAILED\.", line)]
    return f"a test FAILED: {failed[0]}" if failed else ""


# ScaLAPACK's test drivers: the library in its four precisions (with BLAS and LAPACK from
# Debian) and its drivers, built once per kind; each driver a program of its own.

SCALAPACK_PRECISIONS = [("s", "single"), ("d", "double"), ("c", "complex"), ("z", "complex16")]
SCALAPACK_TESTS = [  # name, binary after the precision letter, what it tests
    ("lu", "lu", "LU factorization and solve"), ("llt", "llt", "Cholesky"),
    ("qr", "qr", "QR, RQ, QL, LQ and QR with pivoting"), ("inv", "inv", "matrix inversion"),
    ("ls", "ls", "least squares")]
SCALAPACK_DRIVERS = [  # name, binary, what it tests
    (f"{test}" if letter == "d" else f"{letter}{test}", f"x{letter}{binary}",
     f"{what} ({precision})")
    for letter, precision in SCALAPACK_PRECISIONS for test, binary, what in SCALAPACK_TESTS]


def scalapack_tree(ctx: Context, kind: str, src: Path, logf: Path) -> Path | None:
    """ScaLAPACK built with `kind`'s compilers, once: its copy's TESTING/traditional."""
    tree = ctx.work / "scalapack" / kind
    drivers = tree / "TESTING" / "traditional"
    if all((drivers / binary).exists() for _, binary, _ in SCALAPACK_DRIVERS):
        return drivers
    copy_tree(src, tree)
    write_slmake(ctx, kind, tree)
    precisions = "PRECISIONS=" + " ".join(p for _, p in SCALAPACK_PRECISIONS)
    # Serial: its makefiles archive into one library from several directories, which a
    # parallel make runs at once (a truncated member, or an archive ranlib cannot read).
    if (build(tree, logf, ["make", precisions, "lib"])
            and build(drivers / "LIN", logf, ["make", *(p for _, p in SCALAPACK_PRECISIONS)])):
        return drivers
    return None


def scalapack_prepare(run_dir: Path, tree: Path) -> None:
    for data in tree.glob("*.dat"):  # its input files, beside the drivers
        shutil.copy(data, run_dir / data.name)


def scalapack_values(run_dir: Path) -> list[str]:
    return lines_matching(output_of(run_dir), r"tests completed|tests skipped")


def scalapack_verify(run_dir: Path) -> str:
    text = output_of(run_dir)
    passed = re.search(r"(\d+) tests completed and passed", text)
    failed = re.search(r"(\d+) tests completed and failed", text)
    if not passed or not failed:
        return "no summary of its residual checks printed"
    if int(failed.group(1)) > 0:
        return f"{failed.group(1)} tests failed their residual checks"
    return "" if int(passed.group(1)) > 0 else "no test passed"


# NPB 3.4's MPI codes ------------------------------------------------------------------------
# The suite built once per kind for class W (its make.def with the kind's compilers), then each
# benchmark a program of its own: BT and SP on 9 ranks (they need a square), the others on 8.

NPB_BENCHMARKS = [  # name, ranks, what it computes
    ("bt", 9, "block-tridiagonal ADI"), ("sp", 9, "scalar-pentadiagonal ADI"),
    ("lu", 8, "SSOR"), ("cg", 8, "conjugate gradient"), ("mg", 8, "multigrid"),
    ("ft", 8, "3-D FFT"), ("ep", 8, "embarrassingly parallel"), ("is", 8, "integer sort, C")]
NPB_CLASS = "W"


def write_npb_make_def(ctx: Context, kind: str, tree: Path) -> None:
    """NPB's config/make.def from its template, with `kind`'s compilers."""
    cc, _ = ctx.compilers(kind)
    # gfortran 10 and later reject calls of one routine with buffers of several types through
    # mpif.h's implicit interfaces unless told to accept them, as for ScaLAPACK.
    settings = {"MPIFC": ctx.fortran(kind), "MPICC": cc,
                "FFLAGS": "-O3 -fallow-argument-mismatch", "CFLAGS": "-O3"}
    text = (tree / "config" / "make.def.template").read_text()
    for key, value in settings.items():
        text = re.sub(rf"^{key}\s*=.*$", f"{key} = {value}", text, flags=re.M)
    (tree / "config" / "make.def").write_text(text)


def npb_bin(ctx: Context, kind: str, src: Path, logf: Path) -> Path:
    """NPB built with `kind`'s compilers, once: its copy's bin/ (a benchmark that did not build
    is missing there; its errors are in the log)."""
    tree = ctx.work / "npb" / kind
    binaries = tree / "bin"
    if all((binaries / f"{b}.{NPB_CLASS}.x").exists() for b, _, _ in NPB_BENCHMARKS):
        return binaries
    copy_tree(src, tree)
    write_npb_make_def(ctx, kind, tree)
    binaries.mkdir(exist_ok=True)  # the published tree has it empty; a snapshot may lack it
    for name, _, _ in NPB_BENCHMARKS:
        build(tree, logf, ["make", name, f"CLASS={NPB_CLASS}"])
    return binaries


def npb_values(run_dir: Path) -> list[str]:
    """The values NPB verifies (BT, SP and LU: each computed norm, not its reference and
    difference; CG: zeta per iteration; MG: the L2 norm; FT: the checksums; EP: the sums and
    counts), its problem size and its verdict."""
    text = output_of(run_dir)
    values = lines_matching(text, r"^\s*(Size|Iterations|Class)\b|Verification\s*=|"
                                  r"Zeta is|L2 Norm is|Checksum =|Sums =|Gaussian Pairs")
    for line in text.splitlines():
        norm = re.match(r"^\s+(\d+)\s+(\S+E[-+]\d+)\s+\S+E[-+]\d+\s+\S+$", line)
        zeta = re.match(r"^\s+(\d+)\s+\S+E[-+]\d+\s+(\d+\.\d+)$", line)
        surface = re.match(r"^\s+(\S+E[-+]\d+)\s+\S+E[-+]\d+\s+\S+E[-+]\d+$", line)
        count = re.match(r"^\s+(\d)\s+(\d+)\.$", line)
        if norm:
            values.append(f"norm {norm.group(1)} {norm.group(2)}")
        elif zeta:
            values.append(f"zeta {zeta.group(1)} {zeta.group(2)}")
        elif surface:
            values.append(f"surface integral {surface.group(1)}")
        elif count:
            values.append(f"count {count.group(1)} {count.group(2)}")
    return [v for v in values if not re.search(r"Time|Mop", v)]


def npb_verify(run_dir: Path) -> str:
    text = output_of(run_dir)
    verdict = re.search(r"Verification\s*=\s*(\S+)", text)
    if not verdict:
        return "no verification verdict printed"
    return "" if verdict.group(1) == "SUCCESSFUL" else f"its verification: {verdict.group(1)}"


# MUMPS 5.x's examples -------------------------------------------------------------------------
# The library in its four arithmetics (PORD ordering, on the ScaLAPACK built above from
# scalapack=DIR, BLAS and LAPACK from Debian) and every example, built once per kind: `make all`
# with a Makefile.inc of the kind's compilers.

MUMPS_EXAMPLES = [  # name, binary, its input on standard input, what it solves, its precision
    *((f"{a}{suffix}", f"{a}simpletest{binary}", "input_simpletest_" + (
        "real" if a in "sd" else "cmplx"), f"{what} ({kind} arithmetic)", a)
      for a, kind in [("s", "single real"), ("d", "double real"), ("c", "single complex"),
                      ("z", "double complex")]
      for suffix, binary, what in [
          ("", "", "an unsymmetric system, Fortran"),
          ("-save-restore", "_save_restore",
           "the same system factored, saved to a file per rank, restored and solved")]),
    ("c-interface", "c_example", "", "a 2x2 system through the C interface", "d"),
    ("c-interface-save-restore", "c_example_save_restore", "",
     "the C example saved and restored", "d"),
    ("multi", "multiple_arithmetics_example", "",
     "an instance of each arithmetic made and ended in one program", ""),
]
# Where the save-and-restore examples write (their fixed /tmp names): removed before each run,
# as a failed run leaves them and the next would refuse to overwrite them.
MUMPS_SAVED = ["mumps_simpletest_save_*", "csave_restore_*"]


def write_mumps_make_inc(ctx: Context, kind: str, tree: Path, scalapack: Path) -> None:
    cc, _ = ctx.compilers(kind)
    fc = ctx.fortran(kind)
    # Make.inc/Makefile.inc.generic's settings, PORD the only ordering; gfortran 10 and later
    # need -fallow-argument-mismatch for MUMPS's MPI calls, as Debian's build gives it.
    (tree / "Makefile.inc").write_text(f"""LPORDDIR = $(topdir)/PORD/lib/
IPORD = -I$(topdir)/PORD/include/
LPORD = -L$(LPORDDIR) -lpord
ORDERINGSF = -Dpord
ORDERINGSC = $(ORDERINGSF)
LORDERINGS = $(LPORD)
IORDERINGSF =
IORDERINGSC = $(IPORD)
PLAT =
LIBEXT_SHARED = .so
FPIC_OPT = -fPIC
LIBEXT = .a
OUTC = -o \nOUTF = -o \nRM = /bin/rm -f
CC = {cc}
FC = {fc}
FL = {fc}
AR = ar vr \nRANLIB = ranlib
LAPACK = -llapack
SCALAP = {scalapack}
INCPAR =
LIBPAR = $(SCALAP) $(LAPACK)
LIBBLAS = -lblas
LIBOTHERS = -lpthread
CDEFS = -DAdd_
OPTF = -O -fallow-argument-mismatch
OPTL = -O
OPTC = -O
INCS = $(INCPAR)
LIBS = $(LIBPAR)
LIBSEQNEEDED =
""")


def mumps_examples(ctx: Context, kind: str, src: Path, logf: Path) -> Path | None:
    """MUMPS built with `kind`'s compilers, once: its copy's examples/ (None when it did not
    build)."""
    tree = ctx.work / "mumps" / kind
    examples = tree / "examples"
    if all((examples / e[1]).exists() for e in MUMPS_EXAMPLES):
        return examples
    drivers = scalapack_tree(ctx, kind, ctx.trees["scalapack"],
                             ctx.work / "scalapack" / f"{kind}.build.log")
    if drivers is None:
        logf.write_text(f"error: ScaLAPACK did not build with {kind}'s compilers "
                        f"(scalapack/{kind}.build.log)\n")
        return None
    copy_tree(src, tree)
    write_mumps_make_inc(ctx, kind, tree, drivers.parent.parent / "libscalapack.a")
    return examples if build(tree, logf, ["make", "all"]) else None


def mumps_prepare(stdin: str) -> Callable[[Path, Path], None]:
    def prepare(run_dir: Path, tree: Path) -> None:
        for pattern in MUMPS_SAVED:
            for f in Path(tempfile.gettempdir()).glob(pattern):
                f.unlink(missing_ok=True)
        if stdin:
            shutil.copy(tree / stdin, run_dir / "stdin.txt")
    return prepare


def mumps_values(run_dir: Path) -> list[str]:
    return lines_matching(output_of(run_dir), r"Solution is|instaces went well")


def mumps_solution(line: str, complex_values: bool) -> list[complex]:
    """The numbers of a `Solution is` line: reals, or (re,im) pairs."""
    line = line.replace("D", "E")
    number = r"[-+]?\d*\.\d+(?:[Ee][-+]?\d+)?"
    if complex_values:
        return [complex(float(re_), float(im)) for re_, im in
                re.findall(rf"\(\s*({number})\s*,\s*({number})\s*\)", line)]
    return [complex(float(x)) for x in re.findall(number, line)]


def mumps_accuracy(precision: str) -> tuple[float, float]:
    """An example's accuracy in its arithmetic (s, d, c, z): how far its solution may lie from
    the exact one, and how far its printed values may lie from Open MPI's run's (relative)."""
    return (1e-4, 1e-5) if precision in ("s", "c") else (1e-8, 1e-12)


def mumps_verify_for(precision: str) -> Callable[[Path], str]:
    """What is wrong with a run of an example of `precision` (s, d, c, z; "" for the
    multi-arithmetic one, which only says its instances went well): its solution must be
    1, 2, ..., n within the arithmetic's accuracy."""
    tolerance = mumps_accuracy(precision)[0]

    def verify(run_dir: Path) -> str:
        text = output_of(run_dir)
        error = re.search(r"(?im)^.*ERROR RETURN.*$", text)
        if error:
            return error.group(0).strip()
        if not precision:
            return "" if "instaces went well" in text else "no success message printed"
        solutions = lines_matching(text, r"Solution is")
        if not solutions:
            return "no solution printed"
        numbers = mumps_solution(solutions[-1], precision in ("c", "z"))
        expected = [complex(i + 1) for i in range(len(numbers))]
        if len(numbers) not in (2, 5) or any(abs(a - b) > tolerance
                                             for a, b in zip(numbers, expected)):
            return f"solution {numbers} (expected {expected})"
        return ""
    return verify


# ---------------------------------------------------------------------------------------------
# The programs, with their runs and what is compared

PROGRAMS: dict[str, Program] = {p.name: p for p in [
    Program("hpcg", "the top of an HPCG source tree (src/main.cpp, setup/)", "src/main.cpp", 8,
            ["--nx=16", "--ny=16", "--nz=16", "--rt=1"], build_hpcg, hpcg_values, hpcg_verify,
            tolerance=1e-9, balance_every=5,
            compared="its V&V (4 PASSED, VALID); sizes, iteration counts, residuals, departures "
                     "from symmetry"),
    Program("comd", "the top of a CoMD source tree (src-mpi/Makefile.vanilla)",
            "src-mpi/Makefile.vanilla", 8, "-i 2 -j 2 -k 2 -x 20 -y 20 -z 20 -N 20 -n 5".split(),
            build_comd, comd_values, comd_verify, tolerance=1e-11, balance_every=5,
            compared="the energy table every 5 steps, initial and final energy, atom count"),
    Program("lulesh", "a LULESH 2.0 source directory (lulesh.cc)", "lulesh.cc", 8,
            "-s 10 -i 50".split(), build_lulesh, lulesh_values, lulesh_verify, balance_every=10,
            compared="final origin energy, energy symmetry (MaxAbsDiff, TotalAbsDiff, "
                     "MaxRelDiff), iteration count"),
    Program("minife", "the top of a miniFE source tree (ref/src/Makefile)", "ref/src/Makefile", 8,
            "nx=40 ny=40 nz=40".split(), build_minife, minife_values, minife_verify,
            tolerance=1e-12, balance_every=20,
            compared="every value of its YAML report but times, rates and memory (CG "
                     "iterations, final residual)"),
    Program("miniamr", "the top of a miniAMR source tree (ref/main.c)", "ref/main.c", 8,
            MINIAMR_ARGS, build_miniamr, miniamr_values, miniamr_verify, tolerance=1e-12,
            heap="2G", balance_every=20,
            compared="every line of its report but timings (block counts, refinement, "
                     "checksums, which it checks itself)"),
    Program("hpcc", "the top of an HPC Challenge 1.5 tree (src/hpcc.c, hpl/)", "src/hpcc.c", 4,
            [], build_hpcc, hpcc_values, hpcc_verify, tolerance=1e-6, prepare=hpcc_prepare,
            balance_every=1,
            compared="Success=1, HPL's residual check PASSED, PTRANS residual, RandomAccess "
                     "errors, FFT error, the sizes (its summary)"),
    Program("blacs", "the top of a ScaLAPACK 2.x tree (BLACS/TESTING/blacstest.f)",
            "BLACS/TESTING/blacstest.f", 4, [], build_blacs, blacs_values, blacs_verify,
            prepare=blacs_prepare, balance_every=1,
            compared="the count of passed, skipped and failed tests of every kind (point-to-point, "
                     "broadcasts, combines; 5 precisions), which it checks itself"),
    Program("lammps", "the top of a LAMMPS source tree (src/lammps.cpp, cmake/, bench/in.lj)",
            "src/lammps.cpp", 4, ["-in", "in.lj"], build_lammps, lammps_values, lammps_verify,
            tolerance=1e-7, prepare=lammps_prepare, balance_every=50,
            compared="its thermodynamic output at steps 0 and 100 (temperature, energies, "
                     "pressure) and the atom count, of its Lennard-Jones benchmark (bench/in.lj)"),
    Program("netpipe", "the top of a NetPIPE 3.7 tree (src/netpipe.c)", "src/netpipe.c", 2,
            ["-i", "-u", "1048576"], build_netpipe, netpipe_values, netpipe_verify,
            compared="its integrity check of every message (-i), the sizes"),
]}
KNOWN = [*PROGRAMS, "hypre", "scalapack", "npb", "mumps", "osu"]


# ---------------------------------------------------------------------------------------------
# One program: build both ways, run four ways, compare


@dataclass
class Row:
    program: str
    calls: list[str] = field(default_factory=list)
    builds: str = ""
    runs: str = ""
    same: str = ""
    time: str = ""
    greedy: str = ""
    notes: list[str] = field(default_factory=list)
    failed: bool = False


def median_range(values: list[float]) -> str:
    if not values:
        return "-"
    if len(values) == 1:
        return f"{values[0]:.2f} s"
    return f"{statistics.median(values):.2f} s ({min(values):.2f}–{max(values):.2f})"


def compare(p: Program, reference: list[str], other: list[str], exact: bool) -> str:
    """'' when equal (exactly, or within p.tolerance), else the first difference."""
    if len(reference) != len(other):
        return f"{len(other)} values against {len(reference)}"
    for a, b in zip(reference, other):
        if a == b:
            continue
        if exact or not numbers_close(a, b, p.tolerance):
            return f"'{b}' against '{a}'"
    return ""


def validate(ctx: Context, p: Program, src: Path) -> Row:
    row, base = Row(p.name), ctx.work / p.name
    base.mkdir(parents=True, exist_ok=True)
    binaries = {}
    for kind in ("vela", "openmpi"):
        logf = base / f"{kind}.build.log"
        logf.write_text("")
        log(f"{p.name}: building with {kind}'s compilers ({logf})")
        binary = p.build(ctx, kind, src, base / kind, logf)
        if binary.exists() and os.access(binary, os.X_OK):
            binaries[kind] = binary
        else:
            row.notes.append(f"{kind} build failed: {first_error(logf)} ({logf.name})")
    row.builds = ", ".join(f"{k} {'yes' if k in binaries else 'NO'}" for k in ("vela", "openmpi"))
    if len(binaries) == 2:
        row.calls = mpi_calls(base / "vela", binaries["openmpi"])
    if len(binaries) < 2:
        row.failed = True
        return row
    vela, ompi, n = binaries["vela"], binaries["openmpi"], p.ranks
    heap = ["--vp-heap", p.heap] if p.heap else []
    prepare = (lambda d: p.prepare(d, vela.parent)) if p.prepare else None
    layouts = {
        "vela": [str(vela), *p.args, "--vp", str(n), "--pes", "2"],
        "openmpi": [*ctx.mpirun, "-np", str(n), str(ompi), *p.args],
    }
    outcomes: dict[str, list[Outcome]] = {"vela": [], "openmpi": []}
    for i in range(ctx.repeat):  # the timed runs, alternately
        for label in ("vela", "openmpi"):
            log(f"{p.name}: {label} ({i + 1} of {ctx.repeat})")
            outcomes[label].append(run(label, layouts[label], base / "runs" / f"{label}-{i + 1}",
                                       p.limit, prepare))
    extra = {
        "vela-mpirun": [*ctx.mpirun, "-np", "2", str(vela), *p.args, "--vp", str(n), *heap],
        "vela-greedy": [str(vela), *p.args, "--vp", str(n), "--pes", "2", "--lb", "greedy",
                        "--vp-balance-every", f"allreduce:{p.balance_every}", "--lb-dump",
                        "lb"],
    }
    for label, command in extra.items():
        log(f"{p.name}: {label}")
        outcomes[label] = [run(label, command, base / "runs" / label, p.limit, prepare)]
    # Every run: ended well and passed the program's own checks.
    good: dict[str, Outcome] = {}
    runs = []
    for label in ("vela", "vela-mpirun", "vela-greedy", "openmpi"):
        bad = ""
        for o in outcomes[label]:
            bad = o.failure() if o.status != 0 else p.verify(o.directory)
            if bad:
                row.notes.append(f"{label} ({o.directory.name}): {bad}")
                break
        runs.append(f"{label} {'ok' if not bad else 'FAIL'}")
        if not bad:
            good[label] = outcomes[label][0]
    row.runs = ", ".join(runs)
    # Vela's runs the same bits among themselves; Open MPI's within the program's tolerance.
    same = []
    if "vela" in good:
        ref = p.values(good["vela"].directory)
        if not ref:
            row.notes.append("no values found to compare in vela's output")
            row.failed = True
        for label in ("vela-mpirun", "vela-greedy", "openmpi"):
            if label not in good:
                continue
            for o in outcomes[label] + (outcomes["vela"][1:] if label == "vela-mpirun" else []):
                diff = compare(p, ref, p.values(o.directory), exact=label != "openmpi")
                if diff:
                    row.notes.append(f"{o.directory.name} differs from vela-1: {diff}")
                    row.failed = True
                    break
            else:
                same.append(label)
        count = len(ref)
        how = "exactly" if p.tolerance == 0 else f"within {p.tolerance:g} relative"
        row.same = (f"{count} values: Vela's runs identical; Open MPI's equal {how}"
                    if len(same) == 3 else "NO")
    else:
        row.same = "NO"
    if len(good) < 4:
        row.failed = True
    tv = [o.seconds for o in outcomes["vela"]]
    to = [o.seconds for o in outcomes["openmpi"]]
    row.time = (f"{statistics.median(tv) / statistics.median(to):.2f} "
                f"({median_range(tv)} / {median_range(to)})")
    row.greedy = balancing_summary(outcomes["vela-greedy"][0])
    return row


def balancing_summary(o: Outcome) -> str:
    """The greedy run's time, its balancing points and rank moves, and the imbalance (max/mean
    PE load) at its first and last point, from its --lb-dump instances."""
    import json
    steps = sorted((o.directory / "lb").glob("*-step*.json"),
                   key=lambda f: int(re.search(r"step(\d+)", f.name).group(1)))
    text = f"{o.seconds:.2f} s"
    if not steps:
        return text + ", no balancing point"
    where, moves, imbalance = {}, 0, []
    for f in steps:
        objects = json.loads(f.read_text())["objects"]
        pes = dict(zip(objects["id"], objects["pe"]))
        moves += sum(1 for i, pe in pes.items() if i in where and where[i] != pe)
        where = pes
        load: dict[int, float] = {}
        for pe, l in zip(objects["pe"], objects["load"]):
            load[pe] = load.get(pe, 0.0) + l
        mean = sum(load.values()) / max(len(load), 1)
        imbalance.append(max(load.values()) / mean if mean > 0 else 1.0)
    return (f"{text}, {len(steps)} points, {moves} rank moves, max/mean PE load "
            f"{imbalance[0]:.2f} at the first, {imbalance[-1]:.2f} at the last")


# hypre -------------------------------------------------------------------------------------
# The library is built once per compiler (configure and make in its src/), then each example.

HYPRE_EXAMPLES = [  # name, ranks, arguments (the examples' own sample runs, on 2 to 8 ranks)
    ("ex1", 2, []), ("ex2", 2, []), ("ex3", 4, "-n 33 -solver 0 -v 1 1".split()),
    ("ex4", 4, "-n 33 -solver 10 -K 3 -B 0 -C 1 -U0 2 -F 4".split()), ("ex5", 4, []),
    ("ex6", 2, []), ("ex7", 4, "-n 33 -solver 10 -K 3 -B 0 -C 1 -U0 2 -F 4".split()),
    ("ex8", 2, []), ("ex9", 4, "-n 33 -solver 0 -v 1 1".split()), ("ex11", 4, []),
    ("ex12", 2, ["-pfmg"]), ("ex13", 6, "-n 10".split()), ("ex14", 6, "-n 10".split()),
    ("ex15", 8, "-n 10".split()), ("ex16", 4, "-n 10".split()),
]


def hypre_library(ctx: Context, kind: str, src: Path, logf: Path) -> Path | None:
    """hypre's src/ configured and built with `kind`'s compilers, once: its copy's src/."""
    tree = ctx.work / "hypre" / kind
    done = tree / "src" / "hypre" / "lib" / "libHYPRE.a"
    if done.exists():
        return tree / "src"
    copy_tree(src, tree)
    cc, cxx = ctx.compilers(kind)
    d = tree / "src"
    if (build(d, logf, ["./configure", f"CC={cc}", f"CXX={cxx}", "--disable-fortran",
                        "--without-openmp"])
            and build(d, logf, ["make", f"-j{ctx.jobs}"])):
        return d if done.exists() else None
    return None


def hypre_example(name: str) -> Callable[[Context, str, Path, Path, Path], Path]:
    def build_example(ctx: Context, kind: str, src: Path, dest: Path, logf: Path) -> Path:
        dest.mkdir(parents=True, exist_ok=True)
        lib = hypre_library(ctx, kind, src, ctx.work / "hypre" / f"{kind}.library.log")
        if lib is None:
            logf.write_text(f"error: the hypre library did not build with {kind}'s compilers "
                            f"(hypre/{kind}.library.log)\n")
            return dest / name
        cc, cxx = ctx.compilers(kind)
        examples = lib / "examples"
        build(examples, logf, ["make", f"CC={cc}", f"CXX={cxx}", f"LINK_CC={cc}", name])
        if (examples / name).exists():
            shutil.copy(examples / name, dest / name)
            (examples / name).unlink()
        return dest / name
    return build_example


def hypre_values(run_dir: Path) -> list[str]:
    # Every line with a number but those of times: the solvers' settings and level tables,
    # their iteration counts, residual norms (or convergence tables) and eigenvalues.
    out = output_of(run_dir)
    return [re.sub(r"\s+", " ", l.strip()) for l in out.splitlines()
            if re.search(r"\d", l) and not re.search(r"time|seconds|wall|MPI tasks|threads",
                                                      l, re.I)]


def hypre_verify(run_dir: Path) -> str:
    out = output_of(run_dir)
    if re.search(r"Must run with|Can't run on|error", out, re.I):
        return lines_matching(out, r"(?i)Must run with|Can't run on|error")[0]
    return "" if re.search(r"Iterations|Iters|iterations", out) else "no iteration count"


for example, ranks, arguments in HYPRE_EXAMPLES:
    PROGRAMS[f"hypre-{example}"] = Program(
        f"hypre-{example}", "the top of a hypre 2.x tree (src/configure, src/examples/)",
        "src/examples/ex5.c", ranks, arguments, hypre_example(example), hypre_values,
        hypre_verify, tolerance=1e-6, balance_every=1, limit=300,
        compared="every printed number but times: settings, level tables, iteration counts, "
                 "residual norms or convergence tables (printed with 7 digits)")


for name, ranks, what in NPB_BENCHMARKS:
    PROGRAMS[f"npb-{name}"] = Program(
        f"npb-{name}", "the top of an NPB 3.4 MPI tree (NPB3.4-MPI: config/, sys/, BT/ ... SP/)",
        "sys/setparams.c", ranks, [],
        in_shared_build(f"NPB's {name}", "npb", npb_bin, f"{name}.{NPB_CLASS}.x"), npb_values,
        npb_verify,
        tolerance=1e-10, balance_every=1, limit=300,
        compared=f"class {NPB_CLASS}: the values its verification checks ({what}), printed "
                 "with 13 digits")


for example, binary, stdin, what, precision in MUMPS_EXAMPLES:
    exact, against_openmpi = mumps_accuracy(precision)
    PROGRAMS[f"mumps-{example}"] = Program(
        f"mumps-{example}", "the top of a MUMPS 5.x tree (src/, PORD/, examples/)",
        "examples/dsimpletest.F", 4, [],
        in_shared_build("MUMPS", "mumps", mumps_examples, binary), mumps_values,
        mumps_verify_for(precision), tolerance=against_openmpi, prepare=mumps_prepare(stdin),
        balance_every=1, limit=120,
        compared=f"the solution it prints ({what}), each value within {exact:g} of the exact one"
        if precision else f"its message that all went well ({what})")


for driver, binary, what in SCALAPACK_DRIVERS:
    PROGRAMS[f"scalapack-{driver}"] = Program(
        f"scalapack-{driver}", "the top of a ScaLAPACK 2.x tree (TESTING/traditional/LIN/)",
        "TESTING/traditional/LIN/pdludriver.f", 4, [],
        in_shared_build("ScaLAPACK", "scalapack", scalapack_tree, binary),
        scalapack_values, scalapack_verify, prepare=scalapack_prepare, balance_every=1,
        limit=300, compared=f"the count of tests of {what} that passed and failed their "
                            "residual checks (its own verification)")


def programs_for(name: str) -> list[Program]:
    if name in ("hypre", "scalapack", "npb", "mumps"):
        return [p for key, p in PROGRAMS.items() if key.startswith(f"{name}-")]
    return [PROGRAMS[name]]


# ---------------------------------------------------------------------------------------------
# OSU micro-benchmarks: every pt2pt, collective and one-sided one, 2 ranks, three Vela layouts

OSU_LAYOUTS = [  # label, how (None: Open MPI's build)
    ("vela 2 PEs", lambda b: [b, "--vp", "2", "--pes", "2"]),
    ("vela 1 PE", lambda b: [b, "--vp", "2", "--pes", "1"]),
    ("vela 2 processes", lambda b: ["MPIRUN", "-np", "2", b, "--vp", "2"]),
    ("openmpi", lambda b: ["MPIRUN", "-np", "2", b]),
]


def osu_table(text: str) -> list[tuple[str, str]]:
    """(size, first figure) of each row of an OSU table; size '-' for a table without sizes."""
    rows = []
    for line in text.splitlines():
        words = line.split()
        if words and re.fullmatch(r"\d+", words[0]) and len(words) >= 2 and \
                re.fullmatch(r"[\d.]+", words[1]):
            rows.append((words[0], words[1]))
        elif words and not line.startswith("#") and \
                all(re.fullmatch(r"\d+\.\d+", w) for w in words):
            rows.append(("-", words[0]))  # a table without sizes (barrier, ibarrier)
    return rows


def osu_unit(text: str) -> str:
    """The unit of the table's first figure, from its column header ("# Size  Latency (us)")."""
    for line in text.splitlines():
        if line.startswith("#") and not line.startswith("# OSU") and \
                re.search(r"\bSize\b|Latency|Overall", line):
            m = re.search(r"\(([^)]+)\)", line) or re.search(r"\b(MB/s|us)\b", line)
            if m:
                return m.group(1)
    return ""


@dataclass
class OsuResult:
    name: str
    kind: str
    built: bool
    why: str = ""
    runs: dict[str, Outcome] = field(default_factory=dict)
    bad: dict[str, str] = field(default_factory=dict)
    unsupported: str = ""  # a documented limit of Vela's, not a failure


def validate_osu(ctx: Context, root: Path, sizes: str) -> list[OsuResult]:
    util = root / "c" / "util"
    base = ctx.work / "osu"
    results = []
    sources = [s for kind in ("pt2pt", "collective", "one-sided")
               for s in sorted((root / "c" / "mpi" / kind).glob("osu_*.c"))]
    for source in sources:
        name, kind = source.stem, source.parent.name
        r = OsuResult(name, kind, True)
        binaries = {}
        for compiler in ("vela", "openmpi"):
            cc, _ = ctx.compilers(compiler)
            d = base / compiler
            d.mkdir(parents=True, exist_ok=True)
            logf = d / f"{name}.log"
            logf.write_text("")
            if build(d, logf, [cc, "-O2", '-DPACKAGE_VERSION="real-codes"', f"-I{util}", "-o",
                               name, str(source), str(util / "osu_util.c"),
                               str(util / "osu_util_mpi.c"), "-lm"]):
                binaries[compiler] = str(d / name)
            else:
                r.built = False
                r.why += f"{compiler} build failed: {first_error(logf)}; "
        if len(binaries) == 2:
            args = ["-m", sizes, "-i", "100", "-x", "10"]
            if kind == "collective" and name in ("osu_barrier", "osu_ibarrier"):
                args = ["-i", "100", "-x", "10"]
            for label, how in OSU_LAYOUTS:
                binary = binaries["openmpi" if label == "openmpi" else "vela"]
                command = [w for x in how(binary) for w in (ctx.mpirun if x == "MPIRUN" else [x])]
                log(f"osu: {name}: {label}")
                if label == "openmpi" and kind == "one-sided":
                    # Open MPI 4.1's default one-sided component needs network hardware for
                    # atomics (osu_cas_latency crashes in it): its point-to-point one.
                    command = ["env", "OMPI_MCA_osc=pt2pt", *command]
                o = run(label, [*command, *args],
                        base / "runs" / name / label.replace(" ", "-"), 120)
                r.runs[label] = o
                if o.status != 0 and "MPI_THREAD_MULTIPLE" in o.output and label != "openmpi":
                    r.unsupported = ("needs MPI_THREAD_MULTIPLE (threads of one rank calling MPI "
                                     "at once); Vela's ranks give MPI_THREAD_FUNNELED")
                elif o.status != 0:
                    r.bad[label] = o.failure()
                elif not osu_table(o.output):
                    r.bad[label] = "no table printed"
        results.append(r)
    return results


# ---------------------------------------------------------------------------------------------
# The report


def machine() -> str:
    model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                  if l.startswith("model name")), "unknown CPU")
    memory = next((int(l.split()[1]) // (1 << 20) for l in open("/proc/meminfo")
                   if l.startswith("MemTotal")), 0)
    return f"{os.cpu_count()} cores ({model}), {memory} GiB"


def load_average() -> str:
    return open("/proc/loadavg").read().split()[0]


def version_of(command: list[str]) -> str:
    try:
        out = subprocess.run(command, capture_output=True, text=True).stdout
    except OSError:
        return "unknown"
    return out.splitlines()[0].strip() if out else "unknown"


def vela_revision(vela_bin: Path) -> str:
    # The source tree vela-mpicc was built from, when it is a build tree's bin.
    out = subprocess.run(["git", "-C", str(vela_bin), "describe", "--always", "--dirty"],
                         capture_output=True, text=True)
    return out.stdout.strip() if out.returncode == 0 else "unknown (not a git tree)"


def shown_command(argv: list[str]) -> list[str]:
    """The command line as the report shows it: this machine's directories as names."""
    shown, hide = [], {"--vela-bin": "build/bin", "--work": "WORK", "--out": "FILE"}
    for a in argv:
        option = a.split("=", 1)[0]
        if shown and shown[-1] in hide and not a.startswith("-"):
            shown.append(hide[shown[-1]])
        elif option in hide and "=" in a:
            shown.append(f"{option}={hide[option]}")
        elif "=" in a and not a.startswith("-"):
            shown.append(f"{option}=SRC/{option}")
        else:
            shown.append(a)
    return shown


def report(ctx: Context, argv: list[str], rows: list[Row], osu: list[OsuResult],
           started: tuple[str, str], osu_sizes: str) -> str:
    ended = (datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
             load_average())
    shown = shown_command(argv)
    out = ["# Real MPI programs, unchanged, on Vela", "",
           "Written by `scripts/real-codes.py` (docs/validation.md says where each program's "
           "sources come from; none is in this repository):", "",
           "```sh", "scripts/real-codes.py " + " ".join(shown), "```", "",
           f"- {started[0]} to {ended[0]}; {machine()}; load average {started[1]} at the "
           f"start, {ended[1]} at the end (2 PEs and up to 8 processes share the cores: "
           "times are whole runs, start-up included, a sanity check more than a benchmark).",
           f"- Vela {vela_revision(ctx.vela_bin)}, Release; Open MPI: "
           f"{version_of(['mpirun', '--version'])}; {version_of(['gcc', '--version'])}.",
           f"- Runs: `vela` = `PROG ARGS --vp N --pes 2`; `vela-mpirun` = `mpirun -np 2 PROG "
           f"ARGS --vp N` (N ranks over two processes); `vela-greedy` = `vela` with `--lb "
           f"greedy --vp-balance-every allreduce:K` (a balancing point after every K-th "
           f"`MPI_Allreduce` on `MPI_COMM_WORLD`; none of these programs calls `MPI_Migrate`); "
           f"`openmpi` = `mpirun --oversubscribe -np N PROG ARGS`. Times: `vela` and `openmpi` "
           f"{ctx.repeat} time(s) each, alternately; medians (range).", ""]
    if rows:
        out += ["## Programs", "",
                "| program | ranks | MPI calls used | builds | runs | same result | time "
                "Vela / Open MPI | with `--lb greedy` |", "|---|---:|---:|---|---|---|---|---|"]
        for r in rows:
            p = PROGRAMS[r.program]
            out.append(f"| {r.program} | {p.ranks} | {len(r.calls)} | {r.builds} | {r.runs} | "
                       f"{r.same or '-'} | {r.time or '-'} | {r.greedy or '-'} |")
        out += ["", "What each compares, its arguments, and what went wrong:", ""]
        for r in rows:
            p = PROGRAMS[r.program]
            out.append(f"- **{r.program}** `{' '.join(p.args)}`"
                       f"{f' (K = {p.balance_every})'}: {p.compared}."
                       + "".join(f" {n}." for n in r.notes))
        out += ["", "The MPI calls each program makes (the `VMPI_` symbols its objects need, or, "
                "without objects, its Open MPI build's undefined `MPI_` symbols):", ""]
        seen: dict[tuple[str, ...], str] = {}
        for r in rows:
            calls = tuple(c.removeprefix("MPI_") for c in r.calls)
            out.append(f"- {r.program}: " + (f"the same as {seen[calls]}" if calls in seen
                                             else ", ".join(calls)))
            seen.setdefault(calls, r.program)
        out.append("")
    if osu:
        out += ["## OSU micro-benchmarks", "",
                f"Every benchmark of `c/mpi/pt2pt`, `c/mpi/collective` and `c/mpi/one-sided`, "
                f"each built with its two helper files (`c/util/osu_util.c`, "
                f"`osu_util_mpi.c`) by both compilers, run on 2 ranks with `-m {osu_sizes} "
                f"-i 100 -x 10` in three Vela layouts (`--vp 2 --pes 2`; `--vp 2 --pes 1`; "
                f"`mpirun -np 2 ... --vp 2`, one rank per process) and Open MPI's (`mpirun -np "
                f"2`). Each figure is the benchmark's own (first column after the size) from a "
                f"single run: latencies in µs, bandwidths in MB/s; the smallest and largest "
                f"sizes of each table.", "",
                "| benchmark | size | " + " | ".join(l for l, _ in OSU_LAYOUTS) + " |",
                "|---|---:|" + "---:|" * len(OSU_LAYOUTS)]
        for r in osu:
            if not r.built:
                out.append(f"| {r.name} | not built: {r.why} |" + " |" * len(OSU_LAYOUTS))
                continue
            if r.unsupported:
                out.append(f"| {r.name} | not run by Vela: {r.unsupported} |"
                           + " |" * len(OSU_LAYOUTS))
                continue
            tables = {l: dict(osu_table(o.output)) if l not in r.bad else {}
                      for l, o in r.runs.items()}
            sizes = list(dict(osu_table(r.runs["openmpi"].output)).keys()) or \
                next((list(t.keys()) for t in tables.values() if t), [])
            chosen = [sizes[0], sizes[-1]] if len(sizes) > 1 else sizes
            unit = osu_unit(r.runs["openmpi"].output)
            for size in chosen:
                cells = []
                for label, _ in OSU_LAYOUTS:
                    cells.append("FAIL" if label in r.bad else tables[label].get(size, "-"))
                out.append(f"| {r.name}{f' ({unit})' if unit else ''} | {size} | "
                           + " | ".join(cells) + " |")
        failed = [(r.name, l, why) for r in osu for l, why in r.bad.items()]
        if failed:
            out += ["", "Runs that failed:", ""]
            out += [f"- {name}, {label}: {why}" for name, label, why in failed]
        out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------
# The command line


def parse(argv: list[str]) -> tuple[argparse.Namespace, dict[str, Path]]:
    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> None:
            raise UsageError(message)

    parser = Parser(prog="real-codes.py", add_help=False)
    parser.add_argument("-h", "--help", action="store_true")
    parser.add_argument("--vela-bin", default=str(REPO / "build" / "bin"))
    parser.add_argument("--work")
    parser.add_argument("--out")
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--repeat", default="1")
    parser.add_argument("--jobs", default=str(os.cpu_count() or 2))
    parser.add_argument("--osu-sizes", default="1:65536")
    parser.add_argument("trees", nargs="*")
    a = parser.parse_args(argv)
    if a.help:
        return a, {}
    for option in ("repeat", "jobs"):
        value = getattr(a, option)
        if not re.fullmatch(r"[1-9]\d{0,3}", value):
            raise UsageError(f"--{option} '{value}': expected a positive integer")
        setattr(a, option, int(value))
    if not re.fullmatch(r"\d+:\d+", a.osu_sizes):
        raise UsageError(f"--osu-sizes '{a.osu_sizes}': expected MIN:MAX in bytes")
    trees: dict[str, Path] = {}
    for t in a.trees:
        if "=" not in t:
            raise UsageError(f"argument '{t}' is not NAME=DIR (NAME one of {', '.join(KNOWN)})")
        name, directory = t.split("=", 1)
        if name not in KNOWN:
            raise UsageError(f"unknown program '{name}' in '{t}' (expected one of "
                             f"{', '.join(KNOWN)})")
        if name in trees:
            raise UsageError(f"'{name}' given twice")
        if not directory:
            raise UsageError(f"'{t}': no directory after '='")
        trees[name] = Path(directory)
    if not trees:
        raise UsageError(f"no program given (expected NAME=DIR, NAME one of {', '.join(KNOWN)})")
    only = [n for o in a.only for n in o.split(",") if n]
    for n in only:
        if n not in trees:
            raise UsageError(f"--only {n}: no {n}=DIR given" if n in KNOWN else
                             f"--only {n}: unknown program (expected one of {', '.join(KNOWN)})")
    a.only = only
    if "mumps" in trees and "scalapack" not in trees:
        raise UsageError("mumps=DIR needs scalapack=DIR too (MUMPS is built on the ScaLAPACK "
                         "built from it)")
    return a, trees


def check_trees(trees: dict[str, Path], vela_bin: Path) -> list[str]:
    problems = []
    for name, d in trees.items():
        marker = "c/mpi/pt2pt/osu_latency.c" if name == "osu" else programs_for(name)[0].marker
        what = ("the top of an OSU micro-benchmarks 6.x tree (c/mpi/pt2pt/osu_latency.c, "
                "c/util/)" if name == "osu" else programs_for(name)[0].what)
        if not d.is_dir():
            problems.append(f"{name}={d}: no such directory (expected {what})")
        elif not (d / marker).exists():
            problems.append(f"{name}={d}: no {marker} there (expected {what})")
    for tool in ("vela-mpicc", "vela-mpicxx"):
        if not os.access(vela_bin / tool, os.X_OK):
            problems.append(f"--vela-bin {vela_bin}: no executable {tool} there (expected "
                            "Vela's build/bin or an installed prefix's bin)")
    for tool in ("mpicc", "mpicxx", "mpirun", "make", "nm", "timeout"):
        if shutil.which(tool) is None:
            problems.append(f"{tool}: not found on PATH (Open MPI's compilers and mpirun, make, "
                            "binutils' nm and coreutils' timeout are needed)")
    return problems


def main(argv: list[str]) -> int:
    try:
        a, trees = parse(argv)
    except UsageError as e:
        print(f"{ME}: {e}", file=sys.stderr)
        return 2
    if a.help:
        print(__doc__)
        return 0
    vela_bin = Path(a.vela_bin).resolve()
    problems = check_trees(trees, vela_bin)
    if problems:
        for p in problems:
            print(f"{ME}: {p}", file=sys.stderr)
        return 2
    work = Path(a.work) if a.work else Path(tempfile.mkdtemp(prefix="vela-real-codes."))
    work.mkdir(parents=True, exist_ok=True)
    work = work.resolve()
    mpirun = ["mpirun", "--oversubscribe"] + (["--allow-run-as-root"] if os.getuid() == 0 else [])
    ctx = Context(vela_bin, work, a.jobs, a.repeat, mpirun,
                  {name: tree.resolve() for name, tree in trees.items()})
    started = (datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
               load_average())
    log(f"work directory {work}")
    rows: list[Row] = []
    osu: list[OsuResult] = []
    for name in KNOWN:
        if name not in trees or (a.only and name not in a.only):
            continue
        src = trees[name].resolve()
        if name == "osu":
            osu = validate_osu(ctx, src, a.osu_sizes)
            continue
        for p in programs_for(name):
            rows.append(validate(ctx, p, src))
    text = report(ctx, argv, rows, osu, started, a.osu_sizes)
    out = Path(a.out) if a.out else work / "real-codes.md"
    out.write_text(text + "\n")
    failed = [r.program for r in rows if r.failed] + [r.name for r in osu
                                                       if not r.built or r.bad]
    log(f"report: {out}; outputs in {work}")
    if failed:
        log(f"FAILED: {', '.join(failed)}")
        return 1
    log("every build, run and comparison passed")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
