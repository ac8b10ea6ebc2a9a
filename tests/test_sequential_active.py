"""Active selection by judge scores: the IPW increments, their coverage, errors, the CLI."""

from __future__ import annotations

import csv
import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from judgestats import LabellingSession
from judgestats.cli import main
from judgestats.sequential.active import (
    ActiveDraws,
    active_interval,
    ipw_range,
    ipw_values,
    selection_probabilities,
)

ROOT = Path(__file__).resolve().parents[1]
SCORED = ROOT / "tests" / "fixtures" / "sequential" / "scored_items.csv"
SCORES = np.array([0.9, 0.5, 0.1, 0.02, 0.7, 0.35])
TRUTH = np.array([1, 0, 0, 0, 1, 1])


def test_probabilities_by_hand():
    # sqrt(s(1 - s)) / 0.5 = 1, 0.6, 0 at s = 0.5, 0.1, 0; pi = 0.6 + 0.4 * that
    probs = selection_probabilities(np.array([0.5, 0.1, 0.0]), 0.6)
    np.testing.assert_allclose(probs, [1.0, 0.84, 0.6])
    np.testing.assert_allclose(selection_probabilities(np.array([0.0, 1.0]), 0.3), [0.3, 0.3])


def test_increment_mean_is_the_share_exactly():
    # enumerate every (item, selected) outcome of one draw: E[phi] = mean(Y), whatever the floor
    for floor in (0.1, 0.6, 1.0):
        probs = selection_probabilities(SCORES, floor)
        mean = 0.0
        for i, chosen in itertools.product(range(6), (0, 1)):
            weight = probs[i] if chosen else 1.0 - probs[i]
            phi = SCORES.mean() + chosen * (TRUTH[i] - SCORES[i]) / probs[i]
            value = ipw_values(np.array(SCORES.mean()), SCORES[i], probs[i], bool(chosen), TRUTH[i])
            assert float(np.ravel(value)[0]) == pytest.approx(phi)
            low, high = ipw_range(SCORES, probs)
            assert low - 1e-12 <= phi <= high + 1e-12
            assert high - low <= 2.0 / floor + 1e-12  # the range bound of the docstring
            mean += weight * phi / 6
        assert mean == pytest.approx(TRUTH.mean())


def test_coverage_on_a_tiny_population_at_every_time():
    # 2000 seeded labellings of the 6 items, 300 draws each: the share 3/6 must lie in the
    # interval at every time at once in >= 95% of them (Monte Carlo SE about 0.005)
    reps, draws = 2000, 300
    rng = np.random.default_rng(5)
    probs = selection_probabilities(SCORES, 0.3)
    items = rng.integers(0, 6, size=(reps, draws))
    selected = rng.random(items.shape) < probs[items]
    phi = ipw_values(
        np.full(reps, SCORES.mean()), SCORES[items], probs[items], selected, TRUTH[items]
    )
    bounds = tuple(np.full(reps, v) for v in ipw_range(SCORES, probs))
    missed = np.zeros(reps, dtype=bool)
    for _, low, high in active_interval(phi, bounds, 6, alpha=0.05):
        missed |= (low > 0.5) | (high < 0.5)
    assert missed.mean() <= 0.05
    assert high.mean() - low.mean() < 1.0  # and it does narrow


def test_draws_select_at_their_probabilities():
    probs = np.array([1.0, 0.25])
    draws = ActiveDraws(probs, np.random.default_rng(1))
    draws.stop(np.zeros(2, dtype=bool))
    picked = draws.items[draws.selected]
    share = np.mean(picked == 1)  # expected 0.25 / 1.25 = 0.2 of the selections
    assert share == pytest.approx(0.2, abs=0.03)


