"""``dab-client`` with High Card registered (its rules in the engine's registry, its board where the client's
convention finds it: tests/fixture_board.py), for tests that drive the real program in a terminal."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: fixture_board, fixture_game

import fixture_board  # noqa: E402

from client.__main__ import main  # noqa: E402

if __name__ == "__main__":
    with fixture_board.registered():
        sys.exit(main())
