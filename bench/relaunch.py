#!/usr/bin/env python3
"""A lost process and vela-run's relaunch: each trial starts a job of 2 processes under
`vela-run -- mpirun -np 2 PROGRAM ... --checkpoint DIR --checkpoint-every K`, kills one of its
processes (kill -9, or SIGSTOP with --stop: found by the runtime's --peer-timeout 2, or with
--found-by stall by vela-run --stall 2) at a random time after its first checkpoint (a job that
ended before it, on a quieter machine than the uninterrupted runs saw, is repeated with half
the delay), and
checks that the relaunched job resumed from a checkpoint (it prints `restart:`) and ends with
the checksum of an uninterrupted run. Prints a table: per program, the trials, how many resumed
from a checkpoint and how many ended with the uninterrupted checksum, the uninterrupted time,
the time with one loss (median and range), the time lost per failure, the checkpoint interval
and how many jobs ended before their loss and were repeated (docs/results/reliability.md).

    bench/relaunch.py [--build DIR] [--trials N] [--programs jacobi2d,brams] [--stop]
                      [--found-by peer-timeout|stall] [--seed S]

Exit status 1 when a trial did not end with the uninterrupted checksum (or did not resume);
2 on a usage error.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Each program's job: 2 processes, checkpoints every K sync points, about 3 s uninterrupted here.
JOBS = {
    "jacobi2d": ("apps/jacobi2d/jacobi2d",
                 "--mesh 512 --objects 8 --steps 3000 --heavy 8 --sync-every 10 --no-pin",
                 "--checkpoint-every 4"),
    "brams": ("apps/brams/brams",
              "--ranks 8 --nx 48 --ny 48 --nz 10 --steps 600 --lb-every 10 --lb greedy --no-pin",
              "--checkpoint-every 2"),
}


def mpirun() -> list[str]:
    return ["mpirun", "-np", "2"] + (["--allow-run-as-root"] if os.getuid() == 0 else [])


def field(text: str, name: str) -> str:
    m = re.search(rf"^{name}: (\S+)", text, re.M)
    return m.group(1) if m else ""


def children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(x) for x in out.split()]


def job_processes(vela_run: subprocess.Popen) -> list[int]:
    """The program's processes: the children of mpirun, vela-run's child."""
    for launcher in children(vela_run.pid):
        ranks = children(launcher)
        if len(ranks) == 2:
            return ranks
    return []


def trial(build: Path, program: str, rng: random.Random, uninterrupted: float, stop: bool,
          by_stall: bool, work: Path, scale: float) -> tuple[str, float, int, bool, bool]:
    """One job with one process lost: (checksum, seconds, relaunches, whether the last run
    resumed from a checkpoint: it prints `restart:`, whether the loss was inflicted). The loss
    comes a random fraction (5-60%, times `scale`) of the uninterrupted run's time left after
    the first checkpoint; a job that ended before it (a quieter machine than the uninterrupted
    runs saw) was not tested, and the caller repeats the trial sooner."""
    binary, problem, every = JOBS[program]
    ckpt = work / "ckpt"
    shutil.rmtree(ckpt, ignore_errors=True)
    watch = (["--stall", "2"] if by_stall else []) if stop else []
    timeout = ["--peer-timeout", "2"] if stop and not by_stall else []
    command = ([str(build / "bin" / "vela-run")] + watch + ["--"] + mpirun() +
               [str(build / binary)] + problem.split() + timeout +
               ["--checkpoint", str(ckpt)] + every.split())
    started = time.monotonic()
    with open(work / "out.txt", "w") as out, open(work / "err.txt", "w") as err:
        job = subprocess.Popen(command, stdout=out, stderr=err)
        while not any(ckpt.glob("*.ckpt")) and job.poll() is None:
            time.sleep(0.02)
        left = max(uninterrupted - (time.monotonic() - started), 0.1 * uninterrupted)
        time.sleep(rng.uniform(0.05, 0.6) * scale * left)
        victims = job_processes(job)
        inflicted = bool(victims) and job.poll() is None
        if inflicted:
            os.kill(rng.choice(victims), signal.SIGSTOP if stop else signal.SIGKILL)
        job.wait(timeout=600)
    seconds = time.monotonic() - started
    text = (work / "out.txt").read_text()
    relaunches = (work / "err.txt").read_text().count("vela-run: the job lost a process")
    return field(text, "checksum"), seconds, relaunches, bool(field(text, "restart")), inflicted


def lossy_trial(build: Path, program: str, rng: random.Random, uninterrupted: float, stop: bool,
                by_stall: bool, work: Path) -> tuple[tuple[str, float, int, bool], int]:
    """A trial in which a process was lost: (its result, how many earlier tries ended before
    the loss). Each repeat halves the delay; after 5 the job is too short to test."""
    for early in range(5):
        *result, inflicted = trial(build, program, rng, uninterrupted, stop, by_stall, work,
                                   0.5 ** early)
        if inflicted:
            return tuple(result), early
    raise SystemExit(f"relaunch.py: {program} ended before the loss in 5 tries "
                     f"(uninterrupted {uninterrupted:.2f} s): lengthen its job in JOBS")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=str(REPO / "build"))
    p.add_argument("--trials", type=int, default=20)
    p.add_argument("--programs", default="jacobi2d,brams")
    p.add_argument("--stop", action="store_true", help="SIGSTOP a process instead of kill -9")
    p.add_argument("--found-by", choices=["peer-timeout", "stall"], default="peer-timeout",
                   help="with --stop: what ends the hung job, the runtime's --peer-timeout 2 "
                        "(status 143) or vela-run --stall 2")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    build = Path(a.build).resolve()
    programs = a.programs.split(",")
    if a.trials < 1:
        p.error(f"--trials {a.trials}: expected a positive count")
    for name in programs:
        if name not in JOBS:
            p.error(f"--programs: unknown '{name}' (expected {', '.join(JOBS)})")
        if not os.access(build / JOBS[name][0], os.X_OK):
            p.error(f"--build {build}: no {JOBS[name][0]} there")
    if not os.access(build / "bin" / "vela-run", os.X_OK):
        p.error(f"--build {build}: no bin/vela-run there")
    rng = random.Random(a.seed)
    failed = False
    rows = []
    with tempfile.TemporaryDirectory(prefix="vela-relaunch.") as scratch:
        work = Path(scratch)
        for name in programs:
            binary, problem, every = JOBS[name]
            # The uninterrupted run, checkpointing as the trials do (median of 3).
            times, reference, interval = [], "", 0.0
            for _ in range(3):
                shutil.rmtree(work / "ckpt", ignore_errors=True)
                started = time.monotonic()
                out = subprocess.run(mpirun() + [str(build / binary)] + problem.split() +
                                     ["--checkpoint", str(work / "ckpt")] + every.split(),
                                     capture_output=True, text=True)
                times.append(time.monotonic() - started)
                if out.returncode != 0:
                    print(out.stdout + out.stderr, file=sys.stderr)
                    return 1
                reference = field(out.stdout, "checksum")
                count = int(field(out.stdout, "checkpoints") or 0)
                interval = times[-1] / count if count else 0.0
            base = statistics.median(times)
            tried = [lossy_trial(build, name, rng, base, a.stop, a.found_by == "stall", work)
                     for _ in range(a.trials)]
            results = [r for r, _ in tried]
            early = sum(e for _, e in tried)
            same = sum(1 for c, _, _, _ in results if c == reference)
            relaunched = sum(1 for _, _, r, resumed in results if r >= 1 and resumed)
            spent = [s for _, s, _, _ in results]
            lost = [(s - base) / max(r, 1) for _, s, r, _ in results]
            failed |= same != a.trials or relaunched != a.trials
            rows.append((name, a.trials, relaunched, same, base, spent, lost, interval, early))
    how = (("SIGSTOP, found by vela-run --stall 2" if a.found_by == "stall" else
            "SIGSTOP, found by the runtime's --peer-timeout 2") if a.stop else "kill -9")
    print(f"One process of 2 lost by {how} at a random time after the first checkpoint; "
          f"{a.trials} trials each (seed {a.seed}); load average {os.getloadavg()[0]:.2f} at the end")
    print()
    print("| program | trials | resumed from a checkpoint | uninterrupted checksum | uninterrupted (s) | "
          "with one loss (s) | lost per failure (s) | checkpoint interval (s) | "
          "ended before the loss, repeated |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, trials, relaunched, same, base, spent, lost, interval, early in rows:
        print(f"| {name} | {trials} | {relaunched} | {same} | {base:.2f} | "
              f"{statistics.median(spent):.2f} ({min(spent):.2f}-{max(spent):.2f}) | "
              f"{statistics.median(lost):.2f} ({min(lost):.2f}-{max(lost):.2f}) | {interval:.3f} | "
              f"{early} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
