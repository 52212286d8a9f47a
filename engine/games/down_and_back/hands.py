"""Hand strength, hand names and the best-split recommendation.

Hands
-----
A 4-card *going-down* hand is valued with :func:`evaluate4`, a 3-card
*coming-back* hand with :func:`evaluate3` (the rules file's tables, best
first: Quad, Prial, Bouncer, Run, Flush, Two pair, Pair, High card for four
cards; Prial, Bouncer, Run, Flush, Pair, High card for three). The result is a
:class:`HandValue` whose ``key`` is a tuple of ints, the category first and
then the tie-break ranks in the order the rules compare them, so comparing
keys compares hands exactly as the rules say: equal keys are a tie and suits
never break a tie. The ace is always 1 (low). A hand takes the best category
whose definition it meets, so suit conditions matter: a three of a kind whose
plain fourth card shares a suit with the three is no Prial, and falls to a
Pair of the three's rank when the odd-card rule allows it (three face cards)
or to High card otherwise.

Two evaluators compute the same thing. :func:`classify4` / :func:`classify3`
classify a hand from scratch, straight from the rule text; they are the
reference. :func:`evaluate4` / :func:`evaluate3` look the hand up in tables
of every possible hand that are built once, on first use, from rank and suit
*patterns* (a few thousand groups of hands that must share a value) rather
than hand by hand; the tests check the two against each other on all
270,725 + 22,100 hands.

The split recommendation
------------------------
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

Speed
-----
Tables (about 70 ms to build on first use, plus about 70 ms more on the first
:func:`best_discard`): a list of all 4-card hands and one of all 3-card hands,
indexed by the colex rank of the sorted card indices, holding percentile
numerators; and, for :func:`best_discard`, for each 4-card hand the best of
its four 3-card subsets. The split loops are unrolled into straight-line
functions generated when the tables are built (35 splits of 7 cards; 70
down/back pairings of 8 cards), with the tables bound as fast locals. Nothing
is built at import.
"""

from __future__ import annotations

import itertools
import operator
import random
from collections import Counter, deque
from dataclasses import dataclass
from enum import IntEnum
from functools import cached_property
from math import comb
from typing import Iterable, Iterator, Sequence, overload

from ...cards import DECK, Card, Rank

__all__ = [
    "Category4",
    "Category3",
    "HandError",
    "HandValue",
    "SplitOption",
    "RankedSplits",
    "classify4",
    "classify3",
    "evaluate4",
    "evaluate3",
    "evaluate",
    "percentile4",
    "percentile3",
    "percentile",
    "hand_counts4",
    "hand_counts3",
    "rank_splits",
    "rank_split_scores",
    "best_split",
    "best_split_score",
    "best_discard",
    "win_both_estimate",
    "warm_up",
    "rank_splits_reference",
]


class Category4(IntEnum):
    """Going-down (4-card) categories, weakest first."""

    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    FLUSH = 3
    RUN = 4
    BOUNCER = 5
    PRIAL = 6
    QUAD = 7

    @property
    def label(self) -> str:
        """The category's name in words, e.g. ``"Two pair"``."""
        return _LABELS[self.name]


class Category3(IntEnum):
    """Coming-back (3-card) categories, weakest first."""

    HIGH_CARD = 0
    PAIR = 1
    FLUSH = 2
    RUN = 3
    BOUNCER = 4
    PRIAL = 5

    @property
    def label(self) -> str:
        return _LABELS[self.name]


_LABELS = {
    "HIGH_CARD": "High card", "PAIR": "Pair", "TWO_PAIR": "Two pair", "FLUSH": "Flush",
    "RUN": "Run", "BOUNCER": "Bouncer", "PRIAL": "Prial", "QUAD": "Quad",
}

# Category numbers as plain ints, for the key tuples.
_H4, _P4, _TP4, _F4, _R4, _B4, _PR4, _Q4 = range(8)
_H3, _P3, _F3, _R3, _B3, _PR3 = range(6)

_JACK = 11  # ranks >= this are face cards


