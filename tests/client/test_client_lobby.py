"""Pilot tests of the lobby: list, create (with house rules and a private code), join, watch, quick-join."""

from __future__ import annotations

import contextlib
import time

import pytest
from textual.widgets import Checkbox, Input

from protocol import messages as m
from tui_helpers import screen_name, screen_text, table_ready, wait_for

WAIT_TABLE = 20.0  # seconds: the seed window (3 s) and a loaded machine


async def test_lobby_lists_tables_and_joins_watches_leaves(make_app, connect):
    async with connect("Carl") as carl:
        await carl.request(m.CreateTable, name="Carl's [b]den[/b]",
                           settings=m.TableSettings(seats=3, rules={"ante": 25, "stack": 500, "turns": 7, "early_call": True}))
        app = make_app("Ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: "Carl's [b]den[/b" in screen_text(app), what="table listed (literally)")
            text = screen_text(app)
            assert "1/3" in text and "Down and Back" in text and "waiting" in text
            assert "Carl's [b]den[/b]: Down and Back, ante 25, stack 500; 7 turns, early call" in text  # in words
            await wait_for(pilot, lambda: "10,000 chips" in screen_text(app), what="the balance shown")

            await pilot.press("enter")  # join the selected table
            await wait_for(pilot, lambda: table_ready(app) and app.view["table"]["seat"] is not None, what="seated")
            assert [m["name"] for m in app.view["table"]["members"]] == ["Carl", "Ann"]
            assert "Waiting for Carl" in screen_text(app)
            assert "ante 25, stack 500  7 turns, early call" in screen_text(app)

            await pilot.press("l")  # leave (no game yet: no question asked)
            await wait_for(pilot, lambda: screen_name(app) == "LobbyScreen" and app.table_screen is None)
            await carl.wait_for(lambda: len(carl.table["members"]) == 1)

            await pilot.press("w")  # watch it instead
            await wait_for(pilot, lambda: table_ready(app), what="watching")
            assert app.view["table"]["seat"] is None
            await carl.wait_for(lambda: carl.table["spectators"] == 1)
            assert "You are watching" in screen_text(app)
            await pilot.press("l")
            await wait_for(pilot, lambda: screen_name(app) == "LobbyScreen")


async def test_create_private_table_with_house_rules_and_join_by_code(make_app, server):
    server.lobby.config.seed = None  # no "UNFAIR: seeded" in the header: all 80 columns for the house rules
    ann, dave = make_app("Ann"), make_app("Dave")
    async with ann.run_test(size=(80, 24)) as pilot, dave.run_test(size=(80, 24)) as dave_pilot:
        await wait_for(pilot, lambda: ann.connection_state == "connected" and ann.lobby.is_mounted)
        await pilot.press("n")
        await wait_for(pilot, lambda: screen_name(ann) == "CreateTableScreen")
        form = ann.screen
        form.query_one("#name", Input).value = "High rollers"
        form.query_one("#ante", Input).value = "20"
        form.query_one("#stack", Input).value = "5"
        await pilot.press("ctrl+s")  # a stack below the ante is refused in the form
        await wait_for(pilot, lambda: "at least the ante" in screen_text(ann))
        form.query_one("#stack", Input).value = "500"
        form.query_one("#seats", Input).value = "3"
        form.query_one("#code", Input).value = "sesame"
        for box in ("#turns", "#early_call", "#no_take_back"):
            form.query_one(box, Checkbox).focus()
            await pilot.press("space")
        assert all(form.query_one(box, Checkbox).value for box in ("#turns", "#early_call", "#no_take_back"))
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: table_ready(ann), what="created")
        assert ann.view["table"]["settings"]["rules"] == {"ante": 20, "stack": 500, "turns": 7,
                                                          "early_call": True, "no_take_back": True}
        assert "High rollers" in screen_text(ann) and "7 turns, early call, no take-back" in screen_text(ann)
        assert ann.view["table"]["private"] and ann.view["table"]["settings"]["seats"] == 3
        assert ann.view["table"]["name"] == "High rollers"

        await wait_for(dave_pilot, lambda: "High rollers" in screen_text(dave), what="listed for Dave")
        await dave_pilot.press("enter")
        await wait_for(dave_pilot, lambda: screen_name(dave) == "CodeScreen", what="asked for the code")
        await dave_pilot.press(*"sesame", "enter")
        await wait_for(dave_pilot, lambda: table_ready(dave), what="Dave joined with the code")
        await wait_for(pilot, lambda: len(ann.view["table"]["members"]) == 2)


