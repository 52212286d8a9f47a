"""Who is online: the list (``list_online``, and the ``online`` pushes every ``online_interval``)."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from protocol import messages as m

if TYPE_CHECKING:
    from .lobby import PlayerRecord

log = logging.getLogger("server.lobby")  # the lobby's own log, as before the split

ONLINE_ORDER = {"lobby": 0, "watching": 1, "seated": 2}


class Presence:
    """Who is online, as anyone may know it (a part of :class:`server.lobby.Lobby`)."""

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
