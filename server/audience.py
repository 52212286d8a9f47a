"""Who hears what at a table: events and views per member, the chat, the lobby list.

Changes only queue news here (:meth:`Audience.record`); the lobby flushes
after the commit that makes them durable (:meth:`Audience.flush`), so each
member gets its pending events and then one view built from the state after
every change of the unit, however many there were.

An audience talks to its table through :class:`Stage` (who listens, what the table shows, where
its chat is kept) and to the server through :class:`Post` (sending, mutes, news), never through
the table's fields: :class:`server.table.Table` is a :class:`Stage`, and a test can be one.
"""

from __future__ import annotations

import time
from collections import deque
from typing import Any, Protocol

from engine.records import Record
from protocol import messages as m

from .errors import RequestError, StoreError
from .text import CHAT_MAX, clean_text

CHAT_KEEP = 50  # chat lines a member arriving at the table is sent
MAX_EVENTS = 200  # per event message (the protocol's limit)


class Stage(Protocol):
    """What an audience needs of its table (:class:`server.table.Table` is one)."""

    table_id: str

    def listeners(self) -> list[tuple[str, int | None]]:
        """``(player_id, seat)`` of everyone who hears the table: seated players still here, then spectators."""
        ...

    def facts(self, seat: int | None) -> dict[str, Any]:
        """What the server knows of the table for ``seat`` (PROTOCOL.md 5.3)."""
        ...

    def game_view(self, seat: int | None) -> tuple[dict[str, Any] | None, list[Any] | None, int | None]:
        """The game's own view for ``seat``, the decision it awaits and the time left for it (each None if none)."""
        ...

    def listing(self) -> tuple[Any, ...]:
        """What the lobby's list shows of the table (compared, never read)."""
        ...

    def seat_of(self, player_id: str) -> int | None: ...

    def keep_chat(self, line: dict[str, Any], keep: int) -> None:
        """Store a chat line (in the unit's transaction), keeping the table's last ``keep`` lines."""
        ...


class Post(Protocol):
    """What an audience needs of the server around its table (:class:`server.table.Hub` has it)."""

    def send(self, player_id: str, message: m.Message) -> None: ...
    def hears(self, listener: str, speaker: str | None) -> bool: ...
    def table_dirty(self, table: Any) -> None: ...
    def tables_changed(self) -> None: ...


