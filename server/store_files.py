"""The data directory's files: their modes, links and owners, the database's header, and the lock.

Every file is created 0600; a database, lock, WAL or shared-memory file that is a symbolic link, not
a regular file, or not this user's own is refused; the lock is an OS lock on the database file itself.
:meth:`server.store.Store.open_dir` opens a data directory with these.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sqlite3
import stat
from pathlib import Path
from typing import Iterator

from .errors import StoreError

DB_NAME = "down-and-back.sqlite3"
LOCK_NAME = "dab-server.lock"

_SQLITE_MAGIC = b"SQLite format 3\x00"


def _check_header(path: str) -> None:
    try:
        with open(path, "rb") as f:
            header = f.read(len(_SQLITE_MAGIC))
    except OSError as exc:
        raise StoreError(f"cannot read {path}: {exc.strerror or exc}") from None
    if not header:
        raise StoreError(
            f"{path} is empty (0 bytes): it is damaged, not a new database (only a missing file is new); "
            "restore it from a backup, or move it away with its -wal file to start afresh"
        )
    if header != _SQLITE_MAGIC:
        raise StoreError(
            f"{path} is not an SQLite database (it may be corrupt); "
            "restore it from a backup or move it away to start afresh"
        )


def _open_error(path: str, exc: sqlite3.Error | UnicodeDecodeError) -> StoreError:
    """What SQLite's refusal to open ``path`` means, said truthfully."""
    code = getattr(exc, "sqlite_errorcode", None) or 0
    directory = os.path.dirname(path) or "."
    if code & 0xFF in (sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN, sqlite3.SQLITE_PERM) and not (
        _writable(directory) and (not os.path.exists(path) or os.access(path, os.R_OK | os.W_OK))
    ):
        return StoreError(f"{_read_only(directory)} (SQLite: {exc})")
    if code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED):
        return StoreError(f"{path} is locked by another program ({exc}); stop it, or try again")
    if code & 0xFF in (sqlite3.SQLITE_IOERR, sqlite3.SQLITE_FULL, sqlite3.SQLITE_CANTOPEN):
        return StoreError(f"cannot open the database {path}: {exc}")
    return StoreError(
        f"{path} is corrupt or not a Down and Back database ({exc}); "
        "restore it from a backup or move it away to start afresh"
    )


_NO_LINKS = getattr(os, "O_NOFOLLOW", 0)  # POSIX; elsewhere the checks after opening still refuse links
_NO_BLOCK = getattr(os, "O_NONBLOCK", 0)  # a planted FIFO must not hang the start
_NO_INHERIT = getattr(os, "O_CLOEXEC", 0)
_BESIDE = ("", "-wal", "-shm")  # the database and the files SQLite keeps beside it in WAL mode


def _writable(directory: str | os.PathLike[str]) -> bool:
    return os.access(directory, os.W_OK | os.X_OK)


def _read_only(directory: str | os.PathLike[str]) -> str:
    return (f"the data directory {directory} is read-only for this user (a read-only mount or permissions): "
            "the database in it is not damaged, but it can only be used where it can be written")


def _size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except FileNotFoundError:
        return 0


@contextlib.contextmanager
def _private_files() -> Iterator[None]:
    """Files created meanwhile are for this user only, from their creation (SQLite's included)."""
    previous = os.umask(0o077)
    try:
        yield
    finally:
        os.umask(previous)


def _check_directory(directory: Path, own: bool) -> list[str]:
    """Refuse a data directory of another user (``own``: the server's); warn about one others may read or change."""
    info = os.stat(directory)
    if own and info.st_uid != os.geteuid():
        raise StoreError(f"the data directory {directory} belongs to another user (uid {info.st_uid}); "
                         "give --data-dir a directory of your own")
    if info.st_mode & 0o022:
        return [f"the data directory {directory} is writable by other users (mode {info.st_mode & 0o777:o}): "
                f"they could delete or replace the database; run: chmod 700 {directory}"]
    if info.st_mode & 0o055:
        return [f"the data directory {directory} is open to other users (mode {info.st_mode & 0o777:o}): "
                f"its files are private, but run: chmod 700 {directory}"]
    return []


def _not_ours(path: str | os.PathLike[str], info: os.stat_result, own: bool = True) -> str | None:
    """Why the server must not use ``path`` (None: a regular file, of this user if ``own``)."""
    if stat.S_ISLNK(info.st_mode):
        return f"{path} is a symbolic link: dab-server uses only its own files, never a link (remove it)"
    if not stat.S_ISREG(info.st_mode):
        return f"{path} is not a regular file (remove it)"
    if own and info.st_uid != os.geteuid():
        return f"{path} belongs to another user (uid {info.st_uid}), not to this one"
    return None


def _open_own(path: Path, own: bool) -> int:
    """An fd of the database file, refused unless it is a regular file (never a link), this user's if ``own``."""
    try:
        fd = os.open(path, os.O_RDONLY | _NO_LINKS | _NO_BLOCK | _NO_INHERIT)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise StoreError(_not_ours(path, os.lstat(path)) or f"cannot open {path}: {exc.strerror}") from None
        raise StoreError(f"cannot open {path}: {exc.strerror or exc}") from None
    problem = _not_ours(path, os.fstat(fd), own)
    if problem:
        os.close(fd)
        raise StoreError(problem)
    return fd


def _own_file(path: Path, *, private: bool, own: bool = True) -> None:
    """A file beside the database, if there: refused unless a regular file (this user's if ``own``);
    made 0600 if ``private``."""
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    problem = _not_ours(path, info, own)
    if problem:
        raise StoreError(problem)
    if private and info.st_mode & 0o077:
        try:
            os.chmod(path, 0o600)  # a regular file (checked above): chmod follows nothing
        except OSError as exc:
            raise StoreError(f"cannot make {path} private (chmod 600): {exc.strerror or exc}") from None
        if os.lstat(path).st_mode & 0o077:
            raise StoreError(f"{path} stays readable by other users after chmod 600")


def _hold(fd: int, path: Path) -> None:
    """An exclusive OS lock on the database file itself: two servers must never share one."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: SQLite's own locking still protects the file
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        holder = _read_pid(path.parent / LOCK_NAME)
        raise StoreError(f"another dab-server{f' (pid {holder})' if holder else ''} is using the database {path}; "
                         "stop it first (only one server may use a database)") from None


def _read_pid(path: Path) -> str:
    try:
        fd = os.open(path, os.O_RDONLY | _NO_LINKS | _NO_BLOCK)
    except OSError:
        return ""
    try:
        return os.read(fd, 32).decode(errors="replace").strip() if stat.S_ISREG(os.fstat(fd).st_mode) else ""
    finally:
        os.close(fd)


def _write_pid(path: Path) -> None:
    """Say which process holds the database (for the refusal of a second server); never through a link."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | _NO_LINKS | _NO_BLOCK, 0o600)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise StoreError(_not_ours(path, os.lstat(path)) or str(exc)) from None
        raise StoreError(f"cannot create {path}: {exc.strerror or exc}") from None
    try:
        problem = _not_ours(path, os.fstat(fd))
        if problem:
            raise StoreError(problem)
        os.fchmod(fd, 0o600)
        os.ftruncate(fd, 0)
        os.write(fd, str(os.getpid()).encode())
    finally:
        os.close(fd)


def _fsync_directory(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)
