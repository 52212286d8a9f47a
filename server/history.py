"""What players may see of finished rounds: the ``history`` request's round records, and each
player's own lines (``past_rounds``, ``past_games``).

A finished round is stored in full (:meth:`server.rounds.RoundBook.round_record`:
the game's record of it and its actions); :func:`public_round` is the part of
it a player may see, built once when the round ends and stored beside it, so
answering ``history`` never re-reads the full records. :func:`round_rows` and
:func:`game_rows` are each player's line of a round or a game, built once too
(live, and by the store's migration from older rounds).
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


def round_rows(
    game_type: GameType, public: dict[str, Any], owners: dict[int, str | None], before: dict[int, int],
    after: dict[str, int] | None = None,
) -> list[tuple[str, dict[str, Any]]]:
    """``(player_id, {seat, chips, result})`` for each player dealt into the round: chips won or lost
    (``after``, each seat's holdings after it (``Game.holdings``: a stake still its own counts), else the
    stack after it, minus ``before``, the same before it) and the game's words for how it went.
    ``owners``: each seat's player, None for a bot."""
    after = after if after is not None else public["stacks"]
    rows = []
    for entry in public["players"]:
        seat = entry["seat"]
        player_id = owners.get(seat)
        if player_id is not None:
            rows.append((player_id, {"seat": seat, "chips": after[str(seat)] - before.get(seat, 0),
                                     "result": game_type.round_outcome(public, seat)}))
    return rows


def game_rows(net: dict[int, int], owners: dict[int, str | None]) -> list[tuple[str, dict[str, Any]]]:
    """``(player_id, {seat, chips, won})`` for each player of a game over: ``net`` each seat's chips
    cashed out minus bought in. A game is won by whoever came out with the most chips, more than they
    brought (ties: each of them), the same for every game: a game nobody gained from has no winner."""
    best = max(net.values(), default=0)
    return [(owners[seat], {"seat": seat, "chips": chips, "won": chips > 0 and chips == best})
            for seat, chips in sorted(net.items()) if owners.get(seat) is not None]


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
