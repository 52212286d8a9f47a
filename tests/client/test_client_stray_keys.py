"""No key does what the player did not mean (issue 27 items 2, 3, 4 and 15), offline at 80x24.

Views are fed as the server sends them. Each test names the item it shows; every one of them failed
on the main before the fix (a letter typed in chat reached a game key, ``c`` did nothing over a panel,
the result panel stayed into the next round, keys died after "Terminal too small", the new-table form
lost its place).
"""

from __future__ import annotations

import copy
import string
from typing import Any

import pytest
from textual import events
from textual.keys import _character_to_key
from textual.binding import Binding
from textual.widgets import Input

from cribbage_views import after_show, laying_away, push as crib_push
from protocol import messages as m
from test_client_snapshots import PLAY_VIEW, RESULT, SHOWDOWN_VIEW, make_app, player
from tui_helpers import screen_name, screen_text, table_ready, view_push, wait_for

from client.app import DabApp
from client.games.down_and_back.widgets import HandView

TYPED = "brb, making tea! nice hand: 2 + 3 - 1 = 4; d s a e k r u h v y n b x g l m q 1 8 #@?"
PRINTABLE = "".join(c for c in string.printable if c.isprintable())  # every key a player can type as text

WAITING = {**PLAY_VIEW, "phase": "waiting", "legal": [], "to_act": [], "turn": None, "step": None,
           "deadline_ms": None, "hand": SHOWDOWN_VIEW["hand"]}
CUTTING = {**PLAY_VIEW, "phase": "cut", "round": 4, "hand": [], "legal": [{"kind": "cut", "min": 4, "max": 48}],
           "turn": None, "step": None, "to_act": [0], "cutter": 0, "round_discards": [], "deadline_ms": 20000}
NEXT_ROUND = {**PLAY_VIEW, "round": 4, "legal": [], "turn": 1, "step": "draw", "to_act": [1],
              "hand": ["QH", "9D", "8C", "6S", "5S", "4D", "3H"], "round_discards": []}
OVER = {**WAITING, "phase": "over", "standings": [{"seat": 0, "name": "Ann", "stack": 1200, "brought": 1000},
                                                   {"seat": 2, "name": "Bert (bot)", "stack": 800, "brought": 1000}],
        "table": {**PLAY_VIEW["table"], "state": "finished"}}


def away(view: dict[str, Any]) -> dict[str, Any]:
    """``view`` for Ann sitting out (her seat played for her)."""
    return {**view, "players": [player(0, "Ann", 970, len(view["hand"]), away=True), *view["players"][1:]]}


async def feed(pilot, view: dict[str, Any], events: list[dict[str, Any]] = ()) -> None:  # type: ignore[assignment]
    app = pilot.app
    app.receive(view_push("t1", copy.deepcopy(view)))
    await wait_for(pilot, lambda: table_ready(app) and app.table_screen.game is not None
                   and app.table_screen.game.get("round") == view["round"]
                   and app.table_screen.game.get("phase") == view["phase"], what=f"the {view['phase']} view")
    if events:
        app.receive(m.Event(table_id="t1", events=tuple(copy.deepcopy(events))))
    await pilot.pause()


def sent(app: DabApp) -> list[tuple[Any, dict[str, Any]]]:
    return list(app.requests_sent)


def chats(app: DabApp) -> list[str]:
    return [fields["text"] for kind, fields in app.requests_sent if kind is m.Chat]


def focused_input(app: DabApp) -> Input | None:
    focused = app.screen.focused
    return focused if isinstance(focused, Input) else None


async def settled(pilot) -> str:
    """The screen once it has stopped changing (a panel is painted a few frames after it is shown)."""
    app = pilot.app
    last = None
    for _ in range(200):
        await pilot.pause()
        text = screen_text(app)
        if text == last:
            return text
        last = text
    raise AssertionError(f"the screen never settled\n{last}")


