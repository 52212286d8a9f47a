"""The lobby: who is connected, which tables exist, and the request dispatcher.

Each request is handled synchronously and answered with exactly one ``ok`` or
``error``; pushes (views, events, table lists) go out through the same
per-session send path, so ordering on one connection is preserved.

Durability (when the lobby has a :class:`~server.store.Store`): each request,
hello, disconnect and timer step is one unit of work (:meth:`Lobby.atomic`).
Its writes are committed (fsync) *before* the pushes it produced and its
``ok`` leave, so no client ever hears of a state that a crash could take back.
With ``group_commit`` the units share transactions and the commits run in the
store's writer thread, off the event loop: the units of one event-loop
iteration (and all those that run while a commit is in flight) form the next
transaction. When it is handed to the writer, the messages it owes are built
and encoded at once, from the state it commits, and they leave when the
commit is done (``handle`` returns None and the lobby sends the reply itself).
If a commit fails the process exits at once: memory is then ahead of the
disk, and the restart restores the last durable state.

Identity and chips: a new player gets ``player_id`` and a random secret; the
token ``<player_id>_<secret>`` is theirs to keep (the client stores it per
server). The store keeps only SHA-256 of the secret. A returning player proves
who they are by presenting the token in ``hello`` and finds their balance:
new players are granted ``starting_balance`` chips, each seated human buys in
what the table's game asks (its ``GameType.buy_in``; their whole balance if
smaller, never less than the game's least) when the game starts, and their
final stack returns to their balance when the game is over.

The lobby is made of modules with one job each: :mod:`server.lobby_dispatch` (each request to its
handler, one reply each), :mod:`server.lobby_seats` (finding, joining and watching a table, and the
requests handed to it), :mod:`server.lobby_chips` (balances, buy-ins and cash-outs); this module
keeps the units of work and their delivery, sessions, who is online and invitations, moderation and
the operator's requests, and the table limits (``MAX_TABLES``, ``MAX_HELD_SEATS``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import functools
import hmac
import ipaddress
import itertools
import logging
import os
import secrets
import sqlite3
import time
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Protocol

from engine.games import GAMES
from engine.records import Record
from protocol import messages as m

from .archive import Archive
from .moderation import Ban, Moderation
from .errors import RequestError, StoreBusy, StoreError
from .limits import Backoff, PeerLog, TokenBucket
from .pacing import BUSY_RETRY
from .rounds import HISTORY_KEEP
from .keys import ServerKey
from .lobby_chips import Balances
from .lobby_dispatch import BUSY_MESSAGE, Dispatch
from .lobby_seats import CODE_TRIES_PER_PLAYER, CODE_TRIES_PER_TABLE, Seating  # noqa: F401  (importers' names)
from .table import SeatInfo, Table, TableConfig, complete_settings
from .text import CHAT_MAX, NAME_MAX, TABLE_NAME_MAX, clean_name, clean_table_name, clean_text, name_problem
from .tokens import secret_hash

if TYPE_CHECKING:
    from .store import Store

log = logging.getLogger(__name__)

MAX_TABLES = 500
BUSY_LOG_INTERVAL = 10.0  # s: at most one log line per this while the database stays busy
MAX_HELD_SEATS = 3  # running games one player may have left (their seat held) before creating or joining more
LIST_BYTES = 56 * 1024  # a table list (push or list_tables result) stays well inside the 64 KiB frame limit
TABLES_PUSH_INTERVAL = 0.5  # seconds between lobby list pushes (PROTOCOL.md: about two a second)
FEATURES = ("mute", "notices", "remove_player", "list_online", "invite")  # the list_tables result's features:
# the requests added within version 2 that a client may send only to a server that lists them
ONLINE_PUSH_INTERVAL = 2.0  # seconds between checks of who is online, pushed when it changed (PROTOCOL.md online)
LOBBY_FLUSH_RETRY = 0.1  # seconds: how soon a lobby state owed to a connection still writing is offered again
IDLE_AFTER = 300.0  # seconds without doing anything (a request but ping, list_online) before a player shows idle
INVITE_TTL = 60.0  # an invitation lets its player in (without a private code) this long
INVITE_EVERY, INVITE_BURST = 10.0, 3  # a host sends at most 3 invitations at once, then one per 10 s
INVITE_AGAIN = 30.0  # ... and the same player to the same table once per 30 s
INVITES_KEPT = 10  # invitations held for one player (the oldest go first)


class Session(Protocol):
    """What the lobby needs of one client's connection (:class:`server.net.ClientSession`):
    net imports the lobby, and the lobby knows sessions only by this, as a table knows the
    lobby only as its :class:`~server.table.Hub`."""

    closed: bool
    peer: str  # "host:port", for the log
    host: str  # the peer's address (what an operator's ban of an address matches)

    def push(self, message: m.Message, encoded: bytes | None = None) -> None:
        """Queue ``message`` to the peer (``encoded``: its bytes, shared by many peers)."""

    def backlog(self) -> int:
        """Bytes queued to the peer and not yet handed to the kernel (0: it keeps up)."""

    def cork(self) -> bool:
        """Hold pushes until :meth:`uncork`; False if already corked."""

    def uncork(self) -> None: ...

    def close_with(self, reason: str, message: str) -> None:
        """Tell the peer why, and close (another connection took the player over)."""

    def hold(self) -> None:
        """Handle none of the peer's later messages until :meth:`release` (an answer is being worked out)."""

    def release(self) -> None: ...


@dataclass
class PlayerRecord:
    player_id: str
    name: str
    secret_sha256: bytes  # the token's secret is never kept, only its hash
    balance: int = 0
    session: Session | None = None
    table_id: str | None = None
    rounds: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=HISTORY_KEEP))  # without a store only
    code_tries: Backoff = field(default_factory=lambda: Backoff(CODE_TRIES_PER_PLAYER, cap=300.0))
    played: bool = False  # has bought in at a game (or been granted chips by the operator): never pruned
    last_seen: float = 0.0  # loop time of the last hello, disconnect or restore
    notices: bool = False  # this session asked for notice pushes (``notices``); reset by each hello
    active_at: float = 0.0  # loop time of the last thing they did (a request but ping and list_online): idle
    follows: bool = False  # this session asked list_online: it gets online pushes (in the lobby) and invitations
    # The lobby's state pushes (``tables``, ``online``) to this connection (Lobby._flush_lobby): the bytes of the
    # last one it was sent of each, and those it is owed (to be sent the newest state once it keeps up).
    lobby_sent: dict[str, bytes] = field(default_factory=dict)
    lobby_owed: set[str] = field(default_factory=set)
    invites: TokenBucket = field(default_factory=lambda: TokenBucket(1 / INVITE_EVERY, INVITE_BURST))


