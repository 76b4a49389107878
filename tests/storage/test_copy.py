"""`python -m storage.copy`: an SQLite database moved into an empty PostgreSQL one, every row and
every chip accounted for, and a copy that does not add up leaves the target empty."""

from __future__ import annotations

import asyncio
import importlib.util
import re
import sqlite3
import sys
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

import asyncpg
import pytest

import storage.copy as copy_module
from localpg.cluster import PostgresCluster
from storage import (
    MIGRATIONS,
    Account,
    ChatSettings,
    LedgerCheck,
    PostgresStorage,
    StatsDelta,
    Storage,
    Transfer,
    open_storage,
)
from storage.copy import (
    CopyError,
    SchemaMismatch,
    TargetNotEmpty,
    VerificationFailed,
    copy_database,
)
from tests.storage.conftest import FakeClock
from tests.storage.raw import columns, fetch, tables

ROOT = Path(__file__).resolve().parents[2]
# Supergroup ids and a user id beyond 32 bits: the target's BIGINT columns must hold them.
CHAT_A, CHAT_B = -1_001_234_567_890, -1_009_876_543_210
BIG_USER = 5_000_000_001
PEOPLE = {1: "Аня", 2: "Борис", 3: "Вика", BIG_USER: "Гоша"}
STATE = {"engine": {"round": 1}, "meta": {"deck": "sha256:…"}}
PASSWORD = "hunter2-not-shown"


def sqlite_url(path: Path) -> str:
    return f"sqlite:///{path}"


async def build_source(url: str, clock: FakeClock) -> None:
    """A database with a bit of everything, written through the storage interface."""
    storage = open_storage(url, clock=clock)
    await storage.start()
    try:
        await _fill(storage, clock)
    finally:
        await storage.stop()


async def _fill(storage: Storage, clock: FakeClock) -> None:
    async with storage.transaction() as tx:
        await tx.save_chat_settings(
            ChatSettings(CHAT_A, "en", "home36", {"bust_fine": 2}, 45, True, False)
        )
        await tx.save_chat_settings(ChatSettings(CHAT_B))
        for user_id, name in PEOPLE.items():
            opened = user_id != BIG_USER
            await tx.upsert_user(
                user_id,
                name,
                language="en" if user_id == 1 else None,
                private_opened=opened,
                client_language="ru" if opened else None,
            )
            await tx.ensure_player(CHAT_A, user_id, name, 1000)
        await tx.ensure_player(CHAT_B, 1, PEOPLE[1], 500)
        await tx.ensure_player(CHAT_B, 2, PEOPLE[2], 0)  # broke from the start
        assert await tx.claim_update(7_000_000_001)
        assert await tx.claim_update(7_000_000_002)

    clock.advance(12.625)
    async with storage.transaction() as tx:
        done = await tx.create_game(CHAT_A, 0, 1, STATE)
        bank = Account.bank(done.game_id)
        await tx.apply_transfers(
            CHAT_A,
            done.game_id,
            1,
            [
                Transfer(Account.player(1), bank, 200, "bank"),
                Transfer(Account.player(2), bank, 50, "stake"),
                Transfer(bank, Account.player(2), 100, "win"),
                Transfer(bank, Account.player(1), 150, "bank back"),
            ],
        )
        await tx.add_stats(CHAT_A, 2, StatsDelta(rounds=1, wins=1, net=50, biggest_win=50))
        await tx.add_stats(CHAT_A, 1, StatsDelta(rounds=1, losses=1, twentyones=1, net=-50))
        await tx.record_achievements(CHAT_A, done.game_id, 1, [(2, "va_bank")])
        await tx.archive_log(done.game_id, 0, [{"round": 1, "won": 2}, {"round": 1, "bank": 0}])
        await tx.set_seats(done.game_id, [1, 2])
        await tx.save_game(
            done.game_id, expected_version=1, state=STATE, status="finished", deadline=None
        )

    clock.advance(60.375)
    async with storage.transaction() as tx:
        # Open, in a forum topic, with chips in its bank, a running clock and live messages.
        active = await tx.create_game(CHAT_A, 7, 3, STATE, status="active")
        bank = Account.bank(active.game_id)
        await tx.apply_transfers(
            CHAT_A, active.game_id, 1, [Transfer(Account.player(3), bank, 300, "bank")]
        )
        await tx.save_game(
            active.game_id,
            expected_version=1,
            state={**STATE, "turn": 1},
            status="active",
            deadline=clock.now + 30.5,
        )
        await tx.set_screen(
            active.game_id,
            table_since=2,
            table_message_id=555,
            hand_messages={1: 11, 3: 33},
            shown_version=2,
            posted_seq=1,
        )
        await tx.set_seats(active.game_id, [1, 3, BIG_USER])
        await tx.record_shown(CHAT_A, 555, "digest-555")
        await tx.record_shown(CHAT_B, 8, "digest-8")
        assert await tx.hold_lease(f"chat:{CHAT_A}", "replica-a", 20, '{"sent":[1.5]}')
        assert await tx.hold_lease("job:sweep", "replica-b", 54)
        await tx.save_deadline("ask", f"{CHAT_A}:556", clock.now + 59.25)  # «end the game?»
        # A season that ended, with its podium and its champion.
        season = await tx.close_season(
            CHAT_A, 1_700_000_000.0, 1_700_600_000.0, [(2, "Борис", 50), (1, "Аня", -50)], 1.8e9
        )
        assert season is not None and season.number == 1
        refill = await tx.refill(CHAT_B, 2, 500, period=86_400)
        assert refill.amount == 500
        lobby = await tx.create_game(CHAT_B, 0, 1, STATE)  # a lobby
        # A call to play: who asked to be told, and the notice claimed of the lobby.
        await tx.subscribe(CHAT_B, 2)
        await tx.subscribe(CHAT_A, 3)
        assert await tx.claim_notices(CHAT_B, lobby.game_id, 1, 3, clock.now) == [2]
    # A replica's claim on the due deadline: claim_owner and claim_until are copied too.
    assert await storage.claim_deadlines("ask", clock.now + 60, "replica-b", hold=7) == [
        (f"{CHAT_A}:556", clock.now + 59.25)
    ]
    assert await storage.claim_due(clock.now + 31, "replica-a", hold=5) == [
        (active.game_id, clock.now + 30.5)
    ]
    check = await storage.check_ledger(CHAT_A)
    assert check.ok and check.open_banks == 300
    assert (await storage.check_ledger(CHAT_B)).issued == 500


