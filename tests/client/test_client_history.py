"""Issue 17 in the client: the history screen, a replay stepped forward and back, the leaderboard, and
a rematch accepted by every seat; snapshots of the history and the replay, Unicode and ASCII.

The Pilot tests run against the real test server (a scripted client plays
first, the app then comes back with its token); the snapshots use fixed data:
a history page, and a round the engine itself replays (a seeded game of bots),
so the pictures never depend on the clock or a shuffle.
"""

from __future__ import annotations

import contextlib
import copy
import time
from pathlib import Path
from typing import Any, AsyncIterator

import pytest

from client import app as client_app
from client.app import DabApp
from client.screens.dialogs import ConfirmScreen
from client.render import Display
from client.session import Session
from engine.contract import StartRound, Status
from engine.games import find_game
from engine.replay import opening, replay_steps
from engine.rng import HashRng
from protocol import messages as m
from scripted import ScriptedClient, SeedingClient, autoplay
from tui_helpers import screen_name, screen_text, wait_for


def engine_replay(seat: int = 0) -> dict[str, Any]:
    """A three-handed round of Down and Back played by bots, replayed by the engine for ``seat``."""
    game_type = find_game("down-and-back")
    game = game_type.new(game_type.settings({}), [(0, "Ann", 1000), (1, "Bob", 1000), (2, "Cleo", 1000)],
                         HashRng(b"snapshot"))
    start, actions = opening(game), [[None, StartRound().to_data()]]
    game.apply(None, StartRound())
    while game.status is Status.PLAYING:
        actor = game.to_act()[0]
        action = game_type.bot_action(game, actor)
        game.apply(actor, action)
        actions.append([actor, action.to_data()])
    steps = replay_steps(game_type, start, actions, [r.to_data() for r in game.round_log], seat)
    return {"game_name": "down-and-back", "table_id": "t7", "round": 1, "seat": seat, "total": len(steps),
            "steps": steps, "next": None}


PAGE = {"rounds": [
    {"table_id": "t7", "table_name": "Friday night", "game_name": "down-and-back", "round": 12, "seat": 0,
     "chips": 40, "result": "won the pot of 50", "finished_at": 1796140800.0},
    {"table_id": "t7", "table_name": "Friday night", "game_name": "down-and-back", "round": 11, "seat": 0,
     "chips": -10, "result": "won down, pot carries", "finished_at": 1796140700.0},
    {"table_id": "t3", "table_name": "[b]crib[/b]", "game_name": "cribbage", "round": 4, "seat": 1,
     "chips": -100, "result": "lost game 1 (121-97)", "finished_at": 1796137200.0},
], "next": 17}


class CannedApp(DabApp):
    """An offline app whose requests get fixed answers (what a server would say)."""

    CSS_PATH = str(Path(client_app.__file__).with_name("app.tcss"))  # resolved beside the app, not this file

    def __init__(self, ascii: bool) -> None:
        super().__init__(display=Display(ascii=ascii), frozen_clock=True, player_name="Ann", server_label="snapshot")
        self.answers = {m.PastRounds: PAGE, m.Replay: engine_replay()}

    async def ask(self, kind: type[m.Request], fields: dict[str, Any]) -> dict[str, Any] | None:
        self.requests_sent.append((kind, fields))
        return copy.deepcopy(self.answers[kind])


@pytest.fixture
def utc(monkeypatch):
    """Dates in the history read the same wherever the snapshots are taken."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


def history_open():
    async def run_before(pilot) -> None:
        await wait_for(pilot, lambda: screen_name(pilot.app) == "LobbyScreen", what="lobby")
        await pilot.press("h")
        await wait_for(pilot, lambda: screen_name(pilot.app) == "HistoryScreen" and pilot.app.screen.lines,
                       what="history")
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
def test_history_snapshot(snap_compare, utc, ascii):
    assert snap_compare(CannedApp(ascii), run_before=history_open(), terminal_size=(80, 24))


@pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
def test_replay_snapshot(snap_compare, utc, ascii):
    """A replay at its eighth step: Ann's own hand, the public discards, the log so far; no legal keys."""
    async def run_before(pilot) -> None:
        await history_open()(pilot)
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen_name(pilot.app) == "ReplayScreen", what="replay")
        for _ in range(7):
            await pilot.press("right")
        await wait_for(pilot, lambda: pilot.app.screen.at == 7, what="step 8")
        await pilot.pause()

    assert snap_compare(CannedApp(ascii), run_before=run_before, terminal_size=(80, 24))


