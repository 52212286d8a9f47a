"""Cribbage benchmarks: the show scorer, the reference check, the bots' decision times and strength.

Run from the repository root::

    python benchmarks/bench_cribbage.py                 # full run (a few minutes on 2 cores)
    python benchmarks/bench_cribbage.py --quick         # small counts, for development
    python benchmarks/bench_cribbage.py --every-pair    # the reference on each pair itself (~45 min of CPU)

Sections, all measured in this one run:

1. **Show scoring**: the fast scorer over all 12,994,800 (4-card hand, starter)
   pairs (total and per pair), and per call (median, cards API) against the
   reference scorer measured on the same hands (the ratio).
2. **Reference check**: the fast scorer against the independent reference
   (:mod:`engine.games.cribbage.reference`), as a hand and as the crib. By
   default on every hand up to renaming the suits (18,096 classes that stand,
   with their weights, for all 270,725 hands) with each of its 48 starters: a
   score never depends on which suit is which, only on which cards share one.
   ``--every-pair`` checks each of the 12,994,800 pairs directly instead.
3. **Bot decision times**: the baseline and the strong bot both decide at every
   decision of two-player games (baseline against strong), timed per decision
   kind: median and p99, and the strong bot's cost as a ratio of the baseline's.
4. **Strength**: strong against baseline over N two-player games to 121
   (seats alternate; the draw decides the first dealer): the strong bot's win
   rate with its 95% (Wilson) confidence interval, skunks, mean margin.

The seed is printed; ``--processes`` spreads sections 2 and 4 over processes.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from itertools import combinations
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.cards import DECK  # noqa: E402
from engine.contract import StartRound  # noqa: E402
from engine.games.cribbage.bots import baseline_action, strong_action  # noqa: E402
from engine.games.cribbage.reference import reference_score  # noqa: E402
from engine.games.cribbage.rules import WAITING, Game, Settings  # noqa: E402
from engine.games.cribbage.scoring import show_score, show_score_indices  # noqa: E402
from engine.games.cribbage.views import decision_view  # noqa: E402
from engine.rng import HashRng  # noqa: E402

SEED = 20261201
TARGET_ALL_PAIRS_S = 60.0  # "well under a minute"
TARGET_DECISION_MS = 50.0
TARGET_WIN_RATE = 0.60
BOTS: dict[str, Callable[[dict[str, Any]], Any]] = {"baseline": baseline_action, "strong": strong_action}


def _status(ok: bool) -> str:
    return "ok" if ok else "MISSED"


# ----------------------------------------------------------------- 1. show scoring


def table_build_ms() -> float:
    """The first show score in a fresh interpreter: the rank table is built then (not at import)."""
    code = ("import time\nfrom engine.games.cribbage.scoring import show_score_indices\n"
            "started = time.perf_counter()\nshow_score_indices(0, 1, 2, 3, 4)\n"
            "print((time.perf_counter() - started) * 1000)")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return float(subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                check=True).stdout)


def section_show(seed: int, samples: int) -> None:
    print("\n== show scoring ==")
    print(f"rank table built on the first score: {table_build_ms():.0f} ms (once a process)")
    start = time.perf_counter()
    pairs = 0
    for a, b, c, d in combinations(range(52), 4):
        for starter in range(52):
            if starter != a and starter != b and starter != c and starter != d:
                show_score_indices(a, b, c, d, starter)
                pairs += 1
    elapsed = time.perf_counter() - start
    print(f"all {pairs:,} (hand, starter) pairs: {elapsed:6.2f} s, {elapsed / pairs * 1e6:5.2f} us a pair "
          f"(target < {TARGET_ALL_PAIRS_S:.0f} s: {_status(elapsed < TARGET_ALL_PAIRS_S)})")
    chooser = random.Random(seed)
    hands = [chooser.sample(DECK, 5) for _ in range(samples)]
    fast = _median_us(lambda five: show_score(five[:4], five[4]), hands)
    reference = _median_us(lambda five: reference_score(five[:4], five[4]), hands)
    print(f"per call (cards, median of {samples:,}): fast {fast:6.2f} us, reference {reference:7.2f} us "
          f"(fast is {reference / fast:5.1f}x quicker)")


def _median_us(fn: Callable[[Any], Any], inputs: list[Any]) -> float:
    clock = time.perf_counter_ns
    times = []
    for x in inputs:
        started = clock()
        fn(x)
        times.append(clock() - started)
    return statistics.median(times) / 1000.0


# ----------------------------------------------------------------- 2. reference check


def suit_classes() -> Counter:
    """Every hand with its suits renamed in order of first appearance, counted: the classes and their weights."""
    def renamed(hand: tuple[int, ...]) -> tuple[int, ...]:
        names: dict[int, int] = {}
        for index in hand:
            names.setdefault(index & 3, len(names))
        return tuple(sorted((index & ~3) | names[index & 3] for index in hand))
    return Counter(map(renamed, combinations(range(52), 4)))


def _check_hands(hands: list[tuple[int, ...]]) -> tuple[int, list[str]]:
    """(pairs checked, each as a hand and as the crib; the mismatches) for every starter of each hand."""
    checked, wrong = 0, []
    for hand in hands:
        cards = [DECK[i] for i in hand]
        for starter in range(52):
            if starter in hand:
                continue
            for crib in (False, True):
                fast = show_score_indices(*hand, starter, crib)
                if fast != reference_score(cards, DECK[starter], crib):
                    wrong.append(f"{' '.join(c.text for c in cards)} / {DECK[starter].text} crib={crib}: {fast}")
            checked += 1
    return checked, wrong


def section_reference(every_pair: bool, processes: int) -> None:
    print("\n== reference check (fast scorer against the rule-text reference, as hand and as crib) ==")
    started = time.perf_counter()
    if every_pair:
        hands = list(combinations(range(52), 4))
        weights = None
    else:
        weights = suit_classes()
        hands = list(weights)
    chunks = [hands[i::processes * 8] for i in range(processes * 8)]
    with multiprocessing.Pool(processes) as pool:
        results = pool.map(_check_hands, chunks)
    checked = sum(r[0] for r in results)
    wrong = [w for r in results for w in r[1]]
    covered = checked if weights is None else sum(weights[h] for h in hands) * 48
    elapsed = time.perf_counter() - started
    what = "every pair itself" if every_pair else f"{len(hands):,} suit classes x 48 starters"
    print(f"{checked:,} pairs checked ({what}), standing for {covered:,} pairs, as hand and crib: "
          f"{len(wrong)} mismatches in {elapsed:.1f} s ({_status(not wrong and covered == 12994800)})")
    for line in wrong[:10]:
        print("  MISMATCH", line)


# ----------------------------------------------------------------- 3 and 4. the bots


def play_match(index: int, seed: int, timed: bool = False) -> dict[str, Any]:
    """One two-player game to 121, strong against baseline (strong at seat ``index % 2``)."""
    game = Game(Settings(), [(0, "a", 1000), (1, "b", 1000)], HashRng(f"{seed}-{index}"))
    strong_seat = index % 2
    bots = {strong_seat: strong_action, 1 - strong_seat: baseline_action}
    times: dict[tuple[str, str], list[int]] = defaultdict(list)
    game.apply(None, StartRound())
    while game.result is None:
        if game.phase == WAITING:
            game.apply(None, StartRound())
            continue
        seat = game.to_act()[0]
        view = decision_view(game, seat)
        if timed:
            kind = view["legal"][0]["kind"]
            for name, bot in BOTS.items():
                started = time.perf_counter_ns()
                bot(view)
                times[kind, name].append(time.perf_counter_ns() - started)
        game.apply(seat, bots[seat](view))
    result = game.result
    return {"won": result["winners"] == [strong_seat],
            "margin": result["scores"][strong_seat] - result["scores"][1 - strong_seat],
            "multiplier": result["losses"][0]["multiplier"], "times": dict(times)}


def _percentile(values: list[int], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(math.ceil(fraction * len(ordered))) - 1)]


def section_decisions(seed: int, games: int) -> None:
    print(f"\n== bot decision times (both bots at every decision of {games} games, one process) ==")
    show_score_indices(0, 1, 2, 3, 4)  # the rank table's one-time build is not a decision's cost
    times: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index in range(games):
        for key, values in play_match(index, seed + 1, timed=True)["times"].items():
            times[key] += values
    slowest = 0.0
    for kind in ("cut", "discard", "play"):
        medians = {}
        for name in BOTS:
            values = times[kind, name]
            median, p99 = statistics.median(values) / 1e6, _percentile(values, 0.99) / 1e6
            slowest = max(slowest, p99)
            medians[name] = median
            print(f"{kind:8s} {name:8s} n={len(values):6d}  median {median:7.3f} ms  p99 {p99:7.3f} ms  "
                  f"max {max(values) / 1e6:7.3f} ms")
        print(f"{kind:8s} strong / baseline median: {medians['strong'] / medians['baseline']:5.2f}x")
    print(f"slowest p99 {slowest:.2f} ms (target <= {TARGET_DECISION_MS:.0f} ms: {_status(slowest <= TARGET_DECISION_MS)})")


def _matches(args: tuple[list[int], int]) -> list[dict[str, Any]]:
    indices, seed = args
    return [play_match(i, seed) for i in indices]


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win rate."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def section_strength(seed: int, games: int, processes: int) -> None:
    print(f"\n== strong against baseline: {games:,} two-player games to 121, {processes} process(es) ==")
    started = time.perf_counter()
    chunks = [(list(range(i, games, processes * 4)), seed) for i in range(processes * 4)]
    with multiprocessing.Pool(processes) as pool:
        results = [r for chunk in pool.map(_matches, chunks) for r in chunk]
    elapsed = time.perf_counter() - started
    wins = sum(r["won"] for r in results)
    low, high = wilson(wins, games)
    rate = wins / games
    skunks = Counter((r["won"], r["multiplier"]) for r in results)
    print(f"strong wins {wins:,} of {games:,}: {rate:.1%} (95% CI {low:.1%} to {high:.1%}; "
          f"target >= {TARGET_WIN_RATE:.0%}: {_status(low >= TARGET_WIN_RATE)} on the interval's low end, "
          f"{_status(rate >= TARGET_WIN_RATE)} on the rate)")
    print(f"skunks by strong {skunks[True, 2]}, double {skunks[True, 3]}; by baseline {skunks[False, 2]}, "
          f"double {skunks[False, 3]}; mean margin for strong {statistics.mean(r['margin'] for r in results):+.1f}")
    print(f"{elapsed:.1f} s ({elapsed / games * 1000:.1f} ms a game over {processes} process(es))")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--games", type=int, default=2000, help="strong against baseline games (default 2000)")
    parser.add_argument("--timed-games", type=int, default=100, help="games whose every decision is timed")
    parser.add_argument("--processes", type=int, default=min(2, os.cpu_count() or 1))
    parser.add_argument("--quick", action="store_true", help="small counts; skips the all-pairs sections")
    parser.add_argument("--every-pair", action="store_true", help="the reference on each of the 12,994,800 pairs")
    args = parser.parse_args()
    print(f"seed {args.seed}; python {sys.version.split()[0]}; load {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} cores")
    if args.quick:
        section_decisions(args.seed, 5)
        section_strength(args.seed, 40, args.processes)
        return
    section_show(args.seed, 20000)
    section_reference(args.every_pair, args.processes)
    section_decisions(args.seed, args.timed_games)
    section_strength(args.seed, args.games, args.processes)
    print(f"\nload at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
