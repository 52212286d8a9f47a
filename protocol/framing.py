"""Length-prefixed msgpack frames (sans-I/O).

A frame is a 4-byte big-endian unsigned length ``n`` followed by ``n`` bytes that
hold exactly one msgpack-encoded map::

    +--------+--------+--------+--------+===================+
    |  n (uint32, big-endian, 1..max)   |  msgpack map (n)  |
    +--------+--------+--------+--------+===================+

:class:`FrameDecoder` turns a byte stream into decoded maps; :func:`encode_frame`
does the reverse. Neither touches a socket.

What a frame body must be (anything else is ``bad_frame``):

* exactly one msgpack value, with no trailing bytes, and it is a **map**;
* map keys are strings, and no key appears twice in one map;
* values are nil, bool, int, finite float, str (valid UTF-8), array or map --
  no bin, no extension types (timestamps included), no NaN or infinities;
* containers nest at most :data:`MAX_DEPTH` deep (the top-level map is depth 1).

The length is checked against the cap as soon as the 4 prefix bytes arrive, before
any of the body is buffered: a zero length is ``bad_frame``, more than the cap is
``frame_too_large``. Both are *stream* errors: the decoder stays failed (re-raising
the same error) because the frame boundaries are lost. A bad *body* only spoils its
own frame; the frames after it can still be pulled (the protocol still says: close).
"""

from __future__ import annotations

import math
from collections import deque
from typing import Any, Iterator

import msgpack

from .errors import (
    BAD_FRAME,
    FRAME_TOO_LARGE,
    LocalProtocolError,
    ProtocolError,
    RemoteProtocolError,
)

__all__ = [
    "HEADER_SIZE",
    "MAX_FRAME_SIZE",
    "MAX_DEPTH",
    "FrameDecoder",
    "encode_frame",
    "decode_body",
    "check_structure",
]

HEADER_SIZE = 4
MAX_FRAME_SIZE = 64 * 1024
"""Default cap on a frame's body length in bytes (the prefix is not counted)."""
MAX_DEPTH = 16
"""Default cap on container nesting; the top-level map is depth 1."""
_LENGTH_LIMIT = 2**32 - 1


def _describe(value: object) -> str:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "binary data (bin)"
    if isinstance(value, (msgpack.ExtType, msgpack.Timestamp)):
        return "an extension type"
    return type(value).__name__


_SCALARS = frozenset({type(None), bool, int, str})


def check_structure(
    obj: object,
    *,
    max_depth: int = MAX_DEPTH,
    error: type[ProtocolError] = RemoteProtocolError,
    code: str = BAD_FRAME,
) -> dict[str, Any]:
    """Check that ``obj`` is a map obeying the encoding rules; return it.

    Iterative (an explicit stack), so no input can cause a ``RecursionError``.
    Raises ``error(code, ...)`` on the first violation.
    """
    if not isinstance(obj, dict):
        raise error(code, f"a frame must hold a map, not {_describe(obj)}")
    scalars = _SCALARS
    level: list[Any] = [obj]  # the containers at this depth, walked level by level
    depth = 1
    while level:
        if depth > max_depth:
            raise error(code, f"nesting deeper than {max_depth} levels")
        below: list[Any] = []
        for container in level:
            if isinstance(container, dict):
                for key in container:
                    if type(key) is not str and not isinstance(key, str):
                        raise error(code, f"map keys must be strings, not {_describe(key)}")
                items = container.values()
            else:
                items = container
            for item in items:
                kind = type(item)
                if kind in scalars:
                    continue
                if kind is list or kind is dict:
                    below.append(item)
                elif kind is float:
                    if not math.isfinite(item):
                        raise error(code, "floats must be finite (no NaN or infinity)")
                elif isinstance(item, (dict, list, tuple)):
                    below.append(item)
                elif isinstance(item, (bool, int, str)):
                    continue
                elif isinstance(item, float):
                    if not math.isfinite(item):
                        raise error(code, "floats must be finite (no NaN or infinity)")
                else:
                    raise error(code, f"{_describe(item)} is not allowed")
        level = below
        depth += 1
    return obj


