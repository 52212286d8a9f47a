"""Replaying a finished round as one seat saw it: the steps of the ``replay`` request.

A round is replayed from its *opening* (:func:`opening`: the game between
rounds, just before the round's ``start_round``) by applying the round's
actions again; after each one the seat gets the records as
:meth:`~engine.records.Record.for_seat` tailors them and the game's own
:meth:`~engine.contract.Game.view` for that seat. Hidden information is
therefore removed exactly where it is removed live, by the game: a seat sees
its own cards and the public events at each moment and, from the round's
reveal on, what the reveal showed; a spectator (``seat=None``) sees what
every spectator saw. The actions themselves are never part of a step (a
split or a crib discard names cards nobody else has seen yet).
"""

from __future__ import annotations

import copy
import json
from typing import Any, Mapping, Sequence

from .contract import GameType
from .errors import EngineError
from .fairness import REVEAL_KIND


class ReplayMismatch(Exception):
    """The round does not replay to what was recorded (the engine changed since): no step is given."""


def opening(game: Any) -> dict[str, Any]:
    """What a round is replayed from: the game's plain data just before its ``start_round``,
    without the action history. The last round's records are left out: every game clears
    them when a round starts (its ``round_log``), so the next round never reads them."""
    data = game.to_data(history=False)
    data["round_log"] = []
    return data


def replay_steps(
    game_type: GameType, start: Mapping[str, Any], actions: Sequence[Sequence[Any]], recorded: Sequence[Any],
    seat: int | None,
) -> list[dict[str, Any]]:
    """Every step of a round as ``seat`` could see it then (``None``: as a spectator).

    ``start`` is the round's :func:`opening`, ``actions`` its ``[seat, action]``
    pairs and ``recorded`` the records the round produced (the round record's
    ``log``), which the replay must reproduce exactly, else :class:`ReplayMismatch`.
    A step is ``{"seat": actor or None, "events": [...], "view": {...}}``.
    """
    try:
        game = game_type.from_data(dict(start))
        steps = []
        produced = []
        for actor, data in actions:
            # The round's seed revealed at its end is told live but never logged: no step shows it.
            records = [r for r in game.apply(actor, game_type.action_from_data(data)) if r.kind != REVEAL_KIND]
            produced.extend(r.to_data() for r in records)
            # copied: a view may share lists with the game (Cribbage's show), which the next action changes
            steps.append(copy.deepcopy({"seat": actor, "events": [r.for_seat(seat) for r in records],
                                        "view": game.view(seat)}))
    except (EngineError, KeyError, TypeError, ValueError) as exc:
        raise ReplayMismatch(f"the round does not replay ({exc})") from None
    if json.loads(json.dumps(produced)) != list(recorded):  # the record was stored as JSON
        raise ReplayMismatch("the round replays differently from what was recorded")
    return steps
