"""Is the fair deal's shuffle uniform? Chi-square of card-by-position counts over many deals (issue 15).

Each deal shuffles the sorted pack from its own stream (engine.fairness.DealStream: a fresh round
seed per deal, as every round has), and the count of each card at each of the 52 positions is
compared with the N/52 a uniform shuffle expects. With the margins fixed (every card is somewhere,
every position holds one card) the statistic has (52 - 1)^2 = 2601 degrees of freedom; its p-value
is the chance of a statistic at least this large from a perfectly uniform shuffle (a uniform one gives
a p-value that is itself uniform on 0..1: below 0.001 would be alarming)::

    python benchmarks/bench_shuffle.py                 # 1,000,000 deals, one process
    python benchmarks/bench_shuffle.py --workers 2     # both cores, when the machine is quiet
"""

from __future__ import annotations

import argparse
import hashlib
import math
import multiprocessing
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.cards import DECK  # noqa: E402
from engine.fairness import DealStream  # noqa: E402

CARDS = len(DECK)


def count(first: int, deals: int) -> list[int]:
    """Card-by-position counts (card index * 52 + position) of deals ``first`` .. ``first + deals - 1``."""
    counts = [0] * (CARDS * CARDS)
    pack = list(range(CARDS))
    for deal in range(first, first + deals):
        seed = hashlib.sha256(b"bench_shuffle round seed " + deal.to_bytes(8, "big")).digest()
        order = pack[:]
        DealStream(seed, 1, {}).shuffle(order)
        for position, card in enumerate(order):
            counts[card * CARDS + position] += 1
    return counts


def chi_square(counts: list[int], deals: int) -> float:
    expected = deals / CARDS
    return sum((observed - expected) ** 2 for observed in counts) / expected


def upper_gamma_regularized(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a): a series below x < a + 1, Lentz's continued fraction above."""
    if x <= 0:
        return 1.0
    log_prefix = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        n = a
        while abs(term) > abs(total) * 1e-15:
            n += 1
            term *= x / n
            total += term
        return 1.0 - total * math.exp(log_prefix)
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 100_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-15:
            break
    return math.exp(log_prefix) * h


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=1, help="processes (use 2 only on a quiet machine)")
    args = parser.parse_args()
    started, cpu = time.perf_counter(), time.process_time()
    share = -(-args.deals // args.workers)
    parts = [(w * share, min(share, args.deals - w * share)) for w in range(args.workers)]
    if args.workers == 1:
        counts = count(*parts[0])
    else:
        with multiprocessing.Pool(args.workers) as pool:
            results = pool.starmap(count, parts)
        counts = [sum(column) for column in zip(*results)]
    elapsed = time.perf_counter() - started
    statistic = chi_square(counts, args.deals)
    freedom = (CARDS - 1) ** 2
    p_value = upper_gamma_regularized(freedom / 2, statistic / 2)
    expected = args.deals / CARDS
    worst = max(abs(c - expected) / math.sqrt(expected) for c in counts)
    print(f"deals: {args.deals:,} ({args.workers} process{'es' if args.workers > 1 else ''}), "
          f"{elapsed:.1f} s wall, {elapsed / args.deals * 1e6:.1f} µs per deal; load {os.getloadavg()[0]:.2f}, "
          f"this process's CPU {time.process_time() - cpu:.1f} s")
    print(f"card-by-position counts: expected {expected:,.1f} each; worst cell {worst:.2f} standard deviations off")
    print(f"chi-square = {statistic:,.1f} with {freedom} degrees of freedom (mean {freedom}, sd "
          f"{math.sqrt(2 * freedom):.1f}); p-value = {p_value:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