def contents(url: str, names: Sequence[str], cols: dict[str, list[str]]) -> dict[str, list[Any]]:
    """Every row of every table, by the source's column names, booleans as 0/1, sorted."""
    result = {}
    for name in names:
        listed = ", ".join(f'"{c}"' for c in cols[name])
        rows = fetch(url, f'SELECT {listed} FROM "{name}"')
        normal = [tuple(int(v) if isinstance(v, bool) else v for v in row) for row in rows]
        result[name] = sorted(normal, key=repr)
    return result


def row_counts(url: str) -> dict[str, int]:
    return {
        name: fetch(url, f'SELECT count(*) FROM "{name}"')[0][0]
        for name in tables(url)
        if name != "schema_version"
    }


async def books(url: str, chats: Sequence[int]) -> list[LedgerCheck]:
    storage = open_storage(url)
    await storage.start()
    try:
        return [await storage.check_ledger(chat_id) for chat_id in chats]
    finally:
        await storage.stop()


@pytest.fixture
def target_url(postgres_cluster: PostgresCluster) -> Iterator[str]:
    """A new, empty PostgreSQL database of the session's throwaway cluster."""
    url = postgres_cluster.new_database()
    yield url
    postgres_cluster.drop_database(url)


@pytest.fixture
async def source_url(tmp_path: Path, clock: FakeClock) -> str:
    url = sqlite_url(tmp_path / "ochko.sqlite3")
    await build_source(url, clock)
    return url


async def test_every_row_and_every_chip_arrives(source_url: str, target_url: str) -> None:
    source_tables = tables(source_url)
    source_columns = {name: columns(source_url, name) for name in source_tables}
    before = contents(source_url, source_tables, source_columns)
    # Every table holds rows, so that each one's copy is really compared below.
    assert all(before.values()), [name for name, rows in before.items() if not rows]

    report = await copy_database(source_url, target_url)

    assert sorted(tables(target_url)) == sorted([*source_tables, "schema_version"])
    for name in source_tables:
        assert sorted(columns(target_url, name)) == sorted(source_columns[name]), name
    assert contents(target_url, source_tables, source_columns) == before
    source_books = await books(source_url, [CHAT_A, CHAT_B])
    assert await books(target_url, [CHAT_A, CHAT_B]) == source_books
    assert all(check.ok for check in source_books)

    # Parents before children, every table once, with its count.
    order = [name for name, _ in report.tables]
    assert sorted(order) == sorted(source_tables)
    assert order.index("games") < order.index("ledger")
    assert order.index("games") < order.index("seats")
    assert order.index("players") < order.index("stat_events")
    assert order.index("players") < order.index("achievements")
    assert dict(report.tables) == {name: len(rows) for name, rows in before.items()}
    assert report.schema_version == len(MIGRATIONS)
    assert (report.chats, report.players) == (2, 6)
    assert report.balances == sum(check.balances for check in source_books)
    assert report.open_banks == 300
    lines = report.lines()
    assert len(lines) == len(source_tables) + 1
    assert lines[-1].startswith("ok: 2 chats, 6 players, ")


