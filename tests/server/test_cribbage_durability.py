"""A Cribbage table survives SIGKILL and reconnects: the same count, hands, pegs and decision come back.

The real ``dab-server`` is killed with SIGKILL mid-play (a count under way) and,
under the muggins house rule, mid-show (a count being claimed); after the
restart the players come back with their tokens and each is shown exactly the
game view it had before the kill, with the same decision awaited, and they play
on to the end of the game. A reconnect with the token mid-hand (no restart)
gives the same seat and view back.
"""

from __future__ import annotations

import asyncio
import signal
from contextlib import AsyncExitStack
from typing import Any, Callable

import pytest

from scripted_cribbage import assert_conserved, games_won, play_cribbage, play_until, seat_table
from durability_helpers import FAST, ServerProcess, integrity
from scripted import ScriptedClient
from server.store import Store

STAKE = 10
NAMES = ("ann", "bob")


def settled(clients: list[ScriptedClient], stop: Callable[[dict[str, Any]], bool]) -> Callable[[], bool]:
    """Every client has been shown the same decision, and it is one ``stop`` wants to stop at."""
    def check() -> bool:
        pushes = [c.view_pushes[-1] for c in clients if c.view_pushes]
        return (len(pushes) == len(clients) and pushes[0].game is not None and stop(pushes[0].game)
                and len({tuple(p.decision or ()) for p in pushes}) == 1 and any(c.view["legal"] for c in clients))
    return check


def mid_count(view: dict[str, Any]) -> bool:
    """A count under way, in a deal after the first, with points pegged."""
    return view["phase"] == "play" and view["count"] > 0 and view["deal"] >= 2 and len(view["series"]) >= 2


def mid_show(view: dict[str, Any]) -> bool:
    """Muggins: a count claimed in the show, in a deal after the first."""
    return view["phase"] == "show" and view["deal"] >= 2 and view["counting"] is not None


@pytest.mark.parametrize("stop, rules", [(mid_count, {}), (mid_show, {"muggins": True})], ids=["mid-play", "mid-show"])
async def test_sigkill_resumes_the_same_count_hands_and_decision(tmp_path, stop, rules):
    server = ServerProcess(tmp_path, *FAST)
    await server.start()
    try:
        async with AsyncExitStack() as stack:
            clients = [await stack.enter_async_context(ScriptedClient(server.port, name)) for name in NAMES]
            await seat_table(clients, 2, stake=STAKE, **rules)
            await asyncio.wait_for(play_until(clients, settled(clients, stop)), 20)
            before = [(c.link.welcome.token, c.view_pushes[-1]) for c in clients]
        assert await server.stop(signal.SIGKILL) == -signal.SIGKILL
        integrity(server.db)
        await server.start()
        async with AsyncExitStack() as stack:
            clients = [await stack.enter_async_context(ScriptedClient(server.port, name, token))
                       for name, (token, _) in zip(NAMES, before)]
            for client, (_, push) in zip(clients, before):
                assert client.link.welcome.resumed
                await client.wait_for(lambda: client.view_pushes)
                again = client.view_pushes[-1]
                assert again.decision == push.decision
                assert again.game == push.game  # the same hand, count, series, pegs, crib, legal entries
                assert stop(again.game)  # still the count (or the claim) under way
            await asyncio.wait_for(play_cribbage(clients), 20)
            (won,) = games_won(clients[0])
            assert won["scores"][won["winners"][0]] >= 121
            for client in clients:
                assert_conserved(client, 2 * 3 * STAKE)
    finally:
        await server.close()
    store = Store(server.db)
    try:
        assert store.audit() == []
    finally:
        store.close()


async def test_a_reconnect_with_the_token_mid_hand_gets_the_seat_and_the_hand_back(connect):
    async with connect("ann") as ann:
        async with connect("bob") as bob:
            await seat_table([ann, bob], 2)
            await asyncio.wait_for(play_until([ann, bob], settled([ann, bob], mid_count)), 20)
            token, seat, last = bob.link.welcome.token, bob.view["seat"], bob.view_pushes[-1]
        await ann.wait_for(lambda: not ann.member(seat)["connected"])
        async with connect("bob", token) as again:
            welcome = again.link.welcome
            assert welcome.resumed and (welcome.table_id, welcome.seat) == (last.table_id, seat)
            await again.wait_for(lambda: again.view_pushes)
            assert again.view_pushes[-1].decision == last.decision
            assert again.view == last.game
            await asyncio.wait_for(play_cribbage([ann, again]), 20)
            assert games_won(again) == games_won(ann)
