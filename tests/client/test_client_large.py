"""Larger terminals (issue 27 item 17): from 120x36 up both games' boards draw larger cards and the table has a
side panel (the game's reference, the scores so far, the whole chat); 80x24 and 100x30 keep today's layout,
and a resize either way lays the table out again.

The views are fixed data fed to an offline app with a frozen countdown (as the 80x24 snapshots'), so the
pictures never depend on timing. Snapshots at 120x40 and 160x45 in Unicode; update with
``pytest tests/client/test_client_large.py --snapshot-update``.
"""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest

from cribbage_views import after_show, laying_away, mid_play, push
from protocol import messages as m
from test_client_snapshots import EVENTS, PLAY_VIEW, RESULT, SHOWDOWN_VIEW, feed
from tui_helpers import screen_name, screen_text, table_ready, wait_for

from client.app import DabApp
from client.render import LARGE_CARD, Display, rank_key

SIZES = [(120, 40), (160, 45)]
SIZE_IDS = ["120x40", "160x45"]


@pytest.fixture(autouse=True, scope="module")
def warm_meter() -> None:
    """The hand helper's win-both figure is the same however fast the board's warm-up thread runs."""
    from engine.games.down_and_back import meter

    meter.warm_up()


def make_app(ascii: bool = False, frozen: bool = True) -> DabApp:
    return DabApp(display=Display(ascii=ascii), frozen_clock=frozen, player_name="Ann", server_label="large")


async def down_and_back(pilot, view: dict[str, Any] = PLAY_VIEW, events: list[dict[str, Any]] = EVENTS) -> None:
    """The 80x24 snapshots' table (a view, its events, a line of chat), at this test's size."""
    await feed(view, events)(pilot)


async def cribbage(pilot, view: dict[str, Any] | None = None) -> None:
    app = pilot.app
    app.receive(push(view or mid_play()))
    await wait_for(pilot, lambda: table_ready(app), what="table")
    app.receive(m.ChatMessage(table_id="t1", seat=1, name="Bob", text="good luck", ts=1))
    await wait_for(pilot, lambda: "good luck" in screen_text(app), what="the chat")
    await pilot.pause()


GAMES = {"down-and-back": down_and_back, "cribbage": cribbage}
REFERENCE = {"down-and-back": ("Going down (4)", "Coming back (3)", "2 Prial*", "8 High card"),
             "cribbage": ("Scoring", "fifteen", "four of a rank", "his nobs")}


def hand_of(app: DabApp) -> list[str]:
    return sorted(app.table_screen.board.view.get("hand") or (), key=rank_key)


def large_faces(cards: list[str], display: Display = Display()) -> list[str]:
    """The top line of each card's large face as the hand draws it: its rank alone at the left."""
    return [f"│{display.card_text(card)[:-1].ljust(LARGE_CARD[0] - 2)}│" for card in cards]


def side_panel_text(app: DabApp) -> str:
    """The screen's text right of the side panel's left edge (its rows, over the board's height)."""
    region = app.table_screen.query_one("#side-panel").content_region
    lines = screen_text(app).splitlines()[region.y:region.bottom]
    return "\n".join(line[region.x:region.right] for line in lines)


@pytest.mark.parametrize("game", list(GAMES))
@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
async def test_a_large_terminal_has_large_cards_and_the_side_panel(game, size):
    """Issue 27 item 17: at 120x40 and 160x45 the hand's cards are 9x7 faces (rank, suit, a pip in the middle),
    and beside the log the side panel shows the game's reference, its scores so far and the chat."""
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await GAMES[game](pilot)
        assert app.has_class("-large")
        text = screen_text(app)
        hand = hand_of(app)
        for face in large_faces(hand):
            assert face in text, face
        board = app.table_screen.board
        assert board.query_one("#hand").size.height == LARGE_CARD[1] + 1  # the faces and their numbers
        panel = app.table_screen.query_one("#side-panel")
        assert panel.outer_size.width >= 40 and panel.region.x > app.table_screen.query_one("#log").region.x
        side = side_panel_text(app)
        for line in REFERENCE[game]:
            assert line in side, side
        assert ("Rounds:" if game == "down-and-back" else "Deal") in side
        assert ("gl [b]all[/b]" if game == "down-and-back" else "good luck") in side  # chat is in the panel
        assert "c: chat" in side


