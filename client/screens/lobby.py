"""The lobby: the server's tables; create, join, watch or quick-join one."""

from __future__ import annotations

import secrets
import string
import unicodedata
from typing import Any, Iterable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical
from textual.css.query import NoMatches
from textual.content import Content
from textual.reactive import var
from textual.screen import ModalScreen, Screen
from textual.validation import Integer
from textual.widgets import Button, Checkbox, DataTable, Footer, Input, Label, Select, Static

from protocol import messages as m

from ..games import DEFAULT_GAME, game_title
from ..session import CONNECTED
from ..messages import PracticeRequested, SendRequest
from ..widgets.basics import QuietBackground, TooSmall


CODE_ALPHABET = "abcdefghjkmnpqrstuvwxyz23456789"  # generated codes: no look-alikes (l 1, o 0, i)
GENERATED_CODE_LENGTH = 10
GUESSES_PER_DAY = 24 * 60  # dab-server: about one wrong code a minute per table, once a few have failed


def generate_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(GENERATED_CODE_LENGTH))


def code_strength(code: str) -> tuple[str, str]:
    """How hard ``code`` is to guess at the server's limits: a word and a sentence."""
    if not code:
        return "none", "No code: anyone may join. ^g generates one."
    classes = [(string.digits, 10), (string.ascii_lowercase, 26), (string.ascii_uppercase, 26)]
    size = sum(n for chars, n in classes if any(c in chars for c in code))
    if any(not c.isascii() or not c.isalnum() for c in code):
        size += 33
    combinations = size ** len(code)
    days = combinations / 2 / GUESSES_PER_DAY
    word = "weak" if days < 30 else "fair" if days < 3650 else "strong"
    if days < 1:
        time = f"{days * 24:.0f} hours" if days * 24 >= 1 else "under an hour"
    elif days < 3650:
        time = f"{days:,.0f} days"
    else:
        time = "more than ten years"
    return word, f"Code: {word} (about {time} to guess). ^g generates one."


def row_height(cells: Iterable[tuple[Text, int]], console: Any) -> int:
    """The lines a table row needs for each of its ``(cell, column width)`` to show whole (a long name wraps:
    never cut). Given to ``add_row`` rather than left to the table, which would draw the row a frame later."""
    return max([1, *(len(cell.wrap(console, width)) for cell, width in cells)])


def literal(text: str, style: str = "") -> Text:
    """User text as a Rich ``Text`` cell: never markup, control characters dropped."""
    clean = "".join(c for c in text if unicodedata.category(c) not in ("Cc", "Cf"))
    return Text(clean, style=style)


TABLE_NAME_MAX = m.TABLE_NAME_MAX  # the protocol's limit: a longer name is refused


def game_of(settings: dict[str, Any]) -> Any:
    """The engine's game for a table's settings, or ``None`` for a game the engine here does not know."""
    from engine.games import GAMES

    return GAMES.get(settings.get("game") or DEFAULT_GAME)


def rules_label(settings: dict[str, Any]) -> str:
    """The choices away from the game's defaults in words ("7 turns, early call"), or "standard rules"."""
    game = game_of(settings)
    rules = settings.get("rules") or {}
    words = []
    for field in game.setting_fields if game is not None else ():
        value = rules.get(field.name, field.default)
        if field.choices is None or value == field.default:
            continue
        words.append(field.label.lower() if value is True else f"{value} {field.label.lower()}")
    return ", ".join(words) or "standard rules"


def players_label(names: list[str], width: int, ellipsis: str = "…") -> str:
    """Names that fit ``width``, then how many more there are ("Ann, Bob +3").

    Only a first name too long on its own is shortened, with an ellipsis.
    """
    shown: list[str] = []
    for i, name in enumerate(names):
        rest = len(names) - i - 1
        more = f" +{rest}" if rest else ""
        if len(", ".join([*shown, name]) + more) <= width:
            shown.append(name)
            continue
        if shown:
            return ", ".join(shown) + f" +{rest + 1}"
        room = width - len(more) - len(ellipsis)
        shown.append(name[:room].rstrip() + ellipsis)
    return ", ".join(shown)


