"""The user's remembered settings: name, last server, resume token per server, the turn bell and notification.

A small JSON file in ``platformdirs.user_config_dir("down-and-back")``; the
``DAB_CONFIG_DIR`` environment variable (or an explicit directory) overrides
the location, which tests use to stay out of the real home directory. A
missing or damaged file is treated as empty: the client must always start.
"""

from __future__ import annotations

import getpass
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ENV_VAR = "DAB_CONFIG_DIR"
FILE_NAME = "client.json"


def config_dir(override: str | os.PathLike[str] | None = None) -> Path:
    if override is not None:
        return Path(override)
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    from platformdirs import user_config_dir

    return Path(user_config_dir("down-and-back"))


def login_name() -> str:
    try:
        return getpass.getuser() or "player"
    except Exception:  # no login name in some containers
        return "player"


@dataclass
class ClientConfig:
    name: str | None = None
    last_server: str | None = None
    tokens: dict[str, str] = field(default_factory=dict)
    bell: bool = True  # ring when a decision becomes yours
    notify: bool = False  # ... and raise a desktop notification (client.cues): off until asked for
    practice_game: str | None = None  # the game the last practice was (``--game``), played again by default
    practice_level: str | None = None  # the bots' level the last practice asked for (``--level``), asked again
    path: Path | None = field(default=None, compare=False, repr=False)

    @classmethod
    def load(cls, directory: str | os.PathLike[str] | None = None) -> "ClientConfig":
        path = config_dir(directory) / FILE_NAME
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls(path=path)
        if not isinstance(data, dict):
            return cls(path=path)
        name = data.get("name")
        server = data.get("last_server")
        tokens = data.get("tokens")
        bell = data.get("bell", True)
        notify = data.get("notify", False)
        practice_game = data.get("practice_game")
        practice_level = data.get("practice_level")
        return cls(
            name=name if isinstance(name, str) and name.strip() else None,
            last_server=server if isinstance(server, str) else None,
            tokens={k: v for k, v in tokens.items() if isinstance(k, str) and isinstance(v, str)}
            if isinstance(tokens, dict) else {},
            bell=bell if isinstance(bell, bool) else True,
            notify=notify is True,
            practice_game=practice_game if isinstance(practice_game, str) else None,
            practice_level=practice_level if isinstance(practice_level, str) else None,
            path=path,
        )

    def save(self) -> None:
        """Write atomically; a read-only home is not an error worth stopping for."""
        if self.path is None:
            return
        data: dict[str, object] = {"name": self.name, "last_server": self.last_server, "tokens": self.tokens}
        if not self.bell:  # on is the default: only a choice to silence it is written
            data["bell"] = False
        if self.notify:  # off is the default
            data["notify"] = True
        if self.practice_game is not None:
            data["practice_game"] = self.practice_game
        if self.practice_level is not None:
            data["practice_level"] = self.practice_level
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".client-", suffix=".json")
            with os.fdopen(fd, "w", encoding="utf-8") as handle:
                json.dump(data, handle, indent=2)
            os.replace(tmp, self.path)
        except OSError:
            pass