class HandError(ValueError):
    """Cards that do not make a hand (wrong number, repeated or not cards)."""


# --------------------------------------------------------------------------
# Hand values and names


def _word(rank: int) -> str:
    return Rank(rank).word


def _plural(rank: int) -> str:
    return Rank(rank).plural


def _words(ranks: Sequence[int]) -> str:
    return ", ".join(_word(r) for r in ranks)


@dataclass(frozen=True, eq=False)
class HandValue:
    """The strength of a 4-card or 3-card hand.

    ``key`` is ``(category, tie-break ranks...)``; comparisons and equality
    use the key only (equal keys are a tie). Comparing a 4-card value with a
    3-card value raises :class:`TypeError`.
    """

    category: Category4 | Category3
    key: tuple[int, ...]

    @property
    def size(self) -> int:
        """4 for a going-down hand, 3 for a coming-back hand."""
        return 4 if isinstance(self.category, Category4) else 3

    @cached_property
    def name(self) -> str:
        """The hand in words, e.g. ``"Prial of sevens"``, ``"Run to the jack"``."""
        return _name(self.category, self.key)

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"HandValue({type(self.category).__name__}.{self.category.name}, {self.key!r}, {self.name!r})"

    def _other_key(self, other: object) -> tuple[int, ...] | None:
        if not isinstance(other, HandValue):
            return None
        if type(other.category) is not type(self.category):
            raise TypeError("cannot compare a going-down (4-card) hand with a coming-back (3-card) hand")
        return other.key

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, HandValue):
            return NotImplemented
        return type(other.category) is type(self.category) and other.key == self.key

    def __hash__(self) -> int:
        return hash((self.size, self.key))

    def __lt__(self, other: object) -> bool:
        key = self._other_key(other)
        return NotImplemented if key is None else self.key < key

    def __le__(self, other: object) -> bool:
        key = self._other_key(other)
        return NotImplemented if key is None else self.key <= key

    def __gt__(self, other: object) -> bool:
        key = self._other_key(other)
        return NotImplemented if key is None else self.key > key

    def __ge__(self, other: object) -> bool:
        key = self._other_key(other)
        return NotImplemented if key is None else self.key >= key


def _name(category: Category4 | Category3, key: tuple[int, ...]) -> str:
    c, rest = key[0], key[1:]
    if isinstance(category, Category4):
        if c == _Q4:
            return f"Quad of {_plural(rest[0])}"
        if c == _PR4:
            return f"Prial of {_plural(rest[0])}"
        if c == _B4:
            return f"Bouncer to the {_word(rest[0])}"
        if c == _R4:
            return f"Run to the {_word(rest[0])}"
        if c == _F4:
            return f"Flush: {_words(rest)}"
        if c == _TP4:
            return f"Two pair, {_plural(rest[0])} and {_plural(rest[1])}"
        if c == _P4:
            return f"Pair of {_plural(rest[0])}, {_word(rest[1])} and {_word(rest[2])}"
        return f"High card: {_words(rest)}"
    if c == _PR3:
        return f"Prial of {_plural(rest[0])}"
    if c == _B3:
        return f"Bouncer to the {_word(rest[0])}"
    if c == _R3:
        return f"Run to the {_word(rest[0])}"
    if c == _F3:
        return f"Flush: {_words(rest)}"
    if c == _P3:
        return f"Pair of {_plural(rest[0])}, {_word(rest[1])}"
    return f"High card: {_words(rest)}"


# --------------------------------------------------------------------------
# The reference classifier: straight from the rule text, one hand at a time.


def _rank_suits(cards: Iterable[Card], n: int) -> list[tuple[int, int]]:
    """``(rank, suit index)`` of ``n`` distinct cards, or :class:`HandError`."""
    if isinstance(cards, (str, bytes)):
        raise HandError(f"expected {n} Card objects, got text {cards!r} (use parse_cards)")
    try:
        cards = list(cards)
    except TypeError:
        raise HandError(f"expected an iterable of {n} cards, got {cards!r}") from None
    if len(cards) != n:
        raise HandError(f"a {'going-down' if n == 4 else 'coming-back'} hand has {n} cards, got {len(cards)}")
    for card in cards:
        if not isinstance(card, Card):
            raise HandError(f"not a card: {card!r}")
    if len(set(cards)) != n:
        raise HandError(f"repeated card in {' '.join(map(str, cards))}")
    return [(int(c.rank), c.suit.index) for c in cards]


