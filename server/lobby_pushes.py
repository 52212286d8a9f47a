"""The lobby's state pushes (``tables``, ``online``), coalesced per connection.

A change only marks who is owed the newest state (:meth:`LobbyPushes._owe`); once what it depends on
is durable, each connection that keeps up is sent the state built then (encoded once for all), unless
it has it already; a slow reader is left owing and offered the then newest state shortly.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from protocol import messages as m

if TYPE_CHECKING:
    from .lobby import PlayerRecord

log = logging.getLogger("server.lobby")  # the lobby's own log, as before the split

LOBBY_FLUSH_RETRY = 0.1  # seconds: how soon a lobby state owed to a connection still writing is offered again


def _no_backlog() -> int:
    return 0


class LobbyPushes:
    """The table list and the online list, pushed to the lobby (a part of :class:`server.lobby.Lobby`)."""

    def _push_tables(self) -> None:
        self._tables_push_pending = False
        self._tables_pushed_at = asyncio.get_running_loop().time()
        self._owe("tables", [p for p in self.players.values() if p.session is not None and p.table_id is None])

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
        """The lobby's ``kind`` state now, and its bytes (encoded once, for every connection). A state the
        same as the last one built is that very object again, so each connection's "has it already" check
        is an identity test, not a comparison of the whole list's bytes per connection."""
        if kind == "tables":
            message: m.Message = m.Tables(tables=self.summaries())
        else:
            players, total = self.online()
            message = m.Online(players=tuple(players), total=total)
        encoded = m.encode(message)
        latest = self._lobby_latest.get(kind)
        if latest is not None and latest[1] == encoded:
            return latest
        self._lobby_latest[kind] = message, encoded
        return message, encoded

    def _send_tables(self, player: PlayerRecord) -> None:
        """The table list now, to a player who comes (back) to the lobby: it is what they are owed."""
        message, encoded = self._lobby_state("tables")
        player.lobby_owed.discard("tables")
        player.lobby_sent["tables"] = encoded
        self.send(player.player_id, message)
