"""The store's players: accounts, chip balances and their ledger, and the leaderboard's counts."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Iterable, Iterator

from .store_commits import Commits

@dataclass
class PlayerRow:
    player_id: str
    name: str
    secret_sha256: bytes
    balance: int
    played: bool = False  # chips moved since the first grant: a buy-in, or a grant by the operator


class PlayerQueries(Commits):
    """Players and their chips (every chip that crosses a balance has its ledger row)."""

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
