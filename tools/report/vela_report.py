#!/usr/bin/env python3
"""The drawing half of `vela-lb report`: reads the summary vela-lb made of a run's outputs and
writes one self-contained HTML page, every picture an inline SVG drawn by matplotlib (Agg, no
display). The page fetches nothing when it is viewed: no scripts, styles or fonts from elsewhere
(text in the pictures is drawn as paths).

Exit status: 0 written; 3 matplotlib cannot be imported (vela-lb names the package to install);
1 anything else. Run by vela-lb, not by hand: it checks the inputs and writes the summary.
"""
import argparse
import html
import io
import json
import re
import sys

NO_MATPLOTLIB = 3
MAX_STEPS_SHOWN = 6  # balancing steps drawn one by one (PE loads, domain) per collection

# Element ids of the drawn data (matplotlib writes an artist's gid as the id of its SVG group):
# data-* marks what the test of the page and its own check look for.
SELF_CHECK = """
(function () {
  var figures = document.querySelectorAll("figure.plot");
  var drawn = 0;
  figures.forEach(function (figure) {
    var svg = figure.querySelector("svg");
    var box = svg ? svg.getBoundingClientRect() : null;
    var data = svg ? svg.querySelectorAll("[id^='data-']").length : 0;
    if (!svg || box.width < 10 || box.height < 10 || data === 0) {
      console.error("vela report: the picture '" + figure.id + "' did not render");
    } else {
      drawn += 1;
    }
  });
  document.body.setAttribute("data-rendered", drawn + "/" + figures.length);
})();
"""

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif;
       margin: 2em auto; max-width: 1100px; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.2em; margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 1em 0; }
