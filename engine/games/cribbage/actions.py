"""Cribbage's actions, and its one action schema (:func:`action_from_data`).

A seat cuts the pack (for the first deal, before a deal, for the starter),
lays cards away to the crib, and plays a card in the play. "Go" is no action:
the game says it for a seat that holds no card that fits (rules: a player who
can play must). Under the muggins house rule a seat claims its own count in
the show, and an opponent may take the points it missed. The table actions are
the contract's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Union

from ...cards import Card
from ...contract import (
    TABLE_ACTION_FIELDS, EndGame, SetAway, StartRound, TableAction, action_kind, check_fields, plain_int,
    table_action_from_data,
)
from ...errors import InvalidAction
from ..base import CUT_FIELDS, Cut, card_from_data, cut_from_data

MAX_DISCARD = 2  # two cards each with two players, one with three or four


@dataclass(frozen=True, slots=True)
class Discard:
    """Lay ``cards`` away to the crib, face down; kept in the deck's order, so equal choices are equal."""

    cards: tuple[Card, ...]
    kind: ClassVar[str] = "discard"

    def __post_init__(self) -> None:
        object.__setattr__(self, "cards", tuple(sorted(self.cards, key=lambda c: c.index)))

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "cards": [c.text for c in self.cards]}


@dataclass(frozen=True, slots=True)
class Play:
    """Lay ``card`` face up in the play, adding its value to the count."""

    card: Card
    kind: ClassVar[str] = "play"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "card": self.card.text}


@dataclass(frozen=True, slots=True)
class Claim:
    """Muggins: claim ``points`` for the hand (or crib) being counted; a claim above its worth pegs its worth."""

    points: int
    kind: ClassVar[str] = "claim"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "points": self.points}


@dataclass(frozen=True, slots=True)
class Muggins:
    """Muggins: ``take`` the points the claim just made left uncounted, or let them go."""

    take: bool
    kind: ClassVar[str] = "muggins"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "take": self.take}


SeatAction = Union[Cut, Discard, Play, Claim, Muggins]
Action = Union[SeatAction, TableAction]
__all__ = ["Action", "SeatAction", "Cut", "Discard", "Play", "Claim", "Muggins", "StartRound", "EndGame", "SetAway",
           "action_from_data"]


def action_from_data(data: object) -> Action:
    """Build an action from its plain-data form; malformed data raises InvalidAction."""
    kind = action_kind(data)
    check_fields(data, kind, _FIELDS)  # type: ignore[arg-type]
    if kind == "cut":
        return cut_from_data(data)  # type: ignore[arg-type]
    if kind == "play":
        return Play(card_from_data(data.get("card"), "play card"))  # type: ignore[union-attr]
    if kind == "discard":
        cards = data.get("cards")  # type: ignore[union-attr]
        if not isinstance(cards, (list, tuple)) or not 1 <= len(cards) <= MAX_DISCARD:
            raise InvalidAction(f"discard cards must be a list of 1 or {MAX_DISCARD} cards, got {cards!r}")
        return Discard(tuple(card_from_data(c, "discard card") for c in cards))
    if kind == "claim":
        return Claim(plain_int(data.get("points"), "claim points"))  # type: ignore[union-attr]
    if kind == "muggins":
        take = data.get("take")  # type: ignore[union-attr]
        if not isinstance(take, bool):
            raise InvalidAction(f"muggins 'take' must be true or false, got {take!r}")
        return Muggins(take)
    return table_action_from_data(data)  # type: ignore[arg-type]


_FIELDS: dict[str, set[str]] = {**CUT_FIELDS, "discard": {"cards"}, "play": {"card"}, "claim": {"points"},
                                "muggins": {"take"}, **TABLE_ACTION_FIELDS}
