"""Random-design candidates, the items target and the random-design rule (issue 24).

Expected values come from brute-force enumeration with scipy.stats written here, not from the
code under test.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import judgestats as jc
from judgestats.designs.labels_only import labels_only_interval
from judgestats.designs.prediction_powered import ppi_counts, ppi_pp_counts
from judgestats.designs.random_candidates import count_candidates
from judgestats.recommendation.random_rule import recommend_random

ALPHA = 0.05


def brute_blaker(x: int, m: int, grid: np.ndarray) -> tuple[float, float]:
    """Accepted grid values of Blaker's acceptability test, by enumeration of the pmf."""
    y = np.arange(m + 1)
    accepted = []
    for t in grid:
        pmf = stats.binom.pmf(y, m, t)
        gamma = np.minimum(stats.binom.cdf(y, m, t), stats.binom.sf(y - 1, m, t))
        if pmf[gamma <= gamma[x] * (1 + 1e-9)].sum() > ALPHA:
            accepted.append(t)
    return min(accepted), max(accepted)


@pytest.mark.parametrize(("x", "m"), [(0, 10), (3, 10), (10, 10), (7, 20), (45, 60)])
def test_blaker_matches_enumeration_and_lies_inside_clopper_pearson(x, m):
    grid = np.linspace(0, 1, 4001)
    low, high = brute_blaker(x, m, grid)
    _, b_low, b_high = labels_only_interval(x, m, method="blaker")
    assert abs(float(b_low) - low) <= 3e-4 and abs(float(b_high) - high) <= 3e-4
    _, cp_low, cp_high = labels_only_interval(x, m, method="clopper_pearson")
    # Clopper-Pearson from the binomial tails: P(X >= x | low) = P(X <= x | high) = alpha / 2
    if x > 0:
        assert stats.binom.sf(x - 1, m, float(cp_low)) == pytest.approx(ALPHA / 2, rel=1e-6)
    if x < m:
        assert stats.binom.cdf(x, m, float(cp_high)) == pytest.approx(ALPHA / 2, rel=1e-6)
    assert cp_low <= b_low <= b_high <= cp_high


def brute_items(x: int, m: int, n: int, method: str) -> tuple[float, float]:
    """Accepted T / N by enumerating T and the hypergeometric law of the labelled count."""
    size = n + m
    accepted = []
    y = np.arange(m + 1)
    for total in range(x, x + n + 1):
        law = stats.hypergeom(size, total, m)
        if method == "clopper_pearson":
            ok = law.sf(x - 1) > ALPHA / 2 and law.cdf(x) > ALPHA / 2
        else:
            pmf = law.pmf(y)
            gamma = np.minimum(law.cdf(y), law.sf(y - 1))
            ok = pmf[gamma <= gamma[x] * (1 + 1e-9)].sum() > ALPHA
        if ok:
            accepted.append(total / size)
    return min(accepted), max(accepted)


@pytest.mark.parametrize("method", ["clopper_pearson", "blaker"])
@pytest.mark.parametrize(
    ("x", "m", "n"), [(0, 5, 7), (2, 5, 7), (5, 5, 3), (4, 10, 25), (9, 12, 1)]
)
def test_items_interval_matches_hypergeometric_enumeration(x, m, n, method):
    _, low, high = labels_only_interval(x, m, n, method=method, target="items")
    assert (float(low), float(high)) == pytest.approx(brute_items(x, m, n, method))


def test_items_interval_covers_by_enumeration():
    m, n = 6, 9
    size = m + n
    for total in range(size + 1):
        law = stats.hypergeom(size, total, m)
        coverage = 0.0
        for x in range(max(0, total - n), min(m, total) + 1):
            _, low, high = labels_only_interval(x, m, n, target="items")
            if low - 1e-12 <= total / size <= high + 1e-12:
                coverage += law.pmf(x)
        assert coverage >= 0.95 - 1e-9


