"""Scripted Cribbage play for the server tests: the baseline's choice from the legal entries each client is shown."""

from __future__ import annotations

from typing import Any, Callable

from client.link import RequestFailed
from engine.games.cribbage.bots import baseline_action
from protocol import messages as m
from scripted import ScriptedClient, wait_any


def games_won(client: ScriptedClient) -> list[dict[str, Any]]:
    return [e for e in client.events if e["kind"] == "game_won"]


Choice = Callable[[ScriptedClient, dict[str, Any]], dict[str, Any]]


def baseline(client: ScriptedClient, view: dict[str, Any]) -> dict[str, Any]:
    return baseline_action(view).to_data()


async def play_until(clients: list[ScriptedClient], done: Callable[[], Any], choose: Choice = baseline) -> None:
    """Play one decision at a time (whoever is shown a legal entry; ``choose`` picks the action) until ``done()``."""
    while not done():
        def ready() -> tuple[ScriptedClient, dict[str, Any]] | None:
            return next(((c, c.view) for c in clients if c.views and c.view.get("legal")), None)

        chosen = await wait_any(clients, lambda: done() or ready())
        if not isinstance(chosen, tuple):
            return
        client, view = chosen
        if client.view is not view:  # a newer push landed before wait_any returned: look again
            continue
        try:
            await client.act(choose(client, view))
        except RequestFailed as exc:  # a stale view: a deadline or a bot moved first
            assert exc.code in ("not_your_turn", "illegal_action", "no_game"), exc
        await client.wait_for(lambda: client.view is not view)


async def play_cribbage(clients: list[ScriptedClient], games: int = 1) -> None:
    """Play until ``games`` games are won (as the first client was told), or the table is over."""
    watcher = clients[0]
    await play_until(clients, lambda: len(games_won(watcher)) >= games
                     or (bool(watcher.views) and watcher.view.get("phase") == "over"))


def assert_conserved(client: ScriptedClient, brought: int) -> None:
    """Chips in hand plus chips at risk are what the players brought, in every view shown."""
    for view in client.all_views:
        if view:
            assert sum(s["stack"] + s["staked"] for s in view["seats"]) == brought


async def seat_table(clients: list[ScriptedClient], seats: int, bots: int = 0, **rules: Any) -> str:
    """The first client creates a Cribbage table with ``rules``, the others join, the host seats bots and starts."""
    host = clients[0]
    created = await host.request(m.CreateTable, name="crib",
                                 settings=m.TableSettings(game="cribbage", seats=seats, rules=rules))
    for client in clients[1:]:
        await client.request(m.Join, table_id=created["table_id"])
    for _ in range(bots):
        await host.request(m.AddBot)
    await host.request(m.Start)
    return created["table_id"]
