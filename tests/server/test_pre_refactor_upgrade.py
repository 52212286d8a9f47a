"""A database written by the pre-refactor server (commit deccce1, store schema 3) upgrades and resumes mid-round.

``fixtures/pre_refactor.sqlite3`` was made by that commit's real server, and
``fixtures/pre_refactor.json`` holds what it showed (see
``fixtures/make_pre_refactor_db.py`` for how, and which commands). Today's
server opens a copy, backs it up (0600), adds the tables' ``game`` column
(migration 4) and gives every player back exactly what they had: the same
hand, stacks, pot, whose turn and decision, a deadline running; the round then
plays on through real clients to the same showdown the old server reached
(``test_the_pre_refactor_database_upgrades_and_resumes_its_round``).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import stat
from contextlib import AsyncExitStack, closing
from pathlib import Path
from typing import Any

from protocol import messages as m
from scripted import ScriptedClient, play_until, wait_any
from server import store as store_module
from server.store import DB_NAME, Store

from durability_helpers import refused

FIXTURES = Path(__file__).parent / "fixtures"
FACTS = json.loads((FIXTURES / "pre_refactor.json").read_text())
OLD_VERSION = FACTS["checkpoint"]["schema_version"]  # 3
SERVER_FACTS = ("table", "deadline_ms", "chip_history")  # what the old server put in the view beside the engine's
MEMBER_FACTS = ("bot", "connected")  # ... and in each player's entry (protocol v2 sends them as the table's members)
ADDED = ("fair",)  # game view fields added since (issue 15): nil in a round dealt before fair deals


def game_view(view: dict[str, Any]) -> dict[str, Any]:
    """The engine's part of a table view (the seat's hand, stacks, pot, whose turn, what they may do...):
    all of a version 2 view's ``game``, the same part of the old server's version 1 view."""
    engine = {key: value for key, value in view.items() if key not in SERVER_FACTS + ADDED}
    engine["players"] = [{k: v for k, v in p.items() if k not in MEMBER_FACTS} for p in view["players"]]
    return engine


def copy_fixture(data_dir: Path) -> Path:
    db = data_dir / DB_NAME
    shutil.copy(FIXTURES / "pre_refactor.sqlite3", db)
    db.chmod(0o600)
    return db


def result_seen(client: ScriptedClient) -> bool:
    return any(event["kind"] == "result" for event in client.events)


async def test_the_pre_refactor_database_upgrades_and_resumes_its_round(tmp_path, durable):
    db = copy_fixture(tmp_path)
    server = await durable()  # the real server (in process, real TCP) opens and upgrades it
    backup = tmp_path / f"{DB_NAME}.v{OLD_VERSION}.bak"
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    with closing(sqlite3.connect(backup)) as old:  # the backup is the file as the old server left it
        assert old.execute("SELECT version FROM schema_version").fetchone()[0] == OLD_VERSION
        assert "game" not in {row[1] for row in old.execute("PRAGMA table_info(tables)")}
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    mid, done = FACTS["tables"]["mid_round"], FACTS["tables"]["finished"]
    async with AsyncExitStack() as stack:
        clients = {name: await stack.enter_async_context(ScriptedClient(server.port, name, FACTS["tokens"][name]))
                   for name in ("ann", "bob", "eve", "carol")}
        ann, bob, eve, carol = clients.values()
        for name in ("ann", "bob"):
            welcome = clients[name].link.welcome
            assert welcome.resumed and (welcome.table_id, welcome.seat) == (mid, FACTS["seats"][name])
        assert (eve.link.welcome.table_id, eve.link.welcome.seat) == (mid, None)  # still watching
        assert carol.link.welcome.table_id == done

        await wait_any([ann, bob, eve], lambda: all(c.views.get(mid) for c in (ann, bob, eve)))
        for name in ("ann", "bob", "eve"):
            assert game_view(clients[name].views[mid]) == game_view(FACTS["views"][name]), name
        seen = ann.views[mid]
        assert seen["fair"] is None  # the round under way was dealt by the old server: nothing to verify
        for name in ("ann", "bob"):  # the fixture's checkpoint agrees: every hand, stacks and pot as stored
            view = clients[name].views[mid]
            assert view["hand"] == FACTS["checkpoint"]["hands"][str(view["seat"])]
        assert {str(p["seat"]): p["stack"] for p in seen["players"]} == FACTS["checkpoint"]["stacks"]
        assert seen["pot"] == FACTS["checkpoint"]["pot"]
        (to_act,) = seen["to_act"]
        acting = next(c for c in (ann, bob) if c.views[mid]["seat"] == to_act)
        assert acting.views[mid]["legal"] and acting.deadlines[mid] is not None  # on the clock again
        balances = FACTS["checkpoint"]["balances"]
        assert (await ann.request(m.ListTables))["balance"] == balances["ann"]
        assert (await carol.request(m.ListTables))["balance"] == balances["carol"]
        await carol.wait_for(lambda: carol.views.get(done))
        assert carol.views[done]["phase"] == "over"
        old_rounds = (await carol.request(m.History, limit=10))["rounds"]  # stored by the old server
        assert old_rounds and {r["game_name"] for r in old_rounds} == {"down-and-back"}

        await play_until([ann, bob], lambda: result_seen(ann))  # the round on to its showdown, as before
        rounds = (await ann.request(m.History, limit=5))["rounds"]
    (round_1,) = [r for r in rounds if r["table_id"] == mid and r["round"] == 1]
    assert round_1["game_name"] == "down-and-back"  # protocol v2 names each record's game (PROTOCOL.md 5.5)
    assert {k: v for k, v in round_1.items() if k not in ("finished_at", "game_name")} == FACTS["round_1"]
    with closing(sqlite3.connect(db)) as conn:
        assert set(conn.execute("SELECT DISTINCT game FROM tables")) == {("down-and-back",)}


def test_a_table_of_a_game_this_server_lacks_is_refused_by_name(tmp_path):
    """Restore finds each table's game by its stored name; one it does not know stops the start, clearly."""
    copy_fixture(tmp_path)
    Store.open_dir(tmp_path).close()  # upgraded
    with closing(sqlite3.connect(tmp_path / DB_NAME)) as conn:
        conn.execute("UPDATE tables SET game = 'go-fish' WHERE table_id = ?", (FACTS["tables"]["mid_round"],))
        conn.commit()
    refused(tmp_path, f"table {FACTS['tables']['mid_round']}", "no game called 'go-fish'")


def test_migration_4_names_every_old_table_down_and_back(tmp_path):
    copy_fixture(tmp_path)
    store = Store.open_dir(tmp_path)
    try:
        assert store.version == store_module.schema_version() >= 4
        games = {row.table_id: row.game for row in store.load_tables()}
    finally:
        store.close()
    assert games == {FACTS["tables"]["finished"]: "down-and-back", FACTS["tables"]["mid_round"]: "down-and-back"}