async def reach(pilot, state: str) -> str:
    """Bring the offline app to ``state``; return the name of what is shown on top then."""
    app = pilot.app
    if state == "play":
        await feed(pilot, PLAY_VIEW)
        return "TableScreen"
    if state == "reveal":
        await feed(pilot, WAITING, [RESULT])
        return await wait_for(pilot, lambda: screen_name(app) == "RevealPanel" and "RevealPanel")
    if state == "split":
        await feed(pilot, SHOWDOWN_VIEW)
        return await wait_for(pilot, lambda: screen_name(app) == "SplitPanel" and "SplitPanel")
    if state == "cut":
        await feed(pilot, CUTTING)
        return await wait_for(pilot, lambda: screen_name(app) == "CutScreen" and "CutScreen")
    if state == "confirm":
        await feed(pilot, PLAY_VIEW)
        await pilot.press("a")  # sit out mid-round: asks first
        return await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen" and "ConfirmScreen")
    if state == "menu":
        await feed(pilot, PLAY_VIEW)
        await pilot.press("m")
        return await wait_for(pilot, lambda: screen_name(app) == "MenuScreen" and "MenuScreen")
    if state == "game over":
        await feed(pilot, OVER)
        return await wait_for(pilot, lambda: screen_name(app) == "GameOverScreen" and "GameOverScreen")
    if state == "cribbage show":
        app.receive(crib_push(after_show()))
        await wait_for(pilot, lambda: table_ready(app), what="the table")
        await pilot.press("v")
        return await wait_for(pilot, lambda: screen_name(app) == "ShowPanel" and "ShowPanel")
    if state in ("waiting room", "bot level"):
        app.receive(waiting_room())
        await wait_for(pilot, lambda: table_ready(app), what="the waiting room")
        if state == "waiting room":
            return "TableScreen"
        await pilot.press("B")  # the host asks for a bot of a chosen level
        return await wait_for(pilot, lambda: screen_name(app) == "LevelScreen" and "LevelScreen")
    if state == "cribbage laying away":
        app.receive(crib_push(laying_away()))
        await wait_for(pilot, lambda: table_ready(app), what="the table")
        return "TableScreen"
    raise ValueError(state)


STATES = ["waiting room", "bot level", "play", "reveal", "split", "cut", "confirm", "menu", "game over",
          "cribbage show", "cribbage laying away"]


def waiting_room() -> m.View:
    """A Cribbage table of three seats before its game: Ann (hosting) and a bot; a seat free for another."""
    from cribbage_views import table_map

    table = table_map(0, {"target": 121, "stake": 100}, state="waiting")
    table["settings"]["seats"] = 3
    return m.View(table_id="t1", table=table, game=None, decision=None, deadline_ms=None)


@pytest.mark.parametrize("state", STATES)
async def test_c_chats_from_every_table_state_and_typing_reaches_no_game_key(state):
    """Item 2: ``c`` chats from every table state, every panel and every dialog over the table included
    (over a panel or a dialog in the chat dialog, which leaves them in view); every printable key typed
    then is the line's: nothing is sent, nothing opens or closes, until Enter sends the line as chat."""
    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        shown = await reach(pilot, state)
        before = sent(app)
        await pilot.press("c")
        line = await wait_for(pilot, lambda: focused_input(app), what="a chat line with the keyboard")
        over = state not in ("waiting room", "play", "cribbage laying away")
        assert (type(app.screen).__name__ == "ChatScreen") == over
        if over:
            assert "Chat to the table" in screen_text(app)
        typed = PRINTABLE + (TYPED if state == "play" else "")  # every key once; the long line (cut at 200) once
        for char in typed:  # queued as from a fast typist: each is handled after the one before, as typed
            app.post_message(events.Key(_character_to_key(char), char))
        await wait_for(pilot, lambda: line.value == typed[:200] or not line.has_focus, what="every letter in the line")
        assert line.value == typed[:200]
        assert sent(app) == before  # not a game action, not a sit out, not a bell: nothing
        await pilot.press("enter")
        await wait_for(pilot, lambda: chats(app), what="the line sent")
        assert chats(app) == [typed[:200].strip()]
        assert [kind for kind, _ in sent(app)[len(before):]] == [m.Chat]
        await wait_for(pilot, lambda: screen_name(app) == shown, what=f"back to the {shown}")
        assert focused_input(app) is None


