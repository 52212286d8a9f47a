"""A dropped connection is resumed with the token on its own; the game goes on."""

from __future__ import annotations


from tui_helpers import drive, screen_text, start_two_player_game, wait_for, opponent_playing, game_of

from client.widgets.basics import LineLog


async def test_reconnects_with_token_and_play_continues(make_app, connect):
    app = make_app("Ann")
    async with app.run_test(size=(80, 24)) as pilot, connect("Bob") as bob:
        await start_two_player_game(pilot, app, bob)
        async with opponent_playing(bob):
            me = app.view["table"]["seat"]
            await drive(pilot, app, lambda: "take_stock" in app.table_screen.legal and app.screen is app.table_screen,
                        what="Ann's turn")
            token = app.session.token
            hand = list(game_of(app).get("hand"))
            app.session.drop()  # as if the network failed
            await wait_for(pilot, lambda: app.session.reconnects == 1 and app.connection_state == "connected",
                           what="reconnected")
            assert app.session.token == token
            log = app.table_screen.query_one("#log", LineLog).plain
            assert "Connection lost: reconnecting…" in log and "Reconnected." in log
            await wait_for(pilot, lambda: app.view["table"]["members"][me]["connected"] and game_of(app).get("hand") == hand)
            assert "take_stock" in app.table_screen.legal  # still our turn, same cards

            await pilot.press("s")
            await wait_for(pilot, lambda: "discard" in app.table_screen.legal, what="drew after reconnecting")
            thrown = len([d for d in game_of(app).get("round_discards") if d["seat"] == me])
            await pilot.press("enter")
            await wait_for(pilot, lambda: len([d for d in game_of(app).get("round_discards") if d["seat"] == me]) > thrown,
                           what="discard after reconnecting")
            assert "offline" not in screen_text(app)


async def test_a_restarted_client_shows_the_recent_log_and_chat_of_its_table(server, connect):
    """Coming back keeps the context: the round's recent events and the table's chat are there at once."""
    from protocol import messages as m

    from client.app import DabApp
    from client.session import Session
    from scripted import play_until

    server.lobby.config.table.absent_grace = 30.0  # however slow the test, nothing is played for her meanwhile
    async with connect("Bob") as bob:
        async with connect("Ann") as ann:
            created = await ann.request(m.CreateTable, name="back", settings=m.TableSettings(seats=2))
            await bob.request(m.Join, table_id=created["table_id"])
            await ann.request(m.Chat, text="good luck")
            await ann.request(m.Start)
            table = server.lobby.tables[created["table_id"]]
            await play_until([ann, bob], lambda: table.game.phase == "play" and len(table.game.history) >= 6)
            token = ann.link.welcome.token
        seen = len(bob.events)  # nothing happens while she is away: Bob waits, she is within her grace
        app = DabApp(Session("127.0.0.1", server.port, "Ann", token), player_name="Ann")  # a new client process
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: app.table_screen is not None and app.table_screen.is_mounted
                           and app.table_screen.view is not None, what="back at the table")
            log = app.table_screen.query_one("#log", LineLog)
            chat = app.table_screen.query_one("#chat", LineLog)
            await wait_for(pilot, lambda: any("Bob" in line.plain for line in log.lines), what="the round's log")
            await wait_for(pilot, lambda: any("good luck" in line.plain for line in chat.lines), what="the chat")
            assert len(bob.events) == seen  # all of it from before she came back


def test_a_view_the_session_kept_is_left_out_when_a_newer_one_of_its_table_follows_at_once():
    """Start-up (issue 12 item 13): a practice game's session arrives with four views of its table in a row
    (made, each bot seated), each a layout and repaint of the table before the first one is seen. A view
    followed by an event, or by another table's view, is still delivered: what came between may need it."""
    from client.session import Session
    from protocol import messages as m
    from tui_helpers import view_push

    def view(table_id: str, members: int) -> m.View:
        return view_push(table_id, {"table": {"members": [{"seat": s} for s in range(members)]}, "game": None})

    session = Session("127.0.0.1", 1, "Ann")
    made, seated, dealt = view("t1", 1), view("t1", 2), view("t1", 2)
    event = m.Event(table_id="t1", events=({"kind": "round"},))
    elsewhere, back, there = view("t2", 1), view("t1", 3), view("t2", 3)
    for item in (made, view("t1", 2), seated, event, dealt, elsewhere, back, there):
        session._emit(item)
    delivered: list[object] = []
    session.listen(delivered.append)
    assert [id(item) for item in delivered] == [id(item) for item in (seated, event, dealt, elsewhere, back, there)]
    session._emit(made)  # once listening, everything is delivered as it comes
    assert delivered[-1] is made
