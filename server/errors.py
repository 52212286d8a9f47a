"""The server's errors: what it answers a request with (a stable code and a human message), and the store's.

The store's live here, not in :mod:`server.store`, so that a server without a
store (a practice game, tests) does not import the SQL layer just to name them.
"""


class RequestError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class StoreError(Exception):
    """The database cannot be used; the message says why and what to do."""


class StoreBusy(StoreError):
    """Another program holds the database's write lock: nothing was written; try again shortly."""


class StoreFailed(StoreError):
    """A write failed: the open transaction was rolled back and nothing more is written or committed.

    Memory may be ahead of the disk now, so the server must stop (the restart
    restores the last commit); the store refuses every later write so that no
    later commit can leave a gap in an action log.
    """