@pytest.mark.parametrize("state", ["play", "reveal", "cut"])
async def test_keys_typed_right_after_c_are_the_lines(state):
    """Item 2: "c" and the line in one go (a fast typist, or keys that arrive in one read): no letter goes
    to the table before the chat line has the keyboard (``h`` toggled the helper, ``r`` cut at random)."""
    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        shown = await reach(pilot, state)
        text = await settled(pilot)
        for char in "chi there, brb":  # all queued before the first is handled, as from one read
            app.post_message(events.Key(_character_to_key(char), char))
        line = await wait_for(pilot, lambda: focused_input(app), what="the chat line")
        await wait_for(pilot, lambda: line.value == "hi there, brb", what="every letter in the line")
        assert sent(app) == []
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == shown and screen_text(app) == text, what=f"the {shown} again")
        assert sent(app) == []


# The keys a panel with the keyboard lets through: its own, chat, the menu, help, quit.
THROUGH = {"c", "m", "f1", "question_mark", "ctrl+q"}


def table_keys(app: DabApp) -> list[str]:
    """Every key bound at the table (the table's, the board's, the app's), each once."""
    table = app.table_screen
    keys: list[str] = []
    for node in (table, table.board, app):
        for binding in node.BINDINGS:
            if isinstance(binding, Binding):
                for key in binding.key.split(","):
                    if key not in keys:
                        keys.append(key)
    return keys


@pytest.mark.parametrize("state", ["reveal", "split", "cribbage show"])
async def test_a_panel_with_the_keyboard_lets_no_table_key_act(state):
    """Item 2: while a panel has the keyboard, a key that would act on the game or the table (the result
    panel's ``a`` sat the player out, ``n`` rang the bell off) does nothing: the screen stays as it was and
    nothing is sent. Every key bound at the table is tried, not only the two reported."""
    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await reach(pilot, state)
        panel = app.table_screen.board.panel
        own = {key for binding in panel.BINDINGS for key in binding.key.split(",")}
        marker = {"reveal": "Round 3 showdown", "split": "Showdown: arrange", "cribbage show": "The show"}[state]
        await wait_for(pilot, lambda: marker in screen_text(app), what="the panel painted")
        before, text, bell = sent(app), await settled(pilot), app.config.bell
        tried = [key for key in table_keys(app) if key not in own | THROUGH]
        assert {"a", "n", "l", "E", "H"} <= set(tried)
        for key in tried:
            await pilot.press(key)
            await pilot.pause()
            assert screen_name(app) == type(panel).__name__, f"{key!r} left the panel"
            assert app.table_screen.board.panel is panel, f"{key!r} closed the panel"
            assert sent(app) == before, f"{key!r} sent {sent(app)[len(before):]}"
            assert screen_text(app) == text, f"{key!r} changed the screen"
        assert app.config.bell == bell


async def test_a_panel_or_a_cut_that_comes_while_typing_waits_for_the_line():
    """Item 2: the showdown's result (a panel) and the next cut (a dialog) arrive while the player types
    "brb, making tea": neither takes the keyboard, so no letter reaches them or the table (``a`` sat out,
    ``r`` cut at random); they open once the line is sent."""
    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, {**SHOWDOWN_VIEW, "legal": [], "to_act": [2]})
        await pilot.press("c")
        line = await wait_for(pilot, lambda: focused_input(app), what="the chat line")
        await pilot.press("b", "r", "b")
        app.receive(m.Event(table_id="t1", events=(copy.deepcopy(RESULT),)))
        app.receive(view_push("t1", copy.deepcopy(WAITING)))
        await pilot.pause()
        await pilot.press(",", "space", "m", "a", "k", "i", "n", "g")
        app.receive(view_push("t1", copy.deepcopy(CUTTING)))
        await pilot.pause()
        await pilot.press("space", "t", "e", "a", "space", "r", "r")
        assert line.value == "brb, making tea rr" and app.screen.focused is line
        assert screen_name(app) == "TableScreen"  # neither the result nor the cut took the keyboard
        assert sent(app) == []
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(app) == "CutScreen", what="the cut, once the line is sent")
        assert [kind for kind, _ in sent(app)] == [m.Chat] and chats(app) == ["brb, making tea rr"]