async def test_quick_join_and_host_controls(make_app, connect):
    async with connect("Carl") as carl:
        await carl.request(m.CreateTable, name="Open table")
        app = make_app("Ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: "Open table" in screen_text(app))
            await pilot.press("q")  # quick join takes the free seat
            await wait_for(pilot, lambda: table_ready(app) and app.view["table"]["seat"] == 1)
            await pilot.press("b", "g")  # not the host: nothing happens
            await pilot.pause()
            assert not any(kind in (m.AddBot, m.Start) for kind, _ in app.requests_sent)
            await carl.request(m.AddBot)
            await wait_for(pilot, lambda: "Ada (bot)" in screen_text(app))
            await carl.request(m.Start)
            await wait_for(pilot, lambda: app.view["game"] is not None)


async def test_the_lobby_names_each_tables_game(make_app, connect):
    async with connect("Carl") as carl, connect("Dora") as dora:
        await carl.request(m.CreateTable, name="pegs", settings=m.TableSettings(game="cribbage", seats=2,
                                                                                  rules={"stake": 100}))
        await dora.request(m.CreateTable, name="pub", settings=m.TableSettings(seats=3))
        app = make_app("Ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: "pegs" in screen_text(app) and "pub" in screen_text(app), what="listed")
            rows = {line.split()[1]: line for line in screen_text(app).splitlines() if line.split()[1:2] in
                    (["pegs"], ["pub"])}  # (after the table's id)
            assert "Cribbage" in rows["pegs"] and "100" not in rows["pegs"] and "Down and Back" in rows["pub"]
            assert "Game" in screen_text(app) and "Ante/stack" not in screen_text(app)
            assert "pegs: Cribbage, stake 100; " in screen_text(app)  # the selected table's numbers, named


async def test_b_asks_which_game_to_practise_the_last_one_first(make_app, connect):
    async with connect("Carl"):
        app = make_app("Ann")
        app.last_game = "cribbage"  # the game played last at a table here is offered first
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: "b practice against bots" in screen_text(app), what="the lobby")
            await pilot.press("b")
            await wait_for(pilot, lambda: screen_name(app) == "GameScreen", what="the question")
            assert "1 Down and Back" in screen_text(app) and "2 Cribbage (last played)" in screen_text(app)
            await pilot.press("escape")  # none after all
            await wait_for(pilot, lambda: screen_name(app) == "LobbyScreen")
            await pilot.press("b", "1")
            await wait_for(pilot, lambda: table_ready(app) and app.view["game"] is not None, what="dealt")
            assert app.view["table"]["settings"]["game"] == "down-and-back"


async def test_b_in_the_lobby_deals_a_practice_table_against_bots(make_app, connect):
    """A player with nothing but the lobby (a browser tab, an SSH session) practises with one key."""
    async with connect("Carl") as carl:
        app = make_app("Ann")
        app.config.practice_game = "cribbage"  # the game practised last is the one offered first
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: "b practice against bots" in screen_text(app), what="the lobby")
            await pilot.press("b", "b")  # (b again, or Enter: the game offered first)
            await wait_for(pilot, lambda: table_ready(app) and app.view["game"] is not None, what="dealt")
            table = app.view["table"]
            assert table["name"] == "Ann's practice" and table["settings"]["game"] == "cribbage"
            assert [member["bot"] for member in table["members"]] == [False, True]  # one against one
            await carl.wait_for(lambda: any(t.name == "Ann's practice" and t.state == "playing"
                                            for t in carl.tables))  # a real table of the server's, listed


async def test_ascii_mode_draws_the_lobby_and_a_game_in_ascii_only(make_app, connect):
    async with connect("Carl") as carl, connect("Dora") as dora:
        await carl.request(m.CreateTable, name="den", settings=m.TableSettings(seats=2, rules={"early_call": True}))
        await dora.request(m.CreateTable, name="club", private_code="sesame", settings=m.TableSettings(seats=2))
        app = make_app("Ann", ascii=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: "den" in screen_text(app) and "club" in screen_text(app), what="listed")
            lobby = screen_text(app)
            assert lobby.isascii(), sorted({c for c in lobby if not c.isascii()})
            await pilot.press("enter")  # join the first table, Carl's
            await wait_for(pilot, lambda: table_ready(app) and app.view["table"]["seat"] is not None, what="seated")
            await carl.request(m.Start)
            await wait_for(pilot, lambda: app.view["game"] is not None and "Ann" in screen_text(app), what="playing")
            table = screen_text(app)
            assert table.isascii(), sorted({c for c in table if not c.isascii()})


