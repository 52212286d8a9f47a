"""The authoritative asyncio server: sockets, sessions, tables, timers."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("down-and-back")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0+unknown"
