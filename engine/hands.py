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
of every possible hand (keyed by the hand's card bitmask) that are built
once, on first use, from rank and suit *patterns* (a few thousand groups of
hands that must share a value) rather than hand by hand; the tests check the
two against each other on all 270,725 + 22,100 hands.

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
the 8 possible discards) from the tables without building any objects.

Speed
-----
The tables map card bitmasks (bit ``card.index``) to percentiles: one dict for
all 4-card and 3-card hands (their bitmasks differ in popcount) and, built on
the first :func:`best_discard`, one from each 4-card mask to the best
percentile among its four 3-card subsets. The split loops are unrolled into
straight-line functions generated once at import (35 splits of 7 cards; 70
down/back pairings of 8 cards), which avoids Python loop overhead.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass
from enum import IntEnum
from functools import cached_property
from typing import Iterable, Iterator, Sequence, overload

from .cards import DECK, Card, Rank

__all__ = [
    "Category4",
    "Category3",
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

    @property
    def name(self) -> str:
        """The hand in words, e.g. ``"Prial of sevens"``, ``"Run to the jack"``."""
        return _name(self.category, self.key)

    def __str__(self) -> str:
        return self.name

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

_BIT_BY_ID: dict[int, int] = {id(card): 1 << i for i, card in enumerate(DECK)}
"""``id(card)`` -> ``1 << card.index`` for the shared :data:`DECK` objects.

Keyed by identity because ``Card.__hash__`` goes through Python-level enum
hashing; a DECK card lives forever, so its id can never belong to another
live object. Equal cards built elsewhere fall back to :attr:`Card.index`.
"""


def _bit(r: int, s: int) -> int:
    return 1 << ((r - 1) * 4 + s)


def _pattern_groups4() -> Iterator[tuple[tuple[int, ...], list[int]]]:
    """Every 4-card hand exactly once, as ``(key, [bitmasks])`` groups.

    Hands are grouped by their multiset of ranks; within a group the value
    depends only on the suits, through the few suit conditions the rules have.
    """
    R = range(1, 14)
    S = range(4)
    bits = {r: [_bit(r, s) for s in S] for r in R}
    suit_pairs = list(itertools.combinations(S, 2))
    # Odd-card rule as suit patterns: (pair suits, odd-high suit, odd-low suit).
    pair_patterns = [(ps, t1, t2) for ps in suit_pairs for t1 in S for t2 in S]

    def odd_ok(ps: tuple[int, int], t1: int, t2: int, face1: bool, face2: bool) -> bool:
        if face1 and face2:
            return True
        if not face1 and not face2:
            return t1 != t2 and t1 not in ps and t2 not in ps
        return (t2 if face1 else t1) not in ps

    pair_split = {}
    for face1 in (False, True):
        for face2 in (False, True):
            pair_split[face1, face2] = (
                [p for p in pair_patterns if odd_ok(*p, face1, face2)],
                [p for p in pair_patterns if not odd_ok(*p, face1, face2)],
            )

    # Four different ranks (listed high to low): bouncer/run or flush/high card.
    for r4, r3, r2, r1 in itertools.combinations(R, 4):  # r4 < r3 < r2 < r1
        b1, b2, b3, b4 = bits[r1], bits[r2], bits[r3], bits[r4]
        suited = [b1[s] | b2[s] | b3[s] | b4[s] for s in S]
        suited_set = set(suited)
        unsuited = [m for m in (a | b | c | d for a in b1 for b in b2 for c in b3 for d in b4)
                    if m not in suited_set]
        if r1 - r4 == 3:
            yield (_B4, r1), suited
            yield (_R4, r1), unsuited
        else:
            yield (_F4, r1, r2, r3, r4), suited
            yield (_H4, r1, r2, r3, r4), unsuited
    # One pair and two odd cards.
    for p in R:
        pair_masks = {ps: bits[p][ps[0]] | bits[p][ps[1]] for ps in suit_pairs}
        for o2, o1 in itertools.combinations([r for r in R if r != p], 2):  # o2 < o1
            ok, bad = pair_split[o1 >= _JACK, o2 >= _JACK]
            h, lo = bits[o1], bits[o2]
            yield (_P4, p, o1, o2), [pair_masks[ps] | h[t1] | lo[t2] for ps, t1, t2 in ok]
            hi_ranks = sorted((p, p, o1, o2), reverse=True)
            yield (_H4, *hi_ranks), [pair_masks[ps] | h[t1] | lo[t2] for ps, t1, t2 in bad]
    # Two pair.
    for lo_r, hi_r in itertools.combinations(R, 2):
        yield (_TP4, hi_r, lo_r), [
            bits[hi_r][a] | bits[hi_r][b] | bits[lo_r][c] | bits[lo_r][d]
            for a, b in suit_pairs for c, d in suit_pairs
        ]
    # Three of a kind and a fourth card.
    for t in R:
        for f in R:
            if f == t:
                continue
            prial, plain = [], []
            for missing in S:
                three = sum(bits[t][s] for s in S if s != missing)
                for s in S:
                    (prial if s == missing or f >= _JACK else plain).append(three | bits[f][s])
            yield (_PR4, t), prial
            if t >= _JACK:  # the pair, a face odd card (the third), the plain card
                yield (_P4, t, t, f), plain
            else:
                yield (_H4, *sorted((t, t, t, f), reverse=True)), plain
    # Quads.
    for q in R:
        yield (_Q4, q), [sum(bits[q])]


def _pattern_groups3() -> Iterator[tuple[tuple[int, ...], list[int]]]:
    """Every 3-card hand exactly once, as ``(key, [bitmasks])`` groups."""
    R = range(1, 14)
    S = range(4)
    bits = {r: [_bit(r, s) for s in S] for r in R}
    for r3, r2, r1 in itertools.combinations(R, 3):
        b1, b2, b3 = bits[r1], bits[r2], bits[r3]
        suited = [b1[s] | b2[s] | b3[s] for s in S]
        unsuited = [b1[x] | b2[y] | b3[z] for x in S for y in S for z in S if not x == y == z]
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
            ok, bad = [], []
            for a, b in itertools.combinations(S, 2):
                for s in S:
                    mask = bits[p][a] | bits[p][b] | bits[t][s]
                    (ok if t >= _JACK or s not in (a, b) else bad).append(mask)
            yield (_P3, p, t), ok
            yield (_H3, *sorted((p, p, t), reverse=True)), bad
    for r in R:
        for missing in S:
            yield (_PR3, r), [sum(bits[r][s] for s in S if s != missing)]


class _Tables:
    """Lazily built lookup tables (see the module docstring)."""

    def __init__(self) -> None:
        # mask -> percentile, 4-card and 3-card hands together
        self.pct: dict[int, float] = {}
        self.counts4: dict[tuple[int, ...], int] = {}
        self.counts3: dict[tuple[int, ...], int] = {}
        self.key_pct4: dict[tuple[int, ...], float] = {}
        self.key_pct3: dict[tuple[int, ...], float] = {}
        # percentile -> HandValue (a percentile identifies a key within a size)
        self.value4: dict[float, HandValue] = {}
        self.value3: dict[float, HandValue] = {}
        for groups, counts, key_pct, values, category in (
            (list(_pattern_groups4()), self.counts4, self.key_pct4, self.value4, Category4),
            (list(_pattern_groups3()), self.counts3, self.key_pct3, self.value3, Category3),
        ):
            for key, masks in groups:
                if masks:
                    counts[key] = counts.get(key, 0) + len(masks)
            total = sum(counts.values())
            below = 0
            for key in sorted(counts):
                n = counts[key]
                p = (below + (n - 1) / 2) / (total - 1)
                key_pct[key] = p
                values[p] = HandValue(category(key[0]), key)
                below += n
            pct = self.pct
            for key, masks in groups:
                p = key_pct.get(key)
                pct.update(zip(masks, itertools.repeat(p, len(masks))))
        self._best3: dict[int, float] | None = None

    @property
    def best3(self) -> dict[int, float]:
        """4-card mask -> best percentile among its four 3-card subsets."""
        if self._best3 is None:
            self._best3 = _build_best3(self.pct)
        return self._best3


def _build_best3(pct: dict[int, float]) -> dict[int, float]:
    best3: dict[int, float] = {}
    bits = [1 << i for i in range(52)]
    for a in range(49):
        ba = bits[a]
        for b in range(a + 1, 50):
            bb = bits[b]
            ab = ba | bb
            for c in range(b + 1, 51):
                bc_ = bits[c]
                abc = ab | bc_
                ac = ba | bc_
                bc = bb | bc_
                p_abc = pct[abc]
                rest = bits[c + 1:]
                best3.update(zip(
                    [abc | d for d in rest],
                    [max(p_abc, pct[ab | d], pct[ac | d], pct[bc | d]) for d in rest],
                ))
    return best3


_tables: _Tables | None = None


def _get_tables() -> _Tables:
    global _tables
    if _tables is None:
        _tables = _Tables()
    return _tables


def warm_up(discard: bool = True) -> None:
    """Build the lookup tables now (else the first call that needs them does).

    ``discard=True`` also builds the table that :func:`best_discard` uses.
    """
    tables = _get_tables()
    if discard:
        tables.best3  # noqa: B018


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
# Cards -> bitmasks


def _card_bits(cards: Iterable[Card], n: int) -> list[int]:
    """``1 << card.index`` of ``n`` distinct cards, or :class:`HandError`."""
    if type(cards) is not list and type(cards) is not tuple:
        if isinstance(cards, (str, bytes)):
            raise HandError(f"expected {n} Card objects, got text {cards!r} (use parse_cards)")
        cards = tuple(cards)
    try:
        bits = [_BIT_BY_ID[id(c)] for c in cards]
    except KeyError:
        bits = []
        for c in cards:
            if not isinstance(c, Card):
                raise HandError(f"not a card: {c!r}") from None
            bits.append(1 << c.index)
    if len(bits) != n:
        raise HandError(f"expected {n} cards, got {len(bits)}")
    mask = 0
    for b in bits:
        mask |= b
    if mask.bit_count() != n:
        raise HandError(f"repeated card in {' '.join(map(str, cards))}")
    return bits


def _card_of(bit: int) -> Card:
    return DECK[bit.bit_length() - 1]


# --------------------------------------------------------------------------
# Fast evaluation and percentiles


def evaluate4(cards: Iterable[Card]) -> HandValue:
    """Value of a going-down hand: any iterable of 4 distinct cards."""
    t = _get_tables()
    return t.value4[t.pct[sum(_card_bits(cards, 4))]]


def evaluate3(cards: Iterable[Card]) -> HandValue:
    """Value of a coming-back hand: any iterable of 3 distinct cards."""
    t = _get_tables()
    return t.value3[t.pct[sum(_card_bits(cards, 3))]]


def evaluate(cards: Iterable[Card]) -> HandValue:
    """:func:`evaluate4` or :func:`evaluate3`, by the number of cards."""
    if not isinstance(cards, (list, tuple)):
        if isinstance(cards, (str, bytes)):
            raise HandError(f"expected Card objects, got text {cards!r} (use parse_cards)")
        cards = tuple(cards)
    if len(cards) == 4:
        return evaluate4(cards)
    if len(cards) == 3:
        return evaluate3(cards)
    raise HandError(f"a hand has 4 (going down) or 3 (coming back) cards, got {len(cards)}")


def percentile4(value: HandValue) -> float:
    """Fraction of the other 4-card hands that ``value`` beats (ties count half)."""
    if value.size != 4:
        raise HandError("percentile4 needs a going-down (4-card) hand value")
    return _get_tables().key_pct4[value.key]


def percentile3(value: HandValue) -> float:
    """Fraction of the other 3-card hands that ``value`` beats (ties count half)."""
    if value.size != 3:
        raise HandError("percentile3 needs a coming-back (3-card) hand value")
    return _get_tables().key_pct3[value.key]


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
    docstring). ``down_value``/``back_value`` are computed on first access.
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
        return (f"SplitOption(down={' '.join(map(str, self.down))!r} [{self.down_value.name}], "
                f"back={' '.join(map(str, self.back))!r} [{self.back_value.name}], score={self.score:.4f})")