async def test_the_result_panel_closes_by_itself_when_the_next_round_comes():
    """Item 3: a player sitting out (no decision of theirs closes it) sees the showdown's result, and then
    the next round: the panel closes when its first view comes, and the next key acts on the table (it is
    not eaten by a panel still up: ``a`` brings the player back)."""
    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, away(WAITING), [RESULT])
        await wait_for(pilot, lambda: screen_name(app) == "RevealPanel", what="the result")
        await feed(pilot, away(NEXT_ROUND))
        await wait_for(pilot, lambda: screen_name(app) == "TableScreen", what="the result closed by itself")
        assert "Round 4" in screen_text(app) and "Round 3 showdown" not in screen_text(app)
        await pilot.press("a")
        await wait_for(pilot, lambda: (m.SitOut, {"away": False}) in sent(app), what="the next key acting")
        await pilot.press("v")  # the last showdown again, on demand: it stays until the round after
        await wait_for(pilot, lambda: screen_name(app) == "RevealPanel", what="the showdown again")
        await feed(pilot, {**away(NEXT_ROUND), "turn": 2, "to_act": [2]})
        assert screen_name(app) == "RevealPanel"


@pytest.mark.parametrize("between", ["nothing", "the next round"])
async def test_a_result_right_after_another_replaces_it(between):
    """Item 3: a result panel closed (by the next one, or by the next round's view) is removed a little
    later; a result arriving meanwhile (a sat-out player's fast rounds, a busy client) replaces it: the
    new panel, once the old one has gone, shows with the keyboard (the client failed: two widgets "reveal")."""
    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, away(WAITING))
        later = {**RESULT, "round": 4}
        app.receive(m.Event(table_id="t1", events=(copy.deepcopy(RESULT),)))
        if between == "the next round":
            app.receive(view_push("t1", copy.deepcopy(away(NEXT_ROUND))))
        app.receive(m.Event(table_id="t1", events=(copy.deepcopy(later),)))
        await wait_for(pilot, lambda: screen_name(app) == "RevealPanel", what="the last result")
        await settled(pilot)
        assert screen_name(app) == "RevealPanel" and len(app.table_screen.board.query("RevealPanel")) == 1
        assert "Round 4 showdown" in screen_text(app) and "Round 3 showdown" not in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "TableScreen", what="the result closed")


async def test_cribbages_show_closes_by_itself_when_the_next_deal_comes():
    """Item 3, for Cribbage: the show panel goes once the next deal's first view comes."""
    from cribbage_views import play_until

    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await reach(pilot, "cribbage show")
        shown = after_show()
        nxt = play_until(lambda v: v["round"] == shown["round"] + 1 and v["phase"] == "discard")
        nxt.update(legal=[], to_act=[1])  # Ann has laid away: no decision of hers closes the show
        app.receive(crib_push(nxt))
        await wait_for(pilot, lambda: screen_name(app) == "TableScreen", what="the show closed by itself")


