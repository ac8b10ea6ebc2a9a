"""The guaranteed interval: exact coverage by enumeration, a brute-force p-value, errors.

Coverage is summed over every outcome (k, k0, k1) of small designs, at true accuracies that
include 0 and 1 and at every judge on a grid over [0, 1]^2 (worse than chance included), so the
guarantee is checked where approximate intervals fail most: tiny arms, weak judges, the ends.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binom

import judgestats as jc
from judgestats import _binomial
from judgestats import _guaranteed_tails as tails
from judgestats import guaranteed as g

THETAS = np.array([0.0, 1e-3, 0.02, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.98, 0.999, 1.0])
JUDGE_GRID = np.linspace(0.0, 1.0, 21)


def all_intervals(n: int, m0: int, m1: int, level: float = 0.95) -> tuple[np.ndarray, ...]:
    low = np.empty((n + 1, m0 + 1, m1 + 1))
    high = np.empty_like(low)
    for k in range(n + 1):
        for k0 in range(m0 + 1):
            for k1 in range(m1 + 1):
                # the unvalidated entry: enumeration includes empty arms and judges worse
                # than chance, which guaranteed_ci refuses
                low[k, k0, k1], high[k, k0, k1] = g.guaranteed_interval(k, n, k0, m0, k1, m1, level)
    return low, high


def exact_coverage(
    low: np.ndarray, high: np.ndarray, theta: float, q0: np.ndarray, q1: np.ndarray
) -> np.ndarray:
    """Coverage at one theta for arrays of judges, by summing the joint pmf over all outcomes."""
    n, m0, m1 = (s - 1 for s in low.shape)
    covered = ((low <= theta) & (theta <= high)).astype(float)
    pi = theta * q1 + (1 - theta) * (1 - q0)
    pk = binom.pmf(np.arange(n + 1)[None, :], n, pi[:, None])
    p0 = binom.pmf(np.arange(m0 + 1)[None, :], m0, q0[:, None])
    p1 = binom.pmf(np.arange(m1 + 1)[None, :], m1, q1[:, None])
    return np.einsum("jk,ja,jb,kab->j", pk, p0, p1, covered)


def worst_coverage(low: np.ndarray, high: np.ndarray) -> float:
    q0, q1 = (a.ravel() for a in np.meshgrid(JUDGE_GRID, JUDGE_GRID, indexing="ij"))
    return min(float(exact_coverage(low, high, theta, q0, q1).min()) for theta in THETAS)


@pytest.mark.parametrize(
    "m", [pytest.param(m, marks=pytest.mark.slow) if m >= 6 else m for m in range(1, 11)]
)
def test_exact_coverage_equal_arms(m):
    low, high = all_intervals(6, m, m)
    assert worst_coverage(low, high) >= 0.95 - 1e-12


@pytest.mark.parametrize(
    ("n", "m0", "m1"),
    [
        (12, 1, 6),
        pytest.param(10, 10, 2, marks=pytest.mark.slow),
        pytest.param(20, 3, 7, marks=pytest.mark.slow),
        pytest.param(25, 8, 8, marks=pytest.mark.slow),
        (3, 0, 4),
        (5, 4, 0),
    ],
)
def test_exact_coverage_other_designs(n, m0, m1):
    """Unequal arms, a larger test set, and an empty arm (a one-class random sample)."""
    low, high = all_intervals(n, m0, m1)
    assert worst_coverage(low, high) >= 0.95 - 1e-12


@pytest.mark.slow
def test_exact_coverage_other_level():
    low, high = all_intervals(10, 6, 6, level=0.8)
    assert worst_coverage(low, high) >= 0.8 - 1e-12


def test_exact_coverage_random_design():
    """Random labelled sample of 5 items: m1 ~ Bin(5, theta); coverage averages over m1."""
    n, m = 6, 5
    tables = {m1: all_intervals(n, m - m1, m1) for m1 in range(m + 1)}
    q0, q1 = (a.ravel() for a in np.meshgrid(JUDGE_GRID, JUDGE_GRID, indexing="ij"))
    for theta in THETAS:
        total = sum(
            binom.pmf(m1, m, theta) * exact_coverage(*tables[m1], theta, q0, q1)
            for m1 in range(m + 1)
        )
        assert total.min() >= 0.95 - 1e-12


def test_not_trivial_where_the_closed_form_is_accurate():
    """Large arms, good judge: close to Lang-Reiczigel, far from [0, 1]."""
    low, high = jc.guaranteed_ci(400, 1000, 140, 200, 180, 200)
    lr = jc.lang_reiczigel_ci(0.4, 0.7, 0.9, 1000, 200, 200)
    assert high - low <= 1.15 * (lr.high - lr.low)
    assert 0.0 < low < 1 / 6 < high < 1.0


def test_mirror_symmetry():
    """Swapping what counts as correct maps the interval for theta to one for 1 - theta."""
    low, high = jc.guaranteed_ci(37, 60, 8, 12, 10, 15)
    mlow, mhigh = jc.guaranteed_ci(23, 60, 10, 15, 8, 12)
    assert math.isclose(low, 1 - mhigh, abs_tol=1e-12)
    assert math.isclose(high, 1 - mlow, abs_tol=1e-12)


# ------------------------------------------------------------------------------------------------
# brute force: the p-value and the end of the interval from definitions, by enumeration
# ------------------------------------------------------------------------------------------------
def brute_designating_bound(k, n, k0, m0, k1, m1, z, grid):
    """D(x) = inf{t: k/n <= h(t)} on a dense grid of t (the module uses convexity instead)."""
    q0 = (k0 + 0.5) / (m0 + 1)
    q1 = (k1 + 0.5) / (m1 + 1)
    pi = grid * q1 + (1 - grid) * (1 - q0)
    s = np.sqrt(
        pi * (1 - pi) / n
        + grid**2 * q1 * (1 - q1) / (m1 + 1)
        + (1 - grid) ** 2 * q0 * (1 - q0) / (m0 + 1)
    )
    hit = np.flatnonzero(k / n <= pi + z * s)
    return grid[hit[0]] if hit.size else np.inf


def brute_p_value(t, x, n, m0, m1, z, judges):
    """max over judges of P_{t, judge}{D(X) >= D(x) - grid step} by enumerating all outcomes."""
    grid = np.linspace(0, 1, 20001)
    bounds = np.array(
        [
            [
                [brute_designating_bound(k, n, k0, m0, k1, m1, z, grid) for k1 in range(m1 + 1)]
                for k0 in range(m0 + 1)
            ]
            for k in range(n + 1)
        ]
    )
    observed = brute_designating_bound(*x[:1], n, x[1], m0, x[2], m1, z, grid)
    extreme = (bounds >= observed - 1e-4).astype(float)  # grid ties resolved towards extreme
    q0, q1 = judges
    pi = t * q1 + (1 - t) * (1 - q0)
    pk = binom.pmf(np.arange(n + 1)[None, :], n, pi[:, None])
    p0 = binom.pmf(np.arange(m0 + 1)[None, :], m0, q0[:, None])
    p1 = binom.pmf(np.arange(m1 + 1)[None, :], m1, q1[:, None])
    return np.einsum("jk,ja,jb,kab->j", pk, p0, p1, extreme)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("x", "m0", "m1"),
    [((12, 10, 10), 10, 10), ((14, 10, 10), 10, 10), ((9, 14, 12), 14, 14), ((15, 12, 14), 14, 14)],
)
def test_lower_end_against_brute_force(x, m0, m1):
    """Just below the lower end the brute-force p-value (dense judge grid) is rejected; the
    module's supremum is at least the brute force's at every t (it may not undershoot)."""
    n = 24
    level = 0.95
    alpha, gamma = 1 - level, g.NUISANCE_GAMMA
    z = 1.959963984540054
    cutoff = _binomial.fisher_cutoff(gamma)
    low, _ = jc.guaranteed_ci(x[0], n, x[1], m0, x[2], m1, confidence_level=level)
    assert low > 0.0
    q0, q1 = (
        a.ravel()
        for a in np.meshgrid(np.linspace(0, 1, 201), np.linspace(0, 1, 201), indexing="ij")
    )
    inside = _binomial.arm_p_value(x[1], m0, q0) * _binomial.arm_p_value(x[2], m1, q1) > cutoff
    better = inside & (q0 + q1 >= 1)
    threshold = alpha / 2 - gamma / 2
    below = brute_p_value(low - 2e-3, x, n, m0, m1, z, (q0[better], q1[better])).max()
    assert below <= threshold + 1e-9
    above = brute_p_value(low + 2e-3, x, n, m0, m1, z, (q0[better], q1[better])).max()
    assert above > threshold
    test = tails.LowerTest(x[0], n, x[1], m0, x[2], m1, level)
    for t in (low - 0.05, low, low + 0.05):
        brute = brute_p_value(t, x, n, m0, m1, z, (q0[better], q1[better])).max()
        assert test.sup(t, better_than_chance=True) >= brute - 1e-6


# ------------------------------------------------------------------------------------------------
# errors
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"k": 11}, ValueError, r"`k` \(11\) must not exceed `n` \(10\)"),
        ({"k0": -1}, ValueError, r"`k0` .*must not be negative"),
        ({"k1": 2.5}, ValueError, r"`k1` .*whole number"),
        ({"n": math.inf}, ValueError, r"`n` .*finite"),
        ({"m0": 0, "k0": 0}, ValueError, r"`m0` \(0\) must be at least 1"),
        ({"m1": 0, "k1": 0}, ValueError, r"`m1` \(0\) must be at least 1"),
        ({"m0": 0, "k0": 0, "m1": 0, "k1": 0}, ValueError, r"`m0` \(0\) must be at least 1"),
        # raw judge worse than chance: q0 + q1 - 1 = 0.2 + 0.4 - 1 < 0
        ({"k0": 1, "k1": 2}, ValueError, r"no better than chance: q0 \+ q1 - 1 = -0\.4"),
        # exactly at chance: 0.4 + 0.6 - 1 = 0
        ({"k0": 2, "k1": 3}, ValueError, r"no better than chance: q0 \+ q1 - 1 = 0 "),
        # raw J = 1 + 0.1 - 1 > 0, Laplace-adjusted (2/3) + (11/102) - 1 < 0
        (
            {"k0": 1, "m0": 1, "k1": 10, "m1": 100},
            ValueError,
            r"no better than chance after the Laplace adjustment",
        ),
        ({"k": [1, 2]}, TypeError, r"`k` must be a single number"),
        ({"k": "4"}, TypeError, r"`k`"),
    ],
)
def test_bad_counts(kwargs, error, match):
    counts = {"k": 4, "n": 10, "k0": 3, "m0": 5, "k1": 4, "m1": 5} | kwargs
    with pytest.raises(error, match=match):
        jc.guaranteed_ci(**counts)


@pytest.mark.parametrize("level", [0.0, 1.0, 1.5, -0.1])
def test_bad_level(level):
    with pytest.raises(ValueError, match="`confidence_level`"):
        jc.guaranteed_ci(4, 10, 3, 5, 4, 5, confidence_level=level)


# ------------------------------------------------------------------------------------------------
# the interval through estimate(), simulate.coverage and the command line
# ------------------------------------------------------------------------------------------------
def test_estimate_with_the_guaranteed_interval():
    data = jc.JudgeData(k=250, n=500, k0=14, m0=20, k1=18, m1=20)
    est = jc.estimate(data, interval="guaranteed")
    assert est.method == "rogan_gladen+guaranteed"
    assert tuple(est.ci) == tuple(jc.guaranteed_ci(250, 500, 14, 20, 18, 20))
    assert est.theta == pytest.approx((0.5 + 0.7 - 1) / 0.6)
    assert "small_calibration" not in est.flags  # no normal approximation to warn about
    assert "Rogan-Gladen + guaranteed" in str(est)
    assert est.to_dict()["method"] == "rogan_gladen+guaranteed"


def test_estimate_rejects_an_unknown_interval():
    data = jc.JudgeData(k=250, n=500, k0=14, m0=20, k1=18, m1=20)
    with pytest.raises(ValueError, match=r"`interval` \('wald'\) must be one of"):
        jc.estimate(data, interval="wald")


@pytest.mark.slow
def test_simulated_coverage_matches_enumeration():
    """simulate.coverage(exact=True) sums the same pmf as the enumeration above."""
    from judgestats import simulate

    result = simulate.coverage(
        "guaranteed", theta=[0.0, 0.5, 1.0], q0=0.6, q1=0.6, n=6, m0=3, m1=3, exact=True
    )
    low, high = all_intervals(6, 3, 3)
    for theta, value in zip((0.0, 0.5, 1.0), result["coverage"].values.ravel(), strict=True):
        expected = exact_coverage(low, high, theta, np.array([0.6]), np.array([0.6]))[0]
        assert value == pytest.approx(expected, abs=1e-9)
        assert value >= 0.95


def test_simulate_rejects_adaptive_allocation():
    from judgestats import simulate

    with pytest.raises(ValueError, match="arm sizes fixed before"):
        simulate.coverage(
            "guaranteed",
            theta=0.5,
            q0=0.8,
            q1=0.8,
            n=50,
            m0=20,
            m1=20,
            reps=10,
            allocation="adaptive",
        )


def test_command_line(capsys):
    from judgestats.cli import main

    assert (
        main(
            [
                "estimate",
                "--k",
                "250",
                "--n",
                "500",
                "--k0",
                "14",
                "--m0",
                "20",
                "--k1",
                "18",
                "--m1",
                "20",
                "--interval",
                "guaranteed",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    low, high = jc.guaranteed_ci(250, 500, 14, 20, 18, 20)
    assert f"Rogan-Gladen + guaranteed            0.3333   {low:.4f}   {high:.4f}" in out


def test_covers_agrees_with_the_interval():
    """guaranteed_covers tests theta directly; it must agree with the interval's ends."""
    rng = np.random.default_rng(5)
    for _ in range(25):
        n, m0, m1 = int(rng.choice([20, 300])), int(rng.integers(3, 30)), int(rng.integers(3, 30))
        k, k0, k1 = (
            int(rng.integers(0, n + 1)),
            int(rng.integers(0, m0 + 1)),
            int(rng.integers(0, m1 + 1)),
        )
        low, high = g.guaranteed_interval(k, n, k0, m0, k1, m1, 0.95)
        for t in (0.0, 1.0, low + 1e-5, high - 1e-5, low - 1e-3, high + 1e-3, 0.5):
            if 0.0 <= t <= 1.0:
                assert g.guaranteed_covers(t, k, n, k0, m0, k1, m1, 0.95) == (low <= t <= high)


