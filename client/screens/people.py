"""The people at a table (``p``): mute or unmute any of them, and, for the host, remove one.

Names are shown literally (a name is the player's own text). Muting is yours
alone and kept with your player on the server (``mute``); removing a player
(``remove_player``) is the host's and asks first: the player cannot come back
to the table, and in a game they go when the round under way ends. The list
holds the table's seated players (bots left out), the spectators whose chat
this client has seen, and the players you mute elsewhere (to unmute them).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from protocol import messages as m

from ..widgets.basics import TooSmall

KEY = "bold #ffd75f"


@dataclass(frozen=True)
class Person:
    name: str
    where: str  # "seat 2", "watching", "not here"
    muted: bool = False
    removable: bool = False  # at the table (seated or watching), and not us: the host may remove them


class PeopleScreen(ModalScreen[None]):
    """The table's people, to mute or (host) remove; see the module docstring."""

    BINDINGS = [
        Binding("m", "mute", "Mute/unmute", tooltip="hide (again: show) the chat of the player picked, for you"),
        Binding("r", "remove", "Remove", tooltip="host: remove the player picked from the table, for good (asks)"),
        Binding("escape", "close", "Close"),
        Binding("p", "close", "Close", show=False),
    ]

    def __init__(self, people: list[Person], host: bool) -> None:
        super().__init__()
        self.people = people
        self.host = host

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with Vertical(classes="dialog", id="people"):
            yield Static(Content.styled("People at this table", "bold"))
            yield OptionList(*self._options(), id="people-options", compact=True)
            keys = [Content.styled("m", KEY), " mute / unmute   "]
            if self.host:
                keys += [Content.styled("r", KEY), " remove from the table   "]
            keys += [Content.styled("Esc", KEY), " close"]
            yield Static(Content.assemble(*keys), id="people-keys")
            yield Static("", id="people-status", markup=False)

    def _options(self) -> list[Option]:
        if not self.people:
            return [Option(Content.styled("Nobody else is here.", "dim"), id="none", disabled=True)]
        return [Option(self._line(person), id=str(i)) for i, person in enumerate(self.people)]

    @staticmethod
    def _line(person: Person) -> Content:
        return Content.assemble(Content(person.name), Content.styled(f"  {person.where}", "dim"),
                                Content.styled("  muted", "bold #ff8700") if person.muted else "")

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()
        self._load_mutes()

    @work(group="people", exit_on_error=False)
    async def _load_mutes(self) -> None:
        """Mark whom we mute (the server keeps it); add those not at the table, to unmute them."""
        result = await self.app.ask(m.Mutes, {})  # type: ignore[attr-defined]
        if result is None or not self.is_mounted:
            return
        muted = {name.casefold(): name for name in result.get("names", []) if isinstance(name, str)}
        people = [replace(p, muted=p.name.casefold() in muted) for p in self.people]
        here = {p.name.casefold() for p in people}
        people += [Person(name, "not here", True) for folded, name in sorted(muted.items()) if folded not in here]
        self._show(people)

    def _show(self, people: list[Person]) -> None:
        options = self.query_one(OptionList)
        highlighted = options.highlighted
        self.people = people
        options.clear_options()
        options.add_options(self._options())
        if people:
            options.highlighted = min(highlighted or 0, len(people) - 1)

    def _picked(self) -> tuple[int, Person] | None:
        index = self.query_one(OptionList).highlighted
        if index is None or not self.people or index >= len(self.people):
            return None
        return index, self.people[index]

    def _status(self, text: str) -> None:
        self.query_one("#people-status", Static).update(Content(text))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "remove":
            picked = self._picked()
            return self.host and picked is not None and picked[1].removable
        if action == "mute":
            return self._picked() is not None
        return True

    def on_key(self, event: events.Key) -> None:
        if event.key == "r" and not self.host:  # not ours: say so instead of doing nothing
            event.stop()
            self._status("Only the table's host can remove a player.")

    @on(OptionList.OptionHighlighted)
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.refresh_bindings()

    def action_mute(self) -> None:
        picked = self._picked()
        if picked is not None:
            self._mute(*picked)

    @work(group="people", exit_on_error=False)
    async def _mute(self, index: int, person: Person) -> None:
        result = await self.app.ask(m.Mute, {"name": person.name, "muted": not person.muted})  # type: ignore[attr-defined]
        if result is None or not self.is_mounted:
            return
        muted = bool(result.get("muted"))
        people = list(self.people)
        if index < len(people) and people[index] == person:
            people[index] = replace(person, muted=muted)
            self._show(people)
        self._status(f"You muted {person.name}: their chat is hidden for you, at every table." if muted
                     else f"You unmuted {person.name}: you see their chat again.")

    def action_remove(self) -> None:
        picked = self._picked()
        if picked is None or not self.host or not picked[1].removable:
            return
        from .dialogs import ConfirmScreen

        person = picked[1]

        def answered(yes: bool | None) -> None:
            if yes:
                self._remove(person)

        self.app.push_screen(ConfirmScreen(
            f"Remove {person.name} from this table? They cannot come back to it. During a game they go "
            "when the round under way ends, and their seat is then played for them."), answered)

    @work(group="people", exit_on_error=False)
    async def _remove(self, person: Person) -> None:
        result: dict[str, Any] | None = await self.app.ask(m.RemovePlayer, {"name": person.name})  # type: ignore[attr-defined]
        if result is None or not self.is_mounted:
            return
        if result.get("at_round_end"):
            self._status(f"{person.name} goes when this round ends.")
            people = [replace(p, removable=False) if p == person else p for p in self.people]
        else:
            self._status(f"{person.name} was removed from the table.")
            people = [p for p in self.people if p != person]
        self._show(people)

    def action_close(self) -> None:
        self.dismiss(None)
