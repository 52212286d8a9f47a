"""Cribbage scoring: the show (a hand or the crib, with the starter) and the play (the card just laid).

The show has two forms that agree by construction. :func:`show_items` is the
count as it is read out at the table, item by item, with the cards of each
item; :func:`spoken` words it ("fifteen two, fifteen four, a pair is six, and
a run of three is nine"). :func:`show_score` is the fast total that the bots
call hundreds of times a decision: fifteens, pairs and runs depend on the five
ranks alone, so :func:`show_items` scores every multiset of five ranks once
(6,175 of them) into a table keyed by a sum of per-rank weights, and only the
flush and his nobs are worked out per call. The independent check of both is
:mod:`.reference`.

:func:`play_score` scores the card just laid in the play, from the cards laid
since the count was last reset.
"""

from __future__ import annotations

from itertools import combinations, combinations_with_replacement, product
from typing import Any, Iterable, Sequence

from ...cards import DECK, Card, Rank

MAX_SHOW = 29  # the highest a hand can score
JACK_INDEX = (Rank.JACK - 1) * 4  # the jack of the suit with index s is card JACK_INDEX + s
PAIR_NAMES = {2: "a pair", 3: "a pair royal", 4: "a double pair royal"}
_LENGTH_WORDS = {3: "three", 4: "four", 5: "five", 6: "six", 7: "seven"}
_UNITS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
          "sixteen seventeen eighteen nineteen").split()
_TENS = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty", 9: "ninety"}


def number_word(n: int) -> str:
    """``n`` (0..99) in words, as points are called: 29 -> "twenty-nine"."""
    if n < 20:
        return _UNITS[n]
    tens, units = divmod(n, 10)
    return _TENS[tens] + (f"-{_UNITS[units]}" if units else "")


_VALUES = [min((index >> 2) + 1, 10) for index in range(52)]


def value(card: Card) -> int:
    """A card's value for counting to 15 and to 31: court cards and tens 10, the rest their pips."""
    return _VALUES[card.index]


_POSITIONS = {n: [combo for size in range(2, n + 1) for combo in combinations(range(n), size)] for n in (4, 5)}
"""Every group of two or more of a hand's (or a hand and starter's) positions, for the fifteens."""


# ----------------------------------------------------------------- the show


def _item(name: str, cards: Iterable[Card], points: int) -> dict[str, Any]:
    return {"name": name, "cards": [c.text for c in cards], "points": points}


def _rank_items(cards: Sequence[Card]) -> list[dict[str, Any]]:
    """The items that depend on ranks alone: every fifteen, pairs by rank, every run of the longest length."""
    values = [_VALUES[c.index] for c in cards]
    items = [
        _item("fifteen", [cards[i] for i in combo], 2)
        for combo in _POSITIONS[len(cards)]
        if sum(map(values.__getitem__, combo)) == 15
    ]
    by_rank: dict[int, list[Card]] = {}
    for card in sorted(cards, key=lambda c: c.index):
        by_rank.setdefault(int(card.rank), []).append(card)
    for rank in sorted(by_rank):
        same = by_rank[rank]
        if len(same) >= 2:
            items.append(_item(PAIR_NAMES[len(same)], same, len(same) * (len(same) - 1)))
    stretch: list[int] = []
    for rank in range(1, 15):  # 14 closes a stretch that ends with the king
        if rank in by_rank:
            stretch.append(rank)
            continue
        if len(stretch) >= 3:  # five cards hold at most one stretch of three or more ranks
            for run in product(*(by_rank[r] for r in stretch)):
                items.append(_item(f"a run of {_LENGTH_WORDS[len(stretch)]}", run, len(stretch)))
        stretch = []
    return items


def show_items(hand: Sequence[Card], starter: Card, crib: bool = False) -> list[dict[str, Any]]:
    """The show of a four-card hand (or the crib) with the starter, item by item.

    Each item is ``{"name", "cards", "points", "total"}`` (``total``: the running
    count after it). The crib scores a flush only when the starter matches too.
    """
    items = _rank_items([*hand, starter])
    suit = hand[0].suit
    if all(c.suit is suit for c in hand):
        if starter.suit is suit:
            items.append(_item("a flush of five", [*hand, starter], 5))
        elif not crib:
            items.append(_item("a flush of four", hand, 4))
    for card in hand:
        if card.rank == Rank.JACK and card.suit is starter.suit:
            items.append(_item("his nobs", [card], 1))
    total = 0
    for item in items:
        total += item["points"]
        item["total"] = total
    return items