# ---------------------------------------------------------------------------------------------
# cost independent of n (issue 25 item 2): the Berry-Esseen branch for large test sets
# ---------------------------------------------------------------------------------------------
def test_large_n_tail_is_an_upper_bound_of_the_exact_tail():
    n = 10**7
    test = tails.LowerTest(4 * 10**6, n, 140, 200, 180, 200, 0.95)
    q0 = np.array([0.6, 0.65, 0.7, 0.75, 0.8])
    q1 = np.array([0.85, 0.88, 0.9, 0.92, 0.95])
    for t in (0.1, 0.3, 0.5):
        pi = t * q1 + (1 - t) * (1 - q0)
        bound = test._tail_bound(pi, q0, q1)
        sf = binom.sf(test.threshold[None, :, :] - 1, n, pi[:, None, None])
        w0, w1 = test._weights(q0, q1)
        exact = np.einsum("pi,pij,pj->p", w0, sf, w1) + test.slack
        assert np.all(bound >= exact)
        sigma = np.sqrt(n * pi * (1 - pi))
        assert np.all(bound - exact <= 0.4748 / sigma)  # at most the Berry-Esseen term


def test_huge_n_costs_what_a_small_n_costs():
    import tracemalloc

    tracemalloc.start()
    low, high = g.guaranteed_interval(4 * 10**11, 10**12, 140, 200, 180, 200, 0.95)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 100e6  # bytes; np.arange(n + 1) alone would be 8 TB
    reference = g.guaranteed_interval(4 * 10**8, 10**9, 140, 200, 180, 200, 0.95)
    assert abs(low - reference.low) < 1e-3 and abs(high - reference.high) < 1e-3
    assert low < (0.4 - 0.3) / 0.6 < high  # the Rogan-Gladen estimate lies inside


