"""The session's messages: the handshake (``hello``, ``welcome``), the replies (``ok``, ``error``), the
heartbeat, the goodbye, the server's notices and its health figures."""

from typing import Any, ClassVar

from .errors import ProtocolError
from .fields import CODE, NAME, PLAYER_ID, REQUEST_ID, SEAT, SOFTWARE, TABLE_ID, TEXT, TIMESTAMP, TOKEN, VERSION
from .schema import Bool, Nullable, OpaqueMap, Push, Reply, Request, _f, _message


@_message
class Hello(Request):
    """First message on every connection; answered by ``welcome`` or ``error``."""

    type: ClassVar[str] = "hello"
    id: int = _f(REQUEST_ID)
    version: int = _f(VERSION)
    name: str = _f(NAME)
    token: str | None = _f(Nullable(TOKEN), None)
    client: str | None = _f(Nullable(SOFTWARE), None)


@_message
class Ping(Request):
    """Heartbeat; answered by ``ok``."""

    type: ClassVar[str] = "ping"
    id: int = _f(REQUEST_ID)


@_message
class Notices(Request):
    """``on=true``: this connection receives ``notice`` pushes (the operator's announcements, a removal)."""

    type: ClassVar[str] = "notices"
    id: int = _f(REQUEST_ID)
    on: bool = _f(Bool(), True)


@_message
class Stats(Request):
    """The server's health figures (PROTOCOL.md ``stats``): loop lag, traffic, counts; nothing private."""

    type: ClassVar[str] = "stats"
    id: int = _f(REQUEST_ID)


@_message
class Welcome(Reply):
    """The reply to an accepted ``hello``."""

    type: ClassVar[str] = "welcome"
    id: int = _f(REQUEST_ID)
    version: int = _f(VERSION)
    server: str = _f(SOFTWARE)
    player_id: str = _f(PLAYER_ID)
    token: str = _f(TOKEN)
    resumed: bool = _f(Bool())
    table_id: str | None = _f(Nullable(TABLE_ID), None)
    seat: int | None = _f(Nullable(SEAT), None)


@_message
class Ok(Reply):
    """Success reply to request ``id``; ``result`` depends on the request."""

    type: ClassVar[str] = "ok"
    id: int = _f(REQUEST_ID)
    result: dict[str, Any] = _f(OpaqueMap(), factory=dict)


@_message
class Error(Reply):
    """Failure reply to request ``id`` (nil when not tied to a request)."""

    type: ClassVar[str] = "error"
    id: int | None = _f(Nullable(REQUEST_ID), None)
    code: str = _f(CODE)
    message: str = _f(TEXT)

    @classmethod
    def from_exception(cls, exc: ProtocolError, *, id: int | None = None) -> "Error":
        """The ``error`` to send for a :class:`ProtocolError` (id: ``exc.request_id``)."""
        request_id = id if id is not None else exc.request_id
        message = exc.message if len(exc.message) <= 1000 else exc.message[:997] + "..."
        return cls(id=request_id, code=exc.code, message=message)


@_message
class Notice(Push):
    """Something the server tells you wherever you are (only after you asked with ``notices``): ``kind``
    ``announcement`` (the operator's), ``removed`` (the host removed you from a table)."""

    type: ClassVar[str] = "notice"
    kind: str = _f(CODE)
    text: str = _f(TEXT)
    ts: int = _f(TIMESTAMP)


@_message
class Bye(Push):
    """The server is closing the connection."""

    type: ClassVar[str] = "bye"
    reason: str = _f(CODE)
    message: str = _f(TEXT)