async def test_lobby_rough_edges_rules_in_words_players_privacy_and_checkboxes(make_app, connect):
    from client.screens.lobby import CreateTableScreen, OnOffBox

    async with connect("Bartholomew-Fitzwilliam ") as carl:
        await carl.request(m.CreateTable, name="club", private_code="sesame",
                           settings=m.TableSettings(seats=5, rules={"no_take_back": True}))
        app = make_app("Ann")
        async with contextlib.AsyncExitStack() as stack, app.run_test(size=(80, 24)) as pilot:
            for name in ("Dora", "Evangeline", "Florence"):
                other = await stack.enter_async_context(connect(name))
                await other.request(m.Join, table_id=carl.table["table_id"], private_code="sesame")
            text = await wait_for(pilot, lambda: "4/5" in screen_text(app) and "p Play now" in screen_text(app)
                                  and screen_text(app), what="listed, with the footer")
            assert "private" in text and "🔒" not in text  # said in words, not an emoji
            assert "no take-back" in text and "NTB" not in text
            row = next(line for line in text.splitlines() if "club" in line)
            assert "Bartholomew-… +3" in row  # the names that do not fit are counted
            assert "p Play now" in text and " q " not in text.splitlines()[-1]  # not beside ^q Quit

            await pilot.press("n")
            await wait_for(pilot, lambda: screen_name(app) == "CreateTableScreen")
            form = app.screen
            assert isinstance(form, CreateTableScreen)
            box = form.query_one("#turns", OnOffBox)
            await wait_for(pilot, lambda: "[ ] Seven turns" in screen_text(app), what="an unticked box reads off")
            box.value = True
            await wait_for(pilot, lambda: "[x] Seven turns" in screen_text(app), what="ticked box reads on")


def test_default_table_name_never_ends_the_name_with_a_space():
    from client.screens.lobby import default_table_name

    assert default_table_name("Ann") == "Ann's table"
    long = default_table_name("Bartholomew-Fitzwilliam Smythe-Featherstonehaugh")
    assert len(long) <= 40 and " 's" not in long and long.endswith("'s table")


async def _at_the_table(pilot, app) -> None:
    """Get to the table screen itself, past her cut of the round (making it if the game asks her for one).

    The deck is fixed only when the seed window closes, and the cutter is drawn from it, so whether the
    cut is hers is known only then: waiting for the table screen alone could return before her cut opens.
    """
    async def settled() -> bool:
        if screen_name(app) == "CutScreen":
            await pilot.press("r")
        view = app.view or {}
        game = view.get("game") or {}
        if game.get("phase") == "cut":  # past it only once the cutter is drawn and is someone else
            past_the_cut = game.get("cutter") is not None and game.get("cutter") != view["table"]["seat"]
        else:
            past_the_cut = game.get("phase") is not None
        return screen_name(app) == "TableScreen" and past_the_cut

    deadline = time.monotonic() + WAIT_TABLE
    while time.monotonic() < deadline:
        if await settled():
            return
        await pilot.pause(0.02)
    raise AssertionError(f"not at the table past the cut: {screen_name(app)}\n{screen_text(app)}")


async def test_leaving_a_running_game_then_joining_again_returns_you_to_your_seat(make_app, connect, server):
    """From the lobby, and from a restarted client: the seat held for you is yours, not a spectator's chair."""
    from client.app import DabApp
    from client.session import Session

    async with connect("Carl") as carl:
        await carl.request(m.CreateTable, name="den", settings=m.TableSettings(seats=3))
        app = make_app("Ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: "den" in screen_text(app), what="listed")
            await pilot.press("enter")
            await wait_for(pilot, lambda: table_ready(app) and app.view["table"]["seat"] == 1, what="seated")
            await carl.request(m.AddBot)
            await carl.request(m.Start)
            await wait_for(pilot, lambda: app.view["game"] is not None, what="playing")
            await _at_the_table(pilot, app)
            token = app.session.token
            await pilot.press("l")
            await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen", what="asked")
            await pilot.press("y")
            await wait_for(pilot, lambda: screen_name(app) == "LobbyScreen" and "playing" in screen_text(app),
                           what="back in the lobby")
            await pilot.press("enter")  # join the running table: her held seat
            await wait_for(pilot, lambda: table_ready(app) and app.view["table"]["seat"] == 1, what="back in her seat")
            assert not any(kind is m.Watch for kind, _ in app.requests_sent)
            await _at_the_table(pilot, app)
            await pilot.press("l")
            await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen", what="asked again")
            await pilot.press("y")
            await wait_for(pilot, lambda: screen_name(app) == "LobbyScreen", what="left again")
        # A new client process, with the token it kept: from its lobby, the same seat.
        again = DabApp(Session("127.0.0.1", server.port, "Ann", token), player_name="Ann")
        async with again.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: "den" in screen_text(again), what="listed after a restart")
            await pilot.press("enter")
            await wait_for(pilot, lambda: table_ready(again) and again.view["table"]["seat"] == 1, what="her seat again")
            table = server.lobby.tables[again.table_id]
            assert not table.seats[1].left and table.spectators == set()


