"""The lobby's units of work and their delivery: durable before ok.

Each request, hello, disconnect and timer step is one unit of work (:meth:`Delivery.atomic`); its writes
are committed (fsync) *before* the replies and pushes it produced leave. With ``group_commit`` the
units of one event-loop iteration (and all that run while a commit is in flight) share a transaction
whose COMMIT runs in the store's writer thread; the messages it owes are built and encoded at once,
from the state it commits, and leave when the commit is done. A failed commit stops the process
(:func:`server.lobby.fatal_exit`): memory is then ahead of the disk. See :mod:`server.lobby`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import sqlite3
from typing import TYPE_CHECKING, Callable

from protocol import messages as m

from .errors import StoreError

if TYPE_CHECKING:
    from .lobby import Lobby, Session
    from .table import Table

log = logging.getLogger("server.lobby")  # the lobby's own log, as before the split


class Delivery:
    """The units of work and the delivery of what they owe (a part of :class:`server.lobby.Lobby`)."""

    def atomic(self) -> "_UnitOfWork":
        """One unit of work: its writes commit together before its messages are sent.

        Re-entrant; the outermost unit commits. Writes mirror changes already
        made in memory, so they are committed even if the unit raised.
        """
        return self._unit

    def _unit_done(self) -> None:
        if self.store is None or not self.config.group_commit:
            self._commit_and_flush()
        elif self._commit_pending or self._in_flight is not None:
            pass  # this unit's writes and messages join the next commit
        elif self.store.pending:
            self._commit_pending = True
            asyncio.get_running_loop().call_soon(self._group_commit)
        else:
            self._commit_and_flush()  # nothing to make durable: send now

    def _group_commit(self) -> None:
        if self._commit_pending and self._in_flight is None:
            self._commit_pending = False
            self._commit_and_flush()

    def _held(self) -> bool:
        """Messages wait: a unit is running, or a commit they may depend on is pending or in flight."""
        return bool(self._depth) or self._commit_pending or self._in_flight is not None

    def touched(self, table: Table) -> None:
        """``table``'s game changed in this unit: checkpoint it before the commit."""
        self._touched[table.table_id] = table

    def _commit_and_flush(self) -> None:
        """Commit what the units since the last flush wrote, and send what they owe once it is durable:
        in the writer thread with ``group_commit`` (the messages are built now and sent by
        :meth:`_committed`), else here and now."""
        outbox, self._outbox = self._outbox, []
        touched, self._touched = self._touched, {}
        dirty, self._dirty = self._dirty, {}
        actors, self._actors = self._actors, []
        commit = None
        if self.store is not None and self.store.pending:
            try:
                for table in touched.values():
                    table.save_checkpoint()
                if self.config.group_commit and not self._closing:  # a shutdown commits here, and waits
                    commit = self.store.submit()
                else:
                    self.store.commit()
            except (sqlite3.Error, StoreError) as exc:
                self.config.on_fatal(exc)
                raise
        delivery = self._deliveries(outbox, dirty, actors, eager=commit is None)
        if commit is None:
            delivery.send()
            return
        self._in_flight = commit, delivery
        loop = asyncio.get_running_loop()
        commit.add_done_callback(lambda done: loop.call_soon_threadsafe(self._committed, done, delivery))

    def _committed(self, commit: "concurrent.futures.Future[None]", delivery: "_Delivery") -> None:
        """The writer thread made a transaction durable: send what it owed, then hand over the next."""
        if self._in_flight is None or self._in_flight[1] is not delivery:
            return  # done already (the shutdown waited for it)
        self._in_flight = None
        failure = commit.exception()
        if failure is not None:  # nothing this transaction's units produced may go out
            self.config.on_fatal(failure)
            return
        delivery.send()
        assert self.store is not None
        if self._commit_pending or self._outbox or self._dirty or self.store.pending:
            self._commit_pending = False
            self._commit_and_flush()

    def _deliveries(self, outbox: list[tuple[str, m.Message, Session | None, bool]], dirty: dict[str, Table],
                    actors: list[str], eager: bool = False) -> "_Delivery":
        """Build (and encode) every message a flush sends, in order; ``eager`` (nothing waits for a
        commit): each burst leaves as soon as it is built, so a reply does not wait for the views of
        everyone else at the table.

        Whoever asked is answered first: the reply leaves at once (it is what
        they wait for; the protocol lets it precede the pushes it caused),
        then their other messages (a chat line, a table list), events and
        view, then everyone else's. Views are built here, once per member,
        from the state after every change of this unit (or group).
        """
        self._plan = delivery = _Delivery(eager)
        heard: dict[str, list[Table]] = {}  # who hears which of the tables (a group commit holds many)
        for table in dirty.values():
            for member, _ in table.audience.members():
                heard.setdefault(member, []).append(table)
        owed: dict[str, list[tuple[str, m.Message, Session | None, bool]]] = {actor: [] for actor in actors}
        for entry in outbox:
            if entry[0] in owed:
                owed[entry[0]].append(entry)
        try:
            for actor, mine in owed.items():  # once each, however many requests they sent in this group
                for entry in sorted(mine, key=lambda entry: not entry[3]):  # replies first
                    self._deliver_entry(entry)
                delivery.burst()
                for table in heard.get(actor, ()):
                    table.audience.flush(only=actor)
                delivery.burst()
            for entry in outbox:
                if entry[0] not in owed:
                    self._deliver_entry(entry)
            for table in dirty.values():
                table.audience.flush()
                table.audience.flushed()
        finally:
            self._plan = None
        return delivery

    def _push(self, session: Session, message: m.Message) -> None:
        if self._plan is not None:
            self._plan.add(session, message)
        else:
            session.push(message)

    def _deliver_entry(self, entry: tuple[str, m.Message, Session | None, bool]) -> None:
        session = entry[2]
        if session is not None and not session.closed:
            self._push(session, entry[1])

    def table_dirty(self, table: Table) -> None:
        """``table`` has news for its members: send it with the next flush (now, outside a unit)."""
        self._dirty[table.table_id] = table
        if not self._held():
            self._commit_and_flush()

    def send(self, player_id: str, message: m.Message) -> None:
        """Send ``message`` to the player's session, after the commit it may depend on: to the
        session connected now (one that replaces it meanwhile gets its own welcome and view)."""
        player = self.players.get(player_id)
        session = player.session if player is not None else None
        if self._plan is None and self._held():
            self._outbox.append((player_id, message, session, False))
        elif session is not None:
            self._push(session, message)

    async def durable(self) -> None:
        """Return once everything written so far is committed."""
        done = asyncio.get_running_loop().create_future()
        self.after_commit(lambda: done.done() or done.set_result(None))
        await done

    def after_commit(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` once everything written so far is durable (at once if nothing waits)."""
        if self._held():
            self._outbox.append(("", m.Ping(id=0), _Callback(callback), False))  # type: ignore[arg-type]
        else:
            callback()


class _Callback:
    """A stand-in session in the outbox: "pushing" to it runs its callback, after the commit it waits for."""

    closed = False
    peer = host = "-"

    def __init__(self, callback: Callable[[], None]) -> None:
        self._callback = callback

    def push(self, message: m.Message, encoded: bytes | None = None) -> None:
        callback, self._callback = self._callback, lambda: None
        callback()

    def cork(self) -> bool:
        return False

    def uncork(self) -> None:
        pass


class _Delivery:
    """The messages one flush sends, in order, encoded as they are added; :meth:`send` writes them
    (``eager``: each burst is written as soon as it ends).

    Each burst's messages to one session leave in one write (the session is
    corked): the peer wakes once, not once per message.
    """

    __slots__ = ("_entries", "_encoded", "_eager")

    def __init__(self, eager: bool = False) -> None:
        self._entries: list[tuple[Session, m.Message, bytes] | None] = []  # None: a burst ends
        # a message sent to many is encoded once (kept beside its bytes: its id stays its own)
        self._encoded: dict[int, tuple[m.Message, bytes]] = {}
        self._eager = eager

    def add(self, session: Session, message: m.Message) -> None:
        known = self._encoded.get(id(message))
        if known is None:
            known = self._encoded[id(message)] = (message, m.encode(message))
        self._entries.append((session, message, known[1]))

    def burst(self) -> None:
        if self._eager:
            self.send()
        else:
            self._entries.append(None)

    def send(self) -> None:
        entries, self._entries = self._entries, []
        corked: list[Session] = []
        try:
            for entry in entries:
                if entry is None:
                    for session in corked:
                        session.uncork()
                    corked.clear()
                    continue
                session, message, encoded = entry
                if session.cork():
                    corked.append(session)
                session.push(message, encoded)
        finally:
            for session in corked:
                session.uncork()


class _UnitOfWork:
    """The context manager :meth:`Lobby.atomic` returns: one per lobby, as
    units nest by depth (a plain class: every request and timer step enters two)."""

    __slots__ = ("_lobby",)

    def __init__(self, lobby: Lobby) -> None:
        self._lobby = lobby

    def __enter__(self) -> None:
        self._lobby._depth += 1

    def __exit__(self, *exc_info: object) -> None:
        lobby = self._lobby
        lobby._depth -= 1
        if lobby._depth == 0:
            lobby._unit_done()
