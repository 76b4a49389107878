"""Opening databases: fresh, old, too new, damaged, and DATABASE_URL parsing."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest

from storage import (
    MIGRATIONS,
    Account,
    CorruptDatabase,
    DatabaseTooNew,
    PostgresStorage,
    Screen,
    SqliteStorage,
    StatsDelta,
    Storage,
    Transfer,
    UnknownBackend,
    UnopenableDatabase,
    open_storage,
)
from storage.postgres import POOL_MAX
from tests.storage.conftest import snapshot
from tests.storage.raw import fetch


def user_version(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return int(conn.execute("PRAGMA user_version").fetchone()[0])
    finally:
        conn.close()


async def test_empty_file_gets_the_full_schema(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite3"
    path.touch()
    storage = SqliteStorage(path)
    await storage.start()
    try:
        async with storage.transaction() as tx:
            await tx.ensure_player(1, 1, "A", 100)
            await tx.add_stats(1, 1, StatsDelta(rounds=1))
    finally:
        await storage.stop()
    assert user_version(path) == len(MIGRATIONS)
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


async def test_reopening_applies_nothing(tmp_path: Path) -> None:
    path = tmp_path / "db.sqlite3"
    for _ in range(2):
        storage = SqliteStorage(path)
        await storage.start()
        await storage.stop()
    assert user_version(path) == len(MIGRATIONS)


@pytest.mark.parametrize("version", range(len(MIGRATIONS)))
async def test_upgrade_from_each_earlier_version(tmp_path: Path, version: int) -> None:
    path = tmp_path / "old.sqlite3"
    old = SqliteStorage(path, migrations=MIGRATIONS[:version])
    await old.start()
    await old.stop()
    assert user_version(path) == version
    if version >= 1:
        # Data written by the old schema, with plain SQL as the old code would have.
        conn = sqlite3.connect(path)
        with conn:
            conn.execute(
                "INSERT INTO players (chat_id, user_id, name, balance, created_at) "
                "VALUES (1, 7, 'Old', 400, 0)"
            )
            conn.execute(
                "INSERT INTO ledger (chat_id, source_kind, source_id, target_kind, target_id, "
                "amount, reason, target_after, created_at) "
                "VALUES (1, 'grant', 0, 'player', 7, 400, 'starting balance', 400, 0)"
            )
            conn.execute(
                "INSERT INTO games (chat_id, thread_id, status, state, version, creator_id, "
                "created_at, updated_at) VALUES (1, 0, 'active', '{\"old\": true}', 3, 7, 0, 0)"
            )
        conn.close()

    storage = SqliteStorage(path)
    await storage.start()
    try:
        assert user_version(path) == len(MIGRATIONS)
        async with storage.transaction() as tx:
            player = await tx.ensure_player(1, 7, "Old", 1000)
            await tx.add_stats(1, 7, StatsDelta(rounds=1, wins=1, biggest_win=10))
            game = await tx.load_active_game(1, 0)
            if game is None:
                game = await tx.create_game(1, 0, 7, {})
            await tx.apply_transfers(
                1,
                game.game_id,
                1,
                [Transfer(Account.player(7), Account.bank(game.game_id), 10, "stake")],
            )
        stats = await storage.player_stats(1, 7)
        assert stats is not None and stats.rounds == 1
        assert (await storage.check_ledger(1)).ok
        if version >= 1:
            assert player.balance == 400
            assert game.state == {"old": True} and game.version == 3
    finally:
        await storage.stop()


async def test_failing_step_leaves_previous_version(tmp_path: Path) -> None:
    from storage import Migration

    path = tmp_path / "db.sqlite3"
    broken = (*MIGRATIONS, Migration("broken", "CREATE TABLE extra (x);\nSELECT * FROM nowhere;"))
    storage = SqliteStorage(path, migrations=broken)
    with pytest.raises(CorruptDatabase, match="nowhere"):
        await storage.start()
    assert user_version(path) == len(MIGRATIONS)
    conn = sqlite3.connect(path)
    tables = {name for (name,) in conn.execute("SELECT name FROM sqlite_master")}
    conn.close()
    assert "extra" not in tables


async def test_too_new_database_is_refused_untouched(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {len(MIGRATIONS) + 5}")
    conn.close()
    before = path.read_bytes()
    storage = SqliteStorage(path)
    with pytest.raises(DatabaseTooNew) as caught:
        await storage.start()
    assert (caught.value.found, caught.value.supported) == (len(MIGRATIONS) + 5, len(MIGRATIONS))
    assert "newer than this bot supports" in str(caught.value)
    assert "\n" not in str(caught.value)
    assert path.read_bytes() == before


async def test_garbage_file_is_reported_and_untouched(tmp_path: Path) -> None:
    path = tmp_path / "garbage.sqlite3"
    path.write_bytes(b"this is not a database, just a text file\n" * 200)
    before = path.read_bytes()
    storage = SqliteStorage(path)
    with pytest.raises(CorruptDatabase) as caught:
        await storage.start()
    assert str(path) in str(caught.value) and "\n" not in str(caught.value)
    assert path.read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ["garbage.sqlite3"]


async def test_damaged_database_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "damaged.sqlite3"
    storage = SqliteStorage(path)
    await storage.start()
    async with storage.transaction() as tx:
        for uid in range(2000):
            await tx.ensure_player(1, uid, "player name " * 5, 1000)
    await storage.stop()
    data = bytearray(path.read_bytes())
    assert len(data) > 8 * 4096
    data[3 * 4096 : 6 * 4096] = b"\xff" * (3 * 4096)  # wreck a few b-tree pages
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptDatabase):
        await SqliteStorage(path).start()
    assert path.read_bytes() == bytes(data)


async def test_unopenable_path_is_reported(tmp_path: Path) -> None:
    # What is wrong is said (tests/storage/test_open_errors.py has each case), never «corrupt».
    with pytest.raises(UnopenableDatabase, match="missing-dir' does not exist") as raised:
        await SqliteStorage(tmp_path / "missing-dir" / "db.sqlite3").start()
    assert "corrupt" not in str(raised.value) and "backup" not in str(raised.value)


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("sqlite:///ochko.sqlite3", "ochko.sqlite3"),
        ("sqlite:///data/ochko.db", "data/ochko.db"),
        ("sqlite:////var/lib/ochko/ochko.db", "/var/lib/ochko/ochko.db"),
        ("SQLITE:///x.db", "x.db"),
        ("sqlite:///:memory:", ":memory:"),
    ],
)
def test_sqlite_urls(url: str, expected: str) -> None:
    storage = open_storage(url)
    assert isinstance(storage, SqliteStorage) and storage.path == expected


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("postgres://bot:s3cret@db/ochko#main", "no #fragment"),
        ("postgresql://bot:s3cret@db/ochko?pool_max=0", "pool_max must be"),
        ("postgresql://db/ochko?password=s3cret&pool_max=2&pool_max=3", "pool_max must be"),
        ("mysql://bot:s3cret@db/ochko", "unknown scheme 'mysql'"),
        ("ochko.sqlite3", "not a URL"),
        ("sqlite://host/x.db", "three slashes"),
        ("sqlite:///", "no database path"),
        ("sqlite:///x.db?mode=ro", "parameters"),
    ],
)
def test_bad_urls(url: str, reason: str) -> None:
    with pytest.raises(UnknownBackend, match=reason) as caught:
        open_storage(url)
    message = str(caught.value)
    assert "\n" not in message and "s3cret" not in message


@pytest.mark.parametrize(
    ("url", "pool_max"),
    [
        ("postgres://bot:s3cret@db:5433/ochko", POOL_MAX),
        ("POSTGRESQL:///ochko?host=/run/postgresql", POOL_MAX),
        ("postgresql://bot@db/ochko?password=s3cret&pool_max=3&sslmode=disable", 3),
    ],
)
def test_postgres_urls(url: str, pool_max: int) -> None:
    # Opening connects to nothing yet: the URL is only read.
    storage = open_storage(url)
    assert isinstance(storage, PostgresStorage) and storage.pool_max == pool_max
    assert "s3cret" not in storage.url and "ochko" in storage.url


def test_bad_synchronous_mode() -> None:
    with pytest.raises(ValueError, match="synchronous"):
        open_storage("sqlite:///x.db", synchronous="sometimes")


async def test_memory_database_works() -> None:
    storage = open_storage("sqlite:///:memory:")
    await storage.start()
    async with storage.transaction() as tx:
        assert await tx.claim_update(1)
    assert await storage.is_processed(1)
    await storage.stop()


async def test_upgrade_from_version_5_keeps_every_row(tmp_path: Path) -> None:
    """Step 6 adds a table, a column and indexes: the rows a version-5 bot wrote stay as they
    were, the new column reads 0, and the new methods work on the old rows."""
    path = tmp_path / "v5.sqlite3"
    old = SqliteStorage(path, migrations=MIGRATIONS[:5])
    await old.start()
    async with old.transaction() as tx:
        await tx.claim_update(41)
        await tx.ensure_player(-100, 7, "Old", 1000)
        game = await tx.create_game(-100, 0, 7, {"old": True}, status="active")
        bank = Account.bank(game.game_id)
        await tx.apply_transfers(-100, game.game_id, 1, [Transfer(Account.player(7), bank, 9, "s")])
        await tx.add_stats(-100, 7, StatsDelta(rounds=1))
    await old.stop()
    conn = sqlite3.connect(path)
    with conn:  # the columns of a version-5 game's messages, as the code of then wrote them
        conn.execute("UPDATE games SET table_message_id = 3, shown_version = 1")
    conn.close()
    assert user_version(path) == 5
    before = snapshot(f"sqlite:///{path}")

    # Up to step 6 exactly, so that a later step does not change what this test checks.
    storage = SqliteStorage(path, migrations=MIGRATIONS[:6])
    await storage.start()
    try:
        assert user_version(path) == 6
        after = snapshot(f"sqlite:///{path}")
        assert after["shown_messages"] == []
        # The games rows gained posted_seq = 0 at the end; every other row is unchanged.
        assert after.pop("games") == [(*row, 0) for row in before.pop("games")]
        after.pop("shown_messages")
        assert after == before
        conn = sqlite3.connect(path)
        indexes = {n for (n,) in conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
        conn.close()
        assert {"processed_updates_by_time", "shown_messages_by_time", "games_by_chat"} <= indexes

        # This code writes the columns of later steps too (chats.daily_refill): the methods
        # run on the old rows once the later steps are applied.
        await storage.stop()
        storage = SqliteStorage(path)
        await storage.start()
        loaded = await storage.load_game(game.game_id)
        assert loaded is not None and loaded.version == 1
        # Step 10 moved the messages to delivery's own table.
        assert await storage.load_screen(game.game_id) == Screen(game.game_id, 1, 3, {}, 0, 1)
        assert await storage.games_awaiting_clock() == [game.game_id]
        async with storage.transaction() as tx:
            await tx.set_screen(game.game_id, posted_seq=2)
            assert await tx.start_clock(game.game_id, 1, 99.0)
            await tx.record_shown(-100, 3, "table")
            assert await tx.prune_processed(1e12) == 1
            assert await tx.migrate_chat(-100, -1009) == [game.game_id]
        assert await storage.shown_digest(-1009, 3) == "table"
        assert (await storage.check_ledger(-1009)).ok
        assert await storage.games_with_deadlines() == [(game.game_id, 99.0)]
    finally:
        await storage.stop()


def test_steps_are_the_package_modules_in_number_order() -> None:
    # The version a step produces is its position: a module left out, or taken out of order,
    # would run the wrong SQL on every database in the field.
    import storage.migrations as package

    folder = Path(package.__file__).parent
    names = sorted(p.stem for p in folder.glob("m[0-9][0-9][0-9]_*.py"))
    assert [int(name[1:4]) for name in names] == list(range(1, len(names) + 1))
    assert len(MIGRATIONS) == len(names) >= 8
    for name, step in zip(names, MIGRATIONS, strict=True):
        module = __import__(f"storage.migrations.{name}", fromlist=["APPLY"])
        summary = " ".join(module.__doc__.split("\n\n")[0].split())
        assert (step.description, step.apply) == (summary, module.APPLY)


# The script each released step runs on each backend, as SHA-256 prefixes. Databases in the
# field ran these: a step that renders differently would give a fresh database another schema
# than an upgraded one (SQLite keeps each CREATE's text). The SQLite ones are those of the
# scripts before the two backends' steps became one list; the PostgreSQL ones were checked
# equal to the former PostgreSQL scripts but for whitespace, comments and `!=` for `<>` (one
# operator to PostgreSQL).
RELEASED = {
    "sqlite": [
        "7b4f676c367d360c",
        "1b037765244b1171",
        "57a4718e1831c8b5",
        "59407eea7e03e04c",
        "f75e66b7d8ad5759",
        "2320afd9d42a7965",
        "1e8cfc09547d4e42",
        "f89c0d06ca618909",
        "d9af44fa671660a9",
    ],
    "postgresql": [
        "d217b7c3e726a56c",
        "ee9981dd1662446a",
        "bbcb2150c78087f4",
        "db06554d25e36ce6",
        "88ea1a08f181e92e",
        "a20f2b9c8bb74e66",
        "c02a15cf9d1f76b4",
        "f89c0d06ca618909",
        "cd8d79d1174ce605",
    ],
}


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
def test_released_steps_render_as_released(backend: str) -> None:
    import hashlib

    from storage.sql.dialect import POSTGRESQL, SQLITE

    dialect = SQLITE if backend == "sqlite" else POSTGRESQL
    released = RELEASED[backend]
    rendered = [
        step.apply if isinstance(step.apply, str) else step.apply(dialect)  # type: ignore[arg-type]
        for step in MIGRATIONS[: len(released)]
    ]
    assert all(isinstance(script, str) for script in rendered)
    digests = [hashlib.sha256(str(script).encode()).hexdigest()[:16] for script in rendered]
    assert digests == released


async def test_a_computed_step_runs_once_on_either_backend(database_url: str) -> None:
    # A step that must compute (read rows, write others back) is a coroutine of a StepDb, with
    # `$1` statements as the table modules write them: one file for both backends.
    from storage import Migration
    from storage.migrations import StepDb

    runs: list[str] = []

    async def step(db: StepDb) -> None:
        runs.append(db.dialect.name)
        await db.script(
            f"CREATE TABLE seat_counts (game_id {db.dialect.types['bigint']}, n INTEGER)"
        )
        for game_id, users in await db.rows(
            "SELECT game_id, count(*) FROM seats GROUP BY game_id ORDER BY game_id"
        ):
            await db.execute("INSERT INTO seat_counts VALUES ($1, $2)", game_id, users)

    def opened(migrations: tuple[Migration, ...]) -> Storage:
        if database_url.startswith("sqlite:"):
            return SqliteStorage(database_url.removeprefix("sqlite:///"), migrations=migrations)
        return PostgresStorage(database_url, migrations=migrations)

    storage = opened(tuple(MIGRATIONS))
    await storage.start()
    try:
        async with storage.transaction() as tx:
            game = await tx.create_game(1, 0, 7, {})
            await tx.set_seats(game.game_id, [7, 8])
    finally:
        await storage.stop()
    for _ in range(2):
        storage = opened((*MIGRATIONS, Migration("seat counts", step)))
        await storage.start()
        await storage.stop()
    assert runs == [backend_of_url(database_url)]
    assert fetch(database_url, "SELECT game_id, n FROM seat_counts") == [(game.game_id, 2)]


def backend_of_url(url: str) -> str:
    return "sqlite" if url.startswith("sqlite:") else "postgresql"


async def test_step_10_moves_what_delivery_showed_out_of_the_games(database_url: str) -> None:
    """The games' message columns (written by delivery until step 10) move to delivery's own
    table on either backend, with the round's table the message shows; the games keep the
    rest, and lose the columns."""
    from storage import Migration
    from tests.storage.raw import columns, execute

    def opened(migrations: tuple[Migration, ...]) -> Storage:
        if database_url.startswith("sqlite:"):
            return SqliteStorage(database_url.removeprefix("sqlite:///"), migrations=migrations)
        return PostgresStorage(database_url, migrations=migrations)

    old = opened(tuple(MIGRATIONS[:9]))
    await old.start()
    async with old.transaction() as tx:
        shown = await tx.create_game(-1, 0, 7, {"engine": {}, "meta": {"table_since": 4}})
        plain = await tx.create_game(-2, 0, 7, {"engine": {}, "meta": {}})
        await tx.create_game(-3, 0, 7, {"engine": {}, "meta": {}})  # nothing shown yet
    await old.stop()
    # As the code of version 9 wrote them (set_messages).
    execute(
        database_url,
        'UPDATE games SET table_message_id = 40, hand_messages = \'{"7": 70, "8": 80}\', '
        f"posted_seq = 2, shown_version = 5 WHERE game_id = {shown.game_id}",
    )
    execute(
        database_url,
        f"UPDATE games SET table_message_id = 9, shown_version = 1 WHERE game_id = {plain.game_id}",
    )
    before = _games_rows(database_url)

    # Through step 11: step 13 takes the deadline columns out of the games too.
    storage = opened(tuple(MIGRATIONS[:11]))
    await storage.start()
    try:
        assert fetch(database_url, "SELECT count(*) FROM screens") == [(2,)]
        moved = {"table_message_id", "hand_messages", "posted_seq", "shown_version"}
        assert not moved & set(columns(database_url, "games"))
        assert _games_rows(database_url) == before  # the rest of the games is kept
    finally:
        await storage.stop()
    # Read and written by today's code (the later steps add to screens, move nothing of it).
    storage = opened(tuple(MIGRATIONS))
    await storage.start()
    try:
        assert await storage.load_screen(shown.game_id) == Screen(
            shown.game_id, 4, 40, {7: 70, 8: 80}, 2, 5
        )
        # A state without the stamp shows the first table (the stamp's default).
        assert await storage.load_screen(plain.game_id) == Screen(plain.game_id, 1, 9, {}, 0, 1)
        assert await storage.stale_views() == [plain.game_id + 1]  # behind: shown nothing
        async with storage.transaction() as tx:
            await tx.set_screen(shown.game_id, posted_seq=1)  # older: ignored
            await tx.set_screen(plain.game_id + 1, shown_version=1)
        assert (await storage.load_screen(shown.game_id)).posted_seq == 2
        assert await storage.stale_views() == []
    finally:
        await storage.stop()


def _games_rows(url: str) -> list[tuple[object, ...]]:
    rows = fetch(
        url,
        "SELECT game_id, chat_id, thread_id, status, state, version, bank, deadline, "
        "creator_id, created_at, updated_at FROM games ORDER BY game_id",
    )
    return [tuple(row) for row in rows]


async def test_a_game_mid_turn_keeps_its_deadline_and_claim_across_the_upgrade(
    database_url: str,
) -> None:
    # Step 13 moves the turn deadlines and their claims from games to the scheduler's table: a
    # game mid-turn before the upgrade still times out after it, a replica's live claim still
    # keeps the others away, and a game waiting for its clock still waits.
    from storage import Migration
    from tests.storage.raw import execute

    now = 1_700_000_000.0

    def opened(migrations: tuple[Migration, ...]) -> Storage:
        if database_url.startswith("sqlite:"):
            path = database_url.removeprefix("sqlite:///")
            return SqliteStorage(path, migrations=migrations, clock=lambda: now)
        return PostgresStorage(database_url, migrations=migrations, clock=lambda: now)

    old = opened(tuple(MIGRATIONS[:12]))
    await old.start()
    await old.stop()
    games = {"claimed": 1, "due": 2, "finished": 3, "awaiting": 4, "lobby": 5}
    rows = {
        # name: (status, deadline, claim_owner, claim_until)
        "claimed": ("active", now - 10, "'replica-a'", now + 5),
        "due": ("active", now - 5, "NULL", None),
        "finished": ("finished", now - 50, "NULL", None),
        "awaiting": ("active", None, "NULL", None),
        "lobby": ("lobby", now + 60, "NULL", None),
    }
    for name, (status, deadline, owner, until) in rows.items():
        execute(
            database_url,
            "INSERT INTO games (game_id, chat_id, thread_id, status, state, version, "
            "deadline, claim_owner, claim_until, creator_id, created_at, updated_at) VALUES "
            f"({games[name]}, -{games[name]}, 0, '{status}', '{{}}', 3, "
            f"{'NULL' if deadline is None else deadline}, {owner}, "
            f"{'NULL' if until is None else until}, 7, 0, 0)",
        )

    storage = opened(tuple(MIGRATIONS))
    await storage.start()
    try:
        assert await storage.games_with_deadlines() == [
            (games["claimed"], now - 10),
            (games["due"], now - 5),
            (games["lobby"], now + 60),
        ]
        claimed = await storage.load_game(games["claimed"])
        assert claimed is not None and claimed.deadline == now - 10 and claimed.version == 3
        finished = await storage.load_game(games["finished"])
        assert finished is not None and finished.deadline is None
        assert await storage.games_awaiting_clock() == [games["awaiting"]]
        # The claim came along: another replica leaves that game alone until it runs out.
        assert await storage.claim_due(now, "replica-b", hold=60) == [(games["due"], now - 5)]
        assert await storage.claim_due(now + 6, "replica-b", hold=60) == [
            (games["claimed"], now - 10)
        ]
        # The clock of the game that waited for it starts as before, once.
        async with storage.transaction() as tx:
            assert await tx.start_clock(games["awaiting"], 3, now + 30)
            assert not await tx.start_clock(games["awaiting"], 3, now + 40)
        assert (await storage.games_awaiting_clock()) == []
        assert await storage.claim_due(now + 31, "replica-c", hold=5) == [
            (games["awaiting"], now + 30)
        ]
        # A move saved after the upgrade replaces the deadline and clears its claim.
        async with storage.transaction() as tx:
            await tx.save_game(
                games["due"], expected_version=3, state={}, status="active", deadline=now + 90
            )
        # By then every earlier claim ran out: all the unfinished games' deadlines are due.
        assert await storage.claim_due(now + 91, "replica-d", hold=5) == [
            (games["claimed"], now - 10),
            (games["awaiting"], now + 30),
            (games["lobby"], now + 60),
            (games["due"], now + 90),
        ]
    finally:
        await storage.stop()
