"""Each player's past: their rounds and games, replays of their rounds, and the leaderboard.

The requests ``past_rounds``, ``past_games``, ``replay``, ``leaderboard`` and
``set_hidden`` (PROTOCOL.md 5.1) are answered here. A durable server reads
the store (each page one range of an index, however many rounds are stored);
a server that keeps nothing (``--memory``, practice) answers from memory, the
last :data:`~server.rounds.HISTORY_KEEP` rounds and games of each player and
the last :data:`RECORDS_KEEP` rounds for replays. Either way every answer is
bounded: a page holds at most 50 lines, a replay reply what fits
:data:`REPLAY_BYTES`, and the leaderboard at most 50 players.

Replays come from the engine (:func:`engine.replay.replay_steps`): the round's
actions applied again to its opening, each step seen through the game's own
view of the requester's seat (a spectator's view for someone who watches the
table and did not play the round). Nobody else may replay a round.
"""

from __future__ import annotations

import time
from collections import OrderedDict, deque
from typing import TYPE_CHECKING, Any

import msgpack

from engine.games import find_game
from engine.replay import ReplayMismatch, replay_steps
from protocol import messages as m

from .errors import RequestError
from .history import HISTORY_BYTES
from .rounds import HISTORY_KEEP

if TYPE_CHECKING:
    from .lobby import Lobby, PlayerRecord
    from .table import Table

RECORDS_KEEP = 500  # full round records a lobby without a store keeps for replays
STEPS_KEEP = 16  # replays kept worked out, so that paging through one does not replay it again per page
REPLAY_BYTES = HISTORY_BYTES  # a replay reply's steps stay well inside the 64 KiB frame limit

Rows = list[tuple[str, dict[str, Any]]]


