"""Protocol version 2's views and table summaries, in the shape today's screens read.

Temporary: the table shell (client-shell's work, issue 13) reads the version 2
shape natively and deletes this module. Until then these two functions are the
only place the client turns the wire's shape into the screens' one.
"""

from __future__ import annotations

from typing import Any

TABLE_FACTS_V1 = ("table_id", "name", "state", "host_seat", "spectators", "private", "fixed_seed")


def flat_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """A v2 settings map ``{game, seats, rules}`` as the screens' one map: the rules and ``seats``."""
    return {**(settings.get("rules") or {}), "seats": settings.get("seats")}


def screens_view(table: dict[str, Any], game: dict[str, Any] | None, deadline_ms: int | None) -> dict[str, Any]:
    """A v2 ``view`` push as the one map the screens read (protocol version 1's view).

    Temporary adapter, to be deleted when the table shell reads ``table`` and
    ``game`` itself: the game's view with each player's ``bot``/``connected``
    taken from the table's members, the table facts under ``table``, the
    table's settings (its game named) under ``settings``, and before a game the
    "lobby" view the screens expect.
    """
    wire_settings = table.get("settings") or {}
    settings = {**flat_settings(wire_settings), "game": wire_settings.get("game")}
    members = {member["seat"]: member for member in table.get("members", [])}
    if game is None:
        view: dict[str, Any] = {
            "seat": table.get("seat"), "phase": "lobby", "legal": [], "to_act": [], "settings": settings,
            "players": [{"seat": seat, "name": member["name"], "stack": settings.get("stack")}
                        for seat, member in sorted(members.items())],
        }
    else:
        view = {**game, "settings": settings}
        view["players"] = [dict(player) for player in game.get("players", [])]
    for player in view["players"]:
        member = members.get(player["seat"])  # a player who left the finished table is no member
        player["bot"] = bool(member and member["bot"])
        player["connected"] = bool(member and member["connected"])
    view["table"] = {**{key: table.get(key) for key in TABLE_FACTS_V1}, "seats": settings["seats"]}
    view["deadline_ms"] = deadline_ms
    if table.get("chip_history") is not None:
        view["chip_history"] = table["chip_history"]
    return view


def screens_summary(summary: dict[str, Any]) -> dict[str, Any]:
    """A v2 table summary with its settings flattened as the lobby screen reads them (temporary, as above)."""
    return {**summary, "settings": flat_settings(summary.get("settings") or {})}
