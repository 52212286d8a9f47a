"""Issue 29 item 7: the engine's registry is the one list of games; every other list is checked against it.

PROTOCOL.md's table of games (parsed by ``protocol_spec``, as the conformance
suite reads it) names exactly the registry's games, in its order, each with
its document at ``docs/games/<name>.md``; the client plays the registry's games
that have a board (it keeps no list of games of its own beyond the boards).
"""

from __future__ import annotations

from pathlib import Path

import protocol_spec

from client.games import BOARDS, playable_games
from engine.games import GAMES

DOCS = Path(__file__).resolve().parents[2] / "docs"


def test_protocol_md_lists_the_registrys_games_in_order_each_with_its_document():
    assert list(protocol_spec.load().games) == list(GAMES)
    for name, document in protocol_spec.load().games.items():
        assert document == f"games/{name}.md" and (DOCS / document).is_file(), name


def test_the_client_plays_the_registrys_games_that_have_a_board():
    assert set(BOARDS) <= set(GAMES)  # a board for a game the engine does not know would be a second list
    assert playable_games() == [name for name in GAMES if name in BOARDS] and playable_games()