async def test_new_rows_in_the_target_get_fresh_ids(
    source_url: str, target_url: str, clock: FakeClock
) -> None:
    await copy_database(source_url, target_url)
    top_game, top_entry, top_event = fetch(
        target_url,
        "SELECT (SELECT max(game_id) FROM games), (SELECT max(entry_id) FROM ledger), "
        "(SELECT max(event_id) FROM stat_events)",
    )[0]
    target = open_storage(target_url, clock=clock)
    await target.start()
    try:
        async with target.transaction() as tx:
            game = await tx.create_game(CHAT_B, 3, 1, STATE, status="active")
            await tx.apply_transfers(
                CHAT_B,
                game.game_id,
                1,
                [Transfer(Account.player(1), Account.bank(game.game_id), 40, "bank")],
            )
            await tx.add_stats(CHAT_B, 1, StatsDelta(rounds=1))
        assert game.game_id == top_game + 1
        assert (await target.check_ledger(CHAT_B)).ok
    finally:
        await target.stop()
    entry, event = fetch(
        target_url,
        "SELECT (SELECT max(entry_id) FROM ledger), (SELECT max(event_id) FROM stat_events)",
    )[0]
    assert (entry, event) == (top_entry + 1, top_event + 1)


async def test_a_target_with_data_is_refused_untouched(source_url: str, target_url: str) -> None:
    await copy_database(source_url, target_url)
    after_first = contents(
        target_url, tables(source_url), {n: columns(source_url, n) for n in tables(source_url)}
    )
    with pytest.raises(TargetNotEmpty, match=r"already holds data \(in chats, .*players"):
        await copy_database(source_url, target_url)
    assert (
        contents(
            target_url,
            tables(source_url),
            {n: columns(source_url, n) for n in tables(source_url)},
        )
        == after_first
    )


async def test_any_row_makes_a_target_not_empty(
    source_url: str, target_url: str, clock: FakeClock
) -> None:
    # A bot started on the new database before the copy writes a job lease, nothing else.
    target = open_storage(target_url, clock=clock)
    await target.start()
    try:
        assert await target.acquire_lease("job:prune", "early-bird", 60)
    finally:
        await target.stop()
    with pytest.raises(TargetNotEmpty, match=r"\(in leases\)"):
        await copy_database(source_url, target_url)
    assert sum(row_counts(target_url).values()) == 1


def tamper(monkeypatch: pytest.MonkeyPatch, table: str, change: Any) -> None:
    """Alter the rows the copy reads from one source table (`change(columns, rows)`), as a
    write to the source between the snapshot's checks and its rows would."""
    real = copy_module._chunks

    async def chunks(
        conn: Any, name: str, cols: Sequence[str], size: int
    ) -> AsyncIterator[list[tuple[Any, ...]]]:
        async for rows in real(conn, name, cols, size):
            yield change(cols, rows) if name == table else rows

    monkeypatch.setattr(copy_module, "_chunks", chunks)


