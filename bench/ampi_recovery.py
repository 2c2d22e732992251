#!/usr/bin/env python3
"""What a lost process costs on Vela and on AMPI, side by side: the same plain-MPI program
(bench/ampi/recovery.c, 8 ranks over 2 processes, a checkpoint every 200 steps) built with
vela-mpicc and with a Charm++ build's ampicc, one of its two processes killed (kill -9) at a
random time after the first checkpoint, and the job brought back to its uninterrupted checksum:

- vela:        vela-run -- mpirun -np 2 PROGRAM ... --vp 8 --checkpoint DIR --checkpoint-every 10
               (vela-run relaunches with --restart DIR; docs/user-guide.md);
- ampi-disk:   charmrun +p2 ++local PROGRAM ... +vp8, AMPI_Migrate checkpointing to DIR
               (bench/ampi/migrate_shim.h), relaunched by this script with +restart DIR after the
               job ends (AMPI has no relauncher of its own); both runs without address-space
               randomization (setarch -R), which AMPI's restart needs;
- ampi-memory: the same with AMPI's double in-memory checkpoints, recovered by Charm++ itself
               (a Charm++ build with syncft only; charmrun restarts the lost process).

Uninterrupted runs (checkpointing as the trials do) and trials alternate. Prints a table per
system: the trials in which a process was killed, how many of them ended with the uninterrupted
checksum, the uninterrupted time and the time with one loss (medians and ranges), the time lost
per failure (the difference of the medians) and the checkpoint interval
(docs/results/reliability.md).

    bench/ampi_recovery.py --charm CHARM_BUILD [--build DIR] [--trials N] [--seed S]

CHARM_BUILD is a Charm++ build directory with AMPI for 2 processes, e.g. CHARM/netlrts-linux-
x86_64-syncft from `./build AMPI netlrts-linux-x86_64 syncft --with-production` in a checkout of
Charm++ (not a Debian package: this script never downloads it). A trial that does not end within
3 times the uninterrupted time plus 20 s is stopped and counted as not recovered. Exit status 1
when a Vela trial did not end with the uninterrupted checksum, 2 on a usage error.
"""

from __future__ import annotations

import argparse
import os
import random
import re
import signal
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from relaunch import children, field, mpirun  # bench/relaunch.py, beside this script

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "bench" / "ampi" / "recovery.c"
SHIM = REPO / "bench" / "ampi" / "migrate_shim.h"
ARGS = ["4000", "4000", "40", "20"]  # cells per rank, steps, relaxations per step, migrate every
RANKS = 8
EVERY = 10  # a checkpoint every 10th MPI_Migrate: every 200 steps, 19 in a run


def descendants_named(pid: int, name: str) -> list[int]:
    """The processes under `pid` whose command name starts with `name` (the program's)."""
    found, todo = [], [pid]
    while todo:
        for child in children(todo.pop()):
            try:
                comm = Path(f"/proc/{child}/comm").read_text().strip()
            except OSError:
                continue
            if comm == name[:15]:  # the kernel keeps 15 characters of a process's name
                found.append(child)
            else:
                todo.append(child)
    return found


class System:
    """How one system runs the program, checkpoints, and comes back from a lost process."""

    def __init__(self, name: str, binary: Path, charm: Path | None, work: Path):
        self.name, self.binary, self.charm, self.work = name, binary, charm, work
        self.ckpt = work / f"{name}.ckpt"

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        if self.name != "vela":
            env["VELA_AMPI_CHECKPOINT"] = "in_memory" if self.name == "ampi-memory" else str(self.ckpt)
            env["VELA_AMPI_CHECKPOINT_EVERY"] = str(EVERY)
        return env

    def command(self, restart: bool) -> list[str]:
        if self.name == "vela":
            return mpirun() + [str(self.binary), *ARGS, "--vp", str(RANKS),
                               "--checkpoint", str(self.ckpt), "--checkpoint-every", str(EVERY)]
        assert self.charm is not None
        return (["setarch", "-R", str(self.charm / "bin" / "charmrun"), "+p2", "++local",
                 str(self.binary), *ARGS, f"+vp{RANKS}"] +
                (["+restart", str(self.ckpt)] if restart else []))

    def checkpointed(self, out: Path) -> bool:
        if self.name == "ampi-memory":
            return "Checkpoint finished" in out.read_text(errors="replace")
        return self.ckpt.exists() and any(self.ckpt.iterdir())

    def clean(self) -> None:
        shutil.rmtree(self.ckpt, ignore_errors=True)


def uninterrupted(system: System) -> tuple[float, str]:
    """One run without a loss, checkpointing as the trials do: (seconds, checksum)."""
    system.clean()
    started = time.monotonic()
    out = subprocess.run(system.command(False), capture_output=True, text=True,
                         env=system.env(), timeout=600, cwd=system.work)
    seconds = time.monotonic() - started
    if out.returncode != 0 or not field(out.stdout, "checksum"):
        raise RuntimeError(f"{system.name}: the uninterrupted run failed:\n"
                           f"{out.stdout[-2000:]}{out.stderr[-2000:]}")
    return seconds, field(out.stdout, "checksum")


