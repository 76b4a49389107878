"""Scripts of migration steps written once with the dialect's column types in braces
(`{bigint}`, `{real}`, `{bool}`, `{false}`/`{true}`, `{identity}`, `{without_rowid}`: see
storage/sql/dialect.py), rendered for the database the step runs on."""

from __future__ import annotations

from collections.abc import Callable

from storage.sql.dialect import Dialect

Named = Callable[[Dialect], str]


def named(constraint: str) -> Named:
    """`CONSTRAINT name ` on PostgreSQL (a later step may drop it by name), nothing on SQLite
    (which changes constraints only by rebuilding the table)."""
    return lambda dialect: f"CONSTRAINT {constraint} " if dialect.name == "postgresql" else ""


def typed(script: str, **fragments: Named) -> Callable[[Dialect], str]:
    """The step's APPLY: the script with the dialect's types (and fragments) filled in."""

    def render(dialect: Dialect) -> str:
        extra = {name: fragment(dialect) for name, fragment in fragments.items()}
        return script.format(**dialect.types, **extra)

    return render
