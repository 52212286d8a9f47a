"""Framing: the length prefix, the size cap, and every malformed body."""

from __future__ import annotations

import math
import struct

import msgpack
import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol import framing
from protocol import messages as m
from protocol.errors import LocalProtocolError, RemoteProtocolError
from protocol.framing import MAX_FRAME_SIZE, FrameDecoder, decode_body, encode_frame

from protocol_strategies import messages


def frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


def packed(obj, **kw) -> bytes:
    return frame(msgpack.packb(obj, use_bin_type=True, **kw))


def bad(data: bytes, code: str = "bad_frame", **decoder_kw) -> RemoteProtocolError:
    decoder = FrameDecoder(**decoder_kw)
    decoder.feed(data)
    with pytest.raises(RemoteProtocolError) as info:
        decoder.next_frame()
    assert info.value.code == code, info.value
    return info.value


# ---------------------------------------------------------------------------
# Good frames
# ---------------------------------------------------------------------------


def test_hex_example_from_the_spec():
    # docs/PROTOCOL.md shows exactly these bytes for {"type": "ping", "id": 1}.
    data = encode_frame({"type": "ping", "id": 1})
    assert data.hex(" ") == "00 00 00 0f 82 a4 74 79 70 65 a4 70 69 6e 67 a2 69 64 01"
    assert m.decode(data) == m.Ping(id=1)
    assert m.encode(m.Ping(id=1)) == data


def test_one_frame():
    decoder = FrameDecoder()
    decoder.feed(encode_frame({"a": 1}))
    assert decoder.next_frame() == {"a": 1}
    assert decoder.next_frame() is None
    decoder.eof()  # nothing pending: fine


@given(st.lists(messages(), min_size=1, max_size=6))
def test_one_byte_at_a_time(msgs):
    data = b"".join(m.encode(x) for x in msgs)
    decoder = FrameDecoder()
    out = []
    for i in range(len(data)):
        decoder.feed(data[i : i + 1])
        out.extend(decoder)
        assert decoder.buffered <= MAX_FRAME_SIZE + 4
    decoder.eof()
    assert [m.from_wire(f) for f in out] == msgs


@given(st.lists(messages(), min_size=1, max_size=6), st.data())
def test_frames_split_across_chunks(msgs, data):
    wire = b"".join(m.encode(x) for x in msgs)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(wire)), max_size=10)))
    decoder = FrameDecoder()
    out = []
    start = 0
    for cut in [*cuts, len(wire)]:
        decoder.feed(wire[start:cut])
        out.extend(decoder)
        start = cut
    assert [m.from_wire(f) for f in out] == msgs
    assert not decoder.incomplete


def test_feed_accepts_bytearray_and_memoryview():
    data = encode_frame({"a": "b"})
    for chunk in (bytearray(data), memoryview(data)):
        decoder = FrameDecoder()
        decoder.feed(chunk)
        assert decoder.next_frame() == {"a": "b"}


def test_frame_of_exactly_the_cap_is_accepted():
    body = msgpack.packb({"x": "y" * 100})
    decoder = FrameDecoder(max_frame_size=len(body))
    decoder.feed(frame(body))
    assert decoder.next_frame() == {"x": "y" * 100}


def test_allowed_value_types():
    obj = {"n": None, "b": True, "i": -(2**63), "u": 2**64 - 1, "f": 1.5, "s": "ü", "l": [1, [2]], "m": {"k": {}}}
    assert decode_body(msgpack.packb(obj)) == obj


# ---------------------------------------------------------------------------
# Length prefix problems (stream errors: sticky)
# ---------------------------------------------------------------------------


def test_zero_length():
    err = bad(b"\x00\x00\x00\x00")
    assert "zero" in err.message