def default_table_name(player_name: str, suffix: str = "'s table") -> str:
    """ "Ann's table" (or another ``suffix``), the name shortened (not ending in a space) to fit the limit."""
    return player_name.strip()[: TABLE_NAME_MAX - len(suffix)].rstrip() + suffix


def short_number(n: int) -> str:
    if n >= 1_000_000 and n % 1_000_000 == 0:
        return f"{n // 1_000_000}M"
    if n >= 10_000 and n % 1000 == 0:
        return f"{n // 1000}k"
    return str(n)


def stakes_words(settings: dict[str, Any]) -> str:
    """The game's numbers in words ("ante 10, stack 1000"), the server's default where it sent none."""
    game = game_of(settings)
    rules = settings.get("rules") or {}
    numbers = [f for f in game.setting_fields if f.choices is None] if game is not None else []
    return ", ".join(f"{f.label.lower()} {short_number(rules.get(f.name) or f.default)}" for f in numbers)


def game_label(settings: dict[str, Any]) -> str:
    """The table's game, by its title ("Cribbage")."""
    return game_title(settings.get("game") or DEFAULT_GAME)


PLAYERS_WIDTH = 16


def lobby_columns() -> tuple[tuple[str, int], ...]:
    return (("Id", 4), ("Table", 14), ("Players", PLAYERS_WIDTH), ("Seats", 5), ("Game", 13), ("State", 16))


