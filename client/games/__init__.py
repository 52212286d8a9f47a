"""The game boards this client can show, found by the game's name (as the server stores it).

The table screen (:mod:`client.screens.table`) is the same for every game; it
mounts ``board_for(game)``, the one part that knows the game's view, keys,
overlays and help. A board module is imported only when a table of its game
opens. A game without a board here gets :class:`~client.games.board.UnsupportedBoard`,
which says so instead of drawing a table it cannot read.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .board import Board

DEFAULT_GAME = "down-and-back"  # the game of a table whose settings name none

BOARDS: dict[str, str] = {
    "down-and-back": "client.games.down_and_back.board:DownAndBackBoard",
    "cribbage": "client.games.cribbage.board:CribbageBoard",
}
"""Game name -> ``module:class`` of its board."""


def playable_games() -> list[str]:
    """The games this client can play: the engine's registry (the one game list), in its order, that have a
    board here. Their names are known without importing any game."""
    from engine.games import GAMES

    return [name for name in GAMES if name in BOARDS]


def board_class(game: str) -> "type[Board]":
    """The board for ``game``'s tables (the unsupported-game board when this client has none)."""
    where = BOARDS.get(game)
    if where is None:
        from .board import UnsupportedBoard

        return UnsupportedBoard
    module, name = where.split(":")
    return getattr(importlib.import_module(module), name)


def game_title(game: str) -> str:
    """What people call ``game`` (its engine's title), or its name if this client does not know it."""
    from engine.games import GAMES

    known = GAMES.get(game)
    return known.title if known is not None else game
