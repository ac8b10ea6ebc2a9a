"""The hierarchical stratified posterior (judgestats.stratified.bayesian, bayes.stratified_model).

Kept fast: one compiled model of three strata (a module-wide NutsCache) serves every NUTS fit,
with two chains and a few hundred draws. Expected values are derived by hand here: the
per-stratum Rogan-Gladen estimate theta_s = (p_s + q0_s - 1) / (q0_s + q1_s - 1) (Lee et al.
v1 eq. 3), the test-share weights w_s = n_s / N, and the no-pooling Beta(1 + k, 1 + m - k)
posterior of a stratum's q under its own calibration alone.
"""

from __future__ import annotations

import json
import warnings

import matplotlib
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import judgestats as jc
from judgestats.bayes import StratifiedPrior
from judgestats.bayes.nuts import NutsCache
from judgestats.stratified import StratifiedData, StratifiedPosterior, stratified_posterior

matplotlib.use("Agg")

CONVERGENCE_KEYS = {"r_hat", "low_ess", "divergences"}
SMALL = {"draws": 400, "tune": 400, "chains": 2}

# Three strata, 5000 test items and 400 + 400 calibration items each, counts chosen so that the
# Rogan-Gladen estimates are exactly theta = 0.5, 0.6, 0.4:
#   a: q0 = 340/400 = 0.85,  q1 = 360/400 = 0.90,  p = 0.5 * 0.90 + 0.5 * 0.15  = 0.525 (2625)
#   b: q0 = 320/400 = 0.80,  q1 = 370/400 = 0.925, p = 0.6 * 0.925 + 0.4 * 0.20 = 0.635 (3175)
#   c: q0 = 350/400 = 0.875, q1 = 330/400 = 0.825, p = 0.4 * 0.825 + 0.6 * 0.125 = 0.405 (2025)
RICH = StratifiedData(
    strata=("a", "b", "c"),
    k=[2625, 3175, 2025],
    n=[5000, 5000, 5000],
    k0=[340, 320, 350],
    m0=[400, 400, 400],
    k1=[360, 370, 330],
    m1=[400, 400, 400],
)
RICH_THETA = {"a": 0.5, "b": 0.6, "c": 0.4}

# Two strata with large calibration sets that agree (q0 ~ 0.84, q1 ~ 0.90) and one, "tiny",
# with three items per arm.
TINY = StratifiedData(
    strata=("big1", "big2", "tiny"),
    k=[1200, 1300, 300],
    n=[2000, 2000, 500],
    k0=[255, 250, 3],
    m0=[300, 300, 3],
    k1=[270, 272, 3],
    m1=[300, 300, 3],
)


@pytest.fixture(scope="module")
def cache() -> NutsCache:
    return NutsCache()


