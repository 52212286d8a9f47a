"""docs/PROTOCOL.md and each game's document as data: what the conformance suite checks the server against.

Only what the document itself says is read here; nothing is copied from the
server's code. The document's conventions this relies on (each is stated in it):

* a message is a ``#### `name``` heading followed by a ``| field | type |`` table;
* each request's reply is a line "Reply: `ok` with result `{key: ..., ...}`" and its
  errors an "Errors: ..." paragraph, in the order the server checks them;
* view, player, round record and event fields are tables whose first column names
  them in backticks, with a *present* column where presence depends on the view;
* the games are a ``| game | document |`` table before section 1, each document
  with the numbered sections its own tables are read from (``load_game``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

PROTOCOL_MD = Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md"

_TICKED = re.compile(r"`([^`]+)`")
_CODE = re.compile(r"[a-z][a-z0-9_]*")


def ticked(text: str) -> list[str]:
    """Every `backticked` token in ``text``, in order."""
    return _TICKED.findall(text)


def without_parentheses(text: str) -> str:
    """``text`` without its (parenthesised remarks), nested ones included."""
    while True:
        stripped = re.sub(r"\([^()]*\)", "", text)
        if stripped == text:
            return text
        text = stripped


@dataclass
class Section:
    title: str
    body: str

    def tables(self) -> list[list[dict[str, str]]]:
        """The Markdown tables directly in this section, each a list of rows (header -> cell)."""
        found = []
        lines = self.body.splitlines()
        i = 0
        while i < len(lines):
            if lines[i].startswith("|") and i + 1 < len(lines) and re.match(r"\|[-| ]+\|$", lines[i + 1]):
                header = _cells(lines[i])
                rows = []
                i += 2
                while i < len(lines) and lines[i].startswith("|"):
                    rows.append(dict(zip(header, _cells(lines[i]))))
                    i += 1
                found.append(rows)
            else:
                i += 1
        return found

    def table_after(self, caption: str) -> list[dict[str, str]]:
        """The first table after the paragraph that starts with ``caption``."""
        start = self.body.index(caption)
        return Section(self.title, self.body[start:]).tables()[0]

    def paragraph(self, start: str) -> str | None:
        """The paragraph of this section that begins with ``start`` (joined into one line)."""
        for block in re.split(r"\n\s*\n", self.body):
            if block.startswith(start):
                return " ".join(block.split())
        return None


def _cells(line: str) -> list[str]:
    # A cell may contain "\|" (an escaped bar inside a type such as `seat \| nil`).
    parts = re.split(r"(?<!\\)\|", line.strip().strip("|"))
    return [p.strip().replace("\\|", "|") for p in parts]


def _sections(text: str) -> dict[str, Section]:
    """Every heading's section by its title (the heading text without the #s)."""
    sections: dict[str, Section] = {}
    current: Section | None = None
    body: list[str] = []
    for line in text.splitlines():
        heading = re.match(r"(#{2,4}) (.*)", line)
        if heading:
            if current is not None:
                current.body = "\n".join(body)
            current = sections[heading.group(2)] = Section(heading.group(2), "")
            body = []
        else:
            body.append(line)
    if current is not None:
        current.body = "\n".join(body)
    return sections


@dataclass(frozen=True)
class Field:
    name: str
    type: str
    present: str = "always"


@dataclass
class Spec:
    """docs/PROTOCOL.md: the session and the lobby, the same for every game."""

    messages: dict[str, dict[str, str]]  # message type -> field -> type notation
    results: dict[str, frozenset[str]]  # request type -> keys of its ok result
    request_errors: dict[str, list[str]]  # request type -> its error codes, in checking order
    protocol_errors: list[str]
    hello_refusals: list[str]
    other_errors: list[str]
    bye_reasons: list[str]
    settings: list[str]  # the settings map of create_table
    game_entry: list[str]  # an item of the list_tables result's games
    rule_field: list[str]  # an item of a game entry's rules
    gateway: list[str]  # an item of the list_tables result's gateways
    online_player: list[str]  # an item of list_online's players and the online push's
    table: dict[str, Field]  # view.table
    member: list[str]  # an item of view.table.members
    table_summary: list[str]
    player_summary: list[str]
    events: dict[str, tuple[frozenset[str], frozenset[str], frozenset[str]]]  # the server's own event kinds
    round_record: dict[str, str]  # the server's fields of every round record: field -> type
    games: dict[str, str]  # game name -> its document, relative to docs/
    example: str  # the first code block of section 12

    @property
    def error_codes(self) -> list[str]:
        return self.protocol_errors + self.hello_refusals + self.other_errors


