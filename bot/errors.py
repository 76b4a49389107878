"""How the service says no: :class:`Refused` (a code and its parameters, rendered per
language), :class:`Duplicate` (an update processed already) and :class:`AlreadyDone` (the same
press applied already). Importable from :mod:`bot.service`, whose answers they are."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.errors import RulesError
from rules.game import Game
from storage import StoredGame


class Refused(Exception):
    """The action is not allowed; ``code`` and ``params`` say why (rendered per language)."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(code)
        self.code = code
        self.params = params

    @classmethod
    def from_rules(cls, error: RulesError, names: Mapping[int, str] | None = None) -> Refused:
        """The engine's refusal by its code and parameters, as the engine said it (its real
        reason and the way forward, `rules.refusals`); the players it names (whose turn it is,
        who the banker is) get their display names, so the answer can say who."""
        params = dict(error.params)
        for key in ("turn", "banker"):
            player = params.get(key)
            if names is not None and isinstance(player, int) and player in names:
                params[f"{key}_name"] = names[player]
        return cls(error.code, **params)


class Duplicate(Exception):
    """The update was already processed; nothing was done again."""


class AlreadyDone(Exception):
    """The presser's same action from the same keyboard was applied already (a double tap, or
    Telegram delivering the press twice): nothing changes; answer with the current state."""

    def __init__(self, stored: StoredGame, game: Game) -> None:
        super().__init__("already_done")
        self.stored = stored
        self.game = game
