"""Turn deadlines: each decision gets the whole turn time, however the timer is kept."""

from __future__ import annotations

import asyncio
import contextlib

from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from client.link import LinkError
from engine.games import GAMES
from engine.games.cribbage.bots import baseline_action as cribbage_baseline
from engine.games.down_and_back.bots import baseline_action
from engine.games.down_and_back.rules import DISCARD, DRAW, PLAY
from protocol import messages as m
from scripted import ScriptedClient, play_until
from server.lobby import Lobby, LobbyConfig
from server.net import GameServer, NetConfig
from server.table import TableConfig

TURN = 0.6


async def test_a_decision_made_late_gives_the_next_one_its_full_time(server, connect):
    server.lobby.config.table.turn_timeout = TURN
    loop = asyncio.get_running_loop()
    async with connect("ann") as ann, connect("bob") as bob:
        created = await ann.request(m.CreateTable, name="clock", settings=m.TableSettings(seats=2))
        await bob.request(m.Join, table_id=created["table_id"])
        await ann.request(m.Start)
        table = server.lobby.tables[created["table_id"]]
        await ann.wait_for(lambda: table.game.phase == PLAY)  # the cut timed out or was made
        seat = table.game.turn_seat
        player = ann if ann.view["seat"] == seat else bob
        await player.wait_for(lambda: player.view["legal"] and player.view["legal"][0]["kind"] == "take_stock")
        await asyncio.sleep(TURN * 0.6)  # use most of the draw's time on purpose
        seen, before = len(player.events), player.view
        sent = loop.time()  # the new deadline starts when the server takes the draw: no earlier than this
        await player.act({"kind": "take_stock"})
        after = await player.wait_for(lambda: player.view is not before and player.view)  # it may follow the ok
        assert after and TURN * 1000 - 250 <= player.deadline_ms <= TURN * 1000  # the deadline that came with it
        await player.wait_for(lambda: any(e["kind"] == "timeout" and e["seat"] == seat for e in player.events[seen:]))
        waited = loop.time() - sent
        assert TURN - 0.01 <= waited < TURN + 1.0  # not at the draw's deadline, and not never
        assert table.game.players[seat].turns_taken >= 1  # the discard was played for the seat


async def test_a_seat_coming_back_just_as_its_turn_arrives_gets_a_deadline(server, connect, timing_watch):
    """Bob leaves a running game; Ann's discard passes the turn to him just before his join lands.

    The turn reached an away seat (no deadline, an away move pending); then he
    was back, so the away move had nothing to do. The table used to wait
    forever with ``deadline_ms: nil``.
    """
    server.lobby.config.table.away_delay = 5.0  # the away move is pending when the join lands, however slow the test
    async with connect("ann") as ann, connect("bob") as bob:
        created = await ann.request(m.CreateTable, name="back", settings=m.TableSettings(seats=2))
        await bob.request(m.Join, table_id=created["table_id"])
        await ann.request(m.Start)
        table = server.lobby.tables[created["table_id"]]
        game = table.game
        await play_until([ann, bob], lambda: game.phase == PLAY and game.step == DISCARD)
        mover = ann if ann.view["seat"] == game.turn_seat else bob
        other = bob if mover is ann else ann
        other_seat = other.view["seat"]
        await other.request(m.Leave)
        await mover.act(baseline_action(mover.view).to_data())  # the turn passes to the away seat
        assert game.to_act() == [other_seat] and table.pacer.deadline_at is None
        await other.request(m.Join, table_id=created["table_id"])
        view = await other.wait_for(lambda: other.views.get(table.table_id))
        assert view["to_act"] == [other_seat] and other.deadlines[table.table_id] is not None
        assert table.pacer.timing_problems() == [] and timing_watch == []
        await other.act(baseline_action(view).to_data())  # and the game goes on
        assert game.turn_seat == other_seat and game.step == DISCARD


async def test_a_disconnected_players_decision_is_played_after_the_absent_grace(server, connect):
    """One friend who drops costs the others a few seconds per decision, not the whole turn deadline."""
    grace = 0.3
    server.lobby.config.table.absent_grace = grace  # the turn deadline stays 30 s
    loop = asyncio.get_running_loop()
    async with connect("ann") as ann, connect("bob") as bob:
        created = await ann.request(m.CreateTable, name="absent", settings=m.TableSettings(seats=2))
        await bob.request(m.Join, table_id=created["table_id"])
        await ann.request(m.Start)
        table = server.lobby.tables[created["table_id"]]
        game = table.game
        await play_until([ann, bob], lambda: game.phase == PLAY and game.step == DRAW)
        mover = ann if ann.view["seat"] == game.turn_seat else bob
        other = bob if mover is ann else ann
        seat, seen = game.turn_seat, len(other.events)
        await mover.link.close()
        dropped = loop.time()
        await other.wait_for(lambda: any(e["kind"] == "timeout" and e["seat"] == seat for e in other.events[seen:]),
                             timeout=5)
        waited = loop.time() - dropped
        assert grace - 0.05 <= waited < 3, waited
        assert game.players[seat].turns_taken >= 1 or game.turn_seat != seat  # the whole turn was played


