"""Each player's past: their rounds and games, replays of their rounds, and the leaderboard.

The requests ``history``, ``past_rounds``, ``past_games``, ``replay``,
``leaderboard`` and ``set_hidden`` (PROTOCOL.md 5.1) are answered here. A
durable server reads the store (each page one range of an index, however many
rounds are stored), and does it in its history worker, off the event loop
(:mod:`server.history_worker`): these requests become jobs, checked here
against what the loop knows (the asker's table). A server that keeps nothing
(``--memory``, practice) answers from memory, the last
:data:`~server.rounds.HISTORY_KEEP` rounds and games of each player and the
last :data:`RECORDS_KEEP` rounds for replays (a replay is still worked out by
the worker). Either way every answer is bounded: a page holds at most 50
lines, a replay reply what fits :data:`~server.history_worker.REPLAY_BYTES`,
and the leaderboard at most 50 players.

Replays come from the engine (:func:`engine.replay.replay_steps`): the round's
actions applied again to its opening, each step seen through the game's own
view of the requester's seat (a spectator's view for someone who watches the
table and did not play the round). Nobody else may replay a round.
"""

from __future__ import annotations

import itertools
import time
from collections import OrderedDict, deque
from typing import TYPE_CHECKING, Any

from engine.games import find_game
from protocol import messages as m

from .errors import RequestError
from .history import fit
from .history_worker import HistoryWorker, Job, no_such_round, paged
from .rounds import HISTORY_KEEP

if TYPE_CHECKING:
    from .lobby import Lobby, PlayerRecord
    from .table import Table

RECORDS_KEEP = 500  # full round records a lobby without a store keeps for replays

Rows = list[tuple[str, dict[str, Any]]]


class Archive:
    """One lobby's answers about the past (see the module docstring)."""

    def __init__(self, lobby: "Lobby", process: bool = True) -> None:
        """``process``: answer replays, and a durable server's history, in a worker process."""
        self.lobby = lobby
        self.store = lobby.store
        in_file = self.store is not None and self.store.path != ":memory:"
        self.worker = HistoryWorker(self.store.path if in_file else None, process and (in_file or self.store is None),
                                    self.store.rounds_read if self.store is not None else None)
        self.stats: dict[str, dict[str, list[int]]] = {}  # player -> game -> [games played, games won]
        self.hidden: set[str] = set()
        self._seq = 0  # without a store: the order rounds and games finished
        self._rounds: dict[str, deque[dict[str, Any]]] = {}
        self._games: dict[str, deque[dict[str, Any]]] = {}
        self._records: OrderedDict[tuple[str, int], tuple[str, dict[str, Any], dict[str, int]]] = OrderedDict()
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

    def history(self, player: "PlayerRecord", msg: m.History) -> Job | dict[str, Any]:
        """Finished rounds, oldest first: the player's table's, or (away from tables) their own last rounds.

        Each costs one stored public record, read newest first only until
        the reply is full, so a request's cost is bounded by its reply.
        """
        table = self.lobby.tables.get(player.table_id) if player.table_id else None
        if self.store is not None:
            return Job("history", (table.table_id if table is not None else None, player.player_id, msg.limit))
        kept = table.rounds.history if table is not None else player.rounds
        return {"rounds": fit(itertools.islice(reversed(kept), msg.limit))}

    def past_rounds(self, player: "PlayerRecord", msg: m.PastRounds) -> Job | dict[str, Any]:
        if self.store is not None:
            return Job("past_rounds", (player.player_id, msg.table_id, msg.before, msg.limit))
        rows = _page(self._rounds.get(player.player_id, ()), msg.before, msg.limit + 1,
                     lambda row: msg.table_id is None or row["table_id"] == msg.table_id)
        return paged("rounds", rows, msg.limit)

    def past_games(self, player: "PlayerRecord", msg: m.PastGames) -> Job | dict[str, Any]:
        if self.store is not None:
            return Job("past_games", (player.player_id, msg.before, msg.limit))
        rows = _page(self._games.get(player.player_id, ()), msg.before, msg.limit + 1, lambda row: True)
        return paged("games", rows, msg.limit)

    def replay(self, player: "PlayerRecord", msg: m.Replay) -> Job:
        """The round's steps as the player could see them, from ``from_step`` on, as many as fit (the worker
        reads the round, checks that the player may see it and plays it again)."""
        found = None
        if self.store is None:
            kept = self._records.get((msg.table_id, msg.round))
            if kept is None:
                raise no_such_round(msg.table_id, msg.round)
            found = (kept[0], kept[1], kept[2].get(player.player_id))
        return Job("replay", (player.player_id, player.table_id, msg.table_id, msg.round, msg.from_step, found))

    def leaderboard(self, player: "PlayerRecord", msg: m.Leaderboard) -> dict[str, Any]:
        """The first ``limit`` players who finished a game (of ``game``), by balance or by games won."""
        if msg.game is not None:
            try:
                find_game(msg.game)
            except KeyError as exc:
                raise RequestError("no_such_game", exc.args[0]) from None
        ranked = self._ranked(msg.by, msg.game)
        at_tables = self.lobby.chips_at_tables()
        entries = [self._entry(rank, player_id, msg.game, at_tables.get(player_id, 0))
                   for rank, player_id in enumerate(ranked[:msg.limit], 1)]
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

    def _entry(self, rank: int, player_id: str, game: str | None, at_tables: int) -> dict[str, Any]:
        player = self.lobby.players[player_id]
        played, won = _counts(self.stats[player_id], game)
        return {"rank": rank, "name": player.name, "balance": player.balance, "at_tables": at_tables,
                "games": played, "wins": won}


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
