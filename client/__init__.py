"""The Textual client: ``dab-client host:7777`` or ``dab-client`` for a practice game."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("down-and-back")
except PackageNotFoundError:  # running from a source tree that was not installed
    __version__ = "0+unknown"