class LobbyScreen(QuietBackground, Screen[None]):
    AUTO_FOCUS = "#tables"
    # Every key but refresh fits the footer at 80 columns (short words); the note below names them too.
    BINDINGS = [
        Binding("n", "create", "New", tooltip="create a table: stakes, seats, house rules, a private code"),
        Binding("j", "join", "Join", tooltip="join the selected table (Enter too)"),
        Binding("w", "watch", "Watch", tooltip="watch the selected table"),
        Binding("p", "quick_join", "Play now", tooltip="play now: join the first open table, or create one"),
        Binding("q", "quick_join", "Play now", show=False,
                tooltip="play now: join the first open table, or create one"),
        Binding("b", "practice", "Practice", tooltip="practice against bots: a table of your own with bots, "
                "dealt at once"),
        Binding("r", "refresh", "Refresh", show=False, tooltip="fetch the table list and your chips again"),
        Binding("h", "history", "History", tooltip="your finished rounds and games on this server, and their replays"),
        Binding("t", "leaderboard", "Leaders", tooltip="the leaderboard: players by chips or games won; hide me"),
        # While an invitation waits its key takes their place in the footer (the note names them); they still act.
        Binding("h", "history('invited')", "History", show=False,
                tooltip="your finished rounds and games on this server, and their replays"),
        Binding("t", "leaderboard('invited')", "Leaders", show=False,
                tooltip="the leaderboard: players by chips or games won; hide me"),
        Binding("escape", "dismiss_notice", "Dismiss", show=False, tooltip="dismiss the line above the tables"),
        Binding("o", "online", "Online", show=False, tooltip="who is online: where each player is, idle or away"),
        Binding("i", "accept_invitation", "Accept invitation", tooltip="go to the table you are invited to "
                "(for a minute)"),
    ]

    tables: var[list[dict[str, Any]]] = var(list, always_update=True, init=False)
    balance: var[int | None] = var(None, init=False)  # chips kept on this server between games
    at_tables = 0  # our chips sitting at tables (set before the balance, whose change shows both)
    online: var[tuple[list[dict[str, Any]], int] | None] = var(None, init=False)  # who is online, how many

    def __init__(self) -> None:
        super().__init__()
        self._notice: str | None = None  # a line that stays until the player acts (show_notice)
        self._select: str | None = None  # a table to put the cursor on once the list has it
        self._ask_code_for: str | None = None  # ... and to ask the private code of, once
        self._shown: dict[str, tuple[Any, ...]] = {}  # the rows on the table, by table id (_fill)
        self._filled_from: list[dict[str, Any]] | None = None  # ... and the list they show

    def compose(self) -> ComposeResult:
        yield TooSmall()
        yield Static(id="lobby-title", markup=False)
        yield Static(id="lobby-notice", markup=False)
        table: DataTable[Any] = DataTable(id="tables", cursor_type="row", zebra_stripes=True)
        yield table
        yield Static(id="lobby-online", markup=False)
        yield Static(id="lobby-note", markup=False)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label, width in lobby_columns():
            table.add_column(label, width=width, key=label.lower())
        self._show_title()
        self._show_notice()
        self._show_online()
        self._fill(self.tables)

    def watch_online(self, online: tuple[list[dict[str, Any]], int] | None) -> None:
        if self.is_mounted:
            self._show_online()

    def _show_online(self) -> None:
        """One line: who is online (the server's order: the lobby first), each where they are, and ``o`` for all."""
        try:
            line = self.query_one("#lobby-online", Static)
        except NoMatches:  # an online push before the lobby is composed, or while it is being removed
            return
        line.display = self.online is not None
        if self.online is None:
            return
        players, total = self.online
        me = getattr(self.app, "player_name", "")
        others = [p for p in players if p.get("name") != me]
        label = f"Online ({total}): " if total else "Online: "
        width = max(20, self.app.size.width - 2) - len(label) - len("  o: all")
        shown: list[Content] = []
        used = 0
        for i, player in enumerate(others):
            part = Content.assemble(Content.styled(player["name"], "bold"), (online_where(player, brief=True), "dim"))
            more = len(others) - i - 1 + (total - len(players))
            tail = len(f", +{more}") if more else 0
            if used + len(part.plain) + 2 + tail > width:
                break
            shown.append(part)
            used += len(part.plain) + 2
        rest = len(others) - len(shown) + (total - len(players))
        parts: list[Content | str | tuple[str, str]] = [(label, "dim")]
        if not others and total <= 1:
            parts.append(("only you", "dim"))
        parts.append(Content(", ").join(shown))
        if rest > 0:
            parts.append((f"{', ' if shown else ''}+{rest}", "dim"))
        parts.append(Content.assemble("  ", Content.styled("o", "bold #ffd75f"), (": all", "dim")))
        line.update(Content.assemble(*parts))

    def action_online(self) -> None:
        from .online import OnlineScreen

        self.app.push_screen(OnlineScreen())

    def action_accept_invitation(self) -> None:
        accept = getattr(self.app, "accept_invitation", None)
        if accept is not None:
            accept()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "accept_invitation":
            return self._invited()
        if action in ("history", "leaderboard") and not parameters:  # the footer's: not while invited (room)
            return not self._invited()
        if action == "online":
            return self.online is not None
        return True

    def _invited(self) -> bool:
        pending = getattr(self.app, "pending_invitation", None)
        return pending is not None and pending() is not None

    def show_notice(self, text: str | None, select: str | None = None, ask_code: bool = False) -> None:
        """A line above the tables that stays (a refused ``--join``) until the player comes to a table (the app
        clears it) or presses Escape; ``select``: put the cursor on that table once listed (``ask_code``: and ask
        its private code, as Enter on it would)."""
        self._notice, self._select = text, select
        self._ask_code_for = select if ask_code else None
        if self.is_mounted:
            self._show_notice()
            self._fill(self.tables)

    def _show_notice(self) -> None:
        notice = self.query_one("#lobby-notice", Static)
        notice.display = self._notice is not None
        if self._notice is not None:
            notice.update(Content.assemble(Content.styled(self._notice, "bold #ffd75f"), ("  Esc: dismiss", "dim")))

    def action_dismiss_notice(self) -> None:
        self.show_notice(None)

    def watch_balance(self, balance: int | None) -> None:
        if self.is_mounted:
            self._show_title()

    def _show_title(self) -> None:
        app = self.app
        where = getattr(app, "server_label", "")
        chips = ""
        if self.balance is not None:  # what each number is: the balance leaves out chips at a table
            chips = f"  {self.balance:,} chips" + (f" + {self.at_tables:,} at tables" if self.at_tables else "")
        self.query_one("#lobby-title", Static).update(Content.assemble(
            ("Down and Back", "bold"), ("  lobby", "dim"), (f"  {where}" if where else "", "dim"),
            ("  as ", "dim"), Content.styled(getattr(app, "player_name", ""), "bold"), (chips, "bold green"),
        ))

    def watch_tables(self, tables: list[dict[str, Any]]) -> None:
        if tables == self._filled_from:  # pushed again unchanged (a list request's answer, a push after it)
            return
        if self.is_mounted:
            try:
                self._fill(tables)
            except NoMatches:  # torn down while the app closes
                pass

    def _cells(self, t: dict[str, Any]) -> tuple[Any, ...]:
        """One table's row: what each column shows."""
        state = t.get("state", "")
        return (
            literal(t["table_id"], "dim"),
            literal(t.get("name", ""), "bold"),
            literal(players_label([p["name"] for p in t.get("players", [])], PLAYERS_WIDTH,
                                  "..." if self._ascii else "…") or "-"),
            f"{len(t.get('players', []))}/{t.get('seats', '?')}",
            game_label(t.get("settings", {})),
            Text.assemble((state, "green" if state == "waiting" else "dim"),
                          (", private" if t.get("private") else "", "yellow")),
        )

    def _fill(self, tables: list[dict[str, Any]]) -> None:
        """Show ``tables`` in the server's order, changing only the rows that differ from those shown: a
        list pushed unchanged (or with one table changed) costs a comparison, not a table built again."""
        table = self.query_one(DataTable)
        selected = self.selected_id
        name_width = dict(lobby_columns())["Table"]
        rows = {t["table_id"]: self._cells(t) for t in tables}
        shown = self._shown
        if len(rows) != len(tables):  # (one id twice: a server's mistake; shown as it came, row by row)
            shown = {}
        if not shown or len(set(shown) - set(rows)) + len(set(rows) - set(shown)) > len(rows) // 2:
            table.clear()  # (mostly new: built afresh)
            shown = {}
        for key in [key for key in shown if key not in rows]:
            table.remove_row(key)
            del shown[key]
        for key, cells in rows.items():
            old = shown.get(key)
            if old is None:
                table.add_row(*cells, key=key, height=row_height([(cells[1], name_width)], self.app.console))
            elif old != cells:
                if old[1] != cells[1]:  # the name (and so perhaps the row's height): the row again, in place
                    table.remove_row(key)
                    table.add_row(*cells, key=key, height=row_height([(cells[1], name_width)], self.app.console))
                else:
                    for column, (was, now) in zip(table.columns, zip(old, cells)):
                        if was != now:
                            table.update_cell(key, column, now)
        self._shown, self._filled_from = rows, tables
        if any(table.get_row_index(key) != i for i, key in enumerate(rows)):  # (a row added or made again)
            order = {key: i for i, key in enumerate(rows)}
            table.sort("id", key=lambda cell: order.get(cell.plain, len(order)))
        wanted, self._select = (self._select, None) if self._select in table.rows else (None, self._select)
        if wanted is not None or (selected is not None and selected in table.rows):
            table.move_cursor(row=table.get_row_index(wanted or selected))
        self._show_note()
        asked = next((t for t in tables if t["table_id"] == self._ask_code_for), None) if wanted else None
        if asked is not None:
            self._ask_code_for = None
            if asked.get("private"):
                self.call_after_refresh(self._with_code, asked, m.Join)

    def _show_note(self) -> None:
        """The selected table's house rules in words, and the keys to use it."""
        note = self.query_one("#lobby-note", Static)
        chosen = self._selected()
        if chosen is None:
            note.update(Content.styled("No tables yet: n new table, p play now, b practice against bots; "
                                       "h history, t leaders, o who's online.", "dim"))
            return
        enter = "Enter" if self._ascii else "⏎"
        code = "; private: asks for its code" if chosen.get("private") else ""
        settings = chosen.get("settings", {})
        stakes = stakes_words(settings)
        note.update(Content.assemble(Content.styled(chosen.get("name", ""), "bold"), ": ", game_label(settings),
                                     f", {stakes}" if stakes else "", "; ", rules_label(settings), code,
                                     (f"\n{enter}/j join, h history, t leaders, o who's online, r refresh", "dim")))

    @on(DataTable.RowHighlighted)
    def _row_highlighted(self) -> None:
        self._show_note()

    @property
    def _ascii(self) -> bool:
        return getattr(getattr(self.app, "display_options", None), "ascii", False)

    @property
    def selected_id(self) -> str | None:
        table = self.query_one(DataTable)
        if not table.row_count:
            return None
        try:
            key, _ = table.coordinate_to_cell_key(table.cursor_coordinate)
        except Exception:
            return None
        return key.value

    def _selected(self) -> dict[str, Any] | None:
        table_id = self.selected_id
        return next((t for t in self.tables if t["table_id"] == table_id), None)

    @on(DataTable.RowSelected)
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        self.action_join()

    def _with_code(self, table: dict[str, Any], kind: type[m.Request]) -> None:
        if not table.get("private"):
            self.post_message(SendRequest(kind, {"table_id": table["table_id"]}))
            return
        from .dialogs import CodeScreen

        def done(code: str | None) -> None:
            if code:
                self.post_message(SendRequest(kind, {"table_id": table["table_id"], "private_code": code}))

        self.app.push_screen(CodeScreen(table.get("name", "")), callback=done)

    def action_join(self) -> None:
        table = self._selected()
        if table is None:
            self.notify("Select a table first (or press n to create one).", severity="warning")
            return
        self._with_code(table, m.Join)  # the server seats us, returns us to a held seat, or we watch

    def action_watch(self) -> None:
        table = self._selected()
        if table is not None:
            self._with_code(table, m.Watch)

    def action_quick_join(self) -> None:
        for table in self.tables:
            if (table.get("state") == "waiting" and not table.get("private")
                    and len(table.get("players", [])) < table.get("seats", 5)):
                self.post_message(SendRequest(m.Join, {"table_id": table["table_id"]}))
                return
        name = getattr(self.app, "player_name", "")
        self.post_message(SendRequest(m.CreateTable, {"name": default_table_name(name)}))

    def action_practice(self) -> None:
        """A table of our own against bots, dealt at once, at the game chosen (offered first: the game played last
        at a table, else the one practised last, else the first)."""
        from .dialogs import GameScreen

        games = form_games()
        app = self.app
        config = getattr(app, "config", None)
        last = next((g for g in (getattr(app, "last_game", None), getattr(config, "practice_game", None))
                     if g in games), None)

        def chosen(game: str | None) -> None:
            if game is not None:
                if config is not None:
                    config.practice_game = game
                self.post_message(PracticeRequested(game))

        if len(games) == 1:
            chosen(last or DEFAULT_GAME)
        else:
            self.app.push_screen(GameScreen([(name, game_title(name)) for name in games], last), chosen)

    def action_history(self, _: str = "") -> None:
        from .history import HistoryScreen

        self.app.push_screen(HistoryScreen())

    def action_leaderboard(self, _: str = "") -> None:
        from .history import LeaderboardScreen

        self.app.push_screen(LeaderboardScreen(form_games()))

    def action_refresh(self) -> None:
        self.post_message(SendRequest(m.ListTables))

    def on_screen_resume(self) -> None:
        """Back in the lobby: fetch the list and our balance, which a game may have changed, and who is online."""
        if getattr(self.app, "connection_state", None) == CONNECTED:
            self.action_refresh()
            refresh = getattr(self.app, "refresh_online", None)
            if refresh is not None:
                refresh()

    def action_create(self) -> None:
        def done(fields: dict[str, Any] | None) -> None:
            if fields is not None:
                self.post_message(SendRequest(m.CreateTable, fields))

        self.app.push_screen(CreateTableScreen(getattr(self.app, "player_name", "")), callback=done)


