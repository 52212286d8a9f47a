"""The store's tables: seats, spectators, chat, the game's start, its action log and checkpoints,
and loading every table back for a restore."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from .errors import StoreError
from .store_commits import Commits, _json

@dataclass
class SeatRow:
    seat: int
    name: str
    player_id: str | None
    left: bool
    level: str | None = None  # a bot's level; None for a player (and for bots stored before version 7)


@dataclass
class TableRow:
    """A table as stored, with everything needed to rebuild it."""

    table_id: str
    table_no: int
    name: str
    game: str  # the game's stable name, for engine.games.find_game
    settings: dict[str, Any]
    host_id: str | None
    private_code: str | None
    state: str
    seats: list[SeatRow] = field(default_factory=list)
    spectators: list[str] = field(default_factory=list)  # player ids
    chat: list[dict[str, Any]] = field(default_factory=list)  # the recent chat, oldest first
    rng: dict[str, Any] | None = None
    initial_players: list[tuple[int, str, int]] | None = None
    game_settings: dict[str, Any] | None = None
    engine: str | None = None
    actions: list[tuple[int | None, dict[str, Any]]] = field(default_factory=list)
    snapshot: dict[str, Any] = field(default_factory=dict)
    checkpoint: dict[str, Any] | None = None
    checkpoint_at: int | None = None  # the number of actions the checkpoint was taken after
    removed: list[str] = field(default_factory=list)  # players the host removed, who may not come back


class TableQueries(Commits):
    """Tables as they are played: what a restore needs to rebuild each one exactly."""

    _next_table_no: int | None

    def create_table(
        self, name: str, game: str, settings: dict[str, Any], host_id: str, private_code: str | None,
    ) -> str:
        """Insert a new waiting table playing ``game`` (a GameType's name); return its id (``t<number>``, never reused).

        The number is the next after every table this database has held (one server writes it), so it
        is known before the commit that inserts it."""
        table_no = self._next_table_no
        assert table_no is not None, "an immutable store creates nothing"
        self._next_table_no = table_no + 1
        table_id = f"t{table_no}"
        self._write(
            "INSERT INTO tables (table_no, table_id, name, game, settings, host_id, private_code, state, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, 'waiting', ?)",
            (table_no, table_id, name, game, _json(settings), host_id, private_code, time.time()),
        )
        return table_id

    def save_table(self, table_id: str, host_id: str | None, state: str, seats: Iterable[SeatRow]) -> None:
        """Who sits where, who hosts, and the table's state."""
        self.set_table_state(table_id, state, host_id)
        self._write("DELETE FROM seats WHERE table_id = ?", (table_id,))
        self._write_many(
            "INSERT INTO seats (table_id, seat, name, player_id, left_game, bot_level) VALUES (?, ?, ?, ?, ?, ?)",
            [(table_id, s.seat, s.name, s.player_id, int(s.left), s.level) for s in seats],
        )

    def save_spectators(self, table_id: str, player_ids: Iterable[str]) -> None:
        """Who watches the table (restored after a restart like the seats)."""
        self._write("DELETE FROM spectators WHERE table_id = ?", (table_id,))
        self._write_many("INSERT INTO spectators (table_id, player_id) VALUES (?, ?)",
                         [(table_id, p) for p in sorted(player_ids)])

    def add_chat(self, table_id: str, message: dict[str, Any], keep: int) -> None:
        """One chat line, next in the table's order; only the table's last ``keep`` lines are kept."""
        self._write("INSERT INTO chat (table_id, seq, message) VALUES "
                    "(?, (SELECT coalesce(max(seq), 0) + 1 FROM chat WHERE table_id = ?), ?)",
                    (table_id, table_id, _json(message)))
        self._write("DELETE FROM chat WHERE table_id = ? AND seq <= (SELECT max(seq) FROM chat WHERE table_id = ?) - ?",
                    (table_id, table_id, keep))

    def set_table_state(self, table_id: str, state: str, host_id: str | None = None) -> None:
        """The table's state (and host); a closed table's chat is forgotten, as nobody can hear it again."""
        if state == "closed":
            self._write("DELETE FROM chat WHERE table_id = ?", (table_id,))
            self._write("DELETE FROM removals WHERE table_id = ?", (table_id,))
        self._write(
            "UPDATE tables SET state = ?, host_id = coalesce(?, host_id), "
            "finished_at = CASE WHEN ? IN ('finished', 'closed') THEN coalesce(finished_at, ?) END "
            "WHERE table_id = ?",
            (state, host_id, state, time.time(), table_id),
        )

    def start_game(
        self, table_id: str, rng: dict[str, Any], initial_players: Sequence[tuple[int, str, int]],
        game_settings: dict[str, Any], engine: str,
    ) -> None:
        self._write(
            "UPDATE tables SET rng = ?, initial_players = ?, game_settings = ?, engine = ?, started_at = ?, "
            "state = 'playing', actions = 0, round_no = 0, phase = 'waiting', pot = 0, stacks = ? WHERE table_id = ?",
            (
                _json(rng), _json([list(p) for p in initial_players]), _json(game_settings), engine, time.time(),
                _json({str(seat): stack for seat, _, stack in initial_players}), table_id,
            ),
        )

    def append_action(self, table_id: str, seq: int, seat: int | None, action: dict[str, Any]) -> None:
        """One engine action, in order (the checkpoint follows before the commit)."""
        self._write(
            "INSERT INTO actions (table_id, seq, seat, action, at) VALUES (?, ?, ?, ?, ?)",
            (table_id, seq, seat, _json(action), time.time()),
        )

    def checkpoint(
        self, table_id: str, state: str | None, actions: int, round_no: int, phase: str, pot: int,
        stacks: dict[int, int],
    ) -> None:
        """The game after ``actions`` actions: its round, phase, pot and stacks (which the audit checks), and
        if ``state`` is given the game's whole state then (``Game.to_data()`` minus history, as JSON)."""
        stacks_json = _json({str(s): v for s, v in stacks.items()})
        if state is None:
            self._write("UPDATE tables SET actions = ?, round_no = ?, phase = ?, pot = ?, stacks = ? WHERE table_id = ?",
                        (actions, round_no, phase, pot, stacks_json, table_id))
            return
        self._write(
            "UPDATE tables SET actions = ?, round_no = ?, phase = ?, pot = ?, stacks = ?, checkpoint = ?, "
            "checkpoint_at = ? WHERE table_id = ?",
            (actions, round_no, phase, pot, stacks_json, state, actions, table_id),
        )

    def set_engine(self, table_id: str, engine: str | None) -> None:
        self._write("UPDATE tables SET engine = ? WHERE table_id = ?", (engine, table_id))

    def load_tables(self, states: Sequence[str] = ("waiting", "playing", "finished")) -> list[TableRow]:
        """Every table in one of ``states``, with seats and (for started games) the action log."""
        marks = ",".join("?" * len(states))
        rows = self.conn.execute(
            "SELECT table_id, table_no, name, game, settings, host_id, private_code, state, rng, initial_players, "
            "game_settings, engine, actions, round_no, phase, pot, stacks, checkpoint, checkpoint_at "
            f"FROM tables WHERE state IN ({marks}) ORDER BY table_no",
            tuple(states),
        ).fetchall()
        tables = []
        for values in rows:
            try:
                tables.append(self._table_row(*values))
            except (ValueError, TypeError, KeyError) as exc:
                raise StoreError(f"table {values[0]}: stored data is damaged ({exc})") from None
        return tables

    def _table_row(
        self, table_id: str, table_no: int, name: str, game: str, settings: str, host_id: str | None,
        code: str | None, state: str, rng: str | None, players: str | None, game_settings: str | None, engine: str | None,
        actions: int, round_no: int | None, phase: str | None, pot: int | None, stacks: str | None,
        checkpoint: str | None, checkpoint_at: int | None,
    ) -> TableRow:
        row = TableRow(table_id, table_no, name, game, json.loads(settings), host_id, code, state)
        row.seats = [
            SeatRow(seat, seat_name, player_id, bool(left), level)
            for seat, seat_name, player_id, left, level in self.conn.execute(
                "SELECT seat, name, player_id, left_game, bot_level FROM seats WHERE table_id = ? ORDER BY seat",
                (table_id,)
            )
        ]
        row.spectators = [player_id for (player_id,) in self.conn.execute(
            "SELECT player_id FROM spectators WHERE table_id = ? ORDER BY player_id", (table_id,))]
        row.chat = [json.loads(message) for (message,) in self.conn.execute(
            "SELECT message FROM chat WHERE table_id = ? ORDER BY seq", (table_id,))]
        row.removed = [player_id for (player_id,) in self.conn.execute(
            "SELECT player_id FROM removals WHERE table_id = ? ORDER BY player_id", (table_id,))]
        if rng is not None:
            row.rng = json.loads(rng)
            row.initial_players = [tuple(p) for p in json.loads(players)]  # type: ignore[misc]
            row.game_settings = json.loads(game_settings)
            row.engine = engine
            row.checkpoint = json.loads(checkpoint) if checkpoint else None
            row.checkpoint_at = checkpoint_at
            row.actions = self.actions(table_id)
            row.snapshot = {
                "actions": actions, "round_no": round_no, "phase": phase, "pot": pot,
                "stacks": {int(k): v for k, v in json.loads(stacks).items()},  # type: ignore[arg-type]
            }
        return row

    def actions(self, table_id: str) -> list[tuple[int | None, dict[str, Any]]]:
        log = []
        for expected, (seq, seat, action) in enumerate(self.conn.execute(
            "SELECT seq, seat, action FROM actions WHERE table_id = ? ORDER BY seq", (table_id,)
        )):
            if seq != expected:
                raise StoreError(f"{self.path}: the action log of table {table_id} has a gap at {expected}")
            try:
                log.append((seat, json.loads(action)))
            except ValueError as exc:
                raise StoreError(f"{self.path}: table {table_id}, action {seq}: the stored action is damaged "
                                 f"({exc}); restore the database from a backup") from None
        return log
