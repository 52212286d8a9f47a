"""The protocol's exceptions.

Everything in :mod:`protocol` that rejects input raises a :class:`ProtocolError`
(never a bare ``ValueError``, ``KeyError`` or msgpack exception). Which subclass
tells you whose fault it is, in the style of h11:

* :class:`RemoteProtocolError` -- the *peer* sent something invalid (bad bytes, a
  malformed or unknown message, a message out of order). Tell it with an ``error``
  message built by :meth:`protocol.messages.Error.from_exception`, then close the
  connection (the server sends ``bye`` with reason ``protocol_error`` first).
* :class:`LocalProtocolError` -- *we* tried to build or send something invalid.
  That is a bug in our own code; nothing has been written to the wire.

Every error carries a stable ``code`` (one of the strings documented in
``docs/PROTOCOL.md``), a human ``message``, optionally the ``field`` path that was
wrong (``"settings.seats"``, ``"action.down[2]"``) and the ``request_id`` of the
request it concerns when that id could be read, so the server can echo it.
"""

from __future__ import annotations

__all__ = [
    "ProtocolError",
    "RemoteProtocolError",
    "LocalProtocolError",
    "PROTOCOL_ERROR_CODES",
    "BAD_FRAME",
    "FRAME_TOO_LARGE",
    "BAD_MESSAGE",
    "UNKNOWN_TYPE",
    "TOO_LONG",
    "VERSION_MISMATCH",
    "HELLO_REQUIRED",
    "ALREADY_GREETED",
    "CLOSED",
]

# Codes raised by this package. The server adds its own (``no_such_table``, ...);
# the full list with meanings is in docs/PROTOCOL.md.
BAD_FRAME = "bad_frame"
FRAME_TOO_LARGE = "frame_too_large"
BAD_MESSAGE = "bad_message"
UNKNOWN_TYPE = "unknown_type"
TOO_LONG = "too_long"
VERSION_MISMATCH = "version_mismatch"
HELLO_REQUIRED = "hello_required"
ALREADY_GREETED = "already_greeted"
# Local only (never sent): sending on a connection after ``bye``.
CLOSED = "closed"

PROTOCOL_ERROR_CODES = frozenset(
    {
        BAD_FRAME,
        FRAME_TOO_LARGE,
        BAD_MESSAGE,
        UNKNOWN_TYPE,
        TOO_LONG,
        VERSION_MISMATCH,
        HELLO_REQUIRED,
        ALREADY_GREETED,
    }
)
"""Codes a :class:`RemoteProtocolError` can carry; each one ends the connection."""


class ProtocolError(Exception):
    """Base class: a stable ``code`` plus a human ``message``."""

    def __init__(
        self,
        code: str,
        message: str,
        *,
        field: str | None = None,
        request_id: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.field = field
        self.request_id = request_id

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class RemoteProtocolError(ProtocolError):
    """The peer violated the protocol: reply with ``error``, then close."""


class LocalProtocolError(ProtocolError):
    """We tried to build or send something the protocol forbids (our bug)."""