GATEWAY_ORDER = ("ssh", "game", "web")  # how a join line lists them: nothing to install first


def is_loopback(host: str) -> bool:
    """``host`` (an address a socket listens on, or a name) is this machine's alone."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


@functools.cache
def games_offered() -> list[dict[str, Any]]:
    """The ``list_tables`` ``games``: each game's name, title, seat range, bot levels and rule fields, as the game
    states them."""
    return [
        {"name": game.name, "title": game.title, "min_seats": game.min_seats, "max_seats": game.max_seats,
         "bot_levels": list(game.bot_levels), "default_bot_level": game.default_bot_level,
         "rules": [{**dataclasses.asdict(f), "choices": list(f.choices) if f.choices is not None else None}
                   for f in game.setting_fields]}
        for game in GAMES.values()
    ]


def fatal_exit(exc: BaseException) -> None:
    """A commit failed: memory is ahead of the disk. Stop now; the restart restores the durable state."""
    logging.getLogger("dab-server").critical("cannot write the database (%s): stopping to protect the chips", exc)
    logging.shutdown()
    os._exit(70)


@dataclass
class LobbyConfig:
    table: TableConfig = field(default_factory=TableConfig)
    seed: bytes | None = None  # fixed seed for tests and replays; None: secrets
    store: Store | None = None  # None: keep nothing (tests, benchmarks); chips and tables die with the process
    starting_balance: int = 10_000  # chips granted to a new player
    restore_grace: float = 120.0  # after a restart: how long seats at tables not playing wait for their players
    empty_grace: float = 30.0  # a table with no human seated and nobody watching is closed after this
    unplayed_ttl: float = 24 * 3600.0  # a player who never played is forgotten this long after last seen
    unattended_grace: float = 600.0  # a table whose seated humans are all disconnected is closed after this
    on_fatal: Callable[[BaseException], None] = fatal_exit
    group_commit: bool = True  # one fsync per event-loop iteration instead of one per request
    history_worker: bool = True  # history and replays answered in a worker process (server.history_worker)
    key: ServerKey | None = None  # signs the fair deals (server.keys); None: the store's (server_key)
    public_host: str | None = None  # the name friends reach this machine by (--public-host), for join lines
    idle_after: float = IDLE_AFTER
    online_interval: float = ONLINE_PUSH_INTERVAL


def server_key(store: Store | None) -> ServerKey:
    """The key kept beside the store's database (server.keys), or a fresh one when nothing is kept."""
    if store is None or store.path == ":memory:":
        return ServerKey.generate()
    return ServerKey.load(os.path.dirname(os.path.abspath(store.path)))


@dataclass(frozen=True)
class Gateway:
    """A way in that this server runs (the ``list_tables`` ``gateways``): the game port, SSH, the browser."""

    kind: str  # "game", "ssh" or "web"
    port: int
    local: bool  # it listens on loopback only: reachable from this machine alone