def _pair_ok4(pair: list[tuple[int, int]], odd: list[tuple[int, int]]) -> bool:
    """The odd-card rule of the 4-card Pair."""
    pair_suits = {pair[0][1], pair[1][1]}
    (r1, s1), (r2, s2) = odd
    face1, face2 = r1 >= _JACK, r2 >= _JACK
    if face1 and face2:
        return True
    if not face1 and not face2:
        return s1 != s2 and s1 not in pair_suits and s2 not in pair_suits
    plain_suit = s2 if face1 else s1
    return plain_suit not in pair_suits


def _key4(cards: list[tuple[int, int]]) -> tuple[int, ...]:
    ranks = sorted((r for r, _ in cards), reverse=True)
    suits = {s for _, s in cards}
    counts = Counter(ranks)
    high = (_H4, *ranks)
    if len(counts) == 1:
        return (_Q4, ranks[0])
    # Prial: three of one rank plus a fourth card of the fourth suit or a face card.
    for rank, count in counts.items():
        if count == 3:
            three_suits = {s for r, s in cards if r == rank}
            (fourth,) = [(r, s) for r, s in cards if r != rank]
            if fourth[1] not in three_suits or fourth[0] >= _JACK:
                return (_PR4, rank)
    if len(counts) == 4 and ranks[0] - ranks[3] == 3:
        return (_B4 if len(suits) == 1 else _R4, ranks[0])
    if len(suits) == 1:
        return (_F4, *ranks)
    pairs = sorted((r for r, c in counts.items() if c == 2), reverse=True)
    if len(pairs) == 2:
        return (_TP4, pairs[0], pairs[1])
    # Pair: any two cards of one rank whose two odd cards meet the odd-card rule
    # (with three of a kind, try each way of taking the pair from the three).
    for i, j in itertools.combinations(range(4), 2):
        if cards[i][0] == cards[j][0]:
            odd = sorted((cards[k] for k in range(4) if k != i and k != j), reverse=True)
            if _pair_ok4([cards[i], cards[j]], odd):
                return (_P4, cards[i][0], odd[0][0], odd[1][0])
    return high


def _key3(cards: list[tuple[int, int]]) -> tuple[int, ...]:
    ranks = sorted((r for r, _ in cards), reverse=True)
    suits = {s for _, s in cards}
    distinct = len(set(ranks))
    if distinct == 1:
        return (_PR3, ranks[0])
    if distinct == 3 and ranks[0] - ranks[2] == 2:
        return (_B3 if len(suits) == 1 else _R3, ranks[0])
    if len(suits) == 1:
        return (_F3, *ranks)
    if distinct == 2:
        pair_rank = ranks[1]  # the middle card always belongs to the pair
        pair_suits = {s for r, s in cards if r == pair_rank}
        ((third_rank, third_suit),) = [(r, s) for r, s in cards if r != pair_rank]
        if third_rank >= _JACK or third_suit not in pair_suits:
            return (_P3, pair_rank, third_rank)
    return (_H3, *ranks)


def classify4(cards: Iterable[Card]) -> HandValue:
    """Value of a 4-card hand computed from scratch (the reference evaluator)."""
    key = _key4(_rank_suits(cards, 4))
    return HandValue(Category4(key[0]), key)


def classify3(cards: Iterable[Card]) -> HandValue:
    """Value of a 3-card hand computed from scratch (the reference evaluator)."""
    key = _key3(_rank_suits(cards, 3))
    return HandValue(Category3(key[0]), key)


