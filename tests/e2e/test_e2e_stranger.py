"""A client written in JavaScript from the documents alone plays a real dab-server.

``docs/tools/stranger_client.mjs`` knows nothing of this repository's code: it speaks PROTOCOL.md's
msgpack frames itself, plays a round of Down and Back (two human seats and a bot, one of them
reconnecting mid-round, a spectator watching) and a game of Cribbage (two human seats) with random
legal actions, and checks what the documents promise a stranger: one reply per request with the
documented keys, the documented error codes for a few deliberate mistakes, chips conserved, no
hidden card in anyone else's messages, the same seat and hand after a reconnect, and every
deal's commitment and deck (FAIRNESS.md). It exits 1 and lists every difference it found.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "docs" / "tools" / "stranger_client.mjs"
NODE = shutil.which("node")


@pytest.mark.skipif(NODE is None, reason="node is not on PATH: the client written from the documents is JavaScript")
def test_a_client_written_from_the_documents_plays_both_games() -> None:
    done = subprocess.run(
        [NODE, str(CLIENT), "--python", sys.executable, "--short", "--seed", "2026", "--only", "down-and-back,cribbage"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert done.stdout, done.stderr
    report = json.loads(done.stdout)
    assert report["findings"] == [], "\n".join(report["findings"])
    assert done.returncode == 0, done.stderr
    played = report["summary"]
    assert played["down-and-back"]["rounds"] >= 1 and all(n == played["down-and-back"]["rounds"]
                                                          for n in played["down-and-back"]["verified"])
    assert played["cribbage"]["games"] == 1 and min(played["cribbage"]["verifiedDeals"]) >= 1
