"""bot/game_state.py: ``Meta``, the bot's bookkeeping beside the engine's state, is declared once
(its fields and how each is stored) and read and written from that declaration: the games
stored today decode unchanged and are written back as the same text, and states stored before
a field existed read it as its default."""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from bot.game_state import Meta
from rules.events import Event, RoundSettled
from storage import jsontext

# Stored by the hand-written encoder this declaration replaced (commit 06a4833), from a real
# game: classic36 played by three, its first round settled and its result not yet posted.
SETTLED = (
    '{"creator_id":1000001,"names":{"1000001":"Аня","1000002":"Борис","1000003":"Вика"},"turn'
    '_since":11,"decision":[1,"round_over",null],"outbox":[{"kind":"result","event":{"round_n'
    'o":1,"banker":1000001,"banker_cards":["7H","KD","10D"],"banker_total":21,"banker_bust":f'
    'alse,"results":[{"player":1000002,"outcome":"win","stake":50,"net":50,"total":21,"cards"'
    ':["10S","AS"],"bust":false,"twenty_one":true,"golden":false,"natural":false,"dark":false'
    ',"due":50},{"player":1000003,"outcome":"lose","stake":25,"net":-25,"total":17,"cards":["'
    '9S","8D"],"bust":false,"twenty_one":false,"golden":false,"natural":false,"dark":true,"du'
    'e":0}],"bank":75,"balances":[[1000001,900],[1000002,1050],[1000003,975]],"shuffles":[{"c'
    'ommitment":"ea96f574bd56c4ca2a5225144a2ba6c2d1d3cdedd1dc6c46a8e41fb070b8f7a9","salt":"1a'
    '9b3bf310f8d55b23812f331ace23b6","order":["10S","9S","7H","AS","8D","KD","10D","6S","7S",'
    '"8S","JS","QS","KS","6H","8H","9H","10H","JH","QH","KH","AH","6D","7D","9D","JD","QD","A'
    'D","6C","7C","8C","9C","10C","JC","QC","KC","AC"],"dealt":["10S","9S","7H","AS","8D","KD'
    '","10D"],"recycled":false}],"kind":"round_settled"},"seq":1}],"news":[],"idle_round":fal'
    'se,"ended_by":null,"expired":false,"table_since":1,"actor_since":11,"acted":{"1000002":['
    '6,"hit"],"1000003":[8,"dark"],"1000001":[10,"hit"]},"outbox_seq":1,"chat_title":"Очко"}'
)
# The same encoder: a paused table, with news, a press remembered and no chat title.
PAUSED = (
    '{"creator_id":7,"names":{"7":"Аня","8":"Bob <b>"},"turn_since":40,"decision":[3,"draw",8],'
    '"outbox":[],"news":[{"player":8,"total":23,"cards":["KS","QD","3H"],"kind":"bust"}],'
    '"idle_round":true,"ended_by":null,"expired":false,"table_since":38,"actor_since":39,'
    '"acted":{"8":[39,"hit"]},"outbox_seq":4,"paused":true}'
)
# The oldest shape still stored: only what every state has carried from the start.
OLDEST: dict[str, Any] = {
    "creator_id": 1,
    "names": {"1": "Аня"},
    "turn_since": 3,
    "decision": [1, "stake", 2],
    "outbox": [],
    "news": [],
}


def test_games_stored_today_decode_and_are_written_back_as_the_same_text() -> None:
    for text in (SETTLED, PAUSED):
        meta = Meta.from_dict(jsontext.loads(text))
        assert jsontext.dumps(meta.to_dict()) == text