@pytest.mark.parametrize("seats, seat, sent, said", [
    (2, None, [m.Join, m.Watch], "Every seat is taken"),  # no seat: says why and watches
    (3, 2, [m.Join], "dealt in from the next deal"),  # issue 12 item 7: a free seat is yours from the next deal
], ids=["full", "free-seat"])
async def test_joining_a_started_game_sits_in_or_says_why_and_watches(make_app, connect, seats, seat, sent, said):
    async with connect("Carl") as carl:
        await carl.request(m.CreateTable, name="den", settings=m.TableSettings(seats=seats))
        await carl.request(m.AddBot)
        await carl.request(m.Start)
        app = make_app("Ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: "playing" in screen_text(app), what="listed")
            await pilot.press("enter")
            await wait_for(pilot, lambda: table_ready(app) and app.view["table"]["seat"] == seat, what="at the table")
            assert [kind for kind, _ in app.requests_sent if kind in (m.Join, m.Watch)] == sent
            assert any(said in n.message for n in app._notifications)

def rows_key(table, value):
    return next(key for key in table.rows if key.value == value)


async def test_a_list_pushed_unchanged_rebuilds_no_row_and_a_changed_one_only_its_rows(make_app, connect):
    """A busy lobby is pushed the whole list over and over (issue 30): an unchanged list costs a comparison,
    a change the rows it changed; the rows are still in the server's order, the cursor on its table."""
    from textual.widgets import DataTable

    async with connect("Carl") as carl, connect("Dora") as dora, connect("Eve") as eve:
        await carl.request(m.CreateTable, name="first")
        await carl.request(m.AddBot)
        await carl.request(m.Start)  # playing: listed after the waiting tables
        await dora.request(m.CreateTable, name="second")
        app = make_app("Ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: "second" in screen_text(app), what="both tables listed")
            table = app.lobby.query_one(DataTable)
            assert [t["table_id"] for t in app.tables] == ["t2", "t1"]
            await pilot.press("down")  # the cursor on the playing table
            assert app.lobby.selected_id == "t1"
            rows = dict(table.rows)
            count = table._update_count

            app.receive(m.Tables(tables=tuple(m.TableSummary.from_wire(t) for t in app.tables)))
            await pilot.pause()
            assert table._update_count == count and dict(table.rows) == rows  # the same list: nothing done

            await eve.request(m.Join, table_id="t2")  # one row changes
            await wait_for(pilot, lambda: "Dora, Eve" in screen_text(app), what="the joined table's players")
            assert dict(table.rows) == rows  # the same rows, one cell updated in place
            assert app.lobby.selected_id == "t1"

            await eve.request(m.Leave)
            await eve.request(m.CreateTable, name="third")  # waiting: between the two
            await wait_for(pilot, lambda: "third" in screen_text(app), what="the new table")
            assert [t["table_id"] for t in app.tables] == ["t2", "t3", "t1"]
            assert [row.key.value for row in table.ordered_rows] == ["t2", "t3", "t1"]
            assert screen_text(app).index("second") < screen_text(app).index("third") < screen_text(app).index("first")
            assert table.rows[rows_key(table, "t1")] is rows[rows_key(table, "t1")]  # kept, not made again
            assert app.lobby.selected_id == "t1"  # the cursor still on its table


async def test_lists_pushed_faster_than_the_client_shows_them_are_shown_once_the_newest(monkeypatch):
    """A list waiting to be shown is replaced by a newer one (it is the whole state), not queued behind;
    but not across another message (a view after a list must still come after it)."""
    from client.app import DabApp
    from client.render import Display
    from client.screens.lobby import LobbyScreen

    shown = []
    fill = LobbyScreen._fill
    monkeypatch.setattr(LobbyScreen, "_fill", lambda self, tables: (shown.append(tables), fill(self, tables)))
    template = {"table_id": "t9", "name": "x", "title": "Down and Back", "host": "Carl", "seats": 5,
                "players": [], "settings": {"game": "down-and-back", "seats": 5, "rules": {}},
                "state": "waiting", "private": False, "spectators": 0}

    def pushed(name: str) -> m.Tables:
        return m.Tables(tables=(m.TableSummary.from_wire({**template, "name": name}),))

    app = DabApp(None, display=Display(), player_name="Ann")  # no server: these lists are all it is sent
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: "No tables yet" in screen_text(app), what="the empty lobby")
        shown.clear()
        for i in range(5):  # five lists in one go, as a busy client reads them
            app.receive(pushed(f"list {i}"))
        await wait_for(pilot, lambda: "list 4" in screen_text(app), what="the newest list")
        assert [[t["name"] for t in tables] for tables in shown] == [["list 4"]]

        shown.clear()  # a list, something else, a list: both lists shown, in order
        app.receive(pushed("before"))
        app.receive(m.Notice(kind="announcement", text="between", ts=0))
        app.receive(pushed("after"))
        await wait_for(pilot, lambda: "after" in screen_text(app), what="the last list")
        assert [[t["name"] for t in tables] for tables in shown] == [["before"], ["after"]]
