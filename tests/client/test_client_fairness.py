"""Fair deals in our client (issues 15 and 28): it commits to and reveals a client seed every round it
is dealt, checks every round against the key it pinned for the server, and says in the top bar what
each round proves ("verified — your seed included", "verified", "verified — server seed only") or,
loudly, what is wrong; the fair deal's events no longer fill the table log (issue 27 item 8: key f
shows the details). ``dab-client verify FILE`` checks an export offline, its signatures and bindings
included (exit 0 / 1 / 2)."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest

from client.__main__ import main
from client.app import DabApp
from client.fairness import KNOWN_SERVERS, KnownServers
from client.render import Display
from client.session import Session
from client.widgets.basics import LineLog
from engine.fairness import fingerprint
from engine.games import find_game
from fair_helpers import OTHER_SECRET, TEST_SECRET, Watched
from protocol import messages as m
from scripted import SeedingClient
from server.keys import ServerKey
from tui_helpers import table_ready, wait_for

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey


@pytest.fixture(autouse=True)
def seed_window(server, monkeypatch):
    monkeypatch.setattr(server.lobby.config.table, "seed_window", 5.0)  # our client seeds at once: never waited


async def _one_round_against_a_bot(app, pilot, meanwhile=None) -> None:
    """Ann (the app) opens a table with a bot, starts, and once the deck is fixed (and ``meanwhile``,
    if given, is done) ends the game: the round's seed is revealed."""
    await wait_for(pilot, lambda: app.connection_state == "connected" and app.lobby.is_mounted, what="connected")
    await pilot.press("q")  # quick join: a new table
    await wait_for(pilot, lambda: table_ready(app), what="table screen")
    app._send(m.AddBot, {})
    await wait_for(pilot, lambda: len(app.view["table"]["members"]) == 2, what="bot seated")
    app._send(m.Start, {})
    await wait_for(pilot, lambda: ((app.view["game"] or {}).get("fair") or {}).get("fixed"), what="the deck fixed")
    if meanwhile is not None:
        await meanwhile()
    app._send(m.EndGame, {})


def shown(screen) -> tuple[str, str]:
    """The table screen's top bar and its log, as text (the game-over board may be on top of them)."""
    info = screen._shown["#info"].plain + (screen._shown["#deal-mark"].plain if "#deal-mark" in screen._shown else "")
    return info, "\n".join(line.plain for line in screen.query_one("#log", LineLog).lines)


def mark(screen) -> str:
    """The top bar's fair-deal mark alone."""
    return screen._shown["#deal-mark"].plain.strip() if "#deal-mark" in screen._shown else ""


async def checked(app, pilot) -> Any:
    screen = app.table_screen
    await wait_for(pilot, lambda: screen.deal is not None and screen.deal.verdict is not None, what="the round checked")
    return screen.deal.verdict


async def test_a_round_with_our_seed_says_so_in_the_top_bar_and_leaves_the_log_alone(make_app):
    app = make_app("Ann")
    warnings: list[str] = []
    app.notify = lambda message, **options: warnings.append(message)  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await _one_round_against_a_bot(app, pilot)
        verdict = await checked(app, pilot)
        assert verdict.ok and verdict.round == 1 and verdict.summary == "verified — your seed included", verdict
        info, log = await wait_for(pilot, lambda: "verified — your seed included" in shown(app.table_screen)[0]
                                   and shown(app.table_screen), what="mark")
        assert not warnings
        for word in ("commit", "seed", "verified", "sealed", "deck is fixed", "reveals"):  # folded into the top bar
            assert word not in log.lower(), (word, log)
        fair = app.view["game"]["fair"]
        assert fair["client_seeds"][str(app.view["table"]["seat"])] == app.table_screen.deal.mine


async def test_a_deck_from_the_server_seed_alone_is_never_shown_as_plainly_verified(make_app, server, monkeypatch):
    monkeypatch.setattr(server.lobby.config.table, "seed_window", 0.05)
    app = make_app("Ann")

    async def no_seed(*args: Any) -> None:  # a client that never seeds (or whose seed is always too late)
        return None

    app._send_seed = no_seed  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await _one_round_against_a_bot(app, pilot)
        verdict = await checked(app, pilot)
        assert verdict.ok and verdict.summary == "verified — server seed only"
        info, _ = await wait_for(pilot, lambda: "server seed only" in shown(app.table_screen)[0]
                                 and shown(app.table_screen), what="mark")
        assert "verified — server seed only" in info and "your seed" not in info