def call(item: dict[str, Any]) -> str:
    """One item of the show as called, with the running count: "fifteen four", "a pair is six"."""
    if item["name"] == "fifteen":
        return f"fifteen {number_word(item['total'])}"
    return f"{item['name']} is {number_word(item['total'])}"


def spoken(items: Sequence[dict[str, Any]]) -> str:
    """The show as it is called: "fifteen two, fifteen four, a pair is six, and a run of three is nine"."""
    if not items:
        return "nothing"
    calls = [call(item) for item in items]
    if len(calls) <= 2:
        return " and ".join(calls)
    return ", ".join(calls[:-1]) + ", and " + calls[-1]


def kept_points(hand: Sequence[Card]) -> int:
    """What a four-card hand scores before the starter is known: its fifteens, pairs, runs and flush."""
    points = sum(item["points"] for item in _rank_items(hand))
    return points + (4 if len({c.suit for c in hand}) == 1 else 0)


_RANK_WEIGHT = [5 ** (index >> 2) for index in range(52)]  # a rank multiset's key: the sum of its weights


class _RankTable(dict):
    """Fifteens, pairs and runs of every multiset of five ranks, keyed by the sum of their weights.

    Built whole on the first lookup (a third of a second), not at import: a
    hit costs a plain dict lookup, and only a missing key reaches ``__missing__``.
    """

    def __missing__(self, key: int) -> int:
        if self:
            raise KeyError(key)
        self.build()
        return self[key]

    def build(self) -> None:
        """Fill the table (a no-op once it is full)."""
        if self:
            return
        for ranks in combinations_with_replacement(range(13), 5):
            if ranks[0] == ranks[4]:
                continue  # only four cards of a rank
            cards = [DECK[r * 4 + ranks[:i].count(r)] for i, r in enumerate(ranks)]  # a suit per repeat
            self[sum(_RANK_WEIGHT[c.index] for c in cards)] = sum(item["points"] for item in _rank_items(cards))


RANK_POINTS = _RankTable()


def show_score_indices(a: int, b: int, c: int, d: int, starter: int, crib: bool = False) -> int:
    """:func:`show_score` on card indices (the hand ``a b c d``): the bots' and the benchmark's inner loop."""
    weight = _RANK_WEIGHT
    points = RANK_POINTS[weight[a] + weight[b] + weight[c] + weight[d] + weight[starter]]
    suit = a & 3
    if suit == b & 3 == c & 3 == d & 3:
        if starter & 3 == suit:
            points += 5
        elif not crib:
            points += 4
    nobs = JACK_INDEX | (starter & 3)
    if nobs == a or nobs == b or nobs == c or nobs == d:
        points += 1
    return points


def show_score(hand: Sequence[Card], starter: Card, crib: bool = False) -> int:
    """The show's total for a four-card hand (or the crib) with the starter; equals :func:`show_items`' total."""
    a, b, c, d = (card.index for card in hand)
    return show_score_indices(a, b, c, d, starter.index, crib)


# ----------------------------------------------------------------- the play


def play_score(series: Sequence[Card]) -> tuple[int, str]:
    """Points and reason for the last card of ``series`` (the cards laid since the count was reset).

    Fifteen and thirty-one score 2; a pair 2, pair royal 6, double pair royal
    12; a run the length of the longest unbroken tail of consecutive ranks in
    any order (a repeated rank inside the tail breaks it). The go and the last
    card are the state machine's (:func:`go_reason`).
    """
    count = sum(value(c) for c in series)
    reasons: list[tuple[str, int]] = []
    if count == 15:
        reasons.append(("fifteen", 2))
    elif count == 31:
        reasons.append(("thirty-one", 2))
    last = series[-1].rank
    same = 1
    while same < len(series) and series[-1 - same].rank == last:
        same += 1
    if same >= 2:
        reasons.append((PAIR_NAMES[same], same * (same - 1)))
    else:
        for length in range(len(series), 2, -1):
            ranks = {c.rank for c in series[-length:]}
            if len(ranks) == length and max(ranks) - min(ranks) == length - 1:
                reasons.append((f"a run of {_LENGTH_WORDS[length]}", length))
                break
    points = sum(p for _, p in reasons)
    return points, " and ".join(f"{name} for {number_word(p)}" for name, p in reasons)


def go_reason(last_card: bool) -> str:
    """Why the last card of a series pegs one: the go, or the last card of the play."""
    return "last card for one" if last_card else "the go for one"
