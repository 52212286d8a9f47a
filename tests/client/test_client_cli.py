"""The command line: addresses, remembered settings, and one-line errors instead of tracebacks."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from client.__main__ import build_parser, main, run
from client.address import Address, AddressError, parse_address
from client.app import DabApp
from client.config import ClientConfig, config_dir
from protocol import Connection, RemoteProtocolError
from protocol import messages as m

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(("text", "expected"), [
    ("example.org", Address("example.org", 7777)),
    ("example.org:7000", Address("example.org", 7000)),
    ("127.0.0.1:1", Address("127.0.0.1", 1)),
    ("[::1]:7777", Address("::1", 7777)),
    ("[::1]", Address("::1", 7777)),
    ("::1", Address("::1", 7777)),
    (" host ", Address("host", 7777)),
])
def test_parse_address(text, expected):
    assert parse_address(text) == expected


@pytest.mark.parametrize("text", ["", ":7777", "host:", "host:0", "host:65536", "host:http", "[::1", "[::1]x",
                                  "a b:1", "user@host"])
def test_bad_addresses_say_why(text):
    with pytest.raises(AddressError) as info:
        parse_address(text)
    assert "\n" not in str(info.value)


def test_address_prints_back():
    assert str(Address("::1", 7000)) == "[::1]:7000" and str(Address("h", 1)) == "h:1"


def test_config_round_trip_and_damaged_file(config_dir):
    assert config_dir == Path(os.environ["DAB_CONFIG_DIR"])  # the test dir, never $HOME
    assert config_dir.resolve() != Path.home().resolve()
    config = ClientConfig.load()
    assert config == ClientConfig()
    config.name, config.last_server, config.tokens = "Zed", "h:1", {"h:1": "abc_def"}
    config.save()
    data = json.loads((config_dir / "client.json").read_text())
    assert data == {"name": "Zed", "last_server": "h:1", "tokens": {"h:1": "abc_def"}}
    assert ClientConfig.load() == config
    (config_dir / "client.json").write_text("{not json")
    assert ClientConfig.load() == ClientConfig()
    other = config_dir / "elsewhere"
    assert config_dir_override_works(other)


def config_dir_override_works(path: Path) -> bool:
    config = ClientConfig.load(path)
    config.name = "Q"
    config.save()
    return ClientConfig.load(path).name == "Q" and config_dir(path) == path


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_refused_connection_is_one_line_and_nonzero(capsys):
    code = main([f"127.0.0.1:{closed_port()}"])
    err = capsys.readouterr().err
    assert code == 3
    assert err.count("\n") == 1 and err.startswith("dab-client: cannot connect to 127.0.0.1:")
    assert "refused" in err and "Traceback" not in err


def test_bad_address_is_a_usage_error(capsys):
    assert main(["host:notaport"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad port 'notaport'" in err


def test_help_and_version(capsys):
    for flag in ("--help", "--version"):
        with pytest.raises(SystemExit) as info:
            main([flag])
        assert info.value.code == 0
    out = capsys.readouterr().out
    assert "practice game" in out and "--ascii" in out and "--four-colour" in out and "dab-client " in out


async def run_against(handler) -> tuple[int, int]:
    """Run the client against a stand-in server on an ephemeral port: (exit code, port)."""
    server = await asyncio.start_server(handler, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        return await run(build_parser().parse_args([f"127.0.0.1:{port}"]), ClientConfig.load()), port
    finally:
        server.close()


@pytest.mark.parametrize("theirs, older", [(1, "the server"), (9, "this client")])
async def test_version_mismatch_is_reported_plainly(capsys, theirs, older):
    """A server of another protocol version (its sans-I/O end refuses our hello as a real one would):
    the client says both versions and which side to upgrade."""
    async def other_version_server(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = Connection("server", version=theirs)
        conn.receive_data(await reader.read(65536))  # the hello (request id 1)
        with pytest.raises(RemoteProtocolError) as refused:
            conn.next_message()
        writer.write(conn.send(m.Error.from_exception(refused.value)))
        writer.write(conn.send(m.Bye(reason="protocol_error", message=refused.value.message)))
        await writer.drain()
        writer.close()

    code, _ = await run_against(other_version_server)
    err = capsys.readouterr().err
    assert code == 3 and err.count("\n") == 1
    assert (f"refused the connection: this server speaks protocol version {theirs}; this client speaks version "
            f"{m.PROTOCOL_VERSION}: upgrade the older side ({older}) (version_mismatch)") in err


async def test_name_and_token_are_remembered_per_server(server, monkeypatch, config_dir):
    seen: list[tuple[str, bool]] = []

    async def no_terminal(self: DabApp) -> None:
        seen.append((self.player_name, self.session.welcome.resumed))

    monkeypatch.setattr(DabApp, "run_async", no_terminal)
    address = f"127.0.0.1:{server.port}"
    assert await run(build_parser().parse_args([address, "--name", "Zed"]), ClientConfig.load()) == 0
    config = ClientConfig.load()
    assert config.name == "Zed" and config.last_server == address and config.tokens[address]
    assert await run(build_parser().parse_args([address]), ClientConfig.load()) == 0
    assert seen == [("Zed", False), ("Zed", True)]  # the second time: the same player, resumed
    # A server that forgot us (restarted): the stale token is dropped and we start afresh.
    config.tokens[address] = "0123abcd_stale"
    config.save()
    assert await run(build_parser().parse_args([address]), ClientConfig.load()) == 0
    assert seen[-1] == ("Zed", False) and ClientConfig.load().tokens[address] != "0123abcd_stale"


def test_token_prints_the_token_kept_for_a_server(config_dir, capsys):
    """``dab-client token``: what a browser's page asks for, the last server's by default; none kept is an error."""
    assert main(["token"]) == 1
    assert "no server played on yet" in capsys.readouterr().err
    ClientConfig(name="Ann", last_server="example.org:7777", tokens={"example.org:7777": "ab12_secret",
                                                                     "[::1]:7000": "cd34_other"},
                 path=config_dir / "client.json").save()
    assert main(["token"]) == 0 and capsys.readouterr().out == "ab12_secret\n"
    assert main(["token", "[::1]:7000"]) == 0 and capsys.readouterr().out == "cd34_other\n"
    assert main(["token", "elsewhere.org"]) == 1
    assert "keeps no token for elsewhere.org:7777" in capsys.readouterr().err


def test_entry_point_process_fails_cleanly(tmp_path):
    env = dict(os.environ, DAB_CONFIG_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-m", "client", f"127.0.0.1:{closed_port()}"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=30)
    assert result.returncode == 3
    assert result.stderr.count("\n") == 1 and "cannot connect" in result.stderr and "Traceback" not in result.stderr
    assert result.stdout == ""


def ipv6_available() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as sock:
            sock.bind(("::1", 0))
        return True
    except OSError:
        return False


@pytest.mark.skipif(not ipv6_available(), reason="no IPv6 loopback here")
async def test_connects_over_ipv6(monkeypatch):
    from server.lobby import Lobby, LobbyConfig
    from server.net import GameServer

    game_server = GameServer(Lobby(LobbyConfig(), "v6 test"))
    await game_server.start("::1", 0)
    port = game_server.port
    seen: list[str] = []

    async def no_terminal(self: DabApp) -> None:
        seen.append(self.server_label)

    monkeypatch.setattr(DabApp, "run_async", no_terminal)
    try:
        code = await run(build_parser().parse_args([f"[::1]:{port}", "--name", "Vee"]), ClientConfig.load())
    finally:
        await game_server.close(grace=0.5)
    assert code == 0 and seen == [f"[::1]:{port}"]


def test_joining_a_server_does_not_load_the_server_package(tmp_path):
    """Start-up stays light: only practice mode imports server/."""
    env = dict(os.environ, DAB_CONFIG_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    code = ("import sys; from client.__main__ import main; main(['127.0.0.1:%d']); "
            "print(sorted(m for m in sys.modules if m == 'server' or m.startswith('server.')))" % closed_port())
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=30)
    assert result.stdout.strip() == "[]", result.stdout + result.stderr


async def test_an_address_that_is_not_a_game_server_says_so(capsys):
    """An SSH port answers with its banner: that is not 'a frame of 1397966893 bytes'."""
    async def ssh_like(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.write(b"SSH-2.0-OpenSSH_9.6p1 Ubuntu-3ubuntu13\r\n")
        await writer.drain()
        await reader.read(65536)
        writer.close()

    code, port = await run_against(ssh_like)
    err = capsys.readouterr().err
    assert code == 3 and err.count("\n") == 1
    assert f"127.0.0.1:{port} does not speak the Down and Back protocol" in err and "frame" not in err


def practice_tables(monkeypatch) -> tuple[list[tuple[str, int, str | None]], Any]:
    """Practice runs without a terminal: the ``(game, bots, level)`` each one set up, and ``practise(*flags)``."""
    from client import practice

    tables: list[tuple[str, int, str | None]] = []
    set_up = practice.set_up_table

    async def recording(session, bots: int, game: str = "down-and-back", level: str | None = None) -> None:
        tables.append((game, bots, level))
        await set_up(session, bots, game, level)

    async def no_terminal(self: DabApp) -> None:
        pass

    monkeypatch.setattr(practice, "set_up_table", recording)
    monkeypatch.setattr(DabApp, "run_async", no_terminal)

    async def practise(*flags: str) -> int:
        return await run(build_parser().parse_args(["--bot-delay", "0", *flags]), ClientConfig.load())

    return tables, practise


async def test_the_practice_game_is_chosen_with_game_and_remembered(monkeypatch, config_dir):
    tables, practise = practice_tables(monkeypatch)
    assert await practise() == 0 and tables[-1][:2] == ("down-and-back", 3)  # the default, never chosen before
    assert await practise("--game", "cribbage") == 0 and tables[-1][:2] == ("cribbage", 1)  # one against one
    assert ClientConfig.load().practice_game == "cribbage"
    assert await practise() == 0 and tables[-1][:2] == ("cribbage", 1)  # remembered
    assert await practise("--game", "cribbage", "--bots", "4") == 2  # cribbage seats at most four
    assert await practise("--game", "down-and-back", "--bots", "2") == 0 and tables[-1][:2] == ("down-and-back", 2)
    assert ClientConfig.load().practice_game == "down-and-back"


async def test_the_practice_bots_limits_and_usual_number_are_the_games_own(monkeypatch, config_dir, capsys):
    """Issue 29 items 7 and 9: how many bots a practice seats, and how many it may, the game type says
    (``practice_bots``, ``max_seats``), for every game the client plays: no game is named in the CLI."""
    from client.games import playable_games
    from engine.games import find_game

    tables, practise = practice_tables(monkeypatch)
    for name in playable_games():
        game = find_game(name)
        assert await practise("--game", name) == 0 and tables[-1][:2] == (name, game.practice_bots)
        for refused in (0, game.max_seats):
            assert await practise("--game", name, "--bots", str(refused)) == 2
            assert f"{game.title} seats at most {game.max_seats}: give --bots 1 to {game.max_seats - 1}" \
                in capsys.readouterr().err
        assert await practise("--game", name, "--bots", str(game.max_seats - 1)) == 0
        assert tables[-1][:2] == (name, game.max_seats - 1)


async def test_the_practice_bots_level_is_asked_with_level_and_remembered(monkeypatch, config_dir):
    """``--level`` picks the practice bots' level; it is remembered, and a game without that level gets its own
    default (the memory stays); a level the game lacks is a usage error."""
    tables, practise = practice_tables(monkeypatch)
    assert await practise("--bots", "1") == 0 and tables[-1] == ("down-and-back", 1, None)  # never asked: default
    assert await practise("--bots", "1", "--level", "easy") == 0 and tables[-1] == ("down-and-back", 1, "easy")
    assert ClientConfig.load().practice_level == "easy"
    assert await practise("--bots", "1") == 0 and tables[-1] == ("down-and-back", 1, "easy")  # remembered
    assert await practise("--game", "cribbage") == 0 and tables[-1] == ("cribbage", 1, None)  # no easy cribbage bot
    assert await practise("--game", "cribbage", "--level", "expert") == 2
    assert await practise("--game", "down-and-back", "--bots", "1", "--level", "strong") == 0
    assert tables[-1] == ("down-and-back", 1, "strong") and ClientConfig.load().practice_level == "strong"


async def test_the_practice_server_listens_without_warming_every_game(monkeypatch):
    """Warming every game's tables before listening (~0.3 s) is dab-server's; a practice game starts at once."""
    from client import practice
    from engine.games import GAMES

    warmed: list[str] = []
    for game in GAMES.values():
        monkeypatch.setattr(game, "warm_up", lambda name=game.name: warmed.append(name))
    server = await practice.start_server(practice.PracticeOptions(bot_delay=0))
    try:
        assert server.port > 0 and warmed == []
    finally:
        await server.close(grace=0.2)


def test_a_practice_game_paints_its_table_without_loading_what_it_does_not_show(tmp_path):
    """Start-up (issue 12 item 13): a Down and Back practice loads neither Cribbage (~35 ms of imports), nor
    the store (no database), nor ``importlib.metadata`` (the version), nor the lobby's screen, nor the strong
    bot (its tables: 87 KB of source) when no bot plays strong, nor asks for the table list (whose games would
    load every game) before its table is painted."""
    code = """if True:
        import asyncio, sys
        from client.practice import PracticeOptions, start_practice
        from client.app import DabApp
        from protocol import messages as m

        async def practise():
            server, session = await start_practice("Ann", PracticeOptions(bot_delay=5))
            app = DabApp(session, expect_table=True, server_label="practice")
            app.on_table_painted = app.exit
            await app.run_async(headless=True)
            await server.close(grace=0)
            return app

        app = asyncio.run(practise())
        assert app.table_screen is not None and app.table_screen.game is not None
        assert m.ListTables not in [kind for kind, _ in app.requests_sent]
        print(sorted(name for name in ("engine.games.cribbage", "server.store", "importlib.metadata",
                                       "client.screens.lobby", "engine.games.down_and_back.strong",
                                       "engine.games.down_and_back.final_hands") if name in sys.modules))
    """
    env = dict(os.environ, DAB_CONFIG_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0 and result.stdout.strip() == "[]", result.stdout + result.stderr


def test_start_up_collects_no_garbage_until_its_first_table_is_painted(tmp_path):
    """Start-up (issue 12 item 13): the ~150 collections start-up's objects trigger cost ~100 ms of the time to
    the first painted table, and found little to free. The collector waits for the first paint, and then skips
    what start-up built (frozen), so the next full collection does not traverse Textual's objects either."""
    code = """if True:
        import asyncio, gc
        from client.__main__ import start_up_without_collecting, started
        collections = []
        gc.callbacks.append(lambda phase, info: phase == "start" and collections.append(info["generation"]))
        start_up_without_collecting()
        from client.practice import PracticeOptions, start_practice
        from client.app import DabApp

        async def practise():
            server, session = await start_practice("Ann", PracticeOptions(bot_delay=5))
            app = DabApp(session, expect_table=True, server_label="practice", on_started=started)
            painted = []
            app.on_table_painted = lambda: (painted.append((len(collections), gc.isenabled())), app.exit())
            await app.run_async(headless=True)
            await server.close(grace=0)
            return painted

        painted = asyncio.run(practise())
        assert painted == [(0, False)], painted  # nothing collected before the paint
        assert gc.isenabled() and gc.get_freeze_count() > 10_000
        print("ok")
    """
    env = dict(os.environ, DAB_CONFIG_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0 and result.stdout.strip() == "ok", result.stdout + result.stderr


def test_the_command_line_collects_garbage_again_when_it_returns_without_a_paint(capsys):
    import gc

    with pytest.raises(SystemExit):
        main(["--version"])
    assert gc.isenabled() and "dab-client" in capsys.readouterr().out


async def test_under_a_gateway_a_crash_is_a_plain_traceback_without_locals(make_app, monkeypatch):
    """What a gateway's client writes on its standard error reaches the server's log: a crash there is the
    traceback alone, not Textual's screenful of each frame's local variables."""
    monkeypatch.setenv("DAB_GATEWAY", "1")
    app = make_app("Ann")
    secret_local = "a value a frame held"  # noqa: F841 (what a traceback with locals would show)

    def crash() -> None:
        held = secret_local  # noqa: F841
        raise RuntimeError("the client broke")

    shown = []
    with pytest.raises(RuntimeError, match="the client broke"):  # (run_test raises the app's error at its end)
        async with app.run_test(size=(80, 24)) as pilot:
            app.call_later(crash)
            for _ in range(100):
                await pilot.pause(0.02)
                if app._exit_renderables:  # what the app prints on its standard error as it exits
                    shown = list(app._exit_renderables)
                    break
    assert len(shown) == 1
    from rich.console import Console

    console = Console(width=100, record=True, file=open(os.devnull, "w"))
    console.print(shown[0])
    text = console.export_text()
    assert "RuntimeError: the client broke" in text and "Traceback" in text
    assert "a value a frame held" not in text and "secret_local" not in text.split("Traceback")[0]
