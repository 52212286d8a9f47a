"""What players may see of finished rounds: the ``history`` request's round records.

A finished round is stored in full (:meth:`server.rounds.RoundBook.round_record`:
the deal, every action, the splits); :func:`public_round` is the part of it a
player may see, built once when the round ends and stored beside it, so
answering ``history`` never re-reads the full records.
"""

from __future__ import annotations

from typing import Any, Iterable

import msgpack

HISTORY_BYTES = 48 * 1024  # keep a history reply well inside the 64 KiB frame limit


def public_round(entry: dict[str, Any]) -> dict[str, Any]:
    """What a player may see of a finished round (the ``history`` result item).

    Fields as in PROTOCOL.md's round record; hands stay hidden except the
    splits the showdown revealed. ``abandoned`` rounds ended before a showdown.
    """
    result = entry["result"]
    reveal = {r["seat"]: r for r in (result or {}).get("reveal", [])}
    players = []
    for seat in entry["seats"]:
        shown = reveal.get(seat, {})
        players.append({
            "seat": seat, "name": entry["names"][str(seat)],
            "down": shown.get("down"), "back": shown.get("back"),
            "down_hand": shown.get("down_name"), "back_hand": shown.get("back_name"),
            "stack": entry["stacks"][str(seat)],
        })
    public: dict[str, Any] = {
        "table_id": entry["table_id"], "round": entry["round"], "dealer": entry["dealer"], "pot": entry["pot"],
        "players": players, "stacks": entry["stacks"], "abandoned": result is None,
        "finished_at": entry.get("finished_at"),
        "down_winner": None, "back_winner": None, "tie_breaks": None, "winner": None, "carried": 0,
    }
    if result is not None:
        public.update({
            "down_winner": result["down_winner"], "back_winner": result["back_winner"],
            "tie_breaks": {"down": result["down_draws"], "back": result["back_draws"]},
            "winner": result["winner"], "carried": result["carried"],
        })
    return public


def fit(newest_first: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The most recent rounds that fit in one reply, oldest first (stops reading at the budget)."""
    kept: list[dict[str, Any]] = []
    size = 0
    for entry in newest_first:
        size += len(msgpack.packb(entry))
        if size > HISTORY_BYTES:
            break
        kept.append(entry)
    return kept[::-1]