@dataclass
class GameSpec:
    """docs/games/<game>.md: one game's rules, actions, view, events and round records."""

    rules: dict[str, str]  # rule key -> its default, as written
    actions: dict[str, frozenset[str]]  # action kind -> its fields
    view: dict[str, Field]
    players: list[str]
    legal: dict[str, frozenset[str]]  # legal entry kind -> its keys
    showdown: list[str]
    reveal_entry: list[str]
    events: dict[str, tuple[frozenset[str], frozenset[str], frozenset[str]]]  # kind -> (always, optional, own)
    round_record: dict[str, str]  # field -> type
    round_player: list[str]

    def view_keys(self, seated: bool) -> frozenset[str]:
        return frozenset(f.name for f in self.view.values() if f.present == "always" or seated)


def _sentence(paragraph: str, start: str) -> str:
    """The sentence of ``paragraph`` that begins with ``start``, without it (a full stop inside
    parentheses does not end it)."""
    at = paragraph.find(start)
    assert at >= 0, f"no {start!r} in {paragraph!r}"
    text, depth = paragraph[at + len(start):], 0
    for i, char in enumerate(text):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "." and depth == 0 and (i + 1 == len(text) or text[i + 1] == " "):
            return text[:i]
    return text


def _field_rows(rows: list[dict[str, str]]) -> dict[str, Field]:
    fields = {}
    for row in rows:
        for name in ticked(row["field"]):  # "`down_winner`, `back_winner`": two fields
            fields[name] = Field(name, row.get("type", ""), row.get("present", "always"))
    return fields


def _names(rows: list[dict[str, str]], column: str = "field") -> list[str]:
    return [name for row in rows for name in ticked(row[column])]


def _result_keys(reply: str) -> frozenset[str]:
    """The top-level keys of "Reply: `ok` with result `{a: x, b: {c, d}}`"."""
    match = re.search(r"result `\{(.*?)\}`", reply)
    assert match, f"no result in {reply!r}"
    inner, keys, depth, token = match.group(1), [], 0, ""
    for char in inner + ",":
        if char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
        if char == "," and depth == 0:
            if token.strip():
                keys.append(token.split(":")[0].strip())
            token = ""
        else:
            token += char
    return frozenset(keys)


def _events(rows: list[dict[str, str]], showdown: list[str] = ()) -> dict[str, tuple[frozenset[str], ...]]:
    """An event table: kind -> (fields always sent, fields sent when the table says, fields only the seat's own copy has)."""
    events = {}
    for row in rows:
        cell = without_parentheses(row["fields"].split(" — ")[0])
        public, own = (cell.split("*own:*") + [""])[:2]
        always = {t for t in ticked(public) if not t.endswith("?")}
        optional = {t[:-1] for t in ticked(public) if t.endswith("?")}
        if "every field of the showdown map" in public:
            always |= set(showdown)
        for kind in ticked(row["kind"]):
            events[kind] = (frozenset(always | {"kind"}), frozenset(optional), frozenset(ticked(own)))
    return events