def _display_order(bits: Iterable[int]) -> tuple[Card, ...]:
    cards = [_card_of(b) for b in bits]
    counts = Counter(c.rank for c in cards)
    cards.sort(key=lambda c: (-counts[c.rank], -c.rank, c.suit.index))
    return tuple(cards)


# The 35 splits of 7 cards in their fixed order: back = positions (i, j, k).
_TRIPLES7: tuple[tuple[int, int, int], ...] = tuple(itertools.combinations(range(7), 3))
# The 35 4-card subsets of 8 cards that contain card 0: (0, i, j, k).
_QUADS8: tuple[tuple[int, ...], ...] = tuple((0, *t) for t in itertools.combinations(range(1, 8), 3))


def _generate_fast_functions() -> dict[str, object]:
    """Compile the straight-line split loops (see the module docstring)."""
    lines: list[str] = []
    # Triple masks of b0..b6 from pair masks: x_ijk = p_ij | b_k.
    pairs7 = sorted({(i, j) for i, j, _ in _TRIPLES7})
    trip_lines = [f"    p{i}{j} = b{i} | b{j}" for i, j in pairs7]
    trip_lines += [f"    x{i}{j}{k} = p{i}{j} | b{k}" for i, j, k in _TRIPLES7]
    args7 = ", ".join(f"b{i}" for i in range(7))
    m7 = " | ".join(f"b{i}" for i in range(7))
    terms7 = ", ".join(f"P[M ^ x{i}{j}{k}] * P[x{i}{j}{k}]" for i, j, k in _TRIPLES7)

    lines.append(f"def _scores7({args7}, P):")
    lines.append(f"    M = {m7}")
    lines += trip_lines
    lines.append(f"    return [{terms7}]")
    lines.append("")
    lines.append(f"def _max7({args7}, P):")
    lines.append(f"    M = {m7}")
    lines += trip_lines
    lines.append(f"    return max({terms7})")
    lines.append("")
    # 8 cards: for each 4-subset S containing b0 (complement C = M ^ S), the two
    # pairings (down S, back best 3 of C) and (down C, back best 3 of S).
    args8 = ", ".join(f"b{i}" for i in range(8))
    m8 = " | ".join(f"b{i}" for i in range(8))
    pairs8 = sorted({(i, j) for _, i, j, _ in _QUADS8})
    lines.append(f"def _pairings8({args8}, P, B):")
    lines.append(f"    M = {m8}")
    lines += [f"    p{i}{j} = b0 | b{i} | b{j}" for i, j in pairs8]
    terms8 = []
    for _, i, j, k in _QUADS8:
        lines.append(f"    s{i}{j}{k} = p{i}{j} | b{k}")
        lines.append(f"    c{i}{j}{k} = M ^ s{i}{j}{k}")
        terms8.append(f"P[s{i}{j}{k}] * B[c{i}{j}{k}], P[c{i}{j}{k}] * B[s{i}{j}{k}]")
    lines.append(f"    return [{', '.join(terms8)}]")
    namespace: dict[str, object] = {}
    exec(compile("\n".join(lines), "<engine.hands generated>", "exec"), namespace)  # noqa: S102
    return namespace


