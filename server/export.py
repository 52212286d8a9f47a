"""Hand histories as plain text, from the data :meth:`server.store.Store.export` returns.

The JSON form is the complete record (seed, players, settings and action log of
each finished game, plus every finished round); this is the same history laid
out for people, one line per event, every hidden card shown (the rounds are over).
"""

from __future__ import annotations

from typing import Any

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
        kind, seat, public, private = record["kind"], record["seat"], record["public"], record["private"]
        text = _event(kind, who(seat), public, private, who)
        if text:
            lines.append("  " + text)
    if entry["result"] is None:
        lines.append(f"  Game ended before the showdown: antes of {entry['pot']} paid back")
    lines.append("  Stacks: " + ", ".join(f"{who(int(s))} {v}" for s, v in sorted(entry["stacks"].items(),
                                                                                 key=lambda i: int(i[0]))))
    return lines


def _event(kind: str, name: str, public: dict[str, Any], private: dict[str, Any], who: Any) -> str | None:
    if kind == "round":
        return f"Antes of {public['ante']} each: pot {public['pot']}"
    if kind == "cut":
        return f"{name} cuts at {public['position']}" + (" (random)" if public.get("random") else "")
    if kind == "deal":
        return f"{name} is dealt {' '.join(private.get('hand', []))}"
    if kind == "up_card":
        return f"Up card {public['card']}, {public['stock']} cards in the stock"
    if kind == "take_stock":
        return f"{name} takes {private.get('card', 'a card')} from the stock"
    if kind == "take_discard":
        return f"{name} takes {public['card']} from the discard pile"
    if kind == "discard":
        return f"{name} discards {public['card']}"
    if kind == "skip":
        return f"{name} skips"
    if kind == "call_end":
        return f"{name} calls the end after orbit {public['orbit']}"
    if kind == "reshuffle":
        return f"The discard pile is shuffled into a new stock of {public['stock']}"
    if kind == "showdown":
        return "Showdown"
    if kind == "reveal":
        return (f"{name}: down {' '.join(public['down'])} ({public['down_name']}), "
                f"back {' '.join(public['back'])} ({public['back_name']})")
    if kind == "result":
        parts = []
        for which, label in (("down", "Going down"), ("back", "Coming back")):
            draws = public[f"{which}_draws"]
            tie = ""
            if draws:
                tie = " after tie-break draws " + "; ".join(
                    ", ".join(f"{who(d['seat'])} {d['card']}" for d in draw) for draw in draws
                )
            parts.append(f"{label}: {who(public[f'{which}_winner'])} wins{tie}")
        if public["winner"] is not None:
            parts.append(f"{who(public['winner'])} wins both and takes the pot of {public['pot']}")
        else:
            parts.append(f"no one wins both: the pot of {public['pot']} carries over")
        return "; ".join(parts)
    if kind == "away":
        return f"{name} sits out"
    if kind == "back":
        return f"{name} is back"
    if kind == "game_over":
        return f"Game over: {public['reason']}"
    return None  # split_in: shown by the reveal
