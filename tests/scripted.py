"""Scripted protocol clients for tests: remember every push, wait on conditions, autoplay."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable

from client.link import Link, LinkError, RequestFailed
from engine.games.down_and_back.bots import baseline_action
from protocol import messages as m

WAIT = 10.0


class ScriptedClient:
    """A protocol client that remembers what it was told and can wait for it.

    ``views`` holds each table's latest game view (the ``game`` of its last
    ``view`` push; ``{}`` before the game starts), ``facts`` its ``table`` map
    and ``deadlines`` its ``deadline_ms``; ``all_views`` every game view in
    order, and ``view_pushes`` every ``view`` push as it came.
    """

    def __init__(self, port: int, name: str, token: str | None = None) -> None:
        self.name = name
        self.views: dict[str, dict[str, Any]] = {}
        self.facts: dict[str, dict[str, Any]] = {}
        self.deadlines: dict[str, int | None] = {}
        self.all_views: list[dict[str, Any]] = []
        self.view_pushes: list[m.View] = []
        self.events: list[dict[str, Any]] = []
        self.chats: list[m.ChatMessage] = []
        self.tables: tuple[m.TableSummary, ...] = ()
        self.online: list[m.Online] = []  # the online pushes (to a connection that asked list_online)
        self.invitations: list[m.Invitation] = []
        self.raw = bytearray()
        self.closed_with: tuple[str, str] | None = None
        self._changed = asyncio.Event()
        self.link = Link("127.0.0.1", port, name, token, on_push=self._push, on_close=self._closed,
                         on_data=self.raw.extend)

    async def __aenter__(self) -> "ScriptedClient":
        await self.link.connect()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.link.close()

    def _push(self, message: m.Message) -> None:
        if isinstance(message, m.View):
            game = message.game if message.game is not None else {}
            self.views[message.table_id] = game
            self.facts[message.table_id] = message.table
            self.deadlines[message.table_id] = message.deadline_ms
            self.all_views.append(game)
            self.view_pushes.append(message)
        elif isinstance(message, m.Event):
            self.events.extend(message.events)
        elif isinstance(message, m.ChatMessage):
            self.chats.append(message)
        elif isinstance(message, m.Tables):
            self.tables = message.tables
        elif isinstance(message, m.Online):
            self.online.append(message)
        elif isinstance(message, m.Invitation):
            self.invitations.append(message)
        self._changed.set()

    def _closed(self, reason: str, text: str) -> None:
        self.closed_with = (reason, text)
        self._changed.set()

    @property
    def view(self) -> dict[str, Any]:
        """The game view at the one table this client is at (``{}`` before its game)."""
        (view,) = self.views.values()
        return view

    @property
    def table(self) -> dict[str, Any]:
        """The server's facts about that table (the view's ``table``)."""
        (facts,) = self.facts.values()
        return facts

    def member(self, seat: int) -> dict[str, Any]:
        """The table's member in ``seat`` (bot, connected, away)."""
        return next(m for m in self.table["members"] if m["seat"] == seat)

    @property
    def deadline_ms(self) -> int | None:
        (deadline,) = self.deadlines.values()
        return deadline

    async def wait_for(self, predicate: Callable[[], Any], timeout: float = WAIT) -> Any:
        """Wait until ``predicate()`` is truthy, re-checking after every push."""
        async def loop() -> Any:
            while True:
                result = predicate()
                if result:
                    return result
                self._changed.clear()
                await self._changed.wait()

        return await asyncio.wait_for(loop(), timeout)

    async def request(self, kind: type[m.Message], **fields: Any) -> dict[str, Any]:
        return await self.link.request(kind, **fields)

    async def act(self, action: dict[str, Any]) -> dict[str, Any]:
        return await self.link.act(action)


