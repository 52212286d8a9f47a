"""Down and Back's settings have one owner, its SETTING_FIELDS; the copies that remain must agree with it.

The protocol still declares the table settings field by field and the lobby
holds the server's default ante and stack, until the protocol takes a game's
settings from the game (issue 13's protocol step). Until then these tests
fail the moment either drifts from the engine.
"""

from __future__ import annotations

from engine.games import find_game
from protocol.messages import Bool, Int, Nullable, TableSettings
from server.lobby import LobbyConfig

GAME = find_game("down-and-back")


def wire_spec(name: str):
    spec = TableSettings._fields[name].spec
    return spec.inner if isinstance(spec, Nullable) else spec


def test_the_protocol_declares_the_engines_limits():
    for field in GAME.setting_fields:
        spec = wire_spec(field.name)
        if field.choices == (False, True):
            assert isinstance(spec, Bool), field.name
        elif field.choices is not None:
            assert isinstance(spec, Int) and tuple(spec.choices) == field.choices, field.name
        else:
            assert isinstance(spec, Int) and (spec.lo, spec.hi) == (field.minimum, field.maximum), field.name
    seats = wire_spec("seats")
    assert (seats.lo, seats.hi) == (GAME.min_seats, GAME.max_seats)
    assert TableSettings().seats == GAME.max_seats


def test_the_protocol_and_the_lobby_default_to_the_engines_defaults():
    defaults = GAME.settings().to_data()
    config = LobbyConfig()
    assert (config.default_ante, config.default_stack) == (defaults["ante"], defaults["stack"])
    wire = TableSettings()
    for name in ("turns", "early_call", "no_take_back"):
        assert getattr(wire, name) == defaults[name], name
