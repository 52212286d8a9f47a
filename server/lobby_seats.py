"""The lobby's tables and seats: finding a table (a private one's code, with its attempts limited),
joining and watching it, one table at a time, a new table's id and RNG, dropping an empty table, and
the requests a seated player or host sends, each handed to the player's table."""

from __future__ import annotations

import asyncio
import hmac
import logging
import math
from typing import TYPE_CHECKING, Any, Callable

from engine.rng import HashRng
from protocol import messages as m

from . import rematch
from .errors import RequestError
from .limits import Backoff
from .table import Table, settings_to_store

if TYPE_CHECKING:
    from .lobby import PlayerRecord

log = logging.getLogger("server.lobby")  # the lobby's own log, as before the split

CODE_TRIES_PER_PLAYER = 5  # wrong private codes one player may try freely; then back-off (1 s, doubling, 5 min at most)
CODE_TRIES_PER_TABLE = 20  # ... and all players together at one table (back-off up to 1 min)


class Seating:
    """Tables and seats: the part of :class:`server.lobby.Lobby` that takes players to their table."""

    def _table(self, player: PlayerRecord, code: str = "not_at_table") -> Table:
        """The player's table; ``code`` if they are in the lobby (``not_seated`` for what only seats may do)."""
        table = self.tables.get(player.table_id) if player.table_id else None
        if table is None:
            raise RequestError(code, "you are not at a table")
        return table

    def _find(self, player: PlayerRecord, table_id: str, code: str | None) -> Table:
        table = self.tables.get(table_id)
        if table is None:
            raise RequestError("no_such_table", f"there is no table {table_id!r}")
        if table.private_code is not None and not self._is_invited(player, table):
            self._check_code(player, table, code)
        return table

    def _is_invited(self, player: PlayerRecord, table: Table) -> bool:
        """The host invited ``player`` to ``table`` less than ``INVITE_TTL`` ago: they need not give its code."""
        held = self._invited.get((player.player_id, table.table_id))
        return held is not None and held[2] and held[1] > asyncio.get_running_loop().time()

    def _check_code(self, player: PlayerRecord, table: Table, code: str | None) -> None:
        """A private table's code, with attempts limited per player and per table so
        codes cannot be guessed by brute force (back-off after a few wrong ones)."""
        if code is None:
            raise RequestError("wrong_code", "that table is private: the code is missing")
        now = asyncio.get_running_loop().time()
        if len(self._code_tries) > 2 * len(self.tables) + 16:  # forget closed tables
            self._code_tries = {k: v for k, v in self._code_tries.items() if k in self.tables}
        table_tries = self._code_tries.setdefault(table.table_id, Backoff(CODE_TRIES_PER_TABLE, cap=60.0))
        wait = max(player.code_tries.wait(now), table_tries.wait(now))
        if wait > 0:
            raise RequestError("too_many_attempts", f"too many wrong codes; try again in {math.ceil(wait)} s")
        if hmac.compare_digest(table.private_code.encode(), code.encode()):  # type: ignore[union-attr]
            player.code_tries.failures = 0
            return
        player.code_tries.failed(now)
        table_tries.failed(now)
        peer = player.session.peer if player.session is not None else "?"
        self.peer_log.warning(peer, "wrong code for private table %s from player %s (%d in a row; %d at the table)",
                              table.table_id, player.player_id, player.code_tries.failures, table_tries.failures)
        raise RequestError("wrong_code", "that table is private: the code is wrong")

    def _require_no_table(self, player: PlayerRecord, unless_watching: Table | None = None) -> None:
        """One table at a time: being at another (seated or watching) needs a ``leave`` first.

        ``unless_watching``: a spectator of that table may still take a seat there.
        """
        table = self.tables.get(player.table_id) if player.table_id else None
        if table is None:
            player.table_id = None
            return
        if table is unless_watching and player.player_id in table.spectators:
            return
        role = "watching" if player.player_id in table.spectators else "seated at"
        raise RequestError("already_at_table", f"you are {role} table {table.table_id}; leave it first")

    def _drop_if_empty(self, table: Table) -> None:
        if table.is_empty() and table.state != "playing":
            table.close()
            self.tables.pop(table.table_id, None)
            if self.store is not None:
                self.store.set_table_state(table.table_id, "closed")
            self.tables_changed()

    def _new_table(self, name: str, settings: m.TableSettings, host_id: str, private_code: str | None) -> Table:
        """A new waiting table (stored, if there is a store), in the lobby."""
        if self.store is not None:
            table_id = self.store.create_table(name, settings.game, settings_to_store(settings), host_id, private_code)
        else:
            table_id = f"t{next(self._table_ids)}"
        table = Table(table_id, name, settings, host_id, private_code, self, self.config.table,
                      self._rng_for(int(table_id[1:])), self.store)
        self.tables[table_id] = table
        return table

    def _rng_for(self, table_no: int) -> Callable[[], HashRng]:
        """The RNG factory of table number ``table_no``: fresh secrets, or the fixed test seed."""
        if self.config.seed is None:
            return HashRng
        seed = self.config.seed + (table_no - 1).to_bytes(4, "big")
        return lambda: HashRng(seed)

    def _join(self, player: PlayerRecord, msg: m.Join) -> dict[str, Any]:
        table = self._find(player, msg.table_id, msg.private_code)
        table.check_not_removed(player.player_id)
        if table.seat_of(player.player_id) is None:
            self._can_sit(player, table.settings.game, table.rules)
            self._check_held_seats(player)
        self._require_no_table(player, unless_watching=table)
        seat = table.join(player.player_id, player.name, msg.seat)
        player.table_id = table.table_id
        self._invited.pop((player.player_id, table.table_id), None)  # an invitation lets one in once
        return {"table_id": table.table_id, "seat": seat}

    def _watch(self, player: PlayerRecord, msg: m.Watch) -> dict[str, Any]:
        table = self._find(player, msg.table_id, msg.private_code)
        table.check_not_removed(player.player_id)
        self._require_no_table(player)
        table.watch(player.player_id)
        player.table_id = table.table_id
        return {"table_id": table.table_id}

    def _start(self, player: PlayerRecord, msg: m.Start) -> None:
        self._table(player).start(player.player_id)

    def _add_bot(self, player: PlayerRecord, msg: m.AddBot) -> dict[str, Any]:
        return {"seat": self._table(player).add_bot(player.player_id, msg.level)}

    def _remove_bot(self, player: PlayerRecord, msg: m.RemoveBot) -> None:
        self._table(player).remove_bot(player.player_id, msg.seat)

    def _end_game(self, player: PlayerRecord, msg: m.EndGame) -> None:
        self._table(player).end(player.player_id)

    def _act(self, player: PlayerRecord, msg: m.Act) -> dict[str, Any]:
        return {"seq": self._table(player, "not_seated").act(player.player_id, msg.action)}

    def _sit_out(self, player: PlayerRecord, msg: m.SitOut) -> None:
        self._table(player, "not_seated").sit_out(player.player_id, msg.away)

    def _seed_commit(self, player: PlayerRecord, msg: m.SeedCommit) -> None:
        self._table(player, "not_seated").fair_action(player.player_id, "seed_commit", "commit", msg.commit)

    def _client_seed(self, player: PlayerRecord, msg: m.ClientSeed) -> None:
        self._table(player, "not_seated").fair_action(player.player_id, "client_seed", "seed", msg.seed)

    def _chat(self, player: PlayerRecord, msg: m.Chat) -> None:
        table = self._table(player)
        table.check_not_removed(player.player_id)
        table.audience.chat(player.player_id, player.name, msg.text)

    def _offer_rematch(self, player: PlayerRecord, msg: m.OfferRematch) -> None:
        rematch.offer(self._table(player), player.player_id)

    def _answer_rematch(self, player: PlayerRecord, msg: m.AnswerRematch) -> None:
        rematch.answer(self._table(player), player.player_id, msg.accept)
