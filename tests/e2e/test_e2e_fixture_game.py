"""Issue 29, "What must be shown" 1 in a real terminal: the real dab-client, with High Card and its test board
registered (tests/boards/high_card_client.py), practises High Card against a bot on its own server on
127.0.0.1, at 80x24 and 120x40; the screen (pyte) shows the board, the shell's cut dialog, the keys and the
rounds in the second person."""

from __future__ import annotations

import re
import sys

import pytest

from evening_helpers import ROOT, Terminal, child_env


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_high_card_plays_in_a_real_terminal(tmp_path, size):
    command = [sys.executable, str(ROOT / "tests" / "boards" / "high_card_client.py"), "--game", "high-card",
               "--bots", "1", "--bot-delay", "0", "--name", "Ann"]
    terminal = Terminal(command, size=size, env=child_env(tmp_path), name="ann")
    try:
        stands = 0
        while stands < 2:
            text = terminal.wait_for(lambda t: "Cut the deck" in t or "Your turn: s stand, d fold" in t)
            if "Cut the deck" in text:
                terminal.press("r")
                terminal.wait_gone("Cut the deck")
                continue
            assert re.search(r"Your card: (10|[2-9JQKA])[♠♥♦♣]", text), text
            assert "Ann: in" in text and "(bot): " in text  # the board's column: who is still in
            mark = terminal.mark()
            terminal.press("s")
            terminal.wait_for("You stand", since=mark)
            stands += 1
        text = terminal.wait_for(re.compile(r"(You take|takes) the pot of"))
        assert "Ann stands" not in text and "You are dealt a card" in text
        assert all(len(line) <= size[0] for line in text.splitlines()) and len(text.splitlines()) <= size[1]
    finally:
        terminal.close()