async def test_a_spectator_is_told_verified_when_the_players_seeds_made_the_deck(make_app, server):
    async with SeedingClient(server.port, "host") as host:
        table_id = (await host.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2)))["table_id"]
        await host.request(m.AddBot)
        app = make_app("Sam")
        async with app.run_test(size=(100, 30)) as pilot:
            await wait_for(pilot, lambda: app.connection_state == "connected", what="connected")
            app._send(m.Watch, {"table_id": table_id})
            await wait_for(pilot, lambda: table_ready(app), what="table screen")
            await host.request(m.Start)
            await host.wait_for(lambda: host.view.get("fair", {}).get("fixed"))
            await host.request(m.EndGame)
            verdict = await checked(app, pilot)
            assert verdict.ok and verdict.summary == "verified", verdict
            await wait_for(pilot, lambda: mark(app.table_screen) == "verified", what="mark")


async def test_a_tampered_reveal_is_a_loud_warning_naming_it(make_app):
    app = make_app("Ann")
    received = app.receive

    def tampering(item: Any) -> None:  # a server that reveals another seed than it committed to
        if isinstance(item, m.Event) and any(e.get("kind") == "deal_reveal" for e in item.events):
            item = m.Event(table_id=item.table_id, events=tuple(
                dict(e, seed="00" * 32) if e.get("kind") == "deal_reveal" else e for e in item.events))
        received(item)

    app.receive = tampering  # type: ignore[method-assign]
    warnings: list[tuple[str, dict[str, Any]]] = []
    app.notify = lambda message, **options: warnings.append((message, options))  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await _one_round_against_a_bot(app, pilot)
        verdict = await checked(app, pilot)
        assert not verdict.ok and verdict.what in ("revealed seed", "signature")
        await wait_for(pilot, lambda: "DEAL NOT VERIFIED" in shown(app.table_screen)[0], what="warning")
        ((message, options),) = [w for w in warnings if w[1].get("severity") == "error"]
        assert "NOT verified" in options["title"] and message == verdict.message


async def test_a_member_shown_another_commitment_than_the_others_is_told_the_deal_is_not_verified(make_app, server):
    """Equivocation caught by our client: the server shows Ann (signed, with its own key) a commitment
    that is not the round's. She commits to her seed against it, as she must; the round's reveal names
    the real commitment, and her client says the deal is not verified, naming the commitment."""
    app = make_app("Ann")
    received = app.receive
    key = server.lobby.key

    def two_faced(item: Any) -> None:
        if isinstance(item, m.Event):
            events = []
            for event in item.events:
                if event.get("kind") == "deal_commit":
                    event = dict(event, commitment=hashlib.sha256(b"another deal").hexdigest())
                    event["sig"] = key.signature(event)
                events.append(event)
            item = m.Event(table_id=item.table_id, events=tuple(events))
        received(item)

    app.receive = two_faced  # type: ignore[method-assign]
    warnings: list[str] = []
    app.notify = lambda message, **options: warnings.append(message)  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.connection_state == "connected" and app.lobby.is_mounted, what="connected")
        await pilot.press("q")
        await wait_for(pilot, lambda: table_ready(app), what="table screen")
        app._send(m.AddBot, {})
        await wait_for(pilot, lambda: len(app.view["table"]["members"]) == 2, what="bot seated")
        app._send(m.Start, {})
        await wait_for(pilot, lambda: ((app.view["game"] or {}).get("fair") or {}).get("fixed"), what="the deck")
        app._send(m.EndGame, {})
        verdict = await checked(app, pilot)
        assert not verdict.ok and verdict.what == "commitment", verdict
        assert warnings and "commitment" in warnings[0]


async def test_the_server_key_is_pinned_and_a_changed_one_fails_every_round(server, tmp_path):
    from client.config import ClientConfig

    config = ClientConfig(path=tmp_path / "client.json")
    where = f"127.0.0.1:{server.port}"
    app = DabApp(Session("127.0.0.1", server.port, "Ann"), display=Display(), player_name="Ann", config=config,
                 pin_as=where)
    async with app.run_test(size=(100, 30)) as pilot:
        async def details() -> None:  # key f: the deal's details, the key's fingerprint
            await wait_for(pilot, lambda: app.table_screen.deal and app.table_screen.deal.phase == "fixed", what="fixed")
            await pilot.pause()
            if app.screen is not app.table_screen:  # we cut (a dialog of its own): at random
                await pilot.press("r")
                await wait_for(pilot, lambda: app.screen is app.table_screen, what="the table again")
            await pilot.press("f")
            text = await wait_for(pilot, lambda: app.screen.query("#fair-details") and
                                  str(app.screen.query_one("#fair-details").render()), what="details")
            assert server.lobby.key.fingerprint in text and "pinned for this server" in text, text
            assert "Your seed is in the deck" in text and app.table_screen.deal.commitment[:16] in text
            await pilot.press("escape")

        await _one_round_against_a_bot(app, pilot, details)
        assert (await checked(app, pilot)).ok
        assert app.key_state == (server.lobby.key.public.hex(), "new")
    assert KnownServers(tmp_path / KNOWN_SERVERS).keys == {where: server.lobby.key.public.hex()}

    other = Ed25519PrivateKey.from_private_bytes(OTHER_SECRET).public_key().public_bytes_raw().hex()
    (tmp_path / KNOWN_SERVERS).write_text(f"{where} {other}\n")  # another key was pinned for this server
    app = DabApp(Session("127.0.0.1", server.port, "Bea"), display=Display(), player_name="Bea",
                 config=ClientConfig(path=tmp_path / "client.json"), pin_as=where)
    warnings: list[tuple[str, dict[str, Any]]] = []
    app.notify = lambda message, **options: warnings.append((message, options))  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await _one_round_against_a_bot(app, pilot)
        verdict = await checked(app, pilot)
        assert not verdict.ok and verdict.what == "key" and fingerprint(bytes.fromhex(other)) in verdict.message
        assert any(o.get("title") == "The server's key CHANGED" for _, o in warnings)


