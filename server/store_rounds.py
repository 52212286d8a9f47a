"""The store's past: finished rounds and games, written with each player's history, and read back
(:class:`RoundReader`: what players may read, on a connection that sees what is committed)."""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any, Callable, Iterator, Sequence

from .errors import StoreError
from .store_commits import BUSY_WAIT, Commits, _json


class RoundQueries(Commits):
    """Rounds and games over: written in the server's order, checked when read."""

    _rounds_read: RoundReader | None

    def add_round(
        self, table_id: str, record: dict[str, Any], public: dict[str, Any],
        rows: Sequence[tuple[str, dict[str, Any]]] = (),
    ) -> None:
        """A finished round in full, with what players may see of it, next in the server's order,
        and its line in each player's history (``rows``: :func:`server.history.round_rows`)."""
        self._write(
            "INSERT INTO rounds (table_id, round_no, first_seq, last_seq, finished_at, record, public, seq) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT coalesce(max(seq), 0) + 1 FROM rounds))",
            (table_id, record["round"], record["first_seq"], record["last_seq"], record["finished_at"], _json(record),
             _json(public)),
        )
        self._write_many(
            "INSERT INTO player_rounds (player_id, seq, table_id, round_no, seat, chips, result) "
            "SELECT ?, seq, table_id, round_no, ?, ?, ? FROM rounds WHERE table_id = ? AND round_no = ?",
            [(p, r["seat"], r["chips"], r["result"], table_id, record["round"]) for p, r in rows],
        )

    def add_game(self, table_id: str, game: str, rounds: int, rows: Sequence[tuple[str, dict[str, Any]]]) -> None:
        """A game over, in each of its players' history (``rows``: :func:`server.history.game_rows`),
        next in the server's order of games."""
        now = time.time()
        self._write_many(
            "INSERT INTO player_games (player_id, seq, table_id, game, seat, rounds, chips, won, finished_at) "
            "VALUES (?, (SELECT coalesce(max(seq), 0) + 1 FROM player_games WHERE table_id != ?), ?, ?, ?, ?, ?, ?, ?)",
            [(p, table_id, table_id, game, r["seat"], rounds, r["chips"], int(r["won"]), now) for p, r in rows],
        )

    @property
    def rounds_read(self) -> "RoundReader":
        """What players may read of the stored rounds and games, through :meth:`reader` (on the loop)."""
        if self._rounds_read is None:
            self._rounds_read = RoundReader(self.reader, self.path)
        return self._rounds_read

    def rounds(self, table_id: str, limit: int) -> list[dict[str, Any]]:
        """The last ``limit`` finished rounds of a table, oldest first."""
        rows = self.reader().execute(
            "SELECT table_id, round_no, CAST(record AS BLOB) FROM rounds WHERE table_id = ? "
            "ORDER BY round_no DESC LIMIT ?", (table_id, limit)
        ).fetchall()
        return [self._round(tid, number, "record", raw) for tid, number, raw in reversed(rows)]

    def check_rounds(self) -> None:
        """Every stored round reads back as what the server relies on (raises :class:`StoreError`).

        SQLite has no page checksums: damage inside a round's text passes
        ``quick_check``, so the start-up reads once every round's public form
        (``history`` serves it) and the full record of every table not closed
        (a restore may need it). Closed tables' records are read only by
        ``export``, which names any damage it finds.
        """
        for tid, number, record, public in self.conn.execute(
            "SELECT r.table_id, r.round_no, CASE WHEN t.state = 'closed' THEN NULL ELSE CAST(r.record AS BLOB) END, "
            "CAST(r.public AS BLOB) FROM rounds r JOIN tables t USING (table_id)"
        ):
            if record is not None:
                self._round(tid, number, "record", record)
            self._round(tid, number, "public", public)

    def _round(self, table_id: str, round_no: int, column: str, raw: bytes | None) -> dict[str, Any]:
        return checked_round(self.path, table_id, round_no, column, raw)


