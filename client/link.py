"""The client's end of the wire: asyncio streams + the sans-I/O protocol.

No Textual here, so the same link drives the TUI, scripted test clients and
bots. Requests get ids and await their reply; pushes (views, events, chat,
table lists) go to ``on_push``. A heartbeat ping keeps the server from
dropping an idle but healthy connection.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from typing import Any, Callable

from protocol import Connection, ProtocolError
from protocol import messages as m
from protocol.connection import server_version_in

HEARTBEAT = 15.0
CONNECT_TIMEOUT = 10.0
REQUEST_TIMEOUT = 15.0


class LinkError(Exception):
    """The server refused us, or the connection failed; ``code`` says which."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class RequestFailed(LinkError):
    """The server answered a request with ``error``."""


class Link:
    def __init__(
        self,
        host: str,
        port: int,
        name: str,
        token: str | None = None,
        on_push: Callable[[m.Message], None] | None = None,
        on_close: Callable[[str, str], None] | None = None,
        on_data: Callable[[bytes], None] | None = None,
        client_name: str = "dab-client",
    ) -> None:
        self.host, self.port, self.name, self.token = host, port, name, token
        self.on_push = on_push or (lambda message: None)
        self.on_close = on_close or (lambda reason, text: None)
        self.on_data = on_data or (lambda data: None)
        self.client_name = client_name
        self.welcome: m.Welcome | None = None
        self._conn = Connection("client")
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[m.Message]] = {}
        self._writer: asyncio.StreamWriter | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self.closed = False
        self.close_reason: tuple[str, str] | None = None

    async def connect(self) -> m.Welcome:
        """Open the connection and greet; raises :class:`LinkError` on any failure."""
        try:
            reader, self._writer = await asyncio.wait_for(
                asyncio.open_connection(self.host, self.port), CONNECT_TIMEOUT
            )
        except (OSError, asyncio.TimeoutError) as exc:
            raise LinkError("unreachable", f"cannot connect to {self.host}:{self.port}: {_reason(exc)}") from None
        self._tasks.append(asyncio.create_task(self._read(reader)))
        hello = m.Hello(id=next(self._ids), version=m.PROTOCOL_VERSION, name=self.name[:64],
                        token=self.token, client=self.client_name)
        try:
            reply = await self._call(hello)
        except LinkError as exc:
            if exc.code == "version_mismatch":
                raise LinkError(exc.code, version_mismatch_text(exc.message)) from None
            raise
        if not isinstance(reply, m.Welcome):
            await self.close()
            raise LinkError("bad_reply", f"expected welcome, got {reply.type}")
        self.welcome = reply
        self.token = reply.token
        self._tasks.append(asyncio.create_task(self._heartbeat()))
        return reply

    async def request(self, kind: type[m.Message], **fields: Any) -> dict[str, Any]:
        """Send a request and return the ``ok`` result; ``error`` raises :class:`RequestFailed`."""
        reply = await self._call(kind(id=next(self._ids), **fields))
        assert isinstance(reply, m.Ok)
        return dict(reply.result)

    async def act(self, action: dict[str, Any]) -> dict[str, Any]:
        return await self.request(m.Act, action=action)

    async def _call(self, message: m.Message) -> m.Message:
        if self.closed or self._writer is None:
            raise LinkError("closed", "not connected")
        future: asyncio.Future[m.Message] = asyncio.get_running_loop().create_future()
        self._pending[message.id] = future  # type: ignore[attr-defined]
        try:
            self._writer.write(self._conn.send(message))
        except ProtocolError as exc:
            self._pending.pop(message.id, None)  # type: ignore[attr-defined]
            raise LinkError(exc.code, exc.message) from None
        # A timer that fails the future, rather than wait_for's extra task per request.
        timer = asyncio.get_running_loop().call_later(REQUEST_TIMEOUT, _expire, future, message.type)
        try:
            reply = await future
        finally:
            timer.cancel()
            self._pending.pop(message.id, None)  # type: ignore[attr-defined]
        if isinstance(reply, m.Error):
            raise (LinkError if isinstance(message, m.Hello) else RequestFailed)(reply.code, reply.message)
        return reply

    async def _read(self, reader: asyncio.StreamReader) -> None:
        reason = ("disconnected", "the server closed the connection")
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                self.on_data(data)
                self._conn.receive_data(data)
                for message in self._conn:
                    self._route(message)
                    if isinstance(message, m.Bye):
                        reason = (message.reason, message.message)
        except ProtocolError as exc:
            if self.welcome is None:  # garbage before any welcome: not a game server at all (an SSH port...)
                reason = ("not_dab", f"{self.host}:{self.port} does not speak the Down and Back protocol")
            else:
                reason = (exc.code, f"the server sent something we cannot read: {exc.message}")
        except (ConnectionError, OSError) as exc:
            reason = ("disconnected", f"connection lost: {_reason(exc)}")
        finally:
            self._finish(reason)

    def _route(self, message: m.Message) -> None:
        request_id = getattr(message, "id", None)
        if isinstance(message, (m.Ok, m.Error, m.Welcome)) and request_id in self._pending:
            future = self._pending.pop(request_id)
            if not future.done():
                future.set_result(message)
            return
        self.on_push(message)

    def _finish(self, reason: tuple[str, str]) -> None:
        if self.closed:
            return
        self.closed = True
        self.close_reason = reason
        for future in self._pending.values():
            if not future.done():
                future.set_exception(LinkError(*reason))
        self._pending.clear()
        if self._writer is not None:
            self._writer.close()
        for task in self._tasks:
            if task is not asyncio.current_task():
                task.cancel()
        self.on_close(*reason)

    async def _heartbeat(self) -> None:
        while not self.closed:
            await asyncio.sleep(HEARTBEAT)
            with contextlib.suppress(LinkError):
                await self.request(m.Ping)

    async def close(self) -> None:
        self._finish(("closed", "closed by the client"))
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


def version_mismatch_text(refusal: str) -> str:
    """What to tell the user when the server refused our protocol version (``refusal``: its message)."""
    ours = m.PROTOCOL_VERSION
    theirs = server_version_in(refusal)
    if theirs is None:
        return f"the server speaks another protocol version than this client's {ours} ({refusal})"
    older = "the server" if theirs < ours else "this client"
    return (f"this server speaks protocol version {theirs}; this client speaks version {ours}: "
            f"upgrade the older side ({older})")


def _expire(future: asyncio.Future[m.Message], kind: str) -> None:
    if not future.done():
        future.set_exception(LinkError("timeout", f"no answer to {kind} in {REQUEST_TIMEOUT:g} s"))


def _reason(exc: BaseException) -> str:
    if isinstance(exc, asyncio.TimeoutError):
        return "timed out"
    if isinstance(exc, ConnectionRefusedError) or "Connect call failed" in str(exc):
        return "connection refused (is the server running on that port?)"
    return getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