_generated = _generate_fast_functions()
_scores7 = _generated["_scores7"]
_max7 = _generated["_max7"]
_pairings8 = _generated["_pairings8"]
del _generated


class RankedSplits(Sequence[SplitOption]):
    """The 35 splits of 7 cards, best first.

    The ranking is computed up front; each :class:`SplitOption` is built on
    first access (and then kept), so asking for the best split does not pay for
    all 35. Behaves like a read-only list.
    """

    __slots__ = ("_bits", "_scores", "_order", "_options")

    def __init__(self, bits: list[int], scores: list[float], order: list[int]) -> None:
        self._bits = bits
        self._scores = scores
        self._order = order
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
            split = self._order[i]
            bits = self._bits
            back = _TRIPLES7[split]
            option = SplitOption(
                _display_order(bits[k] for k in range(7) if k not in back),
                _display_order(bits[k] for k in back),
                self._scores[split],
            )
            self._options[i] = option
        return option

    def __iter__(self) -> Iterator[SplitOption]:
        for i in range(35):
            yield self[i]

    @property
    def scores(self) -> list[float]:
        """The 35 scores, best first."""
        scores = self._scores
        return [scores[k] for k in self._order]

    def __repr__(self) -> str:
        return f"<RankedSplits best={self[0]!r}>"