def _fit(data: StratifiedData, cache: NutsCache, **options):
    """Fit and return (result, the JudgeStatsWarnings it issued)."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = stratified_posterior(data, compiled=cache, progressbar=False, **options)
    return result, [w for w in caught if issubclass(w.category, jc.JudgeStatsWarning)]


@pytest.fixture(scope="module")
def rich(cache):
    return _fit(RICH, cache, random_seed=11, **SMALL)


@pytest.fixture(scope="module")
def tiny(cache):
    return _fit(TINY, cache, random_seed=12, **SMALL)


# -------------------------------------------------------------------------------------------
# one stratum: exactly the binary posterior
# -------------------------------------------------------------------------------------------
def test_single_stratum_reduces_exactly_to_the_binary_posterior():
    counts = {"k": 400, "n": 1000, "k0": 140, "m0": 200, "k1": 180, "m1": 200}
    data = StratifiedData(strata=("only",), **{key: [value] for key, value in counts.items()})
    result = stratified_posterior(data, prior=StratifiedPrior(tau_scale=0.3), random_seed=1)
    binary = jc.posterior(jc.JudgeData(**counts))
    assert result.method == "exact"
    for var, row in (("theta", result.theta_strata[0]), ("q0", result.q0[0]), ("q1", result.q1[0])):
        low, high = binary.ci(0.95, "eti", var)
        assert row.estimate == pytest.approx(binary.quantile(0.5, var), abs=1e-12)
        assert row.low == pytest.approx(low, abs=1e-12)
        assert row.high == pytest.approx(high, abs=1e-12)
    assert tuple(result.theta) == tuple(result.theta_strata[0])
    assert result.weights == (1.0,)
    assert result.idata.posterior["theta_s"].sizes["stratum"] == 1


@pytest.mark.slow
def test_one_stratum_on_request_samples_the_hierarchical_model():
    counts = {"k": 400, "n": 1000, "k0": 140, "m0": 200, "k1": 180, "m1": 200}
    data = StratifiedData(strata=("only",), **{key: [value] for key, value in counts.items()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        result = stratified_posterior(
            data, method="nuts", draws=50, tune=50, chains=1, random_seed=0, progressbar=False
        )
    assert result.method == "nuts"
    assert result.idata.posterior["tau"].sizes["arm"] == 2
    assert 0.0 <= result.theta.low <= result.theta.high <= 1.0


# -------------------------------------------------------------------------------------------
# several strata: NUTS on the hierarchical model
# -------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_flags_are_convergence_keys_and_warn_exactly_when_raised(rich):
    result, caught = rich
    assert isinstance(result, StratifiedPosterior)
    assert set(result.flags) <= CONVERGENCE_KEYS
    assert bool(result.flags) == bool(caught)
    assert result.method == "nuts"
    assert result.diagnostics["divergences"] >= 0


@pytest.mark.slow
def test_lots_of_data_agrees_with_per_stratum_rogan_gladen(rich):
    result, _ = rich
    for name, expected in RICH_THETA.items():
        sd = np.std(result.draws("theta", name))
        assert 0 < sd < 0.05
        assert result.stratum(name)["theta"].estimate == pytest.approx(expected, abs=3 * sd)
    # the overall theta: sum_s w_s theta_s with equal shares w_s = 1/3 -> 0.5
    assert result.weights == pytest.approx((1 / 3, 1 / 3, 1 / 3))
    sd = np.std(result.draws("theta"))
    assert result.theta.estimate == pytest.approx(0.5, abs=3 * sd)
    assert result.theta.low < 0.5 < result.theta.high
    # the calibration rates: q0 = k0 / m0, q1 = k1 / m1 within three posterior sd
    for index, name in enumerate(RICH.strata):
        for var, k, m in (("q0", RICH.k0, RICH.m0), ("q1", RICH.k1, RICH.m1)):
            sd = np.std(result.draws(var, name))
            assert result.stratum(name)[var].estimate == pytest.approx(
                k[index] / m[index], abs=3 * sd
            )


@pytest.mark.slow
def test_overall_theta_is_the_weighted_sum_of_the_strata_draw_by_draw(rich):
    result, _ = rich
    stacked = np.column_stack([result.draws("theta", name) for name in RICH.strata])
    weights = RICH.n / RICH.n.sum()  # 1/3 each
    np.testing.assert_allclose(result.draws("theta"), stacked @ weights, rtol=1e-12)


@pytest.mark.slow
def test_tiny_calibration_borrows_strength_from_agreeing_strata(tiny):
    result, _ = tiny
    for var, k, m in (("q0", 3, 3), ("q1", 3, 3)):
        alone = stats.beta(1 + k, 1 + m - k).ppf([0.025, 0.975])
        pooled = result.stratum("tiny")[var]
        assert pooled.width < 0.75 * (alone[1] - alone[0])
    # the large strata are barely moved: still near their own k / m
    for var, k, m in (("q0", 255, 300), ("q1", 270, 300)):
        assert result.stratum("big1")[var].estimate == pytest.approx(k / m, abs=0.03)


@pytest.mark.slow
def test_reproducible_with_random_seed(cache):
    options = {"draws": 30, "tune": 30, "chains": 2, "compiled": cache, "progressbar": False}
    with pytest.warns(jc.JudgeStatsWarning):  # 60 draws: low_ess at least
        first = stratified_posterior(RICH, random_seed=5, **options)
    with pytest.warns(jc.JudgeStatsWarning):
        again = stratified_posterior(RICH, random_seed=5, **options)
    with pytest.warns(jc.JudgeStatsWarning):
        other = stratified_posterior(RICH, random_seed=6, **options)
    assert "low_ess" in first.flags
    np.testing.assert_array_equal(first.draws("theta"), again.draws("theta"))
    assert not np.array_equal(first.draws("theta"), other.draws("theta"))
    assert cache.info()["size"] == 1  # every fit of three strata reused one compilation
    with pytest.warns(jc.JudgeStatsWarning):
        forked = stratified_posterior(RICH, random_seed=5, cores=2, **options)
    # chain c uses the c-th child of the seed wherever it runs
    np.testing.assert_array_equal(forked.draws("theta"), first.draws("theta"))


# -------------------------------------------------------------------------------------------
# errors
# -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("options", "error", "pattern"),
    [
        ({"draws": 0}, ValueError, "`draws`"),
        ({"draws": 2.5}, ValueError, "`draws`"),
        ({"tune": -1}, ValueError, "`tune`"),
        ({"chains": 0}, ValueError, "`chains`"),
        ({"chains": "4"}, TypeError, "`chains`"),
        ({"cores": 0}, ValueError, "`cores`"),
        ({"prior": 1.0}, TypeError, "`prior` must be a judgestats.bayes.StratifiedPrior"),
        ({"method": "importance"}, ValueError, "`method`"),
        ({"method": "exact"}, ValueError, "needs one stratum"),
        ({"target_accept": 1.0}, ValueError, "`target_accept`"),
        ({"prob": 0.0}, ValueError, "`prob`"),
        ({"random_seed": "x"}, TypeError, "`random_seed`"),
        ({"compiled": {}}, TypeError, "`compiled`"),
    ],
)
def test_bad_options_raise_naming_the_argument(options, error, pattern):
    with pytest.raises(error, match=pattern):
        stratified_posterior(RICH, **options)


@pytest.mark.parametrize(
    ("scale", "error"),
    [
        (0.0, ValueError),
        (-1.0, ValueError),
        (float("inf"), ValueError),
        (float("nan"), ValueError),
        ("1", TypeError),
        (True, TypeError),
    ],
)
def test_bad_prior_scale_raises_naming_it(scale, error):
    with pytest.raises(error, match="`tau_scale`"):
        StratifiedPrior(tau_scale=scale)


def test_data_must_be_stratified_counts():
    with pytest.raises(TypeError, match="`data`"):
        stratified_posterior(jc.JudgeData(k=4, n=10, k0=7, m0=10, k1=7, m1=10))


# -------------------------------------------------------------------------------------------
# the result contract
# -------------------------------------------------------------------------------------------
@pytest.mark.slow
def test_summary_is_a_table_of_every_quantity(rich):
    result, _ = rich
    frame = result.summary()
    assert isinstance(frame, pd.DataFrame)
    expected = ["theta"] + [f"{v}[{s}]" for s in RICH.strata for v in ("theta", "q0", "q1")]
    assert list(frame.index) == expected
    assert {"estimate", "low", "high", "width", "weight"} <= set(frame.columns)
    assert (frame["low"] <= frame["estimate"]).all()
    assert (frame["estimate"] <= frame["high"]).all()
    np.testing.assert_allclose(frame["width"], frame["high"] - frame["low"])
    assert frame.loc["theta[b]", "weight"] == pytest.approx(5000 / 15000)


@pytest.mark.slow
def test_to_dict_is_json_safe_and_complete(rich):
    result, _ = rich
    out = json.loads(json.dumps(result.to_dict()))
    assert out["method"] == "nuts"
    assert set(out["strata"]) == set(RICH.strata)
    assert out["strata"]["a"]["q1"]["estimate"] == pytest.approx(result.q1[0].estimate)
    assert out["theta"]["low"] == pytest.approx(result.theta.low)
    assert set(out["flags"]) == set(result.flags)
    assert out["inputs"]["n"] == [5000, 5000, 5000]


@pytest.mark.slow
def test_plot_html_and_text(rich):
    result, _ = rich
    ax = result.plot()
    assert isinstance(ax, matplotlib.axes.Axes)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    ticks = sorted(zip(ax.get_yticks(), labels, strict=True))
    assert [label for _, label in ticks[::-1]] == ["theta[a]", "theta[b]", "theta[c]", "theta"]
    matplotlib.pyplot.close(ax.figure)
    html = result._repr_html_()
    assert "<table" in html and "q0[c]" in html
    text = str(result)
    assert "theta[a]" in text and "q1[c]" in text
    with pytest.raises(KeyError, match="`name`"):
        result.stratum("nope")
