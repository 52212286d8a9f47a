"""The server's durable memory: one SQLite file that owns every chip, seat and action.

Everything SQL lives here; the lobby and tables call plain methods.

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
import errno
import json
import os
import sqlite3
import stat
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence

from engine.games import find_game

# Defined apart, and re-exported: a server without a store never imports this module.
from .errors import StoreBusy, StoreError, StoreFailed
from .history import game_rows, public_round, round_rows
from .tokens import secret_hash  # what add_player keeps of a token

if TYPE_CHECKING:
    from .moderation import Ban

DB_NAME = "down-and-back.sqlite3"
LOCK_NAME = "dab-server.lock"
APPLICATION_ID = 0x44614E42  # "DaNB": marks the file as ours (PRAGMA application_id)


EXPORT_VERSION = 2  # of the JSON export; 2: every table names its game ("game")
BUSY_WAIT = 0.1  # s: the longest a unit waits for another program's lock (it blocks the event loop)
BUSY_BACKOFF = 1.0  # s: after a busy lock, try again without waiting for this long


_json = json.JSONEncoder(separators=(",", ":"), sort_keys=True).encode  # built once: every action is encoded


# ----------------------------------------------------------------- schema

_V1 = """
CREATE TABLE players (
    player_id     TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    secret_sha256 BLOB NOT NULL,
    balance       INTEGER NOT NULL CHECK (balance >= 0),
    created_at    REAL NOT NULL
);
CREATE TABLE tables (
    table_no        INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id        TEXT NOT NULL UNIQUE,
    name            TEXT NOT NULL,
    settings        TEXT NOT NULL,            -- the table settings as created (JSON)
    host_id         TEXT,
    private_code    TEXT,
    state           TEXT NOT NULL CHECK (state IN ('waiting', 'playing', 'finished', 'closed')),
    created_at      REAL NOT NULL,
    -- the game, once started: enough to replay it from the action log
    rng             TEXT,                     -- Game.initial_rng (JSON)
    initial_players TEXT,                     -- [[seat, name, stack], ...]
    game_settings   TEXT,                     -- engine Settings (JSON)
    engine          TEXT,                     -- fingerprint of the engine that can replay the log; NULL: none
    started_at      REAL,
    finished_at     REAL,
    -- checkpoint after the last unit of work, which the replay must agree with
    actions         INTEGER NOT NULL DEFAULT 0,
    round_no        INTEGER,
    phase           TEXT,
    pot             INTEGER,
    stacks          TEXT,                     -- {"seat": stack} (JSON)
    checkpoint      TEXT                      -- Game.to_data() without its history (JSON)
);
CREATE TABLE seats (
    table_id  TEXT NOT NULL REFERENCES tables (table_id),
    seat      INTEGER NOT NULL,
    name      TEXT NOT NULL,
    player_id TEXT REFERENCES players (player_id),   -- NULL for a bot
    left_game INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (table_id, seat)
) WITHOUT ROWID;
CREATE TABLE actions (
    table_id TEXT NOT NULL REFERENCES tables (table_id),
    seq      INTEGER NOT NULL,
    seat     INTEGER,
    action   TEXT NOT NULL,                   -- the engine action's plain data (JSON)
    at       REAL NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE TABLE rounds (
    table_id    TEXT NOT NULL REFERENCES tables (table_id),
    round_no    INTEGER NOT NULL,
    first_seq   INTEGER NOT NULL,
    last_seq    INTEGER NOT NULL,
    finished_at REAL NOT NULL,
    record      TEXT NOT NULL,                -- the full round (JSON), see Table.round_record
    PRIMARY KEY (table_id, round_no)
) WITHOUT ROWID;
CREATE INDEX rounds_by_time ON rounds (finished_at);
CREATE TABLE ledger (
    entry     INTEGER PRIMARY KEY AUTOINCREMENT,
    at        REAL NOT NULL,
    player_id TEXT REFERENCES players (player_id), -- NULL: a bot, paid by the house
    table_id  TEXT REFERENCES tables (table_id),
    seat      INTEGER,
    kind      TEXT NOT NULL CHECK (kind IN ('grant', 'buy_in', 'cash_out')),
    amount    INTEGER NOT NULL CHECK (amount >= 0)
);
CREATE INDEX ledger_by_player ON ledger (player_id);
CREATE INDEX ledger_by_table ON ledger (table_id);
"""

Migration = Callable[[sqlite3.Connection], None]


def _script(sql: str) -> Migration:
    def run(conn: sqlite3.Connection) -> None:
        statement = ""
        for line in sql.splitlines(keepends=True):  # executescript() would commit: split instead
            statement += line
            if sqlite3.complete_statement(statement):
                conn.execute(statement)
                statement = ""
        assert not statement.strip(), f"incomplete SQL: {statement!r}"

    return run


def _v2_rounds_public_and_ordered(conn: sqlite3.Connection) -> None:
    """Rounds get their public form and a server-wide sequence (older rounds: in the order of their times).

    Every round stored before version 2 is Down and Back's (the only game then).
    """
    conn.execute("ALTER TABLE rounds ADD COLUMN seq INTEGER")
    conn.execute("ALTER TABLE rounds ADD COLUMN public TEXT")
    conn.execute("DROP INDEX rounds_by_time")
    rows = conn.execute("SELECT table_id, round_no, record FROM rounds ORDER BY finished_at, table_id, round_no")
    for seq, (table_id, round_no, record) in enumerate(rows.fetchall(), 1):
        conn.execute(
            "UPDATE rounds SET seq = ?, public = ? WHERE table_id = ? AND round_no = ?",
            (seq, _json(public_round(find_game("down-and-back"), json.loads(record))), table_id, round_no),
        )
    conn.execute("CREATE UNIQUE INDEX rounds_by_seq ON rounds (seq)")


_V3_SPECTATORS = """
CREATE TABLE spectators (
    table_id  TEXT NOT NULL REFERENCES tables (table_id),
    player_id TEXT NOT NULL REFERENCES players (player_id),
    PRIMARY KEY (table_id, player_id)
) WITHOUT ROWID;
"""

# Every table written before version 4 is Down and Back's, the only game those servers hosted. New
# tables always name their game (Store.create_table); the default only states what the old rows are.
_V4_GAME = """
ALTER TABLE tables ADD COLUMN game TEXT NOT NULL DEFAULT 'down-and-back';
"""

# A table's recent chat, so that a restart sends what was said (Audience.CHAT_KEEP lines a table).
_V5_CHAT = """
CREATE TABLE chat (
    table_id TEXT NOT NULL REFERENCES tables (table_id),
    seq      INTEGER NOT NULL,                -- the line's place in the table's chat, from 1
    message  TEXT NOT NULL,                   -- {seat, name, text, ts} as chat_message sends it (JSON)
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
"""

# Each player's finished rounds and games, indexed by player in the server's order, for the
# past_rounds and past_games requests (one index range a page however many rounds are stored), and
# whether a player hides from the leaderboard. Filled in from the stored rounds and ledger
# (_v6_player_history).
_V6_PLAYER_HISTORY = """
CREATE TABLE player_rounds (
    player_id TEXT NOT NULL REFERENCES players (player_id),
    seq       INTEGER NOT NULL,               -- the round's rounds.seq
    table_id  TEXT NOT NULL,
    round_no  INTEGER NOT NULL,
    seat      INTEGER NOT NULL,
    chips     INTEGER NOT NULL,               -- won (+) or lost (-) in the round
    result    TEXT NOT NULL,                  -- the game's words for it (GameType.round_outcome)
    PRIMARY KEY (player_id, seq)
) WITHOUT ROWID;
CREATE UNIQUE INDEX player_rounds_by_round ON player_rounds (table_id, round_no, player_id);
CREATE TABLE player_games (
    player_id   TEXT NOT NULL REFERENCES players (player_id),
    seq         INTEGER NOT NULL,             -- the order games ended on this server
    table_id    TEXT NOT NULL REFERENCES tables (table_id),
    game        TEXT NOT NULL,
    seat        INTEGER NOT NULL,
    rounds      INTEGER NOT NULL,
    chips       INTEGER NOT NULL,             -- cashed out minus bought in
    won         INTEGER NOT NULL,             -- the most chips won at the table (server.history.game_rows)
    finished_at REAL NOT NULL,
    PRIMARY KEY (player_id, seq)
) WITHOUT ROWID;
CREATE INDEX player_games_by_seq ON player_games (seq);
ALTER TABLE players ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0;
"""


def _v6_player_history(conn: sqlite3.Connection) -> None:
    """Each player's rounds and games from what is stored: seats from the buy-ins, chips from the stacks."""
    _script(_V6_PLAYER_HISTORY)(conn)
    owners = {(t, s): p for t, s, p in conn.execute(
        "SELECT table_id, seat, player_id FROM ledger WHERE kind = 'buy_in' AND player_id IS NOT NULL")}
    brought = dict(((t, s), a) for t, s, a in conn.execute(
        "SELECT table_id, seat, amount FROM ledger WHERE kind = 'buy_in' ORDER BY entry"))
    before: dict[tuple[str, int], int] = {}
    for seq, table_id, game, raw in conn.execute(
        "SELECT r.seq, r.table_id, t.game, r.public FROM rounds r JOIN tables t USING (table_id) ORDER BY r.seq"
    ).fetchall():
        public = json.loads(raw)
        stacks = {int(s): v for s, v in public["stacks"].items()}
        rows = round_rows(find_game(game), public, {s: owners.get((table_id, s)) for s in stacks},
                          {s: before.get((table_id, s), brought.get((table_id, s), v)) for s, v in stacks.items()})
        conn.executemany("INSERT INTO player_rounds (player_id, seq, table_id, round_no, seat, chips, result) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)",
                         [(p, seq, table_id, public["round"], r["seat"], r["chips"], r["result"]) for p, r in rows])
        before.update({(table_id, s): v for s, v in stacks.items()})
    games = conn.execute(
        "SELECT t.table_id, t.game, t.finished_at, (SELECT count(*) FROM rounds r WHERE r.table_id = t.table_id) "
        "FROM tables t WHERE t.rng IS NOT NULL AND t.finished_at IS NOT NULL ORDER BY t.finished_at, t.table_no"
    ).fetchall()
    for seq, (table_id, game, finished_at, rounds) in enumerate(games, 1):
        net = {seat: chips for seat, chips in conn.execute(
            "SELECT seat, sum(CASE kind WHEN 'cash_out' THEN amount ELSE -amount END) FROM ledger "
            "WHERE table_id = ? AND kind IN ('buy_in', 'cash_out') GROUP BY seat", (table_id,))}
        conn.executemany(
            "INSERT INTO player_games (player_id, seq, table_id, game, seat, rounds, chips, won, finished_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(p, seq, table_id, game, r["seat"], rounds, r["chips"], int(r["won"]), finished_at)
             for p, r in game_rows(net, {s: owners.get((table_id, s)) for s in net})])


# A bot's level (issue 16), so that a restored table's bots play as they were added. Bots seated before
# version 7 played the only way there was: their game's default level (NULL reads as that).
_V7_BOT_LEVEL = """
ALTER TABLE seats ADD COLUMN bot_level TEXT;
"""

# The number of actions a table's checkpoint was taken after (issue 19): a checkpoint is written after
# each draw of chance and each change of the game's status, no longer after every action, and the
# replay checks it where it was taken. Every checkpoint before version 8 was taken after every action.
_V8_CHECKPOINT_AT = """
ALTER TABLE tables ADD COLUMN checkpoint_at INTEGER;
UPDATE tables SET checkpoint_at = actions WHERE checkpoint IS NOT NULL;
"""

# Moderation (issue 32): each player's mutes, the operator's bans, and the players a table's host removed
# (who may not come back to that table). A ban names a player id, an SSH key's fingerprint or an address
# (a network, as ipaddress writes it); a ban of a player is no foreign key: it outlives a forgotten player.
_V9_MODERATION = """
CREATE TABLE mutes (
    player_id TEXT NOT NULL REFERENCES players (player_id),
    muted_id  TEXT NOT NULL REFERENCES players (player_id),
    at        REAL NOT NULL,
    PRIMARY KEY (player_id, muted_id)
) WITHOUT ROWID;
CREATE TABLE bans (
    kind   TEXT NOT NULL CHECK (kind IN ('player', 'key', 'address')),
    value  TEXT NOT NULL,
    label  TEXT NOT NULL,                     -- what the operator named: the player's name, the key, the address
    reason TEXT NOT NULL,                     -- told to the banned ('' for none)
    at     REAL NOT NULL,
    PRIMARY KEY (kind, value)
) WITHOUT ROWID;
CREATE TABLE removals (
    table_id  TEXT NOT NULL REFERENCES tables (table_id),
    player_id TEXT NOT NULL REFERENCES players (player_id),
    PRIMARY KEY (table_id, player_id)
) WITHOUT ROWID;
"""

# (version it produces, what it does, how). Append only; never edit a released step.
MIGRATIONS: list[tuple[int, str, Migration]] = [
    (1, "initial schema", _script(_V1)),
    (2, "rounds: public form and server-wide order", _v2_rounds_public_and_ordered),
    (3, "spectators: who watches which table, restored like seats", _script(_V3_SPECTATORS)),
    (4, "tables: the game each table plays (engine.games.find_game)", _script(_V4_GAME)),
    (5, "chat: each table's recent chat, sent again after a restart", _script(_V5_CHAT)),
    (6, "player_rounds, player_games, players.hidden: each player's history and the leaderboard",
     _v6_player_history),
    (7, "seats: each bot's level", _script(_V7_BOT_LEVEL)),
    (8, "tables: the action count of the checkpoint (written after draws, not after every action)",
     _script(_V8_CHECKPOINT_AT)),
    (9, "mutes, bans, removals: moderation", _script(_V9_MODERATION)),
]


def schema_version() -> int:
    """The version this code writes: the last migration's."""
    return MIGRATIONS[-1][0]


# ----------------------------------------------------------------- rows


@dataclass
class SeatRow:
    seat: int
    name: str
    player_id: str | None
    left: bool
    level: str | None = None  # a bot's level; None for a player (and for bots stored before version 7)


@dataclass
class TableRow:
    """A table as stored, with everything needed to rebuild it."""

    table_id: str
    table_no: int
    name: str
    game: str  # the game's stable name, for engine.games.find_game
    settings: dict[str, Any]
    host_id: str | None
    private_code: str | None
    state: str
    seats: list[SeatRow] = field(default_factory=list)
    spectators: list[str] = field(default_factory=list)  # player ids
    chat: list[dict[str, Any]] = field(default_factory=list)  # the recent chat, oldest first
    rng: dict[str, Any] | None = None
    initial_players: list[tuple[int, str, int]] | None = None
    game_settings: dict[str, Any] | None = None
    engine: str | None = None
    actions: list[tuple[int | None, dict[str, Any]]] = field(default_factory=list)
    snapshot: dict[str, Any] = field(default_factory=dict)
    checkpoint: dict[str, Any] | None = None
    checkpoint_at: int | None = None  # the number of actions the checkpoint was taken after
    removed: list[str] = field(default_factory=list)  # players the host removed, who may not come back


@dataclass
class PlayerRow:
    player_id: str
    name: str
    secret_sha256: bytes
    balance: int
    played: bool = False  # chips moved since the first grant: a buy-in, or a grant by the operator


# ----------------------------------------------------------------- the store


class Store:
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

    # ------------------------------------------------------------ transactions

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

    # ------------------------------------------------------------ players

    def add_player(self, player_id: str, name: str, secret_sha256: bytes, balance: int) -> None:
        now = time.time()
        self._write(
            "INSERT INTO players (player_id, name, secret_sha256, balance, created_at) VALUES (?, ?, ?, ?, ?)",
            (player_id, name, secret_sha256, balance, now),
        )
        self._write(
            "INSERT INTO ledger (at, player_id, kind, amount) VALUES (?, ?, 'grant', ?)", (now, player_id, balance)
        )

    def rename_player(self, player_id: str, name: str) -> None:
        self._write("UPDATE players SET name = ? WHERE player_id = ?", (name, player_id))

    def load_players(self) -> list[PlayerRow]:
        rows = self.conn.execute(
            "SELECT player_id, name, secret_sha256, balance, "
            "(SELECT count(*) FROM ledger l WHERE l.player_id = p.player_id) > 1 FROM players p"
        )
        return [PlayerRow(*row[:4], bool(row[4])) for row in rows]

    def remove_players(self, player_ids: Iterable[str]) -> None:
        """Forget players who never played: their one ledger row (the first grant) goes with them, and
        their mutes (theirs and of them) and removals."""
        ids = [(player_id,) for player_id in player_ids]
        self._write_many("DELETE FROM ledger WHERE player_id = ? AND kind = 'grant'", ids)
        self._write_many("DELETE FROM mutes WHERE player_id = ?1 OR muted_id = ?1", ids)
        self._write_many("DELETE FROM removals WHERE player_id = ?", ids)
        self._write_many("DELETE FROM players WHERE player_id = ?", ids)

    # ------------------------------------------------------------ moderation

    def load_mutes(self) -> list[tuple[str, str]]:
        """``(player_id, muted_id)`` for every mute."""
        return self.conn.execute("SELECT player_id, muted_id FROM mutes").fetchall()

    def set_mute(self, player_id: str, muted_id: str, muted: bool) -> None:
        if muted:
            self._write("INSERT OR IGNORE INTO mutes (player_id, muted_id, at) VALUES (?, ?, ?)",
                        (player_id, muted_id, time.time()))
        else:
            self._write("DELETE FROM mutes WHERE player_id = ? AND muted_id = ?", (player_id, muted_id))

    def load_bans(self) -> list["Ban"]:
        from .moderation import Ban

        return [Ban(*row) for row in self.conn.execute("SELECT kind, value, label, reason, at FROM bans ORDER BY at")]

    def add_ban(self, ban: "Ban") -> None:
        self._write("INSERT OR REPLACE INTO bans (kind, value, label, reason, at) VALUES (?, ?, ?, ?, ?)",
                    (ban.kind, ban.value, ban.label, ban.reason, ban.at))

    def remove_ban(self, kind: str, value: str) -> None:
        self._write("DELETE FROM bans WHERE kind = ? AND value = ?", (kind, value))

    def add_removal(self, table_id: str, player_id: str) -> None:
        """The host removed ``player_id`` from the table: they may not come back to it."""
        self._write("INSERT OR IGNORE INTO removals (table_id, player_id) VALUES (?, ?)", (table_id, player_id))

    def grant(self, player_id: str, amount: int) -> None:
        """Chips from the operator (``dab-server grant``): added to the balance, with a ledger row."""
        self._write("UPDATE players SET balance = balance + ? WHERE player_id = ?", (amount, player_id))
        self._write("INSERT INTO ledger (at, player_id, kind, amount) VALUES (?, ?, 'grant', ?)",
                    (time.time(), player_id, amount))

    def move_chips(self, table_id: str, kind: str, moves: Iterable[tuple[int, str | None, int]]) -> None:
        """Buy-ins (balance -> table) or cash-outs (table -> balance), with ledger rows."""
        assert kind in ("buy_in", "cash_out")
        sign = -1 if kind == "buy_in" else 1
        now = time.time()
        for seat, player_id, amount in moves:
            if player_id is not None:
                self._write("UPDATE players SET balance = balance + ? WHERE player_id = ?", (sign * amount, player_id))
            self._write(
                "INSERT INTO ledger (at, player_id, table_id, seat, kind, amount) VALUES (?, ?, ?, ?, ?, ?)",
                (now, player_id, table_id, seat, kind, amount),
            )

    # ------------------------------------------------------------ tables

    def create_table(
        self, name: str, game: str, settings: dict[str, Any], host_id: str, private_code: str | None,
    ) -> str:
        """Insert a new waiting table playing ``game`` (a GameType's name); return its id (``t<number>``, never reused).

        The number is the next after every table this database has held (one server writes it), so it
        is known before the commit that inserts it."""
        table_no = self._next_table_no
        assert table_no is not None, "an immutable store creates nothing"
        self._next_table_no = table_no + 1
        table_id = f"t{table_no}"
        self._write(
            "INSERT INTO tables (table_no, table_id, name, game, settings, host_id, private_code, state, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, 'waiting', ?)",
            (table_no, table_id, name, game, _json(settings), host_id, private_code, time.time()),
        )
        return table_id

    def save_table(self, table_id: str, host_id: str | None, state: str, seats: Iterable[SeatRow]) -> None:
        """Who sits where, who hosts, and the table's state."""
        self.set_table_state(table_id, state, host_id)
        self._write("DELETE FROM seats WHERE table_id = ?", (table_id,))
        self._write_many(
            "INSERT INTO seats (table_id, seat, name, player_id, left_game, bot_level) VALUES (?, ?, ?, ?, ?, ?)",
            [(table_id, s.seat, s.name, s.player_id, int(s.left), s.level) for s in seats],
        )

    def save_spectators(self, table_id: str, player_ids: Iterable[str]) -> None:
        """Who watches the table (restored after a restart like the seats)."""
        self._write("DELETE FROM spectators WHERE table_id = ?", (table_id,))
        self._write_many("INSERT INTO spectators (table_id, player_id) VALUES (?, ?)",
                         [(table_id, p) for p in sorted(player_ids)])

    def add_chat(self, table_id: str, message: dict[str, Any], keep: int) -> None:
        """One chat line, next in the table's order; only the table's last ``keep`` lines are kept."""
        self._write("INSERT INTO chat (table_id, seq, message) VALUES "
                    "(?, (SELECT coalesce(max(seq), 0) + 1 FROM chat WHERE table_id = ?), ?)",
                    (table_id, table_id, _json(message)))
        self._write("DELETE FROM chat WHERE table_id = ? AND seq <= (SELECT max(seq) FROM chat WHERE table_id = ?) - ?",
                    (table_id, table_id, keep))

    def set_table_state(self, table_id: str, state: str, host_id: str | None = None) -> None:
        """The table's state (and host); a closed table's chat is forgotten, as nobody can hear it again."""
        if state == "closed":
            self._write("DELETE FROM chat WHERE table_id = ?", (table_id,))
            self._write("DELETE FROM removals WHERE table_id = ?", (table_id,))
        self._write(
            "UPDATE tables SET state = ?, host_id = coalesce(?, host_id), "
            "finished_at = CASE WHEN ? IN ('finished', 'closed') THEN coalesce(finished_at, ?) END "
            "WHERE table_id = ?",
            (state, host_id, state, time.time(), table_id),
        )

    def start_game(
        self, table_id: str, rng: dict[str, Any], initial_players: Sequence[tuple[int, str, int]],
        game_settings: dict[str, Any], engine: str,
    ) -> None:
        self._write(
            "UPDATE tables SET rng = ?, initial_players = ?, game_settings = ?, engine = ?, started_at = ?, "
            "state = 'playing', actions = 0, round_no = 0, phase = 'waiting', pot = 0, stacks = ? WHERE table_id = ?",
            (
                _json(rng), _json([list(p) for p in initial_players]), _json(game_settings), engine, time.time(),
                _json({str(seat): stack for seat, _, stack in initial_players}), table_id,
            ),
        )

    def append_action(self, table_id: str, seq: int, seat: int | None, action: dict[str, Any]) -> None:
        """One engine action, in order (the checkpoint follows before the commit)."""
        self._write(
            "INSERT INTO actions (table_id, seq, seat, action, at) VALUES (?, ?, ?, ?, ?)",
            (table_id, seq, seat, _json(action), time.time()),
        )

    def checkpoint(
        self, table_id: str, state: str | None, actions: int, round_no: int, phase: str, pot: int,
        stacks: dict[int, int],
    ) -> None:
        """The game after ``actions`` actions: its round, phase, pot and stacks (which the audit checks), and
        if ``state`` is given the game's whole state then (``Game.to_data()`` minus history, as JSON)."""
        stacks_json = _json({str(s): v for s, v in stacks.items()})
        if state is None:
            self._write("UPDATE tables SET actions = ?, round_no = ?, phase = ?, pot = ?, stacks = ? WHERE table_id = ?",
                        (actions, round_no, phase, pot, stacks_json, table_id))
            return
        self._write(
            "UPDATE tables SET actions = ?, round_no = ?, phase = ?, pot = ?, stacks = ?, checkpoint = ?, "
            "checkpoint_at = ? WHERE table_id = ?",
            (actions, round_no, phase, pot, stacks_json, state, actions, table_id),
        )

    def set_engine(self, table_id: str, engine: str | None) -> None:
        self._write("UPDATE tables SET engine = ? WHERE table_id = ?", (engine, table_id))

    def add_round(
        self, table_id: str, record: dict[str, Any], public: dict[str, Any],
        rows: Sequence[tuple[str, dict[str, Any]]] = (),
    ) -> None:
        """A finished round in full, with what players may see of it, next in the server's order,
        and its line in each player's history (``rows``: :func:`server.history.round_rows`)."""
        self._write(
            "INSERT INTO rounds (table_id, round_no, first_seq, last_seq, finished_at, record, public, seq) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM rounds))",
            (table_id, record["round"], record["first_seq"], record["last_seq"], record["finished_at"], _json(record),
             _json(public)),
        )
        self._write_many(
            "INSERT INTO player_rounds (player_id, seq, table_id, round_no, seat, chips, result) "
            "SELECT ?, seq, table_id, round_no, ?, ?, ? FROM rounds WHERE table_id = ? AND round_no = ?",
            [(p, r["seat"], r["chips"], r["result"], table_id, record["round"]) for p, r in rows],
        )

    def add_game(self, table_id: str, game: str, rounds: int, rows: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """A game over, in each of its players' history (``rows``: :func:`server.history.game_rows`),
        next in the server's order of games."""
        now = time.time()
        self._write_many(
            "INSERT INTO player_games (player_id, seq, table_id, game, seat, rounds, chips, won, finished_at) "
            "VALUES (?, (SELECT coalesce(max(seq), 0) + 1 FROM player_games WHERE table_id != ?), ?, ?, ?, ?, ?, ?, ?)",
            [(p, table_id, table_id, game, r["seat"], rounds, r["chips"], int(r["won"]), now) for p, r in rows],
        )

    def set_hidden(self, player_id: str, hidden: bool) -> None:
        """Whether the player is left out of the leaderboard."""
        self._write("UPDATE players SET hidden = ? WHERE player_id = ?", (int(hidden), player_id))

    def hidden_players(self) -> set[str]:
        """Who is left out of the leaderboard."""
        return {player_id for (player_id,) in self.reader().execute("SELECT player_id FROM players WHERE hidden")}

    def game_stats(self) -> Iterator[tuple[str, str, int, int]]:
        """``(player_id, game, games played, games won)`` for every player who finished a game."""
        yield from self.reader().execute(
            "SELECT player_id, game, count(*), sum(won) FROM player_games GROUP BY player_id, game")

    def load_tables(self, states: Sequence[str] = ("waiting", "playing", "finished")) -> list[TableRow]:
        """Every table in one of ``states``, with seats and (for started games) the action log."""
        marks = ",".join("?" * len(states))
        rows = self.conn.execute(
            "SELECT table_id, table_no, name, game, settings, host_id, private_code, state, rng, initial_players, "
            "game_settings, engine, actions, round_no, phase, pot, stacks, checkpoint, checkpoint_at "
            f"FROM tables WHERE state IN ({marks}) ORDER BY table_no",
            tuple(states),
        ).fetchall()
        tables = []
        for values in rows:
            try:
                tables.append(self._table_row(*values))
            except (ValueError, TypeError, KeyError) as exc:
                raise StoreError(f"table {values[0]}: stored data is damaged ({exc})") from None
        return tables

    def _table_row(
        self, table_id: str, table_no: int, name: str, game: str, settings: str, host_id: str | None,
        code: str | None, state: str, rng: str | None, players: str | None, game_settings: str | None, engine: str | None,
        actions: int, round_no: int | None, phase: str | None, pot: int | None, stacks: str | None,
        checkpoint: str | None, checkpoint_at: int | None,
    ) -> TableRow:
        row = TableRow(table_id, table_no, name, game, json.loads(settings), host_id, code, state)
        row.seats = [
            SeatRow(seat, seat_name, player_id, bool(left), level)
            for seat, seat_name, player_id, left, level in self.conn.execute(
                "SELECT seat, name, player_id, left_game, bot_level FROM seats WHERE table_id = ? ORDER BY seat",
                (table_id,)
            )
        ]
        row.spectators = [player_id for (player_id,) in self.conn.execute(
            "SELECT player_id FROM spectators WHERE table_id = ? ORDER BY player_id", (table_id,))]
        row.chat = [json.loads(message) for (message,) in self.conn.execute(
            "SELECT message FROM chat WHERE table_id = ? ORDER BY seq", (table_id,))]
        row.removed = [player_id for (player_id,) in self.conn.execute(
            "SELECT player_id FROM removals WHERE table_id = ? ORDER BY player_id", (table_id,))]
        if rng is not None:
            row.rng = json.loads(rng)
            row.initial_players = [tuple(p) for p in json.loads(players)]  # type: ignore[misc]
            row.game_settings = json.loads(game_settings)
            row.engine = engine
            row.checkpoint = json.loads(checkpoint) if checkpoint else None
            row.checkpoint_at = checkpoint_at
            row.actions = self.actions(table_id)
            row.snapshot = {
                "actions": actions, "round_no": round_no, "phase": phase, "pot": pot,
                "stacks": {int(k): v for k, v in json.loads(stacks).items()},  # type: ignore[arg-type]
            }
        return row

    def actions(self, table_id: str) -> list[tuple[int | None, dict[str, Any]]]:
        log = []
        for expected, (seq, seat, action) in enumerate(self.conn.execute(
            "SELECT seq, seat, action FROM actions WHERE table_id = ? ORDER BY seq", (table_id,)
        )):
            if seq != expected:
                raise StoreError(f"{self.path}: the action log of table {table_id} has a gap at {expected}")
            try:
                log.append((seat, json.loads(action)))
            except ValueError as exc:
                raise StoreError(f"{self.path}: table {table_id}, action {seq}: the stored action is damaged "
                                 f"({exc}); restore the database from a backup") from None
        return log

    # ------------------------------------------------------------ history

    @property
    def rounds_read(self) -> "RoundReader":
        """What players may read of the stored rounds and games, through :meth:`reader` (on the loop)."""
        if self._rounds_read is None:
            self._rounds_read = RoundReader(self.reader, self.path)
        return self._rounds_read

    def rounds(self, table_id: str, limit: int) -> list[dict[str, Any]]:
        """The last ``limit`` finished rounds of a table, oldest first."""
        rows = self.reader().execute(
            "SELECT table_id, round_no, CAST(record AS BLOB) FROM rounds WHERE table_id = ? "
            "ORDER BY round_no DESC LIMIT ?", (table_id, limit)
        ).fetchall()
        return [self._round(tid, number, "record", raw) for tid, number, raw in reversed(rows)]

    def check_rounds(self) -> None:
        """Every stored round reads back as what the server relies on (raises :class:`StoreError`).

        SQLite has no page checksums: damage inside a round's text passes
        ``quick_check``, so the start-up reads once every round's public form
        (``history`` serves it) and the full record of every table not closed
        (a restore may need it). Closed tables' records are read only by
        ``export``, which names any damage it finds.
        """
        for tid, number, record, public in self.conn.execute(
            "SELECT r.table_id, r.round_no, CASE WHEN t.state = 'closed' THEN NULL ELSE CAST(r.record AS BLOB) END, "
            "CAST(r.public AS BLOB) FROM rounds r JOIN tables t USING (table_id)"
        ):
            if record is not None:
                self._round(tid, number, "record", record)
            self._round(tid, number, "public", public)

    def _round(self, table_id: str, round_no: int, column: str, raw: bytes | None) -> dict[str, Any]:
        return checked_round(self.path, table_id, round_no, column, raw)

    def export(self, table_id: str | None = None) -> dict[str, Any]:
        """Finished rounds, and for finished games everything needed to replay them, each table
        stamped with its game's name (``engine.games.find_game`` reads the rest).

        The seed of a game still running is withheld (it would reveal the
        stock and every hand); its finished rounds are included.
        """
        where, params = ("WHERE table_id = ?", (table_id,)) if table_id else ("WHERE rng IS NOT NULL", ())
        rows = self.conn.execute(
            "SELECT table_id, name, game, settings, state, rng, initial_players, game_settings, engine, started_at, "
            f"finished_at, pot, stacks FROM tables {where} ORDER BY table_no",
            params,
        ).fetchall()
        if table_id and not rows:
            raise StoreError(f"there is no table {table_id!r} in {self.path}")
        return {"format": "down-and-back-history", "version": EXPORT_VERSION,
                "tables": [self._export_table(*row) for row in rows]}

    def _export_table(
        self, tid: str, name: str, game: str, settings: str, state: str, rng: str | None, players: str | None,
        game_settings: str | None, engine: str | None, started: float | None, finished: float | None,
        pot: int | None, stacks: str | None,
    ) -> dict[str, Any]:
        over = finished is not None and rng is not None
        try:
            return {
                "table_id": tid, "name": name, "game": game, "settings": json.loads(settings), "state": state,
                "started_at": started, "finished_at": finished, "engine": engine,
                "game_settings": json.loads(game_settings) if game_settings else None,
                "initial_players": json.loads(players) if players else None,
                "rng": json.loads(rng) if over else None,
                "actions": [[s, a] for s, a in self.actions(tid)] if over else None,
                "final_stacks": json.loads(stacks) if over and stacks else None,
                # a round's opening holds the RNG's state then: while the game runs it would tell later deals
                "rounds": [r if over else {k: v for k, v in r.items() if k != "opening"}
                           for r in self.rounds(tid, 1 << 30)],
            }
        except (TypeError, ValueError) as exc:
            raise StoreError(f"{self.path}: table {tid}: the stored game is damaged ({exc}); "
                             "restore the database from a backup") from None

    # ------------------------------------------------------------ audit

    def audit(self) -> list[str]:
        """Chip conservation problems (empty when every chip is accounted for)."""
        problems = []
        for player_id, balance, expected in self.conn.execute(
            "SELECT p.player_id, p.balance, coalesce(sum(CASE l.kind WHEN 'buy_in' THEN -l.amount ELSE l.amount END), 0) "
            "FROM players p LEFT JOIN ledger l ON l.player_id = p.player_id GROUP BY p.player_id"
        ):
            if balance != expected:
                problems.append(f"player {player_id}: balance {balance}, ledger says {expected}")
        for table_id, state, pot, stacks, net in self.conn.execute(
            "SELECT t.table_id, t.state, t.pot, t.stacks, "
            "coalesce(sum(CASE l.kind WHEN 'buy_in' THEN l.amount WHEN 'cash_out' THEN -l.amount END), 0) "
            "FROM tables t LEFT JOIN ledger l ON l.table_id = t.table_id WHERE t.rng IS NOT NULL GROUP BY t.table_id"
        ):
            try:
                on_table = 0 if state in ("finished", "closed") else pot + sum(json.loads(stacks).values())
            except (TypeError, ValueError, AttributeError) as exc:
                problems.append(f"table {table_id}: stored stacks are damaged ({exc})")
                continue
            if on_table != net:
                problems.append(f"table {table_id} ({state}): {on_table} chips on the table, ledger says {net}")
        return problems


# ----------------------------------------------------------------- reading rounds


class RoundReader:
    """The stored rounds and games players may read (``history``, ``past_rounds``, ``past_games``,
    ``replay``): read-only SQL on a connection that sees what is committed.

    The server's event loop reads through the store's second connection
    (:meth:`Store.reader`); the history worker (:mod:`server.history_worker`)
    through one of its own, opened by :meth:`open`. Neither ever writes, takes
    the write lock or waits for it (WAL: readers and the writer never block each
    other), so the store's locking and "durable before ok" stay as they are.
    """

    def __init__(self, conn: Callable[[], sqlite3.Connection], path: str) -> None:
        self._conn = conn
        self.path = path

    @classmethod
    def open(cls, path: str) -> "RoundReader":
        """A reader with a read-only connection of its own to the database at ``path`` (another thread or process)."""
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=BUSY_WAIT)
        conn.execute("PRAGMA query_only = ON")
        return cls(lambda: conn, path)

    def past_rounds(
        self, player_id: str, table_id: str | None, before: int | None, limit: int,
    ) -> list[dict[str, Any]]:
        """The player's own finished rounds (at ``table_id`` only, if given), newest first, from
        ``before`` (a ``seq``, exclusive) on: one range of an index, however many rounds are stored."""
        where = " AND pr.table_id = ?" if table_id is not None else ""
        params = (player_id, before if before is not None else 1 << 62, *([table_id] if table_id else []), limit)
        return [
            {"seq": seq, "table_id": tid, "table_name": name, "game_name": game, "round": number, "seat": seat,
             "chips": chips, "result": result, "finished_at": finished}
            for seq, tid, name, game, number, seat, chips, result, finished in self._conn().execute(
                "SELECT pr.seq, pr.table_id, t.name, t.game, pr.round_no, pr.seat, pr.chips, pr.result, r.finished_at "
                "FROM player_rounds pr JOIN rounds r ON r.table_id = pr.table_id AND r.round_no = pr.round_no "
                f"JOIN tables t ON t.table_id = pr.table_id WHERE pr.player_id = ? AND pr.seq < ?{where} "
                "ORDER BY pr.seq DESC LIMIT ?", params)
        ]

    def past_games(self, player_id: str, before: int | None, limit: int) -> list[dict[str, Any]]:
        """The player's games over, newest first, from ``before`` (a ``seq``, exclusive) on."""
        return [
            {"seq": seq, "table_id": tid, "table_name": name, "game_name": game, "seat": seat, "rounds": rounds,
             "chips": chips, "won": bool(won), "finished_at": finished}
            for seq, tid, name, game, seat, rounds, chips, won, finished in self._conn().execute(
                "SELECT pg.seq, pg.table_id, t.name, pg.game, pg.seat, pg.rounds, pg.chips, pg.won, pg.finished_at "
                "FROM player_games pg JOIN tables t USING (table_id) WHERE pg.player_id = ? AND pg.seq < ? "
                "ORDER BY pg.seq DESC LIMIT ?", (player_id, before if before is not None else 1 << 62, limit))
        ]

    def round_for_replay(self, table_id: str, round_no: int) -> tuple[str, dict[str, Any]] | None:
        """A finished round's game and full record (None: no such round)."""
        row = self._conn().execute(
            "SELECT t.game, CAST(r.record AS BLOB) FROM rounds r JOIN tables t USING (table_id) "
            "WHERE r.table_id = ? AND r.round_no = ?", (table_id, round_no)).fetchone()
        return None if row is None else (row[0], checked_round(self.path, table_id, round_no, "record", row[1]))

    def seat_in_round(self, player_id: str, table_id: str, round_no: int) -> int | None:
        """The player's seat in that round if they were dealt in (None otherwise)."""
        row = self._conn().execute(
            "SELECT seat FROM player_rounds WHERE table_id = ? AND round_no = ? AND player_id = ?",
            (table_id, round_no, player_id)).fetchone()
        return None if row is None else row[0]

    def public_rounds(self, table_id: str, limit: int) -> Iterator[dict[str, Any]]:
        """What players may see of a table's last ``limit`` finished rounds, newest first, read lazily."""
        for tid, number, raw, game in self._conn().execute(
            "SELECT rounds.table_id, rounds.round_no, CAST(rounds.public AS BLOB), tables.game "
            "FROM rounds JOIN tables USING (table_id) "
            "WHERE rounds.table_id = ? ORDER BY rounds.round_no DESC LIMIT ?", (table_id, limit)
        ):
            # rounds stored before v2 lack it
            yield {"game_name": game, **checked_round(self.path, tid, number, "public", raw)}

    def player_rounds(self, player_id: str, limit: int) -> Iterator[dict[str, Any]]:
        """The same of the last ``limit`` rounds at tables where the player bought in, newest first.

        Ordered by ``seq``, the order in which rounds finished here, never by
        their wall-clock times.
        """
        for tid, number, raw, game in self._conn().execute(
            "SELECT rounds.table_id, rounds.round_no, CAST(rounds.public AS BLOB), tables.game "
            "FROM rounds JOIN tables USING (table_id) "
            "WHERE rounds.table_id IN (SELECT table_id FROM ledger WHERE player_id = ? AND kind = 'buy_in') "
            "ORDER BY rounds.seq DESC LIMIT ?",
            (player_id, limit),
        ):
            yield {"game_name": game, **checked_round(self.path, tid, number, "public", raw)}


def checked_round(path: str, table_id: str, round_no: int, column: str, raw: bytes | None) -> dict[str, Any]:
    """One stored round of the database at ``path`` (``column``: the full ``record`` or its ``public``
    form), checked (:class:`StoreError` names the damage)."""
    try:
        value = json.loads(raw.decode("utf-8")) if isinstance(raw, bytes) else None
        if not isinstance(value, dict):
            raise ValueError("not a JSON object")
        if value.get("table_id") != table_id or value.get("round") != round_no:
            raise ValueError("its table or round number is not where it is stored")
        for key, kind in _ROUND_SHAPE[column]:
            if not isinstance(value.get(key), kind):
                raise ValueError(f"{key!r} is missing or not a {kind.__name__}")
    except (UnicodeDecodeError, ValueError) as exc:
        raise StoreError(f"{path}: table {table_id}, round {round_no}: the stored round ({column}) is "
                         f"damaged ({exc}); restore the database from a backup") from None
    return value


# ----------------------------------------------------------------- helpers

# What a stored round of any game must hold for the server (history, restores) and export to read it:
# (key, type). The rest of a round is its game's own (GameType.round_record, .public_round).
_ROUND_SHAPE: dict[str, tuple[tuple[str, type], ...]] = {
    "record": (("log", list), ("actions", list), ("stacks", dict)),
    "public": (("stacks", dict),),
}

_SQLITE_MAGIC = b"SQLite format 3\x00"


def _check_header(path: str) -> None:
    try:
        with open(path, "rb") as f:
            header = f.read(len(_SQLITE_MAGIC))
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not header:
        raise StoreError(
            f"{path} is empty (0 bytes): it is damaged, not a new database (only a missing file is new); "
            "restore it from a backup, or move it away with its -wal file to start afresh"
        )
    if header != _SQLITE_MAGIC:
        raise StoreError(
            f"{path} is not an SQLite database (it may be corrupt); "
            "restore it from a backup or move it away to start afresh"
        )


def _open_error(path: str, exc: sqlite3.Error | UnicodeDecodeError) -> StoreError:
    """What SQLite's refusal to open ``path`` means, said truthfully."""
    code = getattr(exc, "sqlite_errorcode", None) or 0
    directory = os.path.dirname(path) or "."
    if code & 0xFF in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM) and not (
        _writable(directory) and (not os.path.exists(path) or os.access(path, os.R_OK | os.W_OK))
    ):
        return StoreError(f"{_read_only(directory)} (SQLite: {exc})")
    if code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return StoreError(f"{path} is locked by another program ({exc}); stop it, or try again")
    if code & 0xFF in (sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN):
        return StoreError(f"cannot open the database {path}: {exc}")
    return StoreError(
        f"{path} is corrupt or not a Down and Back database ({exc}); "
        "restore it from a backup or move it away to start afresh"
    )


