"""Who is online (the lobby's ``o``), and the host's invitation picker (``i`` at the table)."""

from __future__ import annotations

from typing import Any

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static

from protocol import messages as m

from ..widgets.basics import TooSmall
from .lobby import literal, online_where

COLUMNS = (("Player", 24), ("Where", 32), ("Now", 9))


def _now(player: dict[str, Any]) -> str:
    return ", ".join(s for s in ("away", "idle") if player.get(s))


def table_name(app: Any, table_id: str | None) -> str:
    """The name of a table in the lobby's list, if it is there."""
    return next((t.get("name", "") for t in getattr(app, "tables", ()) if t.get("table_id") == table_id), "")


class OnlineScreen(ModalScreen[None]):
    """Everyone online the server lists (at most 50; its count of all of them), where each is: the lobby,
    watching a table, seated at one; idle (nothing done for 5 minutes) or away (sitting out)."""

    BINDINGS = [Binding("escape", "close", "Back"), Binding("o", "close", "Back", show=False)]

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with Vertical(classes="dialog", id="online"):
            yield Static(id="online-title", markup=False)
            table: DataTable[Any] = DataTable(id="online-list", cursor_type="row", zebra_stripes=True)
            yield table
            yield Static(Content.styled("Escape: back. A host invites a player from the table (i).", "dim"))

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label, width in COLUMNS:
            table.add_column(label, width=width)
        self.show(getattr(self.app, "online", None))
        refresh = getattr(self.app, "refresh_online", None)
        if refresh is not None:
            refresh()

    def show(self, online: tuple[list[dict[str, Any]], int] | None) -> None:
        players, total = online or ([], 0)
        shown = f"{len(players)} of {total}" if total > len(players) else str(total)
        self.query_one("#online-title", Static).update(Content.assemble(
            Content.styled("Who is online", "bold"), (f"  {shown}", "dim")))
        table = self.query_one(DataTable)
        table.clear()
        for player in players:
            where = online_where(player)
            name = table_name(self.app, player.get("table_id"))
            table.add_row(literal(player["name"], "bold"), literal(f"{where} {name}".rstrip()), _now(player))

    def action_close(self) -> None:
        self.dismiss(None)


class InviteScreen(ModalScreen[str | None]):
    """The players online a host may invite (in the lobby or watching: not seated anywhere), the
    server's answer to ``list_online``; Enter invites the highlighted one, Escape none."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id = table_id
        self.names: list[str] = []

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with Vertical(classes="dialog", id="invite"):
            yield Static(Content.assemble(Content.styled("Invite a player", "bold"),
                                          (f" to {self.table_id}: they get a notification and i to join", "dim")))
            table: DataTable[Any] = DataTable(id="invite-list", cursor_type="row", zebra_stripes=True)
            yield table
            yield Static(id="invite-note", markup=False)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label, width in COLUMNS[:2]:
            table.add_column(label, width=width)
        self.query_one("#invite-note", Static).update(Content.styled("Asking who is online…", "dim"))
        self._ask()

    @work(group="net", exit_on_error=False)
    async def _ask(self) -> None:
        ask = getattr(self.app, "ask", None)
        result = await ask(m.ListOnline, {}) if ask is not None else None
        if not self.is_mounted:
            return
        remember = getattr(self.app, "_remember_online", None)
        if result is not None and remember is not None:
            remember(result.get("players"), result.get("total"))
        me = getattr(self.app, "player_name", "")
        players = [p for p in (result or {}).get("players", ())
                   if isinstance(p, dict) and p.get("where") != "seated" and p.get("name") != me]
        self.names = [p["name"] for p in players]
        table = self.query_one(DataTable)
        for player in players:
            table.add_row(literal(player["name"], "bold"), literal(online_where(player)), key=player["name"])
        note = "Enter invites; Escape: none." if players else \
            "Nobody to invite: everyone online is seated at a table (or it is only you). Escape: back."
        self.query_one("#invite-note", Static).update(Content.styled(note, "dim"))
        table.focus()

    @on(DataTable.RowSelected)
    def _chosen(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.dismiss(str(event.row_key.value))

    def action_cancel(self) -> None:
        self.dismiss(None)
