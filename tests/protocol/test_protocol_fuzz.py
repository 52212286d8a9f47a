"""The invariant: any bytes in -> messages or a ProtocolError, nothing else."""

from __future__ import annotations

import struct

import msgpack
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import messages as m
from protocol.connection import Connection
from protocol.errors import ProtocolError, RemoteProtocolError
from protocol.framing import FrameDecoder

from protocol_strategies import messages, opaque_values

FUZZ = settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)


def drain(decoder: FrameDecoder) -> int:
    """Pull every frame through from_wire; return how many were accepted."""
    accepted = 0
    for _ in range(10_000):
        try:
            frame = decoder.next_frame()
        except RemoteProtocolError:
            if decoder.failed:
                return accepted
            continue  # a bad body spoils only its own frame
        if frame is None:
            return accepted
        try:
            assert isinstance(m.from_wire(frame), m.Message)
            accepted += 1
        except RemoteProtocolError:
            pass
    raise AssertionError("decoder never ran dry")


def feed_all(chunks: list[bytes], **kw) -> None:
    decoder = FrameDecoder(**kw)
    for chunk in chunks:
        decoder.feed(chunk)
        drain(decoder)
    try:
        decoder.eof()
    except RemoteProtocolError:
        pass


@FUZZ
@given(st.binary(max_size=2000))
def test_arbitrary_bytes(data):
    feed_all([data])
    feed_all([data], max_frame_size=64)


def _framed_bodies() -> st.SearchStrategy[bytes]:
    # Bodies with a correct length prefix, so the fuzz reaches msgpack and from_wire.
    return st.binary(min_size=1, max_size=300).map(lambda b: struct.pack(">I", len(b)) + b)


@FUZZ
@given(st.lists(_framed_bodies(), max_size=6), st.data())
def test_well_framed_garbage(bodies, data):
    stream = b"".join(bodies)
    cut = data.draw(st.integers(0, len(stream)))
    feed_all([stream[:cut], stream[cut:]])


# Maps that look like messages: a real type, real and random field names, values
# of every wire type. They reach deep into the field validation.
_field_names = st.sampled_from(
    sorted({f for cls in m.MESSAGE_TYPES.values() for f in cls._fields} | {"type", "kind", "x"})
)
_looks_like_message = st.builds(
    lambda t, fields: {"type": t, **fields},
    st.sampled_from(sorted(m.MESSAGE_TYPES)) | st.text(max_size=5) | opaque_values(),
    st.dictionaries(_field_names, opaque_values(12) | st.dictionaries(_field_names, opaque_values())),
)


@FUZZ
@given(_looks_like_message)
def test_message_shaped_maps(obj):
    try:
        data = msgpack.packb(obj, use_bin_type=True)
    except (ValueError, OverflowError):
        return
    feed_all([struct.pack(">I", len(data)) + data])
    try:
        m.from_wire(obj)
    except RemoteProtocolError:
        pass


@FUZZ
@given(messages(), st.data())
def test_mutated_valid_frames(msg, data):
    wire = bytearray(m.encode(msg))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(wire) - 1))
        wire[i] = data.draw(st.integers(0, 255))
    feed_all([bytes(wire)])


@FUZZ
@given(st.lists(st.binary(max_size=200) | messages().map(m.encode), max_size=6))
def test_connections_only_raise_protocol_errors(chunks):
    for role in ("server", "client"):
        conn = Connection(role)  # type: ignore[arg-type]
        if role == "client":
            conn.send(m.Hello(id=1, version=m.PROTOCOL_VERSION, name="fuzz"))
        for chunk in chunks:
            conn.receive_data(chunk)
            try:
                for msg in conn:
                    assert isinstance(msg, m.Message)
            except ProtocolError:
                break
