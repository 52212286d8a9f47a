"""The Textual client: ``dab-client host:7777`` or ``dab-client`` for a practice game."""

from engine import __version__

__all__ = ["__version__"]