@cache
def load(path: Path = PROTOCOL_MD) -> Spec:
    text = path.read_text(encoding="utf-8")
    sections = _sections(text)
    errors = sections["7. Error codes"]
    protocol_errors, hello_refusals, other_errors = ([ticked(r["code"])[0] for r in t] for t in errors.tables())
    codes = set(protocol_errors + hello_refusals + other_errors)

    messages: dict[str, dict[str, str]] = {}
    results: dict[str, frozenset[str]] = {}
    request_errors: dict[str, list[str]] = {}
    for title, section in sections.items():
        heading = re.match(r"`([a-z_]+)`", title)
        if not heading or not section.tables():
            continue
        name = heading.group(1)
        messages[name] = {ticked(r["field"])[0]: r["type"].strip("`") for r in section.tables()[0]}
        reply = section.paragraph("Reply:")
        if reply is not None and "`ok`" in reply:
            results[name] = _result_keys(reply)
        if reply is not None:
            listed = _sentence(reply, "Errors: ")
            request_errors[name] = [] if listed.startswith("none") else [
                t for t in ticked(without_parentheses(listed)) if _CODE.fullmatch(t)]
            unknown = set(request_errors[name]) - codes
            assert not unknown, f"{name}: errors {unknown} are not in section 7"

    bye = sections["`bye` — the server is closing the connection"]
    bye_reasons = [name for row in bye.tables()[1] for name in ticked(row["reason"])]
    create = sections["`create_table` — create a table; you become its host, seated"]
    settings = [ticked(r["key"])[0] for r in create.tables()[1]]
    listing = sections["`list_tables`"]
    table_section = sections["5.3 The table map (`view.table`)"]
    summary = sections["5.4 Table summary"]
    games = {ticked(r["game"])[0]: re.search(r"\((.*?)\)", r["document"]).group(1)  # type: ignore[union-attr]
             for r in Section("", text[:text.index("## 1.")]).tables()[0]}
    example = re.search(r"```\n(.*?)```", sections["12. Example session"].body, re.S).group(1)  # type: ignore[union-attr]
    return Spec(
        messages=messages, results=results, request_errors=request_errors, protocol_errors=protocol_errors,
        hello_refusals=hello_refusals, other_errors=other_errors, bye_reasons=bye_reasons, settings=settings,
        game_entry=_names(listing.table_after("Game entry")), rule_field=_names(listing.table_after("Rule field")),
        gateway=_names(listing.table_after("Gateway (")),
        online_player=_names(sections["`list_online` — who is online"].table_after("Online player")),
        table=_field_rows(table_section.tables()[0]), member=_names(table_section.table_after("**Member**")),
        table_summary=_names(summary.tables()[0]), player_summary=_names(summary.tables()[1]),
        events=_events(sections["5.6 Event maps"].tables()[0]), games=games, example=example,
        round_record={n: r["type"] for r in sections["5.5 Round record (`history` result)"].tables()[0]
                      for n in ticked(r["field"])},
    )


@cache
def load_game(name: str) -> GameSpec:
    """The document of the game called ``name``, as PROTOCOL.md's list of games names it."""
    text = (PROTOCOL_MD.parent / load().games[name]).read_text(encoding="utf-8")
    sections = _sections(text)
    rules = {ticked(r["key"])[0]: r["default"] for r in sections["2. Rules (the settings' `rules` map)"].tables()[0]}
    actions = {}
    for row in sections["3. Actions (`act`)"].tables()[0]:
        fields = re.findall(r"`([a-z_]+):", row["fields"])
        actions[ticked(row["kind"])[0]] = frozenset(fields)
    view_section = sections["4. The game view (`view.game`)"]
    view_rows = next(t for t in view_section.tables() if {"field", "type"} <= set(t[0]))
    legal = {}
    for row in view_section.table_after("**Legal entries.**"):
        for entry in re.findall(r"\{([^}]*)\}", row["entry"]):
            keys = [part.split(":")[0].strip() for part in entry.split(",")]
            kind = re.search(r'kind: "([a-z_]+)"', entry).group(1)  # type: ignore[union-attr]
            legal[kind] = frozenset(keys)
    showdown: list[str] = []
    reveal_entry: list[str] = []
    if "**The showdown map**" in view_section.body:  # a game with showdowns (Down and Back)
        showdown_rows = view_section.table_after("**The showdown map**")
        showdown = _names(showdown_rows)
        reveal = _row(showdown_rows, "reveal")["meaning"]
        reveal_entry = [k.strip() for k in re.search(r"\[\{([^}]*)\}\]", reveal).group(1).split(",")]  # type: ignore[union-attr]
    record = sections.get("6. Round records (`history`)")
    return GameSpec(
        rules=rules, actions=actions, view=_field_rows(view_rows),
        players=_names(view_section.table_after("**Player map**")) if "**Player map**" in view_section.body else [],
        legal=legal, showdown=showdown, reveal_entry=reveal_entry,
        events=_events(sections["5. Event maps"].tables()[0], showdown),
        round_record={n: r["type"] for r in record.tables()[0] for n in ticked(r["field"])} if record else {},
        round_player=_names(record.tables()[1]) if record else [],
    )


def _row(rows: list[dict[str, str]], name: str) -> dict[str, str]:
    return next(r for r in rows if name in ticked(r.get("field", r.get("entry", ""))))
