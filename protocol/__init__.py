"""The Down and Back wire protocol, sans-I/O (bytes and messages only): the session and the lobby of any game.

Modules:

* :mod:`protocol.framing` -- 4-byte length prefix + msgpack map, size cap,
  :class:`FrameDecoder`.
* :mod:`protocol.messages` -- one frozen dataclass per message, ``from_wire`` /
  ``to_wire``, ``encode`` / ``decode``: the one import point for the messages, which live
  by purpose in :mod:`protocol.session`, :mod:`protocol.lobby`, :mod:`protocol.table`,
  :mod:`protocol.fairness` and :mod:`protocol.past`.
* :mod:`protocol.schema` -- the schema language: field specs, the struct machinery, the
  message bases and their registry.
* :mod:`protocol.fields` -- the protocol's numbers and reusable field types (its limits).
* :mod:`protocol.connection` -- :class:`Connection`: handshake rules as a table.
* :mod:`protocol.errors` -- :class:`ProtocolError` and its Remote/Local subclasses.

The full specification for other implementers is ``docs/PROTOCOL.md``.
Imports only msgpack and the standard library.
"""

from .connection import Connection, State
from .errors import LocalProtocolError, ProtocolError, RemoteProtocolError
from .framing import MAX_DEPTH, MAX_FRAME_SIZE, FrameDecoder, encode_frame
from .messages import (
    CLIENT_MESSAGE_TYPES,
    DEFAULT_PORT,
    MESSAGE_TYPES,
    PROTOCOL_VERSION,
    SERVER_MESSAGE_TYPES,
    Act,
    AddBot,
    Bye,
    Chat,
    ChatMessage,
    CreateTable,
    EndGame,
    Error,
    Event,
    Hello,
    History,
    Join,
    Leave,
    ListTables,
    Message,
    Ok,
    Ping,
    PlayerSummary,
    Push,
    RemoveBot,
    Reply,
    Request,
    SitOut,
    Start,
    TableSettings,
    TableSummary,
    Tables,
    View,
    Watch,
    Welcome,
    decode,
    encode,
    from_wire,
    peek_request_id,
)

__all__ = [
    "Connection", "State",
    "ProtocolError", "RemoteProtocolError", "LocalProtocolError",
    "MAX_DEPTH", "MAX_FRAME_SIZE", "FrameDecoder", "encode_frame",
    "CLIENT_MESSAGE_TYPES", "DEFAULT_PORT", "MESSAGE_TYPES",
    "PROTOCOL_VERSION", "SERVER_MESSAGE_TYPES",
    "Message", "Request", "Reply", "Push",
    "TableSettings", "PlayerSummary", "TableSummary",
    "Hello", "ListTables", "CreateTable", "Join", "Watch", "Leave", "Start", "AddBot",
    "RemoveBot", "EndGame", "Act", "SitOut", "Chat", "History", "Ping",
    "Welcome", "Ok", "Error", "Tables", "View", "Event", "ChatMessage", "Bye",
    "decode", "encode", "from_wire", "peek_request_id",
]