def test_session_labels_uncertain_items_more_and_ends_exact():
    scores = np.r_[np.full(50, 0.5), np.full(50, 0.01)]
    ids = [f"x{i}" for i in range(100)]
    verdicts = (scores >= 0.5).astype(int)
    first = []
    for seed in range(40):
        session = LabellingSession(ids, verdicts, scores=scores, random_seed=seed)
        first += session.next_batch(10)
    uncertain = np.mean([int(item[1:]) < 50 for item in first])
    # pi = 1 vs 0.6 + 0.4 * sqrt(0.0099) / 0.5 = 0.680: 1 / 1.680 = 0.595 of the picks
    assert uncertain == pytest.approx(0.595, abs=0.05)
    truth = np.r_[np.ones(50, dtype=int), np.zeros(50, dtype=int)]
    session = LabellingSession(ids, verdicts, scores=scores, random_seed=3)
    while session.n_labelled < 100:
        batch = session.next_batch(30)
        session.add_labels(batch, [truth[int(item[1:])] for item in batch])
    result = session.interval()
    assert result.low == result.high == 0.5
    assert list(session.path()["labelled"]) == [30, 60, 90, 100]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"scores": [0.2, 1.5, 0.3]}, ValueError, "`scores` must lie in [0, 1]"),
        ({"scores": [0.2, float("nan"), 0.3]}, ValueError, "missing"),
        ({"scores": [0.2, 0.3]}, ValueError, "one score per id"),
        ({"scores": ["a", "b", "c"]}, TypeError, "`scores`"),
        ({"scores": [0.2, 0.3, 0.4], "min_probability": 0.0}, ValueError, "`min_probability`"),
    ],
)
def test_bad_scores(kwargs, error, message):
    with pytest.raises(error, match=message.replace("[", r"\[").replace("]", r"\]")):
        LabellingSession(["a", "b", "c"], [1, 0, 1], random_seed=1, **kwargs)


def test_population_target_is_refused_with_scores():
    session = LabellingSession(["a", "b"], [1, 0], scores=[0.9, 0.2], random_seed=1)
    with pytest.raises(ValueError, match="target='items'"):
        session.interval(target="population")


def _truth() -> dict[str, int]:
    with SCORED.open() as handle:
        return {row["id"]: int(row["truth"]) for row in csv.DictReader(handle)}


BASE = ["next", "--items", str(SCORED), "--judge-column", "verdict", "--positive", "C"]


def test_cli_three_active_batches(tmp_path, capsys):
    truth, labels = _truth(), tmp_path / "labels.csv"
    argv = [*BASE, "--score-column", "score", "--batch", "20", "--width", "0.05", "--json"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    given: dict[str, int] = {}
    widths = []
    for number in range(1, 4):
        batch = json.loads(out)["next"]
        assert len(batch) == 20 and not set(batch) & set(given)
        given.update({item: truth[item] for item in batch})
        with labels.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["id", "human"])
            writer.writerows((item, "CI"[1 - label]) for item, label in given.items())
        assert main([*argv, "--human", str(labels)]) == 0
        out = capsys.readouterr().out
        interval = json.loads(out)["interval"]
        assert interval["n_labelled"] == 20 * number
        known = sum(given.values())
        assert (
            known / 200 <= interval["low"] <= interval["high"] <= (known + 200 - 20 * number) / 200
        )
        widths.append(interval["width"])
    assert widths[0] >= widths[1] >= widths[2]
    assert interval["low"] <= 146 / 200 <= interval["high"]


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--score-column", "nope"], "--score-column nope: `score_column`: 'nope' is not a column"),
        (["--score-column", "truth", "--target", "population"], "--target items only"),
    ],
)
def test_cli_score_errors(extra, message, capsys):
    assert main([*BASE, *extra]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_cli_score_outside_unit_interval(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("id,verdict,score\na,C,0.9\nb,I,1.2\n")
    argv = ["next", "--items", str(bad), "--judge-column", "verdict", "--positive", "C"]
    assert main([*argv, "--score-column", "score"]) == 2
    assert "`scores` must lie in [0, 1]; got 1.2" in capsys.readouterr().err