def rank_split_scores(seven: Iterable[Card]) -> list[tuple[float, int]]:
    """All 35 ``(score, split number)`` pairs, best first, without building splits.

    Split number ``n`` puts the cards at positions ``_TRIPLES7[n]`` of the 7
    cards sorted by index in the coming-back hand.
    """
    bits = _card_bits(seven, 7)
    bits.sort()
    scores = _scores7(*bits, _get_tables().pct)
    return [(scores[k], k) for k in sorted(range(35), key=scores.__getitem__, reverse=True)]


def rank_splits(seven: Iterable[Card]) -> RankedSplits:
    """All 35 splits of 7 distinct cards, best first (see the module docstring).

    Equal scores keep the fixed split order, so the result is deterministic
    and does not depend on the order of ``seven``.
    """
    bits = _card_bits(seven, 7)
    bits.sort()
    scores = _scores7(*bits, _get_tables().pct)
    return RankedSplits(bits, scores, sorted(range(35), key=scores.__getitem__, reverse=True))


def best_split(seven: Iterable[Card]) -> SplitOption:
    """The recommended split of 7 cards: the first of :func:`rank_splits`."""
    return rank_splits(seven)[0]


def best_split_score(seven: Iterable[Card]) -> float:
    """The best score over the 35 splits of 7 cards (no objects built)."""
    return _max7(*_card_bits(seven, 7), _get_tables().pct)


