"""The real ``dab-client`` in a terminal (tmux), at 80x24 and 120x40, for both games: what issue 27's items
14 and 16 say a player reads (the screen is read as text, ``tmux capture-pane``).

- Item 14: the lobby's footer shows every key but refresh (``h`` History and ``t`` Leaders were never in
  it); the practice table's top bar shows the table's name and the game's facts whole.
- Item 16: quitting a practice game (no server address) says the truth: the game ends with the window and
  the next ``dab-client`` deals a new one (it said "your seat is kept ... until you come back").
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "ssh"))

from ssh_helpers import TMUX, Tmux, game_server, wait_until  # noqa: E402  (the SSH tests' tmux driver)

needs_tmux = pytest.mark.skipif(TMUX is None, reason="needs tmux")
SIZES = [(80, 24), (120, 40)]
GAMES = ["down-and-back", "cribbage"]


@pytest.fixture
def tmux(request):
    terminals = Tmux(f"words-{request.node.name[-40:]}".replace("[", "-").replace("]", ""))
    yield terminals
    terminals.close()


@pytest.fixture
def server(tmp_path):
    with game_server() as port:
        yield port


def client(tmux: Tmux, tmp_path: Path, size: tuple[int, int], *args: str) -> None:
    config = tmp_path / "config"
    config.mkdir(exist_ok=True)
    (config / "client.json").write_text(json.dumps({"name": "Ann"}))
    # (COLUMNS and LINES, which a pane under pytest has, would pin the size Textual reads at 80x24)
    command = ["env", "-u", "COLUMNS", "-u", "LINES", f"PYTHONPATH={ROOT}", f"DAB_CONFIG_DIR={config}",
               "TERM=xterm-256color", sys.executable, "-m", "client", "--name", "Ann", *args]
    tmux.start("ann", command, width=size[0], height=size[1])


def wait_screen(tmux: Tmux, check, what: str) -> str:
    def shown() -> str | None:
        screen = tmux.settled("ann")
        if "cuts at random" in screen:  # we may be the one to cut: any cut will do
            tmux.keys("ann", "Enter")
            return None
        return screen if check(screen) else None

    try:
        return wait_until(shown, 30, what, interval=0.2)
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the screen:\n{tmux.screen('ann')}") from None


@needs_tmux
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_lobby_footer_shows_history_and_leaders(server, tmux, tmp_path, size):
    client(tmux, tmp_path, size, f"127.0.0.1:{server}")
    screen = wait_screen(tmux, lambda s: "Practice" in s.splitlines()[-1], "the lobby's footer")
    footer = screen.splitlines()[-1]
    for key in ("n New", "j Join", "w Watch", "p Play now", "b Practice", "h History", "t Leaders"):
        assert key in footer, f"{key!r} not in the footer {footer!r}"
    tmux.keys("ann", "h")
    wait_screen(tmux, lambda s: "Your rounds on this server" in s, "h opens the history")


def top_bar_reads(screen: str, facts: str) -> bool:
    """The top bar (one line) holds every word of ``facts`` whole and in order (the fair deal's mark and the
    clock at its end)."""
    words = iter(screen.splitlines()[0].split())
    return all(word in words for word in facts.split())  # (a subsequence: each word found after the last)


@needs_tmux
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("game", GAMES)
def test_quitting_a_practice_game_says_it_is_not_kept(tmux, tmp_path, game, size):
    client(tmux, tmp_path, size, "--game", game, "--bots", "1", "--bot-delay", "0.2")
    # The top bar: the table's name and the game's facts whole, where the game stands first; at 80 columns
    # the rules that do not fit whole are left out (never cut).
    facts = "Round 1  Pot 20" if game == "down-and-back" else "Game 1 deal 1: laying away"
    if size[0] >= 120:
        facts += "  ante 10" if game == "down-and-back" else "  to 121, stake 100, skunks"
    screen = wait_screen(tmux, lambda s: s.startswith(" Practice ") and top_bar_reads(s, facts), "the practice table")
    assert "…" not in screen.splitlines()[0]
    tmux.keys("ann", "C-q")
    screen = wait_screen(tmux, lambda s: "Quit the practice game?" in s, "the question")
    flat = " ".join(screen.split())
    assert "Quit the practice game? It ends with this window: the next" in flat
    assert "dab-client deals a new one." in flat
    assert "until you come back" not in flat
    tmux.keys("ann", "y")
    wait_until(lambda: "Quit the practice game?" not in tmux.screen("ann")
               and not top_bar_reads(tmux.screen("ann"), facts),
               30, "the client to quit")