class Archive:
    """One lobby's answers about the past (see the module docstring)."""

    def __init__(self, lobby: "Lobby") -> None:
        self.lobby = lobby
        self.store = lobby.store
        self.stats: dict[str, dict[str, list[int]]] = {}  # player -> game -> [games played, games won]
        self.hidden: set[str] = set()
        self._seq = 0  # without a store: the order rounds and games finished
        self._rounds: dict[str, deque[dict[str, Any]]] = {}
        self._games: dict[str, deque[dict[str, Any]]] = {}
        self._records: OrderedDict[tuple[str, int], tuple[str, dict[str, Any], dict[str, int]]] = OrderedDict()
        self._steps: OrderedDict[tuple[str, int, int | None], list[dict[str, Any]]] = OrderedDict()
        self._board: dict[tuple[str, str | None], list[str]] = {}  # ranked player ids, until anything changes
        if self.store is not None:
            for player_id, game, played, won in self.store.game_stats():
                self.stats.setdefault(player_id, {})[game] = [played, won]
            self.hidden = self.store.hidden_players()

    # ------------------------------------------------------------ what the tables report

    def round_finished(self, table: "Table", record: dict[str, Any], public: dict[str, Any], rows: Rows) -> None:
        """A round ended (the store, if any, has it already): without a store, keep it in memory."""
        if self.store is not None:
            return
        self._seq += 1
        seats = {player_id: row["seat"] for player_id, row in rows}
        self._records[(table.table_id, record["round"])] = (table.game_type.name, record, seats)
        while len(self._records) > RECORDS_KEEP:
            self._records.popitem(last=False)
        for player_id, row in rows:
            self._rounds.setdefault(player_id, deque(maxlen=HISTORY_KEEP)).appendleft({
                "seq": self._seq, "table_id": table.table_id, "table_name": table.name,
                "game_name": table.game_type.name, "round": record["round"], **row,
                "finished_at": record["finished_at"],
            })

    def game_finished(self, table: "Table", rows: Rows) -> None:
        """A game is over: count it for the leaderboard, and without a store keep its lines."""
        game = table.game_type.name
        for player_id, row in rows:
            counts = self.stats.setdefault(player_id, {}).setdefault(game, [0, 0])
            counts[0] += 1
            counts[1] += int(row["won"])
        self.changed()
        if self.store is not None:
            return
        self._seq += 1
        for player_id, row in rows:
            self._games.setdefault(player_id, deque(maxlen=HISTORY_KEEP)).appendleft({
                "seq": self._seq, "table_id": table.table_id, "table_name": table.name, "game_name": game,
                "rounds": table.rounds.rounds_started, **row, "finished_at": time.time(),
            })

    def changed(self) -> None:
        """A balance, a count or a hide changed: the leaderboard is ranked again when next asked."""
        self._board.clear()

    # ------------------------------------------------------------ requests

    def past_rounds(self, player: "PlayerRecord", msg: m.PastRounds) -> dict[str, Any]:
        if self.store is not None:
            rows = self.store.past_rounds(player.player_id, msg.table_id, msg.before, msg.limit + 1)
        else:
            rows = _page(self._rounds.get(player.player_id, ()), msg.before, msg.limit + 1,
                         lambda row: msg.table_id is None or row["table_id"] == msg.table_id)
        return _paged("rounds", rows, msg.limit)

    def past_games(self, player: "PlayerRecord", msg: m.PastGames) -> dict[str, Any]:
        if self.store is not None:
            rows = self.store.past_games(player.player_id, msg.before, msg.limit + 1)
        else:
            rows = _page(self._games.get(player.player_id, ()), msg.before, msg.limit + 1, lambda row: True)
        return _paged("games", rows, msg.limit)

    def replay(self, player: "PlayerRecord", msg: m.Replay) -> dict[str, Any]:
        """The round's steps as the player could see them, from ``from_step`` on, as many as fit."""
        found = self._round(msg.table_id, msg.round)
        seat = None if found is None else self._seat(player.player_id, msg.table_id, msg.round, found)
        if found is None or (seat is None and player.table_id != msg.table_id):
            raise RequestError("no_such_round", f"there is no finished round {msg.round} at table {msg.table_id!r} "
                                                "that you played or are watching")
        game_name, record = found[0], found[1]
        steps = self._replayed(game_name, record, msg.table_id, msg.round, seat)
        page, size = [], 0
        for step in steps[msg.from_step:]:
            size += len(msgpack.packb(step))
            if page and size > REPLAY_BYTES:
                break
            page.append(step)
        end = msg.from_step + len(page)
        return {"game_name": game_name, "table_id": msg.table_id, "round": msg.round, "seat": seat,
                "total": len(steps), "steps": page, "next": end if end < len(steps) else None}

    def leaderboard(self, player: "PlayerRecord", msg: m.Leaderboard) -> dict[str, Any]:
        """The first ``limit`` players who finished a game (of ``game``), by balance or by games won."""
        if msg.game is not None:
            try:
                find_game(msg.game)
            except KeyError as exc:
                raise RequestError("no_such_game", exc.args[0]) from None
        ranked = self._ranked(msg.by, msg.game)
        entries = [self._entry(rank, player_id, msg.game) for rank, player_id in enumerate(ranked[:msg.limit], 1)]
        you = ranked.index(player.player_id) + 1 if player.player_id in ranked else None
        return {"by": msg.by, "game": msg.game, "players": entries, "total": len(ranked), "rank": you,
                "hidden": player.player_id in self.hidden}

    def set_hidden(self, player: "PlayerRecord", msg: m.SetHidden) -> None:
        if (player.player_id in self.hidden) == msg.hidden:
            return
        if self.store is not None:
            self.store.set_hidden(player.player_id, msg.hidden)
        (self.hidden.add if msg.hidden else self.hidden.discard)(player.player_id)
        self.changed()

    # ------------------------------------------------------------ helpers

    def _round(self, table_id: str, round_no: int) -> tuple[str, dict[str, Any], dict[str, int]] | None:
        if self.store is None:
            return self._records.get((table_id, round_no))
        found = self.store.round_for_replay(table_id, round_no)
        return None if found is None else (*found, {})

    def _seat(self, player_id: str, table_id: str, round_no: int, found: tuple[Any, ...]) -> int | None:
        if self.store is None:
            return found[2].get(player_id)
        return self.store.seat_in_round(player_id, table_id, round_no)

    def _replayed(self, game_name: str, record: dict[str, Any], table_id: str, round_no: int,
                  seat: int | None) -> list[dict[str, Any]]:
        key = (table_id, round_no, seat)
        steps = self._steps.get(key)
        if steps is None:
            if record.get("opening") is None:
                raise RequestError("no_replay", "this round was stored without what a replay needs "
                                                "(before replays were kept, or across an engine upgrade)")
            try:
                steps = replay_steps(find_game(game_name), record["opening"], record["actions"], record["log"], seat)
            except ReplayMismatch as exc:
                raise RequestError("no_replay", f"this round cannot be replayed by this server: {exc}") from None
            self._steps[key] = steps
            while len(self._steps) > STEPS_KEEP:
                self._steps.popitem(last=False)
        self._steps.move_to_end(key)
        return steps

    def _ranked(self, by: str, game: str | None) -> list[str]:
        ranked = self._board.get((by, game))
        if ranked is None:
            players = self.lobby.players
            eligible = [p for p, games in self.stats.items()
                        if p in players and p not in self.hidden and _counts(games, game)[0] > 0]
            if by == "chips":
                eligible.sort(key=lambda p: (-players[p].balance, players[p].name.casefold(), p))
            else:
                eligible.sort(key=lambda p: (-_counts(self.stats[p], game)[1], _counts(self.stats[p], game)[0],
                                             players[p].name.casefold(), p))
            ranked = self._board[(by, game)] = eligible
        return ranked

    def _entry(self, rank: int, player_id: str, game: str | None) -> dict[str, Any]:
        player = self.lobby.players[player_id]
        played, won = _counts(self.stats[player_id], game)
        return {"rank": rank, "name": player.name, "balance": player.balance, "games": played, "wins": won}


def _counts(games: dict[str, list[int]], game: str | None) -> tuple[int, int]:
    """Games played and won, of ``game`` or of every game."""
    if game is not None:
        played, won = games.get(game, (0, 0))
        return played, won
    return sum(c[0] for c in games.values()), sum(c[1] for c in games.values())


def _page(rows: Any, before: int | None, limit: int, keep: Any) -> list[dict[str, Any]]:
    """Up to ``limit`` of ``rows`` (newest first) older than ``before`` that ``keep`` keeps."""
    page = []
    for row in rows:
        if (before is None or row["seq"] < before) and keep(row):
            page.append(row)
            if len(page) == limit:
                break
    return page


def _paged(key: str, rows: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    """A page of at most ``limit`` lines (``rows`` holds one more if there are more), and the cursor to the next."""
    more = len(rows) > limit
    rows = rows[:limit]
    return {key: [{k: v for k, v in row.items() if k != "seq"} for row in rows],
            "next": rows[-1]["seq"] if more else None}
