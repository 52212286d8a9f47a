"""Connection: the handshake table, version negotiation, and a whole session."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import messages as m
from protocol.connection import MAY_SEND, TRANSITIONS, Connection, State, server_version_in
from protocol.errors import LocalProtocolError, RemoteProtocolError

from protocol_strategies import for_class

HELLO = m.Hello(id=1, version=m.PROTOCOL_VERSION, name="Ann")
WELCOME = m.Welcome(id=1, version=m.PROTOCOL_VERSION, server="dab-server 0.1", player_id="p1",
                    token="tok-123", resumed=False)


def pair() -> tuple[Connection, Connection]:
    return Connection("client"), Connection("server")


def deliver(sender: Connection, receiver: Connection, msg: m.Message) -> m.Message:
    receiver.receive_data(sender.send(msg))
    got = receiver.next_message()
    assert got == msg
    return got


def greeted() -> tuple[Connection, Connection]:
    client, server = pair()
    deliver(client, server, HELLO)
    deliver(server, client, WELCOME)
    assert client.state is server.state is State.READY
    return client, server


def server_receives(data: bytes) -> RemoteProtocolError:
    server = Connection("server")
    server.receive_data(data)
    with pytest.raises(RemoteProtocolError) as info:
        server.next_message()
    return info.value


# ---------------------------------------------------------------------------
# Handshake
# ---------------------------------------------------------------------------


def test_handshake():
    client, server = pair()
    assert client.state is server.state is State.START
    deliver(client, server, HELLO)
    assert server.hello == HELLO and client.hello == HELLO
    assert client.state is server.state is State.GREETING
    deliver(server, client, WELCOME)
    assert client.state is server.state is State.READY


def test_message_before_hello_is_rejected():
    err = server_receives(m.encode(m.ListTables(id=3)))
    assert err.code == "hello_required"
    assert "hello" in err.message and "list_tables" in err.message
    assert err.request_id == 3


def test_client_cannot_send_before_hello():
    client = Connection("client")
    with pytest.raises(LocalProtocolError) as info:
        client.send(m.Ping(id=1))
    assert info.value.code == "hello_required"
    assert client.state is State.START


def test_version_mismatch_names_both_versions():
    old = Connection("client", version=1)
    err = server_receives(old.send(m.Hello(id=4, version=1, name="Zed")))
    assert err.code == "version_mismatch"
    assert err.message == "server speaks protocol 2, client sent 1"
    assert err.request_id == 4
    assert server_version_in(err.message) == 2  # so a client can say which side is older
    assert server_version_in("server speaks protocol 1, client sent 2") == 1  # as a version 1 server words it
    assert server_version_in("no versions here") is None
    # And the server can still tell the client before closing.
    server = Connection("server")
    server.receive_data(m.encode(m.Hello(id=4, version=1, name="Zed")))
    with pytest.raises(RemoteProtocolError) as info:
        server.next_message()
    reply = m.decode(server.send(m.Error.from_exception(info.value)))
    assert reply == m.Error(id=4, code="version_mismatch", message="server speaks protocol 2, client sent 1")
    assert m.decode(server.send(m.Bye(reason="protocol_error", message="bye"))).type == "bye"
    assert server.closed


def test_client_refuses_a_welcome_from_another_version():
    client = Connection("client")
    client.send(HELLO)
    client.receive_data(m.encode(m.Welcome(id=1, version=3, server="s", player_id="p", token="t",
                                           resumed=False)))
    with pytest.raises(RemoteProtocolError) as info:
        client.next_message()
    assert info.value.code == "version_mismatch"
    assert info.value.message == "client speaks protocol 2, server sent 3"


def test_sending_the_wrong_version_is_a_local_error():
    with pytest.raises(LocalProtocolError) as info:
        Connection("client").send(m.Hello(id=1, version=1, name="A"))
    assert info.value.code == "version_mismatch"


def test_second_hello_is_rejected():
    client, server = greeted()
    server.receive_data(m.encode(m.Hello(id=2, version=1, name="Ann")))
    with pytest.raises(RemoteProtocolError) as info:
        server.next_message()
    assert info.value.code == "already_greeted"
    assert info.value.request_id == 2
    with pytest.raises(LocalProtocolError) as info2:
        client.send(m.Hello(id=2, version=1, name="Ann"))
    assert info2.value.code == "already_greeted"


def test_second_hello_before_welcome_is_rejected_too():
    client, server = pair()
    server.receive_data(m.encode(HELLO) + m.encode(m.Hello(id=2, version=1, name="B")))
    assert server.next_message() == HELLO
    with pytest.raises(RemoteProtocolError) as info:
        server.next_message()
    assert info.value.code == "already_greeted"


def test_requests_may_follow_hello_before_welcome_arrives():
    client, server = pair()
    server.receive_data(client.send(HELLO) + client.send(m.ListTables(id=2)))
    assert server.next_message() == HELLO
    server.send(WELCOME)
    assert server.next_message() == m.ListTables(id=2)


def test_server_may_not_push_before_welcome():
    server = Connection("server")
    with pytest.raises(LocalProtocolError) as info:
        server.send(m.Tables(tables=[]))
    assert info.value.code == "hello_required"
    server.receive_data(m.encode(HELLO))
    server.next_message()
    with pytest.raises(LocalProtocolError):
        server.send(m.Ok(id=1))
    server.send(WELCOME)
    server.send(m.Ok(id=1))
    with pytest.raises(LocalProtocolError) as info:
        server.send(WELCOME)
    assert info.value.code == "already_greeted"


def test_client_rejects_push_before_welcome():
    client = Connection("client")
    client.send(HELLO)
    client.receive_data(m.encode(m.View(table_id="t1", table={})))
    with pytest.raises(RemoteProtocolError) as info:
        client.next_message()
    assert info.value.code == "hello_required"


def test_client_accepts_error_and_bye_before_welcome():
    client = Connection("client")
    client.receive_data(m.encode(m.Bye(reason="shutting_down", message="restart")))
    assert client.next_message().type == "bye"
    assert client.closed
    client = Connection("client")
    client.send(HELLO)
    client.receive_data(m.encode(m.Error(id=1, code="server_full", message="full")) +
                        m.encode(m.Bye(reason="server_full", message="full")))
    assert [x.type for x in client] == ["error", "bye"]
    assert client.closed


def test_welcome_must_answer_the_hello():
    client = Connection("client")
    client.send(HELLO)
    client.receive_data(m.encode(m.Welcome(id=99, version=m.PROTOCOL_VERSION, server="s", player_id="p", token="t",
                                           resumed=False)))
    with pytest.raises(RemoteProtocolError) as info:
        client.next_message()
    assert info.value.code == "bad_message"


def test_messages_in_the_wrong_direction():
    client, server = greeted()
    server.receive_data(m.encode(m.Ok(id=1)))
    with pytest.raises(RemoteProtocolError) as info:
        server.next_message()
    assert info.value.code == "unknown_type"
    client.receive_data(m.encode(m.Ping(id=1)))
    with pytest.raises(RemoteProtocolError) as info:
        client.next_message()
    assert info.value.code == "unknown_type"
    with pytest.raises(LocalProtocolError) as info2:
        Connection("server").send(HELLO)
    assert info2.value.code == "unknown_type"


# ---------------------------------------------------------------------------
# Errors and closing
# ---------------------------------------------------------------------------


def test_remote_errors_are_sticky_but_sending_still_works():
    client, server = greeted()
    server.receive_data(b"\x00\x00\x00\x01\xc1" + m.encode(m.Ping(id=5)))
    for _ in range(2):
        with pytest.raises(RemoteProtocolError) as info:
            server.next_message()
        assert info.value.code == "bad_frame"
    server.receive_data(m.encode(m.Ping(id=6)))  # dropped
    with pytest.raises(RemoteProtocolError):
        list(server)
    assert server.error is not None
    data = server.send(m.Error.from_exception(server.error))
    data += server.send(m.Bye(reason="protocol_error", message="bad frame"))
    client.receive_data(data)
    assert [x.type for x in client] == ["error", "bye"]
    assert client.closed and server.closed


def test_nothing_after_bye():
    client, server = greeted()
    client.receive_data(server.send(m.Bye(reason="idle", message="no ping for 60 s")) + b"garbage")
    assert client.next_message().type == "bye"
    assert client.next_message() is None
    client.receive_data(b"more garbage")
    assert client.next_message() is None
    with pytest.raises(LocalProtocolError) as info:
        server.send(m.Ok(id=1))
    assert info.value.code == "closed"
    with pytest.raises(LocalProtocolError):
        client.send(m.Ping(id=9))


def test_eof_mid_frame():
    server = Connection("server")
    server.receive_data(m.encode(HELLO)[:-2])
    assert server.next_message() is None
    with pytest.raises(RemoteProtocolError) as info:
        server.receive_eof()
    assert info.value.code == "bad_frame"
    with pytest.raises(RemoteProtocolError):
        server.next_message()
    clean = Connection("server")
    clean.receive_data(m.encode(HELLO))
    clean.receive_eof()
    assert clean.next_message() == HELLO


def test_frame_cap_applies_to_connections():
    server = Connection("server", max_frame_size=32)
    server.receive_data((1000).to_bytes(4, "big"))
    with pytest.raises(RemoteProtocolError) as info:
        server.next_message()
    assert info.value.code == "frame_too_large"


def test_send_rejects_non_messages():
    with pytest.raises(LocalProtocolError):
        Connection("client").send({"type": "hello"})  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        Connection("peer")  # type: ignore[arg-type]


# ---------------------------------------------------------------------------
# The table itself
# ---------------------------------------------------------------------------


def test_table_is_complete_and_consistent():
    for role in ("client", "server"):
        for state in State:
            assert (role, state) in MAY_SEND
            allowed = MAY_SEND[(role, state)]
            own = m.CLIENT_MESSAGE_TYPES if role == "client" else m.SERVER_MESSAGE_TYPES
            assert allowed <= own
    for (state, kind), new in TRANSITIONS.items():
        assert kind in MAY_SEND[("client", state)] | MAY_SEND[("server", state)]


@settings(max_examples=10)
@given(st.sampled_from(sorted(m.CLIENT_MESSAGE_TYPES - {"hello"})).flatmap(
    lambda kind: for_class(m.MESSAGE_TYPES[kind])))
def test_every_request_is_refused_before_hello(msg):
    err = server_receives(m.encode(msg))
    assert err.code == "hello_required"


# ---------------------------------------------------------------------------
# A whole session, as in docs/PROTOCOL.md
# ---------------------------------------------------------------------------


def test_example_session():
    client, server = pair()
    deliver(client, server, m.Hello(id=1, version=2, name="Ann", client="dab-client 0.1"))
    deliver(server, client, m.Welcome(id=1, version=2, server="dab-server 0.1", player_id="p7",
                                      token="q8Zx3vYc", resumed=False))
    deliver(client, server, m.ListTables(id=2))
    deliver(server, client, m.Ok(id=2, result={"tables": []}))
    deliver(client, server, m.CreateTable(id=3, name="Ann's table", settings=m.TableSettings(seats=3)))
    deliver(server, client, m.Ok(id=3, result={"table_id": "t1"}))
    summary = m.TableSummary(
        table_id="t1", name="Ann's table", title="Down and Back", host="Ann", seats=3,
        players=[m.PlayerSummary(seat=0, name="Ann", bot=False, connected=True)],
        settings=m.TableSettings(seats=3, rules={"ante": 10, "stack": 1000}), state="waiting", private=False,
        spectators=0,
    )
    deliver(server, client, m.Tables(tables=[summary]))
    deliver(client, server, m.AddBot(id=4))
    deliver(server, client, m.Ok(id=4, result={"seat": 1}))
    deliver(client, server, m.Start(id=5))
    deliver(server, client, m.Ok(id=5))
    table = {"table_id": "t1", "seat": 0, "members": [{"seat": 0, "name": "Ann", "bot": False, "connected": True,
                                                       "away": False}]}
    game = {
        "seat": 0, "phase": "play", "round": 1, "dealer": 1, "to_act": [0],
        "players": [{"seat": 0, "name": "Ann", "stack": 990, "cards": 7},
                    {"seat": 1, "name": "Bot 1", "stack": 990, "cards": 7}],
        "pot": 20, "stock_count": 37, "discard_pile": ["7D"], "round_discards": [],
        "hand": ["AS", "2S", "3S", "9H", "10H", "KD", "QC"],
        "legal": [{"kind": "take_stock"}, {"kind": "take_discard"}], "log": [],
    }
    view = deliver(server, client, m.View(table_id="t1", table=table, game=game, decision=[1, "play", 0, "draw"],
                                          deadline_ms=30000))
    assert view.decision == (1, "play", 0, "draw")
    deliver(client, server, m.Act(id=6, action=game["legal"][0]))
    deliver(server, client, m.Ok(id=6))
    deliver(server, client, m.Event(table_id="t1", events=[{"kind": "took_stock", "seat": 0}]))
    deliver(client, server, m.Act(id=7, action={"kind": "discard", "card": "9H"}))
    deliver(server, client, m.Error(id=7, code="not_your_turn", message="it is seat 1's turn"))
    deliver(client, server, m.Chat(id=8, text="gl"))
    deliver(server, client, m.ChatMessage(table_id="t1", seat=0, name="Ann", text="gl", ts=1_700_000_000_000))
    deliver(client, server, m.Ping(id=9))
    deliver(server, client, m.Ok(id=9))
    deliver(server, client, m.Bye(reason="shutting_down", message="server restarting"))
    assert client.closed and server.closed
