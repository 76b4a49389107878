"""Who may do what beyond the engine's own rules (closing a lobby, ending a game, the group's
settings): written here once, applied by the service, whose refusals the front ends render.
Who may sit down, start, deal the next round, name or pass the bank and play a turn is the
engine's and the service's seating (`rules`, `bot.seating`).

Whether someone is an admin of a Telegram group is a fact only the front end can learn
(getChatMember, cached there): it hands the service an :data:`AdminCheck`. The service asks it
only when a rule needs it, and never inside a transaction (a request to Telegram must not hold
the database): a rule that needs the answer inside one raises :class:`AdminNeeded`, and the
service asks and judges again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from bot.errors import Refused

# Whether the person asking is an admin of the group the action is about.
AdminCheck = Callable[[], Awaitable[bool]]


class AdminNeeded(Exception):
    """A rule needs to know whether the person is an admin, and that was not asked yet (the
    service's own signal: it asks outside the transaction and judges again)."""


async def ask(check: AdminCheck | None) -> bool:
    """The front end's answer; a front end that cannot tell (no check) knows no admins."""
    return False if check is None else await check()


def verify_end(user_id: int, creator_id: int, banker: int | None, admin: bool | None) -> None:
    """Ending a game: its creator, the banker, or an admin (``admin`` None: not asked yet)."""
    _unless_admin(user_id in (creator_id, banker), admin, Refused("not_allowed"))


def verify_cancel(user_id: int, creator_id: int, creator_name: str, admin: bool | None) -> None:
    """Closing a lobby: its creator, or an admin of the group."""
    _unless_admin(
        user_id == creator_id, admin, Refused("cancel_creator", creator_name=creator_name)
    )


def _unless_admin(allowed: bool, admin: bool | None, refusal: Refused) -> None:
    if allowed:
        return
    if admin is None:
        raise AdminNeeded
    if not admin:
        raise refusal


async def verify_admin(check: AdminCheck | None, code: str = "admins_only") -> None:
    """What only the group's admins may do (its settings, its language): refused with ``code``
    for anyone else."""
    if not await ask(check):
        raise Refused(code)
