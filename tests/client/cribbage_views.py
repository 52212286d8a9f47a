"""Cribbage views for offline client tests, made by the engine itself from a seeded game played by bots.

Each function plays the same deterministic game until a moment a test wants
(mid-play with a count, just after the show, a game's end) and returns the
``view`` push a server would send seat 0 then.
"""

from __future__ import annotations

import copy
from typing import Any, Callable

from engine.contract import StartRound, Status
from engine.games.cribbage.gametype import CRIBBAGE
from engine.rng import HashRng
from protocol import messages as m

NAMES = ("Ann", "Bob")


def table_map(seat: int | None, settings: dict[str, Any], players: int = 2, state: str = "playing") -> dict[str, Any]:
    return {
        "table_id": "t1", "name": "Crib night", "title": "Cribbage",
        "settings": {"game": "cribbage", "seats": players, "rules": settings},
        "state": state, "host_seat": 0, "seat": seat,
        "members": [{"seat": s, "name": NAMES[s], "bot": s != 0, "connected": True, "away": False}
                    for s in range(players)],
        "spectators": 0, "private": False, "fixed_seed": False, "chip_history": None,
    }


def play_until(moment: Callable[[dict[str, Any]], bool], seed: bytes = b"crib2", limit: int = 5000,
               rules: dict[str, Any] | None = None) -> dict[str, Any]:
    """Seat 0's game view at the first moment ``moment(view)`` holds, the bots playing both seats."""
    game = CRIBBAGE.new(CRIBBAGE.settings(rules or {}), [(s, NAMES[s], 300) for s in range(2)], HashRng(seed))
    for _ in range(limit):
        if game.status == Status.BETWEEN_ROUNDS:
            game.apply(None, StartRound())
        else:
            seat = game.to_act()[0]
            game.apply(seat, CRIBBAGE.bot_action(game, seat))
        view = game.view(0)
        if moment(view):
            return copy.deepcopy(view)
    raise AssertionError("the moment never came")


def push(view: dict[str, Any], deadline_ms: int | None = None) -> m.View:
    decision = None if view["phase"] in ("waiting", "over") else (view["round"], view["phase"], len(view["log"]))
    state = "finished" if view["phase"] == "over" else "playing"
    return m.View(table_id="t1", table=table_map(view["seat"], view["settings"], view["players"], state),
                  game=view, decision=decision, deadline_ms=deadline_ms)


def mid_play() -> dict[str, Any]:
    """Our turn in the play, three cards into the count."""
    return play_until(lambda v: v["phase"] == "play" and len(v["series"]) == 3
                      and any(e["kind"] == "play" for e in v["legal"]))


def laying_away() -> dict[str, Any]:
    return play_until(lambda v: any(e["kind"] == "discard" for e in v["legal"]))


def after_show() -> dict[str, Any]:
    """The deal's show counted: both hands and the crib."""
    return play_until(lambda v: v["phase"] == "waiting" and len(v["show"]) == 3 and not v["result"])


def skunked_over() -> dict[str, Any]:
    """The table over after a game our seat won by a skunk (the last game's end as the engine words it)."""
    view = play_until(lambda v: v["phase"] == "waiting" and len(v["show"]) == 3 and not v["result"])
    view.update(phase="over", legal=[], to_act=[], turn=None, in_game=False)
    view["sides"] = [{"seats": [0], "score": 121, "back": 117}, {"seats": [1], "score": 84, "back": 80}]
    view["result"] = {"game": 1, "winners": [0], "scores": [121, 84],
                      "losses": [{"seat": 1, "chips": 200, "multiplier": 2}], "gains": [{"seat": 0, "chips": 200}]}
    view["standings"] = [{"seat": 0, "name": "Ann", "stack": 500, "brought": 300},
                         {"seat": 1, "name": "Bob", "stack": 100, "brought": 300}]
    return view


def claiming() -> dict[str, Any]:
    """Muggins: our count to claim in the show."""
    return play_until(lambda v: any(e["kind"] == "claim" for e in v["legal"]), rules={"muggins": True})


def deciding_muggins() -> dict[str, Any]:
    """Muggins: the other's claim fell short; we may take what it missed (the bots claim exactly, so the
    moment is the claiming one with Bob's claim in)."""
    view = claiming()
    view["counting"] = {**view["counting"], "seat": 1, "claimed": True}
    view.update(legal=[{"kind": "muggins"}], to_act=[0])
    return view


def game_won() -> dict[str, Any]:
    """A game won at a table that plays on (every stack above zero): the pause before the next game. (This
    seed's: Ann wins 127 to 88, a skunk, so Bob pays double.)"""
    return play_until(lambda v: v["phase"] == "waiting" and bool(v["result"]), seed=b"crib1", limit=20000)


def next_game_start() -> dict[str, Any]:
    """The next game's first moment that is not our decision (after :func:`game_won`: Ann has laid away, Bob
    has not)."""
    return play_until(lambda v: v["game"] == 2 and not v["legal"], seed=b"crib1", limit=20000)
