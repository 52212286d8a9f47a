"""The best-split recommendation, and the split and discard search the bots use.

At the showdown a player must win **both** comparisons to take the pot, so
the recommendation maximises an estimate of the chance of winning both, not
the strength of the 4-card hand alone. For a hand value ``v`` of size n,

    percentile(v) = (hands below v + (hands equal to v - 1) / 2) / (all hands - 1)

over all C(52, n) hands of that size: the probability that ``v`` beats one
other random hand of its size, a tie counting half. A split's score is

    score = percentile4(down) * percentile3(back)

the probability of beating one random opponent in both comparisons if the
opponent's two hands were independent, uniformly random hands. Against ``k``
opponents the same assumptions give ``score ** k`` (:func:`win_both_estimate`);
that is monotone in ``score``, so the best split is the same for every number
of opponents. It is an estimate: it ignores the cards the player holds (card
removal), the correlation between an opponent's two hands, and that opponents
choose their own best split, which makes their hands stronger than random.

:func:`rank_splits` ranks all 35 splits of 7 cards by score (best first; equal
scores keep a fixed order of the splits of the cards sorted by
:attr:`Card.index`, so the result never depends on the order the cards came
in). :func:`best_split` is its first entry. For bots, :func:`best_split_score`
and :func:`best_discard` compute the best score over the 35 splits (and over
the 8 possible discards) from the tables without building any objects;
:class:`DiscardSearch` gives the discard's score first and the card only on
request.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from functools import cached_property
from typing import Iterable, Iterator, Sequence, overload

from ...cards import DECK, Card
from . import tables as _lookup
from .hands import HandError, HandValue, _as_sequence, _distinct_indices, _get_index, classify3, classify4
from .tables import (
    _BACK_SOURCE8, _C2, _C3, _SCORE_DIV, _SPLIT_DIV, _SPLIT_GETTERS, _Tables, evaluate3, evaluate4,
    percentile3, percentile4,
)

# This module's own handle on the shared tables: a module global is the
# cheapest lookup on the split and discard paths the bots call every turn.
_tables: _Tables | None = None


def _get_tables() -> _Tables:
    global _tables
    _tables = _lookup._get_tables()
    return _tables


@dataclass(frozen=True)
class SplitOption:
    """One way to split 7 cards: 4 going down, 3 coming back.

    ``score`` = percentile4(down) * percentile3(back), in [0, 1]: the estimated
    chance of beating one random opponent in both comparisons (see the module
    docstring). ``down_value`` and ``back_value`` are computed on first access.
    Cards are listed most significant first (e.g. the pair before the odd
    cards, higher ranks first).
    """

    down: tuple[Card, ...]
    back: tuple[Card, ...]
    score: float

    @cached_property
    def down_value(self) -> HandValue:
        return evaluate4(self.down)

    @cached_property
    def back_value(self) -> HandValue:
        return evaluate3(self.back)

    @property
    def down_percentile(self) -> float:
        return percentile4(self.down_value)

    @property
    def back_percentile(self) -> float:
        return percentile3(self.back_value)

    @property
    def cards(self) -> tuple[Card, ...]:
        return self.down + self.back

    def __repr__(self) -> str:
        return (f"SplitOption(down='{' '.join(map(str, self.down))}' [{self.down_value.name}], "
                f"back='{' '.join(map(str, self.back))}' [{self.back_value.name}], score={self.score:.4f})")


def _display_order(indices: Sequence[int]) -> tuple[Card, ...]:
    """Cards of ascending ``indices``, most significant first: bigger groups of
    a rank first, then higher ranks, then suit order."""
    counts = [0] * 13
    for i in indices:
        counts[i >> 2] += 1
    # descending (count, rank, 3 - suit), packed in one int: count*64 + rank*4 + 3 - suit
    order = sorted([(counts[i >> 2] << 6) + (i & ~3) + 3 - (i & 3) for i in indices], reverse=True)
    return tuple([DECK[(k & 63 & ~3) + 3 - (k & 3)] for k in order])


def _display4(a: int, b: int, c: int, d: int) -> tuple[Card, ...]:
    """:func:`_display_order` of ``a < b < c < d``, fast when the ranks differ."""
    if a >> 2 != b >> 2 != c >> 2 != d >> 2:
        return (DECK[d], DECK[c], DECK[b], DECK[a])
    return _display_order((a, b, c, d))


def _display3(a: int, b: int, c: int) -> tuple[Card, ...]:
    if a >> 2 != b >> 2 != c >> 2:
        return (DECK[c], DECK[b], DECK[a])
    return _display_order((a, b, c))


def _new_split_option(down: tuple[Card, ...], back: tuple[Card, ...], score: float) -> SplitOption:
    """``SplitOption(down, back, score)`` without the frozen dataclass's slow
    ``__init__`` (which sets each field through ``object.__setattr__``)."""
    option = object.__new__(SplitOption)
    option.__dict__.update(down=down, back=back, score=score)
    return option


class RankedSplits(Sequence[SplitOption]):
    """The 35 splits of 7 cards, best first.

    The ranking is done up front; each :class:`SplitOption` is built on first
    access (and kept), so taking the best split does not pay for all 35.
    Behaves like a read-only list.
    """

    __slots__ = ("_indices", "_packed", "_options")

    def __init__(self, indices: list[int], packed: list[float]) -> None:
        self._indices = indices  # the 7 card indices, ascending
        self._packed = packed  # sorted packed scores (see _compile_split_functions)
        self._options: list[SplitOption | None] = [None] * 35

    def __len__(self) -> int:
        return 35

    @overload
    def __getitem__(self, i: int) -> SplitOption: ...
    @overload
    def __getitem__(self, i: slice) -> list[SplitOption]: ...

    def __getitem__(self, i):  # type: ignore[no-untyped-def]
        if isinstance(i, slice):
            return [self[j] for j in range(35)[i]]
        option = self._options[i]
        if option is None:
            packed = int(self._packed[i])
            down, back = _SPLIT_GETTERS[34 - (packed & 63)]
            idx = self._indices
            option = _new_split_option(_display4(*down(idx)), _display3(*back(idx)), (packed >> 6) / _SPLIT_DIV)
            self._options[i] = option
        return option

    def __iter__(self) -> Iterator[SplitOption]:
        for i in range(35):
            yield self[i]

    def scores(self) -> list[float]:
        """The 35 scores, best first."""
        return [(int(v) >> 6) / _SPLIT_DIV for v in self._packed]

    def split_numbers(self) -> list[int]:
        """The splits in ranked order as split numbers (see :func:`rank_split_scores`)."""
        return [34 - (int(v) & 63) for v in self._packed]

    def __repr__(self) -> str:
        return f"<RankedSplits best={self[0]!r}>"


def _seven(cards: Iterable[Card]) -> list[int]:
    """Sorted indices of 7 distinct cards (fast path), or :class:`HandError`."""
    if type(cards) is not list and type(cards) is not tuple:
        cards = _as_sequence(cards, 7)
    try:
        idx = sorted(map(_get_index, cards))
        if (len(idx) == 7 and type(idx[0]) is int and idx[0] < idx[1] < idx[2] < idx[3] < idx[4]
                < idx[5] < idx[6]):
            return idx
    except (AttributeError, TypeError):
        pass
    return _distinct_indices(cards, 7)  # raises HandError, or accepts e.g. a generator


def rank_splits(seven: Iterable[Card]) -> RankedSplits:
    """All 35 splits of 7 distinct cards, best first (see the module docstring).

    Equal scores keep a fixed split order, so the result is deterministic and
    does not depend on the order of ``seven``.
    """
    idx = _seven(seven)
    return RankedSplits(idx, (_tables or _get_tables()).scores7(*idx))


def rank_split_scores(seven: Iterable[Card]) -> list[tuple[float, int]]:
    """All 35 ``(score, split number)`` pairs, best first, no split objects.

    Split number ``k`` puts the cards at positions ``itertools.combinations(
    range(7), 3)[k]`` of the 7 cards sorted by :attr:`Card.index` in the
    coming-back hand, the others in the going-down hand.
    """
    idx = _seven(seven)
    return [((v >> 6) / _SPLIT_DIV, 34 - (v & 63)) for v in map(int, (_tables or _get_tables()).scores7(*idx))]


def best_split(seven: Iterable[Card]) -> SplitOption:
    """The recommended split of 7 cards: the first of :func:`rank_splits`."""
    return rank_splits(seven)[0]


def best_split_score(seven: Iterable[Card]) -> float:
    """The best score over the 35 splits of 7 cards (no objects built)."""
    return (_tables or _get_tables()).max7(*_seven(seven)) / _SCORE_DIV


def best_discard(eight: Iterable[Card]) -> tuple[Card, float]:
    """The card to throw from 8 so that the other 7 have the best split score.

    Returns ``(card, best_split_score of the remaining 7)``. Among discards
    that leave equal scores the lowest card (by :attr:`Card.index`: lowest
    rank, then spades, hearts, diamonds, clubs) is thrown. The card returned
    is one of the objects passed in.

    Throwing card x and splitting the other 7 is the same as choosing a
    going-down hand D and a 4-card set E (D, E partition the 8), taking the
    best 3 of E back and throwing the fourth: 35 partitions, two ways round.
    """
    if type(eight) is not list and type(eight) is not tuple:
        eight = _as_sequence(eight, 8)
    try:
        idx = sorted(map(_get_index, eight))
        ok = (len(idx) == 8 and type(idx[0]) is int
              and idx[0] < idx[1] < idx[2] < idx[3] < idx[4] < idx[5] < idx[6] < idx[7])
    except (AttributeError, TypeError):
        ok = False
    if not ok:
        idx = _distinct_indices(eight, 8)
    throw, score = best_discard_index(idx)
    for card in eight:
        if card.index == throw:
            return card, score
    raise AssertionError("unreachable")  # pragma: no cover


def best_discard_index(idx: Sequence[int]) -> tuple[int, float]:
    """:func:`best_discard` on 8 ascending, distinct card indices (not checked).

    For callers that already hold indices (bots): ``(index to throw, score)``.
    """
    search = DiscardSearch(idx)
    return search.throw_index(), search.score


class DiscardSearch:
    """The search behind :func:`best_discard_index`, in two steps, for callers that mostly need only the score.

    ``DiscardSearch(idx).score`` is the best score left after one discard from
    8 ascending, distinct card indices (not checked); :meth:`throw_index`
    works out the card to throw only when asked, which saves about a quarter
    of the work when the answer is not needed (a bot asking whether the
    discard pile's top card would improve its hand).
    """

    __slots__ = ("score", "_idx", "_scores", "_best")

    def __init__(self, idx: Sequence[int]) -> None:
        scores = (_tables or _get_tables()).pairings8(*idx)
        self._idx = idx
        self._scores = scores
        self._best = max(scores)
        self.score = self._best / _SCORE_DIV

    def throw_index(self) -> int:
        """The index of the card to throw; among equal scores, the lowest card."""
        idx, scores, best = self._idx, self._scores, self._best
        l3 = _tables.l3  # type: ignore[union-attr]  # built: the pairing values came from them
        n = scores.index(best)
        throw = _throw8(l3, _BACK_SOURCE8[n](idx))
        if scores.count(best) > 1:  # equal scores: throw the lowest of their cards
            for m in range(n + 1, 70):
                if scores[m] == best:
                    throw = min(throw, _throw8(l3, _BACK_SOURCE8[m](idx)))
        return throw


def _throw8(l3: list[float], source: tuple[int, int, int, int]) -> int:
    """The card of ``source`` (4 ascending indices) whose loss leaves the best
    3-card hand; the lowest such card if several do."""
    s0, s1, s2, s3 = source
    backs = (  # dropping s0, s1, s2, s3
        l3[s1 + _C2[s2] + _C3[s3]],
        l3[s0 + _C2[s2] + _C3[s3]],
        l3[s0 + _C2[s1] + _C3[s3]],
        l3[s0 + _C2[s1] + _C3[s2]],
    )
    return source[backs.index(max(backs))]


def win_both_estimate(split: SplitOption | float, opponents: int) -> float:
    """Estimated chance that ``split`` wins both comparisons against ``opponents``.

    ``score ** opponents`` (= percentile4 ** k * percentile3 ** k): assumes every
    opponent's going-down and coming-back hands are independent, uniformly
    random hands, ties counted half. It ignores card removal and that opponents
    choose their best split, so it is optimistic; use it to compare splits or
    hands, not as exact odds. ``split`` may also be a bare score.
    """
    if opponents < 0:
        raise ValueError("opponents must be >= 0")
    score = split.score if isinstance(split, SplitOption) else float(split)
    return score ** opponents


CALIBRATION_DEALS = 3000
_opponent_splits: list[tuple[tuple[int, ...], tuple[int, ...]]] | None = None


def _calibration() -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """What opponents show: the recommended split of random 7-card deals (fixed seed)."""
    global _opponent_splits
    if _opponent_splits is None:
        rng = random.Random(20261129)  # a private, seeded generator: the same sample every run
        sample = []
        for _ in range(CALIBRATION_DEALS):
            option = best_split(rng.sample(DECK, 7))
            sample.append((option.down_value.key, option.back_value.key))
        _opponent_splits = sample
    return _opponent_splits


def win_both_chance(down: Iterable[Card], back: Iterable[Card], opponents: int) -> float:
    """Estimated chance that this split beats ``opponents`` players in *both* comparisons.

    Unlike :func:`win_both_estimate`, the yardstick is what opponents would
    really show: the recommended splits of 3,000 random 7-card deals. Each
    comparison won counts 1 and a tie 1/2 (the tie-break draw is a coin toss);
    a deal counts the product. Opponents are taken as independent, so the
    chance against ``k`` of them is the chance against one to the power ``k``.
    The first call builds the sample (tens of milliseconds).
    """
    if opponents < 0:
        raise ValueError("opponents must be >= 0")
    mine_down, mine_back = evaluate4(down).key, evaluate3(back).key
    won = 0.0
    for their_down, their_back in _calibration():
        if mine_down < their_down or mine_back < their_back:
            continue
        won += (0.5 if mine_down == their_down else 1.0) * (0.5 if mine_back == their_back else 1.0)
    return (won / CALIBRATION_DEALS) ** opponents


# --------------------------------------------------------------------------
# Straightforward reference ranking (for tests and the benchmark)


def rank_splits_reference(seven: Iterable[Card]) -> list[tuple[float, tuple[Card, ...], tuple[Card, ...]]]:
    """All 35 splits ranked the straightforward way: itertools.combinations,
    each hand classified from scratch, then sorted. Returns
    ``(score, down, back)`` best first, equal scores in the same fixed order as
    :func:`rank_splits`. Slow; for cross-checks and benchmarks only.
    """
    cards = sorted(seven, key=lambda c: c.index)
    if len(cards) != 7 or len(set(cards)) != 7:
        raise HandError("expected 7 distinct cards")
    t = _get_tables()
    out = []
    for back in itertools.combinations(cards, 3):
        down = tuple(c for c in cards if c not in back)
        a4 = t.numerators4[classify4(down).key]
        a3 = t.numerators3[classify3(back).key]
        out.append(((a4 * a3) / _SPLIT_DIV, down, back))
    out.sort(key=lambda item: item[0], reverse=True)  # stable: ties keep combinations order
    return out