class Audience:
    """The members of one table and what each is owed (see the module docstring)."""

    def __init__(self, table: Stage, post: Post) -> None:
        self.table = table
        self.post = post
        self.chat_log: deque[tuple[m.ChatMessage, str | None]] = deque(maxlen=CHAT_KEEP)  # (line, speaker's id)
        self._pending_events: dict[str, list[dict[str, Any]]] = {}
        self._flushed: set[str] = set()
        self._catching_up: set[str] = set()  # members owed the recent chat after their next view
        self._spectator_view: m.View | None = None
        self._facts: dict[str, Any] | None = None  # the table's facts in this flush (Audience.flush)
        self._listed: tuple | None = None  # what the lobby list last showed of this table

    def members(self) -> list[tuple[str, int | None]]:
        """``(player_id, seat)`` of everyone who hears the table: seated players still here, then spectators."""
        return self.table.listeners()

    def record(self, records: list[Record]) -> None:
        """Queue ``records`` as events for every member, each seeing what its seat may."""
        public = [r.for_seat(None) for r in records]  # what most members see: built once
        secret_for = {r.seat for r in records if r.private}  # seats that see more than that
        pending = self._pending_events
        for player_id, seat in self.members():
            events = pending.get(player_id)
            if events is None:
                events = pending[player_id] = []
            if seat in secret_for:
                events.extend([r.for_seat(seat) if r.seat == seat else p for r, p in zip(records, public)])
            else:
                events.extend(public)
        self.post.table_dirty(self.table)

    def view(self, seat: int | None, facts: dict[str, Any] | None = None) -> m.View:
        """``seat``'s view (``None``: a spectator's): the table's facts beside the game's own view, untouched.

        ``facts``: the table's facts for any seat (:meth:`Stage.facts`), when the caller builds views for several.
        """
        table = self.table
        game, decision, deadline_ms = table.game_view(seat)
        return m.View.prevalidated(  # plain, string-keyed data by construction (tests/engine, tests/server)
            table_id=table.table_id, table=table.facts(seat) if facts is None else dict(facts, seat=seat),
            game=game, decision=decision, deadline_ms=deadline_ms,
        )

    def flush(self, only: str | None = None) -> None:
        """Send each member its pending events and its current view (``only``: one member)."""
        table = self.table
        hub = self.post
        for player_id, seat in self.members():
            if (only is not None and player_id != only) or player_id in self._flushed:
                continue
            self._flushed.add(player_id)
            events = self._pending_events.pop(player_id, None)
            for start in range(0, len(events or ()), MAX_EVENTS):
                hub.send(player_id, m.Event.prevalidated(
                    table_id=table.table_id, events=tuple(events[start:start + MAX_EVENTS])))
            if self._facts is None:  # the same for every member but their seat: built once a flush
                self._facts = table.facts(None)
            if seat is None:
                if self._spectator_view is None:
                    self._spectator_view = self.view(None, self._facts)
                hub.send(player_id, self._spectator_view)
            else:
                hub.send(player_id, self.view(seat, self._facts))
            if player_id in self._catching_up:
                self._catching_up.discard(player_id)
                for message, speaker in self.chat_log:
                    if hub.hears(player_id, speaker):
                        hub.send(player_id, message)

    def restore_chat(self, stored: list[dict[str, Any]]) -> None:
        """The recent chat as the store kept it (oldest first), for members who come back."""
        try:
            self.chat_log.extend((m.ChatMessage(table_id=self.table.table_id, seat=line["seat"], name=line["name"],
                                                text=line["text"], ts=line["ts"]), line.get("player_id"))
                                 for line in stored)  # a line stored before mutes names no speaker
        except (KeyError, TypeError) as exc:
            raise StoreError(f"table {self.table.table_id}: the stored chat is damaged ({exc!r}); "
                             "restore the database from a backup") from None

    def catch_up(self, player_id: str) -> None:
        """``player_id`` just arrived (joined, watched, resumed): after their view, send the recent chat."""
        self._catching_up.add(player_id)
        self.post.table_dirty(self.table)

    def flushed(self) -> None:
        """The flush is complete: the next change starts a new one.

        The lobby list is checked here, after everyone has their news: it
        changes rarely and is pushed at most twice a second anyway.
        """
        self._flushed.clear()
        self._pending_events.clear()
        self._catching_up.clear()  # whoever was owed the chat and is still here has had it
        self._spectator_view = None
        self._facts = None
        self._check_listing()

    def _check_listing(self) -> None:
        """Have the lobby's table list pushed again if what it shows of this table changed."""
        listed = self.table.listing()
        if listed != self._listed:  # the list shows none of the play itself
            self._listed = listed
            self.post.tables_changed()

    def chat(self, player_id: str, name: str, text: str) -> None:
        """Say ``text`` to everyone at the table (kept for members who arrive later)."""
        text = clean_text(text, CHAT_MAX + 1)
        if not text:
            return  # nothing visible left to say: accepted and dropped
        if len(text) > CHAT_MAX:
            raise RequestError("too_long", f"chat messages are limited to {CHAT_MAX} characters")
        table = self.table
        message = m.ChatMessage(
            table_id=table.table_id, seat=table.seat_of(player_id), name=name, text=text, ts=int(time.time() * 1000),
        )
        self.chat_log.append((message, player_id))
        # sent again after a restart (in the unit's commit, before anyone hears it)
        table.keep_chat({"seat": message.seat, "name": name, "text": text, "ts": message.ts,
                         "player_id": player_id}, CHAT_KEEP)
        post = self.post
        for member, _ in self.members():
            if post.hears(member, player_id):  # muted by that member: not for them
                post.send(member, message)
