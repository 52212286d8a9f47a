"""The lobby's chips: each player's balance, the buy-ins and cash-outs a table asks for (with the
store's ledger rows), the chips sitting at tables, and whether a player has enough for a seat."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.games import find_game

from .errors import RequestError

if TYPE_CHECKING:
    from .lobby import PlayerRecord
    from .table import Table


class Balances:
    """Balances: the part of :class:`server.lobby.Lobby` that keeps every chip accounted for."""

    def balance(self, player_id: str) -> int:
        return self.players[player_id].balance

    def move_chips(self, table: Table, kind: str, moves: list[tuple[int, str | None, int]]) -> None:
        """Buy-ins (balance -> table) and cash-outs (table -> balance); bots are the house's."""
        sign = -1 if kind == "buy_in" else 1
        for _, player_id, amount in moves:
            if player_id is not None:
                player = self.players[player_id]
                assert player.balance + sign * amount >= 0, (player_id, kind, amount)
                player.balance += sign * amount
                player.played = True
        self.archive.changed()
        if self.store is not None:
            self.store.move_chips(table.table_id, kind, moves)

    def chips_at_tables(self) -> dict[str, int]:
        """Each player's chips sitting at tables with a game running (bought in, not yet cashed out): their
        seats' holdings (``Game.holdings``: a Cribbage stake still theirs counts, a Down and Back pot not).
        A player's chips are their balance plus these."""
        held: dict[str, int] = {}
        for table in self.tables.values():
            if table.game is None or table.state != "playing":
                continue
            holdings: dict[int, int] | None = None
            for seat, info in table.seats.items():
                if info.player_id is not None:
                    holdings = holdings if holdings is not None else table.holdings()
                    held[info.player_id] = held.get(info.player_id, 0) + holdings.get(seat, 0)
        return held

    def _can_sit(self, player: PlayerRecord, game: str, rules: Any) -> None:
        """The player has the least the game asks of a seat with these ``rules`` (its own settings)."""
        least, _ = find_game(game).buy_in(rules)
        if player.balance < least:
            raise RequestError(
                "insufficient_chips", f"you have {player.balance} chips, less than the {least} this table needs to play"
            )
