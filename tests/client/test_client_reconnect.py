"""A dropped connection is resumed with the token on its own; the game goes on."""

from __future__ import annotations


from tui_helpers import drive, screen_text, start_two_player_game, wait_for, opponent_playing

from client.widgets.basics import LineLog


async def test_reconnects_with_token_and_play_continues(make_app, connect):
    app = make_app("Ann")
    async with app.run_test(size=(80, 24)) as pilot, connect("Bob") as bob:
        await start_two_player_game(pilot, app, bob)
        async with opponent_playing(bob):
            me = app.view["seat"]
            await drive(pilot, app, lambda: "take_stock" in app.table_screen.legal and app.screen is app.table_screen,
                        what="Ann's turn")
            token = app.session.token
            hand = list(app.view["hand"])
            app.session.drop()  # as if the network failed
            await wait_for(pilot, lambda: app.session.reconnects == 1 and app.connection_state == "connected",
                           what="reconnected")
            assert app.session.token == token
            log = app.table_screen.query_one("#log", LineLog).plain
            assert "Connection lost: reconnecting…" in log and "Reconnected." in log
            await wait_for(pilot, lambda: app.view["players"][me]["connected"] and app.view["hand"] == hand)
            assert "take_stock" in app.table_screen.legal  # still our turn, same cards

            await pilot.press("s")
            await wait_for(pilot, lambda: "discard" in app.table_screen.legal, what="drew after reconnecting")
            thrown = len([d for d in app.view["round_discards"] if d["seat"] == me])
            await pilot.press("enter")
            await wait_for(pilot, lambda: len([d for d in app.view["round_discards"] if d["seat"] == me]) > thrown,
                           what="discard after reconnecting")
            assert "offline" not in screen_text(app)
