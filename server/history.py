"""What players may see of finished rounds: the ``history`` request's round records.

A finished round is stored in full (:meth:`server.rounds.RoundBook.round_record`:
the game's record of it and its actions); :func:`public_round` is the part of
it a player may see, built once when the round ends and stored beside it, so
answering ``history`` never re-reads the full records.
"""

from __future__ import annotations

from typing import Any, Iterable

import msgpack

from engine.contract import GameType

HISTORY_BYTES = 48 * 1024  # keep a history reply well inside the 64 KiB frame limit


def public_round(game_type: GameType, entry: dict[str, Any]) -> dict[str, Any]:
    """What a player may see of a finished round (the ``history`` result item): the game's
    :meth:`~engine.contract.GameType.public_round`, with the game, the table and the time it finished
    (PROTOCOL.md 5.5: a history away from tables mixes the rounds of every game the player played)."""
    return {"game_name": game_type.name, "table_id": entry["table_id"], **game_type.public_round(entry),
            "finished_at": entry.get("finished_at")}


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
