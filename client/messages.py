"""Textual messages: what the network tells the app, and what screens ask of it.

"Attributes down, messages up": the app turns server pushes into the messages
in the first group and sets attributes on its screens; screens and widgets post
the second group, which bubble up to the app, the only place that talks to the
server.
"""

from __future__ import annotations

from typing import Any

from textual.message import Message


# ---------------------------------------------------------------- from the server


class ViewChanged(Message):
    """A new complete view of our table: ``{table, game, decision, deadline_ms}``, as the `view` push has it."""

    def __init__(self, table_id: str, view: dict[str, Any]) -> None:
        super().__init__()
        self.table_id = table_id
        self.view = view


class EventsArrived(Message):
    """Things that just happened at our table, oldest first."""

    def __init__(self, table_id: str, events: list[dict[str, Any]]) -> None:
        super().__init__()
        self.table_id = table_id
        self.events = events


class ChatArrived(Message):
    """A chat line at our table (``seat`` None: a spectator or the server)."""

    def __init__(self, seat: int | None, name: str, text: str, ts: int = 0) -> None:
        super().__init__()
        self.seat, self.name, self.text, self.ts = seat, name, text, ts


class NoticeArrived(Message):
    """The server tells us something wherever we are (``kind``: ``announcement``, ``removed``...)."""

    def __init__(self, kind: str, text: str) -> None:
        super().__init__()
        self.kind, self.text = kind, text


class TablesChanged(Message):
    """The lobby's table list (plain dicts, as on the wire); or, ``pushed``, the ``tables`` push as
    received, which a newer one replaces while this message waits (the app cleans the one it gets to)."""

    def __init__(self, tables: list[dict[str, Any]] | None, pushed: Any = None) -> None:
        super().__init__()
        self.tables, self.pushed = tables, pushed


class OnlineChanged(Message):
    """Who is online (the ``online`` push: plain dicts, as on the wire) and how many in all; or,
    ``pushed``, the ``online`` push as received (replaced by a newer one while this message waits)."""

    def __init__(self, players: list[dict[str, Any]] | None, total: int, pushed: Any = None) -> None:
        super().__init__()
        self.players, self.total, self.pushed = players, total, pushed


class InvitationArrived(Message):
    """A host invites us to their table (the ``invitation`` push, as on the wire)."""

    def __init__(self, invitation: dict[str, Any]) -> None:
        super().__init__()
        self.invitation = invitation


class ConnectionChanged(Message):
    """The connection went down, came back, or is gone for good."""

    def __init__(self, state: str, text: str, attempt: int = 0) -> None:
        super().__init__()
        self.state, self.text, self.attempt = state, text, attempt


# ---------------------------------------------------------------- to the server


class SendRequest(Message):
    """Ask the app to send a request: ``kind`` is its protocol message class (``protocol.messages.Join``)."""

    def __init__(self, kind: type[Any], fields: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.kind = kind
        self.fields = fields or {}


class PracticeRequested(Message):
    """Ask the app for a practice table of ``game``: a table of our own with bots, dealt at once."""

    def __init__(self, game: str) -> None:
        super().__init__()
        self.game = game


class PlayAction(Message):
    """Ask the app to play a game action (``{"kind": "take_stock"}`` ...)."""

    def __init__(self, action: dict[str, Any]) -> None:
        super().__init__()
        self.action = action


class RequestRejected(Message):
    """The server refused a request; the screen that asked may re-enable itself."""

    def __init__(self, kind: type[Any], code: str, text: str) -> None:
        super().__init__()
        self.kind, self.code, self.text = kind, code, text
