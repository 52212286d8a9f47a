"""High Card's board (tests/fixture_game.py), found by the client's convention like any game's: this folder
(``tests/boards``) is put on ``client.games``' package path while a test runs (``fixture_board.registered``),
so ``client.games.high_card.board.BOARD`` is this module's board, for tests only.

The smallest board on the table shell: our card and who stood or folded beside the log, our keys (stand,
fold), the prompt; the shell's cut dialog and game over screen; the events worded by the game type's one
wording (the shell's ``describe``)."""

from __future__ import annotations

from typing import Any, Mapping

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static

from client.games.board import Board
from client.widgets.basics import LineLog


class Hand(Static, can_focus=True):
    """Our card; focused, so that the board's keys act (the shell focuses a board's ``board-focus`` widget)."""


class HighCardBoard(Board):
    RULES = "# High Card\n\nEach player is dealt one card: stand or fold. The highest card standing takes the pot."
    KEY_SCREENS = (("Cutting the deck", "client.screens.cut:CutScreen"),)
    BOARD_CSS = """
    HighCardBoard #high-card { width: 30; padding: 0 1; }
    HighCardBoard #hand { width: 30; }
    """
    BINDINGS = [Binding("s", "stand", "Stand", tooltip="stand on your card"),
                Binding("d", "fold", "Fold", tooltip="fold your card")]

    def __init__(self, game: str, talk: Any, prompt: Any) -> None:
        super().__init__(game, talk, prompt)
        self.view: dict[str, Any] = {}
        self._cut: Screen[Any] | None = None
        self._over: Screen[Any] | None = None

    def compose(self) -> ComposeResult:
        yield from self.table_layout(Static(id="high-card"), Vertical(id="high-side"), Hand(id="hand", classes="board-focus"))

    def show(self, game: dict[str, Any] | None) -> None:
        self.view = game or {}
        self.legal = {entry["kind"]: entry for entry in self.view.get("legal", [])}
        said = [f"{p['name']}: {'folded' if p.get('folded') else 'in'}" for p in self.view.get("players", [])]
        self.query_one("#high-card", Static).update(Content("\n".join(said)))
        cards = self.view.get("hand") or []
        self.query_one("#hand", Static).update(
            Content.assemble("Your card: ", self.display_options.card(cards[0])) if cards else Content(""))

    def names(self, game: Mapping[str, Any] | None) -> dict[int, str]:
        return {p["seat"]: p["name"] for p in (game or {}).get("players", [])}

    def info(self, game: Mapping[str, Any] | None, rules: Mapping[str, Any]) -> list[Any]:
        return [f"  Round {game.get('round', 0)}"] if game else []

    def prompt_for(self, game: Mapping[str, Any] | None, me: int) -> Content:
        if "stand" in self.legal:
            return Content.assemble(("Your turn: ", "bold"), self.key("s"), " stand, ", self.key("d"), " fold")
        return Content("")

    def open_screens(self, game: dict[str, Any] | None) -> None:
        from client.screens.cut import CutScreen
        from client.screens.gameover import GameOverScreen

        cutting = "cut" in self.legal and not self.pending
        if self._cut is not None and not cutting:
            self.close(self._cut)
            self._cut = None
        if cutting and self._cut is None:
            self._cut = CutScreen(self.legal["cut"]["min"], self.legal["cut"]["max"])
            self.push(self._cut, self._cut_done)
        if self.view.get("phase") == "over" and self._over is None:
            self._over = GameOverScreen(self.view)
            self.push(self._over)

    def _cut_done(self, action: dict[str, Any] | None) -> None:
        self._cut = None
        if action is not None:
            self.shell.play(action)

    def seed_log(self, game: Mapping[str, Any], log: LineLog) -> None:
        self.add_events(list(game.get("log") or ()), log)

    def add_events(self, events: list[dict[str, Any]], log: LineLog) -> None:
        for event in events:
            parts = self.shell.describe(event)
            if parts:
                log.write(self.shell.styled(parts))

    def game_action_allowed(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return action not in ("stand", "fold") or (action in self.legal and not self.pending)

    def action_stand(self) -> None:
        self.shell.play({"kind": "stand"})

    def action_fold(self) -> None:
        self.shell.play({"kind": "fold"})


BOARD = HighCardBoard
