"""Sockets: the listening server and one session (an asyncio protocol) per connection.

A session reads with deadlines (hello, idle, an unfinished frame), feeds bytes
to the sans-I/O :class:`protocol.Connection`, rate-limits requests, and hands
each request to the lobby. Writes never block a broadcast: ``push`` appends to
the transport's buffer and a peer whose unread backlog passes ``max_backlog``
is cut off, as are the worst slow peers when all backlogs together pass
``max_total_backlog``, so clients that stop reading cost bounded memory and
delay nobody. Connections and new identities are limited per address; log
lines a peer can cause are rate-limited and name the peer.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from dataclasses import dataclass
from typing import Any

from protocol import Connection, LocalProtocolError, RemoteProtocolError
from protocol import messages as m

from engine.fingerprint import fingerprint
from engine.games import GAMES

from .errors import RequestError
from .health import LoopMonitor
from .limits import BucketsByKey, PeerLog, TokenBucket, address_key
from .lobby import Lobby

log = logging.getLogger(__name__)


@dataclass
class NetConfig:
    hello_timeout: float = 10.0
    idle_timeout: float = 60.0  # no complete message for this long: dropped
    frame_timeout: float = 15.0  # a frame, once begun, must be complete within this
    max_connections: int = 1000
    max_per_address: int = 50  # connections from one address (SSH gateways and loopback: raise it)
    new_players_per_hour: int = 30  # tokenless hellos (new identities) from one address; bursts of as many
    gateway_addresses: frozenset[str] = frozenset()  # the SSH gateway's clients: it limits per SSH peer instead
    max_backlog: int = 1 << 20  # bytes queued to one peer before it is dropped
    max_total_backlog: int = 64 << 20  # bytes queued to all peers: past it, the worst offenders are dropped
    behind: int = 64 * 1024  # a peer with this much queued counts towards the total check
    socket_send_buffer: int = 64 * 1024  # keep the kernel's share of a slow peer's backlog small too
    linger: float = 2.0  # after a bye: how long unread input is drained so the peer can read the bye
    batch: int = 8  # messages of one connection handled per event-loop iteration
    rate: float = 20.0  # sustained requests per second
    burst: float = 40.0
    max_rate_errors: int = 100  # a flood past this is disconnected
    chat_rate: float = 1.0
    chat_burst: float = 5.0
    # The requests about the past (HISTORY_REQUESTS), weighed as message_cost weighs them, from one address
    # (a gateway's client: from one player) together, however many connections it opens: one connection's
    # fill of replays (4 pages a second) at once, half of it sustained (PROTOCOL.md §10).
    history_rate: float = 10.0
    history_burst: float = 40.0


HISTORY_ROUNDS_PER_MESSAGE = 10  # a history request counts as one message per 10 rounds it asks for (PROTOCOL.md §10)


REPLAY_COST = 5  # a replay page counts as this many messages (PROTOCOL.md §10; benchmarks/bench_history.py)
LEADERBOARD_COST = 2
HISTORY_REQUESTS = (m.History, m.PastRounds, m.PastGames, m.Replay, m.Leaderboard)
"""What also counts against the address's history budget (NetConfig.history_rate): the requests about the past."""


