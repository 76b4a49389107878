"""The settings menu on the real process, whose lanes reserve flood-limit slots: a press edits
the menu in place (through the bot's own method: the query's shortcut does not take the
limiter's arguments), and the group's lane goes on to show the next game's lobby."""

from __future__ import annotations

from tests.e2e.conftest import E2E


async def test_a_settings_press_edits_the_menu_and_the_group_goes_on(e2e: E2E) -> None:
    group, users = e2e.group_with_players("Settings", 2)
    admin = users[0]
    await e2e.start_bot()
    await admin.send(group, "/settings")
    menu = await group.wait_for(lambda m: any("fine" in (d or "") for _, d in m.flat_buttons))
    data = next(d for _, d in menu.flat_buttons if d and d.endswith(":fine:50"))
    await admin.press(menu, data=data)
    await e2e.wait_until(lambda: menu.edit_count >= 1, "the menu edited in place")
    await e2e.wait_until(
        lambda: any(t.startswith("✅") and d == data for t, d in menu.flat_buttons),
        "the new choice marked",
    )
    await admin.send(group, "/newgame")
    await group.wait_for("🃏", timeout=15)
    assert "raised" not in e2e.log()
