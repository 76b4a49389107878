"""The Ochko table, :class:`Game`: one object for a whole session (docs/architecture.md).

Every action is a triad, as in pokerkit: ``verify_x`` raises a :class:`RulesError` saying exactly
why ``x`` is illegal, ``can_x`` answers yes or no, and ``x`` verifies, changes the state and
returns the frozen events of what happened; an illegal action never changes the state. Every
random outcome is written to the log, so a game is its variant plus its log (:meth:`Game.replay`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from rules.errors import RulesError
from rules.events import (
    Event,
    RevealedShuffle,
    RoundRecord,
    RoundSettled,
    RoundStarted,
    RoundStep,
)
from rules.play import PlayActions
from rules.randomness import RecordedSource
from rules.seating import SeatingActions
from rules.table import Legal, Phase
from rules.variants import Variant


class Game(SeatingActions, PlayActions):
    """A table session of one variant."""

    def legal_actions(self) -> Legal:
        """Who may act now and how; the bot draws its buttons from this."""
        actions: set[str] = set()
        low = high = 0
        if self.phase is Phase.LOBBY:
            actions = {"join", "leave"} | ({"start"} if self.can_start() else set())
        elif self.phase is Phase.BANK:
            actions = {"set_bank", "pass_bank", "timeout"}
            low, high = 1, self._bank_maximum()
        elif self.phase is Phase.STAKE and self.turn is not None:
            actions = {"stake", "timeout"}
            low, high = self.stake_range(self.turn)
        elif self.phase in (Phase.DRAW, Phase.BANKER) and self.turn is not None:
            actions = {"stand", "timeout"}
            if self.can_hit(self.turn):
                actions.add("hit")
            if self.can_dark(self.turn):
                actions.add("dark")
        elif self.phase is Phase.ROUND_OVER:
            actions = {"next_round", "join", "leave"}
            if self.banker is not None and self.can_pass_bank(self.banker):
                actions.add("pass_bank")
        if self.phase is not Phase.ENDED:
            actions.add("end")
        return Legal(self.phase, self.turn, frozenset(actions), low, high)

    @classmethod
    def replay(cls, variant: Variant, log: Iterable[dict[str, Any]]) -> Game:
        """Rebuild a game from its variant and action log; random outcomes come from the log."""
        entries = list(log)
        game = cls(variant, _recorded(entries))
        for entry in entries:
            game.apply(entry)
        return game

    def apply(self, entry: dict[str, Any]) -> list[Event]:
        """Perform one logged action (random outcomes are skipped: the actions draw them)."""
        kind = entry["a"]
        if kind in ("shuffle", "lot"):
            return []
        player = entry.get("p")
        if kind == "join":
            return self.join(entry["p"], entry["balance"], house=entry.get("house", False))
        if kind == "start":
            return self.start()
        if kind == "set_bank":
            return self.set_bank(entry["p"], entry["amount"])
        if kind == "stake":
            return self.stake(entry["p"], entry["amount"])
        simple = {
            "leave": self.leave,
            "pass_bank": self.pass_bank,
            "hit": self.hit,
            "dark": self.dark,
            "stand": self.stand,
        }
        if kind in simple and isinstance(player, int):
            return simple[kind](player)
        if kind == "end":
            return self.end(entry.get("reason", "ended"))
        nullary = {"timeout": self.timeout, "next_round": self.next_round}
        if kind in nullary:
            return nullary[kind]()
        raise RulesError(f"unknown logged action {entry!r}")

    def revealed_round(
        self, round_no: int, archived: Sequence[dict[str, Any]] = ()
    ) -> tuple[RevealedShuffle, ...] | None:
        """The shuffles of a settled round of this game, rebuilt from the log, with the
        commitments as they were logged (and published) when each shuffle was made; None when
        that round was not settled (still being played, voided, or never dealt). A round dealt
        before commitments were logged comes back as an empty tuple. ``archived``: the entries
        :meth:`archive_log` handed over (all of them)."""
        found = self._settled_round(round_no, archived)
        return None if found is None else found[2]

    def round_record(
        self, round_no: int, archived: Sequence[dict[str, Any]] = ()
    ) -> RoundRecord | None:
        """A settled round of this game step by step, rebuilt from the log (see
        :class:`RoundRecord`; its shuffles as :meth:`revealed_round` gives them); None when that
        round was not settled. ``archived`` as for :meth:`revealed_round`."""
        found = self._settled_round(round_no, archived)
        if found is None:
            return None
        steps, settled, shuffles = found
        return RoundRecord(round_no, shuffles, steps, settled)

    def _settled_round(
        self, round_no: int, archived: Sequence[dict[str, Any]]
    ) -> tuple[tuple[RoundStep, ...], RoundSettled, tuple[RevealedShuffle, ...]] | None:
        """Replays the log up to the settling of ``round_no``: the round's steps (from the
        action that dealt it), its result and its shuffles with their logged commitments."""
        log = self.full_log(archived)
        entries = [entry for entry in log if entry["a"] == "shuffle"]
        replay = Game(self.variant, _recorded(log))
        steps: list[RoundStep] = []
        for entry in log:
            events = replay.apply(entry)
            if entry["a"] in ("shuffle", "lot"):
                pass  # a random outcome, drawn by the action before it
            elif steps or any(
                isinstance(e, RoundStarted) and e.round_no == round_no for e in events
            ):
                amount = entry.get("amount")
                player = entry.get("p")
                steps.append(
                    RoundStep(
                        entry["a"],
                        player if isinstance(player, int) else None,
                        amount if isinstance(amount, int) else None,
                        tuple(events),
                    )
                )
            for event in events:
                if isinstance(event, RoundSettled) and event.round_no == round_no:
                    done = sum(1 for e in replay.log if e["a"] == "shuffle")
                    logged = entries[done - len(event.shuffles) : done]
                    if any("commitment" not in e for e in logged):
                        return tuple(steps), event, ()
                    shuffles = tuple(
                        replace(shuffle, commitment=e["commitment"])
                        for shuffle, e in zip(event.shuffles, logged, strict=True)
                    )
                    return tuple(steps), event, shuffles
        return None


def _recorded(log: Sequence[dict[str, Any]]) -> RecordedSource:
    """The random outcomes written to ``log``, to be drawn again in order: the shuffles (with
    their salts, empty in a log written before salts existed) and the lots."""
    shuffles = [entry for entry in log if entry["a"] == "shuffle"]
    return RecordedSource(
        [entry["order"] for entry in shuffles],
        [entry["i"] for entry in log if entry["a"] == "lot"],
        [entry.get("salt", "") for entry in shuffles],
    )


def new_game(variant: Variant, players: Sequence[tuple[int, int]] = (), **kwargs: Any) -> Game:
    """A table with ``players`` (id, balance) already seated, in that order."""
    game = Game(variant, **kwargs)
    for player, balance in players:
        game.join(player, balance)
    return game