def test_large_n_keeps_exact_sums_where_the_spread_is_small():
    """n = 10^7, arms of 20: judges in the box with pi near 0 once got the loose Berry-Esseen
    term (0.4748 / sigma with sigma about 10) and the interval was [0, 1]; it must lie between
    the n = 10^6 and n = 10^9 intervals (which the test-set size barely moves)."""
    ends = {
        n: g.guaranteed_interval(n // 2, n, 19, 20, 19, 20, 0.95) for n in (10**6, 10**7, 10**9)
    }
    for i in (0, 1):
        values = sorted(end[i] for end in ends.values())
        assert values[-1] - values[0] < 0.005
    assert 0.3 < ends[10**7].low < 0.5 < ends[10**7].high < 0.7


@pytest.mark.parametrize(
    "counts",
    [
        (32, 50, 25, 30, 46, 59, 0.8),
        (400, 1000, 140, 200, 180, 200, 0.95),
        (45, 100, 14, 20, 17, 20, 0.9),
    ],
)
def test_p_value_does_not_depend_on_the_order_of_the_tests(counts, monkeypatch):
    """P+(t) is a function of t: each value the end's search used equals a fresh test's.

    Points left out of a supremum keep a bound from a larger t; with only the best point summed
    first, such a point could be taken as a start of the refinement, and the first dataset's
    lower end came out 8e-5 above the one found with every value computed afresh.
    """
    seen, made = [], {}
    original_init, original_sup = tails.LowerTest.__init__, tails.LowerTest.sup

    def recording_init(self, *args):
        original_init(self, *args)
        made[id(self)] = args

    def recording_sup(self, t, better_than_chance):
        value = original_sup(self, t, better_than_chance)
        seen.append((made[id(self)], t, better_than_chance, value))
        return value

    monkeypatch.setattr(tails.LowerTest, "__init__", recording_init)
    monkeypatch.setattr(tails.LowerTest, "sup", recording_sup)
    g.guaranteed_interval(*counts)
    monkeypatch.undo()
    assert len(seen) >= 8
    for args, t, side, value in seen:  # both ends' tests (the upper end's on mirrored data)
        assert value == pytest.approx(tails.LowerTest(*args).sup(t, side), rel=1e-12, abs=1e-15)
