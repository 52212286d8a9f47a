"""The audience works against its narrow interface (issue 29, item 10): a :class:`Stage` for the table and
a :class:`Post` for the server, never the table's fields.

* every name the audience reads of its table is one of :class:`Stage`'s, and the table has them all
  (``test_the_audience_reads_only_the_stage``);
* against a stage and a post made here (no server, no table), events reach each member as their seat
  may see them, then one view each; the chat goes to whoever does not mute the speaker, is kept, and
  comes back to a member who arrives; a change of the lobby list is pushed once
  (``test_an_audience_works_against_any_stage``).
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path
from typing import Any

from engine.records import Record
from protocol import messages as m
from server import audience as audience_module
from server.audience import CHAT_KEEP, Audience, Post, Stage
from server.table import Table

AUDIENCE_PY = Path(audience_module.__file__)


def protocol_members(cls: type) -> set[str]:
    names = {n for n in vars(cls) if not n.startswith("_")}
    return names | set(getattr(cls, "__annotations__", {}))


def test_the_audience_reads_only_the_stage():
    """``self.table.X`` and ``table.X`` in server/audience.py name only members of Stage; ``self.post.X``
    and ``post.X`` / ``hub.X`` only members of Post; Table has every member of Stage."""
    tree = ast.parse(AUDIENCE_PY.read_text())
    used: dict[str, set[str]] = {"table": set(), "post": set()}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        owner = node.value
        if isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) and owner.value.id == "self":
            name = owner.attr
        elif isinstance(owner, ast.Name):
            name = owner.id
        else:
            continue
        if name == "table":
            used["table"].add(node.attr)
        elif name in ("post", "hub"):
            used["post"].add(node.attr)
    stage, post = protocol_members(Stage), protocol_members(Post)
    assert used["table"] and used["table"] <= stage, used["table"] - stage
    assert used["post"] and used["post"] <= post, used["post"] - post
    table_members = {n for n, _ in inspect.getmembers(Table)} | set(inspect.signature(Table).parameters)
    assert stage - {"table_id"} <= table_members, stage - table_members


class FakeStage:
    """A table of two seats (0: ann, 1: bob) and a spectator (cat), with no game."""

    def __init__(self) -> None:
        self.table_id = "t1"
        self.spectators = ["cat"]
        self.kept: list[dict[str, Any]] = []
        self.state = "waiting"

    def listeners(self) -> list[tuple[str, int | None]]:
        return [("ann", 0), ("bob", 1)] + [(p, None) for p in self.spectators]

    def facts(self, seat: int | None) -> dict[str, Any]:
        return {"table_id": self.table_id, "seat": seat, "state": self.state}

    def game_view(self, seat: int | None) -> tuple[dict[str, Any] | None, list[Any] | None, int | None]:
        return ({"hand": f"seat {seat}"}, ["play", seat], 5000)

    def listing(self) -> tuple[Any, ...]:
        return (self.state, len(self.spectators))

    def seat_of(self, player_id: str) -> int | None:
        return {"ann": 0, "bob": 1}.get(player_id)

    def keep_chat(self, line: dict[str, Any], keep: int) -> None:
        self.kept.append(dict(line, keep=keep))


class FakePost:
    def __init__(self) -> None:
        self.sent: list[tuple[str, m.Message]] = []
        self.dirty = 0
        self.lists = 0
        self.mutes = {("bob", "ann")}  # bob mutes ann

    def send(self, player_id: str, message: m.Message) -> None:
        self.sent.append((player_id, message))

    def hears(self, listener: str, speaker: str | None) -> bool:
        return (listener, speaker) not in self.mutes

    def table_dirty(self, table: Any) -> None:
        self.dirty += 1

    def tables_changed(self) -> None:
        self.lists += 1

    def take(self) -> list[tuple[str, str]]:
        sent, self.sent = self.sent, []
        return [(p, msg.type) for p, msg in sent]


def test_an_audience_works_against_any_stage():
    stage, post = FakeStage(), FakePost()
    audience = Audience(stage, post)
    assert audience.members() == [("ann", 0), ("bob", 1), ("cat", None)]

    audience.record([Record("deal", 0, {"cards": 2}, {"hand": ["A♠", "K♠"]})])
    assert post.dirty == 1
    audience.flush()
    audience.flushed()
    sent = post.sent
    assert [(p, msg.type) for p, msg in sent] == [
        ("ann", "event"), ("ann", "view"), ("bob", "event"), ("bob", "view"), ("cat", "event"), ("cat", "view")]
    events = {p: msg.events[0] for p, msg in sent if msg.type == "event"}
    assert events["ann"]["hand"] == ["A♠", "K♠"]
    assert "hand" not in events["bob"] and "hand" not in events["cat"]
    views = {p: msg for p, msg in sent if msg.type == "view"}
    assert views["bob"].table == {"table_id": "t1", "seat": 1, "state": "waiting"}
    assert views["bob"].game == {"hand": "seat 1"} and views["bob"].decision == ["play", 1]
    assert views["cat"].table["seat"] is None and views["cat"].deadline_ms == 5000
    assert post.lists == 1  # the first flush lists the table
    post.take()

    audience.chat("ann", "Ann", "hello")
    assert post.take() == [("ann", "chat_message"), ("cat", "chat_message")]  # bob mutes ann
    assert stage.kept == [{"seat": 0, "name": "Ann", "text": "hello", "ts": stage.kept[0]["ts"],
                           "player_id": "ann", "keep": CHAT_KEEP}]

    stage.spectators.append("dan")
    audience.catch_up("dan")
    audience.flush(only="dan")
    assert post.take() == [("dan", "view"), ("dan", "chat_message")]  # the view, then the recent chat
    audience.flushed()
    assert post.lists == 2  # a spectator more: the list shows it
    audience.flush()
    audience.flushed()
    assert post.lists == 2  # nothing the list shows changed
