"""What a game returns and remembers, for every game: :class:`Record` and :class:`ActionLog`.

A game's :meth:`~engine.contract.Game.apply` returns records of what happened
(public parts for everyone, private parts for one seat); its history is an
:class:`ActionLog` of plain action data that, with the starting RNG, replays
the game exactly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence, Union, overload

if TYPE_CHECKING:
    from .contract import Action


class ActionLog(Sequence[tuple[Union[int, None], dict[str, Any]]]):
    """Every action applied to a game, in order, read as ``(seat, plain data)`` pairs.

    A game's log only grows and a server holds many games, so it is kept in a
    form the garbage collector can skip: a list of seats and a list of action
    dicts holding only strings, ints and tuples. A list of ``(seat, dict)``
    tuples would stay tracked, and every full collection would walk it
    (about 7% of a simulated game's time once a few thousand rounds are logged).
    """

    __slots__ = ("_seats", "_actions")

    def __init__(
        self, entries: Iterable[Sequence[Any]] = (), parse: Callable[[object], Action] | None = None,
    ) -> None:
        """``entries``: ``(seat, action data)`` pairs, each checked by ``parse`` (the game's action parser)."""
        self._seats: list[int | None] = []
        self._actions: list[dict[str, Any]] = []
        if entries and parse is None:
            raise TypeError("an ActionLog built from entries needs the game's action parser")
        for seat, data in entries:
            self.append(seat, parse(data))  # type: ignore[misc]

    def append(self, seat: int | None, action: Action) -> None:
        data = action.to_data()
        for value in data.values():
            if type(value) is list:  # lists of cards are kept as tuples, which the collector skips
                data = {key: tuple(v) if type(v) is list else v for key, v in data.items()}
                break
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

    ``sig`` is the server's signature of a fair deal's record (engine.fairness: the server signs
    them on their way out, :meth:`sign`): every reader sees it, but it is no part of the game's
    state (:meth:`to_data` leaves it out).
    """

    __slots__ = ("kind", "seat", "public", "private", "sig", "_seen")

    def __init__(
        self, kind: str, seat: int | None = None,
        public: dict[str, Any] | None = None, private: dict[str, Any] | None = None,
    ) -> None:
        self.kind = kind
        self.seat = seat
        self.public = public if public is not None else {}
        self.private = private if private is not None else {}
        self.sig: str | None = None
        self._seen: dict[str, Any] | None = None  # what everyone but the seat sees, built once

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Record) and self.to_data() == other.to_data()

    def __repr__(self) -> str:
        return f"Record({self.kind!r}, {self.seat!r}, {self.public!r}, {self.private!r})"

    def for_seat(self, seat: int | None) -> dict[str, Any]:
        """The record as ``seat`` may see it (``None``: a spectator).

        What everyone else sees is built once and shared by every view and event that shows the
        record (a record is never changed once made): do not change the map returned.
        """
        own = seat is not None and seat == self.seat and self.private
        if not own and self._seen is not None:
            return self._seen
        data: dict[str, Any] = {"kind": self.kind}
        if self.seat is not None:
            data["seat"] = self.seat
        data.update(self.public)
        if self.sig is not None:
            data["sig"] = self.sig
        if own:
            data.update(self.private)
        else:
            self._seen = data
        return data

    def sign(self, sig: str) -> None:
        """Attach the server's signature (before anyone reads the record)."""
        self.sig, self._seen = sig, None

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat, "public": self.public, "private": self.private}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "Record":
        return cls(data["kind"], data["seat"], dict(data["public"]), dict(data["private"]))
