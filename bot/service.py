"""The game service: load a game, act through rules/, save through storage/ — one transaction per
action. Nothing here knows Telegram; the front ends call it and never reach the storage (what
they read is :mod:`bot.service_reads`, what they change outside a game
:mod:`bot.service_settings`, both bases of :class:`GameService`).

Longer than 500 lines on purpose: what stays here is one action's path — the decoded games
kept by version, the checks before the engine (stale press, wrong chat, whose turn), the
engine's command, and the commit with its chips, statistics, results to post and news — whose
steps read and write the same records.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import KW_ONLY, dataclass, field, replace
from typing import Any

from cachetools import LRUCache

from bot.achievements import record_round
from bot.errors import AlreadyDone, Duplicate, Refused
from bot.game_state import NEWS_KEEP, NEWS_KINDS, Meta, decision_of, game_of, meta_of, status_of
from bot.outcomes import Outcome
from bot.permissions import AdminCheck, AdminNeeded, ask, verify_cancel, verify_end
from bot.round_stats import round_stats
from bot.seating import REFILL_PERIOD, check_cap, seat_house, seat_player
from bot.service_notices import ServiceNotices
from bot.service_reads import ServiceReads
from bot.service_seasons import ServiceSeasons
from bot.service_settings import ServiceSettings
from rules import events as events_module
from rules.errors import InvalidVariant, RulesError
from rules.events import BANK, ChipsMoved, Event, Party, RoundSettled, SessionEnded
from rules.game import Game
from rules.house import bank_amount, decide
from rules.randomness import RandomSource
from rules.table import Phase
from rules.variants import Variant, preset, with_overrides
from storage import (
    Account,
    ChatSettings,
    ConcurrencyConflict,
    GameExists,
    Storage,
    StoredGame,
    Transaction,
    Transfer,
)

TIMER_SLACK = 0.5  # seconds a timer may fire early (clock granularity)
# Decoded games kept by the service (the hot tables); a miss costs one decode of the state.
GAME_CACHE_LIMIT = 512
# The commands a button pressed in the presser's own private chat may carry: those of the
# private hand's keyboard (bot/render/hands.py, the actor's own turn: naming or declining the
# bank, a stake, a draw, resuming a paused table). Joining, leaving, starting, cancelling and
# the next round are pressed on the group's table, where everyone sees them happen.
PRIVATE_HAND_KINDS = frozenset({"bank", "pass", "bet", "hit", "stand", "dark", "resume"})

# What callers take from the service, wherever it is defined.
__all__ = ["Actor", "Command", "Duplicate", "GameService", "Refused", "Request"]


@dataclass(frozen=True, slots=True)
class Actor:
    user_id: int
    name: str
    # The front end's way to learn whether he is an admin of the game's group, asked only
    # when a rule needs it (`bot.permissions`); None where it cannot tell.
    admin: AdminCheck | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Command:
    """A player's (or the timer's) intent, before the rules judge it."""

    kind: str  # join leave start cancel bank pass bet hit stand dark next end timeout
    amount: int | None = None


@dataclass(frozen=True, slots=True)
class Request:
    """One command on one game and where it came from, as both front ends send it.

    ``update_id`` drops an update seen already; ``button_version`` refuses presses drawn for
    an earlier decision; ``origin`` (the chat a button was pressed in) refuses buttons of
    another chat's game. ``actor`` is None for the bot's own actions (timeouts, ends)."""

    game_id: int
    actor: Actor | None
    command: Command
    update_id: int | None = None
    button_version: int | None = None
    origin: int | None = None


@dataclass(eq=False)
class GameService(ServiceReads, ServiceSettings, ServiceNotices, ServiceSeasons):
    """Acts on games; the reads and the changes outside a game are its bases'.

    ``source_factory`` says where a game's chance comes from, by game id; None is the engine's
    default (cryptographic). Handler tests set it to deal scripted decks."""

    storage: Storage
    _: KW_ONLY
    starting_balance: int
    turn_timeout: int
    max_games_per_user: int = 3
    clock: Callable[[], float] = time.time
    source_factory: Callable[[int], RandomSource] | None = None
    # game -> (version, the engine as committed at that version, its stored state). Every
    # reader (handlers, delivery) and every action used to rebuild the engine from JSON,
    # several times per action; a version names one committed state, so a decode is reused
    # until the next commit, and an action's read of the game does not decode its JSON
    # again (load_game(known=...)). Entries are never acted on: an action works on a copy.
    _games: LRUCache[int, tuple[int, Game, dict[str, Any]]] = field(
        init=False, repr=False, default_factory=lambda: LRUCache(GAME_CACHE_LIMIT)
    )

    # ---------------------------------------------------------------- reads

    async def active_game(self, chat_id: int, thread_id: int) -> StoredGame | None:
        return await self.storage.load_active_game(chat_id, thread_id)

    def game(self, stored: StoredGame) -> Game:
        """The engine of this stored game, for reading only (it is shared: never act on it)."""
        kept = self._kept(stored.game_id, stored.version)
        if kept is not None:
            return kept
        game = game_of(stored)
        self._keep(stored, game)
        return game

    def committed(self, game_id: int) -> tuple[int, Game] | None:
        """The newest (version, engine) of a game that this process committed or read, if it
        is still cached; read-only, like :meth:`game`. Benchmarks follow the games with it."""
        cached = self._games.get(game_id)
        return None if cached is None else cached[:2]

    def _kept(self, game_id: int, version: int) -> Game | None:
        cached = self._games.get(game_id)
        return cached[1] if cached is not None and cached[0] == version else None

    def _known(self, game_id: int) -> tuple[int, dict[str, Any]] | None:
        """The (version, stored state) kept of the game, for load_game not to decode it."""
        cached = self._games.get(game_id)
        return None if cached is None else (cached[0], cached[2])

    def _keep(self, stored: StoredGame, game: Game) -> None:
        cached = self._games.get(stored.game_id)
        if cached is not None and cached[0] > stored.version:
            # A reader of an older state (read just before the game moved on) must not push
            # the newest state out of the cache.
            return
        self._games[stored.game_id] = (stored.version, game, stored.state)

    @staticmethod
    def variant_for(chat: ChatSettings, preset_name: str | None) -> Variant:
        """The chat's preset with its overrides, or another preset asked for by name as it is."""
        try:
            if preset_name and preset_name != chat.preset:
                return preset(preset_name)
            return with_overrides(preset(chat.preset), dict(chat.overrides))
        except InvalidVariant as error:
            raise Refused.from_rules(error) from None

    # ---------------------------------------------------------------- writes

    async def open_lobby(
        self,
        chat_id: int,
        thread_id: int,
        actor: Actor,
        preset_name: str | None,
        *,
        update_id: int | None = None,
        chat_title: str = "",
    ) -> Outcome:
        async with self.storage.transaction() as tx:
            await self._claim(tx, update_id)
            chat = await tx.get_chat(chat_id)
            if await tx.load_active_game(chat_id, thread_id) is not None:
                raise Refused("game_exists")
            game = Game(self.variant_for(chat, preset_name))
            await check_cap(tx, actor.user_id, chat_id, self.max_games_per_user)
            events = await self._seat_player(tx, chat, game, actor)
            meta = Meta(
                creator_id=actor.user_id, names={actor.user_id: actor.name}, chat_title=chat_title
            )
            if chat.house_banker:
                events += await seat_house(tx, chat, game, meta)
            meta.decision = decision_of(game)
            try:
                stored = await tx.create_game(
                    chat_id, thread_id, actor.user_id, self._state(game, meta), "lobby"
                )
            except GameExists:
                raise Refused("game_exists") from None
            await tx.set_seats(stored.game_id, game.players)
        self._keep(stored, game)
        return Outcome(stored, game, meta, events, chat)

    async def act(self, request: Request) -> Outcome:
        """Apply one command and commit it with its chips, statistics and update id.

        A timeout is refused unless the stored deadline has passed (someone may have acted
        since the timer was set). What only some may do (end a game, close another's lobby)
        asks ``actor.admin`` when the rule needs it (`bot.permissions`).
        """
        admin: bool | None = None  # asked of the front end once a rule needs it
        conflicts = 0
        while True:
            try:
                outcome = await self._act_once(request, admin)
            except AdminNeeded:
                # Asked outside the transaction, and once: from then on the answer is known.
                admin = await ask(request.actor.admin if request.actor is not None else None)
                continue
            except ConcurrencyConflict:
                # Another process saved first (or PostgreSQL broke a deadlock between two); the
                # per-game lock makes this rare within a process. Judge again against the fresh
                # state rather than merging.
                conflicts += 1
                if conflicts == 3:
                    raise Refused("slow_down") from None
                continue
            # Committed: from now on this engine is the shared read-only picture of the version.
            self._keep(outcome.stored, outcome.game)
            return outcome

    async def _act_once(self, request: Request, admin: bool | None) -> Outcome:
        game_id, actor, command = request.game_id, request.actor, request.command
        origin, button_version = request.origin, request.button_version
        async with self.storage.transaction() as tx:
            await self._claim(tx, request.update_id)
            stored = await tx.load_game(game_id, known=self._known(game_id))
            if stored is None or stored.status == "finished":
                raise Refused("game_over")
            if origin is not None and origin != stored.chat_id:
                if actor is None or origin != actor.user_id:
                    raise Refused("foreign_game")
                if command.kind not in PRIVATE_HAND_KINDS:
                    # Pressed in the presser's own private chat, where the bot only ever puts
                    # his hand's buttons: seating, starting and the lobby are the group's.
                    raise Refused("group_button")
            meta = meta_of(stored)
            if button_version is not None and actor is not None:
                last = meta.acted.get(actor.user_id)
                if last is not None and last[1] == command.kind and button_version <= last[0]:
                    raise AlreadyDone(stored, self.game(stored))
            if button_version is not None and not (
                meta.turn_since <= button_version <= stored.version
            ):
                raise Refused("stale_button")
            if command.kind == "timeout" and (
                stored.deadline is None or stored.deadline > self.clock() + TIMER_SLACK
            ):
                raise Refused("stale_button")
            game = self._game(stored)
            log_before = len(game.log)
            chat = await tx.get_chat(stored.chat_id)
            if actor is not None:
                meta.names[actor.user_id] = actor.name
            seated_before = set(game.players)
            try:
                events = await self._perform(tx, stored, game, meta, actor, command, admin)
                events += self._play_house(game)
            except RulesError as error:
                # The engine's refusal, said by the engine as the real reason (rules.refusals).
                raise Refused.from_rules(error, meta.names) from None
            if actor is not None:
                meta.idle_round = False
                meta.paused = False
                if button_version is not None:
                    meta.acted[actor.user_id] = [button_version, command.kind]
            if game.is_over:
                await tx.set_seats(game_id, ())
            elif set(game.players) != seated_before:
                await tx.set_seats(game_id, game.players)
            return await self._commit(tx, stored, game, meta, events, chat, log_before)

    async def start_clocks(self, clocks: Sequence[tuple[int, int, float]]) -> list[int]:
        """The prompts of these (game, version)s were delivered: their turn clocks run to these
        deadlines. Returns the games whose clock started (not those that moved on meanwhile:
        their newer prompt starts the clock)."""
        async with self.storage.transaction() as tx:
            return [g for g, v, deadline in clocks if await tx.start_clock(g, v, deadline)]

    async def repost_table(self, game_id: int) -> Outcome:
        """/table: the table goes on in a new message at the bottom of the chat."""
        async with self.storage.transaction() as tx:
            stored = await tx.load_game(game_id, known=self._known(game_id))
            if stored is None or stored.status == "finished":
                raise Refused("no_game")
            game = self.game(stored)
            meta = meta_of(stored)
            meta.table_since = stored.version + 1
            state = {"engine": stored.state["engine"], "meta": meta.to_dict()}
            version = await tx.save_game(
                game_id,
                expected_version=stored.version,
                state=state,
                status=stored.status,
                deadline=stored.deadline,
            )
            chat = await tx.get_chat(stored.chat_id)
        saved = replace(stored, state=state, version=version, updated_at=self.clock())
        self._keep(saved, game)
        return Outcome(saved, game, meta, [], chat)

    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> list[int]:
        """The group became a supergroup: its games, balances, settings and statistics move
        to the new id. Returns the unfinished games moved."""
        async with self.storage.transaction() as tx:
            return await tx.migrate_chat(old_chat_id, new_chat_id)

    # ---------------------------------------------------------------- internals

    def _game(self, stored: StoredGame) -> Game:
        """The stored game, ready to act (with the configured random source): a private copy,
        so a refused or rolled-back action leaves nothing behind."""
        source = None if self.source_factory is None else self.source_factory(stored.game_id)
        kept = self._kept(stored.game_id, stored.version)
        if kept is not None:
            return kept.copy(source)
        return Game.from_dict(stored.state["engine"], source)

    async def _claim(self, tx: Transaction, update_id: int | None) -> None:
        if update_id is not None and not await tx.claim_update(update_id):
            raise Duplicate(update_id)

    async def _perform(
        self,
        tx: Transaction,
        stored: StoredGame,
        game: Game,
        meta: Meta,
        actor: Actor | None,
        command: Command,
        admin: bool | None,
    ) -> list[Event]:
        kind = command.kind
        if kind == "timeout":
            if meta.idle_round:
                # Nobody has played since this round began on its own (or in the whole last
                # round): rather than deal and play out empty rounds on timers, the table waits.
                # Any move or button goes on (see "resume").
                meta.paused = True
                meta.table_since = stored.version + 1  # the pause is said at the chat's bottom
                return []
            if game.phase is Phase.ROUND_OVER:
                return self._next(game, meta)  # nobody pressed "next round": play on
            return game.timeout()
        if kind == "expire":
            meta.expired = True
            return game.end("expired")
        if kind == "end":
            if actor is not None:  # a person's /endgame (the bot's own ends need no one's leave)
                verify_end(actor.user_id, meta.creator_id, game.banker, admin)
            meta.ended_by = actor.user_id if actor is not None else None
            return game.end()
        if actor is None:
            raise Refused("not_allowed")
        user = actor.user_id
        if kind == "join":
            if not game.is_seated(user):
                await check_cap(tx, user, stored.chat_id, self.max_games_per_user)
            chat = await tx.get_chat(stored.chat_id)
            return await self._seat_player(tx, chat, game, actor)
        if kind == "cancel":
            if game.phase is not Phase.LOBBY:
                # /cancel closes a table nobody has played at; a game is ended by /endgame.
                raise Refused("cancel_started")
            verify_cancel(user, meta.creator_id, meta.names.get(meta.creator_id, ""), admin)
            meta.ended_by = user
            return game.end()
        if kind in ("resume", "start", "next"):
            if not game.is_seated(user):
                raise Refused("not_seated", player=user)
            # Between rounds the next round is dealt, whatever was pressed (/deal too, as the
            # table says).
            if game.phase is Phase.ROUND_OVER or (kind == "next" and not meta.paused):
                return self._next(game, meta, user)
            if kind == "start" and not meta.paused:
                return game.start(user)
            if not meta.paused:
                raise Refused("not_paused")
            # A paused table goes on: the clock of whoever is on turn starts again (and he gets
            # a new notice).
            meta.actor_since = stored.version + 1
            return []
        amount = command.amount
        if kind in ("bank", "bet") and amount is None:
            # No usable number: the engine says what is wrong with "nothing" (not your turn,
            # not the time to name a bank, or the range it takes), as for a number out of range.
            (game.verify_set_bank if kind == "bank" else game.verify_stake)(user, 0)
            raise Refused("bad_amount", minimum=1, maximum=game.legal_actions().maximum)
        actions: dict[str, Callable[[], list[Event]]] = {
            "leave": lambda: game.leave(user),
            "pass": lambda: game.pass_bank(user),
            "bank": lambda: game.set_bank(user, amount or 0),
            "bet": lambda: game.stake(user, amount or 0),
            "hit": lambda: game.hit(user),
            "stand": lambda: game.stand(user),
            "dark": lambda: game.dark(user),
        }
        if kind not in actions:
            raise Refused("illegal_action")
        return actions[kind]()

    async def _seat_player(
        self, tx: Transaction, chat: ChatSettings, game: Game, actor: Actor
    ) -> list[Event]:
        return await seat_player(
            tx,
            chat,
            game,
            actor.user_id,
            actor.name,
            starting_balance=self.starting_balance,
            clock=self.clock,
        )

    async def refill_outlook(
        self, chat_id: int, thread_id: int, user_id: int, chips: int
    ) -> tuple[str, dict[str, int]] | None:
        """For /balance: how a player whose ``chips`` cannot pay for a seat (at the running
        table, else at the chat's next one) gets chips back — "off", "ready" (at his next
        seat) or "wait" with the hours and minutes left; None when he can sit down. Reads
        only: the refill itself happens as he sits down."""
        chat = await self.storage.get_chat(chat_id)
        stored = await self.storage.load_active_game(chat_id, thread_id)
        try:
            game = self.game(stored) if stored is not None else Game(self.variant_for(chat, None))
        except Refused:
            return None  # the chat's settings make no playable game: nothing to promise
        if game.covers_seat(chips):
            return None
        params = {"minimum": game.seat_minimum(), "refill": self.starting_balance}
        if not chat.daily_refill:
            return "off", params
        last = await self.storage.last_refill(chat_id, user_id)
        wait = 0.0 if last is None else last + REFILL_PERIOD - self.clock()
        if wait <= 0:
            return "ready", params
        minutes = max(1, math.ceil(wait / 60))
        return "wait", params | {"hours": minutes // 60, "minutes": minutes % 60}

    def _next(self, game: Game, meta: Meta, user: int | None = None) -> list[Event]:
        meta.idle_round = True
        return game.next_round(user)

    @staticmethod
    def _play_house(game: Game) -> list[Event]:
        """The house's own turns, played at once after the action that gave it the turn (so it
        never waits on a timer): it names the bank and draws by rules.house."""
        events: list[Event] = []
        house = game.house
        while house is not None and game.turn == house:
            if game.phase is Phase.BANK:
                events += game.set_bank(house, bank_amount(game, house))
            elif game.phase is Phase.BANKER:
                move = decide(game, house)
                events += game.hit(house) if move == "hit" else game.stand(house)
            else:
                break
        return events

    async def _commit(
        self,
        tx: Transaction,
        stored: StoredGame,
        game: Game,
        meta: Meta,
        events: list[Event],
        chat: ChatSettings,
        log_before: int,
    ) -> Outcome:

        def account(party: Party) -> Account:
            return Account.bank(stored.game_id) if party == BANK else Account.player(party)

        transfers = [
            Transfer(account(t.source), account(t.target), t.amount, t.reason)
            for t in (e.transfer for e in events if isinstance(e, ChipsMoved))
        ]
        if transfers:
            await tx.apply_transfers(stored.chat_id, stored.game_id, game.round_no, transfers)
        # Leaving a finished round — straight into the deal, or first to a banker who names
        # the bank — gets a new live table message, below the last round's result; the first
        # round goes on in the lobby's message.
        was_over = stored.state["engine"]["phase"] == Phase.ROUND_OVER.value
        new_round = was_over and game.phase not in (Phase.ROUND_OVER, Phase.ENDED)
        if new_round:
            meta.table_since = stored.version + 1  # delivery posts the table anew
            # The log of the rounds before goes to the game's archive: the stored state carries
            # only the round being played, so an action costs the same in the first round of a
            # session and in the hundredth (a whole evening's log is over 60 KiB of JSON).
            start = game.log_base
            archived = game.archive_log(len(game.log) - log_before)
            if archived:
                await tx.archive_log(stored.game_id, start, archived)
        # Results delivery has posted (its record, read here) are done with; the rest wait in
        # the outbox. The outbox stays the game's, written by this commit: a result exists
        # once its round is settled, whatever happens to the process before it is shown.
        if meta.outbox:
            posted = (await tx.load_screen(stored.game_id)).posted_seq
            meta.outbox = [item for item in meta.outbox if item.get("seq", 0) > posted]
        # The table's news belong to the turn it shows: what the move that began this turn
        # brought about, and what happened since; a settled round's notes end with its result
        # (which tells them), and what follows (the bank passing, who leaves) is the news of
        # the next round's table.
        news = list(meta.news)
        in_lobby = stored.state["engine"]["phase"] == Phase.LOBBY.value
        if in_lobby and game.phase is not Phase.LOBBY:
            news = []  # the lobby's list of players told who sat down
        if meta.decision and decision_of(game)[0::2] != meta.decision[0::2]:
            news = []  # another person's turn, or another round: the last turn's are history
        for event in events:
            if event.kind in NEWS_KINDS and not (
                in_lobby and isinstance(event, events_module.PlayerSeated)
            ):
                news.append(event.to_dict())
            if isinstance(event, RoundSettled):
                news = []
                for player, delta in round_stats(event, game.variant):
                    await tx.add_stats(stored.chat_id, player, delta)
                # The result the chat is shown names the achievements earned first.
                shown: Event = await record_round(
                    tx, stored.chat_id, stored.game_id, event, game.variant, self.starting_balance
                )
            else:
                shown = event
            if isinstance(event, RoundSettled | SessionEnded):
                meta.outbox_seq += 1
                kind = "result" if isinstance(event, RoundSettled) else "ended"
                meta.outbox.append({"kind": kind, "event": shown.to_dict(), "seq": meta.outbox_seq})
        meta.news = news[-NEWS_KEEP:]
        new_version = stored.version + 1
        decision = decision_of(game)
        if decision != meta.decision:
            if not meta.decision or decision[0::2] != meta.decision[0::2]:
                meta.actor_since = new_version  # another round, or another person on turn
            meta.decision = decision
            meta.turn_since = new_version
        # A person's turn clock starts when the prompt naming them is delivered
        # (start_clocks); only the pause between rounds runs from the commit.
        timeout = chat.turn_timeout or self.turn_timeout
        between_rounds = game.phase is Phase.ROUND_OVER and not meta.paused
        deadline = self.clock() + timeout if between_rounds else None
        state = self._state(game, meta)
        status = status_of(game)
        await tx.save_game(
            stored.game_id,
            expected_version=stored.version,
            state=state,
            status=status,
            deadline=deadline,
        )
        saved = replace(
            stored,
            state=state,
            version=new_version,
            status=status,
            deadline=deadline,
            updated_at=self.clock(),
        )
        return Outcome(saved, game, meta, events, chat)

    @staticmethod
    def _state(game: Game, meta: Meta) -> dict[str, Any]:
        return {"engine": game.to_dict(), "meta": meta.to_dict()}
