"""How friends reach a table: the join line's commands, from the gateways the server says it runs.

The server lists its ways in (``list_tables`` ``gateways``: the game port, SSH, the
browser) with their ports, and the host its operator named (``--public-host``). A
server listening on every interface (``0.0.0.0``) cannot know the name friends use,
so without one the client shows the host it reached the server by: the address the
player typed, or, for a client run by the SSH or browser gateway (whose own
connection is to loopback), the host the player's SSH or browser connection
reached (``--public-host`` on the client's command line).

Everything here is checked before it is shown: the server's ports and host, and the
table id, are untrusted data, and a host that is not a plain name or address (an
escape, a space) is never put in a command.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from protocol.messages import TABLE_ID, is_host

YOU = "<you>"  # the SSH user: each friend's own name
KINDS = ("ssh", "game", "web")


def valid_gateways(raw: Any) -> list[dict[str, Any]]:
    """The well-formed entries of a ``list_tables`` ``gateways`` list (anything else is dropped)."""
    out = []
    for entry in raw if isinstance(raw, list) else ():
        if not isinstance(entry, Mapping) or entry.get("kind") not in KINDS:
            continue
        port, host = entry.get("port"), entry.get("host")
        if isinstance(port, bool) or not isinstance(port, int) or not 0 < port < 65536:
            continue
        out.append({"kind": entry["kind"], "port": port, "host": host if is_host(host) else None,
                    "local": entry.get("local") is True})
    return out


def is_loopback_host(host: str) -> bool:
    import ipaddress

    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def join_host(gateways: Sequence[Mapping[str, Any]], connected: str, hint: str | None) -> str | None:
    """The host to put in the commands: the operator's name for the server, else the gateway's hint (the host the
    player's SSH or browser connection reached), else the host this client connected to."""
    named = next((g["host"] for g in gateways if g.get("host")), None)
    for host in (named, hint, connected):
        if host and is_host(host):
            return host
    return None


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def join_commands(table_id: str, gateways: Sequence[Mapping[str, Any]], host: str | None) -> list[str]:
    """One command (or address) per way in, in the gateways' order: ``ssh -t -p 2222 <you>@host t3``,
    ``dab-client host:7777 --join t3``, ``http://host:8080/``. A way in that listens on loopback only is
    left out unless ``host`` is this machine too (friends on a shared box)."""
    if host is None or not TABLE_ID._regex.fullmatch(table_id or ""):  # type: ignore[union-attr]
        return []
    here = is_loopback_host(host)
    commands = []
    for gateway in gateways:
        if gateway.get("local") and not here:
            continue
        kind, port = gateway["kind"], gateway["port"]
        if kind == "ssh":
            commands.append(f"ssh -t{'' if port == 22 else f' -p {port}'} {YOU}@{host} {table_id}")
        elif kind == "game":
            commands.append(f"dab-client {_bracketed(host)}:{port} --join {table_id}")
        elif kind == "web":
            commands.append(f"http://{_bracketed(host)}{'' if port == 80 else f':{port}'}/")
    return commands


SEPARATOR = "  ·  "


def fitting(label: str, commands: Sequence[str], width: int, key: str) -> tuple[list[str], bool]:
    """The commands that fit on one line of ``width`` after ``label`` and before ``key`` (what the key for all
    of them says), in order: a long one is left out, never cut. And whether every one did."""
    shown: list[str] = []
    used = len(label) + len(key)
    for command in commands:
        extra = len(command) + (len(SEPARATOR) if shown else 0)
        if used + extra <= width:
            shown.append(command)
            used += extra
    return shown, len(shown) == len(commands)
