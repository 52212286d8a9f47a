"""The server's durable memory: one SQLite file that owns every chip, seat and action.

Everything SQL lives in :class:`Store` and the modules it is made of; the lobby and tables call
plain methods of one store. Each module has one job:

* :mod:`server.store` (this one) -- opening a database or a data directory, upgrading it, closing it;
* :mod:`server.store_commits` -- the transactions and the writer thread ("durable before ok");
* :mod:`server.migrations` -- the schema, as the steps that build it (:data:`MIGRATIONS`);
* :mod:`server.store_files` -- the data directory's files: modes, links, owners, the lock;
* :mod:`server.store_players` -- players, chip balances and their ledger, the leaderboard's counts;
* :mod:`server.store_moderation` -- mutes, bans, removals;
* :mod:`server.store_tables` -- tables, seats, the action log and checkpoints, loading them back;
* :mod:`server.store_rounds` -- finished rounds and games, and :class:`RoundReader`;
* :mod:`server.store_export` -- the export and the chip audit.

Every name importers use (``Store``, ``DB_NAME``, ``RoundReader``, ``MIGRATIONS`` ...) is imported
from here.

What is stored, and why it is enough
------------------------------------
* ``players``: id, name, the SHA-256 of the token secret (never the secret
  itself) and the chip balance kept between games.
* ``tables``: name, the game it plays (``game``: a GameType's name, which the
  restore looks up with ``engine.games.find_game``), settings, host, private
  code, state, and once the game
  starts its RNG state at the start (``Game.initial_rng``), initial players,
  engine settings and the fingerprint of the engine playing it. The action
  count, round, phase, pot and stacks are written with every unit of work that
  changed the game; the full ``Game.to_data()`` without the history (the
  checkpoint, with ``checkpoint_at``, the action count it was taken after) with
  each unit that drew chance or changed the game's status, and at shutdown. The
  replay must reproduce it exactly where it was taken.
* ``seats``: who sits where (``player_id`` NULL for a bot, with its ``bot_level``), and whether a
  player left a running game (their seat is held and auto-played).
* ``actions``: the engine's action log, in order. Because the engine is a pure
  function of its seed and actions, ``Game.replay`` rebuilds the exact
  in-progress state (cards in hand, stock order, whose turn) after a crash.
  That holds only while the engine plays the same way: after an upgrade that
  changes the RNG or the rules (another engine fingerprint), a game still
  running is restored from its checkpoint instead, and its ``engine`` becomes
  NULL (its log no longer replays from the seed with any one engine).
* ``rounds``: every finished round in full (deal, actions, splits, result),
  for ``dab-server export``, with what players may see of it (``public``,
  for the ``history`` request) and ``seq``, its place in the order rounds
  finished on this server (the log's own order: the clock may step back).
* ``chat``: each table's last lines of chat, sent again to whoever comes
  back after a restart; a closed table's are deleted.
* ``mutes``, ``bans``, ``removals`` (:mod:`server.moderation`): whom each
  player muted, the operator's bans, and the players each table's host removed.
* ``ledger``: every chip that crosses between a balance and a table
  (``grant`` to new players, ``buy_in`` at game start or a sit-in, ``cash_out`` at game
  over), so conservation can be audited:
  ``balance == grants - buy-ins + cash-outs`` for each player, and
  ``buy-ins - cash-outs == stacks + pot`` for each table.

Durability
----------
The database runs in WAL mode with ``synchronous=FULL``: a commit returns only
after the write-ahead log is on disk. The server groups the writes of one
request (or one timer step) into one transaction and commits it *before* any
reply or push about it leaves (see :meth:`server.lobby.Lobby.atomic`), so a
client is never told about something a crash could take back.

The writer thread
-----------------
A running server commits off its event loop: the write methods queue their
statements, and :meth:`Store.submit` runs them and hands the COMMIT (the fsync)
to one writer thread while the loop goes on; one commit is in flight at a time
and the next transaction gathers meanwhile. The loop touches the connection
only while no commit is in flight; the requests that read stored rounds and
games (``history``, ``past_rounds``, ``replay``...) are answered by the history
worker process (:mod:`server.history_worker`) through a read-only connection of
its own (:class:`RoundReader`), which sees what is committed, and the loop's own
reads (the leaderboard's counts) use a second, read-only one. :meth:`Store.commit` does
it all on the caller's thread and waits (tools, tests, shutdown).

Versions
--------
``schema_version`` holds one row. :data:`MIGRATIONS` are applied in order on
start (after a backup copy of the file); a file written by a newer server, a
file that is not an SQLite database, another program's SQLite database, or a
database that fails ``PRAGMA quick_check`` raises :class:`StoreError` with a
message that says so, and nothing is written. SQLite has no page checksums, so
the lobby also checks on start that the chip ledger balances (:meth:`Store.audit`)
and that every replayed game matches its stored snapshot.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import sqlite3
import urllib.parse
from pathlib import Path
from typing import Any

# Defined apart, and re-exported: a server without a store never imports this module.
from .errors import StoreBusy, StoreError, StoreFailed
from .migrations import MIGRATIONS, Migration, _script
from .store_commits import BUSY_BACKOFF, BUSY_WAIT
from .store_export import EXPORT_VERSION, ExportAudit
from .store_files import (
    _BESIDE,
    _NO_LINKS,
    DB_NAME,
    LOCK_NAME,
    _check_directory,
    _check_header,
    _fsync_directory,
    _hold,
    _open_error,
    _open_own,
    _own_file,
    _private_files,
    _read_only,
    _size,
    _writable,
    _write_pid,
)
from .store_moderation import ModerationQueries
from .store_players import PlayerQueries, PlayerRow
from .store_rounds import RoundReader, checked_round
from .store_tables import SeatRow, TableRow
from .tokens import secret_hash  # what add_player keeps of a token

__all__ = [
    "APPLICATION_ID", "BUSY_BACKOFF", "BUSY_WAIT", "DB_NAME", "EXPORT_VERSION", "LOCK_NAME", "MIGRATIONS",
    "Migration", "PlayerRow", "RoundReader", "SeatRow", "Store", "StoreBusy", "StoreError", "StoreFailed",
    "TableRow", "_script", "checked_round", "schema_version", "secret_hash",
]

APPLICATION_ID = 0x44614E42  # "DaNB": marks the file as ours (PRAGMA application_id)


def schema_version() -> int:
    """The version this code writes: the last migration's."""
    return MIGRATIONS[-1][0]


