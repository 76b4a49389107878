"""What the messages of a game show: each rendered once per version (a lane asks at every free
slot whether a message is behind, and then sends it), and recorded as a digest (:func:`digest`),
so neither a retry nor a restart re-sends the same thing or asks for an edit that changes nothing.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from cachetools import FIFOCache, LRUCache

from bot import deep_links, render, seasons
from bot.game_state import Meta, View, news_events, seated_names
from rules.table import Phase

RENDER_LIMIT = 20_000  # renders (and their digests) kept in memory, one per message shown


def digest(rendered: render.Rendered, notice: int | None = None) -> str:
    """What a message shows, as stored: ``<notice>|<hash><+ or ->``; ``notice`` is the turn
    (the version it began at) a hand message was posted to announce, the last mark whether the
    message carries buttons."""
    markup = rendered.markup.to_json() if rendered.markup is not None else ""
    body = hashlib.blake2b((rendered.text + "\0" + markup).encode(), digest_size=12).hexdigest()
    buttons = "+" if rendered.markup is not None else "-"
    return f"{'' if notice is None else notice}|{body}{buttons}"


def has_buttons(stored_digest: str | None) -> bool:
    """Whether a message may still carry buttons (unknown: assume it does)."""
    return stored_digest is None or stored_digest.endswith("+")


def notice_of(stored_digest: str | None) -> int | None:
    head, bar, _ = (stored_digest or "").partition("|")
    return int(head) if bar and head.isdigit() else None


def same(a: str | None, b: str) -> bool:
    return a is not None and a.split("|", 1)[-1] == b.split("|", 1)[-1]


@dataclass(eq=False, kw_only=True)
class Screens:
    """The renders of the games delivery shows, by version and reader's language."""

    bot_username: str
    turn_timeout: int  # the bot's, for chats that set none
    private_ok: Callable[[int], bool]  # whether the bot can write to a player privately
    language_of: Callable[[int], str | None]  # a player's own language, if he has one
    # The Mini App, when the bot offers one: its page address and BotFather short name.
    app_url: str = ""
    app_short_name: str = ""
    # The bot's clock (`bot.scheduler`): who wears the season's 🏆 is judged by it.
    clock: Callable[[], float] = time.time
    # (game, player or None for the table, language) -> (version, what it renders to)
    _rendered: LRUCache[tuple[int, int | None, str], tuple[int, render.Rendered]] = field(
        init=False, default_factory=lambda: LRUCache(RENDER_LIMIT)
    )
    # id(rendered) -> (rendered, digest): the object is kept to tell a reused id apart.
    _digests: FIFOCache[int, tuple[render.Rendered, str]] = field(
        init=False, default_factory=lambda: FIFOCache(RENDER_LIMIT)
    )

    def forget(self) -> None:
        """Who may be written to privately changed (shown in the lobby as "✉"): render anew."""
        self._rendered.clear()

    def snapshot(self, view: View, lang: str | None = None) -> render.Snapshot:
        game, stored = view.game, view.stored
        deadline = stored.deadline
        now = time.time()
        if deadline is None and view.actor is not None:
            # The clock starts when this is delivered: it shows the whole turn.
            deadline = now + (view.chat.turn_timeout or self.turn_timeout)
        return render.Snapshot(
            game_id=view.game_id,
            version=view.version,
            game=game,
            names=seasons.crowned(
                dict(view.meta.names) | seated_names(game, view.meta), view.chat, self.clock()
            ),
            creator_id=view.meta.creator_id,
            lang=lang or view.chat.language,
            deadline=deadline,
            private_ok=frozenset(p for p in game.players if self.private_ok(p)),
            bot_username=self.bot_username,
            now=now,
            chat_title=view.meta.chat_title,
            paused=view.meta.paused,
            app_page=(
                deep_links.app_page(self.app_url, stored.chat_id, stored.thread_id)
                if self.app_url
                else ""
            ),
            app_link=(
                deep_links.app_link(
                    self.bot_username, self.app_short_name, stored.chat_id, stored.thread_id
                )
                if self.app_url and self.app_short_name and self.bot_username
                else ""
            ),
            app_name=self.app_short_name if self.app_url and self.bot_username else "",
        )

    def table(self, view: View) -> render.Rendered:
        """The table of this version, rendered once: a lane asks for it at every free slot
        (to see whether the table is behind), and then sends it."""
        key = (view.game_id, None, view.chat.language)
        return self._once(key, view, lambda: self._table(view, self.snapshot(view)))

    def hand(self, view: View, player: int) -> render.Rendered:
        """The player's hand of this version, rendered once (see :meth:`table`)."""
        lang = self.language_of(player) or view.chat.language
        key = (view.game_id, player, lang)
        return self._once(key, view, lambda: render.hand(self.snapshot(view), player, lang))

    def _once(
        self, key: tuple[int, int | None, str], view: View, make: Callable[[], render.Rendered]
    ) -> render.Rendered:
        cached = self._rendered.get(key)
        if cached is not None and cached[0] == view.version:
            return cached[1]
        rendered = make()
        self._rendered[key] = (view.version, rendered)
        return rendered

    def digest_of(self, rendered: render.Rendered) -> str:
        """The digest of a rendered message, computed once per render (see :meth:`table`)."""
        found = self._digests.get(id(rendered))
        if found is None or found[0] is not rendered:
            found = (rendered, digest(rendered))
            self._digests[id(rendered)] = found
        return found[1]

    def _table(self, view: View, snap: render.Snapshot) -> render.Rendered:
        game = view.game
        if game.phase is Phase.ENDED and game.round_no == 0:
            note = end_note(snap, view.meta) or render.text("game-cancelled", snap.lang)
            return render.Rendered(note.strip(), None)
        if game.phase is Phase.LOBBY:
            rendered = render.lobby(snap)
        else:
            rendered = render.table(snap, render.announce(snap, news_events(view.meta)))
        if game.is_over or (game.phase is Phase.ROUND_OVER and not view.meta.paused):
            # The result below carries the next-round buttons; a finished table has none (a
            # paused one, posted anew below the result, carries them itself).
            rendered = render.Rendered(rendered.text, None)
        return rendered


def end_note(snap: render.Snapshot, meta: Meta) -> str:
    """Who closed the game, or that it expired, as a first line (empty when the rules ended it)."""
    lobby = snap.game.round_no == 0
    if meta.expired:
        return render.text("lobby-expired" if lobby else "game-expired", snap.lang) + "\n"
    if meta.ended_by is not None:
        key = "game-cancelled_by" if lobby else "game-ended_by"
        return render.text(key, snap.lang, name=snap.names.get(meta.ended_by, "?")) + "\n"
    return ""