def decode_body(body: bytes, *, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """Decode one frame body into a map, or raise ``RemoteProtocolError(bad_frame)``.

    Uses ``msgpack.unpackb`` on exactly this body (never a shared streaming
    ``Unpacker``); its ``max_*_len`` limits are derived from ``len(body)``, which
    the frame cap already bounds.
    """
    size = len(body)
    try:
        obj = msgpack.unpackb(
            body,
            raw=False,
            strict_map_key=True,
            use_list=True,
            max_str_len=size,
            max_bin_len=size,
            max_array_len=size,
            max_map_len=size,
            max_ext_len=size,
        )
    except msgpack.ExtraData:
        raise RemoteProtocolError(BAD_FRAME, "trailing bytes after the message") from None
    except msgpack.StackError:
        raise RemoteProtocolError(BAD_FRAME, f"nesting deeper than {max_depth} levels") from None
    except RecursionError:
        raise RemoteProtocolError(BAD_FRAME, f"nesting deeper than {max_depth} levels") from None
    except msgpack.FormatError:
        raise RemoteProtocolError(BAD_FRAME, "not valid msgpack (reserved byte 0xc1?)") from None
    except UnicodeDecodeError:
        raise RemoteProtocolError(BAD_FRAME, "a string is not valid UTF-8") from None
    except Exception as exc:  # noqa: BLE001 - the invariant: nothing else escapes
        text = str(exc)
        if "map key" in text:
            reason = "map keys must be strings"
        elif "incomplete" in text:
            reason = "the msgpack value is truncated"
        else:
            reason = f"not valid msgpack ({type(exc).__name__})"
        raise RemoteProtocolError(BAD_FRAME, reason) from None
    return check_structure(obj, max_depth=max_depth)


def encode_frame(
    obj: dict[str, Any],
    *,
    max_frame_size: int = MAX_FRAME_SIZE,
    max_depth: int = MAX_DEPTH,
    checked: bool = False,
) -> bytes:
    """Encode a map as one frame (prefix + msgpack body).

    Raises :class:`LocalProtocolError` (``bad_frame`` or ``frame_too_large``) if the
    map breaks a rule the receiving decoder enforces. ``checked=True`` skips the
    structure walk for maps already validated (a constructed message), which is
    most of the cost of sending a large view.
    """
    if not checked:
        check_structure(obj, max_depth=max_depth, error=LocalProtocolError)
    try:
        body = msgpack.packb(obj, use_bin_type=True)
    except Exception as exc:  # noqa: BLE001 - e.g. int out of range, lone surrogate
        raise LocalProtocolError(BAD_FRAME, f"cannot encode as msgpack: {exc}") from None
    if len(body) > max_frame_size:
        raise LocalProtocolError(
            FRAME_TOO_LARGE,
            f"message is {len(body)} bytes, the limit is {max_frame_size}",
        )
    return len(body).to_bytes(HEADER_SIZE, "big") + body


class FrameDecoder:
    """Incremental decoder: :meth:`feed` bytes, then pull maps.

    >>> d = FrameDecoder()
    >>> d.feed(encode_frame({"type": "ping", "id": 1}))
    >>> d.next_frame()
    {'type': 'ping', 'id': 1}
    >>> d.next_frame() is None
    True

    Memory: at most ``max_frame_size`` bytes of an incomplete frame (plus up to 4
    prefix bytes) are ever held. Frames already complete are queued as raw bytes
    until pulled; drain them after every :meth:`feed`.
    """

    def __init__(self, max_frame_size: int = MAX_FRAME_SIZE, *, max_depth: int = MAX_DEPTH) -> None:
        if not 1 <= max_frame_size <= _LENGTH_LIMIT:
            raise ValueError(f"max_frame_size must be 1..{_LENGTH_LIMIT}")
        if max_depth < 1:
            raise ValueError("max_depth must be at least 1")
        self.max_frame_size = max_frame_size
        self.max_depth = max_depth
        self._partial = bytearray()  # prefix bytes, or body bytes of the current frame
        self._need: int | None = None  # body length once the prefix is read
        self._frames: deque[bytes] = deque()
        self._error: RemoteProtocolError | None = None

    # -- input ---------------------------------------------------------------
    def feed(self, data: bytes | bytearray | memoryview) -> None:
        """Add received bytes. Never raises a protocol error itself: errors are
        reported by :meth:`next_frame`, after the frames that preceded them."""
        if self._error is not None:
            return  # the stream is already broken; drop everything
        if type(data) is bytes and self._need is None and not self._partial and len(data) > HEADER_SIZE:
            # The common case: the bytes are exactly one whole frame.
            length = int.from_bytes(data[:HEADER_SIZE], "big")
            if len(data) == HEADER_SIZE + length and length <= self.max_frame_size:
                self._frames.append(bytes(data[HEADER_SIZE:]))
                return
        view = memoryview(data).cast("B")
        while view:
            if self._need is None:
                take = HEADER_SIZE - len(self._partial)
                self._partial += view[:take]
                view = view[take:]
                if len(self._partial) < HEADER_SIZE:
                    return
                length = int.from_bytes(self._partial, "big")
                self._partial.clear()
                if length == 0:
                    self._fail(RemoteProtocolError(BAD_FRAME, "zero-length frame"))
                    return
                if length > self.max_frame_size:
                    self._fail(
                        RemoteProtocolError(
                            FRAME_TOO_LARGE,
                            f"frame of {length} bytes exceeds the limit of {self.max_frame_size}",
                        )
                    )
                    return
                self._need = length
            else:
                take = self._need - len(self._partial)
                if not self._partial and len(view) >= take:
                    self._frames.append(bytes(view[:take]))
                else:
                    self._partial += view[:take]
                    if len(self._partial) < self._need:
                        return
                    self._frames.append(bytes(self._partial))
                    self._partial.clear()
                view = view[take:]
                self._need = None

    def eof(self) -> None:
        """The peer closed the stream: raise ``bad_frame`` if a frame is incomplete.

        Frames that are complete stay available to :meth:`next_frame`.
        """
        if self._error is not None:
            raise self._error.with_traceback(None)
        if self.incomplete:
            have = len(self._partial)
            if self._need is None:
                detail = f"{have} of {HEADER_SIZE} prefix bytes"
            else:
                detail = f"{have} of {self._need} bytes"
            raise RemoteProtocolError(BAD_FRAME, f"connection closed in the middle of a frame ({detail})")

    def _fail(self, error: RemoteProtocolError) -> None:
        self._error = error
        self._partial = bytearray()
        self._need = None

    # -- output --------------------------------------------------------------
    def next_frame(self) -> dict[str, Any] | None:
        """Return the next complete decoded map, or ``None`` if more bytes are needed.

        Raises :class:`RemoteProtocolError` for a bad frame; a stream error
        (bad length) is raised again on every later call.
        """
        if self._frames:
            return decode_body(self._frames.popleft(), max_depth=self.max_depth)
        if self._error is not None:
            raise self._error.with_traceback(None)
        return None

    def __iter__(self) -> Iterator[dict[str, Any]]:
        """Yield every frame available now (stops when more bytes are needed)."""
        while (frame := self.next_frame()) is not None:
            yield frame

    @property
    def buffered(self) -> int:
        """Bytes held of the incomplete frame in progress."""
        return len(self._partial)

    @property
    def incomplete(self) -> bool:
        """True while part of a frame (prefix or body) has been received."""
        return self._need is not None or bool(self._partial)

    @property
    def pending(self) -> int:
        """Complete frames waiting to be pulled."""
        return len(self._frames)

    @property
    def failed(self) -> bool:
        """True once a stream error (bad length prefix) has been seen."""
        return self._error is not None
