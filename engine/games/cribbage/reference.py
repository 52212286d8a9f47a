"""A reference scorer for the show, written from the rule text alone (``shared/rules/cribbage.md``).

It shares nothing with :mod:`.scoring` but the cards: every subset of the
five cards is tried for fifteens and runs, every two cards for a pair. Plain
on purpose, so that the tests and ``benchmarks/bench_cribbage.py`` can hold the
fast table-driven scorer to it.
"""

from __future__ import annotations

from itertools import combinations
from typing import Sequence

from ...cards import Card, Rank

_SUBSETS = {size: list(combinations(range(5), size)) for size in range(1, 6)}
"""Every subset of the five cards, as positions, by size."""


def _count_value(card: Card) -> int:
    """K, Q, J and 10 count 10; every other card its pips; the ace 1."""
    return 10 if card.rank >= Rank.TEN else int(card.rank)


def _is_run(ranks: Sequence[int]) -> bool:
    """Ranks that are consecutive and all different (the ace low, no wrap-around)."""
    ordered = sorted(ranks)
    return all(later == earlier + 1 for earlier, later in zip(ordered, ordered[1:]))


def reference_score(hand: Sequence[Card], starter: Card, crib: bool = False) -> int:
    """The show's points for a four-card hand (the crib when ``crib``) counted with the starter."""
    five = list(hand) + [starter]
    values = [_count_value(c) for c in five]
    ranks = [int(c.rank) for c in five]
    fifteens = 2 * sum(1 for subsets in _SUBSETS.values() for subset in subsets
                       if sum(map(values.__getitem__, subset)) == 15)
    pairs = 2 * sum(1 for x, y in combinations(ranks, 2) if x == y)
    runs = 0
    for length in (5, 4, 3):  # every distinct run of the longest length: shorter ones lie inside them
        found = sum(1 for subset in _SUBSETS[length] if _is_run([ranks[i] for i in subset]))
        if found:
            runs = length * found
            break
    flush = 0
    if len({c.suit for c in hand}) == 1:
        if starter.suit == hand[0].suit:
            flush = 5
        elif not crib:
            flush = 4
    nobs = sum(1 for c in hand if c.rank == Rank.JACK and c.suit == starter.suit)
    return fifteens + pairs + runs + flush + nobs
