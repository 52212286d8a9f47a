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
            # all of the round from before she came back: Bob heard only that she dropped and is back
            assert {e["kind"] for e in bob.events[seen:]} <= {"offline", "online"}


def test_a_view_the_session_kept_is_left_out_when_a_newer_one_of_its_table_supersedes_it():
    """Start-up (issue 12 item 13): a practice game's session arrives with five views of its table (made, each
    bot seated, dealt), each a layout and repaint of the table before the first one is seen. A view is left out
    when a newer one of its table follows at once, or, in the waiting room, after nothing but events of that
    table that the newer view's log holds (the round's start and deal_commit: still delivered). A view followed
    by an event its successor does not hold, a game's view followed by any event, or a view followed by another
    table's view, is delivered: what came between may need it."""
    from client.session import Session
    from protocol import messages as m

    def view(table_id: str, members: int, log: tuple[dict[str, object], ...] | None = None) -> m.View:
        game = None if log is None else {"phase": "cut", "log": list(log)}
        return m.View(table_id=table_id, table={"members": [{"seat": s} for s in range(members)]}, game=game)

    round_start, sealed, joined = {"kind": "round", "round": 1}, {"kind": "deal_commit", "round": 1}, {"kind": "join"}
    session = Session("127.0.0.1", 1, "Ann")
    made, seated, dealt = view("t1", 1), view("t1", 2), view("t1", 2, (round_start, sealed))
    dealing = m.Event(table_id="t1", events=(round_start, sealed))
    event = m.Event(table_id="t1", events=(joined,))
    elsewhere, back, there = view("t2", 1), view("t1", 3), view("t2", 3)
    held = m.Event(table_id="t1", events=(round_start,))
    items = (made, view("t1", 2), seated, dealing, dealt, event, view("t1", 2, (round_start,)), held,
             view("t1", 2, (round_start,)), elsewhere, back, there)
    for item in items:
        session._emit(item)
    delivered: list[object] = []
    session.listen(delivered.append)
    assert [id(item) for item in delivered] == [id(item) for item in (dealing, dealt, event, *items[6:9], elsewhere,
                                                                      back, there)]
    session._emit(made)  # once listening, everything is delivered as it comes
    assert delivered[-1] is made


async def test_a_practice_game_applies_only_its_dealt_view_and_still_sends_our_seed(tmp_path):
    """Start-up (issue 12 item 13): the practice table's first view applied is the dealt one (not the waiting
    room before it: a layout and repaint less before the first painted table); the round's events that came
    between reach the deal check, so our client seed goes in, and the log shows them once."""
    from client.app import DabApp
    from client.practice import PracticeOptions, start_practice

    server, session = await start_practice("Ann", PracticeOptions(bot_delay=5.0, seed=b"a"))
    views: list[dict[str, object]] = []
    try:
        app = DabApp(session, expect_table=True, on_view=views.append)
        async with app.run_test(size=(80, 24)) as pilot:
            me = await wait_for(pilot, lambda: app.view is not None and app.view["table"]["seat"] is not None
                                and app.view["table"]["seat"] + 1, what="seated") - 1
            log = await wait_for(pilot, lambda: next((v["game"]["log"] for v in views if any(
                e["kind"] == "client_seed" and e["seat"] == me for e in v["game"]["log"])), None), what="our seed in")
            assert views[0]["game"] is not None and views[0]["game"]["phase"] == "cut"
            assert [e["kind"] for e in log[:2]] == ["round", "deal_commit"]
            lines = app.table_screen.query_one("#log", LineLog).plain.splitlines()
            assert len(lines) == len(set(lines)) >= 2
    finally:
        await session.close()
        await server.close(grace=0.2)
