"""Typed errors for rejected actions.

Every rejection names the action and the reason, and the game state is left
exactly as it was before the call.
"""


class EngineError(ValueError):
    """Base class for everything the engine rejects."""


class InvalidAction(EngineError):
    """The action is malformed: unknown kind, bad card text, wrong field types."""


class IllegalAction(EngineError):
    """The action is well formed but the rules do not allow it now."""

    def __init__(self, action: object, reason: str) -> None:
        self.action = action
        self.reason = reason
        super().__init__(f"illegal action {action}: {reason}")


class NotYourTurn(IllegalAction):
    """The seat is not one of the seats expected to act."""