async def played_a_game(port: int, rounds: int = 2) -> str:
    """Ann plays ``rounds`` rounds against a bot and ends the game; her token."""
    async with ScriptedClient(port, "Ann") as ann:
        await ann.request(m.CreateTable, name="Ann's", settings=m.TableSettings(seats=2))
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        await autoplay(ann, until_round=rounds, host=True)
        await ann.request(m.Leave)
        assert ann.link.token is not None
        return ann.link.token


async def test_history_from_the_lobby_pages_and_a_replay_steps_forward_and_back(server):
    token = await played_a_game(server.port, rounds=1)
    app = DabApp(Session("127.0.0.1", server.port, "Ann", token), player_name="Ann")
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "LobbyScreen", what="lobby")
        await pilot.press("h")
        history = await wait_for(pilot, lambda: screen_name(app) == "HistoryScreen" and app.screen.lines
                                 and app.screen, what="history")
        assert [line["round"] for line in history.lines] == [2, 1]  # round 2 cut short by the end
        await wait_for(pilot, lambda: history.lines[-1]["result"][:20] in screen_text(app), what="the results")
        await pilot.press("g")  # her games
        await wait_for(pilot, lambda: history.games and len(history.lines) == 1, what="games")
        await pilot.press("g")
        await wait_for(pilot, lambda: not history.games and len(history.lines) == 2, what="rounds again")
        await pilot.press("down", "enter")  # round 1
        replay = await wait_for(pilot, lambda: screen_name(app) == "ReplayScreen" and app.screen, what="replay")
        assert replay.replay["round"] == 1 and replay.at == 0 and len(replay.steps) == replay.replay["total"]
        await pilot.press("right", "right", "right")
        await wait_for(pilot, lambda: replay.at == 3, what="step 4")
        assert replay.game == {**replay.steps[3]["view"], "legal": []}  # the game's view of Ann then
        await pilot.press("left")
        await wait_for(pilot, lambda: replay.at == 2, what="step 3")
        await pilot.press("end")
        await wait_for(pilot, lambda: replay.at == len(replay.steps) - 1, what="the last step")
        assert replay.game["phase"] == "waiting"  # the showdown's result is in the view and the log
        await pilot.press("home")
        await wait_for(pilot, lambda: replay.at == 0, what="the start")
        await pilot.press("plus", "plus", "plus", "space")  # play at 4 steps a second
        await wait_for(pilot, lambda: replay.at >= 1, timeout=3, what="playing")
        await pilot.press("space", "escape")
        await wait_for(pilot, lambda: screen_name(app) == "HistoryScreen", what="back to the history")
        await pilot.press("escape")
        await wait_for(pilot, lambda: screen_name(app) == "LobbyScreen", what="back to the lobby")
        await pilot.press("t")
        board = await wait_for(pilot, lambda: screen_name(app) == "LeaderboardScreen" and app.screen, what="leaders")
        await wait_for(pilot, lambda: "Ann" in screen_text(app), what="Ann ranked")
        await pilot.press("h")  # hide me
        await wait_for(pilot, lambda: board.hidden and "Ann" not in screen_text(app).split("Leaderboard")[1]
                       .split("You are")[0], what="Ann hidden")