# --------------------------------------------------------------------------
# Tables of every hand, built on first use from rank/suit patterns.
#
# A hand is addressed by the colex rank of its sorted card indices
# i0 < i1 < ... : C(i0, 1) + C(i1, 2) + C(i2, 3) [+ C(i3, 4)], a dense index
# 0 .. C(52, n) - 1 into a plain list (a list lookup is several times faster
# than a dict lookup on a 52-bit mask once the table no longer fits in cache).
#
# Table entries are percentile *numerators*: for a key with ``below`` hands
# under it and ``n`` hands equal to it, A = 2 * below + n - 1, so that
# percentile = A / (2 * (hands - 1)). 4-card entries are stored times 64, so a
# split's product A4 * 64 * A3 is an exact integer in a float (< 2**42) whose
# low 6 bits are free: :func:`rank_splits` adds the split number there and
# sorts plain floats.

_N4 = 270_725
_N3 = 22_100
_D4 = 2 * (_N4 - 1)  # percentile4 = A4 / _D4
_D3 = 2 * (_N3 - 1)  # percentile3 = A3 / _D3
_PACK = 64  # 4-card entries are A4 * _PACK
_SCORE_DIV = float(_PACK * _D4 * _D3)  # score = L4 * L3 / _SCORE_DIV
_SPLIT_DIV = _D4 * _D3  # score = (packed >> 6) / _SPLIT_DIV

# _BINOM[k][n] = C(n, k) for n in 0..52
_BINOM: list[list[int]] = [[comb(n, k) for n in range(53)] for k in range(5)]
_C2, _C3, _C4 = _BINOM[2], _BINOM[3], _BINOM[4]


def _block(rank: int, suits: Sequence[int], slot: int) -> int:
    """Colex contribution of cards of one rank (suits ascending) at sorted ``slot``."""
    return sum(_BINOM[slot + k + 1][(rank - 1) * 4 + s] for k, s in enumerate(suits))


def _singles(rank: int, slot: int) -> list[int]:
    """Colex contribution of a lone card of ``rank`` at ``slot``, by suit."""
    return [_BINOM[slot + 1][(rank - 1) * 4 + s] for s in range(4)]


_SUIT_PAIRS = tuple(itertools.combinations(range(4), 2))


def _odd_ok(ps: tuple[int, int], t1: int, t2: int, face1: bool, face2: bool) -> bool:
    """The odd-card rule as a suit pattern (pair suits ``ps``, odd suits ``t1``, ``t2``)."""
    if face1 and face2:
        return True
    if not face1 and not face2:
        return t1 != t2 and t1 not in ps and t2 not in ps
    return (t2 if face1 else t1) not in ps