def blaker_accepts(x: int, m: int, theta: float) -> bool:
    """Blaker's acceptability test at theta, from the full binomial pmf (scipy)."""
    y = np.arange(m + 1)
    pmf = stats.binom.pmf(y, m, theta)
    gamma = np.minimum(stats.binom.cdf(y, m, theta), stats.binom.sf(y - 1, m, theta))
    return bool(pmf[gamma <= gamma[x] * (1 + 1e-9)].sum() > ALPHA)


def test_blaker_on_many_labels_uses_a_window_and_keeps_the_full_pmf_ends():
    # m = 3000: the laws' window (20 sqrt(m) either side) leaves out most counts 0..m
    x, m = 2700, 3000
    _, low, high = (float(v) for v in labels_only_interval(x, m, method="blaker"))
    assert blaker_accepts(x, m, low + 1e-9) and not blaker_accepts(x, m, low - 1e-6)
    assert blaker_accepts(x, m, high - 1e-9) and not blaker_accepts(x, m, high + 1e-6)
    _, i_low, i_high = labels_only_interval(x, m, 40, method="blaker", target="items")
    assert (float(i_low), float(i_high)) == pytest.approx(brute_items(x, m, 40, "blaker"))


def test_labels_only_cost_is_capped_for_the_items_target_with_a_message_naming_m():
    with pytest.raises(ValueError, match=r"`m` \(20000000\) labelled items exceed 10,000,000"):
        labels_only_interval(10**7, 2 * 10**7, 5, target="items", method="blaker")
    with pytest.raises(ValueError, match="`m`"):
        labels_only_interval(10**7, 2 * 10**7, 5, target="items", method="clopper_pearson")
    huge = jc.JudgeData(50, 100, 9 * 10**11, 10**12, 9 * 10**11, 10**12, design="random")
    with pytest.raises(ValueError, match=r"`m` \(2000000000000\) labelled items exceed"):
        jc.crosscheck(huge, target="items")


def test_population_target_takes_any_number_of_labels():
    # Blaker's ends are roots of incomplete-beta tails, so 2e12 labels cost no more than 20;
    # half of them correct: both exact intervals are 0.5 -+ z sqrt(0.25 / m) to 1e-9
    half_width = 1.959964 * (0.25 / 2e12) ** 0.5
    for method in ("blaker", "clopper_pearson"):
        _, low, high = labels_only_interval(10**12, 2 * 10**12, method=method)
        assert float(low) == pytest.approx(0.5 - half_width, abs=1e-9)
        assert float(high) == pytest.approx(0.5 + half_width, abs=1e-9)
    huge = jc.JudgeData(50, 100, 9 * 10**11, 10**12, 9 * 10**11, 10**12, design="random")
    with pytest.warns(jc.JudgeStatsWarning, match="intervals_disagree"):  # LR ignores m1 / m
        rec = jc.crosscheck(huge).recommended
    assert rec.low == pytest.approx(0.5 - half_width, abs=1e-9)


def test_every_item_labelled_gives_the_known_share_with_zero_width():
    out = count_candidates(0, 0, 7, 10, 25, 30, target="items", level=0.95)
    for estimate, low, high in out.values():
        assert estimate == low == high == 30 / 40
    _, low, high = labels_only_interval(25, 40, 0, target="items")
    assert float(low) == float(high) == 25 / 40


def test_unknown_or_inapplicable_target_names_target():
    random = jc.JudgeData(k=600, n=1000, k0=40, m0=50, k1=45, m1=50, design="random")
    with pytest.raises(ValueError, match="`target`"):
        jc.random_design_candidates(random, target="sample")
    with pytest.raises(ValueError, match="`target`"):
        jc.crosscheck(jc.JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200), target="items")
    with pytest.raises(ValueError, match="`target`"):
        labels_only_interval(3, 10, target=None)