@pytest.mark.parametrize("game", list(GAMES))
async def test_80x24_and_100x30_keep_their_layout_and_get_it_back_after_a_large_terminal(game):
    """The larger layout comes at 120x36 and goes again below it, in both directions, without anything left
    of it: back at 80x24 the screen is character for character what it was before."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await GAMES[game](pilot)
        before = screen_text(app)
        for size in ((100, 30), (119, 45), (160, 35)):  # not large: too narrow or too short
            await pilot.resize_terminal(*size)
            await wait_for(pilot, lambda: app.size == size, what=f"{size}")
            text = screen_text(app)
            assert not app.has_class("-large") and REFERENCE[game][0] not in text
            assert all(face not in text for face in large_faces(hand_of(app))), text
        await pilot.resize_terminal(120, 40)
        await wait_for(pilot, lambda: all(face in screen_text(app) for face in large_faces(hand_of(app))),
                       what="the large cards")
        await wait_for(pilot, lambda: REFERENCE[game][0] in side_panel_text(app), what="the side panel")
        await pilot.resize_terminal(80, 24)
        await wait_for(pilot, lambda: screen_text(app) == before, what="the 80x24 screen as it was")


async def test_the_side_panel_shows_the_whole_chat():
    """At 80x24 the chat shows its last three lines; the side panel shows a chatty evening's last eight at
    120x40 under the reference and the rounds, and its last dozen at 160x45."""
    lines = [f"line {n} of the evening" for n in range(1, 13)]
    for size, shown in (((80, 24), lines[-3:]), ((120, 40), lines[-8:]), ((160, 45), lines)):
        app = make_app()
        async with app.run_test(size=size) as pilot:
            await down_and_back(pilot)
            for n, line in enumerate(lines, 2):
                app.receive(m.ChatMessage(table_id="t1", seat=2, name="Bert (bot)", text=line, ts=n))
            await wait_for(pilot, lambda: lines[-1] in screen_text(app), what="the last line")
            text = screen_text(app)
            assert [line for line in lines if line in text] == shown, (size, text)


async def test_the_rounds_played_list_each_result():
    """Down and Back's scores in the side panel: each round, who won going down and coming back, and the pot
    taken or carried; our seat is "You"."""
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await down_and_back(pilot)
        assert "Rounds: each result is listed here." in side_panel_text(app)
        won = {**RESULT, "round": 4, "down_winner": 0, "back_winner": 0, "winner": 0, "carried": 0, "pot": 100}
        for result in (RESULT, won):
            app.receive(m.Event(table_id="t1", events=(copy.deepcopy(result),)))
            await wait_for(pilot, lambda: screen_name(app) == "RevealPanel", what="the reveal")
            await pilot.press("escape")
            await wait_for(pilot, lambda: screen_name(app) == "TableScreen", what="the table again")
        side = side_panel_text(app).splitlines()
        heading = next(i for i, line in enumerate(side) if line.split() == ["Round", "Down", "Back", "Pot"])
        rows = [line.split() for line in side[heading + 1:heading + 3]]
        assert ["3", "[bold", "red]", "You", "60", "carried"] in rows, side  # names cut to the column
        assert ["4", "You", "You", "100", "taken"] in rows, side


async def test_cribbage_deals_played_list_each_sides_points():
    """Cribbage's scores in the side panel: each side's points in each deal of the game (the deal under way as
    it stands), worked out from the sides' scores the views carry."""
    first = laying_away()
    second = mid_play()
    assert (first["deal"], second["deal"]) == (1, 2)
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await cribbage(pilot, after_show())  # the end of deal 1: its scores
        app.receive(push(second))
        await wait_for(pilot, lambda: app.table_screen.board.view.get("deal") == 2, what="deal 2")
        await pilot.pause()
        deal_one = after_show()["sides"]
        rows = [line.split() for line in side_panel_text(app).splitlines()]
        expected_one = [str(side["score"]) for side in deal_one]
        expected_two = [str(b["score"] - a["score"]) for a, b in zip(deal_one, second["sides"])]
        assert ["1", *expected_one] in rows, rows
        assert ["2", "·", *expected_two] in rows, side_panel_text(app)


async def test_a_large_table_lays_cribbage_play_out_as_large_cards():
    """Cribbage's play at 120x40: the count, each card laid since it was reset as a large card with who laid
    it under it, and the starter, in place of the lines over the log."""
    view = mid_play()
    app = make_app()
    async with app.run_test(size=(120, 40)) as pilot:
        await cribbage(pilot, view)
        board = app.table_screen.board
        assert not board.query_one("#play").display or board.query_one("#play").size.height == 0
        table = board.query_one("#play-table")
        region = table.region
        lines = [line[region.x:region.right] for line in screen_text(app).splitlines()[region.y:region.bottom]]
        text = "\n".join(lines)
        assert f"Count {view['count']}" in text and "Starter" in text and "crib" in text
        display = Display()
        for entry in view["series"]:
            assert large_faces([entry["card"]])[0] in text or display.card_text(entry["card"])[:-1] in text
        assert large_faces([view["starter"]])[0] in text
        who = lines[-1].split()
        assert who == [("You" if e["seat"] == 0 else "Bob") for e in view["series"]], lines