td, th { border: 1px solid #ccc; padding: 0.3em 0.6em; text-align: left; vertical-align: top; }
th { background: #f3f3f3; }
figure.plot { margin: 1em 0; }
figure.plot svg { max-width: 100%; height: auto; }
figcaption { color: #444; font-size: 0.95em; }
code { background: #f3f3f3; padding: 0 0.2em; }
.missing { color: #666; }
"""


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--summary", required=True, help="the summary JSON vela-lb wrote")
    p.add_argument("--output", required=True, help="the HTML file to write")
    p.add_argument("--name", help="the output's name as the user gave it (for messages)")
    return p.parse_args()


class Page:
    """The pictures in order, and which inputs gave each."""

    def __init__(self, plt):
        self.plt = plt
        self.sections = []  # (id, title, caption, [paths], svg)
        self.by_input = {}  # path -> [picture titles]

    def add(self, fig, ident, title, caption, paths):
        buffer = io.StringIO()
        fig.savefig(buffer, format="svg", metadata={"Date": None})
        self.plt.close(fig)
        svg = buffer.getvalue()
        svg = svg[svg.index("<svg"):]
        # Each picture's own ids: two pictures in one page must not share a clip path or marker.
        svg = re.sub(r'id="(?!data-)([^"]+)"', rf'id="{ident}-\1"', svg)
        svg = re.sub(r'(xlink:href|href)="#(?!data-)([^"]+)"', rf'\1="#{ident}-\2"', svg)
        svg = re.sub(r"url\(#(?!data-)([^)]+)\)", rf"url(#{ident}-\1)", svg)
        self.sections.append((ident, title, caption, paths, svg))
        for path in paths:
            self.by_input.setdefault(path, []).append(title)


def name_bars(bars, gid):
    """Each bar its own id (gid-0, gid-1, ...): a bar chart is many rectangles in the SVG."""
    for j, bar in enumerate(bars):
        bar.set_gid(f"{gid}-{j}")


def time_scale(values):
    """The unit that keeps the largest of `values` (seconds) readable, and its factor."""
    largest = max(values, default=0)
    if largest >= 1:
        return "s", 1.0
    if largest >= 1e-3:
        return "ms", 1e3
    return "µs", 1e6


def short(path):
    return path.rsplit("/", 1)[-1]


def step_time(page, plt, logs):
    fig, ax = plt.subplots(figsize=(10, 4.2))
    unit, factor = time_scale([x for log in logs for x in log["seconds"]])
    for i, log in enumerate(logs):
        steps, seconds = log["step"], log["seconds"]
        (line,) = ax.plot(steps, [factor * x for x in seconds], lw=1.2, label=short(log["path"]))
        line.set_gid(f"data-step-time-{i}")
        marked = [k for k, m in enumerate(log["migrate_seconds"]) if m > 0]
        if marked:
            (marks,) = ax.plot([steps[k] for k in marked], [factor * seconds[k] for k in marked],
                               ls="none", marker="v", ms=7, color=line.get_color(),
                               markeredgecolor="black")
            marks.set_gid(f"data-balancing-{i}")
    ax.plot([], [], ls="none", marker="v", color="grey", markeredgecolor="black",
            label="balancing step (MPI_Migrate)")
    ax.set_title("Step time over the run")
    ax.set_xlabel("step")
    ax.set_ylabel(f"step time ({unit})")
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", ncol=2 if len(logs) > 6 else 1)
    fig.tight_layout()
    page.add(fig, "step-time", "Step time over the run",
             "Each application step's wall time (rank 0's clock); a triangle marks a step after "
             "which the application called the balancer (the log's migrate_seconds > 0).",
             [log["path"] for log in logs])


def replay_pictures(page, plt, replay, index):
    path = replay["path"]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 6.4), sharex=True)
    unit, factor = time_scale([x for p in replay["policies"] for x in p["series"]["time"]])
    for k, policy in enumerate(replay["policies"]):
        series = policy["series"]
        steps = list(range(len(series["time"])))
        (line,) = top.plot(steps, [factor * x for x in series["time"]], lw=1.2,
                           label=policy["policy"])
        line.set_gid(f"data-replay-time-{index}-{k}")
        applied = [s for s in steps if series["applied"][s]]
        if applied:
            (marks,) = top.plot(applied, [factor * series["time"][s] for s in applied], ls="none",
                                marker="v", color=line.get_color(), markeredgecolor="black")
            marks.set_gid(f"data-replay-balancing-{index}-{k}")
        (lam,) = bottom.plot(steps, [100 * x for x in series["imbalance"]], lw=1.2,
                             color=line.get_color(), label=policy["policy"])
        lam.set_gid(f"data-replay-lambda-{index}-{k}")
    top.set_title("Replayed step time, balancing steps marked")
    top.set_ylabel(f"step time ({unit}, modelled)")
    top.set_ylim(bottom=0)
    top.legend(fontsize="small")
    bottom.set_title("Load imbalance λ = max/avg − 1 over time")
    bottom.set_xlabel("step")
    bottom.set_ylabel("λ (%)")
    bottom.set_ylim(bottom=0)
    for ax in (top, bottom):
        ax.grid(alpha=0.3)
    fig.tight_layout()
    page.add(fig, f"replay-{index}", f"Replay: step time and λ ({short(path)})",
             "Each step's modelled time (largest PE time plus communication) and the imbalance "
             "of the placement it ran with, per policy; a triangle marks a step after which a new "
             "placement was applied.", [path])

    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.6))
    policies = replay["policies"]
    width = 0.8 / max(1, len(policies))
    unit, size = byte_scale([b for p in policies for b in p["series"]["bytes_moved"]])
    any_bar = False
    for k, policy in enumerate(policies):
        series = policy["series"]
        applied = [s for s in range(len(series["time"])) if series["applied"][s]]
        if not applied:
            continue
        any_bar = True
        offset = (k - (len(policies) - 1) / 2) * width * max(1, len(series["time"]) // 40)
        bars = left.bar([s + offset for s in applied], [series["migrations"][s] for s in applied],
                        width=width * max(1, len(series["time"]) // 40), label=policy["policy"])
        name_bars(bars, f"data-replay-migrations-{index}-{k}")
        bars = right.bar([s + offset for s in applied],
                         [series["bytes_moved"][s] / size for s in applied],
                         width=width * max(1, len(series["time"]) // 40), label=policy["policy"])
        name_bars(bars, f"data-replay-bytes-{index}-{k}")
    if not any_bar:
        plt.close(fig)
        return
    left.set_title("Migrations per balancing step")
    left.set_xlabel("step")
    left.set_ylabel("objects moved")
    right.set_title("Bytes moved per balancing step")
    right.set_xlabel("step")
    right.set_ylabel(f"{unit} moved")
    whole_numbers(left.yaxis)
    left.legend(fontsize="small")
    for ax in (left, right):
        ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    page.add(fig, f"replay-migrations-{index}", f"Replay: migrations and bytes moved ({short(path)})",
             "Objects and bytes each applied balancing step moved, per policy.", [path])


def pe_colors(plt, pes):
    """A colour per PE: distinct ones for up to 20 PEs, a continuous map beyond."""
    from matplotlib.colors import ListedColormap
    if pes <= 20:
        base = plt.get_cmap("tab10" if pes <= 10 else "tab20")
        return ListedColormap([base(p) for p in range(pes)]), pes
    return plt.get_cmap("turbo"), pes


def byte_scale(values):
    """The unit that keeps the largest of `values` (bytes) readable, and its size."""
    largest = max(values, default=0)
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if largest >= size:
            return unit, size
    return "B", 1.0


def whole_numbers(axis):
    from matplotlib.ticker import MaxNLocator
    axis.set_major_locator(MaxNLocator(integer=True))


def grid_of(xs, ys, values):
    """values on the regular grid of the coordinates, or None when they do not form one."""
    ux, uy = sorted(set(xs)), sorted(set(ys))
    if len(ux) * len(uy) > 4_000_000 or len(ux) * len(uy) < len(xs):
        return None
    col = {x: i for i, x in enumerate(ux)}
    row = {y: j for j, y in enumerate(uy)}
    grid = [[float("nan")] * len(ux) for _ in uy]
    for x, y, v in zip(xs, ys, values):
        grid[row[y]][col[x]] = v
    return grid, (ux[0], ux[-1], uy[0], uy[-1])


def domain_picture(page, plt, collection, step, index):
    d = step["domain"]
    xs, ys = d["x"], d["y"]
    after = d["pe_after"]
    panels = 3 if after is not None else 2
    fig, axes = plt.subplots(1, panels, figsize=(4.1 * panels, 4.0), squeeze=False)
    axes = axes[0]
    cmap, colors = pe_colors(plt, step["pes"])
    moved = [i for i in range(len(xs)) if after is not None and after[i] != d["pe_before"][i]]
    layers = [("load", d["load"], "viridis", "object load (s per step)"),
              ("pe-before", d["pe_before"], cmap, "PE")]
    if after is not None:
        layers.append(("pe-after", after, cmap, "PE"))
    titles = {"load": "Load (s per step)", "pe-before": "PE before balancing",
              "pe-after": "PE after balancing"}
    for ax, (name, values, colormap, label) in zip(axes, layers):
        pe_layer = name != "load"
        limits = {"vmin": -0.5, "vmax": colors - 0.5} if pe_layer else {}
        grid = grid_of(xs, ys, values)
        if grid is not None:
            image = ax.imshow(grid[0], origin="lower", cmap=colormap, aspect="auto",
                              extent=(grid[1][0] - 0.5, grid[1][1] + 0.5, grid[1][2] - 0.5,
                                      grid[1][3] + 0.5), interpolation="nearest", **limits)
        else:
            image = ax.scatter(xs, ys, c=values, cmap=colormap, s=12, marker="s",
                               rasterized=len(xs) > 5000, **limits)
        image.set_gid(f"data-domain-{name}-{index}")
        if name != "pe-before" and moved:
            (marks,) = ax.plot([xs[i] for i in moved], [ys[i] for i in moved], ls="none",
                               marker="x", ms=5, color="white" if name == "load" else "black")
            marks.set_gid(f"data-domain-moved-{name}-{index}")
        bar = fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04)
        bar.set_label(label)
        if pe_layer:
            whole_numbers(bar.ax.yaxis)
        ax.set_title(titles[name])
        ax.set_xlabel("x (object coordinate)")
        ax.set_ylabel("y (object coordinate)")
    fig.tight_layout()
    where = f" (the layer z = {d['z']:g})" if "z" in d else ""
    moved_text = (f"; × marks the {len(moved)} objects that moved" if after is not None else
                  "; no 'after' (the collection's last dump, no --strategy)")
    page.add(fig, f"domain-{index}", f"Domain by PE, {collection} balancing step {step['step']}",
             f"The objects at their coordinates{where}: their load (where the storm is), the PE "
             f"each was on before balancing and after it ({step['after_from'] or 'not known'})"
             f"{moved_text}.", [step["path"]])


def pe_load_picture(page, plt, collection, step, index):
    before, after = step["pe_before"], step["pe_after"]
    pes = list(range(len(before)))
    fig, ax = plt.subplots(figsize=(10, 3.6))
    unit, factor = time_scale(before + (after or []))
    if after is None:
        bars = ax.bar(pes, [factor * x for x in before], width=0.8, label="before")
    else:
        bars = ax.bar([p - 0.2 for p in pes], [factor * x for x in before], width=0.4,
                      label="before")
        bars_after = ax.bar([p + 0.2 for p in pes], [factor * x for x in after], width=0.4,
                            label="after")
        name_bars(bars_after, f"data-pe-after-{index}")
    name_bars(bars, f"data-pe-before-{index}")
    mean = ax.axhline(factor * step["mean"], color="black", ls="--", lw=1, label="average")
    mean.set_gid(f"data-pe-average-{index}")
    lam = f"λ before {100 * step['lambda_before']:.1f}%"
    if step["lambda_after"] is not None:
        lam += f", after {100 * step['lambda_after']:.1f}%"
    ax.set_title(f"PE load, {collection} balancing step {step['step']} ({lam})")
    ax.set_xlabel("PE")
    ax.set_ylabel(f"PE time per step ({unit})")
    if len(pes) <= 32:
        ax.set_xticks(pes)
    ax.legend(fontsize="small")
    ax.grid(alpha=0.3, axis="y")
    fig.tight_layout()
    page.add(fig, f"pe-load-{index}", f"PE load, {collection} balancing step {step['step']}",
             "Each PE's time per step (background plus its objects' loads over its speed), in PE "
             "order, before balancing and after it "
             f"({step['after_from'] or 'no after: the last dump and no --strategy'}); the dashed "
             "line is the average.", [step["path"]])


def balancing_series_pictures(page, plt, series, index):
    collection = series["collection"]
    steps = series["steps"]
    paths = [s["path"] for s in steps]
    numbers = [s["step"] for s in steps]
    fig, ax = plt.subplots(figsize=(10, 3.6))
    (line,) = ax.plot(numbers, [100 * s["lambda_before"] for s in steps], marker="o",
                      label="before balancing")
    line.set_gid(f"data-lambda-before-{index}")
    with_after = [s for s in steps if s["lambda_after"] is not None]
    if with_after:
        (line,) = ax.plot([s["step"] for s in with_after],
                          [100 * s["lambda_after"] for s in with_after], marker="^",
                          label="after balancing")
        line.set_gid(f"data-lambda-after-{index}")
    ax.set_title(f"Load imbalance λ = max/avg − 1 at each balancing step ({collection})")
    ax.set_xlabel("balancing step (the dump's -stepK)")
    ax.set_ylabel("λ (%)")
    ax.set_xticks(numbers)
    ax.set_ylim(bottom=0)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    fig.tight_layout()
    page.add(fig, f"lambda-{index}", f"λ over the balancing steps ({collection})",
             "The toolkit's imbalance of the PE times, max/avg − 1, before each balancing step "
             "and after it.", paths)

    if with_after:
        fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.4))
        xs = [s["step"] for s in with_after]
        bars = left.bar(xs, [s["migrations"] for s in with_after], color="tab:orange")
        name_bars(bars, f"data-migrations-{index}")
        unit, size = byte_scale([s["bytes_moved"] for s in with_after])
        bars = right.bar(xs, [s["bytes_moved"] / size for s in with_after], color="tab:green")
        name_bars(bars, f"data-bytes-{index}")
        left.set_title("Migrations per balancing step")
        left.set_ylabel("objects moved")
        right.set_title("Bytes moved per balancing step")
        right.set_ylabel(f"{unit} moved")
        whole_numbers(left.yaxis)
        for ax in (left, right):
            ax.set_xlabel("balancing step")
            ax.set_xticks(xs)
            ax.grid(alpha=0.3, axis="y")
        fig.tight_layout()
        page.add(fig, f"migrations-{index}", f"Migrations and bytes moved ({collection})",
                 "Objects whose PE changed at each balancing step, and the bytes they carry "
                 "(their sizes in the instance).", [s["path"] for s in with_after])

    shown = steps[:MAX_STEPS_SHOWN]
    for k, step in enumerate(shown):
        pe_load_picture(page, plt, collection, step, f"{index}-{k}")
        if step["domain"] is not None:
            domain_picture(page, plt, collection, step, f"{index}-{k}")


def compare_picture(page, plt, comparison, index):
    rows = comparison["strategies"]
    names = [r["strategy"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2),
                                      gridspec_kw={"width_ratios": [1.3, 1]})
    unit, size = byte_scale([r["comm_cut_bytes"] for r in rows])
    cut = [r["comm_cut_bytes"] / size for r in rows]
    points = left.scatter([r["migrations"] for r in rows], [100 * r["lambda_after"] for r in rows],
                          c=cut, cmap="plasma", s=60, edgecolors="black")
    points.set_gid(f"data-compare-points-{index}")
    for r in rows:
        left.annotate(r["strategy"], (r["migrations"], 100 * r["lambda_after"]),
                      textcoords="offset points", xytext=(5, 4), fontsize=8)
    before = left.axhline(100 * rows[0]["lambda_before"], color="grey", ls="--", lw=1,
                          label="λ before")
    before.set_gid(f"data-compare-before-{index}")
    bar = fig.colorbar(points, ax=left)
    bar.set_label(f"communication cut ({unit} per step)")
    left.set_title("λ after against migrations")
    left.set_xlabel("migrations (objects moved)")
    left.set_ylabel("λ after (%)")
    left.legend(fontsize="small")
    left.grid(alpha=0.3)
    bars = right.barh(range(len(rows)), cut, color="tab:purple")
    name_bars(bars, f"data-compare-cut-{index}")
    right.set_yticks(range(len(rows)))
    right.set_yticklabels(names, fontsize=8)
    right.invert_yaxis()
    right.set_title("Communication cut after")
    right.set_xlabel(f"bytes between PEs ({unit} per step)")
    right.grid(alpha=0.3, axis="x")
    fig.tight_layout()
    page.add(fig, f"compare-{index}", f"Strategy comparison ({short(comparison['path'])})",
             "Each strategy on the same instance: the imbalance it leaves against the objects it "
             "moves, coloured by the bytes its placement sends between PEs per step.",
             [comparison["path"]])


def utilization_picture(page, plt, trace, index):
    share = trace["share"]
    bins, seconds = trace["bins"], trace["seconds"]
    width = seconds / bins
    t = [width * (b + 0.5) for b in range(bins)]
    rows = len(trace["pes"])

    def mean(kind):
        return [100 * sum(share[kind][r][b] for r in range(rows)) / rows for b in range(bins)]

    parts = [("entry", "entry methods (work)", "tab:blue"), ("lb", "balancing", "tab:red"),
             ("migration", "migration", "tab:orange"), ("runtime", "runtime", "tab:grey"),
             ("idle", "idle", "#dddddd")]
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 6.4), sharex=True,
                                      gridspec_kw={"height_ratios": [1, 1.2]})
    stacks = top.stackplot(t, *[mean(kind) for kind, _, _ in parts],
                           labels=[label for _, label, _ in parts],
                           colors=[color for _, _, color in parts])
    for (kind, _, _), stack in zip(parts, stacks):
        stack.set_gid(f"data-utilization-{kind}-{index}")
    top.set_xlim(0, seconds)
    top.set_ylim(0, 100)
    top.set_title("PE utilization over time (average over the PEs)")
    top.set_ylabel("share of PE time (%)")
    top.legend(fontsize="small", loc="lower right", ncol=3)
    image = bottom.imshow([[100 * x for x in share["entry"][r]] for r in range(rows)],
                          aspect="auto", origin="lower", cmap="viridis", vmin=0, vmax=100,
                          extent=(0, seconds, -0.5, rows - 0.5), interpolation="nearest")
    image.set_gid(f"data-utilization-pes-{index}")
    for begin, end in trace["balancing"]:
        for ax in (top, bottom):
            ax.axvline(begin, color="red", lw=0.8, alpha=0.7)
    # Asynchronous balancing: when the balancing thread's answers were ready (their moves are the
    # red "apply" marks at the next sync point).
    for k, at in enumerate(trace.get("decided", [])):
        for ax in (top, bottom):
            line = ax.axvline(at, color="tab:purple", lw=0.8, ls="--", alpha=0.8)
            line.set_gid(f"data-decided-{index}-{k}")
    bar = fig.colorbar(image, ax=[top, bottom], fraction=0.03, pad=0.02)
    bar.set_label("busy in entry methods (%)")
    bottom.set_title("Busy share per PE (red lines: balancing; purple dashes: an "
                     "asynchronous answer ready)" if trace.get("decided") else
                     "Busy share per PE (red lines: balancing)")
    bottom.set_xlabel("time since the trace's first event (s)")
    bottom.set_ylabel("PE")
    if rows <= 16:
        bottom.set_yticks(range(rows))
        bottom.set_yticklabels([str(p) for p in trace["pes"]])
    page.add(fig, f"utilization-{index}", f"PE utilization timeline ({short(trace['path'])})",
             f"The trace's {trace['events']} timed events binned into {bins} intervals of "
             f"{1e3 * width:.3g} ms, as Projections' utilization view: what share of each "
             "interval the PEs spent in entry methods, balancing, migration, the runtime's own "
             "messages and idle (time no event covers is left blank).", [trace["path"]])


def build(summary, plt):
    page = Page(plt)
    if summary["step_logs"]:
        step_time(page, plt, summary["step_logs"])
    for i, replay in enumerate(summary["replays"]):
        replay_pictures(page, plt, replay, i)
    for i, series in enumerate(summary["balancing"]):
        balancing_series_pictures(page, plt, series, i)
    for i, comparison in enumerate(summary["comparisons"]):
        compare_picture(page, plt, comparison, i)
    for i, trace in enumerate(summary["traces"]):
        utilization_picture(page, plt, trace, i)
    return page


def missing_pictures(summary):
    """The kinds of picture no input supported, and what would give them."""
    missing = []
    if not summary["step_logs"]:
        missing.append("step time of the application (a per-step log, e.g. brams --step-log)")
    if not summary["balancing"] and not summary["replays"]:
        missing.append("λ over time, migrations and bytes moved (--lb-dump instances or a "
                       "'vela-lb replay --format json' result)")
    if not summary["balancing"]:
        missing.append("per-PE load and the domain by PE (--lb-dump instances)")
    if not summary["comparisons"]:
        missing.append("strategy comparison ('vela-lb compare --format json')")
    if not summary["traces"]:
        missing.append("PE utilization timeline (a Chrome trace, --trace)")
    return missing


def render(summary, page):
    e = html.escape
    title = summary.get("title") or "Vela run report"
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{e(title)}</title>", f"<style>{STYLE}</style>", "</head>", "<body>",
           f"<h1>{e(title)}</h1>",
           "<p>Made by <code>vela-lb report</code>. Every picture is drawn in this page; "
           "nothing is fetched when it is viewed.</p>", "<h2>Inputs and their pictures</h2>",
           "<table><tr><th>input</th><th>kind</th><th>pictures</th></tr>"]
    for item in summary["inputs"]:
        pictures = page.by_input.get(item["path"], [])
        cell = "<br>".join(e(p) for p in dict.fromkeys(pictures)) or "none"
        out.append(f"<tr><td><code>{e(item['path'])}</code></td><td>{e(item['kind'])}</td>"
                   f"<td>{cell}</td></tr>")
    out.append("</table>")
    missing = missing_pictures(summary)
    if missing:
        out.append('<p class="missing">Not drawn, for want of an input that has it: '
                   + "; ".join(e(m) for m in missing) + ".</p>")
    for ident, title_text, caption, paths, svg in page.sections:
        sources = ", ".join(f"<code>{e(p)}</code>" for p in paths)
        out += [f'<h2 id="h-{ident}">{e(title_text)}</h2>', f'<figure class="plot" id="{ident}">',
                svg, f"<figcaption>{e(caption)} From: {sources}.</figcaption>", "</figure>"]
    out += [f"<script>{SELF_CHECK}</script>", "</body>", "</html>", ""]
    return "\n".join(out)


def main():
    args = parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:
        print(f"vela_report.py: {sys.executable}: {error}", file=sys.stderr)
        return NO_MATPLOTLIB
    matplotlib.rcParams.update({
        "svg.fonttype": "path",       # no font is needed where the page is viewed
        "svg.hashsalt": "vela-report",  # the same inputs give the same page
        "path.simplify": False,       # every step of a series is a vertex of its line
        "font.size": 9,
    })
    with open(args.summary, encoding="utf-8") as f:
        summary = json.load(f)
    page = build(summary, plt)
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(render(summary, page))
    for path, titles in page.by_input.items():
        print(f"  {path}: {len(titles)} picture{'s' if len(titles) != 1 else ''}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
