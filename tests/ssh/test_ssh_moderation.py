"""Issue 32 item 16 over real OpenSSH: the operator bans an SSH key (by its .pub file) or an address with
``dab-server ban``; the session playing with the key ends at once saying why, and the key is refused under
any name, with the reason; the host's removal keeps the key's player from the table under a new name too."""

from __future__ import annotations

import asyncio
import subprocess

from operator_cli import cli
from protocol import messages as m
from scripted import ScriptedClient
from ssh_helpers import Server, make_key, needs_openssh

pytestmark = needs_openssh


def test_a_banned_key_ends_its_session_and_is_refused_under_any_name(tmp_path, tmux):
    server = Server(tmp_path / "data")
    key = make_key(tmp_path, "mallory")
    try:
        tmux.start("m", server.ssh(key, "mallory", "-tt"))
        tmux.wait_for("m", "as mallory")
        done = cli(server.data_dir, "ban", "key", f"{key}.pub", "--reason", "griefing")
        assert done.returncode == 0, done.stderr
        assert "banned key mallory (SHA256:" in done.stdout and "1 connection closed" in done.stdout, done.stdout
        tmux.wait_for("m", "you are banned from this server: griefing")
        for name in ("mallory", "someone-else"):  # a new name is the same key
            result = subprocess.run(server.ssh(key, name, "-tt"), stdin=subprocess.DEVNULL, capture_output=True,
                                    timeout=30)
            assert result.returncode != 0
            assert b"you are banned from this server: griefing" in result.stderr + result.stdout, result
        assert cli(server.data_dir, "unban", "key", f"{key}.pub").returncode == 0
        tmux.start("m2", server.ssh(key, "mallory", "-tt"))
        tmux.wait_for("m2", "as mallory")  # the same player again, let in
    finally:
        server.stop()


def test_a_banned_address_is_refused_before_it_logs_in(tmp_path):
    server = Server(tmp_path / "data")
    try:
        done = cli(server.data_dir, "ban", "address", "127.0.0.0/8", "--reason", "a flood of guests")
        assert done.returncode == 0, done.stderr
        result = subprocess.run(server.ssh(None, "guest", "-tt"), stdin=subprocess.DEVNULL, capture_output=True,
                                timeout=30)
        assert result.returncode != 0
        # Said by the gateway as it disconnects, before any login or client (OpenSSH prints the reason).
        assert b"Received disconnect" in result.stderr, result
        assert b"you are banned from this server: a flood of guests" in result.stderr, result
    finally:
        server.stop()


def test_a_key_removed_from_a_table_cannot_come_back_to_it_under_a_new_name(tmp_path, tmux):
    server = Server(tmp_path / "data")
    key = make_key(tmp_path, "nuisance")

    async def host_a_table() -> tuple[ScriptedClient, str]:
        host = ScriptedClient(server.game_port, "hana")
        await host.link.connect()
        created = await host.request(m.CreateTable, name="hana's", settings=m.TableSettings(seats=3))
        return host, created["table_id"]

    async def remove(host: ScriptedClient, name: str) -> None:
        await host.wait_for(lambda: host.facts and any(mb["name"] == name for mb in host.table["members"]), 30)
        assert (await host.request(m.RemovePlayer, name=name))["at_round_end"] is False

    loop = asyncio.new_event_loop()
    host = None
    try:
        host, table_id = loop.run_until_complete(host_a_table())
        tmux.start("n", server.ssh(key, "nuisance", "-tt", command=table_id))  # the command joins the table
        loop.run_until_complete(remove(host, "nuisance"))
        tmux.wait_for("n", "Removed from the table")  # back in the lobby, told (the notification's title)
        tmux.kill("n")
        tmux.start("again", server.ssh(key, "a-new-name", "-tt", command=table_id))  # the same key, a new name
        # the key's player: refused, said above the lobby's list until dismissed
        tmux.wait_for("again", "Could not join t1: the host removed you from this table")
    finally:
        if host is not None:
            loop.run_until_complete(host.link.close())
        loop.close()
        server.stop()
