"""``dab-server stats``: ask a running server for its health figures (the ``stats`` request) and print them.

It connects like any client: a ``hello`` without a token (a new player, which the
server forgets within a day as it never plays, and which counts against the
address's new players an hour), then ``stats``.
"""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

from protocol import Connection
from protocol import messages as m

from . import __version__


class StatsRefused(Exception):
    """The server answered with an error (its code and message say why)."""


async def ask(host: str, port: int, timeout: float = 5.0) -> dict[str, Any]:
    """The ``stats`` result of the server at ``host:port``."""
    return await asyncio.wait_for(_ask(host, port), timeout)


async def _ask(host: str, port: int) -> dict[str, Any]:
    reader, writer = await asyncio.open_connection(host, port)
    conn = Connection("client")
    try:
        writer.write(conn.send(m.Hello(id=1, version=m.PROTOCOL_VERSION, name=f"stats {secrets.token_hex(2)}",
                                       token=None, client=f"dab-server stats {__version__}")))
        await _reply(reader, conn, 1)
        writer.write(conn.send(m.Stats(id=2)))
        reply = await _reply(reader, conn, 2)
        assert isinstance(reply, m.Ok)
        return reply.result
    finally:
        writer.close()


async def _reply(reader: asyncio.StreamReader, conn: Connection, request_id: int) -> m.Message:
    """The reply to ``request_id`` (pushes before it are skipped)."""
    while True:
        message = conn.next_message()
        if message is None:
            data = await reader.read(65536)
            if not data:
                raise ConnectionError("the server closed the connection")
            conn.receive_data(data)
            continue
        if isinstance(message, m.Error) and message.id in (request_id, None):
            raise StatsRefused(f"{message.code}: {message.message}")
        if isinstance(message, m.Bye):
            raise StatsRefused(f"{message.reason}: {message.message}")
        if getattr(message, "id", None) == request_id and isinstance(message, (m.Welcome, m.Ok)):
            return message


def describe(address: str, stats: dict[str, Any]) -> str:
    """The figures as a host reads them."""
    hours, rest = divmod(int(stats.get("uptime_s", 0)), 3600)
    return "\n".join([
        f"dab-server at {address}: up {hours} h {rest // 60:02d} min",
        f"event-loop lag over the last {stats.get('period_s', 0):.0f} s: p50 {stats.get('lag_p50_ms', 0):.2f} ms, "
        f"p99 {stats.get('lag_p99_ms', 0):.2f} ms, max {stats.get('lag_max_ms', 0):.2f} ms",
        f"traffic: {stats.get('actions_per_s', 0):.1f} actions/s, {stats.get('requests_per_s', 0):.1f} requests/s",
        f"now: {stats.get('connections', 0)} connections, {stats.get('tables', 0)} tables "
        f"({stats.get('tables_playing', 0)} playing)",
    ])