async def test_the_countdown_repaints_only_itself_on_a_large_terminal(monkeypatch):
    """Idle cost (issue 30 will count bytes per idle minute): while a decision's clock ticks, only the clock is
    drawn again (and the top bar beside it when the clock's text changes width, 10:00 to 9:59), never the
    side panel, the log or the board; a tick writes as few bytes as at 80x24."""
    from textual.strip import Strip
    from textual.widget import Widget

    from client.terminal import compact_render

    monkeypatch.setattr(Strip, "render", compact_render)  # as the client writes to a terminal
    ticks: dict[tuple[int, int], list[tuple[int, set[str]]]] = {}
    for size in ((80, 24), (120, 40)):
        now = [1000.0]
        app = make_app(frozen=False)
        app.clock = lambda: now[0]  # type: ignore[method-assign]  # the countdown's clock, moved by the test
        written: list[int] = []
        drawn: set[str] = set()
        render = Widget._render

        def display(screen, renderable) -> None:  # what App._display would write to a terminal
            if renderable is not None and not app._batch_count:
                written.append(len(renderable.render_segments(app.console).encode()))

        def counted(widget: Widget):
            drawn.add(widget.id or type(widget).__name__)
            return render(widget)

        async with app.run_test(size=size) as pilot:
            await down_and_back(pilot, {**PLAY_VIEW, "deadline_ms": 601_000})
            clock = app.table_screen.query_one("#clock")
            await wait_for(pilot, lambda: clock.seconds == 601, what="the clock")
            await pilot.pause(0.1)
            app._display = display  # type: ignore[method-assign]
            monkeypatch.setattr(Widget, "_render", counted)
            for seconds in (600, 599, 598):  # 10:00, then 9:59, a column narrower, then 9:58
                written.clear(), drawn.clear()
                now[0] += 1
                await wait_for(pilot, lambda: clock.seconds == seconds, what=f"{seconds} s")
                await pilot.pause(0.1)
                ticks.setdefault(size, []).append((sum(written), set(drawn)))
            monkeypatch.setattr(Widget, "_render", render)
    for size, seen in ticks.items():
        assert [drawn for _, drawn in seen] == [{"clock"}, {"clock", "info"}, {"clock"}], (size, seen)
    (first, _), (narrower, _), (last, _) = ticks[(120, 40)]
    small = [written for written, _ in ticks[(80, 24)]]
    assert first <= small[0] + 5 and last <= small[2] + 5 and first < 100, ticks  # the clock's few cells
    assert narrower < 2 * small[1], ticks  # the top bar once more: it is wider


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_table_large_snapshot(snap_compare, size):
    assert snap_compare(make_app(), run_before=down_and_back, terminal_size=size)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_cribbage_mid_play_large_snapshot(snap_compare, size):
    assert snap_compare(make_app(), run_before=cribbage, terminal_size=size)


def test_table_large_ascii_snapshot(snap_compare):
    assert snap_compare(make_app(ascii=True), run_before=down_and_back, terminal_size=(120, 40))


def test_showdown_arrangement_large_snapshot(snap_compare):
    assert snap_compare(make_app(), run_before=feed(SHOWDOWN_VIEW, screen="SplitPanel"), terminal_size=(120, 40))


async def bobs_table(bob, game: str) -> str:
    """Bob's table of ``game``, started with bots (at least two seats a round deals in, Bob's among them):
    its id. The game waits for Bob, who does not play."""
    seats = 3 if game == "down-and-back" else 2  # a round deals in at least two players who are not away
    settings = m.TableSettings(game=game, seats=seats)
    table_id = (await bob.request(m.CreateTable, name="Bob's evening", settings=settings))["table_id"]
    for _ in range(seats - 1):
        await bob.request(m.AddBot)
    await bob.request(m.Start)
    return table_id


async def rounds_played_at(bob, game: str, rounds: int) -> tuple[str, list[dict[str, Any]]]:
    """Bob's table of ``game``, Bob sitting out (the server plays his seat at once) until ``rounds`` have
    finished; then he is back, and the game waits for him. The table's id and its finished rounds (the
    history, oldest first)."""
    import asyncio

    table_id = await bobs_table(bob, game)
    await bob.request(m.SitOut, away=True)

    async def finished() -> list[dict[str, Any]]:
        return (await bob.request(m.History, limit=10))["rounds"]

    for _ in range(600):
        if len(await finished()) >= rounds:
            break
        await asyncio.sleep(0.01)
    else:
        raise AssertionError("the rounds were never played")
    await bob.request(m.SitOut, away=False)
    seat = bob.facts[table_id]["seat"]
    await bob.wait_for(lambda: seat in (bob.views.get(table_id, {}).get("to_act") or ()), timeout=20)
    return table_id, await finished()


