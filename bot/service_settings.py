"""What the front ends change outside a game: a group's settings and language (its admins
only, `bot.permissions`) and a person's own record (his private chat opened, his language).

A change of settings reads the chat's settings in the transaction that writes them: two admins
pressing at once change one thing each, and both changes stay.

:class:`ServiceSettings` is part of `bot.service.GameService`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace

from bot import settings_options
from bot.errors import Refused
from bot.permissions import AdminCheck, verify_admin
from rules.errors import RulesError
from storage import ChatSettings, Storage, StorageError

log = logging.getLogger(__name__)


class ServiceSettings:
    """The changes of `bot.service.GameService` outside a game (which sets ``storage``)."""

    storage: Storage

    async def admin_settings(self, chat_id: int, admin: AdminCheck | None) -> ChatSettings:
        """The group's settings for its /settings menu: admins only (``admins_only``)."""
        await verify_admin(admin)
        return await self.storage.get_chat(chat_id)

    async def change_setting(
        self, chat_id: int, key: str, value: str, admin: AdminCheck | None
    ) -> ChatSettings:
        """One option of the /settings menu (`bot.settings_options`, a valid key and value)
        changed by an admin (else ``admins_only``); a combination the rules refuse is
        ``invalid_variant`` (key). Returns the settings as saved."""
        await verify_admin(admin)

        def change(settings: ChatSettings) -> ChatSettings:
            try:
                return settings_options.apply(settings, key, value)
            except RulesError:
                raise Refused("invalid_variant", key=key) from None

        return await self._change_settings(chat_id, change)

    async def set_group_language(
        self, chat_id: int, language: str, admin: AdminCheck | None
    ) -> ChatSettings:
        """/lang in a group: its admins choose (else ``lang_group_admins``, which says where
        one's own language is chosen)."""
        await verify_admin(admin, "lang_group_admins")
        return await self._change_settings(chat_id, lambda s: replace(s, language=language))

    async def _change_settings(
        self, chat_id: int, change: Callable[[ChatSettings], ChatSettings]
    ) -> ChatSettings:
        async with self.storage.transaction() as tx:
            # PostgreSQL (READ COMMITTED) would let a concurrent change read the row before this
            # one commits: the chat's row is locked first, so its changes take their turns.
            await tx.lock_chat(chat_id)
            updated = change(await tx.get_chat(chat_id))
            await tx.save_chat_settings(updated)
        return updated

    # ---------------------------------------------------------------- a person's record

    async def open_private_chat(self, user_id: int, name: str) -> None:
        """He wrote to the bot: his hands can come to his private chat from now on."""
        async with self.storage.transaction() as tx:
            await tx.upsert_user(user_id, name, private_opened=True)

    async def choose_language(self, user_id: int, name: str, language: str) -> None:
        """/lang in his private chat (which is open, then)."""
        async with self.storage.transaction() as tx:
            await tx.upsert_user(user_id, name, language=language, private_opened=True)

    async def note_client_language(self, user_id: int, name: str, reported: str | None) -> bool:
        """Keep the language Telegram reports for the person (one the bot speaks, else None):
        what is sent to him unasked is written in it too. True when it changed; a failure to
        save it is logged, and the update goes on."""
        known = await self.storage.get_user(user_id)
        if (known.client_language if known is not None else None) == reported:
            return False
        try:
            async with self.storage.transaction() as tx:
                await tx.upsert_user(user_id, name, client_language=reported)
        except StorageError as error:
            log.warning("language of user %s not saved: %s", user_id, error)
            return False
        return True
