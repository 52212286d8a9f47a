"""A table's settings: the game is their one judge; the server only fills in what the game says."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.games import GAMES
from protocol import messages as m
from server.errors import RequestError
from server.table import complete_settings, settings_to_store, stored_settings

VALUES = st.none() | st.booleans() | st.integers(-(2**63), 2**64) | st.floats() | st.text(max_size=8) | \
    st.lists(st.integers(), max_size=2)


@settings(max_examples=200, deadline=None)
@given(game=st.sampled_from(sorted(GAMES)) | st.text(max_size=8).filter(lambda t: t[:1].isalpha()),
       seats=st.none() | st.integers(1, m.MAX_SEATS),
       rules=st.dictionaries(st.sampled_from(["ante", "stack", "turns", "early_call", "no_take_back", "x"]),
                             VALUES, max_size=5))
def test_any_settings_are_completed_by_their_game_or_refused_as_bad_settings(game, seats, rules):
    """Whatever a client sends as ``rules`` (the protocol checks only that it is a map), the answer is the
    game's complete settings or ``bad_settings``: never another error (a traceback at a client's will)."""
    try:
        chosen = m.TableSettings(game=game.lower().replace(" ", "-")[:32] or "x", seats=seats, rules=rules)
    except m.LocalProtocolError:
        return  # not even a settings map: the protocol refuses it (bad_message)
    try:
        complete, rules_object = complete_settings(chosen)
    except RequestError as exc:
        assert exc.code == "bad_settings" and exc.message
        return
    game_type = GAMES[complete.game]
    assert complete.rules == rules_object.to_data() == game_type.settings(rules).to_data()
    assert set(complete.rules) == {f.name for f in game_type.setting_fields}
    assert game_type.min_seats <= complete.seats <= game_type.max_seats
    assert complete_settings(complete)[0] == complete  # complete settings stay as they are


def test_a_table_stored_by_a_version_1_server_reads_as_down_and_back():
    """Version 1 stored one flat map (Down and Back's rules and seats); the table comes back with the same terms."""
    v1 = {"ante": 25, "stack": 500, "seats": 3, "turns": 7, "early_call": True, "no_take_back": False}
    restored = stored_settings(v1, "down-and-back")
    assert restored == m.TableSettings(
        game="down-and-back", seats=3,
        rules={"ante": 25, "stack": 500, "turns": 7, "early_call": True, "no_take_back": False})
    assert stored_settings(settings_to_store(restored), "down-and-back") == restored  # what version 2 stores
    with pytest.raises(RequestError):
        stored_settings({**v1, "turns": 9}, "down-and-back")  # damaged: refused, never guessed
