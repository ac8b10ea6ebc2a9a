"""PPI and PPI++ (judgecal.ppi): hand formulas, the reference implementation, errors."""

import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import norm

import judgecal as jc
from judgecal.ppi import PPI_ASSUMPTION, ppi_counts, ppi_from_data

# -- by hand: Angelopoulos, Duchi & Zrnic (PPI++) for the mean, on small label vectors ----------
Y = [1, 1, 0, 1, 0]            # human labels of the labelled items
YHAT = [1, 0, 0, 1, 1]         # judge on the same items
YHAT_U = [1, 0, 1, 1, 0, 0, 1, 1]  # judge on the unlabelled items


def mean(values):
    return Fraction(sum(values), len(values))


def var0(values):  # divisor n, as ppi-python's .std(0)
    mu = mean(values)
    return sum((Fraction(v) - mu) ** 2 for v in values) / len(values)


def cov0(xs, ys):
    mx, my = mean(xs), mean(ys)
    products = [(Fraction(x) - mx) * (Fraction(y) - my) for x, y in zip(xs, ys, strict=True)]
    return sum(products) / len(xs)


def var1(values):  # divisor n - 1, as numpy.cov
    mu = mean(values)
    return sum((Fraction(v) - mu) ** 2 for v in values) / (len(values) - 1)


def by_hand(y, yhat, yhat_u, lam, level=0.95):
    lam = Fraction(lam)
    theta = lam * mean(yhat_u) + mean([a - lam * b for a, b in zip(y, yhat, strict=True)])
    se2 = (lam**2 * var0(yhat_u) / len(yhat_u)
           + var0([a - lam * b for a, b in zip(y, yhat, strict=True)]) / len(y))
    z = norm.ppf(1 - (1 - level) / 2)
    return float(theta), float(theta) - z * math.sqrt(se2), float(theta) + z * math.sqrt(se2)


def tuned_lambda(y, yhat, yhat_u):
    """PPI++ lambda for the mean: Cov(Y, Yhat) / ((1 + n/N) Var(all Yhat)), clipped to [0, 1]."""
    raw = cov0(y, yhat) / ((1 + Fraction(len(y), len(yhat_u))) * var1(list(yhat) + list(yhat_u)))
    return min(Fraction(1), max(Fraction(0), raw))


