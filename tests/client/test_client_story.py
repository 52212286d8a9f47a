"""The table's log tells its story (issue 27 item 8), against the real test server: who joined, left, went
offline and came back, and a player offline is "offline: played for them", not "ran out of time"."""

from __future__ import annotations

import pytest

from protocol import messages as m
from scripted import ScriptedClient
from tui_helpers import screen_text, table_ready, wait_for


def log_text(app) -> str:
    from client.widgets.basics import LineLog

    return "\n".join(line.plain for line in app.table_screen.query_one("#log", LineLog).lines)


@pytest.mark.parametrize("game", ["down-and-back", "cribbage"])
async def test_the_log_says_who_came_went_dropped_and_came_back(make_app, server, game):
    server.lobby.config.table.absent_grace = 0.05
    server.lobby.config.table.away_delay = 1.0  # ann's seat, played for her: slowly enough to read the log
    app = make_app("ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.connection_state == "connected" and app.lobby.is_mounted, what="lobby")
        app._send(m.CreateTable, {"name": "story", "settings": m.TableSettings(game=game, seats=2)})
        await wait_for(pilot, lambda: table_ready(app), what="table")
        bob = ScriptedClient(server.port, "bob")
        await bob.link.connect()
        await bob.request(m.Join, table_id=app.table_id)
        await wait_for(pilot, lambda: "bob joins the table" in log_text(app), what="join told")
        await bob.request(m.Leave)
        await wait_for(pilot, lambda: "bob leaves the table" in log_text(app), what="leave told")
        await bob.request(m.Join, table_id=app.table_id)
        await pilot.press("g")
        await wait_for(pilot, lambda: (app.view or {}).get("game"), what="game started")
        await bob.link.close()
        await wait_for(pilot, lambda: "bob is offline: the seat is kept" in log_text(app), what="offline told")
        async with ScriptedClient(server.port, "bob", bob.link.token) as again:
            await wait_for(pilot, lambda: "bob is back online" in log_text(app), what="online told")
            await again.link.close()
        # ann sits out: both seats are played for, hers as she asked, bob's once his grace runs out
        app._send(m.SitOut, {"away": True})
        await wait_for(pilot, lambda: "bob is offline:" in screen_text(app) and "played for them" in screen_text(app),
                       what="bob played for, on the screen")
        assert "bob is offline: played for them" in log_text(app)
        assert "ran out of time" not in log_text(app)
