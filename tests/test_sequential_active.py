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
    CAP_RANGE,
    VARIANCE_RANGE,
    active_interval,
    bet_caps,
    draw_order,
    ipw_increments,
    selection_probabilities,
)
from judgestats.sequential.confidence_sequence import wealth_factors

ROOT = Path(__file__).resolve().parents[1]
SCORED = ROOT / "tests" / "fixtures" / "sequential" / "scored_items.csv"
SCORES = np.array([0.9, 0.5, 0.1, 0.02, 0.7, 0.35])
TRUTH = np.array([1, 0, 0, 0, 1, 1])


def test_probabilities_by_hand():
    # sqrt(s(1 - s)) / 0.5 = 1, 0.6, 0 at s = 0.5, 0.1, 0; pi = 0.6 + 0.4 * that
    probs = selection_probabilities(np.array([0.5, 0.1, 0.0]), 0.6)
    np.testing.assert_allclose(probs, [1.0, 0.84, 0.6])
    np.testing.assert_allclose(selection_probabilities(np.array([0.0, 1.0]), 0.3), [0.3, 0.3])


def test_increments_and_ranges_by_hand():
    # scores .9 .5 .1 -> weights .84 1 .84 (floor .6); order (1, 0, 2), labels 0 1 0; s-bar = .5
    scores, weights = np.array([[0.9, 0.5, 0.1]]), np.array([[0.84, 1.0, 0.84]])
    phi, low, high = ipw_increments(scores, weights, np.array([[1, 0, 2]]), np.array([[0, 1, 0]]))
    # t=1: W = 2.68, .5 + 2.68 * (0 - .5) / 1 / 3; t=2: K = -.5, W = 1.68, residual .1 / .84;
    # t=3: K = -.4, the last residual -.1 at weight W / w = 1: phi = S = 1/3 exactly
    np.testing.assert_allclose(phi[0], [0.5 - 2.68 * 0.5 / 3, 0.5 + (-0.5 + 0.2) / 3, 1 / 3])
    # t=1: max s/w = .9/.84 over all three; max (1 - s)/w = .9/.84 (item 2)
    np.testing.assert_allclose(
        [low[0, 0], high[0, 0]], [0.5 - 0.9 / 0.84 * 2.68 / 3, 0.5 + 0.9 / 0.84 * 2.68 / 3]
    )
    # t=3: only item 2 is left: [K - s, K + 1 - s] / 3 + .5 = [sum of earlier labels, + 1] / 3
    np.testing.assert_allclose([low[0, 2], high[0, 2]], [1 / 3, 2 / 3])


def _orders(weights):
    """Every order of the items with its successive-sampling probability (by hand)."""
    for order in itertools.permutations(range(weights.size)):
        prob, left = 1.0, weights.sum()
        for item in order:
            prob, left = prob * weights[item] / left, left - weights[item]
        yield np.array(order), prob


def test_increment_mean_is_the_share_given_any_past():
    # E[phi_t | first t - 1 items] = S for every prefix, and phi_t in its range, any floor
    for floor in (0.1, 0.6, 1.0):
        weights = selection_probabilities(SCORES, floor)
        orders = list(_orders(weights))
        assert sum(prob for _, prob in orders) == pytest.approx(1.0)
        for t in range(1, 7):
            mean_by_prefix: dict[tuple[int, ...], list[float]] = {}
            for order, prob in orders:
                phi, low, high = ipw_increments(
                    SCORES[None], weights[None], order[None], TRUTH[order][None]
                )
                assert np.all(low <= phi + 1e-12) and np.all(phi <= high + 1e-12)
                assert low[0, t - 1] <= TRUTH[order[: t - 1]].sum() / 6 + 1e-12  # module docstring
                total = mean_by_prefix.setdefault(tuple(order[: t - 1]), [0.0, 0.0])
                total[0] += prob * phi[0, t - 1]
                total[1] += prob
            for weighted, mass in mean_by_prefix.values():
                assert weighted / mass == pytest.approx(TRUTH.mean())


def test_order_draws_at_the_successive_sampling_probabilities():
    weights = np.array([1.0, 0.5, 0.25])
    orders = draw_order(np.broadcast_to(weights, (40_000, 3)), np.random.default_rng(2))
    for order, prob in _orders(weights):
        share = np.mean(np.all(orders == order, axis=1))
        assert share == pytest.approx(prob, abs=0.01)  # SE <= 0.0025


def test_coverage_at_every_time_with_confidently_wrong_scores():
    # 300 items, a strong judge that is confidently wrong on 15 of them; 400 seeded orders:
    # the share must lie in the interval at every time at once in >= 95% (SE about 0.011)
    rng = np.random.default_rng(11)
    scores = rng.beta(0.35, 0.15, 300)
    truth = (rng.random(300) < scores).astype(float)
    truth[:15], scores[:15] = 0.0, 0.99
    value = truth.mean()
    weights = np.broadcast_to(selection_probabilities(scores, 0.6), (400, 300))
    order = draw_order(weights, rng)
    many = np.broadcast_to(scores, (400, 300))
    phi, low, high = ipw_increments(many, weights, order, truth[order])
    missed = np.zeros(400, dtype=bool)
    for _, lo, hi in active_interval(phi, (low, high), 300, alpha=0.05):
        missed |= (lo > value + 1e-12) | (hi < value - 1e-12)
    assert missed.mean() <= 0.05
    assert np.median(hi - lo) < 0.2  # and it does narrow