async def test_a_chip_gone_astray_rolls_the_copy_back(
    source_url: str, target_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def one_more_chip(cols: Sequence[str], rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
        at = list(cols).index("balance")
        first = rows[0]
        return [(*first[:at], first[at] + 1, *first[at + 1 :]), *rows[1:]]

    tamper(monkeypatch, "players", one_more_chip)
    with pytest.raises(VerificationFailed, match=r"chat -\d+: the source's books .* differ"):
        await copy_database(source_url, target_url)
    assert set(row_counts(target_url).values()) == {0}
    # Left empty indeed: the honest copy goes through.
    monkeypatch.undo()
    report = await copy_database(source_url, target_url)
    assert report.lines()[-1].startswith("ok:")


async def test_a_missing_row_rolls_the_copy_back(
    source_url: str, target_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A log entry moves no chip: only the row count can tell it is missing.
    tamper(monkeypatch, "game_log", lambda cols, rows: rows[:-1])
    with pytest.raises(VerificationFailed, match=r"game_log: 2 rows in the source, 1 copied"):
        await copy_database(source_url, target_url)
    assert set(row_counts(target_url).values()) == {0}


async def test_a_source_whose_books_do_not_balance_is_not_copied(
    source_url: str, target_url: str
) -> None:
    # Copied faithfully, the target's books would be as wrong as the source's: refused, so
    # that the move does not hide the problem.
    with sqlite3.connect(source_url.removeprefix("sqlite:///")) as conn:
        conn.execute(f"UPDATE players SET balance = balance + 5 WHERE chat_id = {CHAT_B}")
    with pytest.raises(VerificationFailed, match=f"chat {CHAT_B}: its books do not balance"):
        await copy_database(source_url, target_url)
    assert set(row_counts(target_url).values()) == {0}


async def test_a_value_the_target_cannot_hold_is_refused(source_url: str, target_url: str) -> None:
    path = source_url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE users SET private_opened = 7 WHERE user_id = 1")
    with pytest.raises(CopyError, match=r"users\.private_opened: .* 7 cannot be stored as bool"):
        await copy_database(source_url, target_url)
    assert set(row_counts(target_url).values()) == {0}


@pytest.mark.parametrize(
    ("drift", "message"),
    [
        ("CREATE TABLE notes (note_id INTEGER PRIMARY KEY)", r"\['notes'\] only in the source"),
        ("ALTER TABLE users ADD COLUMN nickname TEXT", r"users has columns \['nickname'\]"),
    ],
)
async def test_drifted_schemas_are_refused(
    source_url: str, target_url: str, drift: str, message: str
) -> None:
    with sqlite3.connect(source_url.removeprefix("sqlite:///")) as conn:
        conn.execute(drift)
    with pytest.raises(SchemaMismatch, match=message):
        await copy_database(source_url, target_url)
    assert set(row_counts(target_url).values()) == {0}


async def test_different_schema_versions_are_refused(
    source_url: str, target_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    def older_target(url: str, **kwargs: Any) -> Storage:
        if url.startswith("postgresql"):
            return PostgresStorage(url, migrations=MIGRATIONS[:-1])
        return open_storage(url, **kwargs)

    monkeypatch.setattr(copy_module, "open_storage", older_target)
    newest = len(MIGRATIONS)
    with pytest.raises(
        SchemaMismatch, match=f"source is at schema version {newest}, the target at {newest - 1}"
    ):
        await copy_database(source_url, target_url)
    assert set(row_counts(target_url).values()) == {0}


async def test_a_busy_target_is_not_waited_for_forever(
    source_url: str, target_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await books(target_url, [])  # the schema
    monkeypatch.setattr(copy_module, "LOCK_TIMEOUT_SECONDS", 1)
    other = await asyncpg.connect(target_url)
    try:
        # A bot's transaction still open on the target: it holds a lock the copy must wait for.
        busy = other.transaction()
        await busy.start()
        await other.execute("LOCK TABLE leases IN ROW EXCLUSIVE MODE")
        with pytest.raises(CopyError, match=r"stayed in use for 1 s: stop every bot"):
            await copy_database(source_url, target_url)
        await busy.rollback()
    finally:
        await other.close()
    assert set(row_counts(target_url).values()) == {0}


async def test_wrong_sources_are_refused(tmp_path: Path, target_url: str) -> None:
    missing = tmp_path / "typo.sqlite3"
    with pytest.raises(CopyError, match="no SQLite database at"):
        await copy_database(sqlite_url(missing), target_url)
    assert not missing.exists()  # not created empty
    with pytest.raises(CopyError, match="the source must be an SQLite database"):
        await copy_database(target_url, target_url)
    with pytest.raises(CopyError, match="the target must be a PostgreSQL database"):
        await copy_database(sqlite_url(missing), sqlite_url(missing))


async def run_command(*args: str) -> tuple[int, str, str]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "storage.copy",
        *args,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


async def test_the_command(source_url: str, target_url: str) -> None:
    with_password = f"{target_url}&password={PASSWORD}"
    status, out, err = await run_command(source_url, with_password)
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert len(lines) == len(tables(source_url)) + 1
    assert any(line.split() == ["ledger", "11", "rows"] for line in lines), out
    assert lines[-1].startswith("ok: 2 chats, 6 players, ")
    assert "password=***" in lines[-1]

    status, out, err = await run_command(source_url, with_password)
    assert status == 2
    assert out == ""
    assert len(err.splitlines()) == 1
    assert "already holds data" in err
    assert PASSWORD not in out + err


def test_the_deployment_page_shows_what_the_repository_has() -> None:
    page = (ROOT / "docs" / "deployment.md").read_text()
    # The compose file and the Caddyfile are shown whole, as they are in deploy/.
    for name in ("docker-compose.postgres.yml", "Caddyfile"):
        text = (ROOT / "deploy" / name).read_text().rstrip("\n")
        assert f"\n{text}\n```" in page, f"docs/deployment.md does not show deploy/{name}"
    modules = set(re.findall(r"python -m ([\w.]+)", page))
    assert "storage.copy" in modules
    for module in modules:
        assert importlib.util.find_spec(module) is not None, module
