"""The fair deal in the top bar of the real ``dab-client`` (tmux) against a real ``dab-server``, at 80x24
and 120x40, for both games (issues 28 and 27 item 8): the deal's status folds into the top bar ("deal
fixed, your seed in", then what the check proved: "verified — your seed included"), whole at 80
columns too; none of the fair deal's events writes a line in the table log; key f shows the details
(the commitment, whose seeds made the deck, the server key's fingerprint); once the round is over (played
for us: we sit out) the top bar says what the check proved. Below 100 columns the mark
takes its short form ("your seed in", "✓ your seed"), and the rest of the top bar gives way to it.

The screen is read as text, as a person reads it (``tmux capture-pane``)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from test_e2e_large import cut_until, needs_tmux, play, server, tmux, wait_screen  # noqa: E402,F401  (fixtures)

FAIR_LOG_LINES = ("commits to a seed", "reveals the seed", "Seeds sealed", "deck is fixed from", "is committed:",
                  "seed revealed")


def top(screen: str) -> str:
    return screen.splitlines()[0] if screen else ""


@needs_tmux
@pytest.mark.parametrize("game", ["down-and-back", "cribbage"])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_the_top_bar_says_what_each_deal_proves_and_the_log_keeps_none_of_it(server, tmux, tmp_path, game, size):
    play(tmux, tmp_path, server, game, size)
    wide = size[0] >= 100
    fixed_mark, proved = ("deal fixed, your seed in", "verified — your seed included") if wide else ("your seed in", "✓ your seed")
    seen: list[str] = []

    def fixed(screen: str) -> bool:
        seen.append(screen)
        ready = "Lay away" in screen if game == "cribbage" else ("Take" in screen or "take" in screen)
        return fixed_mark in top(screen) and ready

    cut_until(tmux, fixed, "the deal fixed with our seed, in the top bar")  # (cutting or drawing when asked)
    where = "Game 1 deal 1" if game == "cribbage" else "Round 1"
    assert where in top(seen[-1]), top(seen[-1])  # where the game stands is never cut for the mark either
    tmux.keys("ann", "f")
    details = wait_screen(tmux, lambda s: "The fair deal" in s and "SHA256:" in s, "the fair deal's details")
    assert "Your seed is in the deck" in details and "Commitment " in details
    assert "seeds of you" in details.replace("\n", " ") or "seeds of" in details
    tmux.keys("ann", "Escape")
    wait_screen(tmux, lambda s: "The fair deal" not in s, "the details closed")
    tmux.keys("ann", "a")  # sit out: the server plays the rest of the round for us, the bots play theirs
    wait_screen(tmux, lambda s: "Sit out?" in s, "asked to sit out")
    tmux.keys("ann", "y")
    screen = wait_screen(tmux, lambda s: proved in top(s), "what the deal proved, between the rounds")
    assert len(top(screen)) <= size[0] and f" {proved}" in top(screen), top(screen)  # the mark whole
    for shown in seen + [screen]:
        for line in FAIR_LOG_LINES:
            assert line not in shown, (line, shown)
