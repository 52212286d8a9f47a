"""Every game the server can host, by name: the registry the other layers look games up in.

``GAMES`` maps each game's name to its :class:`~engine.contract.GameType`, and
imports a game's package only when that game is looked up: a Down and Back
table (or the client's hand helper, which imports Down and Back's hand
modules) does not load Cribbage's rules, views and bots. Its names are known
without importing anything (``list(GAMES)``, ``name in GAMES``); what a game
says of itself (its title, seats, settings) comes from its GameType, so
``GAMES.values()`` imports every game.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Iterator, Mapping, MutableMapping

if TYPE_CHECKING:
    from ..contract import GameType

_WHERE: dict[str, str] = {
    "down-and-back": "engine.games.down_and_back.gametype:DOWN_AND_BACK",
    "cribbage": "engine.games.cribbage.gametype:CRIBBAGE",
}
"""Game name (its ``GameType.name``, as stored with every table) -> ``module:object`` of its GameType."""


class Registry(MutableMapping[str, "GameType"]):
    """The games by name, in :data:`_WHERE`'s order; each game's package is imported on first lookup.

    A game may also be registered as an object (``GAMES[game.name] = game``; tests add stand-ins so).
    """

    def __init__(self, where: Mapping[str, str]) -> None:
        self._where: dict[str, str | None] = dict(where)  # None: registered as an object
        self._loaded: dict[str, GameType] = {}

    def __getitem__(self, name: str) -> "GameType":
        game = self._loaded.get(name)
        if game is None:
            where = self._where[name]
            assert where is not None  # an object registered is in _loaded
            module, attribute = where.split(":")
            game = self._loaded[name] = getattr(importlib.import_module(module), attribute)
        return game

    def __setitem__(self, name: str, game: "GameType") -> None:
        self._where[name] = None
        self._loaded[name] = game

    def __delitem__(self, name: str) -> None:
        del self._where[name]
        self._loaded.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        return iter(self._where)

    def __len__(self) -> int:
        return len(self._where)

    def __contains__(self, name: object) -> bool:
        return name in self._where

    def __repr__(self) -> str:
        return f"Registry({list(self._where)})"


GAMES: MutableMapping[str, "GameType"] = Registry(_WHERE)


def find_game(name: str) -> "GameType":
    """The game called ``name`` (as stored with every table), or :class:`KeyError` naming the known ones."""
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"no game called {name!r}; known games: {', '.join(sorted(GAMES))}") from None