class TestByHand:
    def test_ppi_point_estimate_and_interval(self):
        # theta = mean(Yhat_u) + mean(Y - Yhat) = 5/8 + 0; se^2 = (15/64)/8 + (2/5)/5
        res = jc.ppi(Y, YHAT, YHAT_U)
        assert res.estimate == pytest.approx(5 / 8, abs=1e-15)
        se = math.sqrt(15 / 64 / 8 + 2 / 5 / 5)
        z = norm.ppf(0.975)
        assert res.ci.low == pytest.approx(5 / 8 - z * se, abs=1e-14)
        assert res.ci.high == pytest.approx(5 / 8 + z * se, abs=1e-14)
        assert res.lam == 1.0 and res.method == "PPI"
        assert res.se == pytest.approx(se, abs=1e-15)

    def test_ppi_plus_plus_lambda(self):
        # Cov0(Y, Yhat) = 2/5 - (3/5)(3/5) = 1/25; Var1 of the 13 verdicts (8 ones) = 8*5/(13*12);
        # lambda = (1/25) / ((1 + 5/8) * 10/39) = 312/3250 = 0.096
        assert tuned_lambda(Y, YHAT, YHAT_U) == Fraction(312, 3250)
        res = jc.ppi(Y, YHAT, YHAT_U, lam=None)
        assert res.lam == pytest.approx(0.096, abs=1e-15)
        assert res.method == "PPI++"
        expected = by_hand(Y, YHAT, YHAT_U, Fraction(312, 3250))
        assert res.estimate == pytest.approx(0.6 + 0.096 * (5 / 8 - 3 / 5), abs=1e-15)
        assert (res.estimate, *res.ci) == pytest.approx(expected, abs=1e-14)

    @pytest.mark.parametrize(("y", "yhat", "yhat_u", "expected_lam"), [
        # judge = human and many unlabelled items: the ratio exceeds 1 -> clipped to 1
        ([1, 0, 1, 0], [1, 0, 1, 0], [1] * 100, None),
        # judge contradicts the human on every item: negative covariance -> clipped to 0
        ([1, 0, 1, 0, 1], [0, 1, 0, 1, 0], [1, 1, 0, 0, 1, 0], 0),
    ])
    def test_lambda_clipping(self, y, yhat, yhat_u, expected_lam):
        raw = cov0(y, yhat) / ((1 + Fraction(len(y), len(yhat_u)))
                               * var1(list(yhat) + list(yhat_u)))
        lam = tuned_lambda(y, yhat, yhat_u)
        if expected_lam is None:
            assert raw > 1 and lam == 1
        else:
            assert raw < 0 and lam == 0
        res = jc.ppi(y, yhat, yhat_u, lam=None)
        assert res.lam == float(lam)
        assert (res.estimate, *res.ci) == pytest.approx(by_hand(y, yhat, yhat_u, lam), abs=1e-14)

    @pytest.mark.parametrize("lam", [0, 0.5, 1, 1.7])
    @pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
    def test_fixed_lambda_matches_formula(self, lam, level):
        res = jc.ppi(Y, YHAT, YHAT_U, lam=lam, confidence_level=level)
        assert (res.estimate, *res.ci) == pytest.approx(by_hand(Y, YHAT, YHAT_U, lam, level),
                                                        abs=1e-14)

    def test_lambda_zero_is_the_classical_mean(self):
        res = jc.ppi(Y, YHAT, YHAT_U, lam=0)
        z = norm.ppf(0.975)
        half = z * math.sqrt(0.6 * 0.4 / 5)
        assert (res.estimate, *res.ci) == pytest.approx((0.6, 0.6 - half, 0.6 + half), abs=1e-15)

    def test_constant_verdicts_give_lambda_zero(self):
        # every verdict is 1: the tuned ratio is 0/0; any lambda gives mean(Y) and its Wald se
        y = [1, 0, 1, 1]
        res = jc.ppi(y, [1, 1, 1, 1], [1, 1, 1], lam=None)
        assert res.lam == 0.0
        half = norm.ppf(0.975) * math.sqrt(0.75 * 0.25 / 4)
        assert (res.estimate, *res.ci) == pytest.approx((0.75, 0.75 - half, 0.75 + half),
                                                        abs=1e-15)
        fixed = jc.ppi(y, [1, 1, 1, 1], [1, 1, 1], lam=1.0)
        assert (fixed.estimate, *fixed.ci) == pytest.approx((res.estimate, *res.ci), abs=1e-15)


# -- the reference implementation ---------------------------------------------------------------
def random_labels(rng, m, big_n, theta, q0, q1):
    def verdicts(z):
        return np.where(z == 1, rng.random(z.size) < q1, rng.random(z.size) >= q0).astype(float)

    y = (rng.random(m) < theta).astype(float)
    z_u = (rng.random(big_n) < theta).astype(int)
    return y, verdicts(y.astype(int)), verdicts(z_u)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("lam", [1.0, None, 0.4])
def test_agrees_with_ppi_python(seed, lam):
    from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

    rng = np.random.default_rng(seed)
    m, big_n = int(rng.integers(5, 80)), int(rng.integers(20, 500))
    y, yhat, yhat_u = random_labels(rng, m, big_n, *rng.uniform(0.1, 0.9, 1),
                                    *rng.uniform(0.55, 0.98, 2))
    level = float(rng.choice([0.8, 0.9, 0.95]))
    ref_estimate = float(np.squeeze(ppi_mean_pointestimate(y, yhat, yhat_u, lam=lam)))
    ref_low, ref_high = (float(np.squeeze(v)) for v in
                         ppi_mean_ci(y, yhat, yhat_u, alpha=1 - level, lam=lam))
    res = jc.ppi(y, yhat, yhat_u, lam=lam, confidence_level=level)
    assert res.estimate == pytest.approx(ref_estimate, rel=1e-12, abs=1e-12)
    assert res.ci.low == pytest.approx(ref_low, rel=1e-12, abs=1e-12)
    assert res.ci.high == pytest.approx(ref_high, rel=1e-12, abs=1e-12)