def online_where(player: dict[str, Any], brief: bool = False) -> str:
    """Where a player online is, and whether idle or away: " (t3)", " (watching t3)", " (idle)"; or, not
    ``brief``, "seated at t3", "watching a private table", "in the lobby"."""
    where, table_id = player.get("where"), player.get("table_id")
    states = [s for s in ("away", "idle") if player.get(s)]
    if brief:
        place = {"seated": f"{table_id}" if table_id else "", "watching": f"watching {table_id or 'a table'}"}
        words = [w for w in (place.get(where, ""), *states) if w]
        return f" ({', '.join(words)})" if words else ""
    if where == "seated":
        return f"seated at {table_id}" if table_id else "seated"
    if where == "watching":
        return f"watching {table_id}" if table_id else "watching a private table"
    return "in the lobby"


def box_label(field: Any) -> str:
    """A choice's box: "Early call (end drawing with this orbit)"; for two numbers, the second's words."""
    if field.choices == (False, True):
        return f"{field.label} ({field.hint})" if field.hint else field.label
    return field.hint or f"{field.label}: {field.choices[-1]}"


class OnOffBox(Checkbox):
    """A checkbox that reads on or off without colour: ``[x]`` or ``[ ]`` (``▐X▌`` looks the same both ways)."""

    @property
    def _button(self) -> Content:
        style = self.get_visual_style("toggle--button")
        return Content.assemble("[", ("x" if self.value else " ", style), "]")


