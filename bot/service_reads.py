"""What the front ends read through the service, outside any action: a chat's settings, a
person's record and the games he sits in, chips, the leaderboard, statistics, a balance's
history, a round's proof of fairness — as the storage's domain objects, which are named here
for the front ends (they never import `storage`).

:class:`ServiceReads` is part of `bot.service.GameService`; reads only, no transaction.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from bot.errors import Refused
from bot.game_state import meta_of
from bot.permissions import AdminCheck, AdminNeeded, ask, verify_end
from rules.events import RevealedShuffle, RoundRecord
from rules.game import Game
from rules.variants import PRESETS, Variant
from storage import (
    Achievement,
    ChatSettings,
    LeaderboardRow,
    Player,
    PlayerStats,
    Storage,
    StoredGame,
    User,
)

__all__ = ["Balance", "BalanceHistory", "ServiceReads", "StoredGame"]


@dataclass(frozen=True, slots=True)
class Balance:
    """A player's chips in a chat: ``chips`` counts what he holds in a bank (``bank``)."""

    chips: int
    bank: int


@dataclass(frozen=True, slots=True)
class BalanceHistory:
    """A player's balance now and (unix time, balance after) of every movement, oldest first."""

    balance: int
    points: list[tuple[float, int]]


class ServiceReads:
    """The reads of `bot.service.GameService` (which sets these attributes)."""

    storage: Storage
    starting_balance: int
    game: Callable[[StoredGame], Game]
    variant_for: Callable[[ChatSettings, str | None], Variant]

    async def chat(self, chat_id: int) -> ChatSettings:
        """The chat's settings (the defaults for a chat that never saved any)."""
        return await self.storage.get_chat(chat_id)

    async def user(self, user_id: int) -> User | None:
        return await self.storage.get_user(user_id)

    async def stored_game(self, game_id: int) -> StoredGame | None:
        return await self.storage.load_game(game_id)

    async def seated_games(self, user_id: int) -> list[int]:
        """The unfinished games the person sits in, oldest first."""
        return await self.storage.seated_games(user_id)

    async def games_updated_since(self, since: float) -> list[tuple[int, int, int]]:
        """(game, chat, version) of every game saved since ``since`` (replicas follow them)."""
        return await self.storage.games_updated_since(since)

    async def next_variant(self, chat_id: int) -> Variant:
        """The rules the chat's next game would be played by: its preset with its overrides
        (the preset as it is when a newer version refuses those overrides)."""
        settings = await self.storage.get_chat(chat_id)
        try:
            return self.variant_for(settings, None)
        except Refused:
            return PRESETS.get(settings.preset, PRESETS["classic36"])

    async def balance(self, chat_id: int, user_id: int) -> Balance:
        """A newcomer has the starting balance he will be granted as he sits down."""
        player = await self.storage.get_player(chat_id, user_id)
        amount = player.balance if player is not None else self.starting_balance
        bank = await self.storage.held_bank(chat_id, user_id)
        return Balance(amount + bank, bank)

    async def balances(self, user_id: int) -> list[Player]:
        """The person's seat in every chat he played in, the biggest balance first."""
        return await self.storage.player_chats(user_id)

    async def leaderboard(
        self, chat_id: int, *, since: float | None = None, limit: int = 10
    ) -> list[LeaderboardRow]:
        """By balance, or with ``since`` by what was won since then (unix time)."""
        return await self.storage.leaderboard(chat_id, since=since, limit=limit)

    async def player_stats(self, chat_id: int, user_id: int) -> PlayerStats | None:
        return await self.storage.player_stats(chat_id, user_id)

    async def achievements(self, chat_id: int, user_id: int) -> list[Achievement]:
        """A person's achievements in a chat, in the order earned (each with its round)."""
        return await self.storage.achievements(chat_id, user_id)

    async def balance_history(self, chat_id: int, user_id: int) -> BalanceHistory | None:
        """None for someone who never played in the chat, or whose chips never moved."""
        player = await self.storage.get_player(chat_id, user_id)
        if player is None:
            return None
        points = await self.storage.balance_history(chat_id, user_id)
        return BalanceHistory(player.balance, points) if points else None

    async def revealed_round(
        self, stored: StoredGame, round_no: int | None
    ) -> tuple[int, tuple[RevealedShuffle, ...]]:
        """The shuffles of a settled round of the game (None: the last settled one), for
        /verify. Refused while the round is played — its salt and order stay secret until the
        showdown — with ``none_yet``, ``not_revealed`` (round) or ``no_round`` (round, played)."""
        record = await self.round_record(stored, round_no)
        return record.round_no, record.shuffles

    async def round_record(self, stored: StoredGame, round_no: int | None) -> RoundRecord:
        """A settled round of the game step by step (None: the last settled one), for the Mini
        App's replay; refused as :meth:`revealed_round` is."""
        game = self.game(stored)
        last_settled = game.round_no - 1 if game.in_round else game.round_no
        if round_no is None:
            if last_settled < 1:
                raise Refused("none_yet")
            round_no = last_settled
        if round_no == game.round_no and game.in_round:
            raise Refused("not_revealed", round=round_no)
        record = None
        if 1 <= round_no <= last_settled:
            archived = await self.storage.archived_log(stored.game_id) if game.log_base else []
            # A long evening's log takes a while to replay: off the event loop.
            record = await asyncio.to_thread(game.round_record, round_no, archived)
        if record is None:
            raise Refused("no_round", round=round_no, played=max(last_settled, 0))
        return record

    async def verify_end(self, stored: StoredGame, user_id: int, admin: AdminCheck | None) -> None:
        """Whether the person may end the game (`bot.permissions.verify_end`), asked before
        /endgame asks «end the game?»; refused with ``not_allowed``. The end itself is judged
        again when it is confirmed."""
        game, creator = self.game(stored), meta_of(stored).creator_id
        try:
            verify_end(user_id, creator, game.banker, None)
        except AdminNeeded:
            verify_end(user_id, creator, game.banker, await ask(admin))
