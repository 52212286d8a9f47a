"""The fair deal's details (key f at a table): what the round's check proves, its seeds, the server's key.

The top bar shows a few words (``client.fairness.RoundStatus.short``); this
says it all, in plain words (docs/FAIRNESS.md).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Static

from ..widgets.basics import TooSmall

if TYPE_CHECKING:
    from ..fairness import RoundStatus

PROVES = {
    "verified — your seed included": "Nobody could choose this deal, not even the server: the deck was made "
                                     "from your own seed too, committed before anyone's seed was known.",
    "verified": "The deck was made from the players' seeds, committed before any was known, and dealt "
                "exactly as committed. Your own seed was not in it (you watched, or it came too late).",
    "verified — server seed only": "The deck came from the server's seed alone (no player's seed was in "
                                   "time): it was dealt exactly as committed, but the server could have "
                                   "chosen it.",
}


def key_lines(key_state: tuple[str, str] | None, server: str | None) -> list[str]:
    from engine.fairness import fingerprint

    if key_state is None:
        return ["The server's key: not seen yet."]
    key, state = key_state
    try:
        shown = fingerprint(bytes.fromhex(key))
    except ValueError:
        return [f"The server's key is malformed: {key[:20]!r}"]
    words = {"new": "first seen now: pinned for this server", "known": "the one pinned for this server",
             "changed": "CHANGED: not the one pinned for this server, so no deal verifies",
             "": "a practice game's key (not pinned)"}[state]
    where = f" of {server}" if server else ""
    return [f"The server's key{where}: {shown}", f"  ({words}). Compare it with what ssh or the server's "
            "operator shows."]


def deal_lines(status: "RoundStatus | None", names: Mapping[int, str], me: int | None) -> list[str]:
    if status is None:
        return ["No round's deal seen yet at this table (a round joined half-way is not checked)."]

    def who(seats: tuple[int, ...] | list[int]) -> str:
        return ", ".join("you" if s == me else names.get(s, f"seat {s}") for s in seats) or "nobody"

    lines = [f"Round {status.round}: {status.short}.", f"  Commitment {status.commitment[:16]}... "
             "(compare it with the other players: it is the same for everyone)."]
    if status.phase in ("commit", "reveal"):
        lines.append(f"  Sealing the deal: seeds committed by {who(status.committed)}; it waits at most "
                     f"{status.window_ms / 1000:g} s for each phase.")
    else:
        lines.append(f"  The deck was made from the server's seed and the seeds of {who(status.client_seeds)}.")
        if status.withheld:
            lines.append(f"  Withheld (committed, not revealed): {who(status.withheld)}.")
        if status.mine is not None:
            lines.append("  Your seed is in the deck." if status.mine_in else "  Your seed is NOT in the deck.")
    verdict = status.verdict
    if verdict is not None:
        if verdict.ok:
            lines.append("  " + PROVES.get(verdict.summary.split(" (")[0], PROVES["verified"]))
        else:
            lines.append(f"  NOT VERIFIED: {verdict.message}")
    for problem in status.problems if verdict is None else ():
        lines.append(f"  NOT VERIFIED: {problem}")
    return lines


class FairDealScreen(ModalScreen[None]):
    BINDINGS = [Binding("escape", "close", "Close"), Binding("f", "close", "Close", show=False),
                Binding("enter", "close", "Close", show=False)]

    def __init__(self, status: "RoundStatus | None", key_state: tuple[str, str] | None, server: str | None,
                 names: Mapping[int, str], me: int | None) -> None:
        super().__init__()
        self.lines = deal_lines(status, names, me) + [""] + key_lines(key_state, server)

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with Vertical(classes="dialog", id="fair-deal"):
            yield Static(Content.styled("The fair deal (docs/FAIRNESS.md)", "bold"))
            with VerticalScroll():
                yield Static(Content("\n".join(self.lines)), markup=False, id="fair-details")
            yield Static(Content.styled("Escape closes", "dim"))

    def action_close(self) -> None:
        self.dismiss(None)
