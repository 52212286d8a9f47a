"""Offline Pilot tests of the table screen: views fed as the server would send them, at 80x24."""

from __future__ import annotations

import copy
import re
from typing import Any

from protocol import messages as m
from test_client_snapshots import PLAY_VIEW, make_app
from tui_helpers import screen_name, screen_text, table_ready, view_push, wait_for

from client.games.down_and_back.widgets import HandHelper

SEVEN = ["KH", "KD", "7C", "AS", "4S", "3S", "2S"]
OTHERS_TURN = {**PLAY_VIEW, "hand": SEVEN, "legal": [], "turn": 1, "step": "draw", "to_act": [1]}


async def feed(pilot, view: dict[str, Any]) -> None:
    app = pilot.app
    app.receive(view_push("t1", copy.deepcopy(view)))
    await wait_for(pilot, lambda: table_ready(app) and (app.table_screen.game or {}).get("hand") == view["hand"], what="view")
    await pilot.pause()


async def test_helper_grows_to_show_wins_both_when_a_card_is_drawn():
    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, OTHERS_TURN)
        await pilot.press("h")
        await wait_for(pilot, lambda: "Wins both" in screen_text(app), what="helper with 7 cards")
        await feed(pilot, PLAY_VIEW)  # 8 cards: the helper says what to throw, one line more
        text = await wait_for(pilot, lambda: "to keep" in screen_text(app) and screen_text(app), what="8 cards")
        assert "Wins both" in text
        assert app.table_screen.query_one(HandHelper).size.height == 4


async def test_the_helper_never_loses_its_estimate_to_a_suit_rules_note():
    """8D 8C 6C 2S down is "High card" by a suit rule, and the note saying why wraps at 80 columns: with it
    the helper's lines were more than its rows, and the win-both estimate (its last line) was cut off. With
    7 cards everything fits; with 8 (one line more, what to throw) a note goes before the estimate does."""
    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, {**OTHERS_TURN, "hand": ["8C", "2S", "AH", "7H", "4H", "6C", "8D"]})
        await pilot.press("h")
        text = await wait_for(pilot, lambda: "Wins both" in screen_text(app) and screen_text(app), what="the estimate")
        assert "High card: eight, eight, six, two" in text and "no pair: the 6♣ beside it" in text
        eight = ["8C", "2S", "AH", "7H", "4H", "6C", "8D", "3D"]
        await feed(pilot, {**PLAY_VIEW, "hand": eight, "legal": [{"kind": "discard", "cards": eight}]})
        text = await wait_for(pilot, lambda: "to keep" in screen_text(app) and screen_text(app), what="8 cards")
        assert "Wins both" in text and "Down " in text and "Back " in text


async def test_a_split_that_timed_out_still_shows_the_showdown():
    from test_client_snapshots import RESULT, SHOWDOWN_VIEW

    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, SHOWDOWN_VIEW)
        await wait_for(pilot, lambda: screen_name(app) == "SplitPanel", what="arrangement open")
        # Time is up: the server splits for us, then sends the result and the next view (in that order).
        app.receive(m.Event(table_id="t1", events=({"kind": "timeout", "seat": 0}, copy.deepcopy(RESULT))))
        waiting = {**SHOWDOWN_VIEW, "phase": "waiting", "legal": [], "to_act": [], "deadline_ms": None}
        app.receive(view_push("t1", copy.deepcopy(waiting)))
        await wait_for(pilot, lambda: (app.table_screen.game or {}).get("phase") == "waiting", what="waiting view")
        await wait_for(pilot, lambda: "Round 3 showdown" in screen_text(app), what="the reveal shown")
        assert screen_name(app) == "RevealPanel"
        await pilot.press("escape")  # Escape closes it too, not only Enter
        await wait_for(pilot, lambda: screen_name(app) == "TableScreen", what="reveal closed")