@pytest.mark.parametrize(
    ("draws", "error", "match"),
    [
        (0, ValueError, r"`draws` \(0\) must be a positive integer"),
        (1.5, ValueError, r"`draws` \(1.5\) must be a positive integer"),
        (True, TypeError, "`draws` must be a positive integer, got True"),
        ("100", TypeError, "`draws` must be a positive integer"),
        (10**12, ValueError, r"`draws` \(1000000000000\) must be at most 1,000,000"),
    ],
)
def test_candidates_draws_are_checked_before_any_work(draws, error, match):
    random = jc.JudgeData(k=600, n=1000, k0=40, m0=50, k1=45, m1=50, design="random")
    with pytest.raises(error, match=match):
        jc.random_design_candidates(random, target="items", draws=draws)


def test_ppi_pp_without_correction_is_ppi_plus_plus():
    counts = (6000, 10000, 15, 20, 36, 40)
    estimate, low, high, lam = ppi_pp_counts(*counts, small_sample=False)
    est2, ci, lam2, _ = ppi_counts(*counts, lam=None)
    assert (estimate, low, high, lam) == pytest.approx((est2, ci.low, ci.high, lam2))
    _, t_low, t_high, _ = ppi_pp_counts(*counts)
    assert t_low < low and t_high > high


def test_candidates_result_states_its_target_and_is_strict_json():
    data = jc.JudgeData(k=6000, n=10000, k0=15, m0=20, k1=36, m1=40, design="random")
    for target in ("population", "items"):
        found = jc.random_design_candidates(data, target=target, random_seed=1, draws=500)
        assert set(found.intervals) == {
            "labels_only_cp",
            "labels_only_blaker",
            "guaranteed_judge",
            "ppi_pp",
            "posterior_eti",
            "posterior_hdi",
        }
        payload = found.to_dict()
        assert payload["target"] == target
        json.dumps(payload, allow_nan=False)
        assert target in str(found)
        assert found.summary().attrs["target"] == target
        for name, (_, low, high) in found.intervals.items():
            if name == "guaranteed_judge":  # m = 60 labelled items: above its cost bound (40)
                assert math.isnan(low) and math.isnan(high)
                assert payload["intervals"][name]["low"] is None
                continue
            assert 0.0 <= low <= high <= 1.0


def test_estimate_with_a_chance_judge_on_random_data_is_labels_only():
    data = jc.JudgeData(k=500, n=1000, k0=20, m0=40, k1=10, m1=20, design="random")
    with pytest.warns(jc.JudgeStatsWarning):
        est = jc.estimate(data)
    assert est.flags == ("labels_only",)
    _, low, high = labels_only_interval(20, 60, method="blaker")
    assert est.theta == pytest.approx(20 / 60)
    assert tuple(est.ci) == pytest.approx((float(low), float(high)))
    with pytest.raises(ValueError, match="chance"):
        jc.estimate(jc.JudgeData(k=500, n=1000, k0=20, m0=40, k1=10, m1=20))


counts_strategy = st.tuples(
    st.integers(10, 300),  # m
    st.integers(100, 100_000),  # n
    st.floats(0.0, 1.0),  # share correct among labelled
    st.floats(0.0, 1.0),  # q0-ish
    st.floats(0.0, 1.0),  # q1-ish
    st.floats(0.0, 1.0),  # p-ish
    st.sampled_from(["population", "items"]),
)


@settings(max_examples=60, deadline=None)
@given(counts_strategy)
def test_recommended_is_never_wider_than_labels_only(values):
    m, n, share, a, b, c, target = values
    m1 = round(share * m)
    m0 = m - m1
    k0, k1, k = round(a * m0), round(b * m1), round(c * n)
    data = jc.JudgeData(k=k, n=n, k0=k0, m0=m0, k1=k1, m1=m1, design="random")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = count_candidates(k, n, k0, m0, k1, m1, target=target, level=0.95)
    rec = recommend_random(data, 0.95, found, target=target)
    _, low, high = found["labels_only_blaker"]
    assert rec.high - rec.low <= (high - low) + 1e-12
    assert rec.target == target
    if rec.method == "labels_only_blaker":
        assert "the judge adds no information here" in rec.reason
        assert f"{m} labelled items alone" in rec.reason
    assert rec.reason.startswith("for ")