def trial(system: System, vela_run: Path, base: float,
          rng: random.Random) -> tuple[str, float, bool]:
    """One job with one of its processes killed: (its final checksum, seconds in all, whether a
    process was killed while the job ran)."""
    system.clean()
    limit = 3 * base + 20
    out, err = system.work / "out.txt", system.work / "err.txt"
    command = system.command(False)
    if system.name == "vela":
        command = [str(vela_run), "--"] + command
    started = time.monotonic()
    with open(out, "w") as o, open(err, "w") as e:
        job = subprocess.Popen(command, stdout=o, stderr=e, env=system.env(), cwd=system.work)
        while not system.checkpointed(out) and job.poll() is None:
            time.sleep(0.02)
        time.sleep(rng.uniform(0.05, 0.6) * base)
        victims = descendants_named(job.pid, system.binary.name)
        killed = bool(victims) and job.poll() is None
        if killed:
            os.kill(rng.choice(victims), signal.SIGKILL)
        try:
            job.wait(timeout=max(1.0, limit - (time.monotonic() - started)))
        except subprocess.TimeoutExpired:
            kill_tree(job)
            return "", time.monotonic() - started, killed
        text = out.read_text(errors="replace")
        if system.name == "ampi-disk" and not field(text, "checksum"):
            # AMPI's job ended with its process: start it again from the checkpoint.
            job = subprocess.Popen(system.command(True), stdout=o, stderr=e, env=system.env(),
                                   cwd=system.work)
            try:
                job.wait(timeout=max(1.0, limit - (time.monotonic() - started)))
            except subprocess.TimeoutExpired:
                kill_tree(job)
                return "", time.monotonic() - started, killed
    return field(out.read_text(errors="replace"), "checksum"), time.monotonic() - started, killed


def kill_tree(job: subprocess.Popen) -> None:
    todo, seen = [job.pid], []
    while todo:
        pid = todo.pop()
        seen.append(pid)
        todo.extend(children(pid))
    for pid in reversed(seen):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    job.wait()


def build_programs(build: Path, charm: Path, work: Path) -> tuple[Path, Path]:
    vela = work / "recovery_vela"
    ampi = work / "recovery_ampi"
    subprocess.run([str(build / "bin" / "vela-mpicc"), "-O2", str(SOURCE), "-o", str(vela)],
                   check=True)
    # -tlsglobals: the shim's counter is thread-local, each rank's own. In the scratch
    # directory: ampicc leaves charmrun and ampirun beside where it runs, and AMPI's runs their
    # isomalloc files.
    subprocess.run([str(charm / "bin" / "ampicc"), "-O2", "-tlsglobals", "-include", str(SHIM),
                    str(SOURCE), "-o", str(ampi)], check=True, capture_output=True, cwd=work)
    return vela, ampi


def in_memory_checkpoints(charm: Path) -> bool:
    """Whether the build has Charm++'s double in-memory checkpoints (built with syncft)."""
    return any(re.search(r"#define\s+CMK_MEM_CHECKPOINT\s+1\b", h.read_text(errors="replace"))
               for h in (charm / "include").glob("conv-mach*.h"))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--charm", required=True, help="a Charm++ build directory with AMPI")
    p.add_argument("--build", default=str(REPO / "build"))
    p.add_argument("--trials", type=int, default=10)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    build, charm = Path(a.build).resolve(), Path(a.charm).resolve()
    if a.trials < 1:
        p.error(f"--trials {a.trials}: expected a positive count")
    for tool in ("ampicc", "charmrun"):
        if not os.access(charm / "bin" / tool, os.X_OK):
            p.error(f"--charm {charm}: no bin/{tool} there (a Charm++ build directory with AMPI "
                    "for several processes, e.g. netlrts-linux-x86_64-syncft from "
                    "`./build AMPI netlrts-linux-x86_64 syncft --with-production`)")
    for tool in ("vela-mpicc", "vela-run"):
        if not os.access(build / "bin" / tool, os.X_OK):
            p.error(f"--build {build}: no bin/{tool} there")
    rng = random.Random(a.seed)
    rows, failed = [], False
    with tempfile.TemporaryDirectory(prefix="vela-ampi-recovery.") as scratch:
        work = Path(scratch)
        vela, ampi = build_programs(build, charm, work)
        systems = [System("vela", vela, None, work), System("ampi-disk", ampi, charm, work)]
        if in_memory_checkpoints(charm):
            systems.append(System("ampi-memory", ampi, charm, work))
        for system in systems:
            # Uninterrupted runs and trials alternately, so that the machine's drift falls on
            # both; the time lost is the difference of their medians.
            plain, results, reference = [], [], ""
            for _ in range(a.trials):
                seconds, reference = uninterrupted(system)
                plain.append(seconds)
                results.append(trial(system, build / "bin" / "vela-run",
                                     statistics.median(plain), rng))
            killed = sum(1 for _, _, k in results if k)
            same = sum(1 for c, _, k in results if k and c == reference)
            spent = [s for c, s, k in results if k and c == reference]
            failed |= system.name == "vela" and same != a.trials
            steps_between = int(ARGS[3]) * EVERY  # steps from one checkpoint to the next
            rows.append((system.name, killed, same, plain, spent,
                         statistics.median(plain) * steps_between / int(ARGS[1])))
    print(f"One process of 2 lost by kill -9 at a random time after the first checkpoint; "
          f"{RANKS} ranks; {a.trials} trials each (seed {a.seed}); load average "
          f"{os.getloadavg()[0]:.2f} at the end")
    print()
    print("| system | trials (a process killed) | ended with the uninterrupted checksum | "
          "uninterrupted (s) | with one loss (s) | lost per failure (s) | "
          "checkpoint interval (s) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for name, killed, same, plain, spent, interval in rows:
        base = statistics.median(plain)
        with_loss = (f"{statistics.median(spent):.2f} ({min(spent):.2f}-{max(spent):.2f})"
                     if spent else "-")
        lost = f"{statistics.median(spent) - base:.2f}" if spent else "-"
        print(f"| {name} | {killed} | {same} | {base:.2f} ({min(plain):.2f}-{max(plain):.2f}) | "
              f"{with_loss} | {lost} | {interval:.2f} |")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
