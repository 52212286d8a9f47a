"""Scripted players who stay connected while a test drives real terminals: their own event loop, in a thread."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from protocol import messages as m
from scripted import ScriptedClient


class Friends:
    """Scripted clients of the server on ``port``, each connected for the test's whole length (a seated
    player who drops frees a waiting table's seat: the table would close under the test)."""

    def __init__(self, port: int | None = None) -> None:
        self.port = port
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.clients: list[ScriptedClient] = []

    def call(self, coroutine: Any, timeout: float = 30.0) -> Any:
        """Run ``coroutine`` on the friends' loop and return what it returns."""
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def connect(self, name: str) -> ScriptedClient:
        async def connect() -> ScriptedClient:
            client = ScriptedClient(self.port, name)  # type: ignore[arg-type]
            await client.link.connect()
            return client

        client = self.call(connect())
        self.clients.append(client)
        return client

    def table(self, host: ScriptedClient, game: str, seats: int = 3, bots: int = 0, code: str | None = None,
              name: str | None = None) -> str:
        """``host`` makes a table (and stays at it, so it stays open); its id."""
        async def make() -> str:
            created = await host.request(m.CreateTable, name=name or f"{host.name}'s table", private_code=code,
                                         settings=m.TableSettings(game=game, seats=seats))
            for _ in range(bots):
                await host.request(m.AddBot)
            return created["table_id"]

        return self.call(make())

    def close(self) -> None:
        for client in self.clients:
            self.call(client.link.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