def message_cost(message: m.Message) -> int:
    """What a request counts against the rate limit: ``history`` and the pages of one's past in
    proportion to the lines asked for, a replay and the leaderboard as several messages, so one
    connection cannot spend more than a small share of the loop on them."""
    if isinstance(message, (m.History, m.PastRounds, m.PastGames)):
        return -(-message.limit // HISTORY_ROUNDS_PER_MESSAGE)
    if isinstance(message, m.Replay):
        return REPLAY_COST
    if isinstance(message, m.Leaderboard):
        return LEADERBOARD_COST
    return 1


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
        self.started = self.last_heard = self._loop.time()  # last_heard: the last complete message
        self.frame_started: float | None = None  # when the incomplete frame in progress began
        self.gone: asyncio.Future[None] = self._loop.create_future()  # done once the connection is lost
        self.peer = "?"
        self.host = "?"  # the peer's address, as the operator's bans of addresses match it
        self.address = "?"  # what per-address limits count (address_key of the peer's host)
        self._counted = False  # holds one of its address's connection slots
        self._paused = False  # reading paused while received messages wait for their turn
        self._holding = 0  # answers being worked out elsewhere (the history worker): later messages wait

    # ------------------------------------------------------------ connection

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        peer = transport.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        self.host = peer[0] if isinstance(peer, tuple) else self.peer
        self.address = address_key(peer[0]) if isinstance(peer, tuple) else self.peer
        server = self.server
        refusal = server.refusal(self)
        if refusal is not None:
            code, text = refusal
            self.push(m.Error(id=None, code=code, message=text))
            self.close_with(code, text)
            return
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, server.net.socket_send_buffer)
        transport.set_write_buffer_limits(high=server.net.behind)
        server.sessions.add(self)
        server.per_address[self.address] = server.per_address.get(self.address, 0) + 1
        self._counted = True

    def data_received(self, data: bytes) -> None:
        if self.closed:
            return  # draining after a bye (see close_with)
        self.conn.receive_data(data)
        self._handle_messages()

    def _handle_messages(self) -> None:
        """Handle at most ``net.batch`` of the messages received; if more are waiting,
        stop reading and go on in a later loop iteration, so a connection that sends
        many at once delays the others by one batch, not by all of them."""
        if self.closed:
            return
        conn, transport = self.conn, self.transport
        assert transport is not None
        try:
            for _ in range(self.server.net.batch):
                if self._holding:  # an answer is being worked out: the rest waits for it (release)
                    if not self._paused:
                        self._paused = True
                        transport.pause_reading()
                    return
                message = conn.next_message()
                if message is None:
                    break
                self.last_heard = self._loop.time()
                self._dispatch(message)
                if self.closed:
                    return
            else:
                if conn.waiting:
                    if not self._paused:
                        self._paused = True
                        transport.pause_reading()
                    self._loop.call_soon(self._handle_messages)
                    return
        except RemoteProtocolError as exc:
            self.push(m.Error.from_exception(exc))
            self.close_with("protocol_error", exc.message[:1000])
            return
        except Exception:  # a bug in one session must not take the server down
            log.exception("%s: session failed", self.peer)
            self.abort()
            return
        if self._paused:
            self._paused = False
            transport.resume_reading()
        if not self.conn.receiving:
            self.frame_started = None
        elif self.frame_started is None:
            self.frame_started = self._loop.time()

    def eof_received(self) -> bool:
        return False  # the peer hung up: close our end too

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        server = self.server
        server.sessions.discard(self)
        server.behind.discard(self)
        if self._counted:
            self._counted = False
            left = server.per_address.pop(self.address) - 1
            if left:
                server.per_address[self.address] = left
        try:
            if self.player_id is not None:
                server.lobby.disconnected(self.player_id, self)
        except Exception:  # pragma: no cover - a bug, logged with its traceback
            log.exception("%s: disconnect handling failed", self.peer)
        finally:
            if not self.gone.done():
                self.gone.set_result(None)

    def pause_writing(self) -> None:
        """The peer has fallen ``behind``: it now counts towards the total backlog."""
        self.server.behind.add(self)
        self.server.check_total_backlog()

    def resume_writing(self) -> None:
        self.server.behind.discard(self)

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

    def backlog(self) -> int:
        """Bytes queued to the peer that the kernel has not taken yet (a peer reading slowly, or not)."""
        if self.closed or self.transport is None:
            return 0
        return self.transport.get_write_buffer_size()

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
        if transport.is_closing() and not self.closed:
            # A send failed (the peer reset): asyncio logs every later write to a
            # lost connection, so stop writing before connection_lost arrives.
            self.closed = True
            return
        transport.write(data)
        queued = transport.get_write_buffer_size()
        if queued > self.server.net.max_backlog:
            self.server.peer_log.warning(self.peer, "not reading (%d bytes queued); disconnecting", queued)
            self.abort()
        elif self in self.server.behind:
            self.server.check_total_backlog()

    def close_with(self, reason: str, message: str) -> None:
        """Say goodbye and close. The write side is shut down first and unread
        input drained for up to ``linger`` seconds: closing a socket with unread
        input resets the connection, and the peer would lose the bye."""
        if self.closed:
            return
        self.push(m.Bye(reason=reason, message=message))
        self.closed = True
        transport = self.transport
        assert transport is not None
        if transport.is_closing():
            return
        if not transport.can_write_eof():
            transport.close()
            return
        try:
            transport.write_eof()  # after the queued bytes; the peer's EOF then closes (eof_received)
        except OSError:  # the peer is gone already
            transport.abort()
            return
        self._loop.call_later(self.server.net.linger, transport.abort)

    def hold(self) -> None:
        """Handle none of this connection's later messages until :meth:`release`: a request's answer is
        being worked out off the loop, and the replies must keep the order of the requests."""
        self._holding += 1

    def release(self) -> None:
        self._holding -= 1
        if not self._holding and not self.closed:
            self._loop.call_soon(self._handle_messages)

    def abort(self) -> None:
        self.closed = True
        if self.transport is not None:
            self.transport.abort()

    # ------------------------------------------------------------ deadlines and requests

    def check_deadlines(self, now: float) -> None:
        """Called by the server's watchdog: no hello in time, silent too long, or a frame left unfinished."""
        net = self.server.net
        if self.closed:
            return
        if self.frame_started is not None and now - self.frame_started > net.frame_timeout:
            self.close_with("frame_timeout", f"a frame was begun but not finished within {net.frame_timeout:g} s")
        elif self.player_id is None and now - self.started > net.hello_timeout:
            self.close_with("hello_timeout", f"no hello within {net.hello_timeout:g} s")
        elif self.player_id is not None and now - self.last_heard > net.idle_timeout:
            self.close_with("idle", f"no message for {net.idle_timeout:g} s (send ping)")

    def _dispatch(self, message: m.Message) -> None:
        request_id = getattr(message, "id", None)
        if not self.requests.take(message_cost(message)):
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
        if isinstance(message, HISTORY_REQUESTS) and not self.server.history_budget.take(
                self.player_id if self.address in self.server.net.gateway_addresses else self.address,
                message_cost(message)):
            self.push(m.Error(id=request_id, code="rate_limited",
                              message="too many requests about past rounds from your address; slow down"))
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
        if message.token is None and self.address not in self.server.net.gateway_addresses \
                and not self.server.new_players.take(self.address):
            self.server.peer_log.warning(self.peer, "too many new players from %s; hello refused", self.address)
            text = "too many new players from your address; try again later, or reconnect with your token"
            self.push(m.Error(id=message.id, code="rate_limited", message=text))
            self.close_with("rate_limited", text)
            return
        try:
            welcome = self.server.lobby.hello(self, message)  # the lobby sends it, once it is durable
        except RequestError as exc:
            self.push(m.Error(id=message.id, code=exc.code, message=exc.message))
            self.close_with(exc.code, exc.message)
            return
        self.player_id = welcome.player_id


