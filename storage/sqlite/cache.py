"""The in-memory copies of committed chat settings and users (cachetools LRU caches), and the
bookkeeping of which rows a batch of transactions wrote."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import TypeVar

from cachetools import LRUCache

from storage.models import ChatSettings, User

K = TypeVar("K")
V = TypeVar("V")


@dataclass(slots=True, eq=False)
class Writes:
    """The chats and users a transaction wrote: not to be read from, nor put into, the caches
    until it is over, and to be forgotten by them again then."""

    chats: set[int] = field(default_factory=set)
    users: set[int] = field(default_factory=set)


class Caches:
    """Owned by one SqliteStorage, and valid only because every change of these rows goes
    through it (one bot process owns a database): a transaction that writes a row evicts it at
    the write and once more when it is over, and a value read inside a transaction is cached
    only if that transaction has not written the row, so a value nobody committed is never
    cached."""

    def __init__(self, size: int) -> None:
        # Least recently used forgotten first; None (no such user) is cached too.
        self.chats: LRUCache[int, ChatSettings] = LRUCache(size)
        self.users: LRUCache[int, User | None] = LRUCache(size)

    def clear(self) -> None:
        self.chats.clear()
        self.users.clear()

    def forget(self, writes: Writes) -> None:
        for chat_id in writes.chats:
            self.chats.pop(chat_id, None)
        for user_id in writes.users:
            self.users.pop(user_id, None)


async def read_through(cache: LRUCache[K, V], key: K, fetch: Callable[[K], Awaitable[V]]) -> V:
    """The cached value, or the one fetched, then kept: no await comes between the read and the
    put that a write could slip into."""
    if key in cache:  # a lookup, not get(): None (no such user) is a cached value
        return cache[key]
    value = await fetch(key)
    if cache.maxsize > 0:  # a cache of size 0 keeps nothing (cachetools would refuse it)
        cache[key] = value
    return value


def private_settings(settings: ChatSettings) -> ChatSettings:
    """The cached settings with a dict of overrides of its own, which the caller may change."""
    return replace(settings, overrides=dict(settings.overrides)) if settings.overrides else settings
