"""High Card's board for tests: ``tests/boards`` on ``client.games``' package path, so the client finds
``client.games.high_card.board`` by its convention, as it finds every game's board; and the game in the
engine's registry (``fixture_game.registered``). No other test sees either."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Iterator

import fixture_game

BOARDS = Path(__file__).resolve().parent / "boards"


@contextlib.contextmanager
def board_path() -> Iterator[None]:
    """``tests/boards`` a place ``client.games`` finds boards in, for the ``with`` block only."""
    import client.games

    client.games.__path__.append(str(BOARDS))
    try:
        yield
    finally:
        client.games.__path__.remove(str(BOARDS))
        for name in [n for n in sys.modules if n.startswith("client.games.high_card")]:
            del sys.modules[name]


@contextlib.contextmanager
def registered() -> Iterator[fixture_game.HighCard]:
    """High Card in the engine's registry and its board where the client looks (the lobby's list of games,
    built once per process, made again with it and without it after)."""
    from server.lobby import games_offered

    games_offered.cache_clear()
    try:
        with fixture_game.registered() as game, board_path():
            yield game
    finally:
        games_offered.cache_clear()