def test_oversized_prefix_rejected_before_the_body():
    decoder = FrameDecoder()
    decoder.feed(struct.pack(">I", MAX_FRAME_SIZE + 1))  # the 4 prefix bytes only
    assert decoder.failed and decoder.buffered == 0
    with pytest.raises(RemoteProtocolError) as info:
        decoder.next_frame()
    assert info.value.code == "frame_too_large"
    assert str(MAX_FRAME_SIZE) in info.value.message
    # Sticky, and nothing more is buffered.
    decoder.feed(b"x" * 100_000)
    assert decoder.buffered == 0
    with pytest.raises(RemoteProtocolError):
        decoder.next_frame()
    with pytest.raises(RemoteProtocolError):
        decoder.eof()


def test_huge_prefix():
    bad(b"\xff\xff\xff\xff", "frame_too_large")


def test_cap_is_configurable_per_decoder():
    data = encode_frame({"x": "y" * 20})
    bad(data, "frame_too_large", max_frame_size=10)
    decoder = FrameDecoder(max_frame_size=len(data) - 4)
    decoder.feed(data)
    assert decoder.next_frame() == {"x": "y" * 20}
    with pytest.raises(ValueError):
        FrameDecoder(max_frame_size=0)


def test_good_frames_before_a_bad_prefix_are_still_delivered():
    decoder = FrameDecoder()
    decoder.feed(encode_frame({"a": 1}) + encode_frame({"b": 2}) + b"\x00\x00\x00\x00" + encode_frame({"c": 3}))
    assert decoder.next_frame() == {"a": 1}
    assert decoder.next_frame() == {"b": 2}
    with pytest.raises(RemoteProtocolError):
        decoder.next_frame()
    with pytest.raises(RemoteProtocolError):
        decoder.next_frame()


def test_buffering_is_bounded_even_for_one_huge_chunk():
    decoder = FrameDecoder(max_frame_size=1000)
    decoder.feed(struct.pack(">I", 1000) + b"\x00" * 999)
    assert decoder.buffered == 999
    decoder.feed(b"\x00" + struct.pack(">I", 5000) + b"y" * 50_000)
    assert decoder.buffered == 0 and decoder.failed and decoder.pending == 1


# ---------------------------------------------------------------------------
# Truncation
# ---------------------------------------------------------------------------


def test_truncated_frame_waits_then_eof_raises():
    data = encode_frame({"type": "ping", "id": 1})
    for n in range(1, len(data)):
        decoder = FrameDecoder()
        decoder.feed(data[:n])
        assert decoder.next_frame() is None
        assert decoder.incomplete
        with pytest.raises(RemoteProtocolError) as info:
            decoder.eof()
        assert info.value.code == "bad_frame"
        assert "middle of a frame" in info.value.message


# ---------------------------------------------------------------------------
# Bad bodies (frame-local: the next frame still decodes)
# ---------------------------------------------------------------------------


def test_reserved_byte_c1():
    bad(frame(b"\xc1"))


def test_body_is_truncated_msgpack():
    bad(frame(b"\x82\xa1a\x01"))  # a map of 2 with only one pair
    bad(frame(b"\xa5abc"))


def test_trailing_bytes_after_the_message():
    err = bad(frame(msgpack.packb({"a": 1}) + b"\x01"))
    assert "trailing" in err.message


@pytest.mark.parametrize("obj", [[1, 2], 5, "hello", None, True, 1.5])
def test_top_level_must_be_a_map(obj):
    err = bad(packed(obj))
    assert "must hold a map" in err.message


def test_integer_map_keys():
    bad(packed({1: 2}))
    bad(packed({"a": {2: 3}}))
    bad(packed({"a": [{None: 3}]}))


def test_binary_map_keys():
    bad(frame(b"\x81\xc4\x01a\x01"))


def test_a_repeated_key_keeps_its_last_value():
    """Documented: msgpack decodes a repeated key as the last value (no second meaning)."""
    decoder = FrameDecoder()
    decoder.feed(frame(b"\x82\xa1a\x01\xa1a\x02"))
    assert decoder.next_frame() == {"a": 2}


