"""Benchmarks of this tree against an earlier commit, measured in the same run.

Machines here differ by 2x and their load drifts within minutes, so a figure
is only worth comparing with one measured beside it. This script checks the
earlier commit out into a temporary git worktree and runs each benchmark in
both trees, alternating which goes first, several rounds; it prints each
figure's median per tree and the ratio this tree / the earlier one.

Each tree runs its *own* copy of the benchmark script (an older script cannot
import the newer layout, nor the reverse), with ``PYTHONPATH`` set to that
tree, so only the code under test differs. The client benchmark drives the
real program from outside (a pseudo-terminal), so this tree's script measures
both (its ``--tree``): an older script may not print every figure.

    python benchmarks/compare_commits.py                    # against 1150e74
    python benchmarks/compare_commits.py --base <commit> --rounds 5 --only engine,client

The default base, 1150e74, is the last commit before the game contract
(issue 13) began to move Down and Back out of the shared layers.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_BASE = "1150e74"


@dataclass(frozen=True)
class Figure:
    """One number a benchmark prints, found by ``pattern``'s first group."""

    label: str
    pattern: str
    unit: str
    higher_is_better: bool = False


@dataclass(frozen=True)
class Bench:
    name: str
    args: tuple[str, ...]
    figures: tuple[Figure, ...]
    this_script: bool = False  # run this tree's script against each tree (``--tree``), not each tree's own


CLIENT_FIGURES = (
    Figure("start-up to first paint", r"start-up to first painted table: median (\d+) ms", "ms"),
    Figure("CPU to first paint", r"CPU time to first painted table: median (\d+) ms", "ms"),
    Figure("start-up / bare Textual", r"the client takes ([\d.]+)x its time", "x"),
    Figure("bytes per opponent turn", r"per opponent turn at \d+x\d+: median ([\d.]+) KB", "KB"),
    Figure("showdown-opening turn", r"the showdown-opening turn: ([\d.]+) KB", "KB"),
)

BENCHES = (
    Bench("engine", ("benchmarks/bench_engine.py", "--quick"), (
        Figure("best split, 35 ranked", r"rank_splits: 35 scored and sorted, lazy objects\s+([\d.]+) us", "us"),
        Figure("simulated rounds/s", r"rounds/s, baseline bot \(median of \d+\)\s+(\d+)", "/s", higher_is_better=True),
    )),
    Bench("server", ("benchmarks/bench_server.py", "--clients", "100", "--tables", "25", "--seconds", "8"), (
        Figure("act round trip p50", r"dab-server act -> ok .*?p50\s+([\d.]+) ms", "ms"),
        Figure("act round trip / echo", r"echo p50 at the same request rate = ([\d.]+)x", "x"),
    )),
    Bench("client", ("benchmarks/bench_client.py", "--runs", "5", "--turns", "6"), CLIENT_FIGURES, this_script=True),
    # the same at 120x40, where the client draws its larger layout (large cards, the side panel)
    Bench("client-large", ("benchmarks/bench_client.py", "--runs", "5", "--turns", "6", "--size", "120x40"),
          CLIENT_FIGURES, this_script=True),
    Bench("gateways", ("benchmarks/bench_gateways.py", "--only", "web,children,logins"), (
        Figure("tab key -> frame, quiet", r"SUMMARY web_key_frame_quiet_ms=([\d.]+)", "ms"),
        Figure("tab key -> frame, 5 flood", r"web_key_frame_flooded_ms=([\d.]+)", "ms"),
        Figure("loop lag p99, 5 tabs flood", r"web_lag_p99_flooded_ms=([\d.]+)", "ms"),
        Figure("children after 20 floods", r"web_children_left=(\d+)", ""),
        Figure("ping p99, SSH login flood", r"ssh_login_flood_ping_p99_ms=([\d.]+)", "ms"),
    ), this_script=True),
)


def run(tree: Path, bench: Bench) -> dict[str, float]:
    """One run of ``bench`` in ``tree``: its figures, or an error naming what was not printed."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    script, *args = bench.args
    if bench.this_script:
        script, args = str(ROOT / script), [*args, "--tree", str(tree)]
    done = subprocess.run([sys.executable, script, *args], cwd=tree, env=env, capture_output=True, text=True,
                          timeout=600)
    found = {}
    for figure in bench.figures:
        match = re.search(figure.pattern, done.stdout)
        if match is not None:
            found[figure.label] = float(match.group(1))
    if not found:  # a figure alone may be missing (an older program does not report it); all of them: a failure
        raise RuntimeError(f"{bench.name} in {tree} printed none of its figures:\n{done.stdout}\n{done.stderr}")
    return found


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    return f"{cpu}, {os.cpu_count()} CPUs, load {load}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", default=DEFAULT_BASE, help=f"the earlier commit (default {DEFAULT_BASE})")
    parser.add_argument("--rounds", type=int, default=3, help="runs per tree and benchmark (default 3)")
    parser.add_argument("--only", default=",".join(b.name for b in BENCHES), help="comma-separated benchmarks")
    args = parser.parse_args()
    chosen = [b for b in BENCHES if b.name in args.only.split(",")]
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    print(f"this tree ({head}, with any uncommitted changes) against {args.base}; {machine()}")
    with tempfile.TemporaryDirectory() as scratch:
        base_tree = Path(scratch) / "base"
        subprocess.run(["git", "worktree", "add", "--detach", "-q", str(base_tree), args.base], cwd=ROOT, check=True)
        try:
            trees = {"base": base_tree, "head": ROOT}
            for bench in chosen:
                samples: dict[str, dict[str, list[float]]] = {t: {f.label: [] for f in bench.figures} for t in trees}
                for i in range(args.rounds):
                    for tree in (("base", "head") if i % 2 == 0 else ("head", "base")):
                        for label, value in run(trees[tree], bench).items():
                            samples[tree][label].append(value)
                for figure in bench.figures:
                    if not samples["base"][figure.label] or not samples["head"][figure.label]:
                        print(f"{bench.name:<12} {figure.label:<26} not printed by "
                              f"{'this tree' if not samples['head'][figure.label] else args.base}")
                        continue
                    base = statistics.median(samples["base"][figure.label])
                    new = statistics.median(samples["head"][figure.label])
                    better = new >= base if figure.higher_is_better else new <= base
                    ratio = f"{new / base:5.2f}" if base else "    -"
                    print(f"{bench.name:<12} {figure.label:<26} {args.base}: {base:9.2f} {figure.unit:<3} "
                          f"this: {new:9.2f} {figure.unit:<3} ratio {ratio}  "
                          f"({'same or better' if better else 'worse'}; medians of {args.rounds})")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(base_tree)], cwd=ROOT, check=False)
    print(f"after: load {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
