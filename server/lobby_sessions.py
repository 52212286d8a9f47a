"""The lobby's sessions: ``hello`` (a new player, or one coming back with their token), names kept
unique, a player taken over by their new connection, and disconnects (a seat's grace, then gone)."""

from __future__ import annotations

import asyncio
import hmac
import itertools
import logging
import secrets
from typing import TYPE_CHECKING

from protocol import messages as m

from .errors import RequestError
from .pacing import BUSY_RETRY
from .text import NAME_MAX, clean_name, name_problem
from .tokens import secret_hash

if TYPE_CHECKING:
    from .lobby import PlayerRecord, Session

log = logging.getLogger("server.lobby")  # the lobby's own log, as before the split


class Sessions:
    """Who is connected, and as whom (a part of :class:`server.lobby.Lobby`)."""

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
