"""Actions a seat (or the table) can take, and the records applying them returns.

Actions are frozen values with a plain-data form (``{"kind": "discard",
"card": "10H"}``) so they can cross the network and be stored in an action log
that replays a game exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Iterable, Iterator, Sequence, Union, overload

from ...cards import Card, CardParseError
from ...errors import InvalidAction


@dataclass(frozen=True, slots=True)
class Cut:
    """Cut the shuffled deck: move the top ``position`` cards to the bottom.

    ``position=None`` asks for a random cut (what a bot or a timeout does).
    """

    position: int | None = None
    kind: ClassVar[str] = "cut"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "position": self.position}


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


@dataclass(frozen=True, slots=True)
class StartRound:
    """Table action: collect antes, choose or pass the deal, shuffle."""

    kind: ClassVar[str] = "start_round"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class EndGame:
    """Table action: stop playing; any pot is paid back to who put it in."""

    kind: ClassVar[str] = "end_game"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class SetAway:
    """Table action: a seat sits out from the next round on, or comes back."""

    seat: int
    away: bool
    kind: ClassVar[str] = "set_away"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat, "away": self.away}


SeatAction = Union[Cut, TakeStock, TakeDiscard, Discard, Skip, CallEnd, Split]
TableAction = Union[StartRound, EndGame, SetAway]
Action = Union[SeatAction, TableAction]

_SIMPLE = {cls.kind: cls for cls in (TakeStock, TakeDiscard, Skip, CallEnd, StartRound, EndGame)}


def _card(value: object, what: str) -> Card:
    try:
        return Card.parse(value)  # type: ignore[arg-type]
    except CardParseError as exc:
        raise InvalidAction(f"{what}: {exc}") from None


def _cards(value: object, count: int, what: str) -> tuple[Card, ...]:
    if not isinstance(value, (list, tuple)) or len(value) != count:
        raise InvalidAction(f"{what} must be a list of {count} cards, got {value!r}")
    return tuple(_card(item, what) for item in value)


def _int(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidAction(f"{what} must be an integer, got {value!r}")
    return value


def action_from_data(data: object) -> Action:
    """Build an action from its plain-data form; malformed data raises InvalidAction."""
    if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
        raise InvalidAction(f"an action is a map with a 'kind', got {data!r}")
    kind = data["kind"]
    extra = set(data) - _FIELDS.get(kind, set()) - {"kind"}
    if kind not in _FIELDS:
        raise InvalidAction(f"unknown action kind {kind!r}")
    if extra:
        raise InvalidAction(f"unexpected field(s) {sorted(extra)} for action {kind!r}")
    if kind in _SIMPLE:
        return _SIMPLE[kind]()
    if kind == "cut":
        position = data.get("position")
        return Cut(None if position is None else _int(position, "cut position"))
    if kind == "discard":
        return Discard(_card(data.get("card"), "discard card"))
    if kind == "split":
        return Split(_cards(data.get("down"), 4, "split down"), _cards(data.get("back"), 3, "split back"))
    # set_away
    away = data.get("away")
    if not isinstance(away, bool):
        raise InvalidAction(f"set_away 'away' must be true or false, got {away!r}")
    return SetAway(_int(data.get("seat"), "set_away seat"), away)


_FIELDS: dict[str, set[str]] = {
    **{kind: set() for kind in _SIMPLE},
    "cut": {"position"},
    "discard": {"card"},
    "split": {"down", "back"},
    "set_away": {"seat", "away"},
}


class ActionLog(Sequence[tuple[Union[int, None], dict[str, Any]]]):
    """Every action applied to a game, in order, read as ``(seat, plain data)`` pairs.

    A game's log only grows and a server holds many games, so it is kept in a
    form the garbage collector can skip: a list of seats and a list of action
    dicts holding only strings, ints and tuples. A list of ``(seat, dict)``
    tuples would stay tracked, and every full collection would walk it
    (about 7% of a simulated game's time once a few thousand rounds are logged).
    """

    __slots__ = ("_seats", "_actions")

    def __init__(self, entries: Iterable[Sequence[Any]] = ()) -> None:
        """``entries``: ``(seat, action data)`` pairs, checked as :func:`action_from_data` does."""
        self._seats: list[int | None] = []
        self._actions: list[dict[str, Any]] = []
        for seat, data in entries:
            self.append(seat, action_from_data(data))

    def append(self, seat: int | None, action: Action) -> None:
        data = action.to_data()
        if type(action) is Split:
            data["down"], data["back"] = tuple(data["down"]), tuple(data["back"])
        self._seats.append(seat)
        self._actions.append(data)

    def __len__(self) -> int:
        return len(self._seats)

    @overload
    def __getitem__(self, i: int) -> tuple[int | None, dict[str, Any]]: ...
    @overload
    def __getitem__(self, i: slice) -> list[tuple[int | None, dict[str, Any]]]: ...

    def __getitem__(self, i):  # type: ignore[no-untyped-def]
        if isinstance(i, slice):
            return [(seat, _thawed(data)) for seat, data in zip(self._seats[i], self._actions[i])]
        return self._seats[i], _thawed(self._actions[i])

    def __iter__(self) -> Iterator[tuple[int | None, dict[str, Any]]]:
        for seat, data in zip(self._seats, self._actions):
            yield seat, _thawed(data)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, ActionLog):
            return self._seats == other._seats and self._actions == other._actions
        return NotImplemented

    def __repr__(self) -> str:
        return f"<ActionLog of {len(self)} actions>"


def _thawed(data: dict[str, Any]) -> dict[str, Any]:
    """A fresh copy of logged action data, with lists again where the log keeps tuples."""
    return {key: list(value) if type(value) is tuple else value for key, value in data.items()}


class Record:
    """What happened when an action (or chance) was applied.

    ``public`` is what everyone may know; ``private`` adds what only ``seat``
    may know (the card drawn from the stock, the cards dealt to it). A plain
    slotted class: the engine makes one or two of these per action.
    """

    __slots__ = ("kind", "seat", "public", "private")

    def __init__(
        self, kind: str, seat: int | None = None,
        public: dict[str, Any] | None = None, private: dict[str, Any] | None = None,
    ) -> None:
        self.kind = kind
        self.seat = seat
        self.public = public if public is not None else {}
        self.private = private if private is not None else {}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Record) and self.to_data() == other.to_data()

    def __repr__(self) -> str:
        return f"Record({self.kind!r}, {self.seat!r}, {self.public!r}, {self.private!r})"

    def for_seat(self, seat: int | None) -> dict[str, Any]:
        """The record as ``seat`` may see it (``None``: a spectator)."""
        data: dict[str, Any] = {"kind": self.kind}
        if self.seat is not None:
            data["seat"] = self.seat
        data.update(self.public)
        if seat is not None and seat == self.seat:
            data.update(self.private)
        return data

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat, "public": self.public, "private": self.private}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "Record":
        return cls(data["kind"], data["seat"], dict(data["public"]), dict(data["private"]))