_NO_LINKS = getattr(os, "O_NOFOLLOW", 0)  # POSIX; elsewhere the checks after opening still refuse links
_NO_BLOCK = getattr(os, "O_NONBLOCK", 0)  # a planted FIFO must not hang the start
_NO_INHERIT = getattr(os, "O_CLOEXEC", 0)
_BESIDE = ("", "-wal", "-shm")  # the database and the files SQLite keeps beside it in WAL mode


def _writable(directory: str | os.PathLike[str]) -> bool:
    return os.access(directory, os.W_OK | os.X_OK)


def _read_only(directory: str | os.PathLike[str]) -> str:
    return (f"the data directory {directory} is read-only for this user (a read-only mount or permissions): "
            "the database in it is not damaged, but it can only be used where it can be written")


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return 0


@contextlib.contextmanager
def _private_files() -> Iterator[None]:
    """Files created meanwhile are for this user only, from their creation (SQLite's included)."""
    previous = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(previous)


def _check_directory(directory: Path, own: bool) -> list[str]:
    """Refuse a data directory of another user (``own``: the server's); warn about one others may read or change."""
    info = os.stat(directory)
    if own and info.st_uid != os.geteuid():
        raise StoreError(f"the data directory {directory} belongs to another user (uid {info.st_uid}); "
                         "give --data-dir a directory of your own")
    if info.st_mode & 0o022:
        return [f"the data directory {directory} is writable by other users (mode {info.st_mode & 0o777:o}): "
                f"they could delete or replace the database; run: chmod 700 {directory}"]
    if info.st_mode & 0o055:
        return [f"the data directory {directory} is open to other users (mode {info.st_mode & 0o777:o}): "
                f"its files are private, but run: chmod 700 {directory}"]
    return []


