"""Engine benchmarks: import time, table build, split search, bot helpers.

Run from the repository root::

    python benchmarks/bench_engine.py            # full run (a few seconds)
    python benchmarks/bench_engine.py --quick    # fewer samples

Everything is measured in this one run. Per-call times are single calls on
different random hands (fixed seed), timed with ``perf_counter_ns`` and
summarised by the median, so the lookup tables are exercised cold-ish as in a
real game (repeating one hand would keep its table entries in cache and look
faster than real use). Each figure includes the ~0.1 us of the timer itself.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# Targets from the engineering brief.
TARGET_IMPORT_MS = 150.0
TARGET_BEST_SPLIT_US = 10.0
TARGET_SPEEDUP = 20.0

SEED = 20240601


def _median_us(fn: Callable[[Any], Any], inputs: Sequence[Any]) -> float:
    """Median time of one call ``fn(x)`` over ``inputs``, in microseconds."""
    clock = time.perf_counter_ns
    times = []
    for x in inputs:
        start = clock()
        fn(x)
        times.append(clock() - start)
    return statistics.median(times) / 1000.0


def _run_python(code: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    return done.stdout


def _status(ok: bool) -> str:
    return "ok" if ok else "MISSED"


# ---------------------------------------------------------------- sections


def section_import(results: dict[str, Any], runs: int) -> None:
    """Import time of ``engine`` and the hand modules in fresh interpreters."""
    print("\n== import time (fresh interpreter each run, median of %d) ==" % runs)
    code = (
        "import time, json\n"
        "t0 = time.perf_counter()\n"
        "import engine\n"
        "t1 = time.perf_counter()\n"
        "import engine.games.down_and_back.splits\n"
        "t2 = time.perf_counter()\n"
        "print(json.dumps([t1 - t0, t2 - t0]))\n"
    )
    samples = [json.loads(_run_python(code)) for _ in range(runs)]
    engine_ms = statistics.median(s[0] for s in samples) * 1000
    hands_ms = statistics.median(s[1] for s in samples) * 1000
    results["import_engine_ms"] = engine_ms
    results["import_engine_hands_ms"] = hands_ms
    print(f"import engine                 {engine_ms:8.2f} ms")
    print(f"import engine + the hand modules {hands_ms:8.2f} ms   (target < {TARGET_IMPORT_MS:.0f} ms: "
          f"{_status(hands_ms < TARGET_IMPORT_MS)}; no tables are built at import)")


def section_tables(results: dict[str, Any], runs: int) -> None:
    """First-use cost: building the lookup tables, in fresh interpreters."""
    print("\n== table build / first call (fresh interpreter each run, median of %d) ==" % runs)
    code = (
        "import time, json\n"
        "from engine.games.down_and_back import splits\n"
        "from engine.cards import parse_cards\n"
        "seven = parse_cards('9S JD 3D 2C 2D 9C 9D')\n"
        "t0 = time.perf_counter(); splits.rank_splits(seven)\n"
        "t1 = time.perf_counter(); splits.rank_splits(seven)\n"
        "t2 = time.perf_counter(); splits.best_discard(seven + parse_cards('KH'))\n"
        "t3 = time.perf_counter()\n"
        "print(json.dumps([t1 - t0, t2 - t1, t3 - t2]))\n"
    )
    samples = [json.loads(_run_python(code)) for _ in range(runs)]
    first, second, discard = (statistics.median(s[i] for s in samples) for i in range(3))
    memory = json.loads(_run_python(
        "import json, tracemalloc\n"
        "from engine.games.down_and_back import tables\n"
        "tracemalloc.start(); tables.warm_up(discard=False); a = tracemalloc.get_traced_memory()[0]\n"
        "tables.warm_up(discard=True); b = tracemalloc.get_traced_memory()[0]\n"
        "print(json.dumps([a, b]))\n"
    ))
    results["first_rank_splits_ms"] = first * 1000
    results["first_best_discard_ms"] = discard * 1000
    results["tables_mb"] = memory[1] / 1e6
    print(f"first rank_splits (builds 4- and 3-card tables)   {first * 1000:8.1f} ms")
    print(f"second rank_splits                                {second * 1e6:8.1f} us")
    print(f"first best_discard (builds best-3-of-4 table)     {discard * 1000:8.1f} ms")
    print(f"table memory: split tables / + discard table      {memory[0] / 1e6:8.1f} / {memory[1] / 1e6:.1f} MB")


def section_best_split(results: dict[str, Any], n_fast: int, n_naive: int) -> None:
    """All 35 splits ranked: the table path against the straightforward one."""
    from engine.cards import DECK
    from engine.games.down_and_back.tables import warm_up
    from engine.games.down_and_back.splits import best_split, rank_split_scores, rank_splits, rank_splits_reference

    warm_up()
    rng = random.Random(SEED)
    hands = [rng.sample(DECK, 7) for _ in range(n_fast)]
    naive_hands = hands[:n_naive]
    print(f"\n== best split, all 35 splits ranked ({n_fast} random 7-card hands, seed {SEED}) ==")
    for h in hands[:200]:  # warm up the interpreter's specialisation
        rank_splits(h)
    gc.collect()
    fast = _median_us(rank_splits, hands)
    fast_same_hands = _median_us(rank_splits, naive_hands)
    with_best = _median_us(lambda h: rank_splits(h)[0], hands)
    pairs = _median_us(rank_split_scores, hands)
    all_objects = _median_us(lambda h: list(rank_splits(h)), naive_hands)
    gc.collect()
    naive = _median_us(rank_splits_reference, naive_hands)
    ratio = naive / fast_same_hands
    results.update(best_split_us=fast, best_split_with_object_us=with_best, rank_split_scores_us=pairs,
                   rank_all_35_objects_us=all_objects, naive_best_split_us=naive, speedup=ratio)
    print(f"rank_splits: 35 scored and sorted, lazy objects   {fast:8.2f} us   "
          f"(target <= {TARGET_BEST_SPLIT_US:.0f} us: {_status(fast <= TARGET_BEST_SPLIT_US)})")
    print(f"best_split = rank_splits(h)[0] (builds 1 option) {with_best:8.2f} us")
    print(f"rank_split_scores: 35 (score, split) tuples      {pairs:8.2f} us")
    print(f"list(rank_splits(h)): all 35 SplitOption objects  {all_objects:8.2f} us")
    print(f"straightforward (combinations + classify + sort)  {naive:8.2f} us   (first {n_naive} hands)")
    print(f"ratio straightforward / rank_splits (same hands)  {ratio:8.1f} x    "
          f"(target >= {TARGET_SPEEDUP:.0f}x: {_status(ratio >= TARGET_SPEEDUP)})")
    del best_split


def section_bot_helpers(results: dict[str, Any], n: int) -> None:
    """The bots' per-turn helpers."""
    from engine.cards import DECK
    from engine.games.down_and_back.tables import evaluate3, evaluate4, warm_up
    from engine.games.down_and_back.splits import best_discard, best_split_score

    warm_up()
    rng = random.Random(SEED + 1)
    sevens = [rng.sample(DECK, 7) for _ in range(n)]
    eights = [rng.sample(DECK, 8) for _ in range(n)]
    fours = [h[:4] for h in sevens]
    threes = [h[4:] for h in sevens]
    print(f"\n== bot helpers ({n} random hands) ==")
    for h in eights[:200]:
        best_discard(h)
        best_split_score(h[:7])
    gc.collect()
    score = _median_us(best_split_score, sevens)
    discard = _median_us(best_discard, eights)
    ev4 = _median_us(evaluate4, fours)
    ev3 = _median_us(evaluate3, threes)
    results.update(best_split_score_us=score, best_discard_us=discard, evaluate4_us=ev4, evaluate3_us=ev3)
    print(f"best_split_score(7 cards)                         {score:8.2f} us")
    print(f"best_discard(8 cards)                             {discard:8.2f} us")
    print(f"evaluate4 / evaluate3                             {ev4:8.2f} / {ev3:.2f} us")


