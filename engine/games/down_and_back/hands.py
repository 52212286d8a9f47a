"""Down and Back's hand rules: categories, hand values and names, the reference classifier.

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

:func:`classify4` / :func:`classify3` classify a hand from scratch, straight
from the rule text; they are the reference. The fast evaluators that the game
uses, :func:`~.tables.evaluate4` / :func:`~.tables.evaluate3`, look hands up
in :mod:`.tables`; the split recommendation and the bots' search are in
:mod:`.splits`. This module imports neither.
"""

from __future__ import annotations

import itertools
import operator
from collections import Counter
from dataclasses import dataclass
from enum import IntEnum
from functools import cached_property
from typing import Any, Iterable, Sequence

from ...cards import Card, Rank

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
# Why a suit rule named a hand: the rules' words, for the hand helper and the showdown


def suit_note(cards: Iterable[Card]) -> list[dict[str, Any]] | None:
    """Why a suit condition gave these 4 or 3 cards a lower name than their ranks suggest, in a few words
    (wording parts, :data:`engine.contract.Part`: the cards as cards), or ``None`` when no suit rule did.

    Three of a kind whose plain fourth card shares a suit with the three is no Prial (a Pair if the
    three are face cards, else High card); a pair whose odd cards break the odd-card rule is no Pair
    (High card). "Pair of kings, king and four" for K K K 4 reads as a bug until it says
    "no prial: the 4♠ is neither a face card nor of the fourth suit". One line at 80 columns.
    """
    cards = list(cards)
    size = len(cards)
    if size not in (3, 4):
        raise HandError(f"a hand has 4 or 3 cards, got {len(cards)}")
    value = classify4(cards) if size == 4 else classify3(cards)
    counts = Counter(int(c.rank) for c in cards)
    if size == 4 and 3 in counts.values() and value.category != Category4.PRIAL:
        rank = next(r for r, n in counts.items() if n == 3)
        (fourth,) = [c for c in cards if int(c.rank) != rank]
        what = "prial" if value.category == Category4.PAIR else "prial or pair"  # three face cards: still a pair
        return [{"text": f"no {what}: the "}, {"card": fourth.text},
                {"text": " is neither a face card nor of the fourth suit"}]
    pairs = [r for r, n in counts.items() if n == 2]
    if len(pairs) != 1 or len(counts) != size - 1 or value.category.name != "HIGH_CARD":
        return None
    pair_suits = {c.suit for c in cards if int(c.rank) == pairs[0]}
    odd = [c for c in cards if int(c.rank) != pairs[0]]
    if size == 3:
        return [{"text": "no pair: the "}, {"card": odd[0].text},
                {"text": " is neither a face card nor of a suit unlike the pair's"}]
    plain = sorted((c for c in odd if int(c.rank) < _JACK), key=lambda c: -int(c.rank))
    if len(plain) == 1:  # beside one face card, the other must be of a suit unlike the pair's
        return [{"text": "no pair: beside a face card, the "}, {"card": plain[0].text},
                {"text": " shares a suit with the pair"}]
    if plain[0].suit == plain[1].suit:  # two plain cards: of suits unlike each other's and the pair's
        return [{"text": "no pair: the "}, {"card": plain[0].text}, {"text": " and "}, {"card": plain[1].text},
                {"text": " beside it share a suit"}]
    shared = next(c for c in plain if c.suit in pair_suits)
    return [{"text": "no pair: the "}, {"card": shared.text}, {"text": " beside it shares a suit with the pair"}]
