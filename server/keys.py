"""The server's long-lived Ed25519 key, which signs every fair deal's commitments and reveals.

docs/FAIRNESS.md §2 says what is signed and how a player checks it. The key
lives in the data directory as ``ssh_host_ed25519_key`` (OpenSSH's format, mode
0600 from the moment the file exists): the SSH gateway's host key and this one
are the same key, so the fingerprint ``ssh`` shows on a first connection is the
one the client pins and shows for the fair deals. A server that keeps nothing
(``--memory``, tests, a practice game) makes a fresh key each run.

Signing needs constant-time, side-channel-free Ed25519: that is `cryptography`
(PyCA), not code of ours. Ed25519 signatures are deterministic, so a record
signed again (a round record stored after a restart) gets the same signature.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from engine.fairness import SIGN_LABELS, fingerprint, signed_message
from engine.records import Record

KEY_FILE = "ssh_host_ed25519_key"


def private_file(path: Path, make: Callable[[], bytes]) -> bytes:
    """The file's bytes; created from ``make()`` with mode 0600 from the start if it does not exist."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    data = make()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another start made it meanwhile
        return path.read_bytes()
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    return data


class BadKeyFile(ValueError):
    """The key file cannot be used (not an Ed25519 private key in OpenSSH's format)."""


class ServerKey:
    """The signing key (see the module docstring)."""

    def __init__(self, private: Ed25519PrivateKey) -> None:
        self._private = private
        self.public: bytes = private.public_key().public_bytes_raw()
        self.fingerprint = fingerprint(self.public)

    @classmethod
    def generate(cls) -> "ServerKey":
        return cls(Ed25519PrivateKey.generate())

    @classmethod
    def load(cls, directory: str | Path) -> "ServerKey":
        """The key kept in ``directory`` (made there if there is none)."""
        def make() -> bytes:
            return Ed25519PrivateKey.generate().private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH, serialization.NoEncryption())

        path = Path(directory) / KEY_FILE
        data = private_file(path, make)
        try:
            private = serialization.load_ssh_private_key(data, password=None)
        except (ValueError, TypeError) as exc:
            raise BadKeyFile(f"{path} is not an unencrypted OpenSSH private key ({exc})") from None
        if not isinstance(private, Ed25519PrivateKey):
            raise BadKeyFile(f"{path} is not an Ed25519 key")
        return cls(private)

    def sign(self, message: bytes) -> bytes:
        return self._private.sign(message)

    def openssh(self) -> bytes:
        """The private key in OpenSSH's format (the SSH gateway's host key is this key)."""
        return self._private.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.OpenSSH,
                                           serialization.NoEncryption())

    def signature(self, event: Mapping[str, Any]) -> str:
        """The signature (hex) of a signed fair event (engine.fairness.signed_message)."""
        return self.sign(signed_message({k: v for k, v in event.items() if k != "sig"})).hex()

    def seal(self, records: Iterable[Record]) -> None:
        """Sign every fair record among ``records`` that the server signs, before anyone reads them."""
        for record in records:
            if record.kind in SIGN_LABELS and record.sig is None:
                record.sign(self.signature(record.for_seat(None)))

    def seal_round(self, record: dict[str, Any]) -> None:
        """Sign a round record's fair events (its ``log``) and its reveal (``fair``) as they were sent,
        whatever signed them live (a restart replays the log unsigned)."""
        for entry in record.get("log", ()):
            if entry["kind"] in SIGN_LABELS:
                event = Record.from_data(entry).for_seat(None)
                entry["public"] = dict(entry["public"], sig=self.signature(event))
        fair = record.get("fair")
        if fair is not None:
            record["fair"] = dict(fair, sig=self.signature(dict(fair, kind="deal_reveal")))