class SeedingClient(ScriptedClient):
    """A scripted client that seeds and checks every round as ours does (client.fairness.DealWatch):
    its commitment as the deal_commit arrives, its seed as the seed set holding it does; ``verdicts``
    are the rounds' checks. ``fixed_seeds``: its seeds follow from its name (a test's deals repeat)."""

    def __init__(self, port: int, name: str, token: str | None = None, fixed_seeds: bool = False) -> None:
        import hashlib
        import itertools

        from client.fairness import DealWatch

        super().__init__(port, name, token)
        if fixed_seeds:
            count = itertools.count()
            self.deals = DealWatch(lambda n: hashlib.sha256(f"{name} {next(count)}".encode()).digest()[:n])
        else:
            self.deals = DealWatch()
        self.verdicts: list[Any] = []
        self.seeding: list[asyncio.Future[None]] = []
        self._early: dict[str, list[dict[str, Any]]] = {}

    def _push(self, message: m.Message) -> None:
        if isinstance(message, m.Event):
            if message.table_id in self.facts:
                self._deal(message.table_id, list(message.events))
            else:  # a rematch's first events come before its first view: kept for it, as our client does
                self._early.setdefault(message.table_id, []).extend(message.events)
        super()._push(message)
        if isinstance(message, m.View) and message.table_id in self._early:
            self._deal(message.table_id, self._early.pop(message.table_id))

    def _deal(self, table_id: str, events: list[dict[str, Any]]) -> None:
        table = self.facts[table_id]
        sends, verdicts = self.deals.arrived(table_id, events, table["seat"], table["settings"]["game"])
        self.verdicts += verdicts
        for send in sends:
            self.seeding.append(asyncio.ensure_future(self._seed(table_id, *send)))

    async def _seed(self, table_id: str, kind: str, round_no: int, value: str) -> None:
        request, field = (m.SeedCommit, "commit") if kind == "seed_commit" else (m.ClientSeed, "seed")
        try:
            await self.request(request, **{field: value})
        except RequestFailed as exc:  # the phase closed first (the window): the round is checked all the same
            self.deals.refused(table_id, kind, round_no, exc.code, exc.message)
            return
        except LinkError:
            return
        self.deals.accepted(table_id, kind, round_no, value)


async def autoplay(client, until_round: int, host: bool = False,
                   latencies: list[float] | None = None) -> None:
    """Play every decision with the baseline bot until the game is over.

    The host ends the game once round ``until_round`` has been completed.
    ``latencies``, if given, collects each accepted act's round trip (s).
    """
    def ready():
        view = client.views and client.view
        if not view:
            return None
        if view["phase"] == "over" or view["legal"] or (host and view["round"] > until_round):
            return view
        return None

    while True:
        view = await client.wait_for(ready)
        if view["phase"] == "over":
            return
        if host and view["round"] > until_round:
            await client.request(m.EndGame)
        else:
            try:
                sent = time.perf_counter()
                await client.act(baseline_action(view).to_data())
                if latencies is not None:
                    latencies.append(time.perf_counter() - sent)
            except RequestFailed as exc:  # a stale view: the deadline or a bot moved first, or the game ended
                assert exc.code in ("not_your_turn", "illegal_action", "no_game"), exc
        # The view this decision came from is out of date either way; its
        # successor may arrive after the reply, so wait for it.
        await client.wait_for(lambda: client.view is not view)


async def until(predicate: Callable[[], Any]) -> None:
    """Poll a server-side condition that no client is pushed about (wrap it in a timeout)."""
    while not predicate():
        await asyncio.sleep(0.02)


async def wait_any(clients: list[ScriptedClient], predicate: Callable[[], Any], timeout: float = WAIT) -> Any:
    """Wait until ``predicate()`` is truthy, re-checking after a push to any of ``clients``."""
    async def loop() -> Any:
        while True:
            for client in clients:
                client._changed.clear()
            result = predicate()
            if result:
                return result
            waits = [asyncio.ensure_future(client._changed.wait()) for client in clients]
            try:
                await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            finally:
                for waiting in waits:
                    waiting.cancel()

    return await asyncio.wait_for(loop(), timeout)


async def play_until(clients: list[ScriptedClient], done: Callable[[], Any]) -> None:
    """Play every decision the clients are shown with the baseline bot, one at a time, until ``done()``."""
    while not done():
        def ready() -> tuple[ScriptedClient, dict[str, Any]] | None:
            return next(((c, c.view) for c in clients if c.views and c.view.get("legal") and c.view["to_act"]), None)

        chosen = await wait_any(clients, lambda: done() or ready())
        if not isinstance(chosen, tuple):  # done
            return
        client, view = chosen
        if client.view is not view:  # a newer push landed before wait_any returned: look again
            continue
        await client.act(baseline_action(view).to_data())
        await client.wait_for(lambda: client.view is not view)