async def test_the_host_ends_the_game_from_the_table_menu_after_a_yes():
    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, PLAY_VIEW)  # Ann (seat 0) hosts this running game
        await wait_for(pilot, lambda: "m Menu" in screen_text(app), what="the footer")  # (laid out a frame late)
        await pilot.press("m")
        text = await wait_for(pilot, lambda: screen_name(app) == "MenuScreen" and screen_text(app), what="menu")
        assert "end the game for everyone" in text and "sit out" in text and "leave the table" in text
        assert "quit" in text and "rules" in text
        await pilot.press("E")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen", what="asked first")
        assert (m.EndGame, {}) not in app.requests_sent
        await pilot.press("y")
        await wait_for(pilot, lambda: (m.EndGame, {}) in app.requests_sent, what="end game sent")


async def test_a_player_who_does_not_host_is_not_offered_the_end():
    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, {**PLAY_VIEW, "table": {**PLAY_VIEW["table"], "host_seat": 2}})
        await pilot.press("m")
        text = await wait_for(pilot, lambda: screen_name(app) == "MenuScreen" and screen_text(app), what="menu")
        assert "end the game" not in text and "sit out" in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "TableScreen", what="menu closed")


async def test_quitting_during_a_game_asks_first():
    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, PLAY_VIEW)
        await pilot.press("ctrl+q")
        text = await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen" and screen_text(app), what="asked")
        assert "Quit the game?" in text and "seat is kept" in text
        await pilot.press("n")
        await wait_for(pilot, lambda: screen_name(app) == "TableScreen", what="still playing")
        assert app.is_running
        await pilot.press("ctrl+q", "y")
        await wait_for(pilot, lambda: not app.is_running or app._exit, what="quit after yes")


async def test_game_over_offers_quit_once():
    over = {**PLAY_VIEW, "phase": "over", "legal": [], "to_act": [], "deadline_ms": None,
            "standings": [{"seat": 0, "name": "Ann", "stack": 1100, "brought": 1000}]}
    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        app.receive(view_push("t1", copy.deepcopy(over)))
        await wait_for(pilot, lambda: screen_name(app) == "GameOverScreen", what="game over")

        def footer() -> str:
            return (screen_text(app).splitlines() or [""])[-1]

        await wait_for(pilot, lambda: "^q Quit" in footer(), what="the game-over footer")  # painted a moment after the screen
        assert footer().count("Quit") == 1, footer()


async def test_with_the_helper_on_the_cursor_starts_on_the_recommended_throw():
    from client.games.down_and_back.widgets import HandView, recommended_throw

    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, OTHERS_TURN)
        await pilot.press("h")
        drew = "KD"  # we drew the king; the helper says to throw something else
        app.receive(m.Event(table_id="t1", events=({"kind": "take_stock", "seat": 0, "card": drew},)))
        await feed(pilot, PLAY_VIEW)
        hand = app.table_screen.query_one(HandView)
        recommended = recommended_throw(PLAY_VIEW["hand"])
        assert recommended != drew and hand.fresh == drew
        assert hand.picked == recommended
        await pilot.press("enter")
        assert app.requests_sent[-1] == (m.Act, {"action": {"kind": "discard", "card": recommended}})


async def test_without_the_helper_the_cursor_starts_on_the_drawn_card():
    from client.games.down_and_back.widgets import HandView

    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, OTHERS_TURN)
        app.receive(m.Event(table_id="t1", events=({"kind": "take_stock", "seat": 0, "card": "KD"},)))
        await feed(pilot, PLAY_VIEW)
        assert app.table_screen.query_one(HandView).picked == "KD"