def section_rounds_per_second(results: dict[str, Any], batches: int, rounds: int) -> None:
    """Whole 4-player rounds, every decision made by the baseline bot from its own view."""
    from engine.games.down_and_back.actions import StartRound
    from engine.games.down_and_back.bots import baseline_action
    from engine.games.down_and_back.rules import OVER, WAITING, Game, Settings
    from engine.rng import HashRng
    from engine.games.down_and_back.views import decision_view

    game = Game(Settings(stack=10**9), [(seat, f"bot{seat}") for seat in range(4)], HashRng(b"bench"))

    def play_round() -> None:
        game.apply(None, StartRound())
        while game.phase not in (WAITING, OVER):
            for seat in game.to_act():
                game.apply(seat, baseline_action(decision_view(game, seat)))

    for _ in range(20):  # warm up: tables built, memos filled as in a running server
        play_round()
    gc.collect()
    gc.freeze()  # earlier sections' objects are not this simulation's garbage to rescan
    rates = []
    for _ in range(batches):
        started = time.perf_counter()
        for _ in range(rounds):
            play_round()
        rates.append(rounds / (time.perf_counter() - started))
    rate = statistics.median(rates)
    results["rounds_per_second_4p"] = rate
    print(f"simulated 4-player rounds/s, baseline bot (median of {batches})  {rate:8.0f}   (target >= 1000)")


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer samples (a smoke run)")
    parser.add_argument("--json", metavar="PATH", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    quick = args.quick

    print(f"Python {platform.python_version()} ({platform.python_implementation()}) on {platform.machine()}")
    results: dict[str, Any] = {"python": platform.python_version()}
    section_import(results, runs=3 if quick else 9)
    section_tables(results, runs=1 if quick else 5)
    section_best_split(results, n_fast=1000 if quick else 20000, n_naive=100 if quick else 1000)
    section_bot_helpers(results, n=1000 if quick else 20000)
    section_rounds_per_second(results, batches=3 if quick else 7, rounds=100 if quick else 500)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n")
    return results


if __name__ == "__main__":
    main()
