"""One end of a connection, as a sans-I/O state machine (h11 / websockets style).

Feed it the bytes you read, pull the messages it decodes, and write the bytes
:meth:`Connection.send` returns. It owns framing, message validation and the
handshake rules; it never touches a socket and never reads a clock.

Both ends walk the same states, driven by the messages that pass:

======== ============================ ================================
state    client may send              server may send
======== ============================ ================================
START    ``hello``                    ``error``, ``bye``
GREETING any request except ``hello`` ``welcome``, ``error``, ``bye``
READY    any request except ``hello`` any server message but ``welcome``
CLOSED   nothing (after ``bye``)      nothing
======== ============================ ================================

``hello`` moves START -> GREETING, ``welcome`` moves GREETING -> READY and
``bye`` moves any state to CLOSED. The same table judges what we send (a
violation is a :class:`LocalProtocolError`) and what we receive (a
:class:`RemoteProtocolError`). On top of the table: the server rejects a
``hello`` whose version differs from its own with ``version_mismatch``, and the
client does the same for ``welcome``.

A :class:`RemoteProtocolError` is sticky: :meth:`next_message` raises it again
and incoming bytes are dropped, but :meth:`send` keeps working so the server can
still send ``error`` (see :meth:`protocol.messages.Error.from_exception`) and
``bye`` before closing.

Typical server loop::

    conn = Connection("server")
    conn.receive_data(await reader.read(65536))
    try:
        for msg in conn:
            ...handle msg, writer.write(conn.send(reply))...
    except RemoteProtocolError as exc:
        writer.write(conn.send(Error.from_exception(exc)))
        writer.write(conn.send(Bye(reason="protocol_error", message=exc.message)))
        close
"""

import enum
import re
from typing import Iterator, Literal

from .errors import (
    ALREADY_GREETED,
    BAD_MESSAGE,
    CLOSED,
    HELLO_REQUIRED,
    UNKNOWN_TYPE,
    VERSION_MISMATCH,
    LocalProtocolError,
    ProtocolError,
    RemoteProtocolError,
)
from .framing import MAX_FRAME_SIZE, FrameDecoder
from .messages import (
    CLIENT_MESSAGE_TYPES,
    MESSAGE_TYPES,
    PROTOCOL_VERSION,
    SERVER_MESSAGE_TYPES,
    Hello,
    Message,
    Welcome,
    peek_request_id,
    encode,
    from_wire,
)

__all__ = ["Connection", "State", "Role", "MAY_SEND", "TRANSITIONS"]

Role = Literal["client", "server"]


class State(str, enum.Enum):  # str-valued: hashed in C on every message's rule lookups
    START = "start"
    GREETING = "greeting"
    READY = "ready"
    CLOSED = "closed"


_ROLES: dict[str, frozenset[str]] = {"client": CLIENT_MESSAGE_TYPES, "server": SERVER_MESSAGE_TYPES}

MAY_SEND: dict[tuple[str, State], frozenset[str]] = {
    ("client", State.START): frozenset({"hello"}),
    ("client", State.GREETING): CLIENT_MESSAGE_TYPES - {"hello"},
    ("client", State.READY): CLIENT_MESSAGE_TYPES - {"hello"},
    ("client", State.CLOSED): frozenset(),
    ("server", State.START): frozenset({"error", "bye"}),
    ("server", State.GREETING): frozenset({"welcome", "error", "bye"}),
    ("server", State.READY): SERVER_MESSAGE_TYPES - {"welcome"},
    ("server", State.CLOSED): frozenset(),
}
"""(sender role, state) -> message types that sender may send in that state."""

TRANSITIONS: dict[tuple[State, str], State] = {
    (State.START, "hello"): State.GREETING,
    (State.GREETING, "welcome"): State.READY,
    (State.START, "bye"): State.CLOSED,
    (State.GREETING, "bye"): State.CLOSED,
    (State.READY, "bye"): State.CLOSED,
}
"""(state, message type) -> next state; pairs not listed keep the state."""


def _refusal(sender: str, state: State, kind: str, error: type[ProtocolError]) -> ProtocolError:
    """The error for a message type the table does not allow (sender's view)."""
    if kind not in _ROLES[sender]:
        return error(UNKNOWN_TYPE, f"{kind!r} is not a {sender} message")
    if state is State.CLOSED:
        return error(CLOSED, f"cannot send {kind!r}: the connection is closed (bye)")
    if kind == "hello" or (kind == "welcome" and state is State.READY):
        return error(ALREADY_GREETED, f"{kind!r} was already sent on this connection")
    if sender == "client":
        return error(HELLO_REQUIRED, f"the first message must be 'hello', got {kind!r}")
    if state is State.START:
        return error(HELLO_REQUIRED, f"cannot send {kind!r} before the client's 'hello'")
    return error(HELLO_REQUIRED, f"cannot send {kind!r} before 'welcome'")


