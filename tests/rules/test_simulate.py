"""The simulator: sane figures for every preset, reproducible from a seed, clear CLI errors."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from rules.simulate import STRATEGIES, Tally, edge_interval, main, play, run
from rules.variants import PRESETS

ROOT = Path(__file__).resolve().parents[2]
ROUNDS = 300


@pytest.mark.parametrize("name", list(PRESETS))
def test_quick_run_gives_sane_figures(name: str) -> None:
    report = run(PRESETS[name], ROUNDS, players=4, seed=7)
    assert report.rounds == ROUNDS
    assert report.sessions >= 1
    assert report.staked >= ROUNDS  # every round had at least one stake of at least 1
    assert -2.0 < report.edge < 2.0  # a stake is lost with at most a 100% fine, won at most 2:1
    assert 0 < report.half_width < 0.5
    assert report.low < report.edge < report.high
    assert math.isclose(report.win_rate + report.push_rate + report.loss_rate, 1.0)
    assert 0.2 < report.win_rate < 0.7
    assert 0.2 < report.loss_rate < 0.7
    assert report.rounds_per_second > 0
    assert name in report.line() and "rounds/s" in report.line()


@pytest.mark.parametrize("name", list(PRESETS))
def test_same_seed_same_figures(name: str) -> None:
    first = play(PRESETS[name], ROUNDS, players=3, seed=42, session_rounds=50)
    again = play(PRESETS[name], ROUNDS, players=3, seed=42, session_rounds=50)
    other = play(PRESETS[name], ROUNDS, players=3, seed=43, session_rounds=50)
    assert first == again
    assert first != other
    assert first.sessions >= ROUNDS // 50  # sessions are renewed and rounds counted across them


def test_strategies_differ() -> None:
    variant = PRESETS["classic36"]
    cautious = play(variant, ROUNDS, strategy=STRATEGIES["cautious"], seed=1)
    bold = play(variant, ROUNDS, strategy=STRATEGIES["bold"], seed=1)
    assert cautious != bold


def test_edge_interval_of_equal_stakes_is_the_plain_mean_interval() -> None:
    nets = [10, -10, 10, 10, -10, 0, 10]
    tally = Tally()
    for b in nets:
        tally.staked_rounds += 1
        tally.staked += 10
        tally.banker_net += b
        tally.sum_b2 += b * b
        tally.sum_s2 += 100
        tally.sum_bs += 10 * b
    edge, half = edge_interval(tally)
    per_unit = [b / 10 for b in nets]
    mean = sum(per_unit) / len(per_unit)
    sd = math.sqrt(sum((x - mean) ** 2 for x in per_unit) / (len(per_unit) - 1))
    assert math.isclose(edge, mean)
    assert math.isclose(half, 1.959963984540054 * sd / math.sqrt(len(per_unit)))


def test_play_refuses_a_table_the_preset_cannot_seat() -> None:
    with pytest.raises(ValueError, match="home36 seats 2 to 4"):
        play(PRESETS["home36"], 10, players=5)


def test_cli_prints_every_preset(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--variant", "all", "--rounds", "50", "--seed", "3", "--players", "3"]) == 0
    out = capsys.readouterr().out
    for name in PRESETS:
        assert name in out
    assert "seed 3" in out and "banker edge" in out and "95% CI" in out


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--variant", "poker"], "unknown variant 'poker'"),
        (["--rounds", "0"], "--rounds: must be at least 1"),
        (["--rounds", "many"], "expected a whole number"),
        (["--players", "1"], "--players 1: classic36 seats 2 to 8"),
        (["--variant", "all", "--players", "5"], "home36 seats 2 to 4"),
        (["--strategy", "psychic"], "unknown strategy 'psychic'"),
        (["--seed", "x"], "--seed: expected a whole number"),
    ],
)
def test_cli_argument_errors(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(args)
    assert exit_info.value.code != 0
    assert message in capsys.readouterr().err


def test_module_runs_and_fails_cleanly() -> None:
    good = subprocess.run(
        [sys.executable, "-m", "rules.simulate", "--rounds", "20", "--seed", "1"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert good.returncode == 0, good.stderr
    assert "classic36" in good.stdout
    bad = subprocess.run(
        [sys.executable, "-m", "rules.simulate", "--variant", "nope"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert bad.returncode != 0
    assert "unknown variant 'nope'" in bad.stderr
    assert "Traceback" not in bad.stderr
