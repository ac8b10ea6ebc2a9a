"""The stratified design made sequential: allocation, the Rogan-Gladen box, validity at stopping."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.stats import beta

from judgestats.planning.algorithm1 import smoothed_pilot
from judgestats.sequential import StratifiedLabellingSession, betting_confidence_sequence
from judgestats.sequential.stratified import arm_bounds, next_arm, rogan_gladen_box
from judgestats.sequential.targets import verdict_interval


def _g(p, q0, q1):
    return (p + q0 - 1) / (q0 + q1 - 1)


def test_box_by_hand():
    # p in [0.4, 0.5], q0 in [0.8, 0.9], q1 in [0.7, 0.8]. g rises in p; at p = 0.4 and q1 = 0.8
    # (g falls in q1 where p + q0 > 1), dg/dq0 = (q1 - p)/J^2 > 0, so the minimum is
    # g(0.4, 0.8, 0.8) = 0.2 / 0.6; the maximum g(0.5, 0.9, 0.7) = 0.4 / 0.6.
    low, high = rogan_gladen_box((0.4, 0.5), (0.8, 0.9), (0.7, 0.8))
    assert low == pytest.approx(1 / 3) and high == pytest.approx(2 / 3)
    # q0- + q1- <= 1: the judge may be no better than chance, nothing is ruled out
    assert rogan_gladen_box((0.4, 0.5), (0.5, 0.9), (0.5, 0.8)) == (0.0, 1.0)
    # clipped to [0, 1]: g(0.01, 0.9, 0.9) < 0
    low, high = rogan_gladen_box((0.01, 0.05), (0.9, 0.95), (0.9, 0.95))
    assert low == 0.0 and high == pytest.approx(_g(0.05, 0.95, 0.9))


@pytest.mark.parametrize("seed", range(20))
def test_box_holds_every_point_of_the_box(seed):
    rng = np.random.default_rng(seed)
    ends = [np.sort(rng.uniform(lo, 1.0, 2)) for lo in (0.0, 0.55, 0.55)]
    low, high = rogan_gladen_box(*ends)
    grid = [np.linspace(a, b, 9) for a, b in ends]
    values = np.clip([_g(*v) for v in itertools.product(*grid)], 0, 1)
    assert low <= values.min() + 1e-12 and values.max() <= high + 1e-12
    assert values.min() == pytest.approx(low) and values.max() == pytest.approx(high)


def test_box_is_monotone_in_its_ends():
    base = rogan_gladen_box((0.4, 0.5), (0.8, 0.9), (0.7, 0.8))
    narrower = rogan_gladen_box((0.42, 0.48), (0.82, 0.88), (0.72, 0.78))
    assert base[0] <= narrower[0] <= narrower[1] <= base[1]
    up = rogan_gladen_box((0.45, 0.55), (0.8, 0.9), (0.7, 0.8))  # more judged correct
    assert up[0] > base[0] and up[1] > base[1]


def test_allocation_follows_algorithm1_by_hand():
    # k/n = 0.8, no verdict yet: q~0 = q~1 = 1/2, so m1*(m) = round(0.8 m) clamped to [1, m - 1]
    # (pilot 1). Draw 1 -> arm 0, draw 2 -> arm 1 (pilots); then m1 < m1*(m) gives arm 1:
    # m = 3..7: m1* = 2, 3, 4, 5, 6 -> arm 1 each; m = 8: m1* = 6 = m1 -> arm 0; m = 9, 10 -> 1.
    pools = [f"x{i}" for i in range(20)], [f"y{i}" for i in range(20)]
    session = StratifiedLabellingSession(*pools, k=80, n=100, random_seed=3, pilot=1)
    batch = session.next_batch(10)
    assert [session.arm_of(item) for item in batch] == [0, 1, 1, 1, 1, 1, 1, 0, 1, 1]
    assert len(set(batch)) == 10
    again = StratifiedLabellingSession(*pools, k=80, n=100, random_seed=3, pilot=1)
    assert again.next_batch(10) == batch  # the seed fixes each pool's order


def test_next_arm_vectorised_matches_the_split():
    m0, m1 = np.array([5, 5, 30]), np.array([5, 9, 5])
    q0, q1 = smoothed_pilot([4, 4, 25], m0), smoothed_pilot([4, 8, 4], m1)
    arms = next_arm(m0, m1, q0, q1, np.array([0.5, 0.5, 0.5]), pilot=5)
    # Algorithm 1 with p = 0.5: m1* = round(m s1 / (s1 + s0)), s_j = sqrt(1 - q~j)
    s0, s1 = np.sqrt(1 - q0), np.sqrt(1 - q1)
    wanted = np.floor((m0 + m1 + 1) * s1 / (s1 + s0) + 0.5)
    wanted = np.clip(wanted, 5, m0 + m1 + 1 - 5)
    assert list(arms) == list((m1 < wanted).astype(int))


def test_interval_equals_its_parts_computed_independently():
    pools = [f"x{i}" for i in range(150)], [f"y{i}" for i in range(150)]
    session = StratifiedLabellingSession(*pools, k=130, n=200, random_seed=1, pilot=2)
    rng = np.random.default_rng(5)
    hits: list[list[int]] = [[], []]  # the right calls of each arm, in the order drawn
    for _ in range(6):
        batch = session.next_batch(20)
        arms = np.array([int(item[0] == "y") for item in batch])
        right = rng.random(len(batch)) < 0.92
        verdicts = np.where(right, arms, 1 - arms)
        session.add_verdicts(batch, verdicts)
        for arm, hit in zip(arms, right, strict=True):
            hits[arm].append(int(hit))
    result = session.interval()
    k0, m0, k1, m1 = session.counts()
    assert m0 + m1 == 120 and result.n_labelled == 120 and result.target == "population"
    a = 0.05 / 3  # each of p, q0, q1
    p_ends = (beta.ppf(a / 2, 130, 71), beta.ppf(1 - a / 2, 131, 70))  # Clopper-Pearson
    assert sum(hits[0]) == k0 and sum(hits[1]) == k1
    arms = [betting_confidence_sequence(np.array(h), confidence_level=1 - a) for h in hits]
    expected = rogan_gladen_box(p_ends, *[(lo[-1], hi[-1]) for lo, hi in arms])
    assert 0 < float(expected[0]) < float(expected[1]) < 1  # not the trivial [0, 1]
    assert (result.low, result.high) == pytest.approx(tuple(map(float, expected)), abs=1e-12)
    assert result.low <= result.estimate <= result.high


def test_intervals_nest_as_verdicts_arrive():
    pools = [f"x{i}" for i in range(200)], [f"y{i}" for i in range(200)]
    session = StratifiedLabellingSession(*pools, k=700, n=1000, random_seed=2)
    rng = np.random.default_rng(8)
    previous = (0.0, 1.0)
    for _ in range(12):
        batch = session.next_batch(20)
        truth = np.array([session.arm_of(item) for item in batch])
        right = rng.random(truth.size) < 0.9
        session.add_verdicts(batch, np.where(right, truth, 1 - truth))
        now = session.interval()
        assert previous[0] - 1e-12 <= now.low <= now.high <= previous[1] + 1e-12
        previous = (now.low, now.high)
    assert previous[1] - previous[0] < 0.5


def test_coverage_at_a_data_dependent_stop():
    # 400 replications; stop at the first batch of 20 whose interval is <= 0.3 wide.
    rng = np.random.default_rng(2028)
    reps, budget, q0, q1, theta, n = 400, 400, 0.9, 0.85, 0.3, 2000
    k = rng.binomial(n, theta * q1 + (1 - theta) * (1 - q0), size=reps)
    hits = [(rng.random((reps, budget)) < q).astype(float) for q in (q0, q1)]
    bounds = [arm_bounds(h, 0.05 / 3) for h in hits]
    p_ends = verdict_interval(k.astype(float), n, 0.05 / 3)
    sums = [np.cumsum(h, axis=1) for h in hits]
    m = [np.zeros(reps, dtype=int), np.zeros(reps, dtype=int)]
    stopped, covered, rows = np.zeros(reps, bool), np.zeros(reps, bool), np.arange(reps)
    for _ in range(budget // 20):
        tilde = [
            smoothed_pilot(np.where(m[a] > 0, sums[a][rows, m[a] - 1], 0), m[a]) for a in (0, 1)
        ]
        for _ in range(20):
            arm = next_arm(m[0], m[1], tilde[0], tilde[1], k / n)
            m = [m[0] + (arm == 0), m[1] + (arm == 1)]
        ends = [(bounds[a][0][rows, m[a] - 1], bounds[a][1][rows, m[a] - 1]) for a in (0, 1)]
        low, high = rogan_gladen_box(p_ends, *ends)
        now = ~stopped & ((high - low <= 0.3) | (m[0] + m[1] >= budget))
        covered |= now & (low <= theta) & (theta <= high)
        stopped |= now
    assert stopped.all() and covered.mean() >= 0.95


def test_errors():
    with pytest.raises(ValueError, match="in both pools"):
        StratifiedLabellingSession(["a", "b"], ["b"], k=1, n=2)
    with pytest.raises(ValueError, match="`correct_ids` must hold at least one"):
        StratifiedLabellingSession(["a"], [], k=1, n=2)
    with pytest.raises(ValueError, match="`incorrect_ids` must not repeat"):
        StratifiedLabellingSession(["a", "a"], ["b"], k=1, n=2)
    with pytest.raises(ValueError, match=r"`k` \(3\) must not exceed `n` \(2\)"):
        StratifiedLabellingSession(["a"], ["b"], k=3, n=2)
    with pytest.raises(TypeError, match="`incorrect_ids` must be a sequence"):
        StratifiedLabellingSession("ab", ["c"], k=1, n=2)
    session = StratifiedLabellingSession(["a"], ["b"], k=1, n=2, random_seed=0)
    with pytest.raises(ValueError, match="`size`"):
        session.next_batch(0)
    with pytest.raises(ValueError, match="in neither pool"):
        session.add_verdicts(["z"], [1])
    with pytest.raises(ValueError, match="one verdict per id"):
        session.add_verdicts(["a", "b"], [1])
    with pytest.raises(ValueError, match="`verdicts` must hold only 0/1"):
        session.add_verdicts(["a"], [2])
    session.add_verdicts(["a"], [0])
    session.add_verdicts(["a"], [0])  # the same verdict again is harmless
    with pytest.raises(ValueError, match="verdict 1 here but 0 before"):
        session.add_verdicts(["a"], [1])
    assert session.next_batch(5) == ["b"]
    with pytest.raises(ValueError, match="judged or pending"):
        session.next_batch(1)
    with pytest.raises(ValueError, match="`confidence_level`"):
        session.interval(confidence_level=1.5)
    assert (session.interval().low, session.interval().high) == (0.0, 1.0)  # no arm-1 verdict