def _pattern_groups4() -> Iterator[tuple[tuple[int, ...], list[int]]]:
    """Every 4-card hand exactly once, as ``(key, [colex positions])`` groups.

    Hands are grouped by their ranks; within a group the value depends only on
    the suits, through the few suit conditions the rules have.
    """
    R = range(1, 14)
    S = range(4)
    patterns = [(p, t1, t2) for p in range(6) for t1 in S for t2 in S]
    pair_split = {
        (f1, f2): (
            [x for x in patterns if _odd_ok(_SUIT_PAIRS[x[0]], x[1], x[2], f1, f2)],
            [x for x in patterns if not _odd_ok(_SUIT_PAIRS[x[0]], x[1], x[2], f1, f2)],
        )
        for f1 in (False, True) for f2 in (False, True)
    }
    # Four different ranks: bouncer/run or flush/high card.
    for r4, r3, r2, r1 in itertools.combinations(R, 4):  # r4 < r3 < r2 < r1
        w4, w3, w2, w1 = _singles(r4, 0), _singles(r3, 1), _singles(r2, 2), _singles(r1, 3)
        unsuited = [a + b + c + d for a in w4 for b in w3 for c in w2 for d in w1]
        suited = [unsuited[85 * s] for s in S]  # position of suits (s, s, s, s)
        for s in (3, 2, 1, 0):
            del unsuited[85 * s]
        if r1 - r4 == 3:
            yield (_B4, r1), suited
            yield (_R4, r1), unsuited
        else:
            yield (_F4, r1, r2, r3, r4), suited
            yield (_H4, r1, r2, r3, r4), unsuited
    # One pair and two odd cards o1 > o2.
    for p in R:
        for o2, o1 in itertools.combinations([r for r in R if r != p], 2):
            slot = {p: 0, o1: 0, o2: 0}
            filled = 0
            for r in sorted((p, o1, o2)):
                slot[r] = filled
                filled += 2 if r == p else 1
            pair = [_block(p, ps, slot[p]) for ps in _SUIT_PAIRS]
            hi, lo = _singles(o1, slot[o1]), _singles(o2, slot[o2])
            ok, bad = pair_split[o1 >= _JACK, o2 >= _JACK]
            yield (_P4, p, o1, o2), [pair[x] + hi[t1] + lo[t2] for x, t1, t2 in ok]
            yield (_H4, *sorted((p, p, o1, o2), reverse=True)), [pair[x] + hi[t1] + lo[t2] for x, t1, t2 in bad]
    # Two pair.
    for low, high in itertools.combinations(R, 2):
        lows = [_block(low, ps, 0) for ps in _SUIT_PAIRS]
        highs = [_block(high, ps, 2) for ps in _SUIT_PAIRS]
        yield (_TP4, high, low), [a + b for a in lows for b in highs]
    # Three of a kind and a fourth card f: Prial if f is of the fourth suit or a
    # face card; otherwise (by the odd-card rule) a Pair when the three are face
    # cards, else High card.
    for t in R:
        for f in R:
            if f == t:
                continue
            t_slot, f_slot = (1, 0) if f < t else (0, 3)
            prial, plain = [], []
            for missing in S:
                three = _block(t, [s for s in S if s != missing], t_slot)
                fourth = _singles(f, f_slot)
                for s in S:
                    (prial if s == missing or f >= _JACK else plain).append(three + fourth[s])
            yield (_PR4, t), prial
            if t >= _JACK:  # the pair, a face odd card (the third), the plain card
                yield (_P4, t, t, f), plain
            else:
                yield (_H4, *sorted((t, t, t, f), reverse=True)), plain
    for q in R:
        yield (_Q4, q), [_block(q, S, 0)]


def _pattern_groups3() -> Iterator[tuple[tuple[int, ...], list[int]]]:
    """Every 3-card hand exactly once, as ``(key, [colex positions])`` groups."""
    R = range(1, 14)
    S = range(4)
    for r3, r2, r1 in itertools.combinations(R, 3):
        w3, w2, w1 = _singles(r3, 0), _singles(r2, 1), _singles(r1, 2)
        unsuited = [a + b + c for a in w3 for b in w2 for c in w1]
        suited = [unsuited[21 * s] for s in S]
        for s in (3, 2, 1, 0):
            del unsuited[21 * s]
        if r1 - r3 == 2:
            yield (_B3, r1), suited
            yield (_R3, r1), unsuited
        else:
            yield (_F3, r1, r2, r3), suited
            yield (_H3, r1, r2, r3), unsuited
    for p in R:
        for t in R:
            if t == p:
                continue
            p_slot, t_slot = (1, 0) if t < p else (0, 2)
            third = _singles(t, t_slot)
            ok, bad = [], []
            for ps in _SUIT_PAIRS:
                pair = _block(p, ps, p_slot)
                for s in S:
                    (ok if t >= _JACK or s not in ps else bad).append(pair + third[s])
            yield (_P3, p, t), ok
            yield (_H3, *sorted((p, p, t), reverse=True)), bad
    for r in R:
        for missing in S:
            yield (_PR3, r), [_block(r, [s for s in S if s != missing], 0)]


def _fill(size: int, groups: list[tuple[tuple[int, ...], list[int]]], scale: int):
    """Count hands per key, then give every hand its percentile numerator."""
    counts: dict[tuple[int, ...], int] = {}
    for key, positions in groups:
        if positions:
            counts[key] = counts.get(key, 0) + len(positions)
    numerators: dict[tuple[int, ...], int] = {}
    below = 0
    for key in sorted(counts):
        numerators[key] = 2 * below + counts[key] - 1
        below += counts[key]
    table: list[float] = [-1.0] * below
    setitem = table.__setitem__
    entry = {key: float(a * scale) for key, a in numerators.items()}  # one float object per key
    for key, positions in groups:
        if positions:
            _consume(map(setitem, positions, itertools.repeat(entry[key])))
    category = Category4 if size == 4 else Category3
    values = {entry[key]: HandValue(category(key[0]), key) for key in counts}
    return counts, numerators, table, values


