"""How busy the machine was while an experiment ran: the load average and a calibration loop,
printed at the start and the end, with a warning when other work shared the cores (the load
average above the core count, or the loop 25% slower than at the start). Shared by the
applications' experiment scripts (apps/*/experiments.py)."""

import os
import time


def calibration_seconds():
    """A fixed loop's time: slower at the end than at the start, the machine got busier."""
    started = time.perf_counter()
    total = 0
    for i in range(2_000_000):
        total += i * i % 7
    return time.perf_counter() - started


def machine_state(when, start=None, out=print):
    """Prints the state at `when` ("start", "end"); returns the calibration loop's time."""
    cores = os.cpu_count() or 1
    load = os.getloadavg()[0]
    loop = calibration_seconds()
    out(f"machine at the {when}: load average {load:.2f} on {cores} cores, calibration loop "
        f"{loop:.3f} s" + (f" ({loop / start:.2f}x the start's)" if start else ""))
    if load > cores or (start and loop > 1.25 * start):
        out(f"WARNING: the machine was busy at the {when} (other work shares the cores): the "
            "times can be off by more than their differences; rerun when it is quiet")
    return loop


def spread(values, digits=3):
    """'median (min-max)' of a run's repeats, or the one value."""
    ordered = sorted(values)
    middle = ordered[(len(ordered) - 1) // 2]
    if len(ordered) < 2:
        return f"{middle:.{digits}f}"
    return f"{middle:.{digits}f} ({ordered[0]:.{digits}f}-{ordered[-1]:.{digits}f})"


def overlap(a, b):
    """Whether the ranges of two sets of repeats overlap (a difference within the noise)."""
    return len(a) > 1 and len(b) > 1 and min(a) <= max(b) and min(b) <= max(a)
