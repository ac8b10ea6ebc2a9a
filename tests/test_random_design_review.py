"""Review findings on the random design: Blaker's binomial interval and the random-design rule.

Each test states a property the documentation promises; expected values are hand arithmetic or
the candidates' own intervals, never the rule's output. Each failed before its fix.
"""

from __future__ import annotations

import warnings

import pytest

import judgestats as jc

# a strong judge (q0-hat 0.97, q1-hat 0.98), 200 random labels, 10,000 unlabelled items
STRONG = {"k": 7000, "n": 10000, "k0": 58, "m0": 60, "k1": 137, "m1": 140}


def _recommended(data, target, level):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return jc.crosscheck(data, target=target, confidence_level=level).recommended


def test_a_lower_level_never_gives_a_wider_recommended_interval():
    data = jc.JudgeData(**STRONG, design="random")
    at95 = _recommended(data, "population", 0.95)
    at90 = _recommended(data, "population", 0.90)
    assert at90.high - at90.low <= at95.high - at95.low


def test_outside_the_table_the_reason_does_not_say_the_judge_adds_no_information():
    data = jc.JudgeData(**STRONG, design="random")
    rec = _recommended(data, "population", 0.90)
    assert "adds no information" not in rec.reason


def test_items_target_with_an_unknown_truth_never_gets_a_zero_width_recommendation():
    data = jc.JudgeData(k=1, n=1, k0=0, m0=0, k1=38, m1=40, design="random")
    rec = _recommended(data, "items", 0.95)
    assert rec.high - rec.low > 0.0
    # every share the one unlabelled item allows: 40/41 (it is incorrect) to 41/41
    assert (rec.low, rec.high) == pytest.approx((40 / 41, 1.0))
    assert rec.method == "labels_only_bounds"


@pytest.mark.parametrize(("m", "level"), [(300, 0.90), (400, 0.90), (400, 0.95), (500, 0.90)])
def test_blaker_binomial_interval_covers_at_least_the_level_next_to_every_end(m, level):
    # exact coverage is smallest just outside an interval's end: check every end +- 1e-10 (a
    # 48-point scan of the acceptability missed accepted stretches at these m)
    import numpy as np
    from scipy import stats

    from judgestats.designs.labels_only import labels_only_interval

    xs = np.arange(m + 1)
    _, low, high = labels_only_interval(xs, m, 0, method="blaker", confidence_level=level)
    ends = np.concatenate([low, high])
    thetas = np.concatenate([ends - 1e-10, ends + 1e-10])
    for theta in thetas[(thetas > 0) & (thetas < 1)]:
        pmf = stats.binom.pmf(xs, m, theta)
        assert pmf[(low <= theta) & (theta <= high)].sum() >= level - 1e-12


def test_blaker_binomial_interval_covers_at_least_the_level_at_m_400():
    import numpy as np
    from scipy import stats

    from judgestats.designs.labels_only import labels_only_interval

    m, level, theta = 400, 0.95, 0.0138
    xs = np.arange(m + 1)
    _, low, high = labels_only_interval(xs, m, 0, method="blaker", confidence_level=level)
    pmf = stats.binom.pmf(xs, m, theta)
    # Blaker's acceptability of theta for x = 1, from scipy alone: gamma(y) = min of the tails
    gamma = np.minimum(stats.binom.cdf(xs, m, theta), stats.binom.sf(xs - 1, m, theta))
    accept_1 = pmf[gamma <= gamma[1] * (1 + 1e-9)].sum()
    assert accept_1 > 1 - level  # theta is in Blaker's acceptance region for x = 1 ...
    assert low[1] <= theta <= high[1]  # ... so the interval of x = 1 must hold it
    assert pmf[(low <= theta) & (theta <= high)].sum() >= level