# ------------------------------------------------ the invariant under churn (hypothesis)

MOVES = ["play", "play", "leave", "join", "sit_out", "sit_in", "disconnect", "reconnect"]
PLAYERS = 3
BASELINES = {"down-and-back": baseline_action, "cribbage": cribbage_baseline}  # each game's, on its views


@hsettings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(bursts=st.lists(st.lists(st.tuples(st.integers(0, PLAYERS - 1), st.sampled_from(MOVES)), min_size=1, max_size=3),
                       min_size=5, max_size=25),
       absent_grace=st.sampled_from([0.0, 0.02, 5.0]), game=st.sampled_from(sorted(GAMES)))
def test_whatever_players_do_the_game_never_waits_without_a_timer(bursts, absent_grace, game, timing_watch):
    """Leave, join, sit out, drop and come back amid play, several at once; then everyone plays on
    (at a table of each game: four seats are Cribbage's two partnerships).

    ``timing_watch`` checks every table after every message the server
    handles; at the end every player is back and the game must reach the next
    round (nothing stalled for good).
    """
    config = TableConfig(turn_timeout=30.0, bot_delay=0.0, away_delay=0.0, round_pause=0.0, absent_grace=absent_grace,
                         seed_window=0.05)
    asyncio.run(_churn(bursts, config, game, timing_watch))


async def _churn(bursts, config: TableConfig, game_name: str, timing_watch: list[str]) -> None:
    server = GameServer(Lobby(LobbyConfig(table=config, seed=b"churn"), "churn"), NetConfig(rate=1000.0, burst=1000.0))
    await server.start("127.0.0.1", 0)
    clients: list[ScriptedClient | None] = []
    try:
        for i in range(PLAYERS):
            clients.append(await ScriptedClient(server.port, f"p{i}").__aenter__())
        host = clients[0]
        created = await host.request(m.CreateTable, name="churn",
                                     settings=m.TableSettings(game=game_name, seats=PLAYERS + 1))
        table_id = created["table_id"]
        for client in clients[1:]:
            await client.request(m.Join, table_id=table_id)
        await host.request(m.AddBot)
        await host.request(m.Start)
        table = server.lobby.tables[table_id]
        tokens = [c.link.welcome.token for c in clients]

        async def move(i: int, what: str) -> None:
            client = clients[i]
            if what == "reconnect":
                if client is None:
                    clients[i] = await ScriptedClient(server.port, f"p{i}", tokens[i]).__aenter__()
                return
            if client is None:
                return
            if what == "disconnect":
                clients[i] = None
                await client.link.close()
                return
            request = {"leave": (m.Leave, {}), "join": (m.Join, {"table_id": table_id}),
                       "sit_out": (m.SitOut, {"away": True}), "sit_in": (m.SitOut, {"away": False})}.get(what)
            try:
                if request is not None:
                    await client.request(request[0], **request[1])
                elif client.views.get(table_id, {}).get("legal"):
                    await client.act(BASELINES[game_name](client.views[table_id]).to_data())
            except LinkError:
                pass  # not possible now (not at the table, a stale view, dropped in this burst): keep going

        for burst in bursts:
            await asyncio.gather(*(move(i, what) for i, what in burst))  # a burst arrives together
            assert timing_watch == [], timing_watch
        for i in range(PLAYERS):  # everyone comes back and plays on
            await move(i, "reconnect")
            for what in ("join", "sit_in"):
                await move(i, what)
        game = table.game
        target = game.round_no + 1
        everyone = [c for c in clients if c is not None]
        while game.round_no < target:
            seen = [c.views.get(table_id) for c in everyone]
            for client, view in zip(everyone, seen):
                if view and view["legal"]:
                    with contextlib.suppress(LinkError):
                        await client.act(BASELINES[game_name](view).to_data())
            await asyncio.wait_for(_newer_view(everyone, seen, table_id), 10)
        assert timing_watch == [], timing_watch
    finally:
        for client in clients:
            if client is not None:
                await client.link.close()
        await server.close(grace=0.5)


async def _newer_view(clients: list[ScriptedClient], seen: list, table_id: str) -> None:
    """Wait until one of ``clients`` has a newer view of the table than ``seen``."""
    waits = [asyncio.ensure_future(c.wait_for(lambda c=c, v=v: c.views.get(table_id) is not v, timeout=60))
             for c, v in zip(clients, seen)]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()
