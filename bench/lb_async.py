#!/usr/bin/env python3
"""Inline against asynchronous balancing in the runtime (--lb-async), with a strategy made
slower by --lb-strategy-time to take X application steps, on the BRAMS proxy (32 ranks on
2 PEs, MPI_Migrate every --every steps) and the graph benchmark (a heavy region with drift,
balancing points every --every steps). Every round runs every configuration once, in turn, so
that the machine's noise falls on all of them alike; the tables give medians and, in
brackets, the range over the rounds.

Per strategy time: the run's time over the never-late ideal (the same strategy inline at its own
speed, a few microseconds) inline and asynchronously, never balancing over the ideal, and the
replay's prediction of the same ratios from the run's loads (`brams --record`, the ranks'
measured loads, or `graph-bench --record`, the loads the units are given;
`vela-lb replay --strategy-time S [--async]`), and its async over its own
ideal (the strategy inline at no cost): what the load's drift alone costs a late answer when
the strategy's resources are free. Then, at 10 steps, where the
balancing thread runs: in Linux's idle class (the default), at nice 19, at the PEs' priority
(nice 0), and on a core set aside for it (one PE: on 2 cores, the application loses a core);
and with sync points at every step, balancing at every K-th (--lb-period K), so that an answer
is applied at the first step after it is ready.

    bench/lb_async.py [--build DIR] [--rounds N] [--steps X,Y,...] [--every K] [--app brams|graph]

Exit status 2 on a usage error, 1 when a run fails.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def usage_error(message: str) -> None:
    print(f"lb_async.py: {message}", file=sys.stderr)
    sys.exit(2)


def positive_int(text: str, option: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        usage_error(f"{option}: expected a positive count, got {text}")
    return value


def step_counts(text: str) -> list[float]:
    values = []
    for part in text.split(","):
        try:
            value = float(part)
        except ValueError:
            value = -1.0
        if not value > 0.0:
            usage_error(f"--steps: expected positive step counts separated by commas, got {text}")
        values.append(value)
    return values


def run(command: list[str]) -> str:
    r = subprocess.run(command, capture_output=True, text=True, timeout=900)
    if r.returncode != 0:
        print(f"lb_async.py: {' '.join(command)} failed ({r.returncode}):\n{r.stdout}{r.stderr}",
              file=sys.stderr)
        sys.exit(1)
    return r.stdout


def field(out: str, name: str) -> float:
    m = re.search(r"^" + name + r": ([0-9.]+)", out, re.M)
    if m is None:
        print(f"lb_async.py: the run printed no '{name}:' line:\n{out}", file=sys.stderr)
        sys.exit(1)
    return float(m.group(1))


class App:
    def __init__(self, build: Path, name: str, every: int):
        self.name = name
        if name == "brams":
            self.binary = build / "apps" / "brams" / "brams"
            self.base = ["--ranks", "32", "--steps", "240", "--quiet"]
            self.points = ["--lb-every", str(every)]
            # Sync points at every step, balancing at every K-th (--lb-period): an answer is
            # applied at the first step after it is ready, as the replay's model applies it.
            self.every_step = ["--lb-every", "1", "--lb-period", str(every)]
        else:
            self.binary = build / "apps" / "graph-bench" / "graph-bench"
            self.base = ["--gen", "cluster", "--drift", "5", "--steps", "200", "--quiet"]
            self.points = ["--sync-every", str(every)]
            self.every_step = ["--sync-every", "1", "--lb-period", str(every)]
        if not self.binary.is_file():
            usage_error(f"--build: {self.binary} not found (build the {name} target)")

    def time(self, extra: list[str], pes: int = 2, points: list[str] | None = None
             ) -> tuple[float, str]:
        out = run([str(self.binary), *self.base, *(self.points if points is None else points),
                   "--pes", str(pes), *extra])
        return field(out, "time"), out


def replay_ratios(build: Path, trace: Path, every: int, seconds: float
                  ) -> tuple[float, float, float]:
    """The replay's inline / never, async / never and async / ideal (the strategy inline at no
    cost) for a strategy of `seconds`."""
    tool = build / "tools" / "vela-lb" / "vela-lb"

    def total(extra: list[str]) -> float:
        out = run([str(tool), "replay", str(trace), "--format", "json", "--quiet", *extra])
        return float(json.loads(out)["policies"][0]["total"])

    never = total(["--policy", "never"])
    policy = ["--policy", "periodic", "-P", f"every={every}", "-P", "strategy=greedy",
              "--strategy-time", str(seconds)]
    ideal = total(["--policy", "periodic", "-P", f"every={every}", "-P", "strategy=greedy",
                   "--strategy-time", "0"])
    asynchronous = total(policy + ["--async"])
    return total(policy) / never, asynchronous / never, asynchronous / ideal


def cell(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} ({min(values):.3f}–{max(values):.3f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default=str(REPO / "build"))
    parser.add_argument("--rounds", default="5")
    parser.add_argument("--steps", default="2,10,20")
    parser.add_argument("--every", default="10")
    parser.add_argument("--app", default="brams")
    args = parser.parse_args()
    rounds = positive_int(args.rounds, "--rounds")
    every = positive_int(args.every, "--every")
    xs = step_counts(args.steps)
    if args.app not in ("brams", "graph"):
        usage_error(f"--app: expected brams or graph, got {args.app}")
    build = Path(args.build)
    app = App(build, args.app, every)

    # The step time of the balanced run sets what X steps of strategy time are.
    ideal_time, ideal_out = app.time(["--lb", "greedy"])
    step = field(ideal_out, "step")
    print(f"{app.name}: balanced step {1e3 * step:.2f} ms (greedy inline), "
          f"{ideal_time:.3f} s per run; {rounds} rounds, balancing every {every} steps\n")

    configs: dict[str, tuple[list[str], int] | tuple[list[str], int, list[str]]] = {
        "never": ([], 2),
        "ideal": (["--lb", "greedy"], 2),
    }
    for x in xs:
        s = f"{x * step:.6f}"
        configs[f"inline {x:g}"] = (["--lb", "greedy", "--lb-strategy-time", s], 2)
        configs[f"async {x:g}"] = (["--lb", "greedy", "--lb-strategy-time", s, "--lb-async"], 2)
    where = 10.0
    s10 = f"{where * step:.6f}"
    async10 = ["--lb", "greedy", "--lb-strategy-time", s10, "--lb-async"]
    configs["nice 19"] = ([*async10, "--lb-async-priority", "19"], 2)
    configs["nice 0"] = ([*async10, "--lb-async-priority", "0"], 2)
    configs["set aside"] = ([*async10, "--lb-pes", "1"], 1)
    configs["every step"] = (async10, 2, app.every_step)

    times: dict[str, list[float]] = {name: [] for name in configs}
    answers: dict[str, str] = {}
    for r in range(rounds):
        for name, config in configs.items():
            t, out = app.time(*config)
            times[name].append(t)
            m = re.search(r"^lb async: (.*)$", out, re.M)
            if m:
                answers[name] = m.group(1)
        print(f"round {r + 1}/{rounds} done", file=sys.stderr)

    predicted: dict[float, tuple[float, float, float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        # BRAMS records its ranks' measured loads; the graph benchmark the loads its units were
        # given (their weights at each step times --ns-per-unit), and where the run starts them.
        trace = Path(scratch) / f"{app.name}.json"
        record = ["--record", str(trace)] + (["--record-pes", "2"] if app.name == "brams" else [])
        run([str(app.binary), *app.base, *app.points, "--pes", "2", *record])
        for x in xs:
            predicted[x] = replay_ratios(build, trace, every, x * step)

    ideal = times["ideal"]

    def ratio(name: str) -> list[float]:
        return [a / b for a, b in zip(times[name], ideal)]

    never_ideal = ratio("never")
    print("| strategy time (steps) | inline / ideal | async / ideal | never / ideal | "
          "async over inline | replay: inline / never | replay: async / never | "
          "replay: async / ideal | measured: inline / never | measured: async / never | "
          "last async run's answers |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for x in xs:
        inline = ratio(f"inline {x:g}")
        asynchronous = ratio(f"async {x:g}")
        gain = [1.0 - a / i for a, i in zip(asynchronous, inline)]
        inl_never = [t / n for t, n in zip(times[f"inline {x:g}"], times["never"])]
        asy_never = [t / n for t, n in zip(times[f"async {x:g}"], times["never"])]
        rp = predicted.get(x)
        rp_text = (f"{rp[0]:.3f} | {rp[1]:.3f} | {rp[2]:.3f}" if rp else "– | – | –")
        print(f"| {x:g} | {cell(inline)} | {cell(asynchronous)} | {cell(never_ideal)} | "
              f"{100 * statistics.median(gain):.1f}% | {rp_text} | "
              f"{statistics.median(inl_never):.3f} | {statistics.median(asy_never):.3f} | "
              f"{answers.get(f'async {x:g}', '–')} |")
    print()
    print(f"Where the balancing thread runs, strategy time {where:g} steps:\n")
    print("| the thread | run / ideal | answers (last run) |")
    print("|---|---:|---|")
    rows = [("Linux's idle class (the default), 2 PEs", "async 10" if 10.0 in xs else None),
            ("nice 19, 2 PEs", "nice 19"), ("at the PEs' priority (nice 0), 2 PEs", "nice 0"),
            ("a core set aside (--lb-pes 1: 1 PE, the thread on the other core)", "set aside"),
            ("idle class, 2 PEs, sync points at every step (balancing at every "
             f"{every}th: --lb-period)", "every step")]
    for label, name in rows:
        if name is None:
            continue
        print(f"| {label} | {cell(ratio(name))} | {answers.get(name, '–')} |")


if __name__ == "__main__":
    main()