class _Tables:
    """The lookup tables and the split functions compiled against them."""

    def __init__(self) -> None:
        self.counts4, self.numerators4, self.l4, self.values4 = _fill(4, list(_pattern_groups4()), _PACK)
        self.counts3, self.numerators3, self.l3, self.values3 = _fill(3, list(_pattern_groups3()), 1)
        assert len(self.l4) == _N4 and len(self.l3) == _N3 and -1.0 not in self.l4 and -1.0 not in self.l3
        ns = _compile_split_functions(l4=self.l4, l3=self.l3)
        self.scores7 = ns["_scores7"]
        self.max7 = ns["_max7"]
        self._pairings8 = None
        self._best3: list[float] | None = None

    @property
    def best3(self) -> list[float]:
        """For each 4-card hand, the best 3-card numerator among its four subsets."""
        if self._best3 is None:
            self._best3 = _build_best3(self.l3)
        return self._best3

    @property
    def pairings8(self):  # noqa: ANN201
        if self._pairings8 is None:
            self._pairings8 = _compile_split_functions(l4=self.l4, b3=self.best3)["_pairings8"]
        return self._pairings8


def _build_best3(l3: list[float]) -> list[float]:
    """best3[colex(a, b, c, d)] = max of l3 over {a,b,c}, {a,b,d}, {a,c,d}, {b,c,d}."""
    # For every 3-card hand {a < b < c} in colex order, the colex ranks of its
    # pairs {a, b}, {a, c}, {b, c}; then the 3-card hands of {a, b, c, d} are
    # j, pab[j] + C(d, 3), pac[j] + C(d, 3) and pbc[j] + C(d, 3).
    pab: list[int] = []
    pac: list[int] = []
    pbc: list[int] = []
    for c in range(2, 52):
        for b in range(1, c):
            pab.extend(range(_C2[b], _C2[b] + b))
            pac.extend(range(_C2[c], _C2[c] + b))
            pbc.extend(itertools.repeat(b + _C2[c], b))
    get = l3.__getitem__
    add = operator.add
    rep = itertools.repeat
    best3: list[float] = []
    for d in range(3, 52):
        n = off = _C3[d]
        best3.extend(map(
            max,
            l3[:n],
            map(get, map(add, pab[:n], rep(off))),
            map(get, map(add, pac[:n], rep(off))),
            map(get, map(add, pbc[:n], rep(off))),
        ))
    return best3


_consume = deque(maxlen=0).extend

# The 35 splits of 7 cards in their fixed order: split k puts the cards at
# positions _TRIPLES7[k] (of the 7 sorted by index) in the coming-back hand.
_TRIPLES7: tuple[tuple[int, int, int], ...] = tuple(itertools.combinations(range(7), 3))
_SPLITS7: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = tuple(
    (tuple(i for i in range(7) if i not in t), t) for t in _TRIPLES7
)  # (going-down positions, coming-back positions) of each split
_SPLIT_GETTERS = tuple((operator.itemgetter(*d), operator.itemgetter(*b)) for d, b in _SPLITS7)
# 8 cards: the 35 4-card subsets that contain position 0. Pairing 2m has
# going-down hand _QUADS8[m] and coming-back hand from the other 4 cards;
# pairing 2m + 1 the other way round.
_QUADS8: tuple[tuple[int, ...], ...] = tuple((0, *t) for t in itertools.combinations(range(1, 8), 3))
# For pairing n, the positions (of the 8) of the 4 cards the coming-back hand comes from.
_BACK_SOURCE8 = tuple(
    operator.itemgetter(*(q if way else [i for i in range(8) if i not in q]))
    for q in _QUADS8 for way in (0, 1)
)


