"""Anytime-valid confidence sequences and the labelling session (judgestats.sequential)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from judgestats import JudgeData
from judgestats._labels import binary_labels
from judgestats.sequential import LabellingSession, betting_confidence_sequence
from judgestats.sequential.confidence_sequence import BET_CAP, plug_in_bets, running_bounds
from judgestats.sequential.targets import control_coefficients, target_steps


def _capital(z, mu, alpha_side, sign):
    """K_t(mu) of one gambler by a plain loop over the equations (with replacement)."""
    wealth, total, squares, path = 1.0, 0.0, 0.0, []
    for t, value in enumerate(z, start=1):
        var = (0.25 + squares) / t  # sigma-hat^2_{t-1}
        bet = math.sqrt(2 * math.log(1 / alpha_side) / (var * t * math.log(1 + t)))
        cap = BET_CAP / mu if sign > 0 else BET_CAP / (1 - mu)
        wealth *= 1 + sign * min(bet, cap) * (value - mu)
        path.append(wealth)
        total += value
        squares += (value - (0.5 + total) / (t + 1)) ** 2
    return np.array(path)


def test_bets_follow_the_plug_in_formula():
    z = np.array([0.0, 1.0, 0.5, 0.5])
    # t = 1: sigma^2_0 = 1/4; t = 2: mu_1 = 1/4, sigma^2_1 = (1/4 + 1/16)/2
    expected_1 = math.sqrt(2 * math.log(20) / (0.25 * 1 * math.log(2)))
    expected_2 = math.sqrt(2 * math.log(20) / ((0.25 + 0.0625) / 2 * 2 * math.log(3)))
    bets = plug_in_bets(z, 0.05)
    assert bets[0] == pytest.approx(expected_1)
    assert bets[1] == pytest.approx(expected_2)


def test_ends_are_the_grid_points_the_capital_rejects():
    rng = np.random.default_rng(3)
    z = (rng.random(60) < 0.3).astype(float)
    grid = np.linspace(0.0, 1.0, 101)
    low, high = running_bounds(z[None, :], grid, alpha=0.1)
    threshold = 2 / 0.1
    up = {g: _capital(z, g, 0.05, +1).max() >= threshold for g in grid[1:-1]}
    down = {g: _capital(z, g, 0.05, -1).max() >= threshold for g in grid[1:-1]}
    assert low[0, -1] == pytest.approx(max(g for g, r in up.items() if r))
    assert high[0, -1] == pytest.approx(min(g for g, r in down.items() if r))
    assert all(r for g, r in up.items() if g <= low[0, -1])  # a half-line: monotone capital


def test_sequence_is_nested_and_shrinks_around_the_mean():
    low, high = betting_confidence_sequence(np.full(400, 0.5))
    assert np.all(np.diff(low) >= 0) and np.all(np.diff(high) <= 0)
    assert low[-1] < 0.5 < high[-1] and high[-1] - low[-1] < 0.1


def test_without_replacement_exhaustive_coverage():
    """P(the sequence ever misses) <= alpha, over every order of a population of 7 (exact)."""
    population = np.array([0.0, 0.0, 0.5, 1.0, 1.0, 1.0, 0.5])
    size, alpha = population.size, 0.5
    orders = np.array(list(itertools.permutations(range(size))))
    grid = np.arange(2 * size + 1) / (2 * size)  # the population mean is a multiple of 1/(2N)
    low, high = running_bounds(
        population[orders], grid, alpha=alpha, population_size=size, exact_grid=True
    )
    mean = population.mean()
    missed = np.any((low > mean + 1e-12) | (high < mean - 1e-12), axis=1)
    assert missed.mean() <= alpha
    assert np.all(low[:, -1] == pytest.approx(mean)) and np.all(high[:, -1] == pytest.approx(mean))


@pytest.mark.parametrize(
    ("truth", "verdicts", "alpha"),
    [
        ([1, 1, 1, 0, 0, 1, 1], [1, 1, 0, 0, 1, 1, 1], 0.5),
        ([1, 0, 1, 0, 1, 1, 1], [1, 1, 1, 0, 0, 0, 1], 0.3),
        ([1, 1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 0, 1], 0.6),
    ],
)
def test_items_target_exhaustive_coverage(truth, verdicts, alpha):
    """Over all 5,040 drawing orders of 7 items: P(ever missing the share) <= alpha, exact end."""
    y, f = np.array(truth, float), np.array(verdicts, float)
    orders = np.array(list(itertools.permutations(range(y.size))))
    share = y.mean()
    missed = np.zeros(len(orders), dtype=bool)
    steps = target_steps(
        np.full(len(orders), f.sum()), y.size, y[orders], f[orders], target="items", alpha=alpha
    )
    for _, low, high in steps:
        missed |= (low > share + 1e-12) | (high < share - 1e-12)
    assert missed.mean() <= alpha
    assert np.allclose(low, share) and np.allclose(high, share)  # all labelled: known


def test_population_target_covers_in_simulation():
    """Seeded check: theta missed at any of 300 times in at most 5% (+ 3 SE) of 300 sequences."""
    rng = np.random.default_rng(11)
    reps, n, size, theta = 300, 300, 5000, 0.7
    truth = (rng.random((reps, n)) < theta).astype(float)
    judged = np.where(truth == 1, rng.random(truth.shape) < 0.9, rng.random(truth.shape) < 0.2)
    p = theta * 0.9 + (1 - theta) * 0.2
    total = judged.sum(axis=1) + rng.binomial(size - n, p, size=reps)
    missed = np.zeros(reps, dtype=bool)
    steps = target_steps(total, size, truth, judged.astype(float), target="population", alpha=0.05)
    for _, low, high in steps:
        missed |= (low > theta) | (high < theta)
    assert missed.mean() <= 0.05 + 3 * math.sqrt(0.05 * 0.95 / reps)


def test_control_coefficient_is_predictable_and_shrunk_to_one():
    truth = np.array([[1.0, 0.0, 0.0, 1.0]])
    judged = np.array([[1.0, 0.0, 1.0, 1.0]])
    lam = control_coefficients(truth, judged)
    # t = 4 sees 3 labels: C = sum(yf) - sum(y) sum(f) / 3 = 1 - 2/3; f~ = (1 + 2) / (3 + 2),
    # v = f~ (1 - f~); lambda = (C + 5 v) / ((3 + 5) v)
    v = 0.6 * 0.4
    assert lam[0, 3] == pytest.approx((1 / 3 + 5 * v) / (8 * v))
    assert lam[0, 0] == 1.0  # no label yet: the prior alone
    later = truth.copy()
    later[0, 3] = 0.0  # the label at t = 4 does not enter lambda_4
    assert control_coefficients(later, judged)[0, 3] == lam[0, 3]


def _session(size=300, seed=1, accuracy=0.7):
    rng = np.random.default_rng(seed)
    truth = (rng.random(size) < accuracy).astype(int)
    verdicts = np.where(truth == 1, rng.random(size) < 0.9, rng.random(size) >= 0.8).astype(int)
    ids = [f"q{i}" for i in range(size)]
    return LabellingSession(ids, verdicts, random_seed=seed), dict(zip(ids, truth, strict=True))


def test_every_item_labelled_gives_the_known_share():
    session, truth = _session(size=80)
    session.add_labels(list(truth), list(truth.values()))
    result = session.interval(target="items")
    share = sum(truth.values()) / 80
    assert result.low == pytest.approx(share) and result.high == pytest.approx(share)
    assert result.width == pytest.approx(0.0)


def test_batches_are_new_distinct_items_and_the_path_narrows():
    session, truth = _session()
    seen: set[str] = set()
    for _ in range(4):
        batch = session.next_batch(25)
        assert len(set(batch)) == 25 and not seen & set(batch)
        seen |= set(batch)
        session.add_labels(batch, [truth[i] for i in batch])
    path = session.path()
    assert list(path["labelled"]) == [25, 50, 75, 100]
    assert np.all(np.diff(path["width"]) <= 1e-12)
    assert session.interval().width == pytest.approx(path["width"].iloc[-1])
    assert session.reached(path["width"].iloc[-1]) and not session.reached(0.01)
    population = session.interval(target="population")
    assert 0 <= population.low <= population.estimate <= population.high <= 1


def test_a_batch_is_a_uniform_sample_of_the_unlabelled():
    """Each of 10 items is first with frequency 1/10 over seeds (chi-square-free check)."""
    counts = np.zeros(10)
    for seed in range(2000):
        session = LabellingSession(list("abcdefghij"), [1] * 10, random_seed=seed)
        counts["abcdefghij".index(session.next_batch(1)[0])] += 1
    assert np.all(np.abs(counts / 2000 - 0.1) < 0.03)


def test_same_seed_same_order_and_labels_repeat_harmlessly():
    first, truth = _session(seed=4)
    second = LabellingSession(first.ids, [0] * first.n_items, random_seed=4)
    assert first.next_batch(10) == second.next_batch(10)
    batch = first.next_batch(5)
    first.add_labels(batch, [truth[i] for i in batch])
    first.add_labels(batch, [truth[i] for i in batch])  # the same labels again: no new batch
    assert first.n_labelled == 5 and len(first.path()) == 1


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda s: s.next_batch(0), ValueError, "`size`"),
        (lambda s: s.add_labels(["nope"], [1]), ValueError, "`ids`.*not among"),
        (lambda s: s.add_labels(["q0"], [2]), ValueError, "`labels`.*only 0/1 labels.*item 0 is 2"),
        (lambda s: s.add_labels(["q0", "q0"], [1, 1]), ValueError, "repeat"),
        (lambda s: s.add_labels(["q0"], [1, 0]), ValueError, "one label per id"),
        (lambda s: s.add_labels("q0", [1]), TypeError, "`ids`"),
        (lambda s: s.add_labels(["q0"], ["yes"]), ValueError, "`labels`.*item 0 is 'yes'"),
        (lambda s: s.interval(target="both"), ValueError, "`target`"),
        (lambda s: s.interval(confidence_level=1.5), ValueError, "confidence_level"),
        (lambda s: s.reached(0), ValueError, "`width`"),
    ],
)
def test_bad_input_names_the_argument(call, error, match):
    session, _ = _session(size=20)
    with pytest.raises(error, match=match):
        call(session)


def test_a_label_that_contradicts_an_earlier_one():
    session, _ = _session(size=20)
    session.add_labels(["q3"], [1])
    with pytest.raises(ValueError, match="`labels`: id 'q3' is labelled 0 here but 1 before"):
        session.add_labels(["q3"], [0])


def test_constructor_errors():
    with pytest.raises(ValueError, match="`ids` must be unique; 'a'"):
        LabellingSession(["a", "b", "a"], [1, 0, 1])
    with pytest.raises(ValueError, match="`verdicts`"):
        LabellingSession(["a", "b"], [1])
    with pytest.raises(ValueError, match="`ids` must hold at least one"):
        LabellingSession([], [])
    with pytest.raises(ValueError, match="every one of the 1 items"):
        LabellingSession(["a"], [1], labels={"a": 1}).next_batch(1)
    with pytest.raises(ValueError, match="`values`"):
        betting_confidence_sequence([0.2, 1.5])
    with pytest.raises(ValueError, match="`population_size`"):
        betting_confidence_sequence([0.2, 0.5], population_size=1)


def test_a_coarse_grid_only_widens(monkeypatch):
    """Without the exact grid k / N the ends are rounded outward: the interval contains it."""
    import judgestats.sequential.targets as targets

    session, truth = _session(size=1000, seed=8)
    for _ in range(3):
        batch = session.next_batch(40)
        session.add_labels(batch, [truth[i] for i in batch])
    exact = session.interval()
    monkeypatch.setattr(targets, "EXACT_GRID_LIMIT", 10)  # the 2,001-point grid instead
    coarse = session.interval()
    assert coarse.low <= exact.low and exact.high <= coarse.high
    assert coarse.width - exact.width <= 2 * 0.0005 + 2 / 1000  # a grid step and a share each side


def _out_of_order_session(seed):
    """A batch labelled in two parts: its second half first, its first half with the next batch."""
    session, truth = _session(size=300, seed=seed)
    batch = session.next_batch(40)
    late, early = batch[:20], batch[20:]
    session.add_labels(early, [truth[i] for i in early])
    following = session.next_batch(60)
    assert set(late) <= set(following)  # the skipped items come back first
    session.add_labels(following, [truth[i] for i in following])
    return session, early, following


@pytest.mark.parametrize("seed", range(8))
def test_labels_are_taken_in_the_order_they_arrived(seed):
    """The interval after each batch is the confidence sequence of one arrival sequence.

    Taken in the session's ranking instead, the labels given later (the skipped half of the
    first batch) were put before those already used, so the interval shown after the second
    batch did not continue the sequence shown after the first: the path by label disagreed with
    the path by batch, its ``batch`` column went backwards, and the looks did not nest.
    """
    session, early, following = _out_of_order_session(seed)
    by_batch = session.path()
    by_label = session.path(by="label")
    assert list(session.labels) == early + following
    assert list(by_label["batch"]) == [1] * 20 + [2] * 60
    ends = by_label.iloc[[19, 79]].reset_index(drop=True)
    for column in ("estimate", "low", "high"):
        np.testing.assert_allclose(ends[column], by_batch[column], rtol=0, atol=1e-12)
    assert by_batch["low"].is_monotonic_increasing
    assert by_batch["high"].is_monotonic_decreasing
    now = session.interval()
    assert (now.low, now.high) == (by_batch["low"].iloc[-1], by_batch["high"].iloc[-1])


def test_the_interval_shown_after_each_batch_never_widens_when_labels_come_out_of_turn():
    """Half a batch labelled with the next one: the second look nests inside the first.

    With the labels ranked (seed 297 of this set-up), the second look was (0.42, 0.71) after a
    first look of (0.49, 0.97): the looks were not one confidence sequence.
    """
    session, truth = _session(size=100, seed=297)
    batch = session.next_batch(30)
    session.add_labels(batch[15:], [truth[i] for i in batch[15:]])
    first = session.interval()
    following = session.next_batch(15)
    assert set(following) == set(batch[:15])
    session.add_labels(following, [truth[i] for i in following])
    second = session.interval()
    assert first.low <= second.low and second.high <= first.high


@pytest.mark.parametrize("container", [set, frozenset, dict.fromkeys])
def test_unordered_ids_are_refused(container):
    """A set of ids was paired with the labels in its hash order: labels on the wrong items."""
    session, _ = _session(size=20)
    with pytest.raises(TypeError, match=r"`ids` must be an ordered sequence of ids.*paired"):
        session.add_labels(container(["q0", "q1"]), [1, 0])
    assert session.n_labelled == 0
    with pytest.raises(TypeError, match=r"`ids` must be an ordered sequence"):
        LabellingSession(container(["a", "b"]), [1, 0])


@pytest.mark.parametrize(
    ("make", "name"),
    [
        # 2-D verdicts: the message spoke of 4 values for 4 ids.
        (lambda: LabellingSession(list("abcd"), [[1, 0], [1, 1]]), "verdicts"),
        (lambda: LabellingSession(["a", "b"], [[1], [0, 1]]), "verdicts"),
        # 2-D ids were turned into text row by row ("['a' 'b']").
        (lambda: LabellingSession(np.array([["a", "b"], ["c", "d"]]), [1, 0]), "ids"),
        (lambda: LabellingSession([["a"], "b"], [1, 0]), "ids"),
        # [[1]] was flattened and accepted as the label of "a".
        (lambda: LabellingSession(["a", "b"], [1, 0]).add_labels(["a"], [[1]]), "labels"),
        (lambda: LabellingSession(["a", "b"], [1, 0]).add_labels(np.array([["a"]]), [1]), "ids"),
    ],
)
def test_arguments_that_are_not_one_dimensional_are_refused(make, name):
    with pytest.raises(ValueError, match=rf"`{name}` must be one-dimensional"):
        make()


def test_one_dimensional_arrays_and_iterators_of_ids_still_work():
    session = LabellingSession(np.array(["a", "b"]), np.array([True, False]), random_seed=1)
    assert session.ids == ["a", "b"]
    assert LabellingSession(iter(["a", "b"]), [1, 0]).ids == ["a", "b"]
    session.add_labels(np.array(["b"]), np.array([0]))
    assert session.labels == {"b": 0}


_LABEL_INPUTS = [
    pytest.param([1, 0], id="ints"),
    pytest.param(np.array([True, False]), id="bools"),
    pytest.param(pd.Series([1, 0], dtype="Int64"), id="nullable"),
    # An object column (labels gathered from mixed cells) was refused with a dtype message.
    pytest.param(np.array([True, 0], dtype=object), id="object"),
    # The mask of a masked array was dropped and the masked values taken as labels.
    pytest.param(np.ma.array([1, 0], mask=[False, True]), id="masked"),
    # Words had the session's own TypeError, not the package's message naming the item.
    pytest.param(["true", "false"], id="words"),
    pytest.param(["yes", "no"], id="yes-no"),
    pytest.param([1, None], id="none"),
    pytest.param([1, 2], id="two"),
    pytest.param([[1], [0, 1]], id="ragged"),
]


def _outcome(call):
    try:
        return ("accepted", call())
    except (TypeError, ValueError) as error:
        return (type(error).__name__, str(error))


def _shared(labels, name):
    return _outcome(lambda: binary_labels(labels, name).tolist())


@pytest.mark.parametrize("labels", _LABEL_INPUTS)
def test_session_labels_are_read_as_the_rest_of_the_package_reads_them(labels):
    """`add_labels` accepts what binary_labels accepts, and refuses the rest with its message."""
    session = LabellingSession(["a", "b"], [1, 0], random_seed=0)

    def add():
        session.add_labels(["a", "b"], labels)
        return [session.labels[i] for i in ("a", "b")]

    got = _outcome(add)
    assert got == _shared(labels, "labels")
    # JudgeData.from_labels (the package's public reader of label arrays) agrees.
    public = _outcome(lambda: JudgeData.from_labels([1, 0], labels, [1, 0]))
    assert (public[0] == "accepted") == (got[0] == "accepted")


@pytest.mark.parametrize("verdicts", _LABEL_INPUTS)
def test_session_verdicts_are_read_by_the_shared_rule(verdicts):
    got = _outcome(lambda: LabellingSession(["a", "b"], verdicts, random_seed=0)._verdicts.tolist())
    assert got == _shared(verdicts, "verdicts")


def test_ragged_labels_are_refused_naming_the_argument_everywhere():
    # binary_labels let numpy's bare "inhomogeneous shape" ValueError escape, naming no argument.
    with pytest.raises(ValueError, match="`calib_human` must be one-dimensional, got a nested"):
        JudgeData.from_labels([1, 0], [[1], [0, 1]], [1, 0])
