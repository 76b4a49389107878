"""The collector's settings of the bot process (bot.heap)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from bot import heap


@pytest.fixture
def restored() -> Iterator[None]:
    thresholds = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


@pytest.mark.usefixtures("restored")
def test_settle_keeps_the_start_up_heap_out_of_collections() -> None:
    assert gc.get_freeze_count() == 0
    heap.settle()
    assert gc.get_freeze_count() > 10_000  # the modules, classes and functions loaded so far
    assert gc.get_threshold() == heap.THRESHOLDS
    # Cycles made afterwards are still collected.
    made = [[]]
    made[0].append(made)
    del made
    assert gc.collect() >= 1
