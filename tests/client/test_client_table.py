"""Pilot tests of the table screen and the turn flow at 80x24, against the real server."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable

from protocol import messages as m
from tui_helpers import WAIT, drive, screen_name, screen_text, table_ready, wait_for, opponent_playing, game_of

from client.render import rank_key
from client.games.down_and_back.widgets import HandHelper, HandView


async def _table_with_bob(pilot, app, connect):
    """Ann (the app) creates a table by quick-join; Bob (scripted) joins it; Ann starts."""
    await wait_for(pilot, lambda: app.connection_state == "connected" and app.lobby.is_mounted, what="connected")
    await pilot.press("q")  # quick join: no table yet, so it creates one
    await wait_for(pilot, lambda: table_ready(app), what="table screen")
    bob = connect("Bob")
    await bob.__aenter__()
    await bob.request(m.Join, table_id=app.table_id)
    await wait_for(pilot, lambda: len(app.view["table"]["members"]) == 2, what="Bob seated")
    return bob


async def _until_my_draw(pilot, app):
    while True:
        if screen_name(app) == "CutScreen":
            await pilot.press("enter")
        if "take_stock" in app.table_screen.legal and app.screen is app.table_screen:
            return
        await pilot.pause(0.01)


async def test_turn_flow_keys(make_app, connect):
    app = make_app("Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        bob = await _table_with_bob(pilot, app, connect)
        async with opponent_playing(bob):
            await pilot.press("g")  # the host starts the game
            await wait_for(pilot, lambda: app.view["game"] is not None, what="game started")
            await asyncio.wait_for(_until_my_draw(pilot, app), 10)
            screen = app.table_screen
            text = await wait_for(pilot, lambda: "s Stock" in screen_text(app) and screen_text(app), what="footer")
            assert "d Take pile" in text and "Your turn" in text  # footer and prompt offer the draw
            assert "You ⏱" in text  # the countdown of my decision

            sent = len(app.requests_sent)
            await pilot.press("9", "enter", "k", "x", "b", "g", "left")  # none of these is legal now
            await pilot.pause()
            assert len(app.requests_sent) == sent
            assert screen_name(app) == "TableScreen"

            await pilot.press("s")
            await wait_for(pilot, lambda: "discard" in screen.legal, what="discard step")
            hand = screen.query_one(HandView)
            assert len(hand.cards) == 8 and hand.fresh in hand.cards
            assert hand.picked == hand.fresh  # the card just drawn is the default choice
            await pilot.press("3")
            assert hand.picked == hand.shown[2]
            await pilot.press("right")
            assert hand.picked == hand.shown[3]
            chosen = hand.picked
            await pilot.press("s", "d")  # drawing again is not possible now
            await pilot.press("enter")
            await wait_for(pilot, lambda: len(game_of(app).get("hand")) == 7 and chosen not in game_of(app).get("hand"),
                            what="discard applied")
            me = app.view["table"]["seat"]
            assert {"seat": me, "card": chosen} in game_of(app).get("round_discards")
            assert [k for k, _ in app.requests_sent[sent:]] == [m.Act, m.Act]
            await bob.__aexit__(None, None, None)


async def test_table_shows_seats_pile_sort_helper_and_chat(make_app, connect):
    app = make_app("Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        bob = await _table_with_bob(pilot, app, connect)
        try:
            text = screen_text(app)
            assert "You host this table" in text and "Bob" in text and "empty seat" in text
            await pilot.press("b")  # a bot joins
            await wait_for(pilot, lambda: len(app.view["table"]["members"]) == 3, what="bot added")
            await pilot.press("x")  # and leaves again
            await wait_for(pilot, lambda: len(app.view["table"]["members"]) == 2, what="bot removed")
            await pilot.press("g")
            await wait_for(pilot, lambda: game_of(app).get("phase") in ("cut", "play"), what="started")
            if screen_name(app) == "CutScreen" or "cut" in app.table_screen.legal:
                await wait_for(pilot, lambda: screen_name(app) == "CutScreen")
                await pilot.press("enter")
            else:
                await bob.wait_for(lambda: bob.view.get("legal"))
                await bob.act({"kind": "cut", "position": None})
            await wait_for(pilot, lambda: game_of(app).get("phase") == "play", what="dealt")
            screen = app.table_screen
            text = screen_text(app)
            assert "Ann" in text and "Bob" in text and "Ⓓ" in text
            assert "Stock" in text and "left" in text  # the stock and the pile
            assert "Round 1" in text.splitlines()[0]  # at 80 columns the fixed seed's warning and the deal's mark
            assert "Pot 20" in screen._shown["#info"].plain  # leave the pot to the info's cut-short end

            hand = screen.query_one(HandView)
            await pilot.press("u")
            suits = [card[-1] for card in hand.shown]
            assert suits == sorted(suits, key="SHDC".index)
            await pilot.press("r")
            ranks = [rank_key(card) for card in hand.shown]
            assert hand.order == "rank" and ranks == sorted(ranks)
            await pilot.press("r")  # again: back to the order the cards came in
            assert hand.order == "dealt" and hand.shown == list(game_of(app).get("hand"))

            helper = screen.query_one(HandHelper)
            assert not helper.display
            await pilot.press("h")
            assert helper.display
            await wait_for(pilot, lambda: all(part in screen_text(app) for part in ("Down ", "Back ", "Wins both vs 1 opponent")),
                           what="the hand helper's split and estimate")

            await pilot.press("c")
            await pilot.press(*"hi bob")
            await pilot.press("enter")
            await bob.wait_for(lambda: any(c.text == "hi bob" for c in bob.chats))
            await bob.request(m.Chat, text="hello [b]Ann[/b]")
            await wait_for(pilot, lambda: "Bob: hello [b]Ann[/b]" in screen_text(app), what="chat shown")
            assert app.focused is hand  # after sending, the keys go back to the cards
        finally:
            await bob.__aexit__(None, None, None)


async def test_terminal_too_small(make_app):
    app = make_app("Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.connection_state == "connected")
        assert "Terminal too small" not in screen_text(app)
        await pilot.resize_terminal(60, 20)
        await wait_for(pilot, lambda: "Terminal too small" in screen_text(app))
        assert "60x20" in screen_text(app) and "80x24" in screen_text(app)
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: "Terminal too small" not in screen_text(app))
        assert "lobby" in screen_text(app)


async def test_help_screen(make_app):
    app = make_app("Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.connection_state == "connected")
        await pilot.press("f1")
        await wait_for(pilot, lambda: screen_name(app) == "HelpScreen")
        text = screen_text(app)
        assert "Down and Back" in text
        await pilot.press("end")
        await pilot.pause()
        full = app.screen.query_one("#rules").source  # type: ignore[attr-defined]
        assert "Going-down hands (4 cards)" in full and "Coming-back hands (3 cards)" in full
        assert "3♥ 3♦ 3♣ 8♠" in full  # examples in the player's suit symbols
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "LobbyScreen")


async def test_house_rule_keys_skip_call_end_and_no_take_back(make_app, connect):
    app = make_app("Ann")
    async with app.run_test(size=(80, 24)) as pilot, connect("Bob") as bob:
        await bob.request(m.CreateTable, name="House rules",
                          settings=m.TableSettings(rules={"early_call": True, "no_take_back": True}))
        await wait_for(pilot, lambda: "House rules" in screen_text(app), what="listed")
        await pilot.press("q")
        await wait_for(pilot, lambda: table_ready(app) and len(app.view["table"]["members"]) == 2)
        await bob.request(m.Start)

        def my_draw() -> bool:
            return "take_stock" in app.table_screen.legal and app.screen is app.table_screen

        async with opponent_playing(bob):
            me = app.view["table"]["seat"]
            # a draw of hers with both house keys open (the deal is new each run: Bob's bot may call first)
            await drive(pilot, app, lambda: my_draw() and "call_end" in app.table_screen.legal,
                        what="Ann's draw before a call")
            text = await wait_for(pilot, lambda: "k Skip" in screen_text(app) and screen_text(app), what="footer")
            assert "k Skip" in text and "e Call end" in text and "k skip" in text and "e call the end" in text
            await pilot.press("k")  # skip: neither draw nor discard
            await wait_for(pilot, lambda: any(e.get("kind") == "skip" and e.get("seat") == me for e in bob.events))
            await drive(pilot, app, my_draw, what="Ann's draw")
            if "call_end" in app.table_screen.legal:  # Bob's bot may have called already
                await pilot.press("e")
                await wait_for(pilot, lambda: game_of(app).get("called_by") == me, what="call end")
            await pilot.press("d")  # take the top of the pile: it may not be thrown back this turn
            await wait_for(pilot, lambda: "discard" in app.table_screen.legal)
            hand = app.table_screen.query_one(HandView)
            taken = hand.fresh
            assert taken is not None and taken not in hand.picking and hand.picked is None  # no silent choice
            await pilot.press(str(hand.shown.index(taken) + 1))
            assert hand.picked is None  # not offered
            await pilot.press("right", "enter")
            await wait_for(pilot, lambda: len(game_of(app).get("hand")) == 7 and taken in game_of(app).get("hand"))


async def back_at_the_table(pilot: Any, app: Any, seen: Callable[[], Any], timeout: float = 20.0) -> Any:
    """Wait until the table is on top and ``seen()`` holds, closing what covers it meanwhile.

    An away seat's round is played for it after a short grace, so under load it
    may reach the showdown (the arrangement opens; we confirm it as a person
    would) and the result (the reveal; we close it) before we look.
    """
    screen = app.table_screen
    deadline = time.monotonic() + timeout
    while True:
        if screen_name(app) == "TableScreen":
            result = seen()
            if result:
                return result
        elif screen_name(app) == "SplitPanel":
            await pilot.press("enter")
        elif screen_name(app) == "RevealPanel":
            await pilot.press("escape")
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting at the table\n--- screen ---\n{screen_text(app)}")
        await asyncio.sleep(0.005)


async def test_sit_out_and_come_back_with_a_visible_key(make_app, connect):
    from tui_helpers import start_two_player_game

    app = make_app("Ann")
    async with app.run_test(size=(80, 24)) as pilot, connect("Bob") as bob:
        await start_two_player_game(pilot, app, bob)
        async with opponent_playing(bob):
            screen = app.table_screen
            await drive(pilot, app, lambda: app.screen is screen and game_of(app).get("phase") == "play",
                        what="playing at the table")
            await pilot.press("a")  # sit out: asks first, since the round is played for us
            await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen", what="asked first")
            await pilot.press("y")
            await wait_for(pilot, lambda: screen.away, what="sitting out")
            text = await back_at_the_table(pilot, app, lambda: "a I'm back" in screen_text(app) and screen_text(app))
            assert "You are sitting out" in text
            # a is a table key: over a round's result panel (which may open just before it) it does nothing
            deadline = time.monotonic() + WAIT
            while screen.away:
                if screen_name(app) == "TableScreen" and (m.SitOut, {"away": False}) not in app.requests_sent:
                    await pilot.press("a")
                elif screen_name(app) == "RevealPanel":
                    await pilot.press("escape")
                assert time.monotonic() < deadline, f"never back in\n--- screen ---\n{screen_text(app)}"
                await asyncio.sleep(0.01)
            assert (m.SitOut, {"away": True}) in app.requests_sent and (m.SitOut, {"away": False}) in app.requests_sent


async def test_the_help_lists_every_key_of_every_screen(make_app):
    from textual.binding import Binding

    from client.games import playable_games
    from client.screens.help import key_sections

    app = make_app("Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await wait_for(pilot, lambda: screen_name(app) == "HelpScreen")
        assert "This page scrolls" in screen_text(app)  # says so where it opens
        source = app.screen.query_one("#rules").source  # type: ignore[attr-defined]
        # The page is drawn as one renderable: Textual's Markdown made ~3,800 widgets of it (1-1.5 s to open).
        assert len(app.screen.query("*")) < 20
        for _, classes in key_sections(playable_games()):
            for binding in [b for cls in classes for b in cls.BINDINGS]:
                assert isinstance(binding, Binding) and (binding.tooltip or binding.description) in source
        for needed in ("host: end the game", "back to the best split", "lift five cards", "skip your turn",
                       "call the end", "fill an empty seat with a bot", "sit out"):
            assert needed in source
        await pilot.press("pagedown")
        await wait_for(pilot, lambda: app.screen.query_one("#rules-scroll").scroll_y > 0, what="scrolled")


async def test_the_host_picks_the_bots_level_and_the_seat_shows_it(make_app, connect):
    """``b`` adds a bot of the game's usual level; ``B`` asks the level (its first letter or Enter picks it,
    Escape adds nobody); the seat panel names each bot's level."""
    app = make_app("Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        bob = await _table_with_bob(pilot, app, connect)
        try:
            await pilot.press("B")
            await wait_for(pilot, lambda: screen_name(app) == "LevelScreen", what="the level asked")
            assert "easy" in screen_text(app) and "strong" in screen_text(app)
            await pilot.press("escape")  # no bot after all
            await wait_for(pilot, lambda: screen_name(app) != "LevelScreen", what="the dialog closed")
            await pilot.press("B", "s")
            await wait_for(pilot, lambda: len(app.view["table"]["members"]) == 3, what="a strong bot added")
            assert app.view["table"]["members"][-1]["level"] == "strong"
            await wait_for(pilot, lambda: "strong" in screen_text(app), what="the level beside the bot")
            await pilot.press("b")
            await wait_for(pilot, lambda: len(app.view["table"]["members"]) == 4, what="a usual bot added")
            assert app.view["table"]["members"][-1]["level"] == "normal"
            assert [k for k, _ in app.requests_sent].count(m.AddBot) == 2
        finally:
            await bob.__aexit__(None, None, None)



async def test_the_table_is_laid_out_again_only_for_a_new_size_and_the_clock_only_when_it_widens():
    """Start-up (issue 12 item 13): Textual laid the table out again for each resize event of the size just
    laid out (two at start-up), and the countdown asked for a layout with every view (its deadline is new in
    each); now a same-size resize and a same-width countdown lay nothing out, a new size or width still does."""
    import copy

    from textual import events
    from textual.geometry import Size

    from client.app import DabApp
    from client.widgets.basics import Countdown
    from test_client_snapshots import PLAY_VIEW
    from tui_helpers import view_push

    app = DabApp(player_name="Ann", server_label="offline")
    async with app.run_test(size=(80, 24)) as pilot:
        app.receive(view_push("t1", copy.deepcopy(PLAY_VIEW)))
        await wait_for(pilot, lambda: table_ready(app), what="table")
        await pilot.pause()
        screen, layouts = app.table_screen, []
        laid_out = screen._refresh_layout
        screen._refresh_layout = lambda *args, **kwargs: (layouts.append(args), laid_out(*args, **kwargs))[1]
        screen.post_message(events.Resize(Size(80, 24), Size(80, 24)))
        await pilot.pause()
        assert layouts == []
        await pilot.resize_terminal(100, 30)
        await wait_for(pilot, lambda: layouts, what="laid out at the new size")

        clock, asked = screen.query_one(Countdown), []
        refresh = clock.refresh
        clock.refresh = lambda *regions, **kwargs: (asked.append(kwargs.get("layout", False)),  # type: ignore[method-assign]
                                                    refresh(*regions, **kwargs))[1]
        clock.set_deadline(41000, "You", True)
        assert clock.seconds == 41 and not any(asked)
        clock.set_deadline(9000, "You", True)  # "You ⏱ 0:09": as wide as "You ⏱ 0:41"
        assert not any(asked)
        clock.set_deadline(9000, "Bert (bot)", False)
        assert any(asked)


async def test_the_table_is_styled_once_when_first_shown_and_again_when_shown_again(monkeypatch):
    """Start-up (issue 12 item 13): Textual worked out the style of every widget of a screen again when it
    was first shown, just after styling each as it was mounted (~10 ms for the table); a screen shown again
    (Textual restyles one it pushes again) is still styled again."""
    import copy

    from textual import events

    from client.app import DabApp
    from client.screens.table import TableScreen
    from test_client_snapshots import PLAY_VIEW
    from tui_helpers import view_push

    restyled: list[object] = []
    update = TableScreen.update_node_styles
    monkeypatch.setattr(TableScreen, "update_node_styles",
                        lambda self, animate=True: (restyled.append(self), update(self, animate))[1])
    app = DabApp(player_name="Ann", server_label="offline")
    async with app.run_test(size=(80, 24)) as pilot:
        app.receive(view_push("t1", copy.deepcopy(PLAY_VIEW)))
        await wait_for(pilot, lambda: table_ready(app), what="table")
        await pilot.pause()
        assert restyled == []
        app.table_screen.post_message(events.ScreenResume())
        await wait_for(pilot, lambda: restyled == [app.table_screen], what="the table styled again")
