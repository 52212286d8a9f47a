"""Bots: functions of a seat's view to an action, so they know only what a player knows.

The baseline bot keeps whichever draw most improves its recommended split
(scored by :func:`engine.games.down_and_back.hands.best_split_score`, the win-both estimate
against one opponent), throws the card whose loss hurts that score least, and
at the showdown plays the recommended split. :func:`timeout_action` is what
the server plays for a player who lets the clock run out: the safe, passive
choice (take from the stock, throw the recommended card, recommended split).
"""

from __future__ import annotations

from typing import Any

from .actions import Action, CallEnd, Cut, Discard, Split, TakeDiscard, TakeStock
from ...cards import DECK, Card, parse_cards
from .splits import best_discard_index, best_split, best_split_score, DiscardSearch

# Take the visible discard when it beats the current hand by more than this.
# Greedy (0) beat a 0.02 margin head to head: 327 to 261 pots in 2,000
# four-player rounds (two bots of each kind, seats alternating).
TAKE_DISCARD_MARGIN = 0.0
# Early-call variant: call once the hand is this likely to beat one opponent in both.
CALL_END_SCORE = 0.85


def _kinds(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["kind"]: entry for entry in view["legal"]}


# Memos keyed by a hand's text (in hand order): a discard after taking the pile
# card is decided on the 8 cards the draw step looked at, and the 7 cards a
# discard keeps are, in the same order, the next turn's hand.
_DISCARDS: dict[tuple[str, ...], tuple[Card, float]] = {}  # 8 cards -> (card to throw, score of the rest)
_SCORES: dict[tuple[str, ...], float] = {}  # 7 cards -> best split score
MEMO_SIZE = 4096
_CARD = {str(card): card for card in DECK}
_INDEX = {str(card): card.index for card in DECK}


def _remember(memo: dict[tuple[str, ...], Any], hand: tuple[str, ...], value: Any) -> None:
    """Store in a memo that is emptied when full (bots run for days in a server)."""
    if len(memo) >= MEMO_SIZE:
        memo.clear()
    memo[hand] = value


def _indices(hand: tuple[str, ...]) -> list[int]:
    """The hand's card indices, ascending, as the hands module's bot helpers take them."""
    return sorted([_INDEX[text] for text in hand])


def _best_discard(hand: tuple[str, ...]) -> tuple[Card, float]:
    choice = _DISCARDS.get(hand)
    if choice is None:
        throw, score = best_discard_index(_indices(hand))
        choice = (DECK[throw], score)
        _remember(_DISCARDS, hand, choice)
    return choice


def _score(hand: tuple[str, ...]) -> float:
    score = _SCORES.get(hand)
    if score is None:
        score = best_split_score([_CARD[text] for text in hand])
        _remember(_SCORES, hand, score)
    return score


def _takes_pile(hand: list[str], top: str, score: float) -> bool:
    """Whether taking ``top`` improves the best split by more than the margin.

    Usually it does not, and the best score of the 8 cards settles that
    without working out which card to throw; when it does, the throw is
    worked out now and kept for the discard that follows.
    """
    eight = (*hand, top)
    search = DiscardSearch(_indices(eight))
    if search.score <= score + TAKE_DISCARD_MARGIN:
        return False
    card = DECK[search.throw_index()]
    _remember(_DISCARDS, eight, (card, search.score))
    return card.text != top


def recommended_split(cards: list[Card]) -> Split:
    option = best_split(cards)
    return Split(tuple(option.down), tuple(option.back))


def throw(hand: list[str], allowed: list[str]) -> Card:
    """The allowed card whose loss leaves the best 7-card split."""
    card, score = _best_discard(tuple(hand))
    if card.text in allowed:
        kept = list(hand)
        kept.remove(card.text)
        _remember(_SCORES, tuple(kept), score)
        return card
    rest = lambda c: tuple(x for x in hand if x != c)  # noqa: E731
    return Card.parse(max(allowed, key=lambda c: (_score(rest(c)), -Card.parse(c).index)))


def baseline_action(view: dict[str, Any]) -> Action:
    """The baseline bot's choice for the seat whose view this is."""
    entries = view["legal"]
    hand = view["hand"]
    first = entries[0]["kind"]  # cut, split and discard lead their lists; a draw starts take_stock
    if first == "discard":
        return Discard(throw(hand, entries[0]["cards"]))
    if first == "cut":
        return Cut(None)
    if first == "split":
        return recommended_split(parse_cards(hand))
    legal = _kinds(view)
    score = _score(tuple(hand))
    if "call_end" in legal and score >= CALL_END_SCORE:
        return CallEnd()
    if "take_discard" in legal and _takes_pile(hand, view["discard_top"], score):
        return TakeDiscard()
    return TakeStock()


def timeout_action(view: dict[str, Any]) -> Action:
    """What the server plays for a seat whose deadline passed."""
    legal = _kinds(view)
    if "cut" in legal:
        return Cut(None)
    if "split" in legal:
        return recommended_split(parse_cards(view["hand"]))
    if "discard" in legal:
        return Discard(throw(view["hand"], legal["discard"]["cards"]))
    return TakeStock()
