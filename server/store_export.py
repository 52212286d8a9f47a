"""The store's export (``dab-server export``: finished games, everything needed to replay them) and
its audit (every chip accounted for: ``balance == grants - buy-ins + cash-outs`` for each player,
``buy-ins - cash-outs == stacks + pot`` for each table)."""

from __future__ import annotations

import json
from typing import Any

from .errors import StoreError
from .store_rounds import RoundQueries
from .store_tables import TableQueries

EXPORT_VERSION = 2  # of the JSON export; 2: every table names its game ("game")


class ExportAudit(TableQueries, RoundQueries):
    """The whole store read at once: for the operator, and for the lobby's check on start."""

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
