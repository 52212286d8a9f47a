"""The lobby's moderation: mutes, the host's removals, notices, and the operator's bans and
announcements (:mod:`server.moderation` keeps the lists; :mod:`server.operator` asks)."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from protocol import messages as m

from .errors import RequestError
from .lobby_dispatch import BUSY_MESSAGE
from .text import CHAT_MAX, clean_name, clean_text

if TYPE_CHECKING:
    from .lobby import PlayerRecord, Session
    from .moderation import Ban
    from .table import Table

log = logging.getLogger("server.lobby")  # the lobby's own log, as before the split


class Moderating:
    """Mutes, removals, notices, bans, announcements (a part of :class:`server.lobby.Lobby`)."""

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