async def test_a_card_the_rules_keep_is_never_thrown_silently():
    """No take-back: the card taken from the pile gets no cursor, and Enter throws nothing until a pick."""
    from client.games.down_and_back.widgets import HandView

    taken = "10D"
    allowed = [c for c in PLAY_VIEW["hand"] if c != taken]
    view = {**PLAY_VIEW, "legal": [{"kind": "discard", "cards": allowed}],
            "settings": {**PLAY_VIEW["settings"], "no_take_back": True}}
    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, OTHERS_TURN)
        app.receive(m.Event(table_id="t1", events=({"kind": "take_discard", "seat": 0, "card": taken},)))
        await feed(pilot, view)
        hand = app.table_screen.query_one(HandView)
        assert hand.picked is None
        assert "Throw (not 10♦):" in screen_text(app)  # the prompt says which card stays
        sent = len(app.requests_sent)
        await pilot.press("enter")
        await pilot.press(str(hand.shown.index(taken) + 1))
        await pilot.pause()
        assert len(app.requests_sent) == sent and hand.picked is None
        assert any("no take-back" in n.message for n in app._notifications)
        await pilot.press("right", "enter")
        assert app.requests_sent[-1] == (m.Act, {"action": {"kind": "discard", "card": hand.shown[0]}})


async def test_the_header_counts_turns_and_the_acting_seat_keeps_its_number():
    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, PLAY_VIEW)  # everyone has taken 2 turns: the third orbit of six
        text = screen_text(app)
        assert "Round 3" in text and "turn 3 of 6" in text
        assert "▶1 Ann" in text and "│ 2 [bold red]x[/]" in text


async def test_an_empty_discard_pile_is_not_drawn_as_a_card_back():
    app = make_app(ascii=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, {**OTHERS_TURN, "discard_pile": []})
        lines = screen_text(app).splitlines()
        top = next(i for i, line in enumerate(lines) if "Stock" in line[:26])  # (a long top bar takes two lines)
        pile = [line[:26] for line in lines[top:top + 5]]
        assert sum(line.count("####") for line in pile) == 2  # the stock's back only (two rows of pattern)
        assert "Pile" in pile[0]


async def test_notifications_stay_off_the_hand():
    from textual.widgets._toast import Toast

    from client.games.down_and_back.widgets import HandView
    from client.widgets.table import Prompt

    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await feed(pilot, PLAY_VIEW)
        app.notify("Cards sorted by rank", timeout=5)
        toast = await wait_for(pilot, lambda: list(app.screen.query(Toast)), what="a toast")
        await pilot.pause()
        hand = app.table_screen.query_one(HandView).region
        prompt = app.table_screen.query_one(Prompt).region
        assert not toast[0].region.overlaps(hand) and not toast[0].region.overlaps(prompt)


async def test_the_helper_is_warmed_in_the_background_at_start(monkeypatch):
    import threading

    import engine.games.down_and_back.tables

    warmed: list[str] = []
    monkeypatch.setattr(engine.games.down_and_back.tables, "warm_up", lambda *a, **k: warmed.append(threading.current_thread().name))
    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, PLAY_VIEW)
        await wait_for(pilot, lambda: warmed, what="the helper's tables built")
        assert warmed[0] != threading.main_thread().name  # off the event loop's thread


async def test_the_bell_rings_when_a_decision_becomes_yours_and_the_choice_is_remembered(tmp_path):
    from client.app import DabApp
    from client.config import ClientConfig
    from client.render import Display

    config = ClientConfig.load(tmp_path)
    assert config.bell  # on by default
    app = DabApp(display=Display(), frozen_clock=True, player_name="Ann", config=config)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, OTHERS_TURN)
        assert app.alerts == []
        my_draw = {**OTHERS_TURN, "turn": 0, "to_act": [0], "legal": [{"kind": "take_stock"}]}
        await feed(pilot, my_draw)
        def rings(alert: str) -> bool:  # a bell, not an OSC's own BEL terminator
            return "\a" in re.sub(r"\x1b\][^\x07]*\x07", "", alert)

        assert len(app.alerts) == 1 and rings(app.alerts[0])
        assert "\x1b]9;" not in app.alerts[0] and "\x1b]777;" not in app.alerts[0]  # no desktop notification
        await feed(pilot, {**my_draw, "deadline_ms": 30000})  # the same decision again: no second ring
        await feed(pilot, PLAY_VIEW)  # our discard follows our draw: still the same turn
        assert len(app.alerts) == 1
        await pilot.press("n")  # off, and remembered
        await feed(pilot, OTHERS_TURN)
        await feed(pilot, my_draw)
        assert len(app.alerts) == 2 and not rings(app.alerts[1])  # the title still says so; no bell
    assert ClientConfig.load(tmp_path).bell is False