# ----------------------------------------------------------------- dab-client verify


def _export(tmp_path, tamper=None, secret: bytes = TEST_SECRET) -> str:
    """A history as dab-server export writes it (signed as the server signs its round records): one table
    of each game, two rounds each, the players' seeds in them."""
    key = ServerKey(Ed25519PrivateKey.from_private_bytes(secret))
    tables = []
    for number, game_type in enumerate((find_game("down-and-back"), find_game("cribbage")), 1):
        watched = Watched(game_type, 2, number, table_id=f"t{number}")
        rounds = []
        for count in range(2):
            watched.round({0: f"{number}{count}" * 8})
            record = game_type.round_record(watched.game)
            key.seal_round(record)
            rounds.append(record)
        tables.append({"table_id": f"t{number}", "game": game_type.name, "rounds": rounds})
    history = json.loads(json.dumps({"format": "down-and-back-history", "version": 3, "tables": tables}))
    if tamper is not None:
        tamper(history)
    path = tmp_path / "history.json"
    path.write_text(json.dumps(history))
    return str(path)


def test_dab_client_verify_checks_an_export_offline_signatures_and_bindings_too(tmp_path, capsys):
    assert main(["verify", _export(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "every deal verified" and len(out) == 6
    assert out[0] == "table t1 round 1: verified (3 views: each seat and a spectator)"
    assert out[-2] == f"every round is signed by the server key {ServerKey(Ed25519PrivateKey.from_private_bytes(TEST_SECRET)).fingerprint}"

    def other_starter(history: dict[str, Any]) -> None:
        record = history["tables"][1]["rounds"][1]
        starter = next(r for r in record["log"] if r["kind"] == "starter")
        starter["public"]["card"] = "JS" if starter["public"]["card"] != "JS" else "QS"
    assert main(["verify", _export(tmp_path, other_starter)]) == 1
    captured = capsys.readouterr()
    assert "table t2 round 2: NOT VERIFIED: starter: " in captured.out and "NOT every deal verified" in captured.err

    def forged(history: dict[str, Any]) -> None:
        fair = history["tables"][0]["rounds"][0]["fair"]
        fair["sig"] = ("1" if fair["sig"][0] == "0" else "0") + fair["sig"][1:]
    assert main(["verify", _export(tmp_path, forged)]) == 1
    assert "table t1 round 1: NOT VERIFIED: signature: " in capsys.readouterr().out

    def unsigned(history: dict[str, Any]) -> None:
        entry = next(r for r in history["tables"][0]["rounds"][1]["log"] if r["kind"] == "seed_set")
        del entry["public"]["sig"]
    assert main(["verify", _export(tmp_path, unsigned)]) == 1
    assert "table t1 round 2: NOT VERIFIED: signature: the seed_set's" in capsys.readouterr().out

    def moved(history: dict[str, Any]) -> None:  # a round shown as another table's
        history["tables"][1]["table_id"] = "t9"
    assert main(["verify", _export(tmp_path, moved)]) == 1
    assert "table t9 round 1: NOT VERIFIED: binding: " in capsys.readouterr().out

    other = ServerKey(Ed25519PrivateKey.from_private_bytes(OTHER_SECRET))
    assert main(["verify", "--key", other.fingerprint, _export(tmp_path)]) == 1  # pinned to another key
    assert f"not the pinned {other.fingerprint}" in capsys.readouterr().out


def test_dab_client_verify_refuses_what_it_cannot_read(tmp_path, capsys):
    assert main(["verify", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    (tmp_path / "other.json").write_text(json.dumps({"tables": "?"}))
    assert main(["verify", str(tmp_path / "other.json")]) == 1
    assert "not a dab-server export" in capsys.readouterr().out
