"""The real ``dab-client`` in a terminal (tmux) against a real ``dab-server``, at 80x24 and 120x40, for both
games (issue 27 item 17): from 120x36 up the table draws large cards and the side panel (the game's
reference, its scores, the chat); at 80x24 it does not; resizing the window either way lays it out again.

The screen is read as text, as a person reads it (``tmux capture-pane``)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "ssh"))

from ssh_helpers import TMUX, Tmux, game_server, wait_until  # noqa: E402  (the SSH tests' tmux driver)

needs_tmux = pytest.mark.skipif(TMUX is None, reason="needs tmux")

BIG, SMALL = "╭───────╮", "╭────╮"  # the top edge of a card at 120x36 and up, and below


@pytest.fixture
def server(tmp_path):
    with game_server() as port:
        yield port


@pytest.fixture
def tmux(request):
    terminals = Tmux(f"large-{request.node.name[-40:]}".replace("[", "-").replace("]", ""))
    yield terminals
    terminals.close()


def play(tmux: Tmux, tmp_path: Path, port: int, game: str, size: tuple[int, int]) -> None:
    """Ann's dab-client at ``size``, in the lobby, deals herself a practice table of ``game`` (``b``, ``b``)."""
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    (config / "client.json").write_text(json.dumps({"name": "Ann", "practice_game": game}))
    # (COLUMNS and LINES, which a pane under pytest has, would pin the size Textual reads at 80x24)
    command = ["env", "-u", "COLUMNS", "-u", "LINES", f"PYTHONPATH={ROOT}", f"DAB_CONFIG_DIR={config}", "TERM=xterm-256color",
               sys.executable, "-m", "client", f"127.0.0.1:{port}", "--name", "Ann"]
    tmux.start("ann", command, width=size[0], height=size[1])
    tmux.wait_for("ann", "practice")  # the lobby's keys
    tmux.keys("ann", "b")  # practice: which game?
    tmux.wait_for("ann", "Practise against bots at")
    tmux.keys("ann", "b")  # the one offered first: the one practised last (the config's)


def cards_in_a_row(screen: str, edge: str) -> int:
    """The most card tops of one kind on a line (a hand of them)."""
    return max(line.count(edge) for line in screen.splitlines())


def wide(screen: str, columns: int) -> bool:
    """The top bar spans ``columns`` (the clock at its right end): the screen is laid out for that width."""
    lines = screen.splitlines()
    return bool(lines) and columns - 4 < len(lines[0].rstrip()) <= columns


def wait_screen(tmux: Tmux, check, what: str) -> str:
    def shown() -> str | None:
        screen = tmux.settled("ann")
        return screen if check(screen) else None

    try:
        return wait_until(shown, 30, what)
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the screen:\n{tmux.screen('ann')}") from None


def cut_until(tmux: Tmux, check, what: str) -> str:
    """Wait for ``check`` on the screen, cutting the pack (Enter) whenever the cut asks us to."""
    def shown() -> str | None:
        screen = tmux.settled("ann")
        if "Cut here" in screen:
            tmux.keys("ann", "Enter")
            return None
        return screen if check(screen) else None

    try:
        return wait_until(shown, 30, what, interval=0.2)
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the screen:\n{tmux.screen('ann')}") from None


def side(screen: str, heading: str) -> str:
    """The side panel's column: each line from where ``heading`` begins on its line (the panel's left edge)."""
    line = next(line for line in screen.splitlines() if heading in line)
    left = line.index(heading)
    return "\n".join(line[left:] for line in screen.splitlines())


@needs_tmux
@pytest.mark.parametrize("start", [(80, 24), (120, 40)], ids=["from-80x24", "from-120x40"])
def test_down_and_back_in_a_large_terminal_has_large_cards_the_rankings_and_the_chat(server, tmux, tmp_path, start):
    play(tmux, tmp_path, server, "down-and-back", start)
    large = (lambda s: wide(s, 120) and "Going down (4)" in s and cards_in_a_row(s, BIG) >= 7)
    small = (lambda s: wide(s, 80) and "Stock" in s and cards_in_a_row(s, SMALL) >= 7
             and "Going down (4)" not in s)
    cut_until(tmux, large if start == (120, 40) else small, f"the table at {start}")  # we may be the cutter
    if start == (80, 24):
        tmux.resize("ann", 120, 40)
    screen = cut_until(tmux, large, "the large table")
    panel = side(screen, "Going down (4)")
    assert "Coming back (3)" in panel and "1 Quad" in panel and "8 High card" in panel
    assert "Rounds: each result is listed here." in panel and "Chat: press c to talk" in panel
    assert "Stock" in screen and "Pile" in screen and " left" in screen  # the table itself

    tmux.keys("ann", "c")
    wait_screen(tmux, lambda s: "Back to cards" in s, "the chat line to type in")  # its key in the footer
    tmux.keys("ann", "-l", "hello from a big screen")
    tmux.keys("ann", "Enter")
    screen = wait_screen(tmux, lambda s: "Ann: hello from a big screen" in s, "the chat line")
    assert "Ann: hello from a big screen" in side(screen, "Going down (4)")

    tmux.resize("ann", 80, 24)
    screen = wait_screen(tmux, small, "the 80x24 table again")
    assert "Ann: hello from a big screen" in screen  # the chat under the log, as ever
    tmux.resize("ann", 120, 40)
    wait_screen(tmux, large, "the large table again")


@needs_tmux
@pytest.mark.parametrize("start", [(80, 24), (120, 40)], ids=["from-80x24", "from-120x40"])
def test_cribbage_in_a_large_terminal_lays_the_play_out_large_with_the_scoring_and_the_deals(
        server, tmux, tmp_path, start):
    play(tmux, tmp_path, server, "cribbage", start)
    large = (lambda s: wide(s, 120) and "Scoring" in s and "Starter" in s and cards_in_a_row(s, BIG) >= 6)
    small = (lambda s: wide(s, 80) and cards_in_a_row(s, SMALL) >= 6 and "Scoring" not in s
             and len([line for line in s.splitlines() if "·····" in line]) == 6)
    cut_until(tmux, lambda s: "Lay away" in s, "the deal")  # the draw for the first deal, the cut
    wait_screen(tmux, large if start == (120, 40) else small, f"the table at {start}")
    if start == (80, 24):
        tmux.resize("ann", 120, 40)
    screen = wait_screen(tmux, large, "the large table")
    panel = side(screen, "Scoring")
    assert "fifteen" in panel and "his nobs" in panel and "Play" in panel and "Show" in panel
    assert re.search(r"Deal\s+Ann\s+\S", panel) and re.search(r"^\s*1 ·\s+0\s+0\b", panel, re.M), panel
    pegs = [line for line in screen.splitlines() if "·····" in line]
    assert len(pegs) == 6, screen  # both sides' three rows of holes

    tmux.keys("ann", "1", "2", "Enter")  # lay two cards away: the play begins
    screen = cut_until(tmux, lambda s: "Count" in s, "the play")
    assert "Starter" in screen and "crib" in screen
    tmux.resize("ann", 80, 24)
    wait_screen(tmux, lambda s: wide(s, 80) and "Scoring" not in s
                and cards_in_a_row(s, SMALL) >= 1 and BIG not in s, "the 80x24 table again")
    tmux.resize("ann", 120, 40)
    wait_screen(tmux, lambda s: wide(s, 120) and "Scoring" in s and BIG in s, "the large table again")
