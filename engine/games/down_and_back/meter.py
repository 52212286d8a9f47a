"""The win-both meter: the chance that a split beats every opponent in both comparisons.

The calibrated estimate (:func:`.splits.win_both_chance`) compares a split with the
recommended splits of 3,000 random deals from a full deck: fast, but it ignores the
cards the player holds. The meter keeps the same model (each opponent holds 7
random cards and plays the recommended split) and removes that bias. It holds a
*pool* of :data:`POOL_DEALS` random 7-card deals with their recommended splits
(seeded, so the same pool every run); the deals that share no card with the
player's 7 are an exact uniform sample of an opponent's 7 from the 45 cards the
player does not hold. The chance against one opponent is the share of those deals
beaten in both comparisons (a tie counted half: the tie-break draw is a coin toss);
against ``k`` opponents it is that share to the power ``k`` (opponents taken as
independent). Against the direct simulation of ``benchmarks/meter_reference.py`` (opponents
dealt together, 100,000 opponent hands a case; the fixture ``tests/engine/fixtures/
meter_reference.json``, 240 cases) the meter is off by 0.18 points on average and 1.5 at
worst, where the calibrated estimate is off by up to 5 (32 cases over 2). What is left is
the pool's sampling error and, against several opponents, a slight optimism: opponents
dealt from the same cards are not quite independent.

Cost: building the pool takes about 1.5 s of CPU on first use (:func:`warm_up`; the
client builds it in a thread); then a reading counts the deals the hand meets with one
bit set per card and scans the deals whose going-down hand does not beat the player's
(median 3 ms, at most 15 ms of CPU on the fixture's cases).
"""

from __future__ import annotations

import bisect
import random
from typing import Iterable

from ...cards import Card
from . import tables as _lookup
from .splits import win_both_chance
from .tables import _C2, _C3, _C4, _SPLIT_GETTERS

POOL_DEALS = 60_000
POOL_SEED = 20261201  # a private, seeded generator: the same pool every run


class _Pool:
    """The pool's deals, ordered by their going-down value: masks, going-down and coming-back numerators,
    and for each card the set of deals holding it (bit ``i``: deal ``i``), to count the deals a hand meets."""

    __slots__ = ("masks", "downs", "backs", "holding")

    def __init__(self) -> None:
        tables = _lookup._get_tables()
        scores7, l4, l3 = tables.scores7, tables.l4, tables.l3
        sample = random.Random(POOL_SEED).sample
        deck = range(52)
        deals = []
        for _ in range(POOL_DEALS):
            idx = sorted(sample(deck, 7))
            down, back = recommended_values(idx, scores7, l4, l3)
            mask = 0
            for i in idx:
                mask |= 1 << i
            deals.append((down, back, mask))
        deals.sort()
        self.downs = [d for d, _, _ in deals]
        self.backs = [b for _, b, _ in deals]
        self.masks = [m for _, _, m in deals]
        bits = [bytearray((len(deals) + 7) // 8) for _ in range(52)]
        for i, (_, _, mask) in enumerate(deals):
            byte, bit = i >> 3, 1 << (i & 7)
            while mask:
                low = mask & -mask
                bits[low.bit_length() - 1][byte] |= bit
                mask ^= low
        self.holding = [int.from_bytes(b, "little") for b in bits]


def recommended_values(idx: list[int], scores7, l4, l3) -> tuple[float, float]:  # noqa: ANN001
    """The table values (going down, coming back) of the recommended split of 7 ascending card indices."""
    down, back = _SPLIT_GETTERS[34 - (int(max(scores7(*idx))) & 63)]
    a, b, c, d = down(idx)
    e, f, g = back(idx)
    return l4[a + _C2[b] + _C3[c] + _C4[d]], l3[e + _C2[f] + _C3[g]]


_pool: _Pool | None = None


def warm_up() -> None:
    """Build the pool now (about 1.5 s of CPU), so that the first reading is fast."""
    global _pool
    if _pool is None:
        _pool = _Pool()


def is_warm() -> bool:
    """Whether the pool is built (a reading then costs milliseconds)."""
    return _pool is not None


def win_both_meter(down: Iterable[Card], back: Iterable[Card], opponents: int) -> float:
    """The chance that going down with ``down`` and coming back with ``back`` beats ``opponents``
    players in both comparisons, each holding 7 of the cards the player does not hold and
    playing the recommended split (see the module docstring)."""
    if opponents < 0:
        raise ValueError("opponents must be >= 0")
    down, back = list(down), list(back)
    mine_down = _lookup.evaluate4(down)
    mine_back = _lookup.evaluate3(back)
    warm_up()
    pool = _pool
    assert pool is not None
    tables = _lookup._get_tables()
    my_down = float(tables.numerators4[mine_down.key] * _lookup._PACK)
    my_back = float(tables.numerators3[mine_back.key])
    hand = 0
    for card in down + back:
        hand |= 1 << card.index
    masks, downs, backs = pool.masks, pool.downs, pool.backs
    met = 0
    for card in down + back:
        met |= pool.holding[card.index]
    free = len(masks) - met.bit_count()  # the deals that share no card with the hand
    below = bisect.bisect_left(downs, my_down)
    level = bisect.bisect_right(downs, my_down)
    won = 0.0
    for their_back, mask in zip(backs[:level], masks[:level]):
        if their_back <= my_back and not mask & hand:
            won += 1.0 if their_back < my_back else 0.5
    for their_back, mask in zip(backs[below:level], masks[below:level]):  # their going-down hand ties mine: half
        if their_back <= my_back and not mask & hand:
            won -= 0.5 if their_back < my_back else 0.25
    return (won / free) ** opponents if free else 0.0


def win_both(down: Iterable[Card], back: Iterable[Card], opponents: int) -> float:
    """What a helper shows: the meter once its pool is built (:func:`warm_up`, e.g. in a thread), until then
    the calibrated first guess (:func:`.splits.win_both_chance`), so a display never waits a second for it."""
    if is_warm():
        return win_both_meter(down, back, opponents)
    return win_both_chance(down, back, opponents)
