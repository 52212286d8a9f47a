"""Issue 32 item 16 in the client: the people at the table (mute, the host's remove), notices, removal, bans.

Real test server, the real app under Pilot (its notifications drawn); what is asserted is the screen's text.
"""

from __future__ import annotations

import time

from protocol import messages as m
from server.moderation import Ban
from tui_helpers import screen_name, screen_text, table_ready, wait_for


async def _at(pilot, app, table_id: str) -> None:
    await wait_for(pilot, lambda: app.session.state == "connected", what="connected")
    await app.ask(m.Join, {"table_id": table_id})
    await wait_for(pilot, lambda: table_ready(app), what="at the table")


async def test_a_player_who_is_not_host_mutes_and_unmutes_and_cannot_remove(make_app, connect):
    async with connect("Bob") as bob, connect("Eve") as eve:
        table_id = (await bob.request(m.CreateTable, name="den", settings=m.TableSettings(seats=3)))["table_id"]
        app = make_app("Ann")
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await _at(pilot, app, table_id)
            await eve.request(m.Watch, table_id=table_id)
            await eve.request(m.Chat, text="[bold]loud[/bold] words")  # shown literally
            await wait_for(pilot, lambda: "[bold]loud[/bold] words" in screen_text(app), what="eve's line")
            await pilot.press("p")
            await wait_for(pilot, lambda: screen_name(app) == "PeopleScreen", what="the people")
            text = await wait_for(pilot, lambda: "Eve" in screen_text(app) and screen_text(app), what="listed")
            assert "Bob" in text and "seat 1" in text and "watching" in text and "Ann" not in text.split("People")[1]
            assert "remove from the table" not in text  # not the host's keys
            await pilot.press("r")
            await wait_for(pilot, lambda: "Only the table's host can remove a player." in screen_text(app),
                           what="why not")
            await pilot.press("down", "m")
            await wait_for(pilot, lambda: "You muted Eve" in screen_text(app), what="muted")
            await pilot.press("escape")
            await eve.request(m.Chat, text="do you hear me")
            await bob.request(m.Chat, text="bob speaks")
            await wait_for(pilot, lambda: "bob speaks" in screen_text(app), what="bob's line")
            assert "do you hear me" not in screen_text(app)
            await eve.request(m.Leave)  # gone: still in the list, to unmute
            await pilot.press("p")
            await wait_for(pilot, lambda: "muted" in screen_text(app), what="the people, eve muted")
            await pilot.press("down", "m")
            await wait_for(pilot, lambda: "You unmuted Eve" in screen_text(app), what="unmuted")
            assert await app.ask(m.Mutes, {}) == {"names": []}


async def test_the_host_removes_a_player_after_a_yes_and_the_removed_player_is_told(make_app, connect):
    async with connect("Zed") as zed:
        table_id = (await zed.request(m.CreateTable, name="den", settings=m.TableSettings(seats=3)))["table_id"]
        host = make_app("Ann")
        async with host.run_test(size=(120, 40), notifications=True) as pilot:
            await _at(pilot, host, table_id)
            await zed.request(m.Leave)  # ann hosts now
            removed = make_app("Bob")
            await wait_for(pilot, lambda: "You host this table" in screen_text(host), what="ann hosts")
            async with removed.run_test(size=(80, 24), notifications=True) as other:
                await _at(other, removed, table_id)
                await wait_for(pilot, lambda: "Bob" in screen_text(host), what="bob seated")
                await pilot.press("p")
                await wait_for(pilot, lambda: "remove from the table" in screen_text(host), what="the host's keys")
                await pilot.press("r")
                await wait_for(pilot, lambda: "Remove Bob from this table?" in screen_text(host), what="asked")
                await pilot.press("n")  # no: nothing happens
                await wait_for(pilot, lambda: screen_name(host) == "PeopleScreen", what="back to the list")
                assert table_ready(removed) and removed.view["table"]["seat"] is not None
                await pilot.press("r")
                await wait_for(pilot, lambda: "Remove Bob from this table?" in screen_text(host), what="asked again")
                await pilot.press("y")
                await wait_for(pilot, lambda: "Bob was removed from the table." in screen_text(host), what="done")
                await wait_for(other, lambda: screen_name(removed) == "LobbyScreen", what="bob in the lobby")
                await wait_for(other, lambda: "Removed from the table" in screen_text(removed)  # the toast's title
                               and "The host removed you from" in screen_text(removed), what="bob is told")
                assert await removed.ask(m.Join, {"table_id": table_id}) is None  # refused, and said:
                await wait_for(other, lambda: "the host removed you from this table" in screen_text(removed),
                               what="why not")


async def test_an_announcement_and_a_ban_are_shown_to_the_player(make_app, server):
    app = make_app("Ann")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await wait_for(pilot, lambda: "notices" in app.features, what="the server's features")
        await wait_for(pilot, lambda: server.lobby.players[app.session.welcome.player_id].notices, what="notices")
        assert server.lobby.announce("the server restarts at 22:00") == 1
        await wait_for(pilot, lambda: "The server restarts at 22:00" in screen_text(app), what="the announcement")
        player = app.session.welcome.player_id
        server.lobby.ban(Ban("player", player, "Ann", "spamming the tables", time.time()))
        await wait_for(pilot, lambda: app.fatal_error, what="the ban")
    assert app.fatal_error.endswith("you are banned from this server: spamming the tables")
