"""A table's book of finished rounds and chips: what ``history`` and the final chart read.

After each applied action the table hands the game's records to
:meth:`RoundBook.note`, which keeps the round's full record when it ends
(stored, and what players may see of it, :func:`server.history.public_round`),
each seat's stacks after every round (the chart a finished table shows), and
cashes the stacks out when the game is over. The same bookkeeping runs while
a restore replays the log, writing nothing.
"""

from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING, Any

from engine.records import Record

from .history import public_round

if TYPE_CHECKING:
    from .table import Table

HISTORY_KEEP = 100  # finished rounds kept in memory per table (and per player without a store)
CHIP_HISTORY_ROWS = 120  # rows of chip history a view carries, however long the game (PROTOCOL.md §5.3)


class RoundBook:
    """One table's finished rounds and chip history (see the module docstring)."""

    def __init__(self, table: "Table") -> None:
        self.table = table
        self.history: deque[dict[str, Any]] = deque(maxlen=HISTORY_KEEP)
        self.chip_history: list[dict[int, int]] = []
        self.round_first_seq = 0  # index in the action log of this round's start_round

    def note(self, records: list[Record], live: bool = True) -> None:
        """Bookkeeping after an action: round records, chip history, settling at game over.

        ``live=False`` while replaying on restore: the same bookkeeping, but
        nothing is written (the store already holds it).
        """
        table = self.table
        game = table.game
        assert game is not None
        for record in records:
            if record.kind == "round":
                self.round_first_seq = len(game.history) - 1
            elif record.kind == "result":
                self._finish_round(self.round_record(dict(record.public), game.pot), live)
                self.chip_history.append(table.stacks())
            elif record.kind == "game_over":
                if not any(r.kind == "result" for r in game.round_log):  # ended mid-round: antes refunded
                    refunded = sum(r["chips"] for r in record.public["refunds"])
                    self._finish_round(self.round_record(None, refunded), live)
                self.chip_history.append(table.stacks())
                if live:
                    moves = [(s, i.player_id, game.players[s].stack) for s, i in sorted(table.seats.items())]
                    table.hub.move_chips(table, "cash_out", moves)
                    table._save()

    def _finish_round(self, entry: dict[str, Any], live: bool) -> None:
        table = self.table
        public = public_round(entry)
        self.history.append(public)
        if live:
            if table.store is not None:
                table.store.add_round(table.table_id, entry, public)
            table.hub.round_finished([i.player_id for i in table.seats.values() if i.player_id is not None], public)

    def round_record(self, showdown: dict[str, Any] | None, pot: int) -> dict[str, Any]:
        """The whole current round as plain data: deal, every action, splits and result.

        ``showdown`` is the engine's result (None when the game ended before
        the showdown, ``pot`` then being the antes paid back).
        """
        table = self.table
        game = table.game
        assert game is not None
        first, last = self.round_first_seq, len(game.history) - 1
        return {
            "table_id": table.table_id, "round": game.round_no, "dealer": game.dealer, "cutter": game.cutter,
            "seats": list(game.order), "names": {str(s): p.name for s, p in game.players.items()},
            "first_seq": first, "last_seq": last,
            "actions": [[s, a] for s, a in game.history[first:last + 1]],
            "log": [r.to_data() for r in game.round_log],
            "result": showdown,
            "pot": showdown["pot"] if showdown else pot,
            "stacks": {str(s): p.stack for s, p in game.players.items()},
            "finished_at": time.time(),
        }

    def chart(self) -> list[dict[str, int]]:
        """The chip history as a view carries it: string-keyed, at most ``CHIP_HISTORY_ROWS`` rows."""
        return [{str(k): v for k, v in row.items()} for row in sample(self.chip_history)]


def sample(rows: list[dict[int, int]], limit: int = CHIP_HISTORY_ROWS) -> list[dict[int, int]]:
    """At most ``limit`` rows, evenly spaced, always the first and the last: a
    chart of a 10,000-round game still fits in a view."""
    if len(rows) <= limit:
        return rows
    step = (len(rows) - 1) / (limit - 1)
    return [rows[round(i * step)] for i in range(limit)]
