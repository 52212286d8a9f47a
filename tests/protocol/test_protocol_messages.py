"""Messages: round trips for every type, and every way a map can be wrong."""

from __future__ import annotations

import dataclasses

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import messages as m
from protocol.errors import LocalProtocolError, ProtocolError, RemoteProtocolError
from protocol.framing import FrameDecoder, encode_frame

from protocol_strategies import for_class, messages

ALL_TYPES = sorted(m.MESSAGE_TYPES)


# ---------------------------------------------------------------------------
# Registry
# ---------------------------------------------------------------------------


def test_registry_names_every_required_message():
    client = {
        "hello", "list_tables", "create_table", "join", "watch", "leave", "start",
        "add_bot", "remove_bot", "end_game", "act", "sit_out", "seed_commit", "client_seed", "chat", "history", "ping",
        "past_rounds", "past_games", "replay", "leaderboard", "set_hidden", "offer_rematch", "answer_rematch",
        "stats", "mute", "mutes", "remove_player", "notices", "list_online", "invite",
    }
    server = {"welcome", "ok", "error", "tables", "view", "event", "chat_message", "notice", "bye", "online",
              "invitation"}
    assert m.CLIENT_MESSAGE_TYPES == client
    assert m.SERVER_MESSAGE_TYPES == server
    assert set(m.MESSAGE_TYPES) == client | server
    for name, cls in m.MESSAGE_TYPES.items():
        assert cls.type == name
        assert dataclasses.is_dataclass(cls)
        with pytest.raises(dataclasses.FrozenInstanceError):  # frozen (by _Struct's methods, not the dataclass's)
            object.__new__(cls).type = name
        if cls.sender == "client":
            assert issubclass(cls, m.Request)
            assert "id" in cls._fields  # every request carries an id


def test_the_protocol_declares_no_game():
    """Actions, rules and cards are the games' (engine.games): the protocol names none of them."""
    for gone in ("ACTION_KINDS", "Action", "parse_action", "CARD", "Cut", "Discard", "Split"):
        assert not hasattr(m, gone), gone
    assert set(m.TableSettings._fields) == {"game", "seats", "rules"}