def test_a_stored_game_decodes_to_the_values_it_was_written_with() -> None:
    meta = Meta.from_dict(jsontext.loads(SETTLED))
    assert meta.creator_id == 1000001
    assert meta.names == {1000001: "Аня", 1000002: "Борис", 1000003: "Вика"}
    assert (meta.turn_since, meta.decision) == (11, [1, "round_over", None])
    assert [item["seq"] for item in meta.outbox] == [1] and meta.outbox_seq == 1
    settled = RoundSettled.from_dict(meta.outbox[0]["event"])
    assert (settled.round_no, settled.banker, settled.bank) == (1, 1000001, 75)
    assert meta.acted == {1000002: [6, "hit"], 1000003: [8, "dark"], 1000001: [10, "hit"]}
    assert (meta.idle_round, meta.ended_by, meta.expired) == (False, None, False)
    assert not meta.paused
    assert (meta.table_since, meta.actor_since, meta.chat_title) == (1, 11, "Очко")

    paused = Meta.from_dict(jsontext.loads(PAUSED))
    assert paused.paused and paused.idle_round and paused.chat_title == ""
    assert [Event.from_dict(item).kind for item in paused.news] == ["bust"]


def test_fields_absent_from_older_states_read_as_their_defaults() -> None:
    meta = Meta.from_dict(OLDEST)
    new = Meta(creator_id=0)
    for name in ("idle_round", "ended_by", "expired", "table_since", "actor_since", "acted"):
        assert getattr(meta, name) == getattr(new, name), name
    assert (meta.outbox_seq, meta.paused, meta.chat_title) == (0, False, "")
    # Written back with every field but those left out at their default.
    assert meta.to_dict() == OLDEST | {
        "names": {"1": "Аня"},
        "idle_round": True,
        "ended_by": None,
        "expired": False,
        "table_since": 1,
        "actor_since": 0,
        "acted": {},
        "outbox_seq": 0,
    }


def test_results_stored_before_they_were_numbered_get_numbers_after_the_counter() -> None:
    old = OLDEST | {
        "outbox": [{"kind": "result", "event": {}}, {"kind": "ended", "event": {}, "seq": 3}],
        "outbox_seq": 3,
    }
    meta = Meta.from_dict(old)
    assert [item["seq"] for item in meta.outbox] == [4, 3]
    assert meta.outbox_seq == 4
    assert "seq" not in old["outbox"][0]  # the stored state is not changed
    assert Meta.from_dict(meta.to_dict()) == meta


def test_every_declared_field_is_stored_and_read_back() -> None:
    """A field added to the declaration is written and read with no other line changed."""
    meta = Meta(
        creator_id=5,
        names={5: "Аня", 6: "Борис"},
        turn_since=9,
        decision=[2, "draw", 6],
        outbox=[{"kind": "ended", "event": {}, "seq": 2}],
        news=[{"kind": "bust", "player": 6, "total": 22, "cards": ["KS", "QS", "2H"]}],
        idle_round=False,
        ended_by=5,
        expired=True,
        table_since=7,
        actor_since=8,
        acted={6: [8, "hit"]},
        outbox_seq=2,
        paused=True,
        chat_title="Пятница",
    )
    data = meta.to_dict()
    assert list(data) == [item.name for item in fields(Meta)]
    again = Meta.from_dict(jsontext.loads(jsontext.dumps(data)))
    assert again == meta
    for item in fields(Meta):
        assert getattr(again, item.name) != getattr(Meta(creator_id=0), item.name), item.name


def test_a_key_the_declaration_no_longer_names_is_ignored() -> None:
    """A field moved out of the bookkeeping (to delivery's own tables) leaves its key in the
    games stored before: they still decode."""
    meta = Meta.from_dict(OLDEST | {"gone": [1, 2]})
    assert "gone" not in meta.to_dict()


def test_the_decoded_bookkeeping_shares_nothing_with_the_stored_state() -> None:
    """The service changes the meta it decoded; the stored state (cached, shared by readers)
    stays as it was."""
    stored = jsontext.loads(SETTLED)
    before = jsontext.dumps(stored)
    meta = Meta.from_dict(stored)
    meta.names[1] = "Новичок"
    meta.decision.append(0)
    meta.outbox.append({"kind": "ended"})
    meta.news.append({"kind": "bust"})
    meta.acted[1000002].append("x")
    meta.acted[1] = [1, "hit"]
    assert jsontext.dumps(stored) == before
