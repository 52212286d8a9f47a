"""A hostile client at a Cribbage table: every malformed or illegal action gets its documented error, changes nothing.

docs/games/cribbage.md §3: anything not in the action schema is ``bad_action``
(an unknown kind, a missing or extra field, a wrong type, a card not in the
notation, a ``cards`` list not of 1 or 2); a well-formed action not allowed now
is ``illegal_action`` or ``not_your_turn``. PROTOCOL.md: the table's own actions
sent in ``act`` are ``bad_action``. At each kind of decision (the draw's cut, the
laying away, the play, the muggins claim) Mallory sends them all; the game is
unchanged after each, and then the game plays on to its end.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from client.link import RequestFailed
from engine.errors import InvalidAction
from engine.games import GAMES
from protocol import messages as m
from scripted_cribbage import baseline, games_won, seat_table

MALFORMED = [
    {"kind": "go"},  # there is no go action
    {"kind": "take_stock"},  # Down and Back's
    {"kind": "start_round"}, {"kind": "end_game"}, {"kind": "set_away", "seat": 1, "away": True},  # the table's
    {"kind": "discard", "cards": []}, {"kind": "discard", "cards": ["AS", "2S", "3S"]},
    {"kind": "discard", "cards": "AS"}, {"kind": "discard"},
    {"kind": "play", "card": "1Z"}, {"kind": "play", "card": 7}, {"kind": "play"},
    {"kind": "play", "card": "AS", "extra": 1},
    {"kind": "cut", "position": "top"}, {"kind": "cut"},
    {"kind": "claim", "points": "six"}, {"kind": "claim"},
    {"kind": "muggins", "take": "yes"},
]


def not_allowed(view: dict[str, Any]) -> list[dict[str, Any]]:
    """Well-formed actions this view does not allow: out of every range, cards not held, past 31, the wrong
    number of cards, and a claim or a muggins decision when it is not their time."""
    hand = view["hand"]
    absent = next(c for c in ("AS", "KH", "7D", "QC", "2H", "9S") if c not in hand)
    kinds = {entry["kind"]: entry for entry in view["legal"]}
    attacks = [{"kind": "cut", "position": 1}, {"kind": "cut", "position": 52},
               {"kind": "play", "card": absent}, {"kind": "discard", "cards": [absent]},
               {"kind": "claim", "points": 30}, {"kind": "claim", "points": -1}]
    attacks += [a for a in ({"kind": "claim", "points": 3}, {"kind": "muggins", "take": True}) if a["kind"] not in kinds]
    if "discard" in kinds:
        wrong_count = 3 - kinds["discard"]["count"]
        attacks += [{"kind": "discard", "cards": hand[:wrong_count]}, {"kind": "discard", "cards": [hand[0]] * 2}]
    if "play" in kinds:
        attacks += [{"kind": "play", "card": c} for c in hand if c not in kinds["play"]["cards"]]  # past 31
    return attacks


async def test_malformed_and_illegal_actions_get_their_documented_errors_and_change_nothing(server, connect):
    async with connect("mallory") as mallory:
        table_id = await seat_table([mallory], 2, bots=1, muggins=True)  # to 121: deals enough for a card past 31
        table = server.lobby.tables[table_id]
        tried: set[str] = set()

        async def attack(client, view: dict[str, Any]) -> dict[str, Any]:
            entry = view["legal"][0]
            kind = entry["kind"]
            past_31 = kind == "play" and set(view["hand"]) - set(entry["cards"])
            if kind not in tried or (past_31 and "past 31" not in tried):
                tried.update({kind} | ({"past 31"} if past_31 else set()))
                for action in MALFORMED + not_allowed(view):
                    before = table.game.to_data()
                    with pytest.raises(RequestFailed) as info:
                        await mallory.act(action)
                    expected = {"bad_action"} if action in MALFORMED else {"illegal_action", "not_your_turn"}
                    assert info.value.code in expected, (action, info.value.code, info.value.message)
                    assert table.game.to_data() == before, action
            return baseline(client, view)

        def over() -> bool:
            return mallory.facts[table.table_id]["state"] == "finished"

        def to_act() -> dict[str, Any] | None:  # this table's view, when it asks Mallory for something
            view = mallory.views.get(table.table_id, {})
            return view if view.get("legal") else None

        async def play() -> None:
            """Until a game is won and a card past 31 has come, which is by chance: a table lasts only while
            both can stake (three stakes brought), so when it is over first, a rematch deals on."""
            nonlocal table
            while not (games_won(mallory) and "past 31" in tried):
                view = await mallory.wait_for(lambda: over() or to_act())
                if view is True:
                    old = table.table_id
                    await mallory.request(m.OfferRematch)  # the bot accepts at once
                    new = await mallory.wait_for(lambda: next((t for t in mallory.facts if t != old), None))
                    table = server.lobby.tables[new]
                    continue
                await mallory.act(await attack(mallory, view))
                await mallory.wait_for(lambda: over() or mallory.views[table.table_id] is not view)

        await asyncio.wait_for(play(), 60)
        assert tried >= {"cut", "discard", "play", "past 31", "claim"}, tried
        assert await mallory.request(m.Ping) == {}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_an_action_missing_a_field_is_malformed_in_every_game(name):
    """A cut without its ``position`` used to be taken as a random cut: a nil field is sent as nil (the documents)."""
    game = GAMES[name]
    with pytest.raises(InvalidAction, match="missing field"):
        game.action_from_data({"kind": "cut"})
    assert game.action_from_data({"kind": "cut", "position": None}).to_data() == {"kind": "cut", "position": None}