class Lobby(Dispatch, Seating, Balances):
    def __init__(self, config: LobbyConfig, server_name: str) -> None:
        self.config = config
        self.server_name = server_name
        self.store = config.store
        self.players: dict[str, PlayerRecord] = {}
        self.tables: dict[str, Table] = {}
        self._table_ids = itertools.count(1)
        self._tables_push_pending = False
        self._tables_pushed_at = float("-inf")
        self._depth = 0
        self._unit = _UnitOfWork(self)
        self._outbox: list[tuple[str, m.Message, Session | None, bool]] = []  # (to, message, session, reply)
        self._touched: dict[str, Table] = {}
        self._dirty: dict[str, Table] = {}  # tables whose members are owed events and a view
        self._actors: list[str] = []  # players whose requests this flush answers, in order
        self._plan: _Delivery | None = None  # what a flush sends, while it is being built
        self._commit_pending = False  # a group commit is scheduled; messages wait for it
        self._in_flight: tuple[concurrent.futures.Future[None], _Delivery] | None = None  # the commit in the
        # writer thread, and what waits for it
        self._closing = False
        self._reaper: asyncio.TimerHandle | None = None
        self._code_tries: dict[str, Backoff] = {}  # wrong private codes by table id
        self.peer_log = PeerLog(log)
        self._busy_logged_at = float("-inf")
        self.requests_handled = 0  # the health log's requests/s (server.health)
        self.actions_applied = 0  # ... and actions/s: incremented by the tables
        self.health: Callable[[], dict[str, Any]] = dict  # the stats request's figures (GameServer.stats)
        self.key = config.key if config.key is not None else server_key(self.store)
        self.gateways: list[Gateway] = []  # the ways in, as each starts listening (gateway_started)
        # (player, table) -> (sent, expires, admits: False when the player muted the host, who is not told)
        self._invited: dict[tuple[str, str], tuple[float, float, bool]] = {}
        self._owing: dict[str, PlayerRecord] = {}  # players owed a lobby state push, by id (_flush_lobby)
        self._lobby_flush: asyncio.TimerHandle | None = None  # a retry of _flush_lobby is scheduled
        self._flush_waits = False  # _flush_lobby waits for a commit (_flush_lobby_soon)
        if config.seed is not None:
            log.warning("*** a fixed shuffle seed is set (--seed): every deal can be predicted by whoever knows "
                        "it. This is NOT A FAIR GAME: use it for tests and replays only. ***")
        self.archive = Archive(self, process=config.history_worker)
        self.moderation = Moderation(self.store)
        if self.store is not None:
            try:
                self._restore()
            except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
                raise StoreError(f"{self.store.path} cannot be read ({exc}); restore it from a backup") from None
        self._sweeper = asyncio.get_running_loop().call_later(self._sweep_period(), self._sweep)
        self._pruner = asyncio.get_running_loop().call_later(self._prune_period(), self._prune)
        self._online_timer = asyncio.get_running_loop().call_later(config.online_interval, self._push_online)

    @property
    def fixed_seed(self) -> bool:
        """Deals come from the operator's fixed seed: predictable, so not fair (shown in every view)."""
        return self.config.seed is not None

    # ------------------------------------------------------------ durability

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

    def _restore(self) -> None:
        """Load players and every open table as they were; deadlines start afresh."""
        store = self.store
        assert store is not None
        problems = store.audit()
        if problems:
            raise StoreError("the chip accounts do not balance (damaged or edited database): " + "; ".join(problems[:3]))
        store.check_rounds()
        now = asyncio.get_running_loop().time()
        for row in store.load_players():
            self.players[row.player_id] = PlayerRecord(row.player_id, row.name, row.secret_sha256, row.balance,
                                                       played=row.played, last_seen=now)
        tables = store.load_tables()
        for row in tables:
            table = Table.restore(row, self, self.config.table, self._rng_for(row.table_no), store)
            self.tables[table.table_id] = table
            for info in table.seats.values():
                if info.player_id is not None and not info.left:
                    player = self.players.get(info.player_id)
                    if player is None:
                        raise StoreError(f"table {table.table_id}: seat {info.seat} belongs to unknown player {info.player_id}")
                    player.table_id = table.table_id
            for player_id in table.spectators:
                if player_id in self.players:
                    self.players[player_id].table_id = table.table_id
        if tables:
            self._table_ids = itertools.count(max(row.table_no for row in tables) + 1)
        with self.atomic():  # every table is back: only now write, so a refused start changes nothing
            for table in self.tables.values():
                if table.engine_outdated:
                    store.set_engine(table.table_id, None)  # from now on only checkpoints restore it
                table.expel_due()  # removed during a round that has ended (or nothing: they went at once)
                table.rebind()  # this run's key and seed window, from the next round on
                table.broadcast()  # arms deadlines (full length), bots and the round pause
        if any(t.state != "playing" or t.spectators for t in self.tables.values()):
            self._reaper = asyncio.get_running_loop().call_later(self.config.restore_grace, self._reap_absent)
        log.info("restored %d players and %d tables", len(self.players), len(self.tables))

    def _reap_absent(self) -> None:
        """Seats at waiting or finished tables, and spectators anywhere, whose players did not come back
        after a restart (seats in a running game stay held, as for any disconnect)."""
        self._reaper = None
        with self.atomic():
            if not self.reserve():
                self._reaper = asyncio.get_running_loop().call_later(BUSY_RETRY, self._reap_absent)
                return
            for player in list(self.players.values()):
                table = self.tables.get(player.table_id) if player.table_id else None
                if player.session is None and table is not None and (
                        table.state != "playing" or player.player_id in table.spectators):
                    table.leave(player.player_id, offline=True)
                    player.table_id = None
                    self._drop_if_empty(table)

    def reserve(self) -> bool:
        """Take the database's write lock before a unit changes anything; False: busy, change nothing.

        Whatever a unit changes in memory it writes, and a write that fails
        after the change stops the server; so the lock comes first, and a busy
        database costs the asker a ``busy`` error instead of a gap in a log.
        """
        if self.store is None:
            return True
        try:
            self.store.begin()
        except StoreBusy as exc:
            now = asyncio.get_running_loop().time()
            if now - self._busy_logged_at >= BUSY_LOG_INTERVAL:
                self._busy_logged_at = now
                log.warning("%s: requests get 'busy' until it is free", exc)
            return False
        return True
    def _sweep_period(self) -> float:
        return max(0.05, min(1.0, self.config.empty_grace / 4, self.config.unattended_grace / 4))

    def _sweep(self) -> None:
        """Close tables nobody attends: bot-only games would otherwise run for ever,
        one chip of the host's each, and fill the lobby (live and after a restore)."""
        loop = asyncio.get_running_loop()
        self._sweeper = loop.call_later(self._sweep_period(), self._sweep)
        now = loop.time()
        due = []
        for table in self.tables.values():
            if table.attended():
                table.unattended_since = None
            elif table.unattended_since is None:
                table.unattended_since = now
            elif now - table.unattended_since >= (
                    self.config.empty_grace if table.is_empty() else self.config.unattended_grace):
                due.append(table)
        if due:
            with self.atomic():
                if not self.reserve():
                    return  # the database is busy: the next sweep tries again
                for table in due:
                    self._close_unattended(table)

    def _prune_period(self) -> float:
        return max(0.05, min(60.0, self.config.unplayed_ttl / 4))

    def _prune(self) -> None:
        """Forget players who never played and have been away ``unplayed_ttl``: a
        tokenless hello costs the server nothing for long (their chips were free)."""
        loop = asyncio.get_running_loop()
        self._pruner = loop.call_later(self._prune_period(), self._prune)
        cutoff = loop.time() - self.config.unplayed_ttl
        gone = [p.player_id for p in self.players.values()
                if not p.played and p.session is None and p.table_id is None and p.last_seen <= cutoff]
        if not gone:
            return
        with self.atomic():
            if not self.reserve():
                return  # the database is busy: the next round tries again
            for player_id in gone:
                del self.players[player_id]
            self.moderation.forget(gone)
            if self.store is not None:
                self.store.remove_players(gone)
        log.info("forgot %d players who never played", len(gone))

    def _close_unattended(self, table: Table) -> None:
        log.info("table %s: nobody has been at it for a while (%s); closing it",
                 table.table_id, "no human seated" if table.is_empty() else "its players are away")
        if table.state == "playing":
            table.finish()  # the pot is paid back and every stack returns to its owner's balance
        for info in table.seats.values():
            player = self.players.get(info.player_id) if info.player_id else None
            if player is not None and player.table_id == table.table_id:
                player.table_id = None
        table.close()
        self.tables.pop(table.table_id, None)
        if self.store is not None:
            self.store.set_table_state(table.table_id, "closed")
        self.tables_changed()

    # ------------------------------------------------------------ Hub for tables

    def send(self, player_id: str, message: m.Message) -> None:
        """Send ``message`` to the player's session, after the commit it may depend on: to the
        session connected now (one that replaces it meanwhile gets its own welcome and view)."""
        player = self.players.get(player_id)
        session = player.session if player is not None else None
        if self._plan is None and self._held():
            self._outbox.append((player_id, message, session, False))
        elif session is not None:
            self._push(session, message)

    def is_connected(self, player_id: str) -> bool:
        player = self.players.get(player_id)
        return player is not None and player.session is not None

    def tables_changed(self) -> None:
        """Push the table list to lobby players: at most twice a second, however busy."""
        if self._tables_push_pending:
            return
        self._tables_push_pending = True
        loop = asyncio.get_running_loop()
        delay = max(0.0, self._tables_pushed_at + TABLES_PUSH_INTERVAL - loop.time())
        loop.call_later(delay, self._push_tables)

    def _push_tables(self) -> None:
        self._tables_push_pending = False
        self._tables_pushed_at = asyncio.get_running_loop().time()
        self._owe("tables", [p for p in self.players.values() if p.session is not None and p.table_id is None])

    # ------------------------------------------------------------ the lobby's state pushes, per connection

    def _owe(self, kind: str, players: list[PlayerRecord]) -> None:
        """``players`` are owed the newest ``kind`` ("tables" or "online"): send it to each connection that
        keeps up, once any commit it may depend on is durable (like every push)."""
        for player in players:
            player.lobby_owed.add(kind)
            self._owing[player.player_id] = player
        if players:
            self._flush_lobby_soon()

    def _flush_lobby_soon(self) -> None:
        """Flush the owed lobby states once what is written so far is durable (at once if nothing waits)."""
        if not self._flush_waits:
            self._flush_waits = True
            self.after_commit(self._flush_lobby)

    def _flush_lobby(self) -> None:
        """Send each connection owed a lobby state the newest one, built now (once for all), unless that
        connection has it already; one whose earlier messages still wait to be written (a slow reader)
        is left owing, and offered the then newest state again shortly: it is never queued one stale list
        after another, and the last state always reaches it. Views and events are not sent here: nothing
        a player's own table sends waits for this."""
        self._flush_waits = False
        if self._held():  # a commit is pending or in flight: what it makes true goes out first
            self._flush_lobby_soon()
            return
        built: dict[str, tuple[m.Message, bytes]] = {}
        for player_id, player in list(self._owing.items()):
            session = player.session
            for kind in sorted(player.lobby_owed):
                if session is None or session.closed or player.table_id is not None \
                        or (kind == "online" and not player.follows):
                    player.lobby_owed.discard(kind)  # no longer in the lobby (or listening): nothing owed
                    continue
                if getattr(session, "backlog", _no_backlog)():
                    continue
                if kind not in built:
                    built[kind] = self._lobby_state(kind)
                message, encoded = built[kind]
                player.lobby_owed.discard(kind)
                if player.lobby_sent.get(kind) != encoded:
                    player.lobby_sent[kind] = encoded
                    session.push(message, encoded)
            if not player.lobby_owed:
                del self._owing[player_id]
        if self._owing:
            self._retry_lobby_flush()

    def _retry_lobby_flush(self) -> None:
        if self._lobby_flush is None and not self._closing:
            self._lobby_flush = asyncio.get_running_loop().call_later(LOBBY_FLUSH_RETRY, self._lobby_retry)

    def _lobby_retry(self) -> None:
        self._lobby_flush = None
        self._flush_lobby_soon()

    def _lobby_state(self, kind: str) -> tuple[m.Message, bytes]:
        """The lobby's ``kind`` state now, and its bytes (encoded once, for every connection)."""
        if kind == "tables":
            message: m.Message = m.Tables(tables=self.summaries())
        else:
            players, total = self.online()
            message = m.Online(players=tuple(players), total=total)
        return message, m.encode(message)

    def _send_tables(self, player: PlayerRecord) -> None:
        """The table list now, to a player who comes (back) to the lobby: it is what they are owed."""
        message, encoded = self._lobby_state("tables")
        player.lobby_owed.discard("tables")
        player.lobby_sent["tables"] = encoded
        self.send(player.player_id, message)

    def table_finished(self, table: Table) -> None:
        """A finished table stays for its standings until everyone has left."""

    def round_finished(self, table: Table, record: dict[str, Any], public: dict[str, Any],
                       rows: list[tuple[str, dict[str, Any]]]) -> None:
        """Without a store, each player keeps their last rounds for ``history`` away from tables
        (and the archive its lines and replays)."""
        if self.store is None:
            for info in table.seats.values():
                if info.player_id is not None:
                    self.players[info.player_id].rounds.append(public)
        self.archive.round_finished(table, record, public, rows)

    def game_finished(self, table: Table, rows: list[tuple[str, dict[str, Any]]]) -> None:
        self.archive.game_finished(table, rows)

    def summaries(self) -> tuple[m.TableSummary, ...]:
        """The lobby list: waiting tables first, then playing, then finished, as
        many as fit in one frame (``LIST_BYTES``)."""
        order = {"waiting": 0, "playing": 1, "finished": 2}
        kept: list[m.TableSummary] = []
        size = 0
        for table in sorted(self.tables.values(), key=lambda t: order[t.state]):
            summary = table.summary()
            size += len(m.encode(m.Tables(tables=(summary,))))
            if size > LIST_BYTES:
                break
            kept.append(summary)
        return tuple(kept)

    # ------------------------------------------------------------ sessions

    def hello(self, session: Session, msg: m.Hello) -> m.Welcome:
        """Greet a new session, or resume a known player by token (raises RequestError if refused).

        The welcome goes out like a reply, after the commit that makes it true
        (a new player is durable before their token leaves), followed by what
        brings the session up to date. Messages held for a commit were meant
        for the sessions that existed when they were made: none reaches this
        session before its welcome.
        """
        with self.atomic():
            player = self.player_for_token(msg.token) if msg.token else None
            was_offline = player is not None and player.session is None  # (not: taken over from elsewhere)
            welcome = self._hello(session, msg)
            self._actors.append(welcome.player_id)
            self._outbox.append((welcome.player_id, welcome, session, True))
            self._welcomed(welcome.player_id, was_offline)
        return welcome

    def _hello(self, session: Session, msg: m.Hello) -> m.Welcome:
        if self._closing:
            raise RequestError("shutting_down", "the server is shutting down")
        refusal = self.moderation.refusal(host=session.host)
        if msg.token:
            player = self.player_for_token(msg.token)
            if player is None:
                raise RequestError("bad_token", "that resume token is not valid on this server")
            refusal = refusal or self.moderation.refusal(player_id=player.player_id)
        if refusal is not None:
            raise RequestError("banned", refusal)
        if msg.token:
            if player.session is not None and player.session is not session:
                player.session.close_with("replaced", "you connected again from elsewhere")
            self._unique_name(player)
            resumed, token = True, msg.token
        else:
            name = clean_name(msg.name)
            problem = self.name_refusal(name)
            if problem:
                raise RequestError("bad_name", problem)
            player_id, secret = secrets.token_hex(8), secrets.token_urlsafe(24)
            player = self._add_player(player_id, name, secret)
            resumed, token = False, f"{player_id}_{secret}"
        player.session = session
        player.notices = False  # this connection has not asked for them (yet)
        player.follows = False  # (a new connection: it asks list_online if it wants the pushes)
        player.lobby_sent, player.lobby_owed = {}, set()  # (nor has it been sent any lobby state)
        player.active_at = asyncio.get_running_loop().time()
        table = self.tables.get(player.table_id) if player.table_id else None
        seat = table.seat_of(player.player_id) if table else None
        return m.Welcome(
            id=msg.id, version=m.PROTOCOL_VERSION, server=self.server_name, player_id=player.player_id,
            token=token, resumed=resumed, table_id=table.table_id if table else None, seat=seat,
        )

    def _add_player(self, player_id: str, name: str, secret: str) -> PlayerRecord:
        """A new identity, durable with this unit of work, granted ``starting_balance``."""
        if not self.reserve():
            raise RequestError("busy", BUSY_MESSAGE)
        player = PlayerRecord(player_id, name, secret_hash(secret), self.config.starting_balance,
                              last_seen=asyncio.get_running_loop().time())
        if self.store is not None:
            self.store.add_player(player_id, name, player.secret_sha256, player.balance)
        self.players[player_id] = player
        return player

    def adopt(self, player_id: str, name: str, secret: str) -> None:
        """A gateway's identity (an SSH key's): created with this id and secret unless it exists, so
        the token ``<player_id>_<secret>`` resumes it. Raises RequestError (bad_name, busy) if it cannot."""
        if player_id in self.players:
            return
        with self.atomic():
            name = clean_name(name)
            problem = self.name_refusal(name)
            if problem:
                raise RequestError("bad_name", problem)
            self._add_player(player_id, name, secret)
        self._group_commit()

    def name_refusal(self, name: str) -> str | None:
        """Why a new player may not take the cleaned ``name`` now (``bad_name``), or None (§8.1)."""
        return name_problem(name) or self._name_in_use(name)

    def _name_in_use(self, name: str, player: PlayerRecord | None = None) -> str | None:
        """Names are unique among players online (connected, or holding a seat): why ``name`` is taken, if it is."""
        folded = name.casefold()
        for other in self.players.values():
            if other is not player and other.name.casefold() == folded and (
                    other.session is not None or self._holds_seat(other)):
                return f"{name!r} is in use by another player on this server now; choose another name"
        return None

    def _holds_seat(self, player: PlayerRecord) -> bool:
        return any(t.seat_of(player.player_id) is not None for t in self.tables.values())

    def _unique_name(self, player: PlayerRecord) -> None:
        """A returning player whose name another player took meanwhile is told apart by a number: "Ann 2"."""
        if self._name_in_use(player.name, player) is None:
            return
        base = player.name[:NAME_MAX - 3]
        player.name = next(n for k in itertools.count(2) if self._name_in_use(n := f"{base} {k}", player) is None)
        if self.store is not None:
            self.store.rename_player(player.player_id, player.name)

    def player_for_token(self, token: str) -> PlayerRecord | None:
        """The player this resume token is, or None (unknown, expired, or not a token at all)."""
        player_id, _, secret = token.partition("_")
        player = self.players.get(player_id)
        if player is None or not hmac.compare_digest(player.secret_sha256, secret_hash(secret)):
            return None
        return player

    def _welcomed(self, player_id: str, was_offline: bool = False) -> None:
        """After the welcome: bring the session up to date (``was_offline``: a player coming back whose
        connection had dropped; their table is told)."""
        player = self.players[player_id]
        table = self.tables.get(player.table_id) if player.table_id else None
        if table is None:
            self._send_tables(player)
            return
        with self.atomic():
            seat = table.seat_of(player_id)
            if was_offline and seat is not None and not table.seats[seat].left:
                table.story("online", seat)
            table.audience.catch_up(player_id)  # the view, then the recent chat
            table.broadcast()  # everyone sees the seat reconnect

    def disconnected(self, player_id: str, session: Session) -> None:
        player = self.players.get(player_id)
        if player is None or player.session is not session:
            return
        player.session = None
        player.last_seen = asyncio.get_running_loop().time()
        self._disconnect(player)

    def _disconnect(self, player: PlayerRecord) -> None:
        if self._closing or player.session is not None:  # a shutdown is not a goodbye; or they are back
            return
        with self.atomic():
            if not self.reserve():
                asyncio.get_running_loop().call_later(BUSY_RETRY, self._disconnect, player)
                return
            self._disconnected(player)

    def _disconnected(self, player: PlayerRecord) -> None:
        player_id = player.player_id
        table = self.tables.get(player.table_id) if player.table_id else None
        if table is not None:
            seat = table.seat_of(player_id)
            if seat is None or table.game is None:
                table.leave(player_id, offline=True)  # spectators and pre-game seats are not held
                player.table_id = None
                self._drop_if_empty(table)
            else:
                if not table.seats[seat].left:
                    table.story("offline", seat)
                table.broadcast()  # seat held; others see the connection state
        self.tables_changed()

    # ------------------------------------------------------------ requests

    def gateway_started(self, kind: str, port: int, hosts: list[str]) -> None:
        """The game port, the SSH or the browser gateway listens on ``port`` at ``hosts`` (its addresses)."""
        self.gateways = [g for g in self.gateways if g.kind != kind]
        self.gateways.append(Gateway(kind, port, bool(hosts) and all(is_loopback(h) for h in hosts)))
        self.gateways.sort(key=lambda g: GATEWAY_ORDER.index(g.kind))

    def _list_tables(self, player: PlayerRecord, msg: m.ListTables) -> dict[str, Any]:
        return {"tables": [s.to_wire() for s in self.summaries()], "total": len(self.tables), "games": games_offered(),
                "balance": player.balance, "at_tables": self.chips_at_tables().get(player.player_id, 0),
                "features": list(FEATURES), "server_key": self.key.public.hex(),
                "gateways": [{"kind": g.kind, "host": self.config.public_host, "port": g.port, "local": g.local}
                             for g in self.gateways]}

    def _check_held_seats(self, player: PlayerRecord) -> None:
        """A player may leave only so many running games behind (each holds their seat)."""
        held = [t.table_id for t in self.tables.values()
                if t.table_id != player.table_id and t.seat_of(player.player_id) is not None]
        if len(held) >= MAX_HELD_SEATS:
            raise RequestError("too_many_tables", f"you still hold seats at {', '.join(held)}; go back to one of "
                               "them, or wait for its game to end, before sitting at another table")

    def _create_table(self, player: PlayerRecord, msg: m.CreateTable) -> dict[str, Any]:
        if len(self.tables) >= MAX_TABLES:
            raise RequestError("server_full", "this server has as many tables as it can hold")
        settings, rules = complete_settings(msg.settings)  # the game's defaults filled in, its limits checked
        self._can_sit(player, settings.game, rules)
        self._check_held_seats(player)
        self._require_no_table(player)
        name = clean_table_name(msg.name)
        if not name or len(name) > TABLE_NAME_MAX:
            raise RequestError("bad_name", f"a table name must be 1 to {TABLE_NAME_MAX} characters once cleaned")
        table = self._new_table(name, settings, player.player_id, msg.private_code)
        seat = table.join(player.player_id, player.name, None)
        player.table_id = table.table_id
        return {"table_id": table.table_id, "seat": seat}

    def rematch(self, old: Table) -> None:
        """Everyone accepted the rematch at ``old``: a new table with its name, settings, code and seats, started."""
        offer = old.rematch
        assert offer is not None
        seated = [old.seats[s] for s in sorted(offer.answers) if s in old.seats]
        try:
            old.check_chips(seated)
            if len(self.tables) >= MAX_TABLES:
                raise RequestError("server_full", "this server has as many tables as it can hold")
        except RequestError as exc:
            offer.cancel(None, f"the rematch cannot start: {exc.message}")
            return
        table = self._new_table(old.name, old.settings, old.host_id, old.private_code)
        for player_id in old.removed:  # whom the host removed stays away from the rematch too
            table.bar(player_id)
        old.audience.record([Record("rematch_started", None, {"table_id": table.table_id})])  # for its spectators
        offer.close()
        old.rematch = None
        for info in seated:
            del old.seats[info.seat]
            table.seats[info.seat] = SeatInfo(info.seat, info.name, info.player_id, level=info.level)  # a bot its level
            if info.player_id is not None:
                self.players[info.player_id].table_id = table.table_id
        old.save()
        table.save()
        table.start(old.host_id)
        old.broadcast()
        self._drop_if_empty(old)
        self.tables_changed()

    # ------------------------------------------------------------ who is online, invitations

    def online(self) -> tuple[list[m.OnlinePlayer], int]:
        """Who is online (connected), as anyone may know it: at most ``MAX_ONLINE``, those in the lobby first
        (whom a host can invite), then those watching, then those seated, each by name; and how many in all.

        A seated player's table is shown (the lobby's list names a table's seated players, private or not);
        a spectator's only if the table is not private (nothing else tells who watches a private table)."""
        now = asyncio.get_running_loop().time()
        idle_after = self.config.idle_after
        found = []
        for player in self.players.values():
            if player.session is None:
                continue
            table = self.tables.get(player.table_id) if player.table_id else None
            seat = table.seat_of(player.player_id) if table is not None else None
            if table is None:
                where, table_id, away = "lobby", None, False
            elif seat is not None:
                where, table_id, away = "seated", table.table_id, table.played_for(table.seats[seat])
            else:
                where, away = "watching", False
                table_id = None if table.private_code is not None else table.table_id
            found.append((ONLINE_ORDER[where], player.name.casefold(), m.OnlinePlayer(
                name=player.name, where=where, table_id=table_id, away=away, idle=now - player.active_at >= idle_after)))
        found.sort(key=lambda entry: entry[:2])
        return [entry[2] for entry in found[:m.MAX_ONLINE]], len(found)

    def _list_online(self, player: PlayerRecord, msg: m.ListOnline) -> dict[str, Any]:
        player.follows = True
        players, total = self.online()
        player.lobby_owed.discard("online")  # (the answer is the newest: a push of the same is not sent)
        player.lobby_sent["online"] = m.encode(m.Online(players=tuple(players), total=total))
        return {"players": [p.to_wire() for p in players], "total": total}

    def _push_online(self) -> None:
        """Every ``online_interval``: the players online, to each follower in the lobby whose connection was
        last sent (or answered) another list (_flush_lobby)."""
        loop = asyncio.get_running_loop()
        self._online_timer = loop.call_later(self.config.online_interval, self._push_online)
        self._owe("online", [p for p in self.players.values()
                             if p.follows and p.session is not None and p.table_id is None])

    def _invite(self, player: PlayerRecord, msg: m.Invite) -> None:
        table = self._table(player)
        table.require_host(player.player_id)
        if table.state == "finished":
            raise RequestError("game_running", "this table's game is over: nobody can join it")
        folded = msg.name.casefold().strip()
        guest = next((p for p in self.players.values() if p.session is not None and p.name.casefold() == folded
                      and p is not player), None)
        if guest is None:
            raise RequestError("no_such_player", f"nobody called {msg.name!r} is online")
        if not guest.follows:
            raise RequestError("no_such_player", f"{guest.name}'s client does not take invitations")
        there = self.tables.get(guest.table_id) if guest.table_id else None
        if there is not None and there.seat_of(guest.player_id) is not None:
            raise RequestError("already_at_table", f"{guest.name} is seated at {'this' if there is table else 'a'} "
                                                   "table already")
        if all(s in table.seats for s in range(table.settings.seats)):
            raise RequestError("table_full", f"all {table.settings.seats} seats are taken")
        now = asyncio.get_running_loop().time()
        key = (guest.player_id, table.table_id)
        sent = self._invited.get(key)
        if sent is not None and now - sent[0] < INVITE_AGAIN:
            raise RequestError("rate_limited", f"you invited {guest.name} {now - sent[0]:.0f} s ago; "
                                               f"invite them again in {INVITE_AGAIN - (now - sent[0]):.0f} s")
        if not player.invites.take():
            raise RequestError("rate_limited", f"at most {INVITE_BURST} invitations at once, then one every "
                                               f"{INVITE_EVERY:g} s")
        # A guest who muted the host is neither told nor let in; the host, answered as for anyone, cannot tell
        # (the invitation is kept, so inviting them again is refused as it would be).
        heard = self.hears(guest.player_id, player.player_id)
        self._invited.pop(key, None)
        self._invited[key] = (now, now + INVITE_TTL, heard)
        self._forget_invitations(guest.player_id, now)
        if not heard:
            return
        self.send(guest.player_id, m.Invitation(
            table_id=table.table_id, table_name=table.name, title=table.game_type.title, host=player.name,
            private=table.private_code is not None, expires_ms=int(INVITE_TTL * 1000)))

    def _forget_invitations(self, player_id: str, now: float) -> None:
        """Keep the invitations bounded: expired ones go, and a player holds at most ``INVITES_KEPT``."""
        if len(self._invited) > 4 * len(self.players) + 64:
            self._invited = {k: v for k, v in self._invited.items() if v[1] > now}
        mine = [k for k in self._invited if k[0] == player_id]
        for key in mine[:-INVITES_KEPT]:
            del self._invited[key]

    def _leave(self, player: PlayerRecord, msg: m.Leave) -> None:
        table = self._table(player)
        table.leave(player.player_id)
        player.table_id = None
        self._drop_if_empty(table)
        self._send_tables(player)

    # ------------------------------------------------------------ moderation: mutes, removals, notices

    def _mute(self, player: PlayerRecord, msg: m.Mute) -> dict[str, Any]:
        """Mute (or unmute) a player by the name this player sees; kept with the player."""
        if msg.muted:
            target = self._named(player, msg.name)
            if target.player_id == player.player_id:
                raise RequestError("bad_target", "you cannot mute yourself")
            self.moderation.mute(player.player_id, target.player_id, True)
            return {"name": target.name, "muted": True}
        folded = clean_name(msg.name).casefold()
        muted = [p for p in self.moderation.muted_by(player.player_id)
                 if p in self.players and self.players[p].name.casefold() == folded]
        if not muted:
            raise RequestError("no_such_player", f"you have muted nobody called {clean_name(msg.name)!r}")
        for target_id in muted:
            self.moderation.mute(player.player_id, target_id, False)
        return {"name": self.players[muted[0]].name, "muted": False}

    def _mutes(self, player: PlayerRecord, msg: m.Mutes) -> dict[str, Any]:
        return {"names": sorted((self.players[p].name for p in self.moderation.muted_by(player.player_id)
                                 if p in self.players), key=str.casefold)}

    def _named(self, player: PlayerRecord, name: str) -> PlayerRecord:
        """The player called ``name`` as ``player`` sees them: at their table (seated, watching, or a line of
        its recent chat), else online; ``no_such_player`` if there is none."""
        folded = clean_name(name).casefold()
        table = self.tables.get(player.table_id) if player.table_id else None
        candidates: list[str] = []
        if table is not None:
            candidates += [i.player_id for i in table.seats.values() if i.player_id is not None]
            candidates += sorted(table.spectators)
            candidates += [speaker for _, speaker in reversed(table.audience.chat_log) if speaker is not None]
        candidates += [p.player_id for p in self.players.values() if p.session is not None or self._holds_seat(p)]
        for player_id in candidates:
            found = self.players.get(player_id)
            if found is not None and folded and found.name.casefold() == folded:
                return found
        raise RequestError("no_such_player", f"there is no player called {clean_name(name)!r} here")

    def _remove_player(self, player: PlayerRecord, msg: m.RemovePlayer) -> dict[str, Any]:
        table = self._table(player)
        table.require_host(player.player_id)
        folded = clean_name(msg.name).casefold()
        members = [i.player_id for i in table.seats.values() if i.player_id is not None] + sorted(table.spectators)
        target = next((self.players[p] for p in members if p in self.players and folded
                       and self.players[p].name.casefold() == folded), None)
        if target is None:
            raise RequestError("no_such_player", f"nobody called {clean_name(msg.name)!r} is at this table "
                                                 "(a bot leaves with remove_bot)")
        now = table.remove(player.player_id, target.player_id, target.name)
        return {"name": target.name, "at_round_end": not now}

    def removed_from(self, table: Table, player_id: str) -> None:
        """The host removed ``player_id`` from ``table`` (Hub): back in the lobby, told why."""
        player = self.players.get(player_id)
        if player is None or player.table_id != table.table_id:
            return
        player.table_id = None
        self._send_tables(player)
        self.notice(player, "removed", f"the host of table {table.table_id} ({table.name}) removed you from it")

    def hears(self, listener: str, speaker: str | None) -> bool:
        """Does ``listener`` hear what ``speaker`` writes at a table (Hub; None: the server)?"""
        return self.moderation.hears(listener, speaker)

    def notice(self, player: PlayerRecord, kind: str, text: str) -> None:
        """Tell ``player`` something wherever they are: a ``notice`` if their connection asked for them."""
        if player.session is not None and player.notices:
            self.send(player.player_id, m.Notice(kind=kind, text=text, ts=int(time.time() * 1000)))

    def _notices(self, player: PlayerRecord, msg: m.Notices) -> None:
        player.notices = msg.on

    # ------------------------------------------------------------ the operator (server.operator)

    def ban(self, ban: Ban) -> tuple[bool, int]:
        """Store ``ban`` and apply it to whoever is online: their connections get ``bye`` ``banned``
        after the commit, and a banned player leaves their tables (seats held in a running game are
        played for them). Returns (new, connections closed). Raises RequestError (busy)."""
        with self.atomic():
            if not self.reserve():
                raise RequestError("busy", BUSY_MESSAGE)
            new = self.moderation.add(ban)
            hit = [p for p in self.players.values() if self._banned_now(p, ban)]
            for player in hit:
                for table in [t for t in self.tables.values()
                              if t.seat_of(player.player_id) is not None or player.player_id in t.spectators]:
                    table.leave(player.player_id)
                    self._drop_if_empty(table)
                player.table_id = None
            self.tables_changed()
        closing = [p.session for p in hit if p.session is not None]
        self.after_commit(lambda: self._close_banned(closing, ban))
        return new, len(closing)

    def _banned_now(self, player: PlayerRecord, ban: Ban) -> bool:
        if ban.kind == "player":
            return player.player_id == ban.value
        if ban.kind == "key":
            return player.player_id == self.moderation.key_player(ban.value)
        session = player.session
        return session is not None and self.moderation.find(host=session.host) is not None

    def _close_banned(self, sessions: list[Session], ban: Ban) -> None:
        for session in sessions:
            session.close_with("banned", ban.refusal())
        self.moderation.announce(ban)

    def unban(self, kind: str, value: str) -> Ban | None:
        with self.atomic():
            if not self.reserve():
                raise RequestError("busy", BUSY_MESSAGE)
            return self.moderation.remove(kind, value)

    def announce(self, text: str) -> int:
        """The operator's line to everyone online: a ``notice`` where asked for, else a ``Server`` chat line at
        their table (players in the lobby with no notices hear nothing). Returns how many were told."""
        text = clean_text(text, CHAT_MAX + 1)
        if not text or len(text) > CHAT_MAX:
            raise RequestError("too_long" if text else "bad_message",
                               f"an announcement is 1 to {CHAT_MAX} characters once cleaned")
        told = 0
        now = int(time.time() * 1000)
        for player in self.players.values():
            if player.session is None:
                continue
            if player.notices:
                self.send(player.player_id, m.Notice(kind="announcement", text=text, ts=now))
            elif player.table_id is not None and player.table_id in self.tables:
                self.send(player.player_id, m.ChatMessage(table_id=player.table_id, seat=None, name=m.SERVER_NAME,
                                                          text=text, ts=now))
            else:
                continue
            told += 1
        return told

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

    def _ping(self, player: PlayerRecord, msg: m.Ping) -> None:
        return None

    def _stats(self, player: PlayerRecord, msg: m.Stats) -> dict[str, Any]:
        return self.health()

    def _archived(name: str) -> Callable[..., Any]:  # type: ignore[misc]
        """A request the archive answers (server.archive)."""
        return lambda lobby, player, msg: getattr(lobby.archive, name)(player, msg)

    # Which method answers each request (Dispatch._handle looks it up); the tables' own requests are Seating's.
    _handlers: dict[type, Callable[..., Any]] = {
        m.ListTables: _list_tables, m.CreateTable: _create_table, m.Join: Seating._join, m.Watch: Seating._watch,
        m.Leave: _leave, m.Start: Seating._start, m.AddBot: Seating._add_bot, m.RemoveBot: Seating._remove_bot,
        m.EndGame: Seating._end_game, m.Act: Seating._act, m.SitOut: Seating._sit_out,
        m.ClientSeed: Seating._client_seed, m.SeedCommit: Seating._seed_commit,
        m.Chat: Seating._chat, m.History: _archived("history"),
        m.Ping: _ping, m.Stats: _stats, m.PastRounds: _archived("past_rounds"), m.PastGames: _archived("past_games"),
        m.Replay: _archived("replay"), m.Leaderboard: _archived("leaderboard"),
        m.SetHidden: _archived("set_hidden"), m.OfferRematch: Seating._offer_rematch,
        m.AnswerRematch: Seating._answer_rematch,
        m.Mute: _mute, m.Mutes: _mutes, m.RemovePlayer: _remove_player, m.Notices: _notices,
        m.ListOnline: _list_online, m.Invite: _invite,
    }
    del _archived

    def close(self) -> None:
        """Stop timers and close the store (it commits what is pending); seats and games stay stored
        for the next start."""
        self._closing = True  # from now on commits run here, not in the writer thread
        self.archive.worker.close()
        if self._in_flight is not None:
            commit, delivery = self._in_flight
            concurrent.futures.wait([commit])
            self._committed(commit, delivery)  # and what gathered meanwhile, with its checkpoints
        self._group_commit()
        if self._reaper is not None:
            self._reaper.cancel()
        self._sweeper.cancel()
        self._pruner.cancel()
        self._online_timer.cancel()
        if self._lobby_flush is not None:
            self._lobby_flush.cancel()
        for table in self.tables.values():
            table.close()
        if self.store is not None:
            try:
                if self.store.failed is None:
                    for table in self.tables.values():  # the next start (an upgraded engine, say) has the whole state
                        table.save_checkpoint(full=True)
            except StoreError as exc:  # nothing else is pending: the last commit's checkpoints stand
                log.warning("could not write the tables' checkpoints at shutdown: %s", exc)
            log.info("store: %d commits", self.store.commits)
            self.store.close()

ONLINE_ORDER = {"lobby": 0, "watching": 1, "seated": 2}


def _no_backlog() -> int:
    return 0


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
