"""Issue 13, "What must be shown" 1: only a game's own code imports the game.

The server, the protocol and the client (outside ``client/games/``, where
each game's board lives) reach games through :mod:`engine.games` alone
(``GAMES`` / ``find_game``). The test walks every import statement of every
module, at any depth (imports inside functions count too), with relative
imports resolved, and fails naming each module that imports a game.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GAMES_PACKAGE = "engine.games"
GAME_NAMES = sorted(
    p.name for p in (ROOT / "engine" / "games").iterdir()
    if p.is_dir() and not p.name.startswith(("_", ".")) and (p / "__init__.py").exists()
)
"""The game packages (``engine/games/<game>/``); the modules beside them (``base.py``) are every game's."""


def imported_modules(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """``(line, dotted name)`` of everything ``path`` (a module under ``root``) imports, at any depth;
    ``from a import b`` yields ``a.b``."""
    package = ".".join(path.relative_to(root).with_suffix("").parts[:-1])
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
    return found


def imports_of_games(top: str, exclude: str | None = None) -> list[str]:
    """Every import of a game module under the package ``top`` (``exclude``: a sub-folder left out)."""
    bad = []
    for path in sorted((ROOT / top).rglob("*.py")):
        if exclude is not None and (ROOT / top / exclude) in path.parents:
            continue
        for line, name in imported_modules(path):
            parts = name.split(".")
            if parts[:2] == GAMES_PACKAGE.split(".") and len(parts) > 2 and parts[2] in GAME_NAMES:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    return bad


def test_the_walk_sees_relative_and_function_level_imports(tmp_path):
    """The checker itself: games imported inside a function, relatively or absolutely, are all seen."""
    sample = tmp_path / "server" / "sample.py"
    sample.parent.mkdir()
    sample.write_text("from engine.games import find_game\n"
                      "def f():\n    from ..engine.games.down_and_back import rules\n"
                      "    import engine.games.down_and_back.bots\n")
    names = [name for _, name in imported_modules(sample, tmp_path)]
    assert names == ["engine.games.find_game", "engine.games.down_and_back.rules", "engine.games.down_and_back.bots"]


def test_down_and_back_is_a_registered_game_the_walk_knows():
    assert "down_and_back" in GAME_NAMES


def test_the_registry_names_every_game_package_by_its_own_name():
    """``engine.games.GAMES`` knows each game's name without importing it; looked up, the game says the same
    name, and its package is one the walk knows."""
    from engine.games import GAMES

    assert [GAMES[name].name for name in GAMES] == list(GAMES)
    assert sorted(type(game).__module__.split(".")[2] for game in GAMES.values()) == GAME_NAMES


@pytest.mark.parametrize("top", ["server", "protocol"])
def test_server_and_protocol_import_no_game(top):
    assert imports_of_games(top) == []


def test_client_outside_its_games_folder_imports_no_game():
    assert imports_of_games("client", exclude="games") == []


def test_the_games_shared_base_imports_no_game():
    """``engine/games/base.py`` (and any module beside the game packages) serves every game, so it names none."""
    shared = [p for p in (ROOT / "engine" / "games").glob("*.py")]
    assert any(p.name == "base.py" for p in shared)
    bad = [f"{p.relative_to(ROOT)}:{line} imports {name}" for p in shared for line, name in imported_modules(p)
           if name.split(".")[:2] == GAMES_PACKAGE.split(".") and len(name.split(".")) > 2
           and name.split(".")[2] in GAME_NAMES]
    assert bad == []


def imports_of_other_games(folder: Path, game: str) -> list[str]:
    """Every import, under ``folder``, of a game's package other than ``game`` (engine's or client's)."""
    bad = []
    for path in sorted(folder.rglob("*.py")):
        for line, name in imported_modules(path):
            parts = name.split(".")
            if parts[0] in ("engine", "client") and parts[1:2] == ["games"] and len(parts) > 2 \
                    and parts[2] in GAME_NAMES and parts[2] != game:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {name}")
    return bad


@pytest.mark.parametrize("top, game", [(top, game) for top in ("engine", "client") for game in GAME_NAMES])
def test_no_game_folder_imports_another_games_folder(top, game):
    """A game is its two folders: neither imports another game's (what both need lives in the base or the shell)."""
    folder = ROOT / top / "games" / game
    if not folder.is_dir():
        pytest.skip(f"{game} has no {top} folder")
    assert imports_of_other_games(folder, game) == []


def test_the_other_games_walk_sees_an_import_of_another_game(tmp_path):
    """The checker itself: a game folder's import of another game, relative or absolute, is seen."""
    folder = tmp_path / "client" / "games" / "cribbage"
    folder.mkdir(parents=True)
    (folder / "board.py").write_text("from ..down_and_back.cut import CutDialog\nimport engine.games.cribbage.rules\n")
    found = []
    for path in folder.rglob("*.py"):
        found += [name for _, name in imported_modules(path, tmp_path)]
    assert found == ["client.games.down_and_back.cut.CutDialog", "engine.games.cribbage.rules"]


def module_imports(path: Path, runtime_only: bool) -> set[str]:
    """The dotted names ``path`` imports (``runtime_only``: leaving out ``if TYPE_CHECKING:`` blocks)."""
    tree = ast.parse(path.read_text(), str(path))
    if runtime_only:
        for node in ast.walk(tree):
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                node.body = []
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            names |= {module} | {f"{module}.{alias.name}" for alias in node.names}
    return names


def test_the_lobby_knows_sessions_only_by_a_protocol():
    """net imports the lobby; the lobby imports nothing of net, not even for its types (issue 13)."""
    assert not {n for n in module_imports(ROOT / "server" / "lobby.py", runtime_only=False)
                if n == "server.net" or n.startswith("server.net.")}


def test_server_modules_import_one_another_without_a_cycle():
    """At run time (type-only imports aside) the server's modules form no import cycle."""
    modules = {f"server.{p.stem}": p for p in (ROOT / "server").glob("*.py") if p.stem != "__init__"}
    imports = {name: set(module_imports(path, runtime_only=True)) for name, path in modules.items()}
    graph = {name: {m for m in modules if m != name and m in imports[name]} for name in modules}
    done: set[str] = set()

    def visit(name: str, trail: list[str]) -> None:
        assert name not in trail, f"import cycle: {' -> '.join(trail[trail.index(name):] + [name])}"
        if name not in done:
            for other in sorted(graph[name]):
                visit(other, trail + [name])
            done.add(name)

    for name in sorted(graph):
        visit(name, [])
