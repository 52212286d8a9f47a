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
split or a crib discard names cards nobody else has seen yet). The step of
the round's last action holds its ``deal_reveal`` too, as it was sent, and
every fair event carries the signature it was sent with (the stored one:
the engine holds no key), so a replayed round verifies like the live one.
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


def _unsigned(entry: Mapping[str, Any]) -> dict[str, Any]:
    return dict(entry, public={k: v for k, v in entry["public"].items() if k != "sig"})


def replay_steps(
    game_type: GameType, start: Mapping[str, Any], actions: Sequence[Sequence[Any]], recorded: Sequence[Any],
    seat: int | None, reveal: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Every step of a round as ``seat`` could see it then (``None``: as a spectator).

    ``start`` is the round's :func:`opening`, ``actions`` its ``[seat, action]``
    pairs and ``recorded`` the records the round produced (the round record's
    ``log``), which the replay must reproduce exactly, else :class:`ReplayMismatch`;
    ``reveal`` is its ``fair`` (the ``deal_reveal``'s data as stored, signed), which the
    replay's reveal must equal (``None``: not checked). A step is ``{"seat": actor or None, "events": [...], "view": {...}}``.
    """
    try:
        game = game_type.from_data(dict(start))
        steps = []
        produced = []
        for actor, data in actions:
            records = game.apply(actor, game_type.action_from_data(data))
            for record in records:
                if record.kind == REVEAL_KIND:  # told live, never logged: checked against the stored one
                    if reveal is not None:
                        stored = {k: v for k, v in reveal.items() if k != "sig"}
                        if stored != json.loads(json.dumps(record.public)):
                            raise ReplayMismatch("the round's reveal replays differently from what was recorded")
                        if reveal.get("sig"):
                            record.sign(reveal["sig"])
                    continue
                index = len(produced)
                produced.append(record.to_data())
                sig = recorded[index]["public"].get("sig") if index < len(recorded) else None
                if sig:
                    record.sign(sig)
            # copied: a view may share lists with the game (Cribbage's show), which the next action changes
            steps.append(copy.deepcopy({"seat": actor, "events": [r.for_seat(seat) for r in records],
                                        "view": game.view(seat)}))
    except (EngineError, KeyError, TypeError, ValueError) as exc:
        raise ReplayMismatch(f"the round does not replay ({exc})") from None
    if json.loads(json.dumps(produced)) != [_unsigned(r) for r in recorded]:  # the record was stored as JSON
        raise ReplayMismatch("the round replays differently from what was recorded")
    return steps
