"""Issue 29 item 7: the engine's registry is the one list of games; every other list is checked against it.

PROTOCOL.md's table of games (parsed by ``protocol_spec``, as the conformance
suite reads it) names exactly the registry's games, in its order, each with
its document at ``docs/games/<name>.md``; the client plays the registry's games
that have a board (it keeps no list of games of its own beyond the boards).
"""

from __future__ import annotations

from pathlib import Path

import protocol_spec

from client.games import board_class, has_board, playable_games
from engine.games import GAMES

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_protocol_md_lists_the_registrys_games_in_order_each_with_its_document():
    assert list(protocol_spec.load().games) == list(GAMES)
    for name, document in protocol_spec.load().games.items():
        assert document == f"games/{name}.md" and (DOCS / document).is_file(), name


def test_the_client_plays_the_registrys_games_that_have_a_board():
    """A board is found by the game's name (client/games/<package>/board.py), not kept in a list: every game
    that ships has one, and a name the engine does not know has none, whatever folders there are."""
    assert playable_games() == list(GAMES) == [name for name in GAMES if has_board(name)]
    assert all(board_class(name).__module__ == f"client.games.{name.replace('-', '_')}.board" for name in GAMES)
    assert not has_board("board") and not has_board("down_and_back")  # folders, not the registry's ids