async def ann_hosts_a_finished_game(pilot: Any, app: DabApp, bob: ScriptedClient, bots: int = 0) -> str:
    """Ann (the app) opens a table, Bob joins, ``bots`` bots fill it; she starts and ends the game: its id."""
    await wait_for(pilot, lambda: screen_name(app) == "LobbyScreen", what="lobby")
    created = await app.session.request(m.CreateTable, name="Again", settings=m.TableSettings(seats=2 + bots))
    await bob.request(m.Join, table_id=created["table_id"])
    for _ in range(bots):
        await app.session.request(m.AddBot)
    await app.session.request(m.Start)
    await app.session.request(m.EndGame)
    await wait_for(pilot, lambda: screen_name(app) == "GameOverScreen", what="game over")
    return created["table_id"]


async def test_the_host_offers_a_rematch_by_key_and_sees_who_is_awaited_and_a_decline(server):
    app = DabApp(Session("127.0.0.1", server.port, "Ann"), player_name="Ann")
    async with app.run_test(size=(100, 30)) as pilot, ScriptedClient(server.port, "Bob") as bob:
        await ann_hosts_a_finished_game(pilot, app, bob, bots=1)
        over = app.screen
        await wait_for(pilot, lambda: "offer a rematch" in screen_text(app), what="the host's rematch line")
        await pilot.press("r")
        await wait_for(pilot, lambda: "waiting for Bob" in screen_text(app), what="the offer shown")  # the bot accepted
        assert over.check_action("answer_rematch", (False,)) and not over.check_action("offer_rematch", ())
        await bob.request(m.AnswerRematch, accept=False)
        await wait_for(pilot, lambda: "No rematch: Bob declined the rematch" in app.table_screen.query_one("#log").plain,
                       what="the decline in the log")
        await wait_for(pilot, lambda: over.check_action("offer_rematch", ()), what="the offer key back")


async def test_a_rematch_accepted_by_every_seat_starts_the_new_table(server):
    """Bob hosts and offers (his offer is his acceptance); Ann, the last seat, accepts by key."""
    app = DabApp(Session("127.0.0.1", server.port, "Ann"), player_name="Ann")
    async with ScriptedClient(server.port, "Bob") as bob, app.run_test(size=(100, 30)) as pilot:
        created = await bob.request(m.CreateTable, name="Bob's", settings=m.TableSettings(seats=2))
        await wait_for(pilot, lambda: screen_name(app) == "LobbyScreen", what="lobby")
        await app.session.request(m.Join, table_id=created["table_id"])
        await bob.request(m.Start)
        await bob.request(m.EndGame)
        over = await wait_for(pilot, lambda: screen_name(app) == "GameOverScreen" and app.screen, what="game over")
        assert not over.check_action("offer_rematch", ())  # not the host
        await bob.request(m.OfferRematch)
        await wait_for(pilot, lambda: over.check_action("answer_rematch", (True,)), what="the offer")
        await pilot.press("y")
        await wait_for(pilot, lambda: app.table_id not in (None, created["table_id"]), what="the new table")
        await bob.wait_for(lambda: len(bob.facts) == 2 and bob.facts[app.table_id]["state"] == "playing")
        await wait_for(pilot, lambda: screen_name(app) in ("TableScreen", "CutScreen"), what="the new table shown")
        assert [x["name"] for x in app.table_screen.table["members"]] == ["Bob", "Ann"]


class SlowApp(DabApp):
    """An app that reads nothing while ``held``: what arrives meanwhile reaches it in one burst on
    :meth:`release`, as it does a client too slow to keep up (a loaded machine)."""

    CSS_PATH = CannedApp.CSS_PATH

    def __init__(self, session: Session) -> None:
        super().__init__(session, player_name=session.name)
        self.held: list[Any] | None = None

    def receive(self, item: Any) -> None:
        if self.held is not None:
            self.held.append(item)
        else:
            super().receive(item)

    def release(self) -> None:
        held, self.held = self.held or [], None
        for item in held:
            super().receive(item)