async def watch(pilot, table_id: str) -> list[Any]:
    """The app, once connected, watches ``table_id``: the kinds of the requests it asks (``DabApp.ask``)
    from then on, as they are asked."""
    app = pilot.app
    await wait_for(pilot, lambda: app.connection_state == "connected", what="connected")
    asked: list[Any] = []
    ask = app.ask

    async def counted(kind, fields, quiet=False):
        asked.append(kind)
        return await ask(kind, fields, quiet)

    app.ask = counted  # type: ignore[method-assign]
    app._send(m.Watch, {"table_id": table_id})
    await wait_for(pilot, lambda: table_ready(app) and app.table_screen.game is not None, what="the table")
    return asked


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_the_rounds_played_before_we_came_are_in_the_side_panel(make_app, connect, size):
    """Coming to a table whose game is under way (watching here; as after a reconnection or a restart), a
    large terminal's side panel lists the rounds played before from the table's history; at 80x24, which has
    no side panel, the client asks nothing more."""
    async with connect("Bob") as bob:
        table_id, history = await rounds_played_at(bob, "down-and-back", 2)
        app = make_app("Ann")
        async with app.run_test(size=size) as pilot:
            asked = await watch(pilot, table_id)
            board = app.table_screen.board
            played = [record["round"] for record in history][-5:]  # the ledger's rows: the newest five
            if size == (80, 24):
                await pilot.pause(0.3)
                assert m.History not in asked and not board.rounds.results
                return
            await wait_for(pilot, lambda: set(played) <= set(board.rounds.results), what=f"rounds {played}")
            assert asked.count(m.History) == 1
            text = side_panel_text(app)
            for number in played:
                assert re.search(rf"^\s*{number}  \S", text, re.M), text


@pytest.mark.parametrize("game", list(GAMES))
async def test_a_table_in_its_first_round_is_asked_no_history(make_app, connect, game):
    """At a table's first round under way no round has finished, so a large terminal's side panel asks the
    server nothing (a server with a data dir answers history in a worker process): each round's end is
    listed as this screen sees it."""
    async with connect("Bob") as bob:
        table_id = await bobs_table(bob, game)  # the first round waits for Bob
        app = make_app("Ann")
        async with app.run_test(size=(120, 40)) as pilot:
            asked = await watch(pilot, table_id)
            await wait_for(pilot, lambda: REFERENCE[game][0] in side_panel_text(app), what="the side panel")
            await pilot.pause(0.3)
            game_view = app.table_screen.game
            assert game_view["round"] == 1 and game_view["phase"] not in ("waiting", "over"), game_view
            assert m.History not in asked and app.table_screen._scores_asked  # and never will be


async def test_cribbage_deals_played_before_we_came_are_in_the_side_panel(make_app, connect):
    async with connect("Bob") as bob:
        table_id, history = await rounds_played_at(bob, "cribbage", 3)
        app = make_app("Ann")
        async with app.run_test(size=(120, 40)) as pilot:
            await watch(pilot, table_id)
            deals = app.table_screen.board.deals
            finished = {(r["game"], r["deal"]): tuple(r["scores"]) for r in history if r.get("scores")}
            await wait_for(pilot, lambda: all(deals.scores.get(key) == scores for key, scores in finished.items()),
                           what="the finished deals' scores")
            game = app.table_screen.game["game"]
            rows = [line.split() for line in side_panel_text(app).splitlines()]
            shown = [(g, d) for g, d in sorted(finished) if g == game][-4:]  # (the deal under way is the fifth)
            for g, d in shown:
                before = finished.get((g, d - 1), (0, 0)) if d > 1 else (0, 0)
                points = [str(a - b) for a, b in zip(finished[(g, d)], before)]
                assert [str(d), *points] in rows, (g, d, rows)


async def test_the_showdown_arrangement_follows_a_resize_either_way():
    """The arrangement's cards are large from 120x36 up, small below, when the terminal is resized while it
    is open (its height follows its rows: Textual keeps the height worked out for a width, and 120x30 to
    120x40 keeps the width)."""
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await feed(SHOWDOWN_VIEW, screen="SplitPanel")(pilot)
        hand = sorted(SHOWDOWN_VIEW["hand"], key=rank_key)
        split = app.table_screen.board.query_one("#split")
        small = split.size.height
        for size, large in (((120, 40), True), ((120, 30), False), ((160, 45), True)):
            await pilot.resize_terminal(*size)
            await wait_for(pilot, lambda: app.has_class("-large") == large, what=f"{size}")
            await pilot.pause()
            text = screen_text(app)
            faces = [face for face in large_faces(hand) if face in text]
            assert (len(faces) >= 3) == large, (size, text)
            assert (split.size.height > small) == large and "Wins both" in text, (size, text)
