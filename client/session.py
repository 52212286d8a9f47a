"""A player's connection that survives drops: a :class:`Link` plus reconnection.

No Textual here. The session hands everything the server pushes, and every
change of its own state, to one listener (the app), buffering until the
listener is attached so nothing sent right after the welcome is lost. When the
connection drops for any reason other than our own ``close()`` (or the server
saying we must not come back), it reconnects with the resume token, with a
growing pause between attempts; the server then sends the current view again.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any, Callable

from protocol import messages as m

from .link import Link, LinkError

# Server reasons after which coming back would be wrong or pointless.
FINAL_REASONS = frozenset({"closed", "replaced", "bad_token", "bad_name", "protocol_error", "rate_limited",
                           "version_mismatch", "banned"})
RETRY_DELAYS = (0.1, 0.5, 1.0, 2.0, 3.0, 5.0)
RETRY_FOR = 300.0  # give up after this many seconds without a connection

CONNECTING, CONNECTED, RECONNECTING, CLOSED = "connecting", "connected", "reconnecting", "closed"


@dataclass(frozen=True)
class Status:
    """The session's state changed: ``connected``, ``reconnecting`` or ``closed``."""

    state: str
    text: str
    attempt: int = 0


Listener = Callable[["m.Message | Status"], None]


def _superseded(view: m.View, following: list["m.Message | Status"]) -> bool:
    """Does a newer view of ``view``'s table come next in ``following``, or, for a table whose game has not
    begun, after nothing but events of that table that the newer view's log holds (the game's start) or
    that only say who came and went (the table's own ``joined``..., whose seats the newer view shows)?

    (Events between two views of a game under way may matter to the board beyond its log: a showdown's
    result opens its panel. Those views are all delivered.)"""
    between: list[Any] = []
    for item in following:
        if isinstance(item, m.View) and item.table_id == view.table_id:
            if not between:
                return True
            if view.game is not None:
                return False
            from engine.contract import TABLE_EVENT_KINDS  # (only here: a remote client's start-up skips it)

            log = (item.game or {}).get("log") or ()
            return all(event in log or event.get("kind") in TABLE_EVENT_KINDS for event in between)
        if not (isinstance(item, m.Event) and item.table_id == view.table_id):
            return False
        between += item.events
    return False


LinkFactory = Callable[..., Link]


class Session:
    def __init__(
        self,
        host: str,
        port: int,
        name: str,
        token: str | None = None,
        *,
        link_factory: LinkFactory = Link,
        retry_delays: tuple[float, ...] = RETRY_DELAYS,
        retry_for: float = RETRY_FOR,
    ) -> None:
        self.host, self.port, self.name, self.token = host, port, name, token
        self.link_factory = link_factory
        self.retry_delays = retry_delays
        self.retry_for = retry_for
        self.state = CONNECTING
        self.link: Link | None = None
        self.welcome: m.Welcome | None = None
        self.reconnects = 0
        self._listener: Listener | None = None
        self._buffer: list[m.Message | Status] = []
        self._reconnect_task: asyncio.Task[None] | None = None

    @property
    def address(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    # ------------------------------------------------------------ listening

    def listen(self, listener: Listener) -> None:
        """Deliver everything (including what arrived before) to ``listener``.

        Of the views kept until now, one that a newer view of the same table
        supersedes is left out: a view is the whole table, so the listener would
        only apply it to replace it (a practice game's set-up leaves five such
        views, each a layout and repaint before the first table is seen). Between
        the waiting room's last view and the first view of its game there may be
        events that this view's log holds (the round's ``round`` and
        ``deal_commit``): they are still delivered (the app checks the deal with
        them) and a fresh table screen's log starts from that view's log.
        """
        self._listener = listener
        buffered, self._buffer = self._buffer, []
        for i, item in enumerate(buffered):
            if not (isinstance(item, m.View) and _superseded(item, buffered[i + 1:])):
                listener(item)

    def _emit(self, item: m.Message | Status) -> None:
        if self._listener is None:
            self._buffer.append(item)
        else:
            self._listener(item)

    # ------------------------------------------------------------ connecting

    def _new_link(self, token: str | None) -> Link:
        link = self.link_factory(self.host, self.port, self.name, token)
        link.on_push = lambda message, link=link: self._on_push(link, message)
        link.on_close = lambda reason, text, link=link: self._on_close(link, reason, text)
        return link

    async def connect(self) -> m.Welcome:
        """Connect (resuming with the token if we have one); raises :class:`LinkError`."""
        link = self._new_link(self.token)
        try:
            welcome = await link.connect()
        except LinkError as exc:
            if exc.code != "bad_token" or self.token is None:
                self.state = CLOSED
                raise
            self.token = None  # the server forgot us (restarted): start afresh
            link = self._new_link(None)
            try:
                welcome = await link.connect()
            except LinkError:
                self.state = CLOSED
                raise
        self._adopt(link, welcome)
        return welcome

    def _adopt(self, link: Link, welcome: m.Welcome) -> None:
        self.link, self.welcome, self.token = link, welcome, welcome.token
        self.state = CONNECTED

    def _on_push(self, link: Link, message: m.Message) -> None:
        # A new link's first pushes (the view after a resume) can arrive before
        # its welcome has been adopted; old links are closed and push nothing.
        if self.state != CLOSED:
            self._emit(message)

    def _on_close(self, link: Link, reason: str, text: str) -> None:
        if link is not self.link or self.state == CLOSED:
            return
        if reason in FINAL_REASONS:
            self.state = CLOSED
            self._emit(Status(CLOSED, text))
            return
        self.state = RECONNECTING
        self._emit(Status(RECONNECTING, text))
        self._reconnect_task = asyncio.get_running_loop().create_task(self._reconnect())

    async def _reconnect(self) -> None:
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.retry_for
        attempt = 0
        while self.state == RECONNECTING:
            delay = self.retry_delays[min(attempt, len(self.retry_delays) - 1)]
            await asyncio.sleep(delay)
            attempt += 1
            if self.state != RECONNECTING:
                return
            link = self._new_link(self.token)
            try:
                welcome = await link.connect()
            except LinkError as exc:
                if exc.code in FINAL_REASONS:
                    self.state = CLOSED
                    self._emit(Status(CLOSED, f"could not resume: {exc.message}"))
                    return
                if loop.time() >= give_up:
                    self.state = CLOSED
                    self._emit(Status(CLOSED, f"gave up reconnecting: {exc.message}"))
                    return
                self._emit(Status(RECONNECTING, exc.message, attempt))
                continue
            if self.state != RECONNECTING:  # closed while we were connecting
                await link.close()
                return
            self._adopt(link, welcome)
            self.reconnects += 1
            self._emit(Status(CONNECTED, "reconnected", attempt))

    # ------------------------------------------------------------ requests

    async def request(self, kind: type[m.Message], **fields: Any) -> dict[str, Any]:
        if self.link is None or self.state != CONNECTED:
            raise LinkError("offline", "not connected to the server (reconnecting)")
        return await self.link.request(kind, **fields)

    async def act(self, action: dict[str, Any]) -> dict[str, Any]:
        return await self.request(m.Act, action=action)

    async def close(self) -> None:
        self.state = CLOSED
        task, self._reconnect_task = self._reconnect_task, None
        if task is not None and task is not asyncio.current_task():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        if self.link is not None:
            await self.link.close()

    def drop(self) -> None:
        """Cut the connection abruptly, as a network failure would (tests and ``--debug``)."""
        link = self.link
        if link is not None and link._writer is not None:
            transport = link._writer.transport
            transport.abort()
