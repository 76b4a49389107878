"""Declared state: each field of a state dataclass (a seat, a hand, the game) names once, in its
metadata, how it is written to JSON, read back and copied (``field(..., metadata=stored(CARDS))``;
without it, a plain value), so that adding a field to the state is one line, never three.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import MISSING, Field, dataclass, fields
from enum import Enum
from operator import attrgetter
from typing import Any, TypeVar

from rules.cards import Card

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Codec:
    dump: Callable[[Any], Any]  # the value to its JSON form
    load: Callable[[Any], Any]  # the JSON form back to the value
    copy: Callable[[Any], Any]  # an independent value (frozen parts may be shared)


def _same(value: T) -> T:
    return value


PLAIN = Codec(_same, _same, _same)  # an int, a string, a boolean, None
LIST = Codec(list, list, list)  # a list of plain values
# Cards are frozen: a copy shares them.
CARDS = Codec(
    lambda cards: [c.code for c in cards], lambda codes: list(map(Card.parse, codes)), list
)
CARD = Codec(lambda c: c.code if c else None, lambda c: Card.parse(c) if c else None, _same)


def enum(cls: type[Enum]) -> Codec:
    return Codec(lambda member: member.value, cls, _same)


def frozen(dump: Callable[[Any], Any], load: Callable[[Any], Any]) -> Codec:
    """An immutable value with its own JSON form: copies share it."""
    return Codec(dump, load, _same)


def records(cls: type[Any]) -> Codec:
    """A list of declared-state records (seats)."""
    return Codec(
        lambda items: [dump(item) for item in items],
        lambda items: [load(cls, item) for item in items],
        lambda items: [duplicate(item) for item in items],
    )


def keyed(cls: type[Any], key: str) -> Codec:
    """A dict of declared-state records by one of their fields, stored as a list (hands)."""
    return Codec(
        lambda items: [dump(item) for item in items.values()],
        lambda items: {item[key]: load(cls, item) for item in items},
        lambda items: {k: duplicate(item) for k, item in items.items()},
    )


def stored(
    codec: Codec = PLAIN, *, omit_default: bool = False, optional: bool = False
) -> dict[str, Any]:
    """``omit_default``: left out of the JSON while it holds its default; ``optional``: read as
    the default when absent (a state stored before the field existed)."""
    return {"codec": codec, "omit": omit_default, "optional": optional or omit_default}


def _default_of(declared: Field[Any]) -> Callable[[], Any] | None:
    if declared.default_factory is not MISSING:
        return declared.default_factory
    if declared.default is not MISSING:
        value = declared.default
        return lambda: value
    return None


def _convert(function: Callable[[Any], Any]) -> Callable[[Any], Any] | None:
    """None for a plain value: the loops below skip the call (every action copies a game)."""
    return None if function is _same else function


@dataclass(frozen=True, slots=True)
class _Plan:
    """The declared fields of one class, arranged for ``dump``, ``load`` and ``duplicate``."""

    names: tuple[str, ...]
    values: Callable[[Any], tuple[Any, ...]]  # a record's field values, in declaration order
    # (name, conversion or None, the default it is left out with or None), per field:
    dumps: tuple[tuple[str, Callable[[Any], Any] | None, Callable[[], Any] | None], ...]
    # (name, conversion or None, the default when absent or None: required), per field:
    loads: tuple[tuple[str, Callable[[Any], Any] | None, Callable[[], Any] | None], ...]
    copies: tuple[Callable[[Any], Any] | None, ...]
    defaults: tuple[tuple[str, Callable[[], Any]], ...]


_PLANS: dict[type[Any], _Plan] = {}


def _plan(cls: type[Any]) -> _Plan:
    found = _PLANS.get(cls)
    if found is not None:
        return found
    declared = fields(cls)
    names = tuple(item.name for item in declared)
    getter = attrgetter(*names)
    codecs = [item.metadata.get("codec", PLAIN) for item in declared]
    made = [_default_of(item) for item in declared]
    found = _Plan(
        names=names,
        values=getter if len(names) > 1 else lambda record: (getter(record),),
        dumps=tuple(
            (item.name, _convert(codec.dump), default if item.metadata.get("omit") else None)
            for item, codec, default in zip(declared, codecs, made, strict=True)
        ),
        loads=tuple(
            (item.name, _convert(codec.load), default if item.metadata.get("optional") else None)
            for item, codec, default in zip(declared, codecs, made, strict=True)
        ),
        copies=tuple(_convert(codec.copy) for codec in codecs),
        defaults=tuple(
            (name, default) for name, default in zip(names, made, strict=True) if default
        ),
    )
    _PLANS[cls] = found
    return found


def defaults(cls: type[Any]) -> dict[str, Any]:
    """The field values of a new ``cls`` record (the fields that have a default)."""
    return {name: default() for name, default in _plan(cls).defaults}


def dump(record: Any) -> dict[str, Any]:
    """The JSON form of a declared-state record."""
    data: dict[str, Any] = {}
    plan = _plan(type(record))
    for (name, convert, omitted), value in zip(plan.dumps, plan.values(record), strict=True):
        if omitted is not None and value == omitted():
            continue
        data[name] = value if convert is None else convert(value)
    return data


def load_values(cls: type[Any], data: Mapping[str, Any]) -> dict[str, Any]:
    """The field values of a ``cls`` record read from its JSON form (a missing required field
    raises ``KeyError``)."""
    values: dict[str, Any] = {}
    for name, convert, absent in _plan(cls).loads:
        if absent is not None and name not in data:
            values[name] = absent()
        else:
            value = data[name]
            values[name] = value if convert is None else convert(value)
    return values


def load(cls: type[T], data: Mapping[str, Any]) -> T:
    return cls(**load_values(cls, data))


def copy_values(record: Any) -> list[Any]:
    """Independent copies of the field values of ``record``, in declaration order."""
    plan = _plan(type(record))
    return [
        value if copy is None else copy(value)
        for copy, value in zip(plan.copies, plan.values(record), strict=True)
    ]


def field_names(cls: type[Any]) -> tuple[str, ...]:
    return _plan(cls).names


def duplicate(record: T) -> T:
    """An independent record equal to ``load(type(record), dump(record))``."""
    return type(record)(*copy_values(record))