async def test_keys_work_again_after_the_terminal_was_too_small():
    """Item 4: shrink below 80x24 (no key acts meanwhile but ctrl+q) and grow back: the keyboard is where it
    was: on the hand (1 then Enter throws), in the chat line (typing goes on), on a panel (Enter confirms)."""
    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, PLAY_VIEW)
        await pilot.resize_terminal(70, 20)
        await wait_for(pilot, lambda: "Terminal too small" in screen_text(app), what="too small")
        await pilot.press("1", "enter", "a", "c")
        await wait_for(pilot, lambda: "Keys do nothing until then (4 ignored)" in screen_text(app), what="said so")
        assert sent(app) == [] and screen_name(app) == "TableScreen"
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: "Terminal too small" not in screen_text(app), what="the table again")
        await pilot.press("1", "enter")
        await wait_for(pilot, lambda: sent(app), what="the throw")
        first = app.table_screen.board.query_one(HandView).shown[0]
        assert sent(app) == [(m.Act, {"action": {"kind": "discard", "card": first}})]

        await feed(pilot, {**PLAY_VIEW, "round": 5})
        await pilot.press("c", "h", "i")
        await pilot.resize_terminal(79, 24)
        await wait_for(pilot, lambda: "Terminal too small" in screen_text(app), what="too small")
        await pilot.resize_terminal(100, 30)
        await wait_for(pilot, lambda: "Terminal too small" not in screen_text(app), what="the table again")
        await pilot.press("space", "a", "l", "l", "enter")
        await wait_for(pilot, lambda: chats(app), what="the chat line")
        assert chats(app) == ["hi all"]

        await feed(pilot, {**SHOWDOWN_VIEW, "round": 6})
        await wait_for(pilot, lambda: screen_name(app) == "SplitPanel", what="the split")
        await pilot.resize_terminal(80, 23)
        await wait_for(pilot, lambda: "Terminal too small" in screen_text(app), what="too small")
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: "Terminal too small" not in screen_text(app), what="the split again")
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(f.get("action", {}).get("kind") == "split" for _, f in sent(app)),
                       what="the split confirmed")


async def test_the_new_table_form_keeps_the_keyboard_on_the_game_just_chosen():
    """Item 15: choosing another game makes the form again with that game's fields; the keyboard stays on
    the game's choice (it went to the name at the top), so Tab goes on to the field after it."""
    from client.screens.lobby import CreateTableScreen

    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        form = CreateTableScreen("Ann")
        app.push_screen(form)
        await wait_for(pilot, lambda: app.screen is form and form.query("#game"), what="the form")
        await pilot.press("tab")  # from the name to the game
        await wait_for(pilot, lambda: form.focused is not None and form.focused.id == "game", what="on the game")
        await pilot.press("enter", "down", "enter")  # open the list, Cribbage, choose it
        await wait_for(pilot, lambda: form.game == "cribbage" and form.query("#stake"), what="Cribbage's fields")
        await pilot.pause()
        assert form.focused is not None and form.focused.id == "game"
        await pilot.press("tab")
        await wait_for(pilot, lambda: form.focused is not None and form.focused.id == "stake", what="the stake")


async def test_a_show_never_opens_over_the_decision_that_came_with_it():
    """Item 2 (found by the evening test): under muggins, a claim's event and then the view asking us whether
    to take what it missed came together; the show opened a frame later, over that decision, and took the
    keys meant for it (``n`` let nothing go). The show now waits for ``v``; ``n`` answers."""
    from cribbage_views import deciding_muggins, play_until

    view = deciding_muggins()
    claim = next(e for e in play_until(lambda v: any(e.get("kind") == "claim" for e in v["log"]),
                                       rules={"muggins": True})["log"] if e.get("kind") == "claim")
    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        app.receive(crib_push({**view, "legal": [], "to_act": [1]}))
        await wait_for(pilot, lambda: table_ready(app), what="the table")
        app.receive(m.Event(table_id="t1", events=({**claim, "seat": 1, "claimed": 0},)))
        app.receive(crib_push(view))  # (before the events were drawn)
        await wait_for(pilot, lambda: "short!" in screen_text(app), what="the muggins decision")
        await settled(pilot)
        assert screen_name(app) == "TableScreen" and app.table_screen.board.panel is None
        await pilot.press("n")
        await wait_for(pilot, lambda: sent(app), what="the answer")
        assert sent(app) == [(m.Act, {"action": {"kind": "muggins", "take": False}})]