def test_degenerate_verdicts_where_ppi_python_gives_nan():
    from ppi_py import ppi_mean_pointestimate

    y, yhat, yhat_u = np.array([1.0, 0, 1, 1]), np.ones(4), np.ones(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(ppi_mean_pointestimate(y, yhat, yhat_u, lam=None)).all()
    res = jc.ppi(y, yhat, yhat_u, lam=None)
    assert res.lam == 0.0 and res.estimate == pytest.approx(3 / 4, abs=1e-15)


# -- the result -----------------------------------------------------------------------------------
def test_result_names_its_assumption_and_serialises():
    res = jc.ppi(Y, YHAT, YHAT_U, lam=None)
    assert res.assumption == PPI_ASSUMPTION
    assert "Pr_P(Z - Z_hat) = Pr_Q(Z - Z_hat)" in res.assumption
    payload = json.loads(json.dumps(res.to_dict()))
    assert payload["method"] == "PPI++" and payload["lam"] == res.lam
    assert payload["n_labelled"] == 5 and payload["n_unlabelled"] == 8
    frame = res.summary()
    assert list(frame.columns) == ["estimate", "low", "high", "width", "lam", "assumption"]
    assert frame.loc["PPI++", "width"] == pytest.approx(res.ci.high - res.ci.low, abs=0)
    assert "assumes:" in str(res) and "PPI++" in str(res)


def test_inputs_not_mutated_and_types_accepted():
    import pandas as pd

    y, yhat, yhat_u = np.array(Y), pd.Series(YHAT), tuple(YHAT_U)
    before = (y.copy(), yhat.copy())
    res = jc.ppi(y, yhat, yhat_u)
    np.testing.assert_array_equal(y, before[0])
    pd.testing.assert_series_equal(yhat, before[1])
    assert res.estimate == pytest.approx(5 / 8, abs=1e-15)
    assert jc.ppi([True, True, False, True, False], YHAT, YHAT_U).estimate == res.estimate


def test_counts_api_broadcasts_like_scalar_calls():
    k = np.array([30, 55, 70])
    est, ci, lam, _ = ppi_counts(k, 100, 8, 10, 12, 15, lam=None)
    for i, ki in enumerate(k):
        e, c, la, _ = ppi_counts(int(ki), 100, 8, 10, 12, 15, lam=None)
        assert (est[i], ci.low[i], ci.high[i], lam[i]) == (float(e), float(c.low),
                                                          float(c.high), float(la))


def test_from_data_matches_item_level_call():
    data = jc.JudgeData(k=5, n=8, k0=1, m0=2, k1=2, m1=3, design="random")
    # cells of (Y, YHAT): (1,1) = 2, (1,0) = 1, (0,1) = 1, (0,0) = 1; 5 of 8 unlabelled say 1
    for lam in (1.0, None):
        a, b = ppi_from_data(data, lam=lam), jc.ppi(Y, YHAT, YHAT_U, lam=lam)
        assert (a.estimate, *a.ci, a.lam) == pytest.approx((b.estimate, *b.ci, b.lam), abs=1e-15)


# -- errors ---------------------------------------------------------------------------------
def test_from_data_needs_the_random_design():
    data = jc.JudgeData(k=5, n=8, k0=1, m0=2, k1=2, m1=3)
    with pytest.raises(ValueError, match=r"PPI needs design='random'.*'stratified'"):
        ppi_from_data(data)


@pytest.mark.parametrize(("args", "pattern"), [
    (([1, 2, 0], [1, 0, 0], [1]), r"`calib_human` must hold only 0/1 labels.*item 1 is 2"),
    (([1, 0, 0], [1, 0, np.nan], [1]), r"`calib_judge`.*item 2 is a missing value"),
    (([1, 0], [1, 0], [1, -1]), r"`test_judge`.*item 1 is -1"),
    (([1, 0, 1], [1, 0], [1]), r"`calib_human` \(3 items\) and `calib_judge` \(2 items\)"),
    (([], [], [1, 0]), r"`calib_human` is empty"),
    (([1, 0], [1, 0], []), r"`test_judge` is empty"),
])
def test_bad_labels(args, pattern):
    with pytest.raises(ValueError, match=pattern):
        jc.ppi(*args)


def test_bad_lambda_and_level():
    with pytest.raises(ValueError, match=r"`lam` \(nan\) must be finite"):
        jc.ppi(Y, YHAT, YHAT_U, lam=float("nan"))
    with pytest.raises(TypeError, match="`lam` must be a real number or None"):
        jc.ppi(Y, YHAT, YHAT_U, lam="tuned")
    with pytest.raises(TypeError, match="`lam`"):
        jc.ppi(Y, YHAT, YHAT_U, lam=True)
    with pytest.raises(ValueError, match=r"`confidence_level` \(1.5\) must lie strictly between"):
        jc.ppi(Y, YHAT, YHAT_U, confidence_level=1.5)
    with pytest.raises(TypeError, match="`test_judge` must be a sequence"):
        jc.ppi(Y, YHAT, 3)
