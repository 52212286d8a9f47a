"""Reference estimates for the win-both meter (issue 16): the slow, direct simulation it must match.

For each case (a random 7-card hand, every third case the strongest of 20 random
hands, a split of it — the recommended split, or one
case in four a random split — and 1 to 4 opponents) the opponents' hands are dealt
together, without replacement, from the 45 cards the player does not hold, at least
``--hands`` opponent hands per case (``ceil(hands / opponents)`` deals); every
opponent plays the recommended split. The player wins a comparison outright when no
opponent's hand beats it, and a tie among ``t`` best hands with chance ``1/t`` (the
tie-break draw); the case's reference is the mean over the deals of the product of
the two. Everything is seeded (``--seed``; each case draws from its own generator
seeded with ``seed`` and the case number), so a run reproduces the fixture exactly.

The result is the test fixture ``tests/engine/fixtures/meter_reference.json``, which
``tests/engine/test_meter.py`` compares :func:`engine.games.down_and_back.meter.win_both_meter`
with (the meter is computed by the test, never read from the fixture). About 2 CPU
seconds a case at the defaults; run it under ``nice``::

    nice -n 10 python benchmarks/meter_reference.py --cases 240 --hands 100000 \
        --out tests/engine/fixtures/meter_reference.json
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from engine.cards import DECK  # noqa: E402
from engine.games.down_and_back import tables  # noqa: E402
from engine.games.down_and_back.meter import recommended_values  # noqa: E402
from engine.games.down_and_back.splits import best_split, best_split_score  # noqa: E402
from engine.games.down_and_back.tables import _C2, _C3, _C4  # noqa: E402

MAX_OPPONENTS = 4  # a table seats 5


def _value4(idx: list[int], l4: list[float]) -> float:
    a, b, c, d = sorted(idx)
    return l4[a + _C2[b] + _C3[c] + _C4[d]]


def _value3(idx: list[int], l3: list[float]) -> float:
    a, b, c = sorted(idx)
    return l3[a + _C2[b] + _C3[c]]


def _share(mine: float, theirs: list[float]) -> float:
    """Chance of winning one comparison: 0 if beaten, 1/t for a tie among t best hands."""
    best = max(theirs)
    if best > mine:
        return 0.0
    return 1.0 / (1 + theirs.count(mine)) if best == mine else 1.0


def reference(down: list[int], back: list[int], opponents: int, hands: int, rng: random.Random) -> tuple[float, float]:
    """(mean, standard error) of the win-both chance over ``ceil(hands / opponents)`` deals."""
    t = tables._get_tables()
    scores7, l4, l3 = t.scores7, t.l4, t.l3
    mine4, mine3 = _value4(down, l4), _value3(back, l3)
    unseen = [i for i in range(52) if i not in down and i not in back]
    deals = math.ceil(hands / opponents)
    total = total_sq = 0.0
    for _ in range(deals):
        cards = rng.sample(unseen, 7 * opponents)
        downs, backs = [], []
        for k in range(opponents):
            d, b = recommended_values(sorted(cards[7 * k:7 * k + 7]), scores7, l4, l3)
            downs.append(d)
            backs.append(b)
        won = _share(mine4, downs) * _share(mine3, backs)
        total += won
        total_sq += won * won
    mean = total / deals
    var = max(total_sq / deals - mean * mean, 0.0)
    return mean, math.sqrt(var / deals)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", type=int, default=240)
    parser.add_argument("--hands", type=int, default=100_000, help="opponent hands simulated per case")
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--out", type=Path, default=None, help="write the fixture here (JSON)")
    args = parser.parse_args()
    tables.warm_up(discard=False)
    picker = random.Random(args.seed)
    cases = []
    started = time.perf_counter()
    for n in range(args.cases):
        hand = picker.sample(DECK, 7)
        if n % 3 == 0:  # a strong hand too (the best of 20 deals), where the meter's error is largest
            hand = max([hand] + [picker.sample(DECK, 7) for _ in range(19)], key=best_split_score)
        opponents = 1 + picker.randrange(MAX_OPPONENTS)
        if picker.randrange(4):
            option = best_split(hand)
            down, back, how = list(option.down), list(option.back), "recommended"
        else:
            shuffled = picker.sample(hand, 7)
            down, back, how = shuffled[:4], shuffled[4:], "random"
        mean, error = reference([c.index for c in down], [c.index for c in back], opponents, args.hands,
                                random.Random(f"{args.seed}-{n}"))
        cases.append({"down": [str(c) for c in down], "back": [str(c) for c in back], "split": how,
                      "opponents": opponents, "reference": round(mean, 6), "stderr": round(error, 6)})
        print(f"{n:4d} {' '.join(cases[-1]['down'])} | {' '.join(cases[-1]['back'])} vs {opponents}: "
              f"{mean:.4f} ± {error:.4f}  ({time.perf_counter() - started:.0f} s)", flush=True)
    if args.out:
        fixture = {
            "about": "Reference win-both chances for the meter test; made by benchmarks/meter_reference.py",
            "seed": args.seed, "hands_per_case": args.hands, "cases": cases,
        }
        args.out.write_text(json.dumps(fixture, indent=1) + "\n")


if __name__ == "__main__":
    main()
