"""A table's book of finished rounds and chips: what ``history`` and the final chart read.

After each applied action the table calls :meth:`RoundBook.note`. When a
round ends (the game's status leaves ``PLAYING``) the book keeps the game's
record of it (:meth:`~engine.contract.GameType.round_record`, stored with
where it sits in the action log) and what players may see of it
(:func:`server.history.public_round`); it keeps each seat's stacks after
every round (the chart a finished table shows), and cashes the stacks out
when the game is over. The same bookkeeping runs while a restore replays the
log, writing nothing.
"""

from __future__ import annotations

import time
from collections import deque
from typing import TYPE_CHECKING, Any

from engine.contract import Action, SitIn, StartRound, Status
from engine.replay import opening

from .history import game_rows, public_round, round_rows

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
        self.rounds_started = 0
        self.brought: dict[int, int] = {}  # chips each seat brought to the game (at its start, or sitting in)
        self.opening: dict[str, Any] | None = None  # the game just before the next start_round (engine.replay)

    def game_started(self) -> None:
        """The game has just been made (or restored from its start): nothing applied yet."""
        game = self.table.game
        assert game is not None
        self.chip_history = [self.table.holdings()]
        self.brought = {seat: chips for seat, _, chips in game.initial_players}
        self.opening = opening(game)

    def between_rounds(self) -> None:
        """Keep what the next round replays from (engine.replay): the game as it now stands, between rounds."""
        game = self.table.game
        assert game is not None
        self.opening = opening(game) if game.status is Status.BETWEEN_ROUNDS else None

    def note(self, action: Action, before: Status, live: bool = True) -> None:
        """Bookkeeping after ``action`` moved the game on from status ``before``: the round's
        record when it ends, chip history, settling at game over.

        ``live=False`` while replaying on restore: the same bookkeeping, but
        nothing is written (the store already holds it).
        """
        table = self.table
        game = table.game
        assert game is not None
        if isinstance(action, StartRound):
            self.round_first_seq = len(game.history) - 1
            self.rounds_started += 1
        elif isinstance(action, SitIn):
            self.brought[action.seat] = action.chips
        status = game.status
        if before is Status.PLAYING and status is not Status.PLAYING:
            entry = self.round_record()
            self._finish_round(entry, live)
            if entry["result"] is not None:  # a round the game's end cut short changed nobody's stack
                self.chip_history.append(table.holdings())
        if status is Status.BETWEEN_ROUNDS and live:  # a restore keeps only the last one (restore._replay)
            self.between_rounds()
        if status is Status.OVER:
            self.chip_history.append(table.holdings())
            if live:
                stacks = game.stacks()
                moves = [(s, i.player_id, stacks[s]) for s, i in sorted(table.seats.items())]
                table.hub.move_chips(table, "cash_out", moves)
                table.save()
                self._finish_game(stacks)

    def owners(self) -> dict[int, str | None]:
        """Each seat's player (None for a bot)."""
        return {seat: info.player_id for seat, info in self.table.seats.items()}

    def _finish_round(self, entry: dict[str, Any], live: bool) -> None:
        table = self.table
        public = public_round(table.game_type, entry)
        self.history.append(public)
        if live:
            table.hub.key.seal_round(entry)  # its fair events signed as they were sent (server.keys)
            last = self.chip_history[-1]
            before = {seat: last.get(seat, chips) for seat, chips in self.brought.items()}
            rows = round_rows(table.game_type, public, self.owners(), before, entry.get("holdings"))
            if table.store is not None:
                table.store.add_round(table.table_id, entry, public, rows)
            table.hub.round_finished(table, entry, public, rows)

    def _finish_game(self, stacks: dict[int, int]) -> None:
        """Each player's line for the game over, and the leaderboard's count of games and wins."""
        table = self.table
        rows = game_rows({seat: stacks[seat] - chips for seat, chips in self.brought.items()}, self.owners())
        if table.store is not None:
            table.store.add_game(table.table_id, table.game_type.name, self.rounds_started, rows)
        table.hub.game_finished(table, rows)

    def round_record(self) -> dict[str, Any]:
        """The round that has just ended as plain data: the game's record of it, and its actions."""
        table = self.table
        game = table.game
        assert game is not None
        first, last = self.round_first_seq, len(game.history) - 1
        return {
            "table_id": table.table_id, **table.game_type.round_record(game),
            "first_seq": first, "last_seq": last, "actions": [[s, a] for s, a in game.history[first:last + 1]],
            "finished_at": time.time(), "opening": self.opening,  # what the round replays from (None: unknown)
            "holdings": {str(s): chips for s, chips in table.holdings().items()},  # the chart's (a restore's)
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