def form_games() -> list[str]:
    """The games a new table may play: those the engine knows and this client has a board for."""
    from ..games import playable_games

    return playable_games()


def wire_settings(game: str, seats: int, rules: dict[str, Any]) -> Any:
    """The ``create_table`` settings for ``game``'s validated ``rules``."""
    return m.TableSettings(game=game, seats=seats, rules=rules)


class CreateTableScreen(ModalScreen[dict[str, Any] | None]):
    """Name, the game (when there is a choice), its settings, seats and an optional private code.

    The game's own settings come from its :attr:`~engine.contract.GameType.setting_fields`:
    a number with limits is a line to type in, a choice of two a box to tick.
    """

    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+s", "create", "Create"),
                Binding("ctrl+g", "generate", "Generate a code")]

    def __init__(self, player_name: str, games: list[str] | None = None) -> None:
        super().__init__()
        self.player_name = player_name
        self.games = games if games is not None else form_games()
        self.game = self.games[0] if self.games else DEFAULT_GAME
        self._typed: dict[str, str] = {}  # the name and code, kept when another game is chosen

    @property
    def game_type(self) -> Any:
        from engine.games import find_game

        return find_game(self.game)

    def compose(self) -> ComposeResult:
        game = self.game_type
        lines = [f for f in game.setting_fields if f.choices is None or len(f.choices) > 2]
        boxes = [f for f in game.setting_fields if f.choices is not None and len(f.choices) == 2]
        yield TooSmall()
        with Vertical(classes="dialog", id="create"):
            yield Static(Content.styled("New table", "bold"))
            with Grid(id="create-grid"):
                yield Label("Name")
                yield Input(self._typed.get("name", default_table_name(self.player_name)), id="name",
                            max_length=TABLE_NAME_MAX, compact=True)
                if len(self.games) > 1:
                    yield Label("Game")
                    yield Select([(game_title(name), name) for name in self.games], value=self.game,
                                 allow_blank=False, id="game", compact=True)
                for field in lines:
                    yield Label(field.label)
                    if field.choices is None:
                        yield Input(str(field.default), id=field.name, type="integer",
                                    validators=[Integer(field.minimum, field.maximum)], compact=True)
                    else:
                        yield Select([(str(choice), choice) for choice in field.choices], value=field.default,
                                     allow_blank=False, id=field.name, compact=True)
                yield Label(f"Seats ({game.min_seats}-{game.max_seats})")
                yield Input(str(game.max_seats), id="seats", type="integer",
                            validators=[Integer(game.min_seats, game.max_seats)], compact=True)
                yield Label("Private code")
                yield Input(self._typed.get("code", ""), id="code", max_length=32,
                            placeholder="(none: anyone may join)", compact=True)
            for field in boxes:
                yield OnOffBox(box_label(field), field.default == field.choices[-1], id=field.name, compact=True)
            yield Static(code_strength(self._typed.get("code", ""))[1], id="code-strength", markup=False)
            yield Static(id="create-error", markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Create", id="ok", variant="primary", compact=True)
                yield Button("Cancel", id="cancel", compact=True)

    @on(Select.Changed, "#game")
    async def _game_chosen(self, event: Select.Changed) -> None:
        """Another game: its own fields, the name and code kept, and the keyboard still on the game's choice
        (the form is made again: it went to the first field, so Tab Tab then "2" set another field than meant)."""
        if event.value != self.game and event.value in self.games:
            self._typed = {key: self.query_one(f"#{key}", Input).value for key in ("name", "code")}
            self.game = str(event.value)
            await self.recompose()
            self.query_one("#game", Select).focus()

    def _number(self, widget_id: str, low: int, high: int, what: str) -> int:
        text = self.query_one(f"#{widget_id}", Input).value.strip()
        if not text.isdigit() or not low <= int(text) <= high:
            raise ValueError(f"{what} must be a whole number from {low:,} to {high:,}")
        return int(text)

    def fields(self) -> dict[str, Any]:
        """The create_table request fields; ``ValueError`` says what is wrong (the game's own words
        for a combination its settings refuse)."""
        from engine.errors import InvalidAction

        game = self.game_type
        rules: dict[str, Any] = {}
        for field in game.setting_fields:
            if field.choices is None:
                rules[field.name] = self._number(field.name, field.minimum, field.maximum, field.label)
            elif len(field.choices) > 2:
                rules[field.name] = self.query_one(f"#{field.name}", Select).value
            else:
                ticked = self.query_one(f"#{field.name}", Checkbox).value
                rules[field.name] = field.choices[-1] if ticked else field.choices[0]
        seats = self._number("seats", game.min_seats, game.max_seats, "Seats")
        try:
            rules = game.settings(rules).to_data()
        except InvalidAction as exc:
            raise ValueError(str(exc)[:1].upper() + str(exc)[1:]) from None
        code = self.query_one("#code", Input).value.strip() or None
        return {"name": self.query_one("#name", Input).value.strip(), "settings": wire_settings(self.game, seats, rules),
                "private_code": code}

    def action_create(self) -> None:
        try:
            fields = self.fields()
        except ValueError as exc:
            self.query_one("#create-error", Static).update(Content.styled(str(exc), "bold #ff5f5f"))
            return
        self.dismiss(fields)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def action_generate(self) -> None:
        self.query_one("#code", Input).value = generate_code()

    @on(Input.Changed, "#code")
    def _code_changed(self, event: Input.Changed) -> None:
        word, text = code_strength(event.value.strip())
        style = {"weak": "bold #ff5f5f", "fair": "#ffd75f", "strong": "#87d787"}.get(word, "dim")
        self.query_one("#code-strength", Static).update(Content.styled(text, style))

    @on(Input.Submitted)
    def _submitted(self) -> None:
        self.action_create()

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "ok":
            self.action_create()
        else:
            self.dismiss(None)
