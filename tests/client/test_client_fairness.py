"""Issue 15 in our client: it sends a client seed for every round it is dealt, checks every round when
the seed is revealed, and shows a quiet "deal verified" mark, or a loud warning naming what is wrong;
``dab-client verify FILE`` checks an exported history offline (exit 0 / 1 / 2)."""

from __future__ import annotations

import json
from typing import Any

from protocol import messages as m
from tui_helpers import table_ready, wait_for

from client.widgets.basics import LineLog

from client.__main__ import main
from engine.contract import StartRound, Status
from engine.games import find_game
from engine.rng import HashRng


async def _one_round_against_a_bot(app, pilot) -> None:
    """Ann (the app) opens a table with a bot, starts, and ends the game: its round's seed is revealed."""
    await wait_for(pilot, lambda: app.connection_state == "connected" and app.lobby.is_mounted, what="connected")
    await pilot.press("q")  # quick join: a new table
    await wait_for(pilot, lambda: table_ready(app), what="table screen")
    app._send(m.AddBot, {})
    await wait_for(pilot, lambda: len(app.view["table"]["members"]) == 2, what="bot seated")
    app._send(m.Start, {})
    await wait_for(pilot, lambda: (app.view["game"] or {}).get("fair"), what="the deal sealed")
    app._send(m.EndGame, {})


def shown(screen) -> tuple[str, str]:
    """The table screen's top bar and its log, as text (the game-over board may be on top of them)."""
    return screen._shown["#info"].plain, "\n".join(line.plain for line in screen.query_one("#log", LineLog).lines)


async def test_every_round_is_seeded_checked_and_marked_quietly(make_app):
    app = make_app("Ann")
    warnings: list[str] = []
    app.notify = lambda message, **options: warnings.append(message)  # type: ignore[method-assign]
    async with app.run_test(size=(100, 30)) as pilot:
        await _one_round_against_a_bot(app, pilot)
        screen = app.table_screen
        await wait_for(pilot, lambda: screen.verdict is not None, what="the round checked")
        assert not warnings and screen.verdict.ok and screen.verdict.round == 1
        info, log = await wait_for(pilot, lambda: "deal verified" in shown(screen)[0] and shown(screen), what="mark")
        assert "Round 1: deal verified" in log and "NOT VERIFIED" not in info + log
        # The view that reveals the seed comes after the events that did (the check is made from those).
        fair = await wait_for(pilot, lambda: app.view["game"]["fair"]["seed"] and app.view["game"]["fair"],
                              what="the view revealing the seed")
        assert fair["round"] == 1
        sent = app.view["table"]["seat"]
        if not fair["fixed"] or str(sent) in fair["client_seeds"]:  # our seed was in time (it is, unless the bot cut first)
            assert len(fair["client_seeds"][str(sent)]) == 64


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
        screen = app.table_screen
        await wait_for(pilot, lambda: screen.verdict is not None, what="the round checked")
        assert not screen.verdict.ok and screen.verdict.what == "revealed seed"
        info, log = await wait_for(pilot, lambda: "DEAL NOT VERIFIED" in shown(screen)[0] and shown(screen),
                                   what="warning")
        assert "Round 1: DEAL NOT VERIFIED: revealed seed: " in log  # the log says what is wrong
        ((message, options),) = [w for w in warnings if w[1].get("severity") == "error"]
        assert "NOT verified" in options["title"] and message.startswith("revealed seed: ")


def _export(tmp_path, tamper=None) -> str:
    """A history as dab-server export writes it: one table of each game, two rounds each."""
    tables = []
    for number, game_type in enumerate((find_game("down-and-back"), find_game("cribbage")), 1):
        game = game_type.new(game_type.settings(), [(0, "ann", 500), (1, "bob", 500)], HashRng(number))
        rounds = []
        for _ in range(2):
            game.apply(None, StartRound())
            while game.status is Status.PLAYING:
                seat = game.to_act()[0]
                game.apply(seat, game_type.bot_action(game, seat))
            rounds.append(game_type.round_record(game))
        tables.append({"table_id": f"t{number}", "game": game_type.name, "rounds": rounds})
    history = json.loads(json.dumps({"format": "down-and-back-history", "version": 3, "tables": tables}))
    if tamper is not None:
        tamper(history)
    path = tmp_path / "history.json"
    path.write_text(json.dumps(history))
    return str(path)


def test_dab_client_verify_checks_an_export_offline(tmp_path, capsys):
    assert main(["verify", _export(tmp_path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "every deal verified" and len(out) == 5
    assert out[0] == "table t1 round 1: deal verified (3 views: each seat and a spectator)"

    def other_starter(history: dict[str, Any]) -> None:
        record = history["tables"][1]["rounds"][1]
        starter = next(r for r in record["log"] if r["kind"] == "starter")
        starter["public"]["card"] = "JS" if starter["public"]["card"] != "JS" else "QS"
    assert main(["verify", _export(tmp_path, other_starter)]) == 1
    captured = capsys.readouterr()
    assert "table t2 round 2: NOT VERIFIED: starter: " in captured.out and "NOT every deal verified" in captured.err

    def other_seed(history: dict[str, Any]) -> None:
        history["tables"][0]["rounds"][0]["fair"]["seed"] = "00" * 32
    assert main(["verify", _export(tmp_path, other_seed)]) == 1
    assert "table t1 round 1: NOT VERIFIED: revealed seed: " in capsys.readouterr().out


def test_dab_client_verify_refuses_what_it_cannot_read(tmp_path, capsys):
    assert main(["verify", str(tmp_path / "missing.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
    (tmp_path / "other.json").write_text(json.dumps({"tables": "?"}))
    assert main(["verify", str(tmp_path / "other.json")]) == 1
    assert "not a dab-server export" in capsys.readouterr().out
