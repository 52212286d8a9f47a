"""Hand histories as plain text, from the data :meth:`server.store.Store.export` returns.

The JSON form is the complete record (seed, players, settings and action log of
each finished game, plus every finished round); this is the same history laid
out for people, one line per event, every hidden card shown (the rounds are over).
Each table is laid out through its own game (``engine.games.find_game`` of the
table's ``game``): its title, its settings' labels and the game's one wording
of its events (:meth:`~engine.contract.GameType.describe`), so no game is
known here.
"""

from __future__ import annotations

from typing import Any

from engine.contract import GameType, plain_text
from engine.games import find_game
from engine.records import Record

# What damaged stored data can raise while it is laid out (the store checks the shape, not every event).
_DAMAGE = (KeyError, IndexError, TypeError, ValueError, AttributeError)


class DamagedHistory(ValueError):
    """A stored table or round cannot be laid out; the message names it."""


def history_text(history: dict[str, Any]) -> str:
    lines: list[str] = []
    for table in history["tables"]:
        try:
            lines += _table(table)
        except _DAMAGE as exc:
            if isinstance(exc, DamagedHistory):
                raise
            raise DamagedHistory(f"table {table.get('table_id')}: the stored game is damaged ({exc!r})") from None
    if not lines:
        lines.append("No games yet.")
    return "\n".join(lines) + "\n"


def _table(table: dict[str, Any]) -> list[str]:
    try:
        game = find_game(table["game"])
    except KeyError as exc:
        raise DamagedHistory(f"table {table['table_id']}: {exc.args[0]}; export it with a dab-server that has "
                             "that game") from None
    heading = f"=== Table {table['table_id']} \"{table['name']}\" ({game.title}, {table['state']})"
    rules = _rules(game, table["game_settings"])
    lines = [heading + (f": {rules}" if rules else "")]
    names: dict[int, str] = {}
    if table["initial_players"]:
        names = {seat: name for seat, name, _ in table["initial_players"]}
        lines.append("Players: " + ", ".join(f"{name} (seat {seat}, brought {stack})"
                                             for seat, name, stack in table["initial_players"]))
    for entry in table["rounds"]:
        try:
            lines += [""] + _round(game, entry, names)
        except _DAMAGE as exc:
            raise DamagedHistory(f"table {table['table_id']}, round {entry.get('round')}: the stored round is "
                                 f"damaged ({exc!r}); restore the database from a backup") from None
    if table["final_stacks"] is not None:
        lines += ["", "Final stacks: " + _stacks(table["final_stacks"], lambda seat: names[seat])]
    lines.append("")
    return lines


def _rules(game: GameType, settings: dict[str, Any] | None) -> str:
    """The game's settings in its own labels: "ante 10, stack 200, turns 6, early call"."""
    shown = []
    for field in game.setting_fields:
        value = (settings or {}).get(field.name)
        if isinstance(value, bool):
            shown += [field.label.lower()] if value else []
        elif value is not None:
            shown.append(f"{field.label.lower()} {value}")
    return ", ".join(shown)


def _round(game: GameType, entry: dict[str, Any], names: dict[int, str]) -> list[str]:
    def who(seat: int | None) -> str:
        return names.get(seat, f"seat {seat}") if seat is not None else "the table"

    lines = [f"--- Round {entry['round']}"]
    for record in entry["log"]:
        parts = game.describe(Record.from_data(record).for_seat(record["seat"]))  # every card shown
        if parts:
            lines.append("  " + plain_text(parts, who))
    if entry["result"] is None:
        lines.append("  The game ended before this round did")
    lines.append("  Stacks: " + _stacks(entry["stacks"], who))
    return lines


def _stacks(stacks: dict[str, int], who: Any) -> str:
    return ", ".join(f"{who(int(seat))} {chips}" for seat, chips in sorted(stacks.items(), key=lambda i: int(i[0])))