def test_crosscheck_on_random_data_uses_the_random_rule():
    data = jc.JudgeData(k=60000, n=100000, k0=190, m0=200, k1=290, m1=300, design="random")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check = jc.crosscheck(data, target="items", random_seed=0)
    rec = check.recommended
    assert rec is not None and rec.target == "items" and check.to_dict()["target"] == "items"
    found = jc.random_design_candidates(data, target="items", random_seed=0)
    assert rec.width <= found.width("labels_only_blaker") + 1e-12
    assert math.isfinite(rec.low) and rec.method in (
        "labels_only_blaker",
        "ppi_pp",
        "ppi_pp_wald",
        "posterior_eti",
        "posterior_hdi",
    )


def test_class_balance_contradiction_switches_to_the_stratified_rule():
    # labelled share 0.6, but the judge (q0 = q1 = 0.95) puts about 0.39 of the test set correct
    data = jc.JudgeData(k=4000, n=10000, k0=76, m0=80, k1=114, m1=120, design="random")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rec = jc.crosscheck(data, random_seed=0).recommended
    assert rec is not None
    assert "random-sampling assumption fails" in rec.reason
    assert rec.method in ("lang_reiczigel", "guaranteed")


def hand_pseudo_ppi_pp(k, n, k0, m0, k1, m1):
    """(centre, lambda, Var(r)) of PPI++ on the 2x2 table with z^2/4 pseudo-items a cell."""
    z = stats.norm.ppf(0.975)
    a = z**2 / 4
    cells = {  # (label, verdict): pseudo-count
        (1, 1): k1 + a,
        (1, 0): m1 - k1 + a,
        (0, 1): m0 - k0 + a,
        (0, 0): k0 + a,
    }
    total = sum(cells.values())
    prob = {cell: count / total for cell, count in cells.items()}
    mean_y = sum(p for (y, _), p in prob.items() if y == 1)
    mean_v = sum(p for (_, v), p in prob.items() if v == 1)
    cov = prob[(1, 1)] - mean_y * mean_v
    # all m + n verdicts pooled (labelled ones with their pseudo-items), divisor size - 1
    ones, size = k + mean_v * total, n + total
    var_all = ones * (size - ones) / (size * (size - 1))
    lam = min(1.0, max(0.0, cov / ((1 + (m0 + m1) / n) * var_all)))
    resid = {cell: cell[0] - lam * cell[1] for cell in cells}
    mean_r = sum(prob[c] * resid[c] for c in cells)
    var_r = sum(prob[c] * (resid[c] - mean_r) ** 2 for c in cells)
    return lam * k / n + mean_r, lam, var_r


def hand_corrected_ppi_pp(k, n, k0, m0, k1, m1):
    """The corrected PPI++ interval: pseudo-items, lambda jackknife over the items, t quantile.

    The jackknife deletes each labelled item in turn (items of one cell give the same value)
    and recomputes the pseudo-item PPI++ centre with lambda re-tuned.
    """
    z = stats.norm.ppf(0.975)
    m = m0 + m1
    centre, lam, var_r = hand_pseudo_ppi_pp(k, n, k0, m0, k1, m1)
    items = [(0, 0)] * k0 + [(0, 1)] * (m0 - k0) + [(1, 1)] * k1 + [(1, 0)] * (m1 - k1)
    removed = {
        (0, 0): (1, 1, 0, 0),
        (0, 1): (0, 1, 0, 0),
        (1, 1): (0, 0, 1, 1),
        (1, 0): (0, 0, 0, 1),
    }
    loo = []
    for item in items:
        d_k0, d_m0, d_k1, d_m1 = removed[item]
        loo.append(hand_pseudo_ppi_pp(k, n, k0 - d_k0, m0 - d_m0, k1 - d_k1, m1 - d_m1)[0])
    v_jack = (m - 1) / m * sum((t - sum(loo) / m) ** 2 for t in loo)
    # plug-in Var(Y - lam Yhat) of the real labelled items at the same lambda
    resid = [y - lam * v for y, v in items]
    v_fix = sum((r - sum(resid) / m) ** 2 for r in resid) / m / m
    p_tilde = (k + z**2 / 2) / (n + z**2)
    se = math.sqrt(lam**2 * p_tilde * (1 - p_tilde) / n + var_r / m + max(0.0, v_jack - v_fix))
    t = stats.t.ppf(0.975, m - 1)
    return centre - t * se, centre + t * se, lam


