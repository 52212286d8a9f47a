"""Issue 29 item 4: a board's layout lives in its board. ``client/app.tcss`` styles only the shell's widgets;
each board's style sheet (``Board.BOARD_CSS``) names the board in every rule, so it cannot style another
board or the shell's own screens, and the table screen refuses one that does not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.css.stylesheet import Stylesheet

from cribbage_views import after_show, mid_play
from test_client_cribbage import feed as cribbage_feed
from test_client_snapshots import EVENTS, PLAY_VIEW, RESULT, SHOWDOWN_VIEW
from test_client_snapshots import feed as dab_feed

import client
from client import games
from client.app import DabApp
from client.games.board import Board, BoardStyleError, UnsupportedBoard, board_style_sheets
from client.games.cribbage.board import CribbageBoard
from client.games.down_and_back.board import DownAndBackBoard
from client.render import Display

VARIABLES = App().get_css_variables()


def selector_names(css: str, where: tuple[str, str]) -> set[str]:
    """Every id, class and type name a style sheet's selectors name."""
    sheet = Stylesheet(variables=VARIABLES)
    sheet.add_source(css, read_from=where)
    sheet.parse()
    return {selector.name for rule in sheet.rules for selectors in rule.selector_set
            for selector in selectors.selectors}


APP_TCSS = Path(client.__file__).with_name("app.tcss")
SHELL_NAMES = selector_names(APP_TCSS.read_text(), (str(APP_TCSS), ""))


def test_every_board_states_a_style_sheet_that_names_it_in_every_rule():
    for game in games.playable_games():
        board = games.board_class(game)
        sheets = board_style_sheets(board, VARIABLES)
        assert [where[1] for where, _ in sheets] == ["Board.BOARD_CSS", f"{board.__name__}.BOARD_CSS"]
    assert [where[1] for where, _ in board_style_sheets(UnsupportedBoard, VARIABLES)] == ["Board.BOARD_CSS"]


@pytest.mark.parametrize("css, named", [
    ("#hand { width: 3; }", "#hand"),  # every board's hand: the rule Down and Back's app.tcss had
    ("CribbageBoard #hand { width: 3; }", "CribbageBoard #hand"),  # another board's
    ("Board #hand { width: 3; }", "Board #hand"),  # every board's: the base's to state, not a game's
    ("StrayBoard #pile, .-large #chat { height: 3; }", ".-large #chat"),  # one selector of two: the shell's chat
])
async def test_a_board_whose_style_sheet_could_style_something_outside_it_is_refused(css, named):
    stray = type("StrayBoard", (Board,), {"BOARD_CSS": css})
    with pytest.raises(BoardStyleError) as refused:
        board_style_sheets(stray, VARIABLES)
    assert f"StrayBoard.BOARD_CSS: the rule {named!r} does not name StrayBoard" in str(refused.value)


def _board_widgets(app: DabApp) -> list[Any]:
    """The widgets the board made (its table, its panels, its side panel's sections), not the shell's it places
    (the log and chat column, the prompt)."""
    board = app.table_screen.board
    shell = (board.talk, board.prompt)
    mine = [w for w in board.walk_children(with_self=True)
            if not any(w is s or s in w.ancestors for s in shell)]
    for section in app.table_screen.query_one("#side-panel").sections:
        mine += list(section.walk_children(with_self=True))
    return mine


waiting = {**PLAY_VIEW, "phase": "waiting", "legal": [], "to_act": [], "turn": None, "step": None,
           "deadline_ms": None, "hand": SHOWDOWN_VIEW["hand"]}
SCREENS = {
    "Down and Back table": dab_feed(PLAY_VIEW, EVENTS),
    "Down and Back showdown": dab_feed(SHOWDOWN_VIEW, screen="SplitPanel"),
    "Down and Back result": dab_feed(waiting, [RESULT], screen="RevealPanel"),
    "Cribbage table": cribbage_feed(mid_play()),
    "Cribbage show": cribbage_feed(after_show(), "ShowPanel", ("v",)),
}


@pytest.mark.parametrize("shown", list(SCREENS))
async def test_the_apps_style_sheet_names_no_widget_of_a_board(shown):
    """What the board draws (its ids and widget types, at 120x40: the large layout's widgets and the side
    panel's sections shown) is styled by its board's style sheet alone."""
    from engine.games.down_and_back import meter

    meter.warm_up()  # the helper's figure, not that it matters here: no thread racing the test's end
    app = DabApp(display=Display(), frozen_clock=True, player_name="Ann", server_label="css")
    async with app.run_test(size=(120, 40)) as pilot:
        await SCREENS[shown](pilot)
        widgets = _board_widgets(app)
        assert len(widgets) > 5
        names = {w.id for w in widgets if w.id} | {type(w).__name__ for w in widgets}
        assert not names & SHELL_NAMES, f"app.tcss styles {sorted(names & SHELL_NAMES)} of the board"
        board = app.table_screen.board
        assert isinstance(board, (DownAndBackBoard, CribbageBoard))
        assert {"middle", "bottom", "hand", "prompt"} <= {w.id for w in board.walk_children()}
