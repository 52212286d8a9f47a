"""The database's schema, as the steps that build it: :data:`MIGRATIONS`, applied in order by
:class:`server.store.Store` when it opens an older file (after a backup copy).

Append only; never edit a released step. Each step is SQL (:func:`_script`) or a function that also
fills in what the new tables need from what is stored.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Callable

from engine.games import find_game

from .history import game_rows, public_round, round_rows
from .store_commits import _json

_V1 = """
CREATE TABLE players (
    player_id     TEXT PRIMARY KEY,
    name          TEXT NOT NULL,
    secret_sha256 BLOB NOT NULL,
    balance       INTEGER NOT NULL CHECK (balance >= 0),
    created_at    REAL NOT NULL
);
CREATE TABLE tables (
    table_no        INTEGER PRIMARY KEY AUTOINCREMENT,
    table_id        TEXT NOT NULL UNIQUE,
    name            TEXT NOT NULL,
    settings        TEXT NOT NULL,            -- the table settings as created (JSON)
    host_id         TEXT,
    private_code    TEXT,
    state           TEXT NOT NULL CHECK (state IN ('waiting', 'playing', 'finished', 'closed')),
    created_at      REAL NOT NULL,
    -- the game, once started: enough to replay it from the action log
    rng             TEXT,                     -- Game.initial_rng (JSON)
    initial_players TEXT,                     -- [[seat, name, stack], ...]
    game_settings   TEXT,                     -- engine Settings (JSON)
    engine          TEXT,                     -- fingerprint of the engine that can replay the log; NULL: none
    started_at      REAL,
    finished_at     REAL,
    -- checkpoint after the last unit of work, which the replay must agree with
    actions         INTEGER NOT NULL DEFAULT 0,
    round_no        INTEGER,
    phase           TEXT,
    pot             INTEGER,
    stacks          TEXT,                     -- {"seat": stack} (JSON)
    checkpoint      TEXT                      -- Game.to_data() without its history (JSON)
);
CREATE TABLE seats (
    table_id  TEXT NOT NULL REFERENCES tables (table_id),
    seat      INTEGER NOT NULL,
    name      TEXT NOT NULL,
    player_id TEXT REFERENCES players (player_id),   -- NULL for a bot
    left_game INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (table_id, seat)
) WITHOUT ROWID;
CREATE TABLE actions (
    table_id TEXT NOT NULL REFERENCES tables (table_id),
    seq      INTEGER NOT NULL,
    seat     INTEGER,
    action   TEXT NOT NULL,                   -- the engine action's plain data (JSON)
    at       REAL NOT NULL,
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
CREATE TABLE rounds (
    table_id    TEXT NOT NULL REFERENCES tables (table_id),
    round_no    INTEGER NOT NULL,
    first_seq   INTEGER NOT NULL,
    last_seq    INTEGER NOT NULL,
    finished_at REAL NOT NULL,
    record      TEXT NOT NULL,                -- the full round (JSON), see Table.round_record
    PRIMARY KEY (table_id, round_no)
) WITHOUT ROWID;
CREATE INDEX rounds_by_time ON rounds (finished_at);
CREATE TABLE ledger (
    entry     INTEGER PRIMARY KEY AUTOINCREMENT,
    at        REAL NOT NULL,
    player_id TEXT REFERENCES players (player_id), -- NULL: a bot, paid by the house
    table_id  TEXT REFERENCES tables (table_id),
    seat      INTEGER,
    kind      TEXT NOT NULL CHECK (kind IN ('grant', 'buy_in', 'cash_out')),
    amount    INTEGER NOT NULL CHECK (amount >= 0)
);
CREATE INDEX ledger_by_player ON ledger (player_id);
CREATE INDEX ledger_by_table ON ledger (table_id);
"""

Migration = Callable[[sqlite3.Connection], None]


def _script(sql: str) -> Migration:
    def run(conn: sqlite3.Connection) -> None:
        statement = ""
        for line in sql.splitlines(keepends=True):  # executescript() would commit: split instead
            statement += line
            if sqlite3.complete_statement(statement):
                conn.execute(statement)
                statement = ""
        assert not statement.strip(), f"incomplete SQL: {statement!r}"

    return run


def _v2_rounds_public_and_ordered(conn: sqlite3.Connection) -> None:
    """Rounds get their public form and a server-wide sequence (older rounds: in the order of their times).

    Every round stored before version 2 is Down and Back's (the only game then).
    """
    conn.execute("ALTER TABLE rounds ADD COLUMN seq INTEGER")
    conn.execute("ALTER TABLE rounds ADD COLUMN public TEXT")
    conn.execute("DROP INDEX rounds_by_time")
    rows = conn.execute("SELECT table_id, round_no, record FROM rounds ORDER BY finished_at, table_id, round_no")
    for seq, (table_id, round_no, record) in enumerate(rows.fetchall(), 1):
        conn.execute(
            "UPDATE rounds SET seq = ?, public = ? WHERE table_id = ? AND round_no = ?",
            (seq, _json(public_round(find_game("down-and-back"), json.loads(record))), table_id, round_no),
        )
    conn.execute("CREATE UNIQUE INDEX rounds_by_seq ON rounds (seq)")


_V3_SPECTATORS = """
CREATE TABLE spectators (
    table_id  TEXT NOT NULL REFERENCES tables (table_id),
    player_id TEXT NOT NULL REFERENCES players (player_id),
    PRIMARY KEY (table_id, player_id)
) WITHOUT ROWID;
"""

# Every table written before version 4 is Down and Back's, the only game those servers hosted. New
# tables always name their game (Store.create_table); the default only states what the old rows are.
_V4_GAME = """
ALTER TABLE tables ADD COLUMN game TEXT NOT NULL DEFAULT 'down-and-back';
"""

# A table's recent chat, so that a restart sends what was said (Audience.CHAT_KEEP lines a table).
_V5_CHAT = """
CREATE TABLE chat (
    table_id TEXT NOT NULL REFERENCES tables (table_id),
    seq      INTEGER NOT NULL,                -- the line's place in the table's chat, from 1
    message  TEXT NOT NULL,                   -- {seat, name, text, ts} as chat_message sends it (JSON)
    PRIMARY KEY (table_id, seq)
) WITHOUT ROWID;
"""

# Each player's finished rounds and games, indexed by player in the server's order, for the
# past_rounds and past_games requests (one index range a page however many rounds are stored), and
# whether a player hides from the leaderboard. Filled in from the stored rounds and ledger
# (_v6_player_history).
_V6_PLAYER_HISTORY = """
CREATE TABLE player_rounds (
    player_id TEXT NOT NULL REFERENCES players (player_id),
    seq       INTEGER NOT NULL,               -- the round's rounds.seq
    table_id  TEXT NOT NULL,
    round_no  INTEGER NOT NULL,
    seat      INTEGER NOT NULL,
    chips     INTEGER NOT NULL,               -- won (+) or lost (-) in the round
    result    TEXT NOT NULL,                  -- the game's words for it (GameType.round_outcome)
    PRIMARY KEY (player_id, seq)
) WITHOUT ROWID;
CREATE UNIQUE INDEX player_rounds_by_round ON player_rounds (table_id, round_no, player_id);
CREATE TABLE player_games (
    player_id   TEXT NOT NULL REFERENCES players (player_id),
    seq         INTEGER NOT NULL,             -- the order games ended on this server
    table_id    TEXT NOT NULL REFERENCES tables (table_id),
    game        TEXT NOT NULL,
    seat        INTEGER NOT NULL,
    rounds      INTEGER NOT NULL,
    chips       INTEGER NOT NULL,             -- cashed out minus bought in
    won         INTEGER NOT NULL,             -- the most chips won at the table (server.history.game_rows)
    finished_at REAL NOT NULL,
    PRIMARY KEY (player_id, seq)
) WITHOUT ROWID;
CREATE INDEX player_games_by_seq ON player_games (seq);
ALTER TABLE players ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0;
"""


def _v6_player_history(conn: sqlite3.Connection) -> None:
    """Each player's rounds and games from what is stored: seats from the buy-ins, chips from the stacks."""
    _script(_V6_PLAYER_HISTORY)(conn)
    owners = {(t, s): p for t, s, p in conn.execute(
        "SELECT table_id, seat, player_id FROM ledger WHERE kind = 'buy_in' AND player_id IS NOT NULL")}
    brought = dict(((t, s), a) for t, s, a in conn.execute(
        "SELECT table_id, seat, amount FROM ledger WHERE kind = 'buy_in' ORDER BY entry"))
    before: dict[tuple[str, int], int] = {}
    for seq, table_id, game, raw in conn.execute(
        "SELECT r.seq, r.table_id, t.game, r.public FROM rounds r JOIN tables t USING (table_id) ORDER BY r.seq"
    ).fetchall():
        public = json.loads(raw)
        stacks = {int(s): v for s, v in public["stacks"].items()}
        rows = round_rows(find_game(game), public, {s: owners.get((table_id, s)) for s in stacks},
                          {s: before.get((table_id, s), brought.get((table_id, s), v)) for s, v in stacks.items()})
        conn.executemany("INSERT INTO player_rounds (player_id, seq, table_id, round_no, seat, chips, result) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)",
                         [(p, seq, table_id, public["round"], r["seat"], r["chips"], r["result"]) for p, r in rows])
        before.update({(table_id, s): v for s, v in stacks.items()})
    games = conn.execute(
        "SELECT t.table_id, t.game, t.finished_at, (SELECT count(*) FROM rounds r WHERE r.table_id = t.table_id) "
        "FROM tables t WHERE t.rng IS NOT NULL AND t.finished_at IS NOT NULL ORDER BY t.finished_at, t.table_no"
    ).fetchall()
    for seq, (table_id, game, finished_at, rounds) in enumerate(games, 1):
        net = {seat: chips for seat, chips in conn.execute(
            "SELECT seat, sum(CASE kind WHEN 'cash_out' THEN amount ELSE -amount END) FROM ledger "
            "WHERE table_id = ? AND kind IN ('buy_in', 'cash_out') GROUP BY seat", (table_id,))}
        conn.executemany(
            "INSERT INTO player_games (player_id, seq, table_id, game, seat, rounds, chips, won, finished_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(p, seq, table_id, game, r["seat"], rounds, r["chips"], int(r["won"]), finished_at)
             for p, r in game_rows(net, {s: owners.get((table_id, s)) for s in net})])


