"""User text (names, chat, table names) is shown literally on every other player's screen."""

from __future__ import annotations

from protocol import messages as m
from tui_helpers import screen_text, table_ready, view_push, wait_for

from client.app import DabApp
from client.widgets.table import SeatPanel

NASTY = ["[bold red]x[/]", "[@click=app.quit]y[/]", "\x1b[31mz"]


def raw_output(app: DabApp) -> str:
    """Every character the screen would send, styles aside (escape codes included)."""
    return "".join(segment.text for strip in app.screen._compositor.render_strips() for segment in strip)


async def test_nasty_names_and_chat_are_literal_on_other_screens(make_app, connect):
    ann, dave, eve = make_app("Ann"), make_app("Dave"), make_app("Eve")
    async with (ann.run_test(size=(80, 24)) as pilot, dave.run_test(size=(80, 24)) as dave_pilot,
                eve.run_test(size=(80, 24)) as eve_pilot):
        await wait_for(pilot, lambda: ann.connection_state == "connected" and ann.lobby.is_mounted)
        await pilot.press("n")
        await wait_for(pilot, lambda: type(ann.screen).__name__ == "CreateTableScreen")
        from textual.widgets import Input

        ann.screen.query_one("#name", Input).value = "[b]Bold[/b] [@click=app.quit]t[/]"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: table_ready(ann))
        clients = [connect(name) for name in NASTY]
        for client in clients:
            await client.__aenter__()
            await client.request(m.Join, table_id=ann.table_id)
        try:
            await wait_for(dave_pilot, lambda: "[b]Bold[/b] [@cl" in screen_text(dave), what="table name in lobby")
            await dave_pilot.press("enter")
            await wait_for(dave_pilot, lambda: table_ready(dave) and len(dave.view["table"]["members"]) == 5)
            await wait_for(pilot, lambda: len(ann.view["table"]["members"]) == 5)
            await clients[1].request(m.Chat, text="[reverse]boo[/] \x1b[2J")
            cleaned = [m["name"] for m in ann.view["table"]["members"]][1:4]
            assert cleaned[:2] == NASTY[:2] and "\x1b" not in cleaned[2]  # the server drops control characters
            for app, p in ((ann, pilot), (dave, dave_pilot)):
                await wait_for(p, lambda app=app: "boo" in screen_text(app), what="chat line")
                text = screen_text(app)
                seats = [panel.render().plain.replace("\n", "") for panel in app.table_screen.query(SeatPanel)]
                assert seats[1].startswith("2 [bold red]x[/]")  # in full, over two lines if need be
                assert seats[2].startswith("3 [@click=app.quit]y[/]")
                assert "2 [bold red]x" in text and "3 [@click=app" in text  # as drawn
                assert f"4 {cleaned[2]}" in text
                assert "[@click=app.quit]y[/]: [reverse]boo[/]" in text  # the chat line
                assert "\x1b" not in raw_output(app)
                assert "[b]Bold[/b] [@click=app.quit]t[/]" in text  # the table name, top left
            # Eve, in the lobby, sees the table's name and players literally too.
            await wait_for(eve_pilot, lambda: "[b]Bold[/b] [@cl" in screen_text(eve))
            assert "\x1b" not in raw_output(eve)
        finally:
            for client in clients:
                await client.__aexit__(None, None, None)


async def test_markup_and_escapes_in_a_view_render_literally_offline():
    """Even if a server did not clean names, the client shows them as text: no markup, no escapes."""
    from client.render import Display

    view = {
        "seat": 0, "phase": "lobby", "players": [
            {"seat": 0, "name": "Ann", "stack": 1000, "bot": False, "connected": True},
            {"seat": 1, "name": "[@click=app.quit]y[/]", "stack": 1000, "bot": False, "connected": True},
            {"seat": 2, "name": "\x1b[31mz\x07", "stack": 1000, "bot": False, "connected": True},
        ],
        "legal": [], "to_act": [],
        "table": {"table_id": "t1", "name": "[blink]T[/]", "state": "waiting", "host_seat": 0, "seats": 3,
                  "spectators": 0, "private": False},
        "deadline_ms": None,
    }
    app = DabApp(display=Display(), player_name="Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        app.receive(view_push("t1", view))
        app.receive(m.ChatMessage(table_id="t1", seat=2, name="\x1b[31mz", text="\x1b]0;pwned\x07[b]hi[/b]", ts=1))
        await wait_for(pilot, lambda: table_ready(app) and "hi[/b]" in screen_text(app))
        text = screen_text(app)
        assert "[@click=app.quit]y[/]" in text and "[blink]T[/]" in text and "[b]hi[/b]" in text
        assert "\x1b" not in raw_output(app) and "\x07" not in raw_output(app)
        await pilot.click("#seat-1")  # clicking the name does not run an action
        await pilot.pause()
        assert app.is_running and app.return_code is None


async def test_a_spectators_chat_is_marked_as_watching(make_app, connect):
    """A nil seat is a spectator or the server; "Server" is reserved, so the client can tell them apart."""
    app = make_app("Ann")
    async with app.run_test(size=(100, 30)) as pilot, connect("Vic") as vic:
        await wait_for(pilot, lambda: app.connection_state == "connected" and app.lobby.is_mounted)
        await pilot.press("q")
        await wait_for(pilot, lambda: table_ready(app), what="table")
        await vic.request(m.Watch, table_id=app.table_id)
        await vic.request(m.Chat, text="hello all")
        await wait_for(pilot, lambda: "Vic (watching): hello all" in screen_text(app), what="spectator's chat")