def _compile_split_functions(l4: list[float], l3: list[float] | None = None,
                             b3: list[float] | None = None) -> dict[str, object]:
    """Generate and compile the straight-line split loops.

    Positions of sorted card indices c0 < c1 < ...: a 4-card subset at
    positions q0 < q1 < q2 < q3 has table position
    ``c_q0 + C(c_q1, 2) + C(c_q2, 3) + C(c_q3, 4)``, computed as
    ``a_q0q1 + b_q2q3`` from shared partial sums; a 3-card subset t0 < t1 < t2
    has ``a_t0t1 + C(c_t2, 3)``. The tables are bound as default arguments,
    which makes them fast locals.
    """
    lines: list[str] = []

    def prologue(n: int) -> None:
        subsets4 = list(itertools.combinations(range(n), 4))
        subsets3 = list(itertools.combinations(range(n), 3)) if n == 7 else []
        u = sorted({q[1] for q in subsets4} | {t[1] for t in subsets3})
        v = sorted({q[2] for q in subsets4} | {t[2] for t in subsets3})
        w = sorted({q[3] for q in subsets4})
        a = sorted({q[:2] for q in subsets4} | {t[:2] for t in subsets3})
        b = sorted({q[2:] for q in subsets4})
        lines.extend(f"    u{i} = C2[c{i}]" for i in u)
        lines.extend(f"    v{i} = C3[c{i}]" for i in v)
        lines.extend(f"    w{i} = C4[c{i}]" for i in w)
        lines.extend(f"    a{i}{j} = c{i} + u{j}" for i, j in a)
        lines.extend(f"    b{i}{j} = v{i} + w{j}" for i, j in b)

    def idx4(q: Sequence[int]) -> str:
        return f"a{q[0]}{q[1]} + b{q[2]}{q[3]}"

    def idx3(t: Sequence[int]) -> str:
        return f"a{t[0]}{t[1]} + v{t[2]}"

    tables = "C2=C2, C3=C3, C4=C4"
    if l3 is not None:
        args = ", ".join(f"c{i}" for i in range(7))
        terms = []
        for k, t in enumerate(_TRIPLES7):
            q = [i for i in range(7) if i not in t]
            terms.append(f"L4[{idx4(q)}] * L3[{idx3(t)}]")
        # rank_splits: packed products (split number in the low 6 bits, so equal
        # products keep the split order), sorted best first.
        lines.append(f"def _scores7({args}, L4=L4, L3=L3, {tables}):")
        prologue(7)
        packed = ", ".join(f"{term} + {34 - k}" for k, term in enumerate(terms))
        lines.append(f"    s = [{packed}]")
        lines.append("    s.sort(reverse=True)")
        lines.append("    return s")
        lines.append("")
        lines.append(f"def _max7({args}, L4=L4, L3=L3, {tables}):")
        prologue(7)
        lines.append(f"    return max({', '.join(terms)})")
        lines.append("")
    if b3 is not None:
        args = ", ".join(f"c{i}" for i in range(8))
        lines.append(f"def _pairings8({args}, L4=L4, B3=B3, {tables}):")
        prologue(8)
        terms = []
        for q in itertools.combinations(range(8), 4):
            lines.append(f"    i{''.join(map(str, q))} = {idx4(q)}")
        for q in _QUADS8:
            rest = tuple(i for i in range(8) if i not in q)
            iq, ir = "i" + "".join(map(str, q)), "i" + "".join(map(str, rest))
            terms.append(f"L4[{iq}] * B3[{ir}], L4[{ir}] * B3[{iq}]")
        lines.append(f"    return [{', '.join(terms)}]")
    namespace: dict[str, object] = {"L4": l4, "L3": l3, "B3": b3, "C2": _C2, "C3": _C3, "C4": _C4}
    exec(compile("\n".join(lines), "<engine.hands split functions>", "exec"), namespace)  # noqa: S102
    return namespace


_tables: _Tables | None = None


def _get_tables() -> _Tables:
    global _tables
    if _tables is None:
        _tables = _Tables()
    return _tables