# A bot's level (issue 16), so that a restored table's bots play as they were added. Bots seated before
# version 7 played the only way there was: their game's default level (NULL reads as that).
_V7_BOT_LEVEL = """
ALTER TABLE seats ADD COLUMN bot_level TEXT;
"""

# The number of actions a table's checkpoint was taken after (issue 19): a checkpoint is written after
# each draw of chance and each change of the game's status, no longer after every action, and the
# replay checks it where it was taken. Every checkpoint before version 8 was taken after every action.
_V8_CHECKPOINT_AT = """
ALTER TABLE tables ADD COLUMN checkpoint_at INTEGER;
UPDATE tables SET checkpoint_at = actions WHERE checkpoint IS NOT NULL;
"""

# Moderation (issue 32): each player's mutes, the operator's bans, and the players a table's host removed
# (who may not come back to that table). A ban names a player id, an SSH key's fingerprint or an address
# (a network, as ipaddress writes it); a ban of a player is no foreign key: it outlives a forgotten player.
_V9_MODERATION = """
CREATE TABLE mutes (
    player_id TEXT NOT NULL REFERENCES players (player_id),
    muted_id  TEXT NOT NULL REFERENCES players (player_id),
    at        REAL NOT NULL,
    PRIMARY KEY (player_id, muted_id)
) WITHOUT ROWID;
CREATE TABLE bans (
    kind   TEXT NOT NULL CHECK (kind IN ('player', 'key', 'address')),
    value  TEXT NOT NULL,
    label  TEXT NOT NULL,                     -- what the operator named: the player's name, the key, the address
    reason TEXT NOT NULL,                     -- told to the banned ('' for none)
    at     REAL NOT NULL,
    PRIMARY KEY (kind, value)
) WITHOUT ROWID;
CREATE TABLE removals (
    table_id  TEXT NOT NULL REFERENCES tables (table_id),
    player_id TEXT NOT NULL REFERENCES players (player_id),
    PRIMARY KEY (table_id, player_id)
) WITHOUT ROWID;
"""

# (version it produces, what it does, how). Append only; never edit a released step.
MIGRATIONS: list[tuple[int, str, Migration]] = [
    (1, "initial schema", _script(_V1)),
    (2, "rounds: public form and server-wide order", _v2_rounds_public_and_ordered),
    (3, "spectators: who watches which table, restored like seats", _script(_V3_SPECTATORS)),
    (4, "tables: the game each table plays (engine.games.find_game)", _script(_V4_GAME)),
    (5, "chat: each table's recent chat, sent again after a restart", _script(_V5_CHAT)),
    (6, "player_rounds, player_games, players.hidden: each player's history and the leaderboard",
     _v6_player_history),
    (7, "seats: each bot's level", _script(_V7_BOT_LEVEL)),
    (8, "tables: the action count of the checkpoint (written after draws, not after every action)",
     _script(_V8_CHECKPOINT_AT)),
    (9, "mutes, bans, removals: moderation", _script(_V9_MODERATION)),
]