@pytest.mark.parametrize(
    "counts",
    [
        (6, 10, 2, 2, 3, 3),  # a judge without error on 5 labels: plug-in Var(r) = 0
        (70, 100, 8, 10, 27, 30),
        (0, 200, 12, 12, 0, 0),  # one class labelled, no verdict "correct"
    ],
)
def test_corrected_ppi_pp_by_hand_on_tiny_tables(counts):
    low, high, lam = hand_corrected_ppi_pp(*counts)
    estimate, c_low, c_high, c_lam = ppi_pp_counts(*counts)
    assert float(c_lam) == pytest.approx(lam, rel=1e-12)
    assert (float(c_low), float(c_high)) == pytest.approx(
        (max(0.0, low), min(1.0, high)), rel=1e-12, abs=1e-15
    )
    assert c_low <= estimate <= c_high
    assert c_high - c_low > 0.05  # the plug-in interval collapses on the first and last


def test_corrected_ppi_pp_with_an_errorless_judge_is_not_certain():
    # 30 labels, all correct, judged correct; 1,000 unlabelled, all judged correct
    _, low, high, _ = ppi_pp_counts(1000, 1000, 0, 0, 30, 30, small_sample=False)
    assert float(high - low) == 0.0  # plug-in: Var(Y) = Var(Yhat) = 0
    _, c_low, c_high, _ = ppi_pp_counts(1000, 1000, 0, 0, 30, 30)
    assert float(c_high) == 1.0 and 0.8 < float(c_low) < 0.99


def test_rule_lets_a_strong_judge_on_many_items_beat_the_labels():
    # 200 random labels (theta about 0.6), a judge with q0, q1 about 0.97, 100,000 items
    data = jc.JudgeData(k=59400, n=100000, k0=78, m0=80, k1=117, m1=120, design="random")
    for target in ("population", "items"):
        found = count_candidates(
            data.k, data.n, data.k0, data.m0, data.k1, data.m1, target=target, level=0.95
        )
        rec = recommend_random(data, 0.95, found, target=target)
        _, low, high = found["labels_only_blaker"]
        assert rec.method == "ppi_pp"
        assert rec.width < 0.8 * (high - low)
        # a strong judge on 200 labels: every plausible cell lets PPI++ below 95%, so the
        # interval is no wider than PPI++ at 95% and the reason names the simulated coverage
        assert rec.width < found["ppi_pp"][2] - found["ppi_pp"][1]
        assert rec.coverage is None and "conservative" in rec.reason and "94.6%" in rec.reason


def test_rule_gives_a_chance_judge_the_labels_alone():
    data = jc.JudgeData(k=5000, n=10000, k0=100, m0=200, k1=50, m1=100, design="random")
    for target in ("population", "items"):
        found = count_candidates(
            data.k, data.n, data.k0, data.m0, data.k1, data.m1, target=target, level=0.95
        )
        rec = recommend_random(data, 0.95, found, target=target)
        assert rec.method == "labels_only_blaker"
        assert "the judge adds no information here" in rec.reason
