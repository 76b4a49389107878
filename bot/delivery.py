"""Delivery: from a committed version of a game to what each chat shows (the order, the budget
and the records: docs/architecture.md, "Delivery"; the lanes: :mod:`bot.lanes`).

Delivery never reloads a game it was handed and never writes one; it alone writes what was
shown (`screens`, the digests), so a retry or a restart neither re-sends nor re-edits. With
replicas a chat is shown only by the holder of its lease (:mod:`bot.replicas`); its followers
(the Mini App's pages) are handed every version, whoever shows the chat.

`Delivery` is one long class on purpose: what a chat shows next depends on all of its records
at once (tables, hands, results, mentions, clocks, digests); split, one decision would spread
over several objects. What a message shows (a render and its digest) is :mod:`bot.screens`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Hashable, Iterable
from contextlib import suppress
from dataclasses import replace
from functools import partial
from typing import Any, Protocol

from cachetools import LRUCache
from telegram import Bot, InlineKeyboardMarkup, Message, ReplyParameters
from telegram.error import TelegramError

from bot import render
from bot.game_state import Follower, View, ViewCache, meta_of
from bot.house import HOUSE_ID
from bot.lanes import TABLE_GAP, Lanes, Limiter, Priority, Step
from bot.languages import personal
from bot.replicas import Replica
from bot.scheduler import Scheduler
from bot.screens import Screens, digest, has_buttons, notice_of, same
from bot.service import GameService
from bot.telegram_errors import Fate, Verdict, classify
from rules.events import RoundSettled, SessionEnded
from rules.table import Phase
from storage import GameNotFound, User

log = logging.getLogger(__name__)
SHOWN_LIMIT = 20_000  # message digests kept in memory (the database keeps them all)
VIEW_LIMIT = 4_096  # games whose newest view is kept (finished ones leave first)
USER_CACHE_SECONDS = 60.0
USER_CACHE_LIMIT = 50_000
BOOK_SECONDS = 0.25  # how long clocks started and views shown wait to be written together
WARN_BEFORE = 15.0  # seconds before a turn times out when its player is reminded privately
BOOK = ("delivery_book",)  # the scheduler's keys (`bot.scheduler`)
WARN = "warn"


class Owner(Protocol):
    """What delivery hands back to the runtime (`bot.handlers.common.Runtime`)."""

    def clock_started(self, game_id: int, deadline: float) -> None: ...

    async def chat_lost(self, chat_id: int, verdict: Verdict) -> None:
        """The chat can no longer show its games (a group; a private chat is delivery's)."""

    async def chat_migrated(self, old_chat_id: int, new_chat_id: int) -> list[int]:
        """The group became a supergroup; returns the games moved."""


class Delivery:
    def __init__(
        self,
        bot: Bot,
        service: GameService,
        owner: Owner,
        *,
        scheduler: Scheduler,
        bot_username: str,
        limiter: Limiter | None,
        table_gap: float = TABLE_GAP,
    ) -> None:
        self.bot, self.service, self.owner, self.scheduler = bot, service, owner, scheduler
        self.storage = service.storage
        self.lanes = Lanes(self, limiter, table_gap=table_gap)
        self._views = ViewCache(VIEW_LIMIT, self._forget)
        self._tables: dict[int, tuple[int, int]] = {}  # game -> (table_since, message id)
        self._table_shown: dict[int, int] = {}  # game -> version its table shows
        self._posted: dict[int, int] = {}  # game -> seq of the last result posted
        self._hands: dict[tuple[int, int], tuple[int | None, int]] = {}  # -> (notice, msg)
        self._hand_ids: dict[int, dict[int, int]] = {}  # game -> its stored hand messages
        self._hand_shown: dict[tuple[int, int], int] = {}  # (game, player) -> version
        self._mentioned: dict[int, int] = {}  # game -> the turn mentioned in the group
        self._clocked: dict[int, int] = {}  # game -> version whose clock was started
        # game -> the result message with live buttons (and its round), said to be the last
        # word: when the game moves on it is edited to the round's record alone.
        self._results: dict[int, tuple[int, RoundSettled]] = {}
        self._strips: dict[int, list[tuple[int, int]]] = {}  # game -> messages to strip
        # (chat, message) -> what it shows once stripped, for those that say more than their
        # buttons do (a result's countdown to the next round)
        self._finals: dict[tuple[int, int], render.Rendered] = {}
        # (chat, message) -> the digest of what it shows
        self._shown: LRUCache[tuple[int, int], str] = LRUCache(SHOWN_LIMIT)
        self.screens = Screens(
            bot_username=bot_username,
            turn_timeout=service.turn_timeout,
            clock=service.clock,
            private_ok=self._private_ok,
            language_of=self.user_language,
        )
        # player -> (his record, when to read it again); past that it is still used until read
        self._users: LRUCache[int, tuple[User | None, float]] = LRUCache(USER_CACHE_LIMIT)
        self._clocks: dict[int, tuple[int, float, int]] = {}  # game -> (version, deadline, s)
        self._shown_versions: dict[int, int] = {}  # game -> version its table shows, unwritten
        self.replica: Replica | None = None
        self.user_ttl = USER_CACHE_SECONDS  # shorter with replicas: another may write a user
        self.followers: list[Follower] = []

    # ---------------------------------------------------------------- input

    async def committed(self, view: View) -> None:
        for follower in self.followers:
            follower.seen(view)  # pages follow every chat, whichever replica delivers it
        if not await self._delivers(view.stored.chat_id, view.game_id):
            return
        await self._users_of(view.game.players)
        if view.game_id not in self._views:
            await self._learn_shown(view)  # the first view since start: what was shown of it
        if view.stored.deadline is None:
            self.scheduler.cancel((WARN, view.game_id))
        self._take(view)

    async def load(self, game_id: int) -> View | None:
        """Read a game once (start-up, a migration, a repost) and show it."""
        stored = await self.storage.load_game(game_id)
        if stored is None or not await self._delivers(stored.chat_id, game_id):
            return None
        view = View(
            stored,
            self.service.game(stored),
            meta_of(stored),
            await self.storage.get_chat(stored.chat_id),
        )
        for follower in self.followers:
            follower.seen(view)
        await self._learn_shown(view)
        await self._users_of(view.game.players)
        self._take(view, force=True)
        return view

    async def _delivers(self, chat_id: int, game_id: int) -> bool:
        """Whether this process shows the chat (always, unless replicas share the database:
        then the holder of the chat's lease does, see `bot.replicas`)."""
        if self.replica is None or await self.replica.take(chat_id):
            return True
        self._drop(game_id)
        return False

    def _drop(self, game_id: int) -> None:
        """Another replica shows the game: what its messages show is that one's to know."""
        if (view := self._views.pop(game_id, None)) is not None:
            table = self._tables.get(game_id)
            shown = [(view.stored.chat_id, table[1])] if table else []
            shown += [(p, m) for (g, p), (_, m) in self._hands.items() if g == game_id]
            for key in shown:
                self._shown.pop(key, None)
            self._forget(game_id, view)

    def chat_given_up(self, chat_id: int) -> None:
        """Another replica shows the chat now: what this one recorded of it would go stale."""
        for game_id in [g for g, v in self._views.items() if v.stored.chat_id == chat_id]:
            self._drop(game_id)

    def _take(self, view: View, *, force: bool = False) -> None:
        game_id = view.game_id
        known = self._views.get(game_id)
        if known is not None and known.version >= view.version + (1 if force else 0):
            return  # an older version, or (unless forced) the same one again
        self._views[game_id] = view
        players = [p for p in view.game.players if p != HOUSE_ID]
        unreachable = not all(map(self._private_ok, players))
        self.lanes.keep_for_mention(view.stored.chat_id, unreachable)
        self.lanes.want(view.stored.chat_id, ("g", game_id))
        for player in players:
            if self._private_ok(player):
                self.lanes.want(player, ("h", game_id))

    async def _learn_shown(self, view: View) -> None:
        """After a restart (or once the game's records left memory): what was shown of the
        game — delivery's own record of it (`Screen`) and what its messages show — from the
        database. Records delivery holds already are kept: they are newer."""
        game_id = view.game_id
        screen = await self.storage.load_screen(game_id)
        pairs = list(screen.hand_messages.items())
        if screen.table_message_id is not None:
            pairs.append((view.stored.chat_id, screen.table_message_id))
        live = screen.live_result
        if live is not None and game_id not in self._results:
            # A result that still said when the next round starts: taken back when the game
            # has moved on (`_table_done`), as if there had been no restart.
            pairs.append((view.stored.chat_id, live["message_id"]))
            self._results[game_id] = (live["message_id"], RoundSettled.from_dict(live["event"]))
        for chat_id, message_id in pairs:
            if (chat_id, message_id) not in self._shown:
                found = await self.storage.shown_digest(chat_id, message_id)
                if found is not None:
                    self._shown[(chat_id, message_id)] = found
        self._posted.setdefault(game_id, screen.posted_seq)
        if game_id not in self._tables and screen.table_message_id is not None:
            self._tables[game_id] = (screen.table_since, screen.table_message_id)
        self._hand_ids.setdefault(game_id, dict(screen.hand_messages))
        if screen.mentioned_since:
            self._mentioned.setdefault(game_id, screen.mentioned_since)
        for player, message_id in screen.hand_messages.items():
            key = (game_id, player)
            if key not in self._hands:
                self._hands[key] = (notice_of(self._shown.get((player, message_id))), message_id)

    def _forget(self, game_id: int, view: View) -> None:
        """The game's view left the cache: its records go too."""
        self._drop_strips(game_id)
        for store in (
            self._tables,
            self._table_shown,
            self._posted,
            self._mentioned,
            self._clocked,
            self._results,
            self._hand_ids,
        ):
            store.pop(game_id, None)
        for player in view.game.players:
            self._hands.pop((game_id, player), None)
            self._hand_shown.pop((game_id, player), None)

    def _drop_strips(self, game_id: int) -> None:
        for target in self._strips.pop(game_id, ()):
            self._finals.pop(target, None)

    def views(self) -> dict[int, View]:
        """The newest view of each game delivery keeps (read-only)."""
        return dict(self._views)

    def version_of(self, game_id: int) -> int | None:
        view = self._views.get(game_id)
        return None if view is None else view.version

    def resend_hand(self, game_id: int, player: int) -> None:
        """/hand: post the player's hand anew (the old message may be far up the chat)."""
        old = self._hands.pop((game_id, player), None)
        self._hand_shown.pop((game_id, player), None)
        if old is not None:
            self._strip_later(game_id, player, old[1])
        self.lanes.want(player, ("h", game_id))

    # ---------------------------------------------------------------- people

    async def _users_of(self, players: Iterable[int]) -> None:
        now = time.monotonic()
        for player in players:
            if player == HOUSE_ID:
                continue
            cached = self._users.get(player)
            if cached is None or cached[1] < now:
                self._users[player] = (await self.storage.get_user(player), now + self.user_ttl)

    async def refresh_user(self, user_id: int) -> None:
        """His record changed (/start, /lang): read at once (unread, he has no private chat and
        his hands lose their buttons); a new language redraws his hands."""
        before = self.user_language(user_id)
        self._users.pop(user_id, None)
        await self._users_of([user_id])
        self.screens.forget()  # a private chat opened shows in the lobby ("✉")
        self.lanes.reopen(user_id)
        if self.user_language(user_id) == before:
            return
        for game_id in [v.game_id for v in self._views.values() if v.game.is_seated(user_id)]:
            self._hand_shown.pop((game_id, user_id), None)
            self.lanes.want(user_id, ("h", game_id))

    def _user(self, player: int) -> User | None:
        cached = self._users.get(player)
        return cached[0] if cached is not None else None

    def _private_ok(self, player: int) -> bool:
        user = self._user(player)
        return user is not None and user.private_opened and not self.lanes.is_closed(player)

    def user_language(self, player: int) -> str | None:
        return personal(self._user(player))

    def snapshot(self, view: View, lang: str | None = None) -> render.Snapshot:
        """What the views read of this version, for the answers the handlers render."""
        return self.screens.snapshot(view, lang)

    # ---------------------------------------------------------------- the lanes ask

    def next_step(self, key: Hashable, chat_id: int, *, edits_now: bool = True) -> Step | None:
        kind, game_id = key if isinstance(key, tuple) else ("", 0)
        view = self._views.get(game_id)
        if view is None:
            return None
        if kind == "g":
            return self._group_step(view, chat_id, edits_now)
        return self._hand_step(view, chat_id)

    def _group_step(self, view: View, chat_id: int, edits_now: bool) -> Step | None:
        if view.stored.chat_id != chat_id:
            return None
        game_id = view.game_id
        posted = self._posted.get(game_id, 0)
        for item in view.meta.outbox:
            if item.get("seq", 0) > posted:
                return Step(Priority.GAME, partial(self._post_outbox, view, item), "result")
        table = self._tables.get(game_id)
        if table is None or table[0] != view.meta.table_since:
            return Step(Priority.GAME, lambda: self._show_table(view), "new table")
        actor = view.actor
        if (
            actor is not None
            and not self._private_ok(actor)
            and self._mentioned.get(game_id) != view.meta.actor_since
        ):
            return Step(Priority.GAME, lambda: self._mention(view, actor), "turn mention")
        if self._table_shown.get(game_id, 0) < view.version:
            # The table's last edit of a round (or game) goes with the result: otherwise the
            # next table may come first, and the old one lose its buttons but keep its prompt.
            last = view.game.phase is Phase.ROUND_OVER or view.game.is_over
            priority = Priority.GAME if last else Priority.TABLE
            edit = Step(priority, lambda: self._show_table(view, table[1]), "table edit")
            # Rendered (is it shown already?) only when it may go: versions before never are.
            shown = self._shown.get((chat_id, table[1]))
            if not edits_now or not same(shown, self.screens.digest_of(self.screens.table(view))):
                return edit
            self._table_done(view)
        return self._strip_step(game_id, chat_id, self._strips.get(game_id))

    def _hand_step(self, view: View, player: int) -> Step | None:
        game_id = view.game_id
        strips = self._strips.get(game_id)
        if not view.game.is_seated(player) or not self._private_ok(player):
            return self._strip_step(game_id, player, strips)
        key = (game_id, player)
        current = self._hands.get(key)
        actor = view.actor
        if actor == player and (current is None or current[0] != view.meta.actor_since):
            return Step(Priority.GAME, lambda: self._show_hand(view, player, notice=True), "turn")
        if current is None:
            if view.game.phase is Phase.LOBBY:
                return None  # the hand comes with the first deal
            return Step(Priority.TABLE, lambda: self._show_hand(view, player), "hand")
        if self._hand_shown.get(key, 0) < view.version:
            rendered = self.screens.hand(view, player)
            if same(self._shown.get((player, current[1])), self.screens.digest_of(rendered)):
                self._hand_done(view, player)
            else:
                return Step(
                    Priority.TABLE, lambda: self._show_hand(view, player, edit=True), "hand edit"
                )
        return self._strip_step(game_id, player, strips)

    def _strip_step(
        self, game_id: int, chat_id: int, strips: list[tuple[int, int]] | None
    ) -> Step | None:
        for target in strips or ():
            if target[0] == chat_id:
                return Step(Priority.OTHER, partial(self._strip, game_id, target), "strip")
        return None

    # ---------------------------------------------------------------- lasting failures

    async def chat_lost(self, chat_id: int, verdict: Verdict) -> None:
        if chat_id > 0:
            # Blocked, or never really opened: the hand falls back to the "👁" alert and
            # the player's turn to a mention in the group.
            user = self._user(chat_id)
            name = user.name if user is not None else str(chat_id)
            async with self.storage.transaction() as tx:
                await tx.upsert_user(chat_id, name, private_opened=False)
            self._users.pop(chat_id, None)
            self.screens.forget()
            await self._users_of([chat_id])
            for view in list(self._views.values()):
                if chat_id in view.game.players:
                    self.lanes.want(view.stored.chat_id, ("g", view.game_id))
            return
        await self.owner.chat_lost(chat_id, verdict)

    async def chat_migrated(self, old_chat_id: int, new_chat_id: int) -> None:
        moved = await self.owner.chat_migrated(old_chat_id, new_chat_id)
        for game_id in moved:
            # The old group's messages are out of reach: the table starts anew there.
            self._tables.pop(game_id, None)
            self._table_shown.pop(game_id, None)
            self._results.pop(game_id, None)
            self._drop_strips(game_id)
            await self.load(game_id)
            # Nor is its mention (recorded, so read again by load): the new group gets one.
            self._mentioned.pop(game_id, None)

    # ---------------------------------------------------------------- sending

    async def _send(
        self,
        chat_id: int,
        thread_id: int,
        rendered: render.Rendered,
        *,
        quiet: bool = False,
        reply_to: int | None = None,
    ) -> Message:
        return await self.bot.send_message(
            chat_id,
            rendered.text,
            reply_markup=rendered.markup,
            message_thread_id=thread_id or None,
            disable_notification=quiet or None,
            reply_parameters=(
                ReplyParameters(reply_to, allow_sending_without_reply=True) if reply_to else None
            ),
            **self.lanes.send_args(),
        )

    async def _edit(
        self, chat_id: int, message_id: int, rendered: render.Rendered, notice: int | None
    ) -> bool:
        """Edit the message; False when it is gone (post anew). "Not modified" is shown."""
        stamp = digest(rendered, notice)
        try:
            await self.bot.edit_message_text(
                rendered.text,
                chat_id=chat_id,
                message_id=message_id,
                reply_markup=rendered.markup,
                **self.lanes.send_args(),
            )
        except TelegramError as error:
            verdict = classify(error)
            if verdict.fate is Fate.MESSAGE_GONE:
                log.info("message %s in chat %s is gone: %s", message_id, chat_id, error)
                return False
            if verdict.fate is Fate.REJECTED:
                # Our request is wrong: retrying the same content would loop. Count it shown.
                log.error("edit refused chat=%s message=%s: %s", chat_id, message_id, error)
            elif verdict.fate is not Fate.NOT_MODIFIED:
                raise
        await self._record((chat_id, message_id, stamp))
        return True

    async def _record(
        self, shown: tuple[int, int, str] | None, game: int = 0, **screen: Any
    ) -> None:
        """What a message shows now (its digest) and the game's record of what delivery showed
        (`set_screen`; a game pruned meanwhile has none), written in one transaction."""
        if shown is not None:
            self._shown[shown[:2]] = shown[2]
        async with self.storage.transaction() as tx:
            if screen:
                with suppress(GameNotFound):
                    await tx.set_screen(game, **screen)
            if shown is not None:
                await tx.record_shown(*shown)

    async def _post_outbox(self, view: View, item: dict[str, Any]) -> None:
        game_id = view.game_id
        snap = self.screens.snapshot(view)
        seq = int(item.get("seq", 0))
        rendered: render.Rendered | None
        settled = RoundSettled.from_dict(item["event"]) if item["kind"] == "result" else None
        if settled is not None:
            rendered = render.result(snap, settled)
        elif view.game.round_no == 0:
            rendered = None  # a lobby that never dealt: its own message says it is closed
        else:
            ended_by = None
            if view.meta.ended_by is not None and not view.meta.expired:
                ended_by = snap.names.get(view.meta.ended_by, "?")
            rendered = render.session_end(
                snap,
                SessionEnded.from_dict(item["event"]),
                ended_by=ended_by,
                expired=view.meta.expired,
            )
        posted = None
        screen: dict[str, Any] = {"posted_seq": seq}
        if rendered is not None:
            try:
                sent = await self._send(view.stored.chat_id, view.stored.thread_id, rendered)
            except TelegramError as error:
                if classify(error).fate is not Fate.REJECTED:
                    raise
                log.error("result refused game=%s: %s", game_id, error)
            else:
                message_id = sent.message_id
                posted = (view.stored.chat_id, message_id, digest(rendered))
                if rendered.markup is not None and settled is not None:
                    # A result posted before the previous one's round moved on (its table
                    # not shown yet) supersedes it: the older one's buttons go.
                    older = self._results.get(game_id)
                    if older is not None and older[0] != message_id:
                        self._finish_result(view, older)
                    self._results[game_id] = (message_id, settled)
                    screen["live_result"] = {"message_id": message_id, "event": item["event"]}
        self._posted[game_id] = max(self._posted.get(game_id, 0), seq)
        await self._record(posted, game_id, **screen)

    async def _show_table(self, view: View, message_id: int | None = None) -> None:
        """Edit the table's message (``message_id``) to this version, else post the table."""
        game_id = view.game_id
        chat_id = view.stored.chat_id
        rendered = self.screens.table(view)
        if message_id is None or not await self._edit(chat_id, message_id, rendered, None):
            if message_id is not None:
                self._tables.pop(game_id, None)  # deleted: the table goes on in a new one
            sent = await self._send(chat_id, view.stored.thread_id, rendered)
            previous = self._tables.get(game_id)
            since = view.meta.table_since
            self._tables[game_id] = (since, sent.message_id)
            # Recorded with the round's table it shows: a newer one recorded already stays.
            await self._record(
                (chat_id, sent.message_id, digest(rendered)),
                game_id,
                table_since=since,
                table_message_id=sent.message_id,
                shown_version=view.version,
            )
            if previous is not None and previous[1] != sent.message_id:
                self._strip_later(game_id, chat_id, previous[1])
        self._table_done(view)

    def _table_done(self, view: View) -> None:
        game_id = view.game_id
        self._table_shown[game_id] = max(self._table_shown.get(game_id, 0), view.version)
        self._shown_versions[game_id] = view.version
        self._book_soon()
        if view.actor is not None:
            self._clock(view)
        if view.game.phase is not Phase.ROUND_OVER or view.meta.paused:
            # The next round began, the game ended, or the table waits below: the result's
            # buttons and its countdown are no longer true.
            result = self._results.pop(game_id, None)
            if result is not None:
                self._finish_result(view, result)

    def _finish_result(self, view: View, result: tuple[int, RoundSettled]) -> None:
        """Strip a result of its buttons and of what it said of the next round (one edit,
        as a strip): what stays is the round's record."""
        message_id, settled = result
        chat_id = view.stored.chat_id
        snap = self.screens.snapshot(view)
        record = render.result(snap, settled, next_note=False)
        # Its way to the round's replay stays (the page checks the deck there).
        row = render.replay_row(snap, settled.round_no, private=False) if settled.shuffles else []
        markup = InlineKeyboardMarkup([row]) if row else None
        self._finals[(chat_id, message_id)] = render.Rendered(record.text, markup)
        self._strip_later(view.game_id, chat_id, message_id)

    def _book_soon(self) -> None:
        """Write the clocks started and the versions shown a moment from now, all in one
        go: a transaction per action would cost more than the action. A crash in between
        loses nothing: start-up shows such games again and their clocks start anew."""
        if self.scheduler.due(BOOK) is None:
            self.scheduler.after(BOOK, BOOK_SECONDS, self._book)

    async def _book(self) -> None:
        while self._clocks or self._shown_versions:
            clocks, self._clocks = self._clocks, {}
            shown, self._shown_versions = self._shown_versions, {}
            try:
                if clocks:
                    started = await self.service.start_clocks(
                        [(g, version, deadline) for g, (version, deadline, _) in clocks.items()]
                    )
                    for game_id in started:
                        self._clock_started(game_id, *clocks[game_id])
                if shown:
                    async with self.storage.transaction() as tx:
                        for game_id, version in shown.items():
                            with suppress(GameNotFound):  # pruned meanwhile
                                await tx.set_screen(game_id, shown_version=version)
            except Exception:
                log.exception("could not record %d clocks and %d views", len(clocks), len(shown))

    async def _mention(self, view: View, actor: int) -> None:
        snap = self.screens.snapshot(view)
        name = snap.names.get(actor) or str(actor)
        text = render.turn_mention(actor, name, view.chat.language)
        table = self._tables.get(view.game_id)
        await self._send(
            view.stored.chat_id,
            view.stored.thread_id,
            render.Rendered(text, None),
            reply_to=table[1] if table else None,
        )
        self._mentioned[view.game_id] = view.meta.actor_since
        # Recorded at once (a mention a turn, rare): a restart does not mention the turn again.
        await self._record(None, view.game_id, mentioned_since=view.meta.actor_since)
        self._clock(view)

    async def _show_hand(
        self, view: View, player: int, *, edit: bool = False, notice: bool = False
    ) -> None:
        """Edit the player's hand message (``edit``) to this version, else post his hand (a
        new message notifies: ``notice``, his turn)."""
        key = (view.game_id, player)
        rendered = self.screens.hand(view, player)
        current = self._hands.get(key) if edit else None
        if current is None or not await self._edit(player, current[1], rendered, current[0]):
            if current is not None:
                self._hands.pop(key, None)  # deleted: the hand goes on in a new one
            stamp_notice = view.meta.actor_since if notice else None
            sent = await self._send(player, 0, rendered, quiet=not notice)
            old = self._hands.get(key)
            self._hands[key] = (stamp_notice, sent.message_id)
            # Delivery is the only writer of the hand messages: what it knows is what is stored.
            hands = {
                p: found[1]
                for p in {*self._hand_ids.get(view.game_id, ()), *view.game.players}
                if (found := self._hands.get((view.game_id, p))) is not None
            }
            self._hand_ids[view.game_id] = hands
            stamp = digest(rendered, stamp_notice)
            await self._record((player, sent.message_id, stamp), view.game_id, hand_messages=hands)
            if old is not None and old[1] != sent.message_id:
                self._strip_later(view.game_id, player, old[1])
        self._hand_done(view, player)

    def _hand_done(self, view: View, player: int) -> None:
        key = (view.game_id, player)
        self._hand_shown[key] = max(self._hand_shown.get(key, 0), view.version)
        if view.actor == player:
            self._clock(view)

    def _strip_later(self, game_id: int, chat_id: int, message_id: int) -> None:
        if not has_buttons(self._shown.get((chat_id, message_id))):
            return
        self._strips.setdefault(game_id, []).append((chat_id, message_id))
        self.lanes.want(chat_id, ("g" if chat_id < 0 else "h", game_id))

    async def _strip(self, game_id: int, target: tuple[int, int]) -> None:
        chat_id, message_id = target
        final = self._finals.get(target)
        if final is not None:
            # Its text changes too (a result's countdown goes): one edit, recorded as shown.
            await self._edit(chat_id, message_id, final, None)
            del self._finals[target]
            if game_id not in self._results:  # no newer result is live: none is
                await self._record(None, game_id, live_result=None)
        else:
            try:
                await self.bot.edit_message_reply_markup(
                    chat_id=chat_id,
                    message_id=message_id,
                    reply_markup=None,
                    **self.lanes.send_args(),
                )
            except TelegramError as error:
                if classify(error).fate in (Fate.TRANSIENT, Fate.MIGRATED, Fate.CHAT_LOST):
                    raise
                log.info("buttons not removed chat=%s message=%s: %s", chat_id, message_id, error)
            if (shown := self._shown.get(target)) is not None:
                await self._record((chat_id, message_id, shown[:-1] + "-"))
        strips = self._strips.get(game_id, [])
        if target in strips:
            strips.remove(target)
        if not strips:
            self._strips.pop(game_id, None)

    # ---------------------------------------------------------------- the turn clock

    def _clock(self, view: View) -> None:
        if view.stored.deadline is not None or self._clocked.get(view.game_id) == view.version:
            return
        self._clocked[view.game_id] = view.version
        # The turn runs from now, when the prompt was delivered, however late it is written.
        timeout = view.chat.turn_timeout or self.service.turn_timeout
        self._clocks[view.game_id] = (view.version, self.service.clock() + timeout, timeout)
        self._book_soon()

    def _clock_started(self, game_id: int, version: int, deadline: float, timeout: int) -> None:
        current = self._views.get(game_id)
        if current is not None and current.version == version:
            self._views[game_id] = replace(
                current, stored=replace(current.stored, deadline=deadline)
            )
        self.owner.clock_started(game_id, deadline)
        for follower in self.followers:
            follower.clock_started(game_id, version, deadline)
        if timeout >= 2 * WARN_BEFORE:  # turn warnings are jobs ("warn", game)
            warn = partial(self._warn, game_id)
            self.scheduler.at((WARN, game_id), deadline - WARN_BEFORE, warn)

    async def _warn(self, game_id: int) -> None:
        """A short private reminder (a new message, so it notifies) before the turn times out."""
        view = self._views.get(game_id)
        if view is None or view.stored.deadline is None:
            return
        actor = view.actor
        left = int(view.stored.deadline - self.scheduler.clock() + 0.5)
        if actor is None or not self._private_ok(actor) or left <= 0:
            return
        lang = self.user_language(actor) or view.chat.language
        text = render.text("turn-warning", lang, seconds=left)
        send = partial(self.bot.send_message, actor, text, **self.lanes.send_args())
        self.lanes.post(actor, send, "turn warning")

    # ---------------------------------------------------------------- lifecycle

    async def drain(self, timeout: float = 10.0, *, replies: bool = False) -> bool:
        """Show everything pending now, without the table's gap (shutdown, tests; ``replies``
        sends the answers to commands too); True when nothing is left."""
        done = await self.lanes.drain(timeout, replies=replies)
        await self._book()
        self.lanes.resume()
        return done

    async def stop(self) -> None:
        """Stop sending; bookkeeping under way (a few small transactions) finishes first, so
        the storage can close after it."""
        for key in [BOOK, *self.scheduler.keys(WARN)]:
            self.scheduler.cancel(key)
        await self.lanes.stop()
        await self._book()