def test_bet_cap_truncates_both_gamblers():
    # m = .5, bet 10: both bets cut to c / .5 = 2c, so the factors are 1 +- c
    cap = np.array([[0.9], [0.5]])
    up, down = wealth_factors(np.ones((2, 1)), np.full((2, 1), 10.0), np.full((2, 1), 0.5), cap)
    np.testing.assert_allclose(up[:, 0], [1.9, 1.5])
    np.testing.assert_allclose(down[:, 0], [0.1, 0.5])


def test_bet_caps_follow_the_running_variance():
    # z = 1/2 throughout: the running mean stays 1/2 and the variance before time t is
    # (1/4) / t; the cap is c0 until it falls to v1, c1 from v0 on, linear in between
    assert CAP_RANGE == (0.5, 0.9) and VARIANCE_RANGE == (0.02, 0.05)
    caps = bet_caps(np.full((1, 20), 0.5))[0]
    t = np.arange(1, 21)
    expected = 0.5 + 0.4 * np.clip((0.05 - 0.25 / t) / 0.03, 0.0, 1.0)
    np.testing.assert_allclose(caps, expected)
    assert caps[4] == 0.5 and caps[12] == pytest.approx(0.9)  # 1/20 and 1/52 <= 0.02
    # alternating 0 / 1 keeps the variance near 1/4: the uniform design's cap throughout
    np.testing.assert_allclose(bet_caps(np.tile([0.0, 1.0], (1, 20))), 0.5)


def test_variance_driven_cap_narrows_steady_increments():
    # the same steady increments: the schedule's interval is no wider than a fixed cap of 1/2
    rng = np.random.default_rng(3)
    scores = np.broadcast_to(rng.beta(0.05, 0.45, 400), (50, 400))
    truth = (rng.random((50, 400)) < scores).astype(float)
    weights = selection_probabilities(scores, 0.6)
    order = draw_order(weights, rng)
    phi, low, high = ipw_increments(scores, weights, order, np.take_along_axis(truth, order, 1))
    ((_, lo_s, hi_s),) = active_interval(phi, (low, high), 400, alpha=0.05, at=[100])
    ((_, lo_h, hi_h),) = active_interval(phi, (low, high), 400, alpha=0.05, at=[100], cap=0.5)
    assert np.median(hi_s - lo_s) < np.median(hi_h - lo_h)


def _expected_uncertain_share(heavy, light, weight, picks):
    """Expected share of weight-1 items among the first picks of successive sampling (DP)."""
    probs = {0: 1.0}  # heavy items drawn so far -> probability
    for k in range(picks):
        step: dict[int, float] = {}
        for h, p in probs.items():
            left_heavy, left_light = heavy - h, light - (k - h)
            p_heavy = left_heavy / (left_heavy + weight * left_light)
            step[h + 1] = step.get(h + 1, 0.0) + p * p_heavy
            step[h] = step.get(h, 0.0) + p * (1 - p_heavy)
        probs = step
    return sum(h * p for h, p in probs.items()) / picks


def test_session_labels_uncertain_items_more_and_ends_exact():
    scores = np.r_[np.full(50, 0.5), np.full(50, 0.01)]
    ids = [f"x{i}" for i in range(100)]
    verdicts = (scores >= 0.5).astype(int)
    first = []
    for seed in range(40):
        session = LabellingSession(ids, verdicts, scores=scores, random_seed=seed)
        first += session.next_batch(10)
    uncertain = np.mean([int(item[1:]) < 50 for item in first])
    # weights 1 vs 0.6 + 0.4 * sqrt(0.0099) / 0.5 = 0.680, first 10 of 50 + 50 drawn in turn
    assert uncertain == pytest.approx(_expected_uncertain_share(50, 50, 0.68, 10), abs=0.05)
    truth = np.r_[np.ones(50, dtype=int), np.zeros(50, dtype=int)]
    session = LabellingSession(ids, verdicts, scores=scores, random_seed=3)
    while session.n_labelled < 100:
        batch = session.next_batch(30)
        session.add_labels(batch, [truth[int(item[1:])] for item in batch])
    result = session.interval()
    assert result.low == result.high == 0.5
    assert list(session.path()["labelled"]) == [30, 60, 90, 100]


def test_labels_outside_the_order_only_settle_what_they_settle():
    # a label for an item that is not next in the order: the sequence has no prefix yet, so
    # the interval is what the label settles, [y / N, (y + N - 1) / N]
    ids = ["a", "b", "c", "d"]
    session = LabellingSession(ids, [1, 1, 0, 0], scores=[0.9, 0.6, 0.4, 0.1], random_seed=4)
    planned = session.next_batch(4)
    session.add_labels([planned[-1]], [1])
    result = session.interval()
    assert (result.low, result.high) == (0.25, 1.0)
    assert session.next_batch(1) == [planned[0]]


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
