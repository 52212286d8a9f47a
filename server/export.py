"""Hand histories as plain text, from the data :meth:`server.store.Store.export` returns.

The JSON form is the complete record (seed, players, settings and action log of
each finished game, plus every finished round); this is the same history laid
out for people, one line per event, every hidden card shown (the rounds are over).
"""

from __future__ import annotations

from typing import Any

from engine.contract import plain_text
from engine.games import find_game
from engine.records import Record

GAME = find_game("down-and-back")  # the only game stored today; the store's game column comes with issue 13's store step

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
    settings = table["game_settings"] or table["settings"]
    rules = [f"ante {settings['ante']}", f"starting stack {settings['stack']}", f"{settings['turns']} turns"]
    rules += [name.replace("_", " ") for name in ("early_call", "no_take_back") if settings.get(name)]
    lines = [f"=== Table {table['table_id']} \"{table['name']}\" ({table['state']}): {', '.join(rules)}"]
    if table["initial_players"]:
        lines.append("Players: " + ", ".join(f"{name} (seat {seat}, brought {stack})"
                                             for seat, name, stack in table["initial_players"]))
    for entry in table["rounds"]:
        try:
            lines += [""] + _round(entry)
        except _DAMAGE as exc:
            raise DamagedHistory(f"table {table['table_id']}, round {entry.get('round')}: the stored round is "
                                 f"damaged ({exc!r}); restore the database from a backup") from None
    if table["final_stacks"] is not None:
        names = {seat: name for seat, name, _ in table["initial_players"]}
        lines += ["", "Final stacks: " + ", ".join(
            f"{names[int(seat)]} {stack}" for seat, stack in sorted(table["final_stacks"].items(), key=lambda i: int(i[0]))
        )]
    lines.append("")
    return lines


def _round(entry: dict[str, Any]) -> list[str]:
    names = {int(seat): name for seat, name in entry["names"].items()}

    def who(seat: int | None) -> str:
        return names.get(seat, f"seat {seat}") if seat is not None else "the table"

    lines = [f"--- Round {entry['round']}: dealer {who(entry['dealer'])}, cut by {who(entry['cutter'])}"]
    for record in entry["log"]:
        parts = GAME.describe(Record.from_data(record).for_seat(record["seat"]))  # every card shown
        if parts:
            lines.append("  " + plain_text(parts, who))
    if entry["result"] is None:
        lines.append(f"  Game ended before the showdown: antes of {entry['pot']} paid back")
    lines.append("  Stacks: " + ", ".join(f"{who(int(s))} {v}" for s, v in sorted(entry["stacks"].items(),
                                                                                 key=lambda i: int(i[0]))))
    return lines