def test_invalid_utf8():
    err = bad(frame(b"\x81\xa1a\xa2\xff\xfe"))
    assert "UTF-8" in err.message
    bad(frame(b"\x81\xa2\xed\xa0\x01"))  # surrogate encoded in a key


def test_bin_where_str_expected():
    err = bad(packed({"type": b"hello", "id": 1}))
    assert "bin" in err.message
    bad(packed({"type": "chat", "id": 1, "text": b"hi"}))


def test_extension_types():
    bad(packed({"a": msgpack.ExtType(5, b"x")}))
    bad(packed({"a": msgpack.Timestamp(0)}))
    bad(frame(b"\x81\xa1a\xd6\xff\x00\x00\x00\x00"))


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_floats(value):
    err = bad(packed({"a": value}))
    assert "finite" in err.message
    bad(packed({"a": value}, use_single_float=True))


def test_depth_limit_exact():
    def nested(levels):
        obj: object = 1
        for _ in range(levels):
            obj = [obj]
        return {"a": obj}

    ok = FrameDecoder()
    ok.feed(packed(nested(framing.MAX_DEPTH - 1)))  # top map + 15 arrays = depth 16
    assert ok.next_frame() is not None
    err = bad(packed(nested(framing.MAX_DEPTH)))
    assert "deeper than 16" in err.message
    shallow = FrameDecoder(max_depth=2)
    shallow.feed(packed({"a": [1]}))
    assert shallow.next_frame() == {"a": [1]}
    shallow.feed(packed({"a": [[1]]}))
    with pytest.raises(RemoteProtocolError):
        shallow.next_frame()


def test_deep_nesting_in_64k_never_crashes():
    # 65,000 nested arrays inside the cap: msgpack's own stack limit or our depth
    # check rejects it; no RecursionError, no crash.
    body = b"\x81\xa1a" + b"\x91" * 65_000 + b"\xc0"
    assert len(body) <= MAX_FRAME_SIZE
    bad(frame(body))
    maps = b"\x81\xa1a" * 21_000 + b"\xc0"
    bad(frame(maps))
    arrays_10k = b"\x81\xa1a" + b"\x91" * 10_000 + b"\x90"
    bad(frame(arrays_10k))


def test_recursion_error_is_mapped(monkeypatch):
    def boom(*args, **kwargs):
        raise RecursionError

    monkeypatch.setattr(framing.msgpack, "unpackb", boom)
    bad(frame(b"\x80"))


def test_unexpected_exception_from_msgpack_is_mapped(monkeypatch):
    def boom(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(framing.msgpack, "unpackb", boom)
    bad(frame(b"\x80"))


def test_a_bad_body_does_not_break_the_stream():
    decoder = FrameDecoder()
    decoder.feed(frame(b"\xc1") + encode_frame({"ok": True}))
    with pytest.raises(RemoteProtocolError):
        decoder.next_frame()
    assert decoder.next_frame() == {"ok": True}


# ---------------------------------------------------------------------------
# Encoding
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "obj",
    [
        [1],
        {1: 2},
        {"a": b"bytes"},
        {"a": float("nan")},
        {"a": {1, 2}},
        {"a": object()},
        {"a": 2**64},
        {"a": "\ud800"},
    ],
)
def test_encode_frame_refuses_what_the_decoder_would_reject(obj):
    with pytest.raises(LocalProtocolError) as info:
        encode_frame(obj)
    assert info.value.code == "bad_frame"


def test_encode_frame_depth_and_size():
    obj: dict = {}
    node = obj
    for _ in range(framing.MAX_DEPTH):
        node["x"] = {}
        node = node["x"]
    with pytest.raises(LocalProtocolError):
        encode_frame(obj)
    with pytest.raises(LocalProtocolError) as info:
        encode_frame({"a": "x" * 100}, max_frame_size=50)
    assert info.value.code == "frame_too_large"


def test_encode_frame_accepts_tuples_as_arrays():
    assert decode_body(encode_frame({"a": (1, 2)})[4:]) == {"a": [1, 2]}
