"""Resume tokens: a player's token is ``<player_id>_<secret>``; the server keeps only a hash of the secret."""

from __future__ import annotations

import hashlib


def secret_hash(secret: str) -> bytes:
    """What the store keeps instead of a token secret (SHA-256)."""
    return hashlib.sha256(secret.encode()).digest()