class Store(PlayerQueries, ModerationQueries, ExportAudit):
    """One connection to the database; every write joins the open transaction.

    Writes start a transaction lazily; :meth:`commit` makes everything since the
    last commit durable at once (one fsync). Use :meth:`open_dir` for a data
    directory (it also takes the directory's lock) or the constructor for a bare
    file.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, migrate: bool = True, new: bool = False, immutable: bool = False,
    ) -> None:
        """Open the database file ``path`` (SQLite creates it if missing; ``new``: it is ours and empty).

        ``immutable``: read a file that cannot be written (a read-only
        directory), which must then have no write-ahead log to merge.
        """
        self.path = str(path)
        self.commits = 0
        self.warnings: list[str] = []  # what the operator should fix (said at start)
        self._lock_fd: int | None = None
        self._in_tx = False  # a transaction is open: writes queue in _statements until it is committed
        self._locked = False  # ... and it holds the write lock already (else the writer takes it first)
        self._statements: list[tuple[str, Any, bool]] = []  # (sql, parameters, executemany)
        self._writer: concurrent.futures.ThreadPoolExecutor | None = None
        self._flight: concurrent.futures.Future[None] | None = None  # the commit in the writer thread
        self._lock_waited_since: float | None = None  # the writer waits for another program's lock
        self._reader: sqlite3.Connection | None = None
        self._rounds_read: RoundReader | None = None
        self._next_table_no: int | None = None  # the number create_table gives next (read at opening)
        self.failed: StoreFailed | None = None
        self._busy_until = float("-inf")
        self.immutable = immutable
        if self.path != ":memory:" and not new and os.path.exists(self.path):
            _check_header(self.path)
        target = f"file:{urllib.parse.quote(self.path)}?immutable=1" if immutable else self.path
        try:
            self.conn = sqlite3.connect(target, isolation_level=None, check_same_thread=False, timeout=BUSY_WAIT,
                                        uri=immutable)
        except sqlite3.Error as exc:
            raise _open_error(self.path, exc) from None
        try:
            self._open(migrate)
            if not immutable:
                self._next_table_no = self._last_table_no() + 1  # the loop may not read while a commit runs
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:  # damaged text decodes to neither
            self.conn.close()
            raise _open_error(self.path, exc) from None
        except StoreError:
            self.conn.close()
            raise

    @classmethod
    def open_dir(
        cls, data_dir: str | os.PathLike[str], *, lock: bool = True, migrate: bool = True, create: bool = True,
    ) -> "Store":
        """Open (or create) the database in ``data_dir``; with ``lock``, as the one server using it.

        Every file is created 0600 (umask 077 while opening, then checked); a
        database, lock, WAL or shared-memory file that is a symbolic link, not
        a regular file, or not this user's own is refused, and so is a data
        directory of another user (one open to other users gets a warning in
        :attr:`warnings`). The lock is an OS lock on the database file itself:
        no other path to it (a symlinked directory, a deleted lock file) lets a
        second server in.
        """
        directory = Path(data_dir).expanduser()
        if not create and not os.path.lexists(directory / DB_NAME):
            raise StoreError(f"there is no Down and Back database in {directory} (no {DB_NAME})")
        with _private_files():
            try:
                directory.mkdir(parents=True, exist_ok=True, mode=0o700)
            except OSError as exc:
                raise StoreError(f"cannot create the data directory {directory}: {exc.strerror or exc}") from None
            directory = directory.resolve()  # the directory may be a link; the files in it may not
            warnings = _check_directory(directory, own=lock)
            path = directory / DB_NAME
            writable = _writable(directory)
            if lock and not writable:
                raise StoreError(_read_only(directory))
            if lock:
                _own_file(directory / LOCK_NAME, private=False)  # before anything is created
            if not os.path.lexists(path):
                cls._create(path)
            fd = _open_own(path, own=lock)
            try:
                if lock:
                    _hold(fd, path)
                for name in _BESIDE:
                    _own_file(directory / f"{DB_NAME}{name}", private=lock, own=lock)
                immutable = not writable
                if immutable and _size(f"{path}-wal"):
                    raise StoreError(
                        f"{_read_only(directory)}; its write-ahead log {path}-wal holds commits not yet merged "
                        "(a server runs there, or crashed): export where the server runs, or from a writable copy"
                    )
                store = cls(path, migrate=migrate, immutable=immutable)
                try:
                    if not os.path.samestat(os.lstat(path), os.fstat(fd)):
                        raise StoreError(f"{path} was replaced while it was being opened; start again")
                    if lock:
                        for name in _BESIDE:  # and what SQLite made beside it, now that it exists
                            _own_file(directory / f"{DB_NAME}{name}", private=True)
                        _write_pid(directory / LOCK_NAME)
                except BaseException:
                    store.close()
                    raise
            except BaseException:
                os.close(fd)
                raise
        if lock:
            store._lock_fd = fd
        else:
            os.close(fd)
        store.warnings = warnings
        return store

    @classmethod
    def _create(cls, path: Path) -> None:
        """A new, empty database: built under a temporary name and linked into place only if none
        appeared meanwhile, so a crash while creating never leaves an empty or half-made file."""
        temporary = path.with_name(f".{path.name}.{os.getpid()}.new")
        for stale in ("", "-journal", "-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(f"{temporary}{stale}")
        try:
            os.close(os.open(temporary, os.O_RDWR | os.O_CREAT | os.O_EXCL | _NO_LINKS, 0o600))
            cls(temporary, new=True).close()
            try:
                os.link(temporary, path)
            except FileExistsError:
                pass  # another server created it first: that one is used
            except OSError:  # a file system without hard links: a rename, unless one appeared meanwhile
                if not os.path.lexists(path):
                    os.rename(temporary, path)
            _fsync_directory(path.parent)
        except OSError as exc:
            raise StoreError(f"cannot create the database {path}: {exc.strerror or exc}") from None
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)

    # ------------------------------------------------------------ opening
    def _open(self, migrate: bool) -> None:
        conn = self.conn
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        names = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not names and app_id == 0:
            version = 0
        elif app_id != APPLICATION_ID or "schema_version" not in names:
            raise StoreError(
                f"{self.path} is an SQLite database but not a Down and Back one; "
                "point --data-dir at another directory"
            )
        else:
            rows = conn.execute("SELECT version FROM schema_version").fetchall()
            if len(rows) != 1 or not isinstance(rows[0][0], int):
                raise StoreError(f"{self.path} has a damaged schema_version table; restore it from a backup")
            version = rows[0][0]
        latest = schema_version()
        if version > latest:
            raise StoreError(
                f"{self.path} was written by a newer dab-server (database schema version {version}; "
                f"this dab-server knows up to {latest}). Upgrade dab-server; the file was not changed."
            )
        if version:
            check = [row[0] for row in conn.execute("PRAGMA quick_check").fetchall()]
            if check != ["ok"]:
                raise StoreError(
                    f"{self.path} is corrupt (PRAGMA quick_check: {'; '.join(map(str, check[:3]))}); "
                    "restore it from a backup"
                )
        if self.immutable:
            if version < latest:
                raise StoreError(f"{self.path} has database schema version {version} and cannot be upgraded "
                                 "where it is (read-only)")
            return
        mode = conn.execute("PRAGMA journal_mode = WAL").fetchone()[0]
        if self.path != ":memory:" and str(mode).lower() != "wal":
            raise StoreError(f"cannot switch {self.path} to WAL mode (got {mode!r})")
        conn.execute("PRAGMA synchronous = FULL")
        conn.execute("PRAGMA foreign_keys = ON")
        if version < latest:
            if not migrate:
                raise StoreError(
                    f"{self.path} has database schema version {version}; start dab-server once to upgrade it to {latest}"
                )
            self._migrate(version)

    def _migrate(self, version: int) -> None:
        if version and self.path != ":memory:":
            backup = f"{self.path}.v{version}.bak"
            try:  # created 0600, never through a link
                os.close(os.open(backup, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NO_LINKS, 0o600))
            except OSError as exc:
                raise StoreError(f"cannot write the backup {backup} before upgrading: {exc.strerror or exc}") from None
            target = sqlite3.connect(backup)
            try:
                self.conn.backup(target)
            finally:
                target.close()
        for target_version, _what, step in MIGRATIONS:
            if target_version <= version:
                continue
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                step(self.conn)
                if target_version == 1:
                    self.conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
                    self.conn.execute("INSERT INTO schema_version (version) VALUES (1)")
                    self.conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
                else:
                    self.conn.execute("UPDATE schema_version SET version = ?", (target_version,))
                self.conn.execute("COMMIT")
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.commits += 1

    def _last_table_no(self) -> int:
        """The highest table number this database has used (AUTOINCREMENT never reuses one)."""
        return self.conn.execute(
            "SELECT max(coalesce(max(table_no), 0), coalesce((SELECT seq FROM sqlite_sequence "
            "WHERE name = 'tables'), 0)) FROM tables").fetchone()[0]

    @property
    def version(self) -> int:
        return self.conn.execute("SELECT version FROM schema_version").fetchone()[0]

    def close(self) -> None:
        """Commit and close; after a failure, close without committing anything more."""
        if self.conn is not None:
            try:
                if self.failed is None:
                    self.commit()
                elif self._flight is not None:
                    concurrent.futures.wait([self._flight])
                if self._writer is not None:
                    self._writer.shutdown(wait=True)
                if self._reader is not None:
                    self._reader.close()
                self.conn.close()
            finally:
                self.conn = None  # type: ignore[assignment]
                if self._lock_fd is not None:
                    os.close(self._lock_fd)
                    self._lock_fd = None
