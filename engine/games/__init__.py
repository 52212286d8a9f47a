"""Every game the server can host, by name: the registry the other layers look games up in."""

from __future__ import annotations

from ..contract import GameType
from .down_and_back.gametype import DOWN_AND_BACK

GAMES: dict[str, GameType] = {game.name: game for game in (DOWN_AND_BACK,)}


def find_game(name: str) -> GameType:
    """The game called ``name`` (as stored with every table), or :class:`KeyError` naming the known ones."""
    try:
        return GAMES[name]
    except KeyError:
        raise KeyError(f"no game called {name!r}; known games: {', '.join(sorted(GAMES))}") from None