def warm_up(discard: bool = True) -> None:
    """Build the lookup tables now (otherwise the first call that needs them does).

    ``discard=True`` also builds the extra table :func:`best_discard` uses.
    """
    tables = _get_tables()
    if discard:
        tables.pairings8  # noqa: B018


def hand_counts4() -> dict[Category4, int]:
    """Number of 4-card hands (of all 270,725) in each category."""
    out = {c: 0 for c in Category4}
    for key, n in _get_tables().counts4.items():
        out[Category4(key[0])] += n
    return out


def hand_counts3() -> dict[Category3, int]:
    """Number of 3-card hands (of all 22,100) in each category."""
    out = {c: 0 for c in Category3}
    for key, n in _get_tables().counts3.items():
        out[Category3(key[0])] += n
    return out


# --------------------------------------------------------------------------
# Cards -> sorted indices

_get_index = operator.attrgetter("index")


def _indices(cards: Iterable[Card], n: int) -> list[int]:
    """Sorted :attr:`Card.index` of ``n`` cards (distinctness is checked by callers)."""
    try:
        idx = sorted(map(_get_index, cards))
        if len(idx) == n and type(idx[0]) is int:
            return idx
    except (AttributeError, TypeError):
        pass
    _rank_suits(cards, n)  # raises HandError with a clear message
    raise HandError(f"expected {n} cards")  # pragma: no cover - defensive


def _as_sequence(cards: Iterable[Card], n: int) -> Sequence[Card]:
    if type(cards) is list or type(cards) is tuple:
        return cards  # type: ignore[return-value]
    if isinstance(cards, (str, bytes)):
        raise HandError(f"expected {n} Card objects, got text {cards!r} (use parse_cards)")
    try:
        return tuple(cards)
    except TypeError:
        raise HandError(f"expected an iterable of {n} cards, got {cards!r}") from None


def _distinct_indices(cards: Iterable[Card], n: int) -> list[int]:
    cards = _as_sequence(cards, n)
    idx = _indices(cards, n)
    if len(set(idx)) != n:
        _rank_suits(cards, n)
    return idx


# --------------------------------------------------------------------------
# Fast evaluation and percentiles


def evaluate4(cards: Iterable[Card]) -> HandValue:
    """Value of a going-down hand: any iterable of 4 distinct cards."""
    a, b, c, d = _distinct_indices(cards, 4)
    t = _tables or _get_tables()
    return t.values4[t.l4[a + _C2[b] + _C3[c] + _C4[d]]]


def evaluate3(cards: Iterable[Card]) -> HandValue:
    """Value of a coming-back hand: any iterable of 3 distinct cards."""
    a, b, c = _distinct_indices(cards, 3)
    t = _tables or _get_tables()
    return t.values3[t.l3[a + _C2[b] + _C3[c]]]


def evaluate(cards: Iterable[Card]) -> HandValue:
    """:func:`evaluate4` or :func:`evaluate3`, by the number of cards."""
    cards = _as_sequence(cards, 4)
    if len(cards) == 4:
        return evaluate4(cards)
    if len(cards) == 3:
        return evaluate3(cards)
    raise HandError(f"a hand has 4 (going down) or 3 (coming back) cards, got {len(cards)}")


def percentile4(value: HandValue) -> float:
    """Fraction of the other 4-card hands that ``value`` beats (ties count half)."""
    if value.size != 4:
        raise HandError("percentile4 needs a going-down (4-card) hand value")
    return _get_tables().numerators4[value.key] / _D4


def percentile3(value: HandValue) -> float:
    """Fraction of the other 3-card hands that ``value`` beats (ties count half)."""
    if value.size != 3:
        raise HandError("percentile3 needs a coming-back (3-card) hand value")
    return _get_tables().numerators3[value.key] / _D3


def percentile(value: HandValue) -> float:
    """:func:`percentile4` or :func:`percentile3`, by the value's size."""
    return percentile4(value) if value.size == 4 else percentile3(value)


# --------------------------------------------------------------------------
# Splits


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
