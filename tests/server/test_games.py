"""Whole games over real sockets: scripted clients, conservation and information hiding."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack

import msgpack
import pytest

from engine.games.down_and_back.bots import baseline_action
from engine.games.down_and_back.rules import SHOWDOWN
from protocol import messages as m
from protocol.framing import FrameDecoder
from plain_data import assert_plain_data, strings_in
from scripted import autoplay
from server.net import ClientSession


def conserved(client, brought: int) -> None:
    for view in client.all_views:
        assert_plain_data(view)  # the server sends views unvalidated: they must be plain by construction
        if view:  # a game view (none before the game)
            assert sum(p["stack"] for p in view["players"]) + view["pot"] == brought


@pytest.mark.parametrize("players", [2, 3, 4, 5])
async def test_scripted_clients_play_whole_games(connect, players):
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(connect(f"player{i}")) for i in range(players)]
        host = clients[0]
        created = await host.request(m.CreateTable, name="test", settings=m.TableSettings(seats=players, rules={"ante": 10, "stack": 100}))
        for client in clients[1:]:
            await client.request(m.Join, table_id=created["table_id"])
        await host.request(m.Start)
        await asyncio.wait_for(
            asyncio.gather(*(autoplay(c, until_round=2, host=(c is host)) for c in clients)), 60
        )
        for client in clients:
            view = client.view
            assert view["phase"] == "over"
            assert view["pot"] == 0 and sum(s["stack"] for s in view["standings"]) == 100 * players
            assert view["round"] >= 2
            conserved(client, 100 * players)
        results = [e for e in host.events if e["kind"] == "result"]
        assert len(results) >= 2


async def test_no_client_is_ever_sent_another_players_hidden_cards(server, connect, monkeypatch):
    """Record every byte pushed to each client with what was secret from it at that moment: the other
    hands, the stock, the game's own seed, and the round's seed until the round is over (issue 15)."""
    sent: dict = {}  # by session, then by player
    original = ClientSession.push

    def secrets_for(player_id: str) -> set[str]:
        player = server.lobby.players.get(player_id)
        table = server.lobby.tables.get(player.table_id) if player and player.table_id else None
        game = table.game if table else None
        if game is None:
            return set()
        seat = table.seat_of(player_id)
        public = {str(c) for c in game.discard_pile}
        for record in game.round_log:
            public |= strings_in(record.for_seat(None))
            if record.seat == seat:
                public |= strings_in(record.for_seat(seat))
        if not game.fair.open:  # the round is over and its seed revealed: every card of it may be known
            return {game.rng.seed.hex()}  # but never the game's own seed (every later round's)
        hidden = {str(c) for c in game.stock} | {game.rng.seed.hex(), game.fair.seed.hex()}
        if game.phase == SHOWDOWN or game.showdown is None:
            for other, p in game.players.items():
                if other != seat:
                    hidden |= {str(c) for c in p.hand}
        return hidden - public - ({str(c) for c in game.players[seat].hand} if seat is not None else set())

    def recording_push(session, message, encoded=None):  # the welcome leaves before the session knows its player
        hidden = secrets_for(session.player_id) if session.player_id is not None else set()
        sent.setdefault(session, []).append((_encoded(message), hidden))
        return original(session, message, encoded)

    monkeypatch.setattr(ClientSession, "push", recording_push)
    async with AsyncExitStack() as stack:
        clients = [await stack.enter_async_context(connect(f"spy{i}")) for i in range(3)]
        watcher = await stack.enter_async_context(connect("watcher"))
        host = clients[0]
        created = await host.request(m.CreateTable, name="secrets", settings=m.TableSettings(seats=4))
        for client in clients[1:]:
            await client.request(m.Join, table_id=created["table_id"])
        await host.request(m.AddBot)
        await watcher.request(m.Watch, table_id=created["table_id"])
        await host.request(m.Start)
        await asyncio.wait_for(asyncio.gather(*(autoplay(c, 2, host=(c is host)) for c in clients)), 60)
        await watcher.wait_for(lambda: watcher.view["phase"] == "over")
    sent = {session.player_id: frames for session, frames in sent.items() if session.player_id is not None}
    for client in [*clients, watcher]:  # every member had each round's commitment before its cut
        kinds = [e["kind"] for e in client.events if e["kind"] in ("deal_commit", "cut", "deal_reveal")]
        assert kinds[:3] == ["deal_commit", "cut", "deal_reveal"] and kinds.count("cut") >= 2
        assert all(kinds[i - 1] == "deal_commit" for i, kind in enumerate(kinds) if kind == "cut")
    checked = 0
    for player_id, frames in sent.items():
        for data, hidden in frames:
            for card in hidden:
                assert _packed(card) not in data, f"{card} was sent to {player_id}"
            checked += bool(hidden)
    assert checked > 100
    # What we checked is exactly what the clients received, byte for byte.
    for client in [*clients, watcher]:
        pushed = b"".join(data for data, _ in sent[client.link.welcome.player_id])
        assert client.raw and pushed[: len(client.raw)] == bytes(client.raw)


def _encoded(message) -> bytes:
    return m.encode(message)


def _packed(text: str) -> bytes:
    return msgpack.packb(text)


async def test_the_reply_to_an_action_leaves_before_the_pushes_it_caused(connect):
    """The asker waits for the reply; its new view and events follow it (as the protocol allows)."""
    async with connect("ann") as ann, connect("bob") as bob:
        created = await ann.request(m.CreateTable, name="order", settings=m.TableSettings(seats=2))
        await bob.request(m.Join, table_id=created["table_id"])
        await ann.request(m.Start)
        for _ in range(3):  # the cut, a draw, a discard
            asker = await ann.wait_for(lambda: next((c for c in (ann, bob) if c.views and c.view["legal"]), None))
            before = len(asker.raw)
            views = len(asker.all_views)
            reply = await asker.act(baseline_action(asker.view).to_data())
            await asker.wait_for(lambda: len(asker.all_views) > views)
            decoder = FrameDecoder()
            decoder.feed(bytes(asker.raw[before:]))
            kinds = [frame["type"] for frame in iter(decoder.next_frame, None)]
            assert kinds[0] == "ok" and "seq" in reply
            assert "view" in kinds[1:]
