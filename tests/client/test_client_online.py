"""Issue 27 item 6 in the client, against the real test server: who is online in the lobby (one line; o for all
of them), a host's invitation (i at the table) and an invitee's (a notification, and i to join: no code)."""

from __future__ import annotations

from protocol import messages as m
from scripted import ScriptedClient
from tui_helpers import screen_name, screen_text, table_ready, wait_for


def online_line(app) -> str:
    return next((line for line in screen_text(app).splitlines() if "Online (" in line), "")


async def test_the_lobby_says_who_is_online_and_where(make_app, server):
    server.lobby.config.online_interval = 0.05
    server.lobby._online_timer.cancel()
    server.lobby._push_online()
    async with ScriptedClient(server.port, "bob") as bob, ScriptedClient(server.port, "cat") as cat:
        table_id = (await bob.request(m.CreateTable, name="Bob's", settings=m.TableSettings(seats=3)))["table_id"]
        await cat.request(m.Watch, table_id=table_id)
        app = make_app("ann")
        async with app.run_test(size=(80, 24)) as pilot:
            line = await wait_for(pilot, lambda: "bob" in online_line(app) and online_line(app), what="online line")
            assert "Online (3):" in line and f"cat (watching {table_id})" in line and f"bob ({table_id})" in line
            assert "ann" not in line.split(":", 1)[1]  # not herself
            async with ScriptedClient(server.port, "dan"):  # someone comes: the line follows (the online push)
                await wait_for(pilot, lambda: "dan" in online_line(app), what="dan online")
            await wait_for(pilot, lambda: "dan" not in online_line(app), what="dan gone")
            await pilot.press("o")
            text = await wait_for(pilot, lambda: screen_name(app) == "OnlineScreen" and "seated at" in screen_text(app)
                                  and screen_text(app), what="who is online")
            assert f"seated at {table_id} Bob's" in text and f"watching {table_id} Bob's" in text
            assert "in the lobby" in text  # ann herself
            await pilot.press("escape")
            await wait_for(pilot, lambda: screen_name(app) == "LobbyScreen", what="back")


async def test_an_invitation_is_a_lasting_notification_and_i_joins_without_the_code(make_app, server):
    async with ScriptedClient(server.port, "bob") as bob:
        table_id = (await bob.request(m.CreateTable, name="Bob's", private_code="sesame",
                                      settings=m.TableSettings(game="cribbage", seats=2)))["table_id"]
        app = make_app("ann")
        async with app.run_test(size=(80, 24), notifications=True) as pilot:
            await wait_for(pilot, lambda: app.online is not None, what="following who is online")
            assert not app.lobby.check_action("accept_invitation", ())  # no invitation: no key
            await bob.request(m.Invite, name="ann")
            said = await wait_for(pilot, lambda: [n for n in app._notifications if n.title == "Invitation"],
                                  what="invited")
            assert said[0].message == (f"bob invites you to Bob's ({table_id}, Cribbage) (private: no code "
                                       "needed). Press i to join.")
            assert said[0].timeout == 60  # as long as the invitation lasts
            await wait_for(pilot, lambda: "Accept invitation" in screen_text(app), what="the key in the footer")
            await pilot.press("i")
            await wait_for(pilot, lambda: table_ready(app) and app.table_id == table_id, what="at bob's table")
            assert app.view["table"]["seat"] == 1  # seated: the invitation was the pass, no code asked
            assert screen_name(app) == "TableScreen"


async def test_the_host_invites_from_the_table(make_app, server):
    async with ScriptedClient(server.port, "bob") as bob, ScriptedClient(server.port, "cat") as cat:
        await bob.request(m.ListOnline)
        await cat.request(m.CreateTable, name="Cat's", settings=m.TableSettings(seats=2))  # seated: not invitable
        app = make_app("ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.lobby.is_mounted and app.features, what="lobby")
            await pilot.press("n")
            await wait_for(pilot, lambda: screen_name(app) == "CreateTableScreen", what="form")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: table_ready(app), what="table")
            await wait_for(pilot, lambda: "i invite a player" in screen_text(app), what="the host's prompt says i")
            await pilot.press("i")
            text = await wait_for(pilot, lambda: screen_name(app) == "InviteScreen" and "bob" in screen_text(app)
                                  and screen_text(app), what="who to invite")
            assert app.screen.names == ["bob"] and "in the lobby" in text  # not cat: seated at her own table
            await pilot.press("enter")
            invitation = await bob.wait_for(lambda: bob.invitations and bob.invitations[-1])
            assert (invitation.table_id, invitation.host) == (app.table_id, "ann")
            await wait_for(pilot, lambda: any("Invitation sent to bob" in n.message for n in app._notifications),
                           what="said")


async def test_after_a_reconnect_the_client_still_hears_invitations(make_app, server):
    async with ScriptedClient(server.port, "bob") as bob:
        await bob.request(m.CreateTable, name="Bob's", settings=m.TableSettings(seats=2))
        app = make_app("ann")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: app.online is not None, what="following who is online")
            sent = len([k for k, _ in app.requests_sent if k is m.ListOnline])
            app.session.drop()  # as if the network failed: the new connection must ask again
            await wait_for(pilot, lambda: app.session.reconnects == 1 and app.connection_state == "connected",
                           what="reconnected")
            await wait_for(pilot, lambda: len([k for k, _ in app.requests_sent if k is m.ListOnline]) > sent,
                           what="asked again")
            player = next(p for p in server.lobby.players.values() if p.name == "ann")
            await wait_for(pilot, lambda: player.follows, what="the server has it")
            await bob.request(m.Invite, name="ann")
            await wait_for(pilot, lambda: app.invitation is not None, what="invited")
