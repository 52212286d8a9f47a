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

The lobby is made of modules with one job each:

* :mod:`server.lobby_delivery` -- units of work and the delivery of what they owe (durable before ok);
* :mod:`server.lobby_dispatch` -- each request to its handler, one reply each;
* :mod:`server.lobby_sessions` -- ``hello``, names, takeovers, disconnects;
* :mod:`server.lobby_seats` -- finding, joining and watching a table, and the requests handed to it;
* :mod:`server.lobby_chips` -- balances, buy-ins and cash-outs;
* :mod:`server.lobby_pushes` -- the lobby's state pushes, coalesced per connection;
* :mod:`server.lobby_online` -- who is online;
* :mod:`server.lobby_moderation` -- mutes, removals, notices, bans, announcements;

this module holds what a player and a connection are (:class:`PlayerRecord`, :class:`Session`), the
restore, the timers (sweep, prune, reaping), the table list and the limits tests and operators tune
(``MAX_TABLES``, ``MAX_HELD_SEATS``, ``TABLES_PUSH_INTERVAL``, ``INVITE_TTL``), table creation and
the rematch, invitations, and the dispatch table (``Lobby._handlers``).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import dataclasses
import functools
import ipaddress
import itertools
import logging
import os
import sqlite3
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Protocol

from engine.games import GAMES
from engine.records import Record
from protocol import messages as m

from .archive import Archive
from .moderation import Moderation
from .errors import RequestError, StoreBusy, StoreError
from .limits import Backoff, PeerLog, TokenBucket
from .pacing import BUSY_RETRY
from .rounds import HISTORY_KEEP
from .keys import ServerKey
from .lobby_chips import Balances
from .lobby_delivery import _Delivery, _UnitOfWork, Delivery
from .lobby_dispatch import BUSY_MESSAGE, Dispatch
from .lobby_moderation import Moderating
from .lobby_online import Presence
from .lobby_pushes import LobbyPushes
from .lobby_seats import CODE_TRIES_PER_PLAYER, CODE_TRIES_PER_TABLE, Seating  # noqa: F401  (importers' names)
from .lobby_sessions import Sessions
from .table import SeatInfo, Table, TableConfig, complete_settings
from .text import TABLE_NAME_MAX, clean_table_name
from .tokens import secret_hash

if TYPE_CHECKING:
    from .store import Store

log = logging.getLogger(__name__)

MAX_TABLES = 500  # tables held at once, by default (LobbyConfig.max_tables, --max-tables)
BUSY_LOG_INTERVAL = 10.0  # s: at most one log line per this while the database stays busy
MAX_HELD_SEATS = 3  # running games one player may have left (their seat held) before creating or joining more
LIST_BYTES = 56 * 1024  # a table list (push or list_tables result) stays well inside the 64 KiB frame limit
TABLES_PUSH_INTERVAL = 0.5  # seconds between lobby list pushes (PROTOCOL.md: about two a second)
FEATURES = ("mute", "notices", "remove_player", "list_online", "invite")  # the list_tables result's features:
# the requests added within version 2 that a client may send only to a server that lists them
ONLINE_PUSH_INTERVAL = 2.0  # seconds between checks of who is online, pushed when it changed (PROTOCOL.md online)
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
    max_tables: int = MAX_TABLES


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


class Lobby(Delivery, LobbyPushes, Presence, Sessions, Moderating, Dispatch, Seating, Balances):
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
        self._lobby_latest: dict[str, tuple[m.Message, bytes]] = {}  # the last state built, by kind (_lobby_state)
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

    # ------------------------------------------------------------ the lobby's state pushes, per connection

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
        if len(self.tables) >= self.config.max_tables:
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
            if len(self.tables) >= self.config.max_tables:
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

    # ------------------------------------------------------------ the operator (server.operator)

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
        m.Mute: Moderating._mute, m.Mutes: Moderating._mutes, m.RemovePlayer: Moderating._remove_player,
        m.Notices: Moderating._notices,
        m.ListOnline: Presence._list_online, m.Invite: _invite,
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
