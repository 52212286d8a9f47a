"""Bots: functions of a seat's view to an action, so they know only what a player knows.

The baseline bot keeps whichever draw most improves its recommended split
(scored by :func:`engine.hands.best_split_score`, the win-both estimate
against one opponent), throws the card whose loss hurts that score least, and
at the showdown plays the recommended split. :func:`timeout_action` is what
the server plays for a player who lets the clock run out: the safe, passive
choice (take from the stock, throw the recommended card, recommended split).
"""

from __future__ import annotations

from typing import Any

from .actions import Action, CallEnd, Cut, Discard, Split, TakeDiscard, TakeStock
from .cards import Card, parse_cards
from .hands import best_discard, best_split, best_split_score

# Take the visible discard only when it beats the current hand by this much:
# a stock card is an unseen chance of a bigger gain.
TAKE_DISCARD_MARGIN = 0.02
# Early-call variant: call once the hand is this likely to beat one opponent in both.
CALL_END_SCORE = 0.85


def _kinds(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {entry["kind"]: entry for entry in view["legal"]}


def recommended_split(cards: list[Card]) -> Split:
    option = best_split(cards)
    return Split(tuple(option.down), tuple(option.back))


def throw(hand: list[Card], allowed: list[Card]) -> Card:
    """The allowed card whose loss leaves the best 7-card split."""
    card, _ = best_discard(hand)
    if card in allowed:
        return card
    rest = lambda c: [x for x in hand if x != c]  # noqa: E731
    return max(allowed, key=lambda c: (best_split_score(rest(c)), -c.index))


def baseline_action(view: dict[str, Any]) -> Action:
    """The baseline bot's choice for the seat whose view this is."""
    legal = _kinds(view)
    hand = parse_cards(view["hand"])
    if "cut" in legal:
        return Cut(None)
    if "split" in legal:
        return recommended_split(hand)
    if "discard" in legal:
        return Discard(throw(hand, parse_cards(legal["discard"]["cards"])))
    score = best_split_score(hand)
    if "call_end" in legal and score >= CALL_END_SCORE:
        return CallEnd()
    if "take_discard" in legal:
        top = Card.parse(view["discard_pile"][-1])
        thrown, improved = best_discard(hand + [top])
        if thrown != top and improved > score + TAKE_DISCARD_MARGIN:
            return TakeDiscard()
    return TakeStock()


def timeout_action(view: dict[str, Any]) -> Action:
    """What the server plays for a seat whose deadline passed."""
    legal = _kinds(view)
    hand = parse_cards(view["hand"])
    if "cut" in legal:
        return Cut(None)
    if "split" in legal:
        return recommended_split(hand)
    if "discard" in legal:
        return Discard(throw(hand, parse_cards(legal["discard"]["cards"])))
    return TakeStock()
