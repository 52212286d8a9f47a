"""The store's moderation (:mod:`server.moderation`): mutes, the operator's bans, the hosts' removals."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from .store_commits import Commits

if TYPE_CHECKING:
    from .moderation import Ban


class ModerationQueries(Commits):
    """Whom each player muted, the operator's bans, the players each table's host removed."""

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
