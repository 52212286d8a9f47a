"""Every game the server can host, by name: the registry the other layers look games up in.

``GAMES`` is built on first use (PEP 562), so that importing one module of a
game (the client's hand helper imports Down and Back's hand modules) does not
load every game's rules, views and bots.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..contract import GameType

    GAMES: dict[str, GameType]

_games: dict[str, "GameType"] | None = None


def _registry() -> dict[str, "GameType"]:
    global _games
    if _games is None:
        from .cribbage.gametype import CRIBBAGE
        from .down_and_back.gametype import DOWN_AND_BACK

        _games = {game.name: game for game in (DOWN_AND_BACK, CRIBBAGE)}
    return _games


def __getattr__(name: str) -> Any:
    if name == "GAMES":
        return _registry()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def find_game(name: str) -> "GameType":
    """The game called ``name`` (as stored with every table), or :class:`KeyError` naming the known ones."""
    try:
        return _registry()[name]
    except KeyError:
        raise KeyError(f"no game called {name!r}; known games: {', '.join(sorted(_registry()))}") from None