def test_desktop_notifications_only_where_the_terminal_is_known():
    from client.app import desktop_notification

    assert desktop_notification("Down and Back", "your turn", {"TERM": "xterm-256color"}) == ""
    assert desktop_notification("D", "t", {"TERM_PROGRAM": "iTerm.app"}) == "\x1b]9;D: t\x07"
    assert desktop_notification("D", "t", {"TERM": "xterm-kitty"}).startswith("\x1b]99;")
    assert desktop_notification("D", "t", {"VTE_VERSION": "7200"}) == "\x1b]777;notify;D;t\x07"


async def test_the_showdown_and_its_result_show_in_the_board_not_as_screens():
    """Issue 12 item 13: a pushed screen is painted whole, and the table whole again when it closes (the
    showdown-opening turn wrote ~17-30 KB); shown in the board, the top bar, the seats and the footer stay."""
    from test_client_snapshots import RESULT, SHOWDOWN_VIEW

    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, SHOWDOWN_VIEW)
        stack = list(app.screen_stack)
        text = await wait_for(pilot, lambda: screen_name(app) == "SplitPanel" and "Going down (4)" in screen_text(app)
                              and screen_text(app), what="arrangement open")
        assert app.screen_stack == stack and app.screen is app.table_screen
        assert "Round 3" in text and "Bert (bot)" in text  # the top bar and the seats stay
        app.receive(m.Event(table_id="t1", events=(copy.deepcopy(RESULT),)))
        await wait_for(pilot, lambda: screen_name(app) == "RevealPanel" and "Round 3 showdown" in screen_text(app),
                       what="the reveal")
        assert app.screen_stack == stack
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "TableScreen", what="reveal closed")
        await pilot.press("v")  # the last showdown again, in the board too
        await wait_for(pilot, lambda: screen_name(app) == "RevealPanel", what="the reveal again")
        assert app.screen_stack == stack


async def test_the_helper_shows_the_meter_once_the_board_has_built_it():
    """The board builds the win-both meter in a thread after its first paint; from then on the helper's
    figure is the meter's for the recommended split against the opponents in the round."""
    from engine.cards import parse_cards
    from engine.games.down_and_back import meter
    from engine.games.down_and_back.splits import best_split

    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, OTHERS_TURN)
        await pilot.press("h")
        await wait_for(pilot, lambda: meter.is_warm(), what="the meter built by the board", timeout=30)
        option = best_split(parse_cards(SEVEN))
        opponents = sum(1 for p in OTHERS_TURN["players"] if p["in_round"]) - 1
        figure = f"{meter.win_both_meter(option.down, option.back, opponents):.0%}"
        helper = app.table_screen.query_one(HandHelper)
        helper.refresh()
        await wait_for(pilot, lambda: figure in screen_text(app), what=f"the meter's {figure}")


async def test_the_showdown_opening_view_writes_its_panel_once(monkeypatch):
    """Issue 12 item 13: the view that opens the showdown wrote ~14 KB at 80x24 (15-21 KB in bench_client.py):
    the table was hidden before the panel was mounted (its rows painted blank), the board's rows were painted
    again as the panel arrived, took its size and the keyboard, and the focus move repainted the whole screen.
    Now: the seats and the top bar's changes, the panel once, the footer's keys."""
    from textual.strip import Strip

    from client.terminal import compact_render
    from test_client_snapshots import SHOWDOWN_VIEW

    monkeypatch.setattr(Strip, "render", compact_render)  # as the client writes to a terminal
    app = make_app(ascii=False)
    written: list[int] = []

    def display(screen, renderable) -> None:  # what App._display would write to a terminal
        if renderable is not None and not app._batch_count:
            written.append(len(renderable.render_segments(app.console).encode()))

    async with app.run_test(size=(80, 24)) as pilot:
        app._display = display  # type: ignore[method-assign]
        await feed(pilot, {**PLAY_VIEW, "hand": SHOWDOWN_VIEW["hand"], "legal": [], "turn": 3, "to_act": [3]})
        await pilot.pause(0.05)
        written.clear()
        app.receive(view_push("t1", copy.deepcopy(SHOWDOWN_VIEW)))
        await wait_for(pilot, lambda: screen_name(app) == "SplitPanel" and "Going down (4)" in screen_text(app),
                       what="arrangement open")
        await pilot.pause(0.1)
        assert app.table_screen.board.panel.has_focus
    assert 2_000 < sum(written) < 7_000, written


