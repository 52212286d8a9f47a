"""The lobby: who is connected, which tables exist, and the request dispatcher.

Each request is handled synchronously and answered with exactly one ``ok`` or
``error``; pushes (views, events, table lists) go out through the same
per-session send path, so ordering on one connection is preserved.
"""

from __future__ import annotations

import asyncio
import hmac
import itertools
import logging
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from engine.rng import HashRng
from protocol import messages as m

from .errors import RequestError
from .table import Table, TableConfig
from .text import clean_name, clean_table_name

if TYPE_CHECKING:
    from .net import ClientSession

log = logging.getLogger(__name__)

MAX_TABLES = 500


@dataclass
class PlayerRecord:
    player_id: str
    name: str
    secret: str
    session: "ClientSession | None" = None
    table_id: str | None = None

    @property
    def token(self) -> str:
        return f"{self.player_id}_{self.secret}"


@dataclass
class LobbyConfig:
    table: TableConfig = field(default_factory=TableConfig)
    default_ante: int = 10
    default_stack: int = 1000
    seed: bytes | None = None  # fixed seed for tests and replays; None: secrets


class Lobby:
    def __init__(self, config: LobbyConfig, server_name: str) -> None:
        self.config = config
        self.server_name = server_name
        self.players: dict[str, PlayerRecord] = {}
        self.tables: dict[str, Table] = {}
        self._table_ids = itertools.count(1)
        self._seeds = itertools.count()
        self._tables_push_pending = False

    # ------------------------------------------------------------ Hub for tables

    def send(self, player_id: str, message: m.Message) -> None:
        player = self.players.get(player_id)
        if player is not None and player.session is not None:
            player.session.push(message)

    def is_connected(self, player_id: str) -> bool:
        player = self.players.get(player_id)
        return player is not None and player.session is not None

    def tables_changed(self) -> None:
        """Push the table list to lobby players, at most once per loop iteration."""
        if not self._tables_push_pending:
            self._tables_push_pending = True
            asyncio.get_running_loop().call_soon(self._push_tables)

    def _push_tables(self) -> None:
        self._tables_push_pending = False
        message = m.Tables(tables=self.summaries())
        for player in self.players.values():
            if player.session is not None and player.table_id is None:
                player.session.push(message)

    def table_finished(self, table: Table) -> None:
        """A finished table stays for its standings until everyone has left."""

    def summaries(self) -> tuple[m.TableSummary, ...]:
        return tuple(t.summary() for t in self.tables.values())

    # ------------------------------------------------------------ sessions

    def hello(self, session: "ClientSession", msg: m.Hello) -> m.Welcome:
        """Greet a new session, or resume a known player by token."""
        if msg.token:
            player = self._player_for_token(msg.token)
            if player is None:
                raise RequestError("bad_token", "that resume token is not valid on this server")
            if player.session is not None and player.session is not session:
                player.session.close_with("replaced", "you connected again from elsewhere")
            resumed = True
        else:
            name = clean_name(msg.name)
            if not name:
                raise RequestError("bad_name", "choose a name with at least one visible character")
            player_id = secrets.token_hex(8)
            player = PlayerRecord(player_id, name, secrets.token_urlsafe(24))
            self.players[player_id] = player
            resumed = False
        player.session = session
        table = self.tables.get(player.table_id) if player.table_id else None
        seat = table.seat_of(player.player_id) if table else None
        return m.Welcome(
            id=msg.id, version=m.PROTOCOL_VERSION, server=self.server_name, player_id=player.player_id,
            token=player.token, resumed=resumed, table_id=table.table_id if table else None, seat=seat,
        )

    def _player_for_token(self, token: str) -> PlayerRecord | None:
        player_id, _, secret = token.partition("_")
        player = self.players.get(player_id)
        if player is None or not hmac.compare_digest(player.secret.encode(), secret.encode()):
            return None
        return player

    def welcomed(self, player_id: str) -> None:
        """After the welcome went out: bring the session up to date."""
        player = self.players[player_id]
        table = self.tables.get(player.table_id) if player.table_id else None
        if table is None:
            self.send(player_id, m.Tables(tables=self.summaries()))
            return
        table.send_view(player_id)
        for message in table.chat_log:
            self.send(player_id, message)
        table.broadcast()  # everyone sees the seat reconnect

    def disconnected(self, player_id: str, session: "ClientSession") -> None:
        player = self.players.get(player_id)
        if player is None or player.session is not session:
            return
        player.session = None
        table = self.tables.get(player.table_id) if player.table_id else None
        if table is not None:
            if table.seat_of(player_id) is None or table.game is None:
                table.leave(player_id)  # spectators and pre-game seats are not held
                player.table_id = None
                self._drop_if_empty(table)
            else:
                table.broadcast()  # seat held; others see the connection state
        self.tables_changed()

    # ------------------------------------------------------------ requests

    def handle(self, player_id: str, msg: m.Message) -> m.Message:
        """Answer one request with ``ok`` or ``error``; never raise."""
        handler: Callable[[PlayerRecord, Any], dict[str, Any] | None] | None = self._handlers.get(type(msg))
        request_id = getattr(msg, "id", None)
        if handler is None:
            return m.Error(id=request_id, code="bad_message", message=f"{msg.type!r} is not a request")
        try:
            result = handler(self, self.players[player_id], msg)
        except RequestError as exc:
            return m.Error(id=request_id, code=exc.code, message=exc.message[:1000])
        except Exception:  # a bug: log it, answer, keep serving everyone else
            log.exception("request %s from %s failed", msg.type, player_id)
            return m.Error(id=request_id, code="internal", message="the server hit an internal error")
        return m.Ok(id=request_id, result=result or {})

    def _table(self, player: PlayerRecord) -> Table:
        table = self.tables.get(player.table_id) if player.table_id else None
        if table is None:
            raise RequestError("not_seated", "you are not at a table")
        return table

    def _find(self, table_id: str, code: str | None) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise RequestError("no_such_table", f"there is no table {table_id!r}")
        if table.private_code is not None:
            if code is None or not hmac.compare_digest(table.private_code.encode(), code.encode()):
                raise RequestError("wrong_code", "that table is private: the code is wrong or missing")
        return table

    def _leave_current(self, player: PlayerRecord) -> None:
        table = self.tables.get(player.table_id) if player.table_id else None
        if table is None:
            player.table_id = None
            return
        if table.seat_of(player.player_id) is not None and table.state == "playing":
            raise RequestError("game_running", f"you are playing at table {table.table_id}; leave it first")
        table.leave(player.player_id)
        player.table_id = None
        self._drop_if_empty(table)

    def _drop_if_empty(self, table: Table) -> None:
        if table.is_empty() and table.state != "playing":
            table.close()
            self.tables.pop(table.table_id, None)
            self.tables_changed()

    def _list_tables(self, player: PlayerRecord, msg: m.ListTables) -> dict[str, Any]:
        defaults = {"ante": self.config.default_ante, "stack": self.config.default_stack}
        return {"tables": [s.to_wire() for s in self.summaries()], "defaults": defaults}

    def _create_table(self, player: PlayerRecord, msg: m.CreateTable) -> dict[str, Any]:
        if len(self.tables) >= MAX_TABLES:
            raise RequestError("server_full", "this server has as many tables as it can hold")
        if msg.settings.stack < msg.settings.ante:
            raise RequestError("bad_request", "the starting stack must be at least the ante")
        self._leave_current(player)
        table_id = f"t{next(self._table_ids)}"
        name = clean_table_name(msg.name) or f"{player.name}'s table"
        table = Table(
            table_id, name, msg.settings, player.player_id, msg.private_code, self, self.config.table, self._rng,
        )
        self.tables[table_id] = table
        seat = table.join(player.player_id, player.name, None)
        player.table_id = table_id
        return {"table_id": table_id, "seat": seat}

    def _rng(self) -> HashRng:
        if self.config.seed is None:
            return HashRng()
        return HashRng(self.config.seed + next(self._seeds).to_bytes(4, "big"))

    def _join(self, player: PlayerRecord, msg: m.Join) -> dict[str, Any]:
        table = self._find(msg.table_id, msg.private_code)
        if player.table_id != table.table_id:
            self._leave_current(player)
        seat = table.join(player.player_id, player.name, msg.seat)
        player.table_id = table.table_id
        return {"table_id": table.table_id, "seat": seat}

    def _watch(self, player: PlayerRecord, msg: m.Watch) -> dict[str, Any]:
        table = self._find(msg.table_id, msg.private_code)
        if player.table_id != table.table_id:
            self._leave_current(player)
        table.watch(player.player_id)
        player.table_id = table.table_id
        return {"table_id": table.table_id}

    def _leave(self, player: PlayerRecord, msg: m.Leave) -> None:
        table = self._table(player)
        table.leave(player.player_id)
        player.table_id = None
        self._drop_if_empty(table)
        self.send(player.player_id, m.Tables(tables=self.summaries()))

    def _start(self, player: PlayerRecord, msg: m.Start) -> None:
        self._table(player).start(player.player_id)

    def _add_bot(self, player: PlayerRecord, msg: m.AddBot) -> dict[str, Any]:
        return {"seat": self._table(player).add_bot(player.player_id)}

    def _remove_bot(self, player: PlayerRecord, msg: m.RemoveBot) -> None:
        self._table(player).remove_bot(player.player_id, msg.seat)

    def _end_game(self, player: PlayerRecord, msg: m.EndGame) -> None:
        self._table(player).end(player.player_id)

    def _act(self, player: PlayerRecord, msg: m.Act) -> None:
        self._table(player).act(player.player_id, msg.action.to_wire())

    def _sit_out(self, player: PlayerRecord, msg: m.SitOut) -> None:
        self._table(player).sit_out(player.player_id, msg.away)

    def _chat(self, player: PlayerRecord, msg: m.Chat) -> None:
        self._table(player).chat(player.player_id, player.name, msg.text)

    def _history(self, player: PlayerRecord, msg: m.History) -> dict[str, Any]:
        return {"rounds": self._table(player).recent_history(msg.limit)}

    def _ping(self, player: PlayerRecord, msg: m.Ping) -> None:
        return None

    _handlers: dict[type, Callable[..., Any]] = {
        m.ListTables: _list_tables, m.CreateTable: _create_table, m.Join: _join, m.Watch: _watch,
        m.Leave: _leave, m.Start: _start, m.AddBot: _add_bot, m.RemoveBot: _remove_bot,
        m.EndGame: _end_game, m.Act: _act, m.SitOut: _sit_out, m.Chat: _chat, m.History: _history,
        m.Ping: _ping,
    }

    def close(self) -> None:
        for table in self.tables.values():
            table.close()
