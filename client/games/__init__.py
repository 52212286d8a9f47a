"""The game boards this client can show, found by convention from the engine's registry (the one game list).

The table shell (:mod:`client.screens.table`) is the same for every game; it
mounts ``board_class(game)``, the one part that knows the game's view, keys,
overlays and help. A game's board is ``BOARD`` in ``client/games/<package>/board.py``,
``<package>`` being the game's name (as the server stores it) with ``_`` for ``-``:
``"cribbage"`` is ``client.games.cribbage.board.BOARD``. A board module is imported
only when a table of its game opens (whether a game has one is known without
importing it). A game the engine does not know, or one without a board here, gets
:class:`~client.games.board.UnsupportedBoard`, which says so instead of drawing a
table it cannot read; a board module that exposes no board is an error naming it.
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .board import Board

DEFAULT_GAME = "down-and-back"  # the game of a table whose settings name none
BOARD_NAME = "BOARD"  # what a game's board module names its board


class BoardError(LookupError):
    """A game's board module does not give a board the convention's way."""


def board_module(game: str) -> str:
    """Where ``game``'s board is, by the convention: ``client.games.<package>.board``."""
    return f"{__name__}.{game.replace('-', '_')}.board"


def has_board(game: str) -> bool:
    """Whether ``game`` is the engine's and this client has its board (without importing the board)."""
    from engine.games import GAMES

    if game not in GAMES:  # a name from the server is looked up only among the registry's ids
        return False
    module = board_module(game)
    package = module.rpartition(".")[0]
    return importlib.util.find_spec(package) is not None and importlib.util.find_spec(module) is not None


def playable_games() -> list[str]:
    """The games this client can play: the engine's registry, in its order, those that have a board here."""
    from engine.games import GAMES

    return [name for name in GAMES if has_board(name)]


def find_board(game: str) -> "type[Board] | None":
    """``game``'s board, or ``None`` when it has none here (or the engine does not know it); a board
    module that does not name a :class:`~client.games.board.Board` as ``BOARD`` is a :class:`BoardError`."""
    from .board import Board

    if not has_board(game):
        return None
    module = board_module(game)
    board = getattr(importlib.import_module(module), BOARD_NAME, None)
    if not (isinstance(board, type) and issubclass(board, Board)):
        raise BoardError(f"{module} has no {BOARD_NAME} (a client.games.board.Board subclass): "
                         f"the board of {game!r} tables, found by the name")
    return board


def board_class(game: str) -> "type[Board]":
    """The board for ``game``'s tables (the unsupported-game board when this client has none)."""
    board = find_board(game)
    if board is None:
        from .board import UnsupportedBoard

        return UnsupportedBoard
    return board


def game_title(game: str) -> str:
    """What people call ``game`` (its engine's title), or its name if this client does not know it."""
    from engine.games import GAMES

    known = GAMES.get(game)
    return known.title if known is not None else game
