"""The store's transactions: the write path that makes "durable before ok" true.

Writes queue their statements in the open transaction; :meth:`Commits.submit` runs them and hands the
COMMIT (the fsync) to one writer thread while the event loop goes on, one commit in flight at a time;
:meth:`Commits.commit` does it all on the caller's thread and waits. A failed write or commit is final
(:class:`StoreFailed`): what the transaction held is rolled back, never half-written. See the module
documentation of :mod:`server.store`.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import json
import sqlite3
import time
from typing import Any, Iterable, Sequence

from .errors import StoreBusy, StoreError, StoreFailed

BUSY_WAIT = 0.1  # s: the longest a unit waits for another program's lock (it blocks the event loop)
BUSY_BACKOFF = 1.0  # s: after a busy lock, try again without waiting for this long


_json = json.JSONEncoder(separators=(",", ":"), sort_keys=True).encode  # built once: every action is encoded


class Commits:
    """The transaction half of :class:`server.store.Store` (which opens the connection and sets the state)."""

    conn: sqlite3.Connection
    path: str
    commits: int
    failed: StoreFailed | None
    _in_tx: bool
    _locked: bool
    _statements: list[tuple[str, Any, bool]]
    _writer: concurrent.futures.ThreadPoolExecutor | None
    _flight: concurrent.futures.Future[None] | None
    _lock_waited_since: float | None
    _reader: sqlite3.Connection | None
    _busy_until: float

    def begin(self) -> None:
        """Take the write lock before changing anything (a no-op inside a transaction).

        Raises :class:`StoreBusy` if another program holds it for longer than
        :data:`BUSY_WAIT` (no wait at all within :data:`BUSY_BACKOFF` of the
        last time), so a busy database never stalls the server for long.
        While a commit is in flight the writer thread holds the lock and takes
        it again for this transaction once that commit is done (waiting out
        another program that slipped in between, while new units get
        :class:`StoreBusy`).
        """
        if self._in_tx:
            return
        if self.failed is not None:
            raise self.failed
        if self._flight is not None and not self._flight.done():
            if self._lock_waited_since is not None:
                raise StoreBusy(f"{self.path} is locked by another program")
            self._in_tx = True
            return
        quick = time.monotonic() < self._busy_until
        try:
            if quick:
                self.conn.execute("PRAGMA busy_timeout = 0")
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                raise self._fail(exc) from None
            self._busy_until = time.monotonic() + BUSY_BACKOFF
            raise StoreBusy(f"{self.path} is locked by another program ({exc})") from None
        except sqlite3.Error as exc:
            raise self._fail(exc) from None
        finally:
            if quick:
                self.conn.execute(f"PRAGMA busy_timeout = {int(BUSY_WAIT * 1000)}")
        self._in_tx = self._locked = True

    def _fail(self, exc: BaseException) -> StoreFailed:
        """Roll back and refuse from now on: what this transaction held is lost, never half-written."""
        if self.failed is None:
            self.failed = StoreFailed(f"cannot write {self.path} ({exc})")
            try:
                if self.conn.in_transaction:
                    self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            self._in_tx = self._locked = False
            self._statements = []
        return self.failed

    def _write(self, sql: str, params: Sequence[Any] = (), many: bool = False) -> None:
        """A write in the open transaction, queued for its commit; memory may already hold it, so any
        failure (here or at the commit) is final."""
        try:
            self.begin()
        except StoreBusy as exc:
            raise self._fail(exc) from None
        self._statements.append((sql, params, many))

    def _write_many(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self._write(sql, list(rows), many=True)

    @property
    def pending(self) -> bool:
        """Something to commit (or a failure the commit must report)."""
        return self._in_tx or self.failed is not None

    @property
    def in_flight(self) -> bool:
        """A commit is running in the writer thread."""
        return self._flight is not None and not self._flight.done()

    def submit(self) -> "concurrent.futures.Future[None]":
        """Commit the open transaction in the writer thread; the future is done when it is durable
        (its exception: :class:`StoreFailed`). One commit is in flight at a time: the caller waits
        for the last one's future before it submits the next.

        The statements run here (the connection is free: no commit is in flight), so the thread
        has one step, the COMMIT and its fsync: every step it takes waits for the interpreter
        lock, which the loop holds. Only if another program took the lock since the last
        commit does the thread run them, once it has waited for the lock.
        """
        if self.failed is not None:
            raise self.failed
        assert not self.in_flight, "one commit in flight at a time"
        statements, locked = self._take()
        if self._writer is None:
            self._writer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="dab-store-writer")
        try:
            if locked or self._lock_at_once():
                self._execute(statements)
                statements, locked = [], True
        except Exception as exc:  # sqlite3.Error, or a bug: either way nothing of it is durable
            raise self._fail(exc) from None
        self._flight = self._writer.submit(self._run, statements, locked)
        return self._flight

    def _lock_at_once(self) -> bool:
        """The write lock if nobody holds it (False: another program does), without waiting."""
        self.conn.execute("PRAGMA busy_timeout = 0")
        try:
            self.conn.execute("BEGIN IMMEDIATE")
            return True
        except sqlite3.OperationalError as exc:
            if exc.sqlite_errorcode not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
                raise
            return False
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {int(BUSY_WAIT * 1000)}")

    def commit(self) -> None:
        """Make every write since the last commit durable, on this thread (returns after the fsync)."""
        if self._flight is not None:
            with contextlib.suppress(StoreError):  # a failed commit is reported below, as self.failed
                self._flight.result()
        if self.failed is not None:
            raise self.failed
        if self._in_tx:
            self._run(*self._take())

    def _take(self) -> tuple[list[tuple[str, Any, bool]], bool]:
        statements, locked = self._statements, self._locked
        self._statements, self._in_tx, self._locked = [], False, False
        return statements, locked

    def _run(self, statements: list[tuple[str, Any, bool]], locked: bool) -> None:
        """Execute one transaction's statements and commit it (in the writer thread, or the caller's)."""
        try:
            if not locked:
                self._lock_again()
            self._execute(statements)
            self.conn.execute("COMMIT")
        except Exception as exc:  # sqlite3.Error, or a bug: either way nothing of it is durable
            raise self._fail(exc) from None
        self.commits += 1

    def _execute(self, statements: list[tuple[str, Any, bool]]) -> None:
        conn = self.conn
        for sql, params, many in statements:
            if many:
                conn.executemany(sql, params)
            else:
                conn.execute(sql, params)

    def _lock_again(self) -> None:
        """The write lock for a transaction gathered while the last commit was in flight: another
        program may have taken it meanwhile; wait for it (new units are told ``busy`` meanwhile)."""
        while True:
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                self._lock_waited_since = None
                return
            except sqlite3.OperationalError as exc:
                if exc.sqlite_errorcode not in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED) or self.conn is None:
                    raise
                if self._lock_waited_since is None:
                    self._lock_waited_since = time.monotonic()

    def reader(self) -> sqlite3.Connection:
        """The connection the event loop reads with while commits run in the writer thread: a second,
        read-only one (it sees what is committed), or the store's own before any was submitted."""
        if self._writer is None or self.path == ":memory:":
            return self.conn
        if self._reader is None:
            self._reader = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                           timeout=BUSY_WAIT)
            self._reader.execute("PRAGMA query_only = ON")
        return self._reader
