"""Who speaks which language: a chat never saved speaks the bot's default, a person keeps the
language Telegram reports apart from the one he chose; and a person's seats in every chat."""

from __future__ import annotations

from storage import Storage, User
from storage.models import UNSET
from tests.storage.conftest import StorageFactory


async def test_a_chat_never_saved_speaks_the_default_language(
    make_storage: StorageFactory,
) -> None:
    english = await make_storage(default_language="en")
    assert (await english.get_chat(-100)).language == "en"
    async with english.transaction() as tx:
        assert (await tx.get_chat(-200)).language == "en"
        await tx.save_chat_settings((await tx.get_chat(-300)).__class__(-300, language="ru"))
    # A chat that chose its language keeps it, whatever the default.
    assert (await english.get_chat(-300)).language == "ru"
    russian = await make_storage()
    assert (await russian.get_chat(-100)).language == "ru"


async def test_client_language_is_kept_apart_from_the_chosen_one(storage: Storage) -> None:
    async with storage.transaction() as tx:
        await tx.upsert_user(7, "Аня", client_language="en")
        assert await tx.get_user(7) == User(7, "Аня", None, False, "en")
        await tx.upsert_user(7, "Аня", language="ru", private_opened=True)
    assert await storage.get_user(7) == User(7, "Аня", "ru", True, "en")
    async with storage.transaction() as tx:
        await tx.upsert_user(7, "Аня", client_language=None, language=UNSET)
    assert await storage.get_user(7) == User(7, "Аня", "ru", True, None)


async def test_player_chats_lists_every_seat_biggest_first(storage: Storage) -> None:
    async with storage.transaction() as tx:
        await tx.ensure_player(-1, 7, "Аня", 1000)
        await tx.ensure_player(-2, 7, "Аня", 3000)
        await tx.ensure_player(-2, 8, "Борис", 500)
    seats = await storage.player_chats(7)
    assert [(p.chat_id, p.balance) for p in seats] == [(-2, 3000), (-1, 1000)]
    assert await storage.player_chats(9) == []
