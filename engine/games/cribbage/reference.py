"""A reference scorer for the show, written from the rule text alone (``shared/rules/cribbage.md``).

It shares nothing with :mod:`.scoring` but the cards: every subset of the
five cards is tried for fifteens and runs, every two cards for a pair. Slow
and plain on purpose, so that the tests and ``benchmarks/bench_cribbage.py``
can hold the fast table-driven scorer to it on every (hand, starter) pair.
"""

from __future__ import annotations

from itertools import combinations
from typing import Sequence

from ...cards import Card, Rank


def _count_value(card: Card) -> int:
    """K, Q, J and 10 count 10; every other card its pips; the ace 1."""
    return 10 if card.rank >= Rank.TEN else int(card.rank)


def _is_run(cards: Sequence[Card]) -> bool:
    """Three or more cards of consecutive ranks, all different (the ace low, no wrap-around)."""
    ranks = sorted(int(c.rank) for c in cards)
    return all(later == earlier + 1 for earlier, later in zip(ranks, ranks[1:]))


def reference_score(hand: Sequence[Card], starter: Card, crib: bool = False) -> int:
    """The show's points for a four-card hand (the crib when ``crib``) counted with the starter."""
    five = list(hand) + [starter]
    subsets = [subset for size in range(1, 6) for subset in combinations(five, size)]
    fifteens = sum(2 for subset in subsets if sum(_count_value(c) for c in subset) == 15)
    pairs = sum(2 for x, y in combinations(five, 2) if x.rank == y.rank)
    runs = 0
    for length in (5, 4, 3):  # every distinct run of the longest length: shorter ones lie inside them
        found = [subset for subset in subsets if len(subset) == length and _is_run(subset)]
        if found:
            runs = length * len(found)
            break
    flush = 0
    if len({c.suit for c in hand}) == 1:
        if starter.suit == hand[0].suit:
            flush = 5
        elif not crib:
            flush = 4
    nobs = sum(1 for c in hand if c.rank == Rank.JACK and c.suit == starter.suit)
    return fifteens + pairs + runs + flush + nobs