@contextlib.asynccontextmanager
async def at_the_rematch_cut(server: Any) -> AsyncIterator[tuple[Any, SlowApp, ScriptedClient, Any, int]]:
    """Ann hosts and offers by key; a modal is open over her game over when Bob's acceptance starts the
    rematch while her client reads nothing, so the old table's last pushes, the new table's first events
    (its round, its ``deal_commit``) and its first view reach her at once. Both seed: the deal waits for
    them (its window is long). Yields (pilot, app, bob, the old table screen, how many events Bob had before)."""
    server.lobby.config.table.seed_window = 10.0
    app = SlowApp(Session("127.0.0.1", server.port, "Ann"))
    async with app.run_test(size=(100, 30)) as pilot, SeedingClient(server.port, "Bob") as bob:
        old_id = await ann_hosts_a_finished_game(pilot, app, bob)
        await pilot.press("r")
        await wait_for(pilot, lambda: "waiting for Bob" in screen_text(app), what="her offer")
        app.push_screen(ConfirmScreen("A question left open over the game over?"))
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen", what="a modal over the game over")
        old, before = app.table_screen, len(bob.events)
        app.held = []
        await bob.request(m.AnswerRematch, accept=True)
        await wait_for(pilot, lambda: any(isinstance(item, m.View) and item.table_id != old_id
                                          for item in app.held or ()), what="the new table's view, held")
        app.release()
        yield pilot, app, bob, old, before


async def test_a_rematch_opens_on_its_first_decision_and_our_seed_is_in_its_deal(server):
    """The new table's events come before its view: the client keeps them, so its commitment for the new
    table's first round goes in with its first view, its seed is in the deck (Bob is told of it), and the
    first decision (the cut: ours, in its window, or Bob's) opens on the new table."""
    async with at_the_rematch_cut(server) as (pilot, app, bob, old, before):
        fixed = await bob.wait_for(lambda: next((e for e in bob.events[before:] if e["kind"] == "deck_fixed"), None))
        assert [seat for seat, _ in fixed["client_seeds"]] == [0, 1]
        dealer = next(e for e in bob.events[before:] if e["kind"] == "dealer")
        if dealer["cutter"] == 0:
            cut = await wait_for(pilot, lambda: screen_name(app) == "CutScreen" and app.screen, what="the cut window")
            assert app.screen_stack[-2:] == [app.table_screen, cut] and app.table_screen is not old
            await pilot.press("enter")
            made = await bob.wait_for(lambda: next((e for e in bob.events[before:] if e["kind"] == "cut"), None))
            assert made["seat"] == 0 and not made["random"]
            await wait_for(pilot, lambda: "You cut at" in app.table_screen.query_one("#log").plain, what="the cut")
        else:
            await bob.wait_for(lambda: list(bob.views.values())[-1].get("legal"))  # (the old table's view is kept)
            await bob.act({"kind": "cut", "position": None})
            await wait_for(pilot, lambda: "Bob cuts at" in app.table_screen.query_one("#log").plain, what="Bob's cut")
            assert app.table_screen is not old


async def test_the_table_screen_a_rematch_closed_ignores_what_still_comes_for_it(server):
    """What arrives for the old table's screen once the rematch has removed it (a view, events, chat, a deal
    check, a note) is dropped: nothing reaches its removed widgets (no NoMatches or NoScreen) or the new table."""
    from client.fairness import RoundStatus
    from engine.fairness import Verdict

    async with at_the_rematch_cut(server) as (pilot, app, bob, old, before):
        await wait_for(pilot, lambda: app.table_screen is not old and app.table_screen.is_attached
                       and not old.is_attached, what="the old one gone")
        shown = screen_name(app)
        old.view = {**old.view, "table": {**old.table, "name": "Late"}}
        old.add_events([{"kind": "chat_note", "text": "late"}])
        old.add_chat(1, "Bob", "late line", 1)
        old.show_deal(RoundStatus(1, verdict=Verdict(1, False, "cut", "late verdict")))
        old.note("late note")
        await pilot.pause()
        assert app.return_code is None and screen_name(app) in (shown, "CutScreen")  # (the new deal may be fixed)
        assert "late" not in app.table_screen.query_one("#log").plain + screen_text(app)
