"""A replay of one past round, step by step, on the game's own board.

The server replays the round in its engine (``replay``, PROTOCOL.md 5.1) and
sends, for each action, the events as we were sent them and the game's view
for our seat then; :func:`load_replay` fetches every page. The replay screen
is the table screen (:class:`~client.screens.table.TableScreen`: the same top
bar, seats, log and board) fed those views instead of live ones, with its
own keys: step forward and back, to the start or the end, or play at a speed.
Nothing can be played from it: the views lose their legal actions.
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.content import Content

from protocol import messages as m

from ..widgets.basics import LineLog
from .table import TableScreen

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0)  # steps a second when playing


async def load_replay(app: Any, table_id: str, round_no: int) -> dict[str, Any] | None:
    """Every step of a round (following the reply's ``next``), or None if the server refused (it said why)."""
    fields: dict[str, Any] = {"table_id": table_id, "round": round_no}
    replay = await app.ask(m.Replay, fields)
    if replay is None:
        return None
    steps = list(replay.get("steps") or [])
    while replay.get("next") is not None and len(steps) < (replay.get("total") or 0):
        replay = await app.ask(m.Replay, {**fields, "from_step": replay["next"]})
        if replay is None:
            return None
        steps += replay.get("steps") or []
    return {**replay, "steps": steps}


class ReplayScreen(TableScreen, inherit_bindings=False):
    """One round's steps on its game's board (see the module docstring)."""

    LIVE = False
    BINDINGS = [
        Binding("right", "step(1)", "Next", key_display="→", priority=True, tooltip="the next step"),
        Binding("left", "step(-1)", "Previous", key_display="←", priority=True, tooltip="the step before"),
        # Home, End and the speed keys are named in the prompt: the footer keeps to what fits 80 columns.
        Binding("home", "go(0)", "Start", show=False, priority=True, tooltip="the round's first step"),
        Binding("end", "go(-1)", "End", show=False, priority=True,
                tooltip="the round's last step (what was revealed)"),
        Binding("space", "play", "Play/pause", key_display="␣", priority=True,
                tooltip="play the steps one after another at the speed chosen, or pause"),
        Binding("plus", "speed(1)", "Faster", key_display="+", show=False, priority=True, tooltip="play faster"),
        Binding("minus", "speed(-1)", "Slower", key_display="-", show=False, priority=True, tooltip="play slower"),
        Binding("escape", "close", "Back", priority=True, tooltip="back to your history"),
    ]

    def __init__(self, replay: dict[str, Any], table_name: str = "") -> None:
        super().__init__(replay.get("table_id", ""))
        self.replay = replay
        self.steps: list[dict[str, Any]] = list(replay.get("steps") or [])
        self.title_text = f"Replay: {table_name or replay.get('table_id', '')}, round {replay.get('round', '?')}"
        self.at = 0
        self.speed = SPEEDS.index(1.0)
        self._player: Any = None  # the timer while playing
        self._log_seeded = True  # the log is the replay's events, step by step
        self.view = self._view_at(0)

    def _view_at(self, index: int) -> dict[str, Any]:
        """The table screen's view of step ``index``: its game view, without what could be played."""
        game = dict(self.steps[index]["view"]) if self.steps else None
        if game is not None:
            game["legal"] = []
        settings = (game or {}).get("settings") or {}
        table = {"table_id": self.table_id, "name": self.title_text, "state": "playing",
                 "settings": {"game": self.replay.get("game_name"), "seats": None, "rules": settings},
                 "seat": self.replay.get("seat"), "host_seat": None, "members": [], "spectators": 0,
                 "private": False, "fixed_seed": False, "chip_history": None}
        return {"table": table, "game": game, "decision": None, "deadline_ms": None}

    def _apply(self, view: dict[str, Any]) -> None:
        if self.board is not None:  # the players the game names sit at the seats, all present
            view["table"]["members"] = [{"seat": seat, "name": name, "bot": False, "connected": True, "away": False}
                                        for seat, name in sorted(self.board.names(view.get("game")).items())]
        super()._apply(view)

    def on_mount(self) -> None:
        super().on_mount()
        self.show_step(0)

    def show_step(self, index: int) -> None:
        """Show step ``index`` (clamped): its view, and the log of every event up to it."""
        if not self.steps:
            return
        self.at = max(0, min(index, len(self.steps) - 1))
        self.view = self._view_at(self.at)
        log = self.query_one("#log", LineLog)
        log.clear()
        for step in self.steps[:self.at + 1]:
            self.add_events(list(step.get("events") or []))
        self.update_prompt()

    def prompt_for(self, view: dict[str, Any]) -> Content:
        key = lambda k: Content.styled(k, "bold #ffd75f")  # noqa: E731
        state = f"playing, {SPEEDS[self.speed]:g} a second" if self._player is not None else "paused"
        whose = "as watchers saw it" if self.replay.get("seat") is None else "as you saw it"
        # Short lines: the prompt is 20 columns wide at 80x24 (the footer has the step and play keys).
        return Content.assemble((f"Step {self.at + 1} of {len(self.steps)}", "bold"), f"\n{state}\n{whose}\n",
                                key("Home End"), "  ", key("+ -"), " speed")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return True

    def action_step(self, delta: int) -> None:
        self.show_step(self.at + delta)

    def action_go(self, index: int) -> None:
        self.show_step(index if index >= 0 else len(self.steps) - 1)

    def action_play(self) -> None:
        if self._player is not None:
            self._stop()
        else:
            if self.at >= len(self.steps) - 1:
                self.show_step(0)
            self._player = self.set_interval(1 / SPEEDS[self.speed], self._tick)
        self.update_prompt()

    def action_speed(self, delta: int) -> None:
        self.speed = max(0, min(self.speed + delta, len(SPEEDS) - 1))
        if self._player is not None:
            self._stop()
            self._player = self.set_interval(1 / SPEEDS[self.speed], self._tick)
        self.update_prompt()

    def _tick(self) -> None:
        if self.at >= len(self.steps) - 1:
            self._stop()
            self.update_prompt()
            return
        self.show_step(self.at + 1)

    def _stop(self) -> None:
        if self._player is not None:
            self._player.stop()
            self._player = None

    def action_close(self) -> None:
        self._stop()
        self.dismiss()
