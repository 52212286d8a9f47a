"""Chat over whatever the table shows: a panel (the showdown, its result, Cribbage's show), a dialog (the cut,
a question, the menu) or the game over. ``c`` opens it from each of them; at the table itself ``c`` types in
the table's own chat line instead.

While the player types (here, or in the table's chat line) nothing the server sends takes the keyboard
away: a decision's dialog or panel that comes meanwhile opens once the line is sent or left
(:meth:`client.screens.table.TableScreen.when_not_typing`).
"""

from __future__ import annotations

from typing import Any

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from protocol import messages as m

from ..messages import SendRequest
from ..widgets.basics import LineLog, TooSmall

CHAT_LINES = 6  # the recent lines shown above the one typed
MAX_CHAT = 200  # characters in a line, as the table's chat line


class ChatScreen(ModalScreen[None]):
    """The table's recent chat and a line to type: Enter sends it, Escape goes back (to what was shown)."""

    DEFAULT_CSS = f"""
    ChatScreen {{ align: center bottom; }}
    ChatScreen #chat-dialog {{ width: 72; height: auto; margin-bottom: 2; }}
    ChatScreen #chat-lines {{ height: {CHAT_LINES}; }}
    ChatScreen #chat-line {{ height: 1; border: none; padding: 0; background: $boost; }}
    """
    BINDINGS = [Binding("escape", "close", "Back", tooltip="back to what you were looking at (nothing is sent)")]

    def __init__(self, lines: list[Content]) -> None:
        super().__init__()
        self.lines = list(lines)
        self._early = ""  # typed before the line was there to take it (right after c)

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with Vertical(classes="dialog", id="chat-dialog"):
            yield Static(Content.assemble(("Chat to the table", "bold"), ("  Enter sends, Escape goes back", "dim")))
            log = LineLog(id="chat-lines", placeholder="No chat yet.")
            for line in self.lines[-LineLog.MAX_LINES:]:
                log.write(line)
            yield log
            yield Input(id="chat-line", placeholder="say something", max_length=MAX_CHAT, select_on_focus=False)

    def on_mount(self) -> None:
        line = self.query_one("#chat-line", Input)
        if self._early:
            line.value, self._early = self._early[:MAX_CHAT], ""
            line.cursor_position = len(line.value)
        self.set_focus(line)

    def on_key(self, event: events.Key) -> None:
        """Keys typed before the line had the keyboard are the line's too, never lost nor a game key's."""
        if event.is_printable and event.character and not isinstance(self.focused, Input):
            event.stop()
            line = self.query("#chat-line")
            if line:
                widget = line.first(Input)
                widget.insert_text_at_cursor(event.character)
                self.set_focus(widget)
            else:
                self._early += event.character

    def add_line(self, line: Content) -> None:
        """A chat line that arrived while this is open."""
        self.lines.append(line)
        if self.is_mounted:
            self.query_one("#chat-lines", LineLog).write(line)

    @on(Input.Submitted, "#chat-line")
    def _send(self, event: Input.Submitted) -> None:
        event.stop()
        text = event.value.strip()
        if text:
            self.post_message(SendRequest(m.Chat, {"text": text}))
        self.dismiss(None)

    def action_close(self) -> None:
        self.dismiss(None)


class TableChat:
    """For a screen over the table (a dialog, the game over): ``c`` chats, in the chat dialog on top.

    (A mixin, first among the screen's bases; add :data:`CHAT_BINDING` to its ``BINDINGS``.)
    """

    def action_table_chat(self) -> None:
        open_chat = getattr(self.app, "open_chat", None)  # type: ignore[attr-defined]
        if open_chat is not None:
            open_chat()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "table_chat":
            return getattr(self.app, "table_screen", None) is not None  # type: ignore[attr-defined]
        return super().check_action(action, parameters)  # type: ignore[misc]


# priority: the dialog is on top before the keys typed right after c are handed on (see ChatScreen.on_key)
CHAT_BINDING = Binding("c", "table_chat", "Chat", priority=True,
                       tooltip="chat to the table (over this: Enter sends, Escape goes back)")


def open_chat(app: Any) -> ChatScreen | None:
    """Push the chat dialog over whatever is on top (once); the table's recent chat in it."""
    table = getattr(app, "table_screen", None)
    if table is None or isinstance(app.screen, ChatScreen):
        return None
    screen = ChatScreen(table.chat_lines())
    app.push_screen(screen, callback=lambda _: table.typing_done())
    return screen
