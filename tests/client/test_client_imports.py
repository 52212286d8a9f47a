"""Issue 29, "What must be shown" 3 (the client's half): a game's client folder imports no other game's
folder, and the shell (``client/`` outside ``client/games/``) imports no game's folder at all.

What every table shows (the cut and draw dialog, the game over and rematch, the help page, the seat panels)
is the shell's; a board reaches another game's code only by copying it, which ``duplicates`` would see.
The walk reads every import at any depth (inside functions too, relative ones resolved, type-only ones
counted), and every ``"client.games.<game>..."`` string, the ``module:Class`` a board names for the help
page's keys (``Board.KEY_SCREENS``) and imports later. ``engine/``'s half is tests/test_import_direction.py.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from test_import_direction import GAME_NAMES as ENGINE_GAMES, ROOT, imported_modules

CLIENT_GAMES = ROOT / "client" / "games"
BOARD_GAMES = sorted(p.name for p in CLIENT_GAMES.iterdir() if p.is_dir() and not p.name.startswith(("_", ".")))
"""The client's game folders (``client/games/<package>/``, one a board); the modules beside them
(``board.py``, ``__init__.py``: the board's base and the board finder) serve every game."""
MODULE_STRING = re.compile(r"[a-z_][a-z0-9_]*(\.[a-z_][a-z0-9_]*)+(:\w+)?")  # "client.games.x.y:Class"


def game_named(name: str) -> tuple[str, str] | None:
    """``("client"|"engine", package)`` when the dotted ``name`` is in a game's folder, else ``None``."""
    parts = name.split(".")
    if len(parts) > 2 and parts[1] == "games":
        if parts[0] == "client" and parts[2] in BOARD_GAMES:
            return "client", parts[2]
        if parts[0] == "engine" and parts[2] in ENGINE_GAMES:
            return "engine", parts[2]
    return None


def games_reached(path: Path, root: Path = ROOT) -> list[tuple[int, str, str]]:
    """``(line, name, game package)`` for each import of a game's module in ``path``, and each string naming
    one (``"client.games.cribbage.screens:ShowPanel"``)."""
    found = [(line, name, game[1]) for line, name in imported_modules(path, root)
             if (game := game_named(name)) is not None]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            game = game_named(node.value.split(":")[0]) if MODULE_STRING.fullmatch(node.value) else None
            if game is not None:
                found.append((node.lineno, node.value, game[1]))
    return found


def test_the_walk_sees_imports_and_the_strings_boards_name(tmp_path):
    """The checker itself: relative, absolute and function-level imports, and a ``module:Class`` string."""
    sample = tmp_path / "client" / "games" / "cribbage" / "board.py"
    sample.parent.mkdir(parents=True)
    sample.write_text('from ..down_and_back.cut import CutScreen\n'
                      'KEY_SCREENS = (("Cut", "client.games.down_and_back.cut:CutScreen"),)\n'
                      'def f():\n    import engine.games.down_and_back.bots\n    from ..board import Board\n'
                      '    return "a sentence, not client.games.down_and_back"\n')
    found = [(line, game) for line, _, game in games_reached(sample, tmp_path)]
    assert found == [(1, "down_and_back"), (4, "down_and_back"), (2, "down_and_back")]


def test_the_client_knows_both_games_folders():
    assert {"down_and_back", "cribbage"} <= set(BOARD_GAMES) and {"down_and_back", "cribbage"} <= set(ENGINE_GAMES)


def test_no_client_game_folder_reaches_another_games_folder():
    """A board and its widgets use the shell, the board's base and their own game's engine folder only."""
    bad = []
    for game in BOARD_GAMES:
        for path in sorted((CLIENT_GAMES / game).rglob("*.py")):
            bad += [f"{path.relative_to(ROOT)}:{line} {name}" for line, name, other in games_reached(path)
                    if other != game]
    assert bad == []


def test_the_shell_reaches_no_games_folder():
    """``client/`` outside ``client/games/`` (the app, the table shell, its screens and widgets) finds a
    board through ``client.games.board_class`` and a game through ``engine.games`` only."""
    bad = []
    for path in sorted((ROOT / "client").rglob("*.py")):
        if CLIENT_GAMES in path.parents:
            continue
        bad += [f"{path.relative_to(ROOT)}:{line} {name}" for line, name, _ in games_reached(path)]
    assert bad == []


def test_the_boards_base_and_the_board_finder_reach_no_games_folder():
    """``client/games/board.py`` is every board's base and ``client/games/__init__.py`` finds a game's board by
    its name (issue 29 item 7: no list of boards): neither names a game."""
    assert games_reached(CLIENT_GAMES / "board.py") == []
    assert games_reached(CLIENT_GAMES / "__init__.py") == []
