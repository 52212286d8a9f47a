"""Down and Back's actions, and its one action schema (:func:`action_from_data`).

Actions are frozen values with a plain-data form (``{"kind": "discard",
"card": "10H"}``) so they can cross the network and be stored in an action log
that replays a game exactly. The table actions are the contract's
(:mod:`engine.contract`); the parser accepts them too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Union

from ...cards import Card
from ...contract import (
    TABLE_ACTION_FIELDS, EndGame, SetAway, StartRound, TableAction, action_kind, check_fields, table_action_from_data,
)
from ...errors import InvalidAction
from ..base import CUT_FIELDS, Cut, card_from_data, cut_from_data


@dataclass(frozen=True, slots=True)
class TakeStock:
    kind: ClassVar[str] = "take_stock"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class TakeDiscard:
    kind: ClassVar[str] = "take_discard"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class Discard:
    card: Card
    kind: ClassVar[str] = "discard"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "card": self.card.text}


@dataclass(frozen=True, slots=True)
class Skip:
    """No-take-back variant: neither draw nor discard; the turn passes."""

    kind: ClassVar[str] = "skip"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class CallEnd:
    """Early-call variant: drawing ends with the current orbit."""

    kind: ClassVar[str] = "call_end"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class Split:
    """The showdown arrangement: 4 going-down cards and 3 coming-back cards."""

    down: tuple[Card, ...]
    back: tuple[Card, ...]
    kind: ClassVar[str] = "split"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "down": [c.text for c in self.down], "back": [c.text for c in self.back]}


SeatAction = Union[Cut, TakeStock, TakeDiscard, Discard, Skip, CallEnd, Split]
Action = Union[SeatAction, TableAction]
__all__ = ["Action", "SeatAction", "Cut", "TakeStock", "TakeDiscard", "Discard", "Skip", "CallEnd", "Split",
           "StartRound", "EndGame", "SetAway", "action_from_data"]

_SIMPLE = {cls.kind: cls for cls in (TakeStock, TakeDiscard, Skip, CallEnd)}


def _cards(value: object, count: int, what: str) -> tuple[Card, ...]:
    if not isinstance(value, (list, tuple)) or len(value) != count:
        raise InvalidAction(f"{what} must be a list of {count} cards, got {value!r}")
    return tuple(card_from_data(item, what) for item in value)


def action_from_data(data: object) -> Action:
    """Build an action from its plain-data form; malformed data raises InvalidAction."""
    kind = action_kind(data)
    check_fields(data, kind, _FIELDS)  # type: ignore[arg-type]
    if kind in _SIMPLE:
        return _SIMPLE[kind]()
    if kind == "cut":
        return cut_from_data(data)  # type: ignore[arg-type]
    if kind == "discard":
        return Discard(card_from_data(data.get("card"), "discard card"))  # type: ignore[union-attr]
    if kind == "split":
        return Split(_cards(data.get("down"), 4, "split down"), _cards(data.get("back"), 3, "split back"))  # type: ignore[union-attr]
    return table_action_from_data(data)  # type: ignore[arg-type]


_FIELDS: dict[str, set[str]] = {
    **{kind: set() for kind in _SIMPLE},
    **CUT_FIELDS,
    "discard": {"card"},
    "split": {"down", "back"},
    **TABLE_ACTION_FIELDS,
}