async def test_the_footer_is_rebuilt_only_when_its_keys_change(monkeypatch):
    """Textual's footer rebuilds its keys, and repaints, on every change of the bindings (~0.4 KB each)."""
    from client.widgets.basics import KeysFooter

    composed: list[int] = []
    compose = KeysFooter.compose
    monkeypatch.setattr(KeysFooter, "compose", lambda self: (composed.append(1), (yield from compose(self)))[1])
    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, OTHERS_TURN)
        await pilot.pause(0.05)
        before = len(composed)
        for _ in range(3):
            app.table_screen.refresh_bindings()
            await pilot.pause(0.02)
        assert len(composed) == before
        await feed(pilot, PLAY_VIEW)  # our discard: other keys
        await wait_for(pilot, lambda: len(composed) > before, what="the footer rebuilt")
        assert "Throw" in screen_text(app).splitlines()[-1]


async def test_painting_held_for_a_panel_resumes_when_its_table_goes():
    """A panel moving in holds the painting until its repaints have reached the screen; if the table goes
    meanwhile (we left, a rematch's table replaced it), what comes on top must still be painted."""
    from test_client_snapshots import SHOWDOWN_VIEW

    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, SHOWDOWN_VIEW)
        await wait_for(pilot, lambda: screen_name(app) == "SplitPanel", what="arrangement shown")
        board, screen = app.table_screen.board, app.table_screen
        assert app._batch_count == 0 and screen._display_held == 0
        board._hold_painting(batch=False)  # as a panel opening does: the table screen's painting
        assert app._batch_count == 0 and screen._display_held == 1
        app._back_to_lobby()
        await wait_for(pilot, lambda: not board.showing, what="the table gone")
        board._shown(board.panel)
        assert app._batch_count == 0 and screen._display_held == 0
        board._hold_painting(batch=True)  # as a panel moving in does: all of it, in one batch
        assert app._batch_count == 1 and screen._display_held == 0
        board._shown(board.panel)
        assert app._batch_count == 0


async def test_the_view_that_opens_a_panel_does_not_paint_the_table_under_it():
    """Bandwidth (issue 12 item 13): the view that opens the showdown changed the table under the panel (the
    hand, the log, the prompt), and that frame went out before the panel covered it: ~2.5 KB of the
    showdown-opening turn. Now the table's changes under the panel are never painted, only the panel."""
    from textual._compositor import ChopsUpdate, LayoutUpdate

    from test_client_snapshots import SHOWDOWN_VIEW

    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, PLAY_VIEW)
        board = app.table_screen.board
        painted: list[str] = []
        display = app._display

        def kept(screen: Any, update: Any) -> None:
            if isinstance(update, ChopsUpdate):
                painted.extend(strip.text for line in update.chops for strip in line.values() if strip is not None)
            elif isinstance(update, LayoutUpdate):
                painted.extend(strip.text for strips in update.strips for strip in strips)
            display(screen, update)

        app._display = kept  # type: ignore[method-assign]
        app.receive(view_push("t1", copy.deepcopy(SHOWDOWN_VIEW)))
        await wait_for(pilot, lambda: board.shown_panel is not None, what="the arrangement shown")
        await pilot.pause()
        text = "\n".join(painted)
        assert "Showdown: arrange your cards" in text  # the panel
        assert "Split your cards" not in text  # the table's prompt under it, for this view
