"""Sockets: the listening server and one session (an asyncio protocol) per connection.

A session reads with deadlines (hello, idle), feeds bytes to the sans-I/O
:class:`protocol.Connection`, rate-limits requests, and hands each request to
the lobby. Writes never block a broadcast: ``push`` appends to the transport's
buffer and a peer whose unread backlog passes ``max_backlog`` is cut off, so a
client that stops reading costs bounded memory and delays nobody.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import time
from dataclasses import dataclass

from protocol import Connection, LocalProtocolError, RemoteProtocolError
from protocol import messages as m

from .errors import RequestError
from .lobby import Lobby

log = logging.getLogger(__name__)


@dataclass
class NetConfig:
    hello_timeout: float = 10.0
    idle_timeout: float = 60.0
    max_connections: int = 1000
    max_backlog: int = 1 << 20  # bytes queued to one peer before it is dropped
    socket_send_buffer: int = 64 * 1024  # keep the kernel's share of a slow peer's backlog small too
    rate: float = 20.0  # sustained requests per second
    burst: float = 40.0
    max_rate_errors: int = 100  # a flood past this is disconnected
    chat_rate: float = 1.0
    chat_burst: float = 5.0


class TokenBucket:
    """``rate`` events per second on average, ``burst`` at once."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class ClientSession(asyncio.Protocol):
    """One connection. Bytes are handled in ``data_received`` itself, with no
    reader task between the socket and the lobby: a request is answered in the
    event-loop iteration its bytes arrive in."""

    def __init__(self, server: "GameServer") -> None:
        self.server = server
        self.transport: asyncio.Transport | None = None
        self.conn = Connection("server")
        self.player_id: str | None = None
        self.closed = False
        self.requests = TokenBucket(server.net.rate, server.net.burst)
        self.chats = TokenBucket(server.net.chat_rate, server.net.chat_burst)
        self.rate_errors = 0
        self._corked: list[bytes] | None = None
        self._loop = asyncio.get_running_loop()
        self.started = self.last_heard = self._loop.time()
        self.gone: asyncio.Future[None] = self._loop.create_future()  # done once the connection is lost
        self.peer = "?"

    # ------------------------------------------------------------ connection

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        peer = transport.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        server = self.server
        if server.shutting_down or len(server.sessions) >= server.net.max_connections:
            code = "shutting_down" if server.shutting_down else "server_full"
            text = "the server is shutting down" if server.shutting_down else "the server has too many connections"
            self.push(m.Error(id=None, code=code, message=text))
            self.close_with(code, text)
            return
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, server.net.socket_send_buffer)
        server.sessions.add(self)

    def data_received(self, data: bytes) -> None:
        if self.closed:
            return
        self.last_heard = self._loop.time()
        self.conn.receive_data(data)
        try:
            for message in self.conn:
                self._dispatch(message)
                if self.closed:
                    return
        except RemoteProtocolError as exc:
            self.push(m.Error.from_exception(exc))
            self.close_with("protocol_error", exc.message[:1000])
        except Exception:  # a bug in one session must not take the server down
            log.exception("%s: session failed", self.peer)
            self.abort()

    def eof_received(self) -> bool:
        return False  # the peer hung up: close our end too

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self.server.sessions.discard(self)
        try:
            if self.player_id is not None:
                self.server.lobby.disconnected(self.player_id, self)
        except Exception:  # pragma: no cover - a bug, logged with its traceback
            log.exception("%s: disconnect handling failed", self.peer)
        finally:
            if not self.gone.done():
                self.gone.set_result(None)

    # ------------------------------------------------------------ writing

    def push(self, message: m.Message, encoded: bytes | None = None) -> None:
        """Queue a message (``encoded``: its bytes, when shared by many peers);
        drop the peer instead of buffering without bound."""
        if self.closed:
            return
        try:
            data = self.conn.send(message, encoded=encoded)
        except LocalProtocolError:
            log.exception("%s: refusing to send %s", self.peer, message.type)
            return
        if self._corked is not None:
            self._corked.append(data)
            return
        self._write(data)

    def cork(self) -> bool:
        """Hold pushes until :meth:`uncork`, so a burst (events, view) leaves
        in one write: the peer wakes once, not once per message.
        Returns False if the session was corked already."""
        if self._corked is not None:
            return False
        self._corked = []
        return True

    def uncork(self) -> None:
        corked, self._corked = self._corked, None
        if corked and not self.closed:
            self._write(b"".join(corked))

    def _write(self, data: bytes) -> None:
        transport = self.transport
        assert transport is not None
        transport.write(data)
        if transport.get_write_buffer_size() > self.server.net.max_backlog:
            log.warning("%s: not reading (%d bytes queued); disconnecting", self.peer, transport.get_write_buffer_size())
            self.abort()

    def close_with(self, reason: str, message: str) -> None:
        """Say goodbye and close (the peer may still read what was queued)."""
        if self.closed:
            return
        self.push(m.Bye(reason=reason, message=message))
        self.closed = True
        assert self.transport is not None
        self.transport.close()

    def abort(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.abort()

    # ------------------------------------------------------------ deadlines and requests

    def check_deadlines(self, now: float) -> None:
        """Called by the server's watchdog: no hello in time, or silent too long."""
        net = self.server.net
        if self.closed:
            return
        if self.player_id is None and now - self.started > net.hello_timeout:
            self.close_with("hello_timeout", f"no hello within {net.hello_timeout:g} s")
        elif self.player_id is not None and now - self.last_heard > net.idle_timeout:
            self.close_with("idle", f"nothing heard for {net.idle_timeout:g} s (send ping)")

    def _dispatch(self, message: m.Message) -> None:
        request_id = getattr(message, "id", None)
        if not self.requests.take():
            self.rate_errors += 1
            if self.rate_errors > self.server.net.max_rate_errors:
                self.close_with("rate_limited", "too many requests")
            else:
                self.push(m.Error(id=request_id, code="rate_limited", message="too many requests; slow down"))
            return
        if isinstance(message, m.Hello):
            self._hello(message)
            return
        if isinstance(message, m.Chat) and not self.chats.take():
            self.push(m.Error(id=request_id, code="rate_limited", message="chat is limited to one message a second"))
            return
        assert self.player_id is not None
        reply = self.server.lobby.handle(self.player_id, message)
        if reply is not None:  # None: the lobby sends it after the group commit
            self.push(reply)

    def _hello(self, message: m.Hello) -> None:
        if self.server.shutting_down:
            self.push(m.Error(id=message.id, code="shutting_down", message="the server is shutting down"))
            self.close_with("shutting_down", "the server is shutting down")
            return
        try:
            welcome = self.server.lobby.hello(self, message)
        except RequestError as exc:
            self.push(m.Error(id=message.id, code=exc.code, message=exc.message))
            self.close_with(exc.code, exc.message)
            return
        self.player_id = welcome.player_id
        self.push(welcome)
        self.server.lobby.welcomed(welcome.player_id)


class GameServer:
    def __init__(self, lobby: Lobby, net: NetConfig | None = None) -> None:
        self.lobby = lobby
        self.net = net or NetConfig()
        self.sessions: set[ClientSession] = set()
        self.shutting_down = False
        self._server: asyncio.base_events.Server | None = None
        self._watchdog: asyncio.TimerHandle | None = None

    async def start(self, host: str, port: int) -> None:
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(lambda: ClientSession(self), host, port)
        self._watch_deadlines()

    def _watch_deadlines(self) -> None:
        """Every so often, drop sessions past their hello or idle deadline."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        for session in list(self.sessions):
            session.check_deadlines(now)
        period = min(1.0, self.net.hello_timeout / 4, self.net.idle_timeout / 4)
        self._watchdog = loop.call_later(period, self._watch_deadlines)

    @property
    def port(self) -> int:
        assert self._server is not None
        return self._server.sockets[0].getsockname()[1]

    @property
    def addresses(self) -> list[str]:
        assert self._server is not None
        return [f"{s.getsockname()[0]}:{s.getsockname()[1]}" for s in self._server.sockets]

    async def serve_forever(self) -> None:
        assert self._server is not None
        await self._server.serve_forever()

    async def close(self, grace: float = 3.0) -> None:
        """Tell every client we are going, then close within ``grace`` seconds."""
        self.shutting_down = True
        if self._watchdog is not None:
            self._watchdog.cancel()
        if self._server is not None:
            self._server.close()
        for session in list(self.sessions):
            session.close_with("shutting_down", "the server is shutting down")
        self.lobby.close()
        gone = [session.gone for session in self.sessions]
        if gone:
            _, pending = await asyncio.wait(gone, timeout=grace)
            if pending:  # peers that did not hang up: cut them off
                for session in list(self.sessions):
                    session.abort()
                await asyncio.wait(pending, timeout=1.0)
