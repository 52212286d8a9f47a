"""The authoritative asyncio server: sockets, sessions, tables, timers."""

from engine import __version__

__all__ = ["__version__"]