class Connection:
    """The protocol state of one connection, seen from ``role``'s end.

    ``version`` is the protocol version this end speaks (tests use it to play a
    client from the future); ``max_frame_size`` caps incoming frames.
    """

    def __init__(
        self,
        role: Role,
        *,
        version: int = PROTOCOL_VERSION,
        max_frame_size: int = MAX_FRAME_SIZE,
    ) -> None:
        if role not in _ROLES:
            raise ValueError(f"role must be 'client' or 'server', not {role!r}")
        self.role: Role = role
        self.peer_role: Role = "server" if role == "client" else "client"
        self.version = version
        self.max_frame_size = max_frame_size
        self.state = State.START
        self.hello: Hello | None = None
        """The ``hello`` of this connection once sent (client) or received (server)."""
        self.error: RemoteProtocolError | None = None
        """The peer's protocol violation, once there was one (sticky)."""
        self._decoder = FrameDecoder(max_frame_size)

    # -- receiving -----------------------------------------------------------
    def receive_data(self, data: bytes) -> None:
        """Add bytes read from the peer (dropped once closed or broken)."""
        if self.error is None and self.state is not State.CLOSED:
            self._decoder.feed(data)

    def receive_eof(self) -> None:
        """The peer closed its end: raise ``bad_frame`` if it stopped mid-frame."""
        if self.error is None and self.state is not State.CLOSED:
            try:
                self._decoder.eof()
            except RemoteProtocolError as exc:
                self.error = exc
                raise

    def next_message(self) -> Message | None:
        """The next message from the peer, or ``None`` until more bytes arrive.

        Raises :class:`RemoteProtocolError` if the peer broke the protocol.
        """
        if self.error is not None:
            raise self.error.with_traceback(None)
        if self.state is State.CLOSED:
            return None
        try:
            frame = self._decoder.next_frame()
            if frame is None:
                return None
            kind = frame.get("type")
            if isinstance(kind, str) and kind in MESSAGE_TYPES:
                # Refuse out-of-turn types before validating their fields.
                if kind not in MAY_SEND[(self.peer_role, self.state)]:
                    exc = _refusal(self.peer_role, self.state, kind, RemoteProtocolError)
                    exc.request_id = peek_request_id(frame)
                    raise exc
            msg = from_wire(frame, frame_checked=True)
            self._check(self.peer_role, msg, RemoteProtocolError)
        except RemoteProtocolError as exc:
            self.error = exc
            raise
        self._advance(msg)
        return msg

    def __iter__(self) -> Iterator[Message]:
        """Yield every message available now."""
        while (msg := self.next_message()) is not None:
            yield msg

    # -- sending -------------------------------------------------------------
    def send(self, msg: Message, *, encoded: bytes | None = None) -> bytes:
        """Check ``msg`` against the rules and return the bytes to write.

        ``encoded`` may pass ``encode(msg)`` made earlier, so a message sent to
        many peers (a lobby list) is encoded once. Raises
        :class:`LocalProtocolError` (nothing to write) if we may not send it.
        """
        if not isinstance(msg, Message):
            raise LocalProtocolError(UNKNOWN_TYPE, f"not a message: {type(msg).__name__}")
        self._check(self.role, msg, LocalProtocolError)
        data = encoded if encoded is not None else encode(msg)
        self._advance(msg)
        return data

    # -- rules ---------------------------------------------------------------
    def _check(self, sender: str, msg: Message, error: type[ProtocolError]) -> None:
        kind = msg.type
        if kind not in MAY_SEND[(sender, self.state)]:
            exc = _refusal(sender, self.state, kind, error)
            exc.request_id = getattr(msg, "id", None)
            raise exc
        if isinstance(msg, Hello) and msg.version != self.version:
            # Received by the server, or a client about to send the wrong version.
            if error is RemoteProtocolError:
                text = refusal_of_version(self.version, msg.version)
            else:
                text = f"this client speaks protocol {self.version}, not {msg.version}"
            raise error(VERSION_MISMATCH, text, field="version", request_id=msg.id)
        if isinstance(msg, Welcome):
            if msg.version != self.version:
                if error is RemoteProtocolError:
                    text = f"client speaks protocol {self.version}, server sent {msg.version}"
                else:
                    text = f"this server speaks protocol {self.version}, not {msg.version}"
                raise error(VERSION_MISMATCH, text, field="version", request_id=msg.id)
            if self.hello is not None and msg.id != self.hello.id:
                raise error(
                    BAD_MESSAGE,
                    f"welcome id {msg.id} does not answer hello id {self.hello.id}",
                    field="id",
                    request_id=msg.id,
                )

    def _advance(self, msg: Message) -> None:
        if isinstance(msg, Hello):
            self.hello = msg
        self.state = TRANSITIONS.get((self.state, msg.type), self.state)

    # -- introspection -------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self.state is State.CLOSED

    @property
    def waiting(self) -> bool:
        """:meth:`next_message` has more to give now: complete frames not yet returned,
        or a stream error not yet raised."""
        return self._decoder.pending > 0 or (self._decoder.failed and self.error is None)

    @property
    def receiving(self) -> bool:
        """True while part of a frame has arrived and the rest has not (for frame deadlines)."""
        return self._decoder.incomplete

    def __repr__(self) -> str:
        return f"<Connection {self.role} {self.state.name}{' broken' if self.error else ''}>"


_REFUSAL = "server speaks protocol {server}, client sent {client}"
_REFUSAL_PATTERN = re.compile(r"server speaks protocol (\d+), client sent (\d+)")


def refusal_of_version(server: int, client: int) -> str:
    """The ``version_mismatch`` message a server sends (PROTOCOL.md 6.1; every version words it so)."""
    return _REFUSAL.format(server=server, client=client)


def server_version_in(message: str) -> int | None:
    """The server's version named in a ``version_mismatch`` message, or None if it names none."""
    match = _REFUSAL_PATTERN.fullmatch(message)
    return int(match.group(1)) if match else None