def best_discard(eight: Iterable[Card]) -> tuple[Card, float]:
    """The card to throw from 8 so the other 7 have the best split score.

    Returns ``(card, best_split_score of the remaining 7)``. Among discards
    that leave equal scores, the lowest card (by :attr:`Card.index`: lowest
    rank, then spades, hearts, diamonds, clubs) is thrown. The card returned
    is the object passed in.
    """
    if type(eight) is not list and type(eight) is not tuple:
        eight = tuple(eight)  # type: ignore[assignment]
    bits = _card_bits(eight, 8)
    t = _get_tables()
    pct, best3 = t.pct, t.best3
    scores = _pairings8(*bits, pct, best3)
    best = max(scores)
    first = scores.index(best)
    if scores.count(best) == 1:
        hits = [first]
    else:
        hits = [n for n in range(first, 70) if scores[n] == best]
    throw = None
    for n in hits:
        quad = _QUADS8[n >> 1]
        s = bits[quad[0]] | bits[quad[1]] | bits[quad[2]] | bits[quad[3]]
        back4 = s if n & 1 else s ^ sum(bits)  # the 4 cards the back hand comes from
        want = best3[back4]
        for b in bits:
            if b & back4 and pct[back4 ^ b] == want and (throw is None or b < throw):
                throw = b
    assert throw is not None
    return eight[bits.index(throw)], best  # type: ignore[index]


def win_both_estimate(split: SplitOption | float, opponents: int) -> float:
    """Estimated chance that ``split`` wins both comparisons against ``opponents``.

    ``score ** opponents``: assumes every opponent's going-down and
    coming-back hands are independent, uniformly random hands (ties counted
    half). It ignores card removal and that opponents pick their best split,
    so it is optimistic; use it to compare splits or hands, not as odds.
    """
    if opponents < 0:
        raise ValueError("opponents must be >= 0")
    score = split.score if isinstance(split, SplitOption) else float(split)
    return score ** opponents


# --------------------------------------------------------------------------
# Straightforward reference ranking (for tests and the benchmark)


def rank_splits_reference(seven: Iterable[Card]) -> list[tuple[float, tuple[Card, ...], tuple[Card, ...]]]:
    """All 35 splits ranked the straightforward way: itertools.combinations,
    each hand classified from scratch, then sorted. Returns
    ``(score, down, back)`` best first (equal scores in the same fixed order as
    :func:`rank_splits`). Slow; for cross-checks and benchmarks only.
    """
    cards = sorted(seven, key=lambda c: c.index)
    if len(cards) != 7 or len(set(cards)) != 7:
        raise HandError("expected 7 distinct cards")
    t = _get_tables()
    out = []
    for back in itertools.combinations(cards, 3):
        down = tuple(c for c in cards if c not in back)
        score = t.key_pct4[classify4(down).key] * t.key_pct3[classify3(back).key]
        out.append((score, down, back))
    # stable sort: equal scores keep combinations order
    out.sort(key=lambda item: item[0], reverse=True)
    return out
