"""/lang in a group is the group's language and is said in the group, in the new language; the
person's own language (his hand, his alerts) changes only with /lang in the private chat."""

from __future__ import annotations

from bot import render
from tests.bot.conftest import Harness, plain


async def at_borises_stake(harness: Harness) -> None:
    """classic36: Аня banks 100, Борис is to stake — his hand message asks him. Everyone's
    Telegram reports Russian, as a Russian-speaking group's phones do."""
    for user in harness.users:
        user.language_code = "ru"
    a, b = harness.users[:2]
    await harness.say(a, "/newgame classic36")
    await harness.say(b, "/join")
    await harness.say(b, "/deal")
    await harness.say(a, "/bank 100")


async def test_group_lang_changes_the_group_and_says_so_there(harness: Harness) -> None:
    a, b = harness.users[:2]  # Аня is the group's admin
    await at_borises_stake(harness)
    hand = harness.private(b).last_with_buttons()
    assert hand is not None and "Ваш ход" in (hand.text or ""), hand
    group_count = len(harness.group.all_messages)
    own_count = len(harness.private(a).all_messages)
    await harness.say(a, "/lang en")
    # Said in the group, in the group's new language; nothing in Аня's private chat.
    said = harness.bot_texts_since(group_count)
    assert plain(render.text("lang-group_switched", "en")) in said, said
    assert "Group language: English 🇬🇧" in said
    assert harness.private_since(a, own_count) == []
    assert (await harness.rt.storage.get_chat(harness.group.id)).language == "en"
    # Борис's hand is his own: still Russian, and the group's table is English.
    await harness.deliver()
    hand = harness.private(b).last_with_buttons()
    assert (
        hand is not None and "Ваш ход" in (hand.text or "") and "Your turn" not in (hand.text or "")
    )
    # His next prompt (his draw), sent after the change, is Russian too.
    await harness.say(b, "/bet 10")
    hand = harness.private(b).last_with_buttons()
    assert (
        hand is not None and "Ваш ход" in (hand.text or "") and "Your turn" not in (hand.text or "")
    )
    # Back to Russian: said in Russian, in the group.
    group_count = len(harness.group.all_messages)
    harness.advance_reply_clock(120)  # the group's answers to one command are once a minute
    await harness.say(a, "/lang ru")
    assert "Язык группы: русский 🇷🇺" in harness.bot_texts_since(group_count)
    assert (await harness.rt.storage.get_chat(harness.group.id)).language == "ru"


async def test_private_lang_changes_ones_own_hand_not_the_group(harness: Harness) -> None:
    _, b = harness.users[:2]
    await at_borises_stake(harness)
    seen = len(harness.private(b).all_messages)
    await harness.say(b, "/lang en", harness.bot)
    await harness.deliver()
    assert render.text("lang-switched", "en") in harness.private_since(b, seen)
    hand = harness.private(b).last_with_buttons()
    assert hand is not None and "Your turn" in (hand.text or ""), hand
    assert (await harness.rt.storage.get_chat(harness.group.id)).language == "ru"


async def test_a_non_admin_is_told_who_changes_the_groups_language(harness: Harness) -> None:
    _, b, c, _ = harness.users
    await at_borises_stake(harness)
    seen = len(harness.private(c).all_messages)
    group_count = len(harness.group.all_messages)
    await harness.say(c, "/lang en")
    said = harness.private_since(c, seen)
    assert said == [
        "Язык группы меняют админы. Свой язык — /lang ru или /lang en в личке с ботом."
    ], said
    assert (await harness.rt.storage.get_chat(harness.group.id)).language == "ru"
    # Nothing changed for her or for the group: no confirmation anywhere.
    assert all("English" not in text for text in harness.bot_texts_since(group_count))
    known = await harness.rt.storage.get_user(c.id)
    assert known is not None and known.language is None
    hand = harness.private(b).last_with_buttons()
    assert hand is not None and "Ваш ход" in (hand.text or "")
