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
        deltas.append(
            (
                r.player,
                StatsDelta(
                    rounds=1,
                    wins=int(r.outcome == "win"),
                    losses=int(r.outcome == "lose"),
                    pushes=int(r.outcome == "push"),
                    twentyones=int(r.twenty_one),
                    golden_points=int(r.golden),
                    busts=int(r.bust),
                    net=r.net,
                    biggest_win=max(r.net, 0),
                ),
            )
        )
    # The banker's own hand counts too: his 21, golden point or bust.
    banker_hand = hand_value([Card.parse(code) for code in event.banker_cards], variant)
    deltas.append(
        (
            event.banker,
            StatsDelta(
                rounds=1,
                wins=int(banker_net > 0),
                losses=int(banker_net < 0),
                pushes=int(banker_net == 0),
                twentyones=int(banker_hand.total == 21 and not banker_hand.golden),
                golden_points=int(banker_hand.golden),
                busts=int(banker_hand.bust),
                net=banker_net,
                biggest_win=max(banker_net, 0),
            ),
        )
    )
    return deltas
