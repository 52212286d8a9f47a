"""The server's files: private from creation, never through a link, one server per database, truthful refusals.

* every file the server creates (database, -wal, -shm, lock) is 0600 even in a
  world-readable data directory, and the directory gets a warning
  (``test_every_file_is_private_even_in_an_open_directory``); files an older
  version left readable are made private (``test_files_left_readable_are_made_private``);
* a planted ``dab-server.lock`` symlink or a symlinked database is refused,
  the target untouched (``test_a_planted_lock_symlink_is_refused``,
  ``test_a_symlinked_database_is_refused``); a data directory of another user
  is refused (``test_a_data_directory_of_another_user_is_refused``);
* a second server is refused however it reaches the database: a symlinked
  directory, a hard link, a deleted lock file (``test_a_second_server_is_refused_whatever_the_path``);
* a 0-byte database is refused, not taken for a new one (``test_an_empty_database_file_is_refused``);
* a read-only data directory is reported as read-only by the server, and
  ``export`` still reads it (``test_a_read_only_directory_is_reported_as_such``).
"""

from __future__ import annotations

import os
import shutil
import signal
import stat
import subprocess
from contextlib import contextmanager
from pathlib import Path

import pytest

from server.store import DB_NAME, LOCK_NAME, Store, secret_hash

from durability_helpers import FAST, ServerProcess, make_store, refused, run_cli


def modes(directory: Path) -> dict[str, int]:
    return {p.name: stat.S_IMODE(p.lstat().st_mode) for p in directory.iterdir()}


async def test_every_file_is_private_even_in_an_open_directory(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    data.chmod(0o755)
    previous = os.umask(0o022)  # what the server inherits from a careless shell
    try:
        server = ServerProcess(data, *FAST)
        await server.start()
    finally:
        os.umask(previous)
    try:
        seen = modes(data)  # while it runs: the WAL and shared memory exist now
        assert {DB_NAME, f"{DB_NAME}-wal", f"{DB_NAME}-shm", LOCK_NAME} <= set(seen), seen
        assert all(mode & 0o077 == 0 for mode in seen.values()), {n: oct(m) for n, m in seen.items()}
        assert any("open to other users" in line and "chmod 700" in line for line in server.log), server.log
        assert await server.stop(signal.SIGTERM) == 0
    finally:
        await server.close()


def test_files_left_readable_are_made_private(tmp_path):
    make_store(tmp_path)
    holder = Store(tmp_path / DB_NAME)  # an open connection keeps the -wal and -shm files
    holder.add_player("px", "x", secret_hash("x"), 5)
    holder.commit()
    try:
        for path in tmp_path.iterdir():
            path.chmod(0o644)  # as an older dab-server left them
        store = Store.open_dir(tmp_path)
        try:
            seen = modes(tmp_path)
            assert f"{DB_NAME}-wal" in seen and all(mode == 0o600 for mode in seen.values()), seen
        finally:
            store.close()
    finally:
        holder.close()


def test_a_planted_lock_symlink_is_refused(tmp_path):
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    precious = tmp_path / "precious.txt"
    precious.write_text("my thesis\n")
    (data / LOCK_NAME).symlink_to(precious)
    refused(data, "symbolic link", LOCK_NAME)
    assert precious.read_text() == "my thesis\n"


def test_a_symlinked_database_is_refused(tmp_path):
    real = make_store(tmp_path / "real")
    real.chmod(0o640)
    other = tmp_path / "other"
    other.mkdir(mode=0o700)
    (other / DB_NAME).symlink_to(real)
    refused(other, "symbolic link", DB_NAME)
    assert stat.S_IMODE(real.stat().st_mode) == 0o640  # not taken over, not chmod'ed


def test_a_data_directory_of_another_user_is_refused(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root to give a directory to another user")
    data = tmp_path / "theirs"
    data.mkdir(mode=0o700)
    os.chown(data, 65534, 65534)
    refused(data, "belongs to another user")


async def test_a_second_server_is_refused_whatever_the_path(tmp_path):
    data = tmp_path / "data"
    server = ServerProcess(data, *FAST)
    await server.start()
    try:
        alias = tmp_path / "alias"
        alias.symlink_to(data, target_is_directory=True)
        refused(alias, "another dab-server", f"pid {server.process.pid}")
        linked = tmp_path / "linked"  # the same file under another name: a hard link
        linked.mkdir(mode=0o700)
        os.link(data / DB_NAME, linked / DB_NAME)
        refused(linked, "another dab-server")
        (data / LOCK_NAME).unlink()  # the lock file is only a note: the lock is on the database itself
        refused(data, "another dab-server", DB_NAME)
        assert await server.stop(signal.SIGTERM) == 0
    finally:
        await server.close()


def test_an_empty_database_file_is_refused(tmp_path):
    (tmp_path / DB_NAME).write_bytes(b"")
    (tmp_path / f"{DB_NAME}-wal").write_bytes(b"\x37\x7f\x06\x82" + b"\0" * 28)  # a hot WAL beside it
    refused(tmp_path, "is empty (0 bytes)", "restore it from a backup")
    assert (tmp_path / f"{DB_NAME}-wal").stat().st_size == 32  # not discarded


@contextmanager
def read_only(directory: Path):
    """``directory`` made read-only for this process: permissions, or (for root) a read-only bind mount."""
    if os.geteuid() != 0:
        directory.chmod(0o500)
        try:
            yield
        finally:
            directory.chmod(0o700)
        return
    if not shutil.which("mount"):
        pytest.skip("cannot make a read-only directory")
    mounted = subprocess.run(["mount", "--bind", str(directory), str(directory)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot make a read-only directory: {mounted.stderr!r}")
    try:
        if subprocess.run(["mount", "-o", "remount,bind,ro", str(directory)], capture_output=True).returncode:
            pytest.skip("cannot remount read-only")
        yield
    finally:
        subprocess.run(["umount", str(directory)], check=True)


async def test_a_read_only_directory_is_reported_as_such(tmp_path):
    data = tmp_path / "data"
    server = ServerProcess(data, *FAST)
    await server.start()
    assert await server.stop(signal.SIGTERM) == 0
    crashed = tmp_path / "crashed"  # a copy taken while a write-ahead log held commits
    crashed.mkdir(mode=0o700)
    holder = Store(data / DB_NAME)
    holder.add_player("px", "x", secret_hash("x"), 5)
    holder.commit()
    for name in (DB_NAME, f"{DB_NAME}-wal"):
        shutil.copy(data / name, crashed / name)
    holder.close()

    with read_only(data):
        result = run_cli("--host", "127.0.0.1", "--port", "0", "--data-dir", str(data))
        assert result.returncode == 2 and "read-only" in result.stderr and "not damaged" in result.stderr, result.stderr
        assert "corrupt" not in result.stderr and "Traceback" not in result.stderr
        exported = run_cli("export", "--data-dir", str(data))
        assert exported.returncode == 0 and "No games yet." in exported.stdout, exported.stderr
    with read_only(crashed):
        exported = run_cli("export", "--data-dir", str(crashed))
        assert exported.returncode == 2 and "read-only" in exported.stderr and "-wal" in exported.stderr, exported.stderr
        assert "corrupt" not in exported.stderr and "Traceback" not in exported.stderr