def _not_ours(path: str | os.PathLike[str], info: os.stat_result, own: bool = True) -> str | None:
    """Why the server must not use ``path`` (None: a regular file, of this user if ``own``)."""
    if stat.S_ISLNK(info.st_mode):
        return f"{path} is a symbolic link: dab-server uses only its own files, never a link (remove it)"
    if not stat.S_ISREG(info.st_mode):
        return f"{path} is not a regular file (remove it)"
    if own and info.st_uid != os.geteuid():
        return f"{path} belongs to another user (uid {info.st_uid}), not to this one"
    return None


def _open_own(path: Path, own: bool) -> int:
    """An fd of the database file, refused unless it is a regular file (never a link), this user's if ``own``."""
    try:
        fd = os.open(path, os.O_RDONLY | _NO_LINKS | _NO_BLOCK | _NO_INHERIT)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise StoreError(_not_ours(path, os.lstat(path)) or f"cannot open {path}: {exc.strerror}") from None
        raise StoreError(f"cannot open {path}: {exc.strerror or exc}") from None
    problem = _not_ours(path, os.fstat(fd), own)
    if problem:
        os.close(fd)
        raise StoreError(problem)
    return fd


def _own_file(path: Path, *, private: bool, own: bool = True) -> None:
    """A file beside the database, if there: refused unless a regular file (this user's if ``own``);
    made 0600 if ``private``."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    problem = _not_ours(path, info, own)
    if problem:
        raise StoreError(problem)
    if private and info.st_mode & 0o077:
        try:
            os.chmod(path, 0o600)  # a regular file (checked above): chmod follows nothing
        except OSError as exc:
            raise StoreError(f"cannot make {path} private (chmod 600): {exc.strerror or exc}") from None
        if os.lstat(path).st_mode & 0o077:
            raise StoreError(f"{path} stays readable by other users after chmod 600")


def _hold(fd: int, path: Path) -> None:
    """An exclusive OS lock on the database file itself: two servers must never share one."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: SQLite's own locking still protects the file
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = _read_pid(path.parent / LOCK_NAME)
        raise StoreError(f"another dab-server{f' (pid {holder})' if holder else ''} is using the database {path}; "
                         "stop it first (only one server may use a database)") from None


def _read_pid(path: Path) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | _NO_LINKS | _NO_BLOCK)
    except OSError:
        return ""
    try:
        return os.read(fd, 32).decode(errors="replace").strip() if stat.S_ISREG(os.fstat(fd).st_mode) else ""
    finally:
        os.close(fd)


def _write_pid(path: Path) -> None:
    """Say which process holds the database (for the refusal of a second server); never through a link."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | _NO_LINKS | _NO_BLOCK, 0o600)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise StoreError(_not_ours(path, os.lstat(path)) or str(exc)) from None
        raise StoreError(f"cannot create {path}: {exc.strerror or exc}") from None
    try:
        problem = _not_ours(path, os.fstat(fd))
        if problem:
            raise StoreError(problem)
        os.fchmod(fd, 0o600)
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
    finally:
        os.close(fd)


def _fsync_directory(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)
