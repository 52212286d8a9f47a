"""The game engine: pure rules, no I/O. Its games are found through :mod:`engine.games`."""

__version__ = "0.1.0"
"""The version of the whole distribution (down-and-back): pyproject.toml reads it from here, and the
client and server report it without ``importlib.metadata`` (about 25 ms of imports at every start)."""
