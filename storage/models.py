"""Domain records returned and accepted by storage. All are immutable."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from operator import attrgetter
from typing import Any, ClassVar, Final, Literal, cast

AccountKind = Literal["player", "bank", "grant", "issue"]
GameStatus = Literal["lobby", "active", "finished"]
GAME_STATUSES: Final[frozenset[str]] = frozenset({"lobby", "active", "finished"})


class Unset(enum.Enum):
    """Marks an argument that was not given, where None is a meaningful value."""

    UNSET = enum.auto()

    def __repr__(self) -> str:
        return "UNSET"


UNSET: Final = Unset.UNSET


@dataclass(frozen=True, slots=True)
class Account:
    """One side of a chip movement.

    player: a Telegram user id (within the chat of the transfer);
    bank: a game id (the open bank of that game);
    grant: id 0, the outside source of starting balances and top-ups;
    issue: id 0, the outside source of the daily refills of broke players (`Transaction.refill`),
    kept apart from the grants so that a chat's books show how many chips were given back.
    """

    kind: AccountKind
    id: int

    GRANT: ClassVar[Account]
    ISSUE: ClassVar[Account]

    @classmethod
    def player(cls, user_id: int) -> Account:
        return cls("player", user_id)

    @classmethod
    def bank(cls, game_id: int) -> Account:
        return cls("bank", game_id)

    def __post_init__(self) -> None:
        if self.kind not in ("player", "bank", "grant", "issue"):
            raise ValueError(f"unknown account kind {self.kind!r}")
        if self.kind in ("grant", "issue") and self.id != 0:
            raise ValueError(f"the {self.kind} account has id 0")

    @property
    def is_outside(self) -> bool:
        """A source of chips from outside the chat's economy: it has no balance."""
        return self.kind in ("grant", "issue")


Account.GRANT = Account("grant", 0)
Account.ISSUE = Account("issue", 0)


@dataclass(frozen=True, slots=True)
class Transfer:
    source: Account
    target: Account
    amount: int
    reason: str

    def __post_init__(self) -> None:
        if self.amount <= 0:
            raise ValueError(f"a transfer amount must be positive, got {self.amount}")
        if self.source == self.target:
            raise ValueError(f"a transfer from {self.source} to itself is meaningless")


@dataclass(frozen=True, slots=True)
class ChatSettings:
    chat_id: int
    language: str = "ru"
    preset: str = "classic36"
    # Parameter overrides on top of the preset; JSON-able, interpreted by rules/.
    overrides: Mapping[str, object] = field(default_factory=dict)
    turn_timeout: int | None = None
    house_banker: bool = False
    # A broke player is given chips back up to the starting balance, at most once a day.
    daily_refill: bool = True
    # A call to play: at most this many notices an hour reach a person from the chat (0: off).
    notices_per_hour: int = 3
    # Seasons: "off", "week" or "month", in the chat's time zone (hours east of UTC).
    season: str = "month"
    utc_offset: int = 0
    # Not settings (never saved with them): the champion of the chat's last season, who wears
    # 🏆 until champion_until (the end of the season after his), read with the settings.
    champion: int | None = None
    champion_until: float = 0.0


@dataclass(frozen=True, slots=True)
class User:
    """A Telegram user, the same in every chat."""

    user_id: int
    name: str
    language: str | None  # chosen with /lang
    private_opened: bool
    # The language Telegram last reported for the person, when the bot speaks it.
    client_language: str | None = None


@dataclass(frozen=True, slots=True)
class Player:
    """A user's seat in one chat: the balance belongs to the chat."""

    chat_id: int
    user_id: int
    name: str
    balance: int


@dataclass(frozen=True, slots=True)
class StoredGame:
    game_id: int
    chat_id: int
    thread_id: int  # 0 when the chat has no forum topics
    status: GameStatus
    state: dict[str, Any]  # the engine's JSON, opaque to storage
    version: int
    bank: int
    # Unix time when the current turn times out (kept in the scheduler's deadlines table).
    deadline: float | None
    creator_id: int
    created_at: float
    updated_at: float


@dataclass(frozen=True, slots=True)
class Screen:
    """What delivery showed of a game: its record, kept apart from the game (the service writes
    the game, delivery alone writes this; a game it showed nothing of reads as the defaults)."""

    game_id: int
    # The game's `table_since` (the version at which a new table message was wanted) that the
    # table message was posted for: when the game's moves on, the table is posted anew.
    table_since: int = 0
    table_message_id: int | None = None
    hand_messages: Mapping[int, int] = field(default_factory=dict)  # user -> private message
    # How far the delivery of the game's results got (the outbox's seq numbers posted).
    posted_seq: int = 0
    # The state version the table message last showed (start-up shows the games behind).
    shown_version: int = 0
    # The game's `actor_since` (a turn) last mentioned in the group: one mention a turn.
    mentioned_since: int = 0
    # The result message still showing the next round's buttons and countdown, with the
    # round's event (RoundSettled.to_dict()): {"message_id": …, "event": …}.
    live_result: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class Achievement:
    """An achievement a person earned in a chat (rules/achievements.py names the codes), with
    the round that earned it."""

    code: str
    game_id: int
    round_no: int
    earned_at: float


@dataclass(frozen=True, slots=True)
class StatsDelta:
    rounds: int = 0
    wins: int = 0
    losses: int = 0
    pushes: int = 0
    twentyones: int = 0
    golden_points: int = 0
    busts: int = 0
    net: int = 0
    biggest_win: int = 0  # merged with max(), every other field is added

    def counts(self) -> tuple[int, ...]:
        """The fields in the order above: the order of both backends' statistics columns."""
        return cast(tuple[int, ...], _STATS_FIELDS(self))


# Read by every settled round: attrgetter, not astuple (which deep-copies each field).
_STATS_FIELDS: Final = attrgetter(*(f.name for f in fields(StatsDelta)))


@dataclass(frozen=True, slots=True)
class PlayerStats:
    chat_id: int
    user_id: int
    name: str
    rounds: int
    wins: int
    losses: int
    pushes: int
    twentyones: int
    golden_points: int
    busts: int
    biggest_win: int
    net: int


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    user_id: int
    name: str
    balance: int  # with the bank the player holds as a banker (his chips all the same)
    net: int
    rounds: int
    wins: int
    bank: int = 0  # of ``balance``, what is in the bank of a game he is banking now


@dataclass(frozen=True, slots=True)
class Season:
    """A chat's season that ended with anyone playing: its podium, (user, name, net) by place
    (the champion first), and until when the champion wears 🏆."""

    chat_id: int
    number: int
    starts_at: float
    ends_at: float
    podium: tuple[tuple[int, str, int], ...]
    champion_until: float


@dataclass(frozen=True, slots=True)
class Refill:
    """What `Transaction.refill` did: `amount` chips issued (0: none), the balance after it, and
    from when the player may be refilled again (None: never refilled in this chat)."""

    amount: int
    balance: int
    next_at: float | None


@dataclass(frozen=True, slots=True)
class LedgerCheck:
    """granted + issued == balances + open_banks proves that no chip was created or lost:
    every chip came in as a starting grant or a refill, and is in a balance or an open bank."""

    chat_id: int
    granted: int
    balances: int
    open_banks: int
    ok: bool
    # Last, with a default, so that checks written before refills existed still compare equal.
    issued: int = 0


@dataclass(frozen=True, slots=True)
class Lease:
    """A named lease (see `Transaction.hold_lease`): who holds or last held it, and the note
    its holder left for the next one to go on from."""

    name: str
    owner: str
    expires_at: float
    renewed_at: float
    note: str
