"""What a settled round adds to each person's statistics in the chat: pure, from the round's
result. The service writes it in the round's own transaction."""

from __future__ import annotations

from rules.cards import Card
from rules.events import RoundSettled
from rules.scoring import hand_value
from rules.variants import Variant
from storage import StatsDelta


def round_stats(event: RoundSettled, variant: Variant) -> list[tuple[int, StatsDelta]]:
    """Each player's line (those who sat the round out have none), then the banker's."""
    deltas = []
    banker_net = 0
    for r in event.results:
        if r.outcome == "out":
            continue
        banker_net -= r.net
        deltas.append((r.player, _line(r.outcome, r.net, r.twenty_one, r.golden, r.bust)))
    # The banker's own hand counts too: his 21, golden point or bust.
    hand = hand_value([Card.parse(code) for code in event.banker_cards], variant)
    outcome = "win" if banker_net > 0 else "lose" if banker_net < 0 else "push"
    twenty_one = hand.total == 21 and not hand.golden
    deltas.append((event.banker, _line(outcome, banker_net, twenty_one, hand.golden, hand.bust)))
    return deltas


def _line(outcome: str, net: int, twenty_one: bool, golden: bool, bust: bool) -> StatsDelta:
    return StatsDelta(
        rounds=1,
        wins=int(outcome == "win"),
        losses=int(outcome == "lose"),
        pushes=int(outcome == "push"),
        twentyones=int(twenty_one),
        golden_points=int(golden),
        busts=int(bust),
        net=net,
        biggest_win=max(net, 0),
    )