def test_messages_are_frozen():
    msg = m.Ping(id=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        msg.id = 2  # type: ignore[misc]


def test_messages_take_keyword_values_and_compare_by_them():
    hello = m.Hello(id=1, version=2, name="Ann")
    assert hello == m.Hello(id=1, version=2, name="Ann", token=None) and hello != m.Hello(id=1, version=2, name="Bo")
    assert hash(m.Ping(id=3)) == hash(m.Ping(id=3)) and m.Ping(id=3) != m.Ok(id=3)
    assert repr(hello) == "Hello(id=1, version=2, name='Ann', token=None, client=None)"
    assert dataclasses.replace(hello, name="Bo").name == "Bo"
    for bad in (lambda: m.Ping(), lambda: m.Ping(id=1, seat=2), lambda: m.Ping(1)):  # type: ignore[call-arg]
        with pytest.raises(TypeError):
            bad()
    with pytest.raises(LocalProtocolError):
        dataclasses.replace(hello, name="x" * 65)  # checked like any construction


def test_message_classes_have_no_methods_of_their_own_to_compile():
    """Start-up (issue 12 item 13): a dataclass compiles __init__, __repr__, __eq__, __hash__, __setattr__ and
    __delattr__ for each class, ~25 ms for the protocol's ~40 before a client could paint anything."""
    for cls in [*m.MESSAGE_TYPES.values(), m.TableSettings, m.PlayerSummary, m.TableSummary]:
        own = {"__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"} & set(vars(cls))
        assert not own, (cls.__name__, own)


# ---------------------------------------------------------------------------
# Round trips (hypothesis, strategies derived from the field specs)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_TYPES)
@settings(max_examples=40)
@given(data=st.data())
def test_round_trip_every_message_type(name, data):
    msg = data.draw(for_class(m.MESSAGE_TYPES[name]))
    wire = m.encode(msg)
    decoder = FrameDecoder()
    decoder.feed(wire)
    frame = decoder.next_frame()
    assert decoder.next_frame() is None
    assert m.from_wire(frame) == msg
    assert m.decode(wire) == msg
    assert m.from_wire(msg.to_wire()) == msg
    # The wire map is plain data: msgpack alone reproduces it.
    assert msgpack.unpackb(wire[4:], raw=False) == msgpack.unpackb(
        msgpack.packb(msg.to_wire()), raw=False
    )


@given(for_class(m.Act))
def test_an_action_is_an_opaque_map_with_a_kind(act):
    assert m.decode(m.encode(act)) == act and isinstance(act.action["kind"], str)


@given(st.lists(messages(), max_size=5))
def test_many_messages_in_one_chunk(msgs):
    decoder = FrameDecoder()
    decoder.feed(b"".join(m.encode(x) for x in msgs))
    assert [m.from_wire(f) for f in decoder] == msgs


def test_to_wire_writes_type_first_and_every_field():
    wire = m.Hello(id=3, version=2, name="Ann").to_wire()
    assert list(wire) == ["type", "id", "version", "name", "token", "client"]
    split = {"kind": "split", "down": ["AS", "2S", "3S", "4S"], "back": ["5S", "6S", "7S"]}
    assert m.Act(id=1, action=split).to_wire() == {"type": "act", "id": 1, "action": split}
    view = m.View(table_id="t1", table={"seat": 0})
    assert view.to_wire() == {"type": "view", "table_id": "t1", "table": {"seat": 0}, "game": None,
                              "decision": None, "deadline_ms": None}


def test_lists_are_stored_as_tuples():
    view = m.from_wire({"type": "view", "table_id": "t1", "table": {}, "decision": [1, "play", 0, "draw"]})
    assert view.decision == (1, "play", 0, "draw")


def test_nested_records_accept_maps_when_built_locally():
    msg = m.CreateTable(id=1, name="t", settings={"rules": {"ante": 5}})
    assert msg.settings == m.TableSettings(game="down-and-back", rules={"ante": 5})
    assert msg.settings.seats is None  # left out: the most the game seats


# ---------------------------------------------------------------------------
# Defaults and nil
# ---------------------------------------------------------------------------


def test_omitted_optional_fields_take_defaults():
    hello = m.from_wire({"type": "hello", "id": 1, "version": 2, "name": "Ann"})
    assert hello.token is None and hello.client is None
    create = m.from_wire({"type": "create_table", "id": 2, "name": "t"})
    assert create.settings == m.TableSettings()
    assert create.private_code is None
    assert m.from_wire({"type": "history", "id": 3}).limit == 10
    assert m.from_wire({"type": "ok", "id": 4}).result == {}
    assert m.from_wire({"type": "error", "code": "bad_frame", "message": "x"}).id is None
    assert m.from_wire({"type": "act", "id": 5, "action": {"kind": "cut"}}).action == {"kind": "cut"}
    settings = m.from_wire({"type": "create_table", "id": 2, "name": "t", "settings": {"seats": 3}}).settings
    assert settings == m.TableSettings(game=m.DEFAULT_GAME, seats=3, rules={})
    view = m.from_wire({"type": "view", "table_id": "t1", "table": {}})
    assert (view.game, view.decision, view.deadline_ms) == (None, None, None)


def test_explicit_nil_only_where_allowed():
    assert m.from_wire({"type": "hello", "id": 1, "version": 1, "name": "A", "token": None}).token is None
    assert m.from_wire({"type": "join", "id": 1, "table_id": "t1", "seat": None}).seat is None
    for bad in (
        {"type": "history", "id": 3, "limit": None},
        {"type": "create_table", "id": 2, "name": "t", "settings": None},
        {"type": "ok", "id": 4, "result": None},
        {"type": "hello", "id": None, "version": 1, "name": "A"},
        {"type": "chat", "id": 1, "text": None},
    ):
        with pytest.raises(RemoteProtocolError) as info:
            m.from_wire(bad)
        assert info.value.code == "bad_message"
        assert "got nil" in info.value.message


# ---------------------------------------------------------------------------
# Rejections: every one is a RemoteProtocolError with a documented code
# ---------------------------------------------------------------------------

HELLO = {"type": "hello", "id": 1, "version": 1, "name": "Ann"}


def reject(obj, code, field=None):
    with pytest.raises(RemoteProtocolError) as info:
        m.from_wire(obj)
    assert info.value.code == code, info.value
    if field is not None:
        assert info.value.field == field, info.value
    return info.value


def test_unknown_type():
    err = reject({"type": "teleport", "id": 1}, "unknown_type", "type")
    assert "teleport" in err.message
    assert err.request_id == 1


def test_missing_or_bad_type():
    reject({"id": 1}, "bad_message", "type")
    reject({"type": 1, "id": 1}, "bad_message", "type")
    reject({"type": None}, "bad_message", "type")
    reject({"type": ["hello"]}, "bad_message", "type")  # unhashable: still a clean error


def test_not_a_map():
    for obj in ([1, 2], 3, "hello", None, b"x"):
        reject(obj, "bad_message")


def test_missing_field():
    err = reject({"type": "hello", "id": 1, "version": 1}, "bad_message", "name")
    assert "missing field 'name'" in err.message


def test_extra_field():
    err = reject({**HELLO, "admin": True}, "bad_message", "admin")
    assert "unexpected field 'admin'" in err.message
    reject({"type": "create_table", "id": 1, "name": "t", "settings": {"ante": 1}}, "bad_message", "settings.ante")


def test_bool_is_not_an_int():
    err = reject({**HELLO, "id": True}, "bad_message", "id")
    assert err.message == "id must be an integer, got bool"
    reject({"type": "remove_bot", "id": 1, "seat": False}, "bad_message", "seat")
    reject({"type": "create_table", "id": 1, "name": "t", "settings": {"seats": True}}, "bad_message",
           "settings.seats")


def test_float_is_not_an_int_and_int_is_not_a_bool():
    reject({**HELLO, "version": 1.0}, "bad_message", "version")
    reject({"type": "sit_out", "id": 1, "away": 1}, "bad_message", "away")


def test_wrong_scalar_types():
    reject({**HELLO, "name": 5}, "bad_message", "name")
    reject({**HELLO, "name": ["Ann"]}, "bad_message", "name")
    reject({"type": "join", "id": 1, "table_id": 7}, "bad_message", "table_id")
    reject({"type": "chat", "id": 1, "text": {"t": "hi"}}, "bad_message", "text")
    reject({"type": "act", "id": 1, "action": "take_stock"}, "bad_message", "action")
    reject({"type": "tables", "tables": {}}, "bad_message", "tables")


def test_binary_is_not_a_string_when_called_directly():
    # On the wire bin never gets this far (framing rejects it); from_wire on a
    # hand-built map still says clearly what is wrong.
    err = reject({**HELLO, "name": b"Ann"}, "bad_message", "name")
    assert "binary" in err.message


def test_ranges():
    reject({**HELLO, "id": -1}, "bad_message", "id")
    reject({**HELLO, "id": 2**32}, "bad_message", "id")
    reject({**HELLO, "version": 70000}, "bad_message", "version")
    reject({"type": "remove_bot", "id": 1, "seat": m.MAX_SEATS}, "bad_message", "seat")
    reject({"type": "history", "id": 1, "limit": 0}, "bad_message", "limit")
    reject({"type": "history", "id": 1, "limit": 101}, "bad_message", "limit")
    for settings_map, field in (  # a game's own limits are the game's to check (bad_settings)
        ({"seats": 0}, "settings.seats"),
        ({"seats": m.MAX_SEATS + 1}, "settings.seats"),
        ({"seats": True}, "settings.seats"),
        ({"rules": []}, "settings.rules"),
        ({"game": "Down and Back"}, "settings.game"),
    ):
        reject({"type": "create_table", "id": 1, "name": "t", "settings": settings_map}, "bad_message", field)
    # Numbers far outside any range are just out of range.
    reject({**HELLO, "id": 2**64 - 1}, "bad_message", "id")


def test_string_length_limits():
    err = reject({**HELLO, "name": "x" * 65}, "too_long", "name")
    assert "65" in err.message and "64" in err.message
    assert m.from_wire({**HELLO, "name": "é" * 64}).name == "é" * 64  # code points, not bytes
    reject({"type": "chat", "id": 1, "text": "x" * 1001}, "too_long", "text")
    reject({"type": "chat", "id": 1, "text": ""}, "bad_message", "text")
    reject({"type": "join", "id": 1, "table_id": "t", "private_code": "c" * 33}, "too_long", "private_code")
    reject({"type": "error", "id": None, "code": "x", "message": "m" * 1001}, "too_long", "message")


def test_formats():
    reject({"type": "join", "id": 1, "table_id": "has space"}, "bad_message", "table_id")
    reject({"type": "join", "id": 1, "table_id": ""}, "bad_message", "table_id")
    reject({"type": "join", "id": 1, "table_id": "t" * 33}, "too_long", "table_id")  # over its length (§3.1)
    reject({"type": "join", "id": 1, "table_id": "t!" * 17}, "too_long", "table_id")  # ... before its characters
    reject({**HELLO, "token": "not/a token"}, "bad_message", "token")
    reject({"type": "error", "code": "Bad-Code", "message": ""}, "bad_message", "code")
    reject({"type": "bye", "reason": "", "message": ""}, "bad_message", "reason")
    summary = {"table_id": "t1", "name": "n", "title": "Down and Back", "host": None, "seats": 4, "players": [],
               "settings": {}, "state": "sleeping", "private": False, "spectators": 0}
    reject({"type": "tables", "tables": [summary]}, "bad_message", "tables[0].state")
    reject({"type": "view", "table_id": "t1", "table": {}, "decision": [[1]]}, "bad_message", "decision[0]")


def test_action_shapes():
    """The protocol checks an action's shape and size only; its kinds and fields are the game's."""
    reject({"type": "act", "id": 1, "action": {}}, "bad_message", "action.kind")
    reject({"type": "act", "id": 1, "action": {"kind": 3}}, "bad_message", "action.kind")
    reject({"type": "act", "id": 1, "action": {"kind": "Fold"}}, "bad_message", "action.kind")
    reject({"type": "act", "id": 1, "action": [{"kind": "cut"}]}, "bad_message", "action")
    keys = {f"k{i}": i for i in range(m.MAX_ACTION_KEYS)}
    reject({"type": "act", "id": 1, "action": {"kind": "x", **keys}}, "too_long", "action")
    assert m.from_wire({"type": "act", "id": 1, "action": {"kind": "fold", "card": "ZZ"}}).action["kind"] == "fold"


def test_list_length_limits():
    event = {"kind": "dealt"}
    reject({"type": "event", "table_id": "t1", "events": []}, "bad_message", "events")
    reject({"type": "event", "table_id": "t1", "events": [event] * 201}, "too_long", "events")
    reject({"type": "event", "table_id": "t1", "events": [{"seat": 1}]}, "bad_message", "events[0].kind")
    reject({"type": "event", "table_id": "t1", "events": [{"kind": 1}]}, "bad_message", "events[0].kind")
    player = {"seat": 0, "name": "a", "bot": False, "connected": True}
    table = {"table_id": "t1", "name": "n", "title": "", "host": "a", "seats": 5, "players": [player] * 9,
             "settings": {}, "state": "waiting", "private": False, "spectators": 0}
    reject({"type": "tables", "tables": [table]}, "too_long", "tables[0].players")


def test_opaque_maps_are_checked_when_called_directly():
    reject({"type": "ok", "id": 1, "result": {1: "x"}}, "bad_message", "result")
    reject({"type": "view", "table_id": "t", "table": {"x": float("nan")}}, "bad_message", "table")
    deep: dict = {}
    node = deep
    for _ in range(20):
        node["x"] = {}
        node = node["x"]
    reject({"type": "view", "table_id": "t", "table": {}, "game": deep}, "bad_message", "game")


def test_request_id_is_recovered_for_the_error_reply():
    assert reject({**HELLO, "id": 42, "name": 5}, "bad_message").request_id == 42
    assert reject({"type": "nope", "id": 9}, "unknown_type").request_id == 9
    assert reject({**HELLO, "id": True}, "bad_message").request_id is None
    assert reject({"type": "ping"}, "bad_message").request_id is None


def test_error_messages_never_echo_huge_input():
    err = reject({"type": "x" * 50_000}, "unknown_type")
    assert len(err.message) < 100
    err = reject({"type": "join", "id": 1, "table_id": "!" * 30}, "bad_message")
    assert len(err.message) < 200


# ---------------------------------------------------------------------------
# Local construction: our own bugs are LocalProtocolError
# ---------------------------------------------------------------------------


def test_building_an_invalid_message_is_a_local_error():
    with pytest.raises(LocalProtocolError) as info:
        m.Hello(id=True, version=1, name="A")
    assert info.value.code == "bad_message"
    with pytest.raises(LocalProtocolError) as info:
        m.Chat(id=1, text="x" * 1001)
    assert info.value.code == "too_long"
    with pytest.raises(LocalProtocolError):
        m.View(table_id="t", table={}, game={"bad": b"bytes"})
    with pytest.raises(LocalProtocolError):
        m.Act(id=1, action={"kind": "Fly"})
    with pytest.raises(TypeError):
        m.Ping(1)  # keyword-only


def test_encode_rejects_non_messages_and_oversized_messages():
    with pytest.raises(LocalProtocolError):
        m.encode({"type": "ping", "id": 1})  # type: ignore[arg-type]
    big = m.View(table_id="t", table={"blob": "x" * 70_000})
    with pytest.raises(LocalProtocolError) as info:
        m.encode(big)
    assert info.value.code == "frame_too_large"


def test_local_construction_normalises_int_and_str_subclasses():
    import enum

    class Seat(enum.IntEnum):
        TWO = 2

    class Kind(str, enum.Enum):
        T = "t1"

    msg = m.Join(id=1, table_id=Kind.T, seat=Seat.TWO)
    assert type(msg.seat) is int and type(msg.table_id) is str
    assert m.decode(m.encode(msg)) == msg


def test_error_from_exception():
    exc = RemoteProtocolError("bad_message", "x" * 2000, request_id=5)
    reply = m.Error.from_exception(exc)
    assert reply.id == 5 and reply.code == "bad_message" and len(reply.message) == 1000
    assert m.Error.from_exception(RemoteProtocolError("bad_frame", "no")).id is None


def test_decode_requires_exactly_one_frame():
    one = m.encode(m.Ping(id=1))
    assert m.decode(one) == m.Ping(id=1)
    for data in (b"", one[:-1], one + one, one + b"\x00"):
        with pytest.raises(RemoteProtocolError) as info:
            m.decode(data)
        assert info.value.code == "bad_frame"


def test_protocol_errors_are_exceptions_with_codes():
    err = RemoteProtocolError("bad_frame", "nope")
    assert isinstance(err, ProtocolError) and isinstance(err, Exception)
    assert str(err) == "bad_frame: nope"
    assert not issubclass(LocalProtocolError, RemoteProtocolError)


def test_encode_frame_of_wire_map_equals_encode():
    msg = m.Welcome(id=1, version=1, server="dab 0.1", player_id="p1", token="tok", resumed=False)
    assert encode_frame(msg.to_wire()) == m.encode(msg)
