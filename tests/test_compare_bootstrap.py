"""Two-model comparison (judgestats.compare), bootstrap: BCa and percentile intervals.

The BCa acceleration is checked by a brute-force item-by-item jackknife; the bootstrap against the
delta method on a large sample and against scipy.stats.bootstrap.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _compare_data import labels
from scipy import stats

from judgestats import JudgeData, JudgeStatsWarning, compare


# ---------------------------------------------------------------------------------------------
# bootstrap
# ---------------------------------------------------------------------------------------------
def test_bootstrap_agrees_with_the_delta_method_on_a_large_sample():
    a, b = labels(
        (9000, 3000, 1500, 6500),
        ((2400, 3000, 2700, 3000), (2200, 3000, 2650, 3000)),
        np.random.default_rng(0),
    )
    delta = compare(a, b)
    boot = compare(a, b, method="bootstrap", random_seed=5, bootstrap={"n_resamples": 4000})
    half = delta.ci.high - delta.estimate
    assert boot.estimate == pytest.approx(delta.estimate, abs=1e-12)
    for kind in ("percentile", "bca"):
        assert boot.intervals[kind].low == pytest.approx(delta.ci.low, abs=0.06 * half)
        assert boot.intervals[kind].high == pytest.approx(delta.ci.high, abs=0.06 * half)


def _jackknife_acceleration(samples, statistic):
    """Brute force: leave out every item of every sample (Efron & Tibshirani eq. 14.15,
    multi-sample form of Davison & Hinkley sec. 3.2)."""
    num = den = 0.0
    for s, sample in enumerate(samples):
        n = sample.size
        values = []
        for i in range(n):
            args = list(samples)
            args[s] = np.delete(sample, i)
            values.append(statistic(*args))
        values = np.array(values)
        u = (n - 1) * (values.mean() - values)
        num += (u**3).sum() / n**3
        den += (u**2).sum() / n**2
    return num / (6 * den**1.5)


def _difference_statistic(pairs, a0, a1, b0, b1, axis=-1):
    """theta_A - theta_B from item-level arrays; pairs coded 2*y_A + y_B."""
    ya, yb = (pairs >= 2).mean(axis=axis), (pairs % 2).mean(axis=axis)
    q0a, q1a = (a0 == 0).mean(axis=axis), (a1 == 1).mean(axis=axis)
    q0b, q1b = (b0 == 0).mean(axis=axis), (b1 == 1).mean(axis=axis)
    return (ya + q0a - 1) / (q0a + q1a - 1) - (yb + q0b - 1) / (q0b + q1b - 1)


def _item_samples(cells, ca, cb):
    pairs = np.repeat([3, 2, 1, 0], cells)
    arms = []
    for k0, m0, k1, m1 in (ca, cb):
        arms += [np.array([0] * k0 + [1] * (m0 - k0)), np.array([1] * k1 + [0] * (m1 - k1))]
    return [pairs, *arms]


def test_bca_acceleration_equals_the_brute_force_jackknife():
    cells, ca, cb = (30, 9, 4, 17), (22, 30, 25, 30), (18, 25, 27, 35)
    a, b = labels(cells, (ca, cb), np.random.default_rng(1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # calibration arms under 30 items
        boot = compare(a, b, method="bootstrap", random_seed=2, bootstrap={"n_resamples": 200})
    expected = _jackknife_acceleration(_item_samples(cells, ca, cb), _difference_statistic)
    assert boot.details["acceleration"] == pytest.approx(expected, rel=1e-9)


def test_bca_interval_agrees_with_scipy_bootstrap():
    cells, ca, cb = (60, 18, 8, 34), (40, 50, 44, 50), (36, 45, 50, 55)
    a, b = labels(cells, (ca, cb))
    ours = compare(a, b, method="bootstrap", random_seed=7, bootstrap={"n_resamples": 20_000})
    theirs = stats.bootstrap(
        tuple(_item_samples(cells, ca, cb)),
        _difference_statistic,
        n_resamples=20_000,
        method="BCa",
        vectorized=True,
        random_state=np.random.default_rng(8),
    ).confidence_interval
    # Monte Carlo error of an end point with 20,000 replicates is about 2% of the standard error
    tolerance = 0.1 * compare(a, b).se
    assert ours.ci.low == pytest.approx(theirs.low, abs=tolerance)
    assert ours.ci.high == pytest.approx(theirs.high, abs=tolerance)


def test_bootstrap_keeps_the_pairing():
    # identical verdicts for both models under shared calibration: every replicate is exactly 0
    ca = (40, 50, 45, 50)
    a, b = labels((50, 0, 0, 50), (ca, None))
    with pytest.warns(JudgeStatsWarning):
        boot = compare(
            a,
            b,
            calibration="shared",
            method="bootstrap",
            random_seed=1,
            bootstrap={"interval": "percentile"},
        )
    assert boot.flags == ("instability_unchecked",)
    assert tuple(boot.ci) == (0.0, 0.0)
    assert boot.estimate == 0.0
    counts = JudgeData(k=50, n=100, k0=40, m0=50, k1=45, m1=50)
    with pytest.warns(JudgeStatsWarning):
        unpaired = compare(counts, counts, calibration="shared", method="bootstrap", random_seed=1)
    assert unpaired.ci.high - unpaired.ci.low > 0.1


def test_bootstrap_is_reproducible_with_a_seed():
    a = JudgeData(k=60, n=100, k0=40, m0=50, k1=45, m1=50)
    b = JudgeData(k=50, n=100, k0=38, m0=50, k1=44, m1=50)
    first = compare(a, b, method="bootstrap", random_seed=3, bootstrap={"n_resamples": 4000})
    second = compare(a, b, method="bootstrap", random_seed=3, bootstrap={"n_resamples": 4000})
    other = compare(a, b, method="bootstrap", random_seed=4, bootstrap={"n_resamples": 4000})
    assert first.ci == second.ci
    assert first.intervals == second.intervals
    assert first.ci != other.ci