def warm_games() -> None:
    """Every game builds its lookup tables (``GameType.warm_up``) and its fingerprint now.

    dab-server calls this before it restores its tables: a restored table's timers (the
    restore grace, deadlines) must not run down while the tables are built."""
    for game in GAMES.values():
        game.warm_up()
        fingerprint(game)


class GameServer:
    def __init__(self, lobby: Lobby, net: NetConfig | None = None) -> None:
        self.lobby = lobby
        self.net = net or NetConfig()
        self.sessions: set[ClientSession] = set()
        self.per_address: dict[str, int] = {}  # open sessions by address_key
        self.behind: set[ClientSession] = set()  # sessions with at least ``net.behind`` bytes queued
        self.new_players = BucketsByKey(self.net.new_players_per_hour / 3600, self.net.new_players_per_hour)
        self.history_budget = BucketsByKey(self.net.history_rate, self.net.history_burst)
        self.peer_log = PeerLog(log)
        self.shutting_down = False
        self._server: asyncio.base_events.Server | None = None
        self._watchdog: asyncio.TimerHandle | None = None
        self.monitor: LoopMonitor | None = None  # the event loop's lag and the traffic, logged once a minute
        self.started_at: float | None = None  # loop time when it began to listen
        lobby.health = self.stats

    def refusal(self, session: ClientSession) -> tuple[str, str] | None:
        """Why a new connection is turned away (error code and text), or None."""
        if self.shutting_down:
            return "shutting_down", "the server is shutting down"
        banned = self.lobby.moderation.refusal(host=session.host)
        if banned is not None:
            self.peer_log.warning(session.peer, "refused: the address is banned")
            return "banned", banned
        if len(self.sessions) >= self.net.max_connections:
            self.peer_log.warning(session.peer, "refused: the server has %d connections", len(self.sessions))
            return "server_full", "the server has too many connections"
        if self.per_address.get(session.address, 0) >= self.net.max_per_address \
                and session.address not in self.net.gateway_addresses:
            self.peer_log.warning(session.peer, "refused: %d connections from this address already",
                                  self.per_address[session.address])
            return "too_many_connections", f"at most {self.net.max_per_address} connections from one address"
        return None

    def check_total_backlog(self) -> None:
        """Keep the bytes queued to all slow peers under ``max_total_backlog``:
        drop the peers with the most queued first."""
        sizes = {s: s.transport.get_write_buffer_size() for s in self.behind if s.transport is not None}
        total = sum(sizes.values())
        for session in sorted(sizes, key=sizes.__getitem__, reverse=True):
            if total <= self.net.max_total_backlog:
                break
            self.peer_log.warning(session.peer, "not reading (%d bytes queued, %d to all slow peers); disconnecting",
                                  sizes[session], total)
            total -= sizes[session]
            self.behind.discard(session)
            session.abort()

    async def start(self, host: str, port: int, warm: bool = True) -> None:
        """Listen on ``host:port``, warm first: every game builds its lookup tables
        (``GameType.warm_up``) and its fingerprint (stored at each start) now, before anyone
        can connect, not on the loop at its first move or start, stalling every table.
        ``warm=False`` listens at once and leaves both to their first use (a practice game,
        whose one table must start instantly)."""
        if warm:
            warm_games()
        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(lambda: ClientSession(self), host, port)
        self.lobby.gateway_started("game", self.port, [s.getsockname()[0] for s in self._server.sockets])
        self._watch_deadlines()
        self.monitor = LoopMonitor(self.counts)
        self.started_at = loop.time()

    def counts(self) -> tuple[int, int, int, int]:
        """Actions applied and requests handled so far, connections and tables now (for the health log)."""
        lobby = self.lobby
        return lobby.actions_applied, lobby.requests_handled, len(self.sessions), len(lobby.tables)

    def stats(self) -> dict[str, Any]:
        """The ``stats`` request's result (PROTOCOL.md): the loop's lag and the traffic over the
        last one to two minutes, counts now, the uptime; nothing about any player or table."""
        if self.monitor is None or self.started_at is None:
            return {}
        figures, period = self.monitor.peek()
        return {
            "uptime_s": round(asyncio.get_running_loop().time() - self.started_at, 1), "period_s": round(period, 1),
            "lag_p50_ms": round(figures.lag_p50, 2), "lag_p99_ms": round(figures.lag_p99, 2),
            "lag_max_ms": round(figures.lag_max, 2), "actions_per_s": round(figures.actions_per_s, 1),
            "requests_per_s": round(figures.requests_per_s, 1), "connections": figures.connections,
            "tables": figures.tables, "tables_playing": sum(t.state == "playing" for t in self.lobby.tables.values()),
        }

    def _watch_deadlines(self) -> None:
        """Every so often, drop sessions past their hello, idle or frame deadline."""
        loop = asyncio.get_running_loop()
        now = loop.time()
        for session in list(self.sessions):
            session.check_deadlines(now)
        period = min(1.0, self.net.hello_timeout / 4, self.net.idle_timeout / 4, self.net.frame_timeout / 4)
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
        if self.monitor is not None:
            self.monitor.close()
            self.monitor.report()  # the last figures, so a short run (a benchmark) has them too
        if self._server is not None:
            self._server.close()
        for session in list(self.sessions):
            session.close_with("shutting_down", "the server is shutting down")
        self.lobby.close()
        await self.lobby.archive.worker.wait_closed()
        gone = [session.gone for session in self.sessions]
        if gone:
            _, pending = await asyncio.wait(gone, timeout=grace)
            if pending:  # peers that did not hang up: cut them off
                for session in list(self.sessions):
                    session.abort()
                await asyncio.wait(pending, timeout=1.0)
