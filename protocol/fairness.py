"""The fair deal's messages: a client seed is committed, then revealed (docs/FAIRNESS.md)."""

from typing import ClassVar

from .fields import HEX, REQUEST_ID
from .schema import Request, _f, _message


@_message
class SeedCommit(Request):
    """Commit to your client seed for the round under way, before the seed set is sealed (docs/FAIRNESS.md)."""

    type: ClassVar[str] = "seed_commit"
    id: int = _f(REQUEST_ID)
    commit: str = _f(HEX)


@_message
class ClientSeed(Request):
    """Reveal your client seed, once the seed set holding your commitment is sealed (docs/FAIRNESS.md)."""

    type: ClassVar[str] = "client_seed"
    id: int = _f(REQUEST_ID)
    seed: str = _f(HEX)