class RoundReader:
    """The stored rounds and games players may read (``history``, ``past_rounds``, ``past_games``,
    ``replay``): read-only SQL on a connection that sees what is committed.

    The server's event loop reads through the store's second connection
    (:meth:`Store.reader`); the history worker (:mod:`server.history_worker`)
    through one of its own, opened by :meth:`open`. Neither ever writes, takes
    the write lock or waits for it (WAL: readers and the writer never block each
    other), so the store's locking and "durable before ok" stay as they are.
    """

    def __init__(self, conn: Callable[[], sqlite3.Connection], path: str) -> None:
        self._conn = conn
        self.path = path

    @classmethod
    def open(cls, path: str) -> "RoundReader":
        """A reader with a read-only connection of its own to the database at ``path`` (another thread or process)."""
        conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=BUSY_WAIT)
        conn.execute("PRAGMA query_only = ON")
        return cls(lambda: conn, path)

    def past_rounds(
        self, player_id: str, table_id: str | None, before: int | None, limit: int,
    ) -> list[dict[str, Any]]:
        """The player's own finished rounds (at ``table_id`` only, if given), newest first, from
        ``before`` (a ``seq``, exclusive) on: one range of an index, however many rounds are stored."""
        where = " AND pr.table_id = ?" if table_id is not None else ""
        params = (player_id, before if before is not None else 1 << 62, *([table_id] if table_id else []), limit)
        return [
            {"seq": seq, "table_id": tid, "table_name": name, "game_name": game, "round": number, "seat": seat,
             "chips": chips, "result": result, "finished_at": finished}
            for seq, tid, name, game, number, seat, chips, result, finished in self._conn().execute(
                "SELECT pr.seq, pr.table_id, t.name, t.game, pr.round_no, pr.seat, pr.chips, pr.result, r.finished_at "
                "FROM player_rounds pr JOIN rounds r ON r.table_id = pr.table_id AND r.round_no = pr.round_no "
                f"JOIN tables t ON t.table_id = pr.table_id WHERE pr.player_id = ? AND pr.seq < ?{where} "
                "ORDER BY pr.seq DESC LIMIT ?", params)
        ]

    def past_games(self, player_id: str, before: int | None, limit: int) -> list[dict[str, Any]]:
        """The player's games over, newest first, from ``before`` (a ``seq``, exclusive) on."""
        return [
            {"seq": seq, "table_id": tid, "table_name": name, "game_name": game, "seat": seat, "rounds": rounds,
             "chips": chips, "won": bool(won), "finished_at": finished}
            for seq, tid, name, game, seat, rounds, chips, won, finished in self._conn().execute(
                "SELECT pg.seq, pg.table_id, t.name, pg.game, pg.seat, pg.rounds, pg.chips, pg.won, pg.finished_at "
                "FROM player_games pg JOIN tables t USING (table_id) WHERE pg.player_id = ? AND pg.seq < ? "
                "ORDER BY pg.seq DESC LIMIT ?", (player_id, before if before is not None else 1 << 62, limit))
        ]

    def round_for_replay(self, table_id: str, round_no: int) -> tuple[str, dict[str, Any]] | None:
        """A finished round's game and full record (None: no such round)."""
        row = self._conn().execute(
            "SELECT t.game, CAST(r.record AS BLOB) FROM rounds r JOIN tables t USING (table_id) "
            "WHERE r.table_id = ? AND r.round_no = ?", (table_id, round_no)).fetchone()
        return None if row is None else (row[0], checked_round(self.path, table_id, round_no, "record", row[1]))

    def seat_in_round(self, player_id: str, table_id: str, round_no: int) -> int | None:
        """The player's seat in that round if they were dealt in (None otherwise)."""
        row = self._conn().execute(
            "SELECT seat FROM player_rounds WHERE table_id = ? AND round_no = ? AND player_id = ?",
            (table_id, round_no, player_id)).fetchone()
        return None if row is None else row[0]

    def public_rounds(self, table_id: str, limit: int) -> Iterator[dict[str, Any]]:
        """What players may see of a table's last ``limit`` finished rounds, newest first, read lazily."""
        for tid, number, raw, game in self._conn().execute(
            "SELECT rounds.table_id, rounds.round_no, CAST(rounds.public AS BLOB), tables.game "
            "FROM rounds JOIN tables USING (table_id) "
            "WHERE rounds.table_id = ? ORDER BY rounds.round_no DESC LIMIT ?", (table_id, limit)
        ):
            # rounds stored before v2 lack it
            yield {"game_name": game, **checked_round(self.path, tid, number, "public", raw)}

    def player_rounds(self, player_id: str, limit: int) -> Iterator[dict[str, Any]]:
        """The same of the last ``limit`` rounds at tables where the player bought in, newest first.

        Ordered by ``seq``, the order in which rounds finished here, never by
        their wall-clock times.
        """
        for tid, number, raw, game in self._conn().execute(
            "SELECT rounds.table_id, rounds.round_no, CAST(rounds.public AS BLOB), tables.game "
            "FROM rounds JOIN tables USING (table_id) "
            "WHERE rounds.table_id IN (SELECT table_id FROM ledger WHERE player_id = ? AND kind = 'buy_in') "
            "ORDER BY rounds.seq DESC LIMIT ?",
            (player_id, limit),
        ):
            yield {"game_name": game, **checked_round(self.path, tid, number, "public", raw)}


def checked_round(path: str, table_id: str, round_no: int, column: str, raw: bytes | None) -> dict[str, Any]:
    """One stored round of the database at ``path`` (``column``: the full ``record`` or its ``public``
    form), checked (:class:`StoreError` names the damage)."""
    try:
        value = json.loads(raw.decode("utf-8")) if isinstance(raw, bytes) else None
        if not isinstance(value, dict):
            raise ValueError("not a JSON object")
        if value.get("table_id") != table_id or value.get("round") != round_no:
            raise ValueError("its table or round number is not where it is stored")
        for key, kind in _ROUND_SHAPE[column]:
            if not isinstance(value.get(key), kind):
                raise ValueError(f"{key!r} is missing or not a {kind.__name__}")
    except (UnicodeDecodeError, ValueError) as exc:
        raise StoreError(f"{path}: table {table_id}, round {round_no}: the stored round ({column}) is "
                         f"damaged ({exc}); restore the database from a backup") from None
    return value


# ----------------------------------------------------------------- helpers

# What a stored round of any game must hold for the server (history, restores) and export to read it:
# (key, type). The rest of a round is its game's own (GameType.round_record, .public_round).
_ROUND_SHAPE: dict[str, tuple[tuple[str, type], ...]] = {
    "record": (("log", list), ("actions", list), ("stacks", dict)),
    "public": (("stacks", dict),),
}
