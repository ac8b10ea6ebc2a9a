"""PPI and PPI++ (judgestats.designs.prediction_powered): hand formulas, reference code, errors."""

import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import norm

import judgestats as jc
from judgestats.designs.prediction_powered import PPI_ASSUMPTION, ppi_counts, ppi_from_data

# -- by hand: Angelopoulos, Duchi & Zrnic (PPI++) for the mean, on small label vectors ----------
Y = [1, 1, 0, 1, 0]  # human labels of the labelled items
YHAT = [1, 0, 0, 1, 1]  # judge on the same items
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
    se2 = lam**2 * var0(yhat_u) / len(yhat_u) + var0(
        [a - lam * b for a, b in zip(y, yhat, strict=True)]
    ) / len(y)
    z = norm.ppf(1 - (1 - level) / 2)
    return float(theta), float(theta) - z * math.sqrt(se2), float(theta) + z * math.sqrt(se2)


def clip01(values):
    return tuple(min(1.0, max(0.0, float(v))) for v in values)


def quiet_ppi(*args, **kwargs):
    """jc.ppi with its boundary flags' JudgeStatsWarning silenced (the by-hand cases are tiny)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", jc.JudgeStatsWarning)
        return jc.ppi(*args, **kwargs)


def unclipped(res):
    """(estimate, low, high) before truncation to [0, 1], rebuilt from the result's numbers."""
    half = norm.ppf(1 - (1 - res.confidence_level) / 2) * res.se
    return res.estimate_raw, res.estimate_raw - half, res.estimate_raw + half


def assert_matches(res, expected, abs_tol=1e-14):
    """The untruncated numbers match ``expected``; the reported ones are its truncation."""
    assert unclipped(res) == pytest.approx(expected, abs=abs_tol)
    assert (res.estimate, *res.ci) == pytest.approx(clip01(expected), abs=abs_tol)


def tuned_lambda(y, yhat, yhat_u):
    """PPI++ lambda for the mean: Cov(Y, Yhat) / ((1 + n/N) Var(all Yhat)), clipped to [0, 1]."""
    raw = cov0(y, yhat) / ((1 + Fraction(len(y), len(yhat_u))) * var1(list(yhat) + list(yhat_u)))
    return min(Fraction(1), max(Fraction(0), raw))


class TestByHand:
    def test_ppi_point_estimate_and_interval(self):
        # theta = mean(Yhat_u) + mean(Y - Yhat) = 5/8 + 0; se^2 = (15/64)/8 + (2/5)/5
        # 5/8 -/+ 1.96 * 0.33 reaches outside [0, 1] on both sides: truncated, and flagged
        with pytest.warns(jc.JudgeStatsWarning):
            res = jc.ppi(Y, YHAT, YHAT_U)
        assert res.estimate == res.estimate_raw == pytest.approx(5 / 8, abs=1e-15)
        se = math.sqrt(15 / 64 / 8 + 2 / 5 / 5)
        z = norm.ppf(0.975)
        assert_matches(res, (5 / 8, 5 / 8 - z * se, 5 / 8 + z * se))
        assert tuple(res.ci) == (0.0, 1.0)
        assert res.lam == 1.0 and res.method == "PPI"
        assert res.se == pytest.approx(se, abs=1e-15)
        assert res.flags == ("interval_truncated",)

    def test_ppi_plus_plus_lambda(self):
        # Cov0(Y, Yhat) = 2/5 - (3/5)(3/5) = 1/25; Var1 of the 13 verdicts (8 ones) = 8*5/(13*12);
        # lambda = (1/25) / ((1 + 5/8) * 10/39) = 312/3250 = 0.096
        assert tuned_lambda(Y, YHAT, YHAT_U) == Fraction(312, 3250)
        res = quiet_ppi(Y, YHAT, YHAT_U, lam=None)
        assert res.lam == pytest.approx(0.096, abs=1e-15)
        assert res.method == "PPI++"
        expected = by_hand(Y, YHAT, YHAT_U, Fraction(312, 3250))
        assert res.estimate == pytest.approx(0.6 + 0.096 * (5 / 8 - 3 / 5), abs=1e-15)
        assert_matches(res, expected)

    @pytest.mark.parametrize(
        ("y", "yhat", "yhat_u", "expected_lam"),
        [
            # judge = human and many unlabelled items: the ratio exceeds 1 -> clipped to 1
            ([1, 0, 1, 0], [1, 0, 1, 0], [1] * 100, None),
            # judge contradicts the human on every item: negative covariance -> clipped to 0
            ([1, 0, 1, 0, 1], [0, 1, 0, 1, 0], [1, 1, 0, 0, 1, 0], 0),
        ],
    )
    def test_lambda_clipping(self, y, yhat, yhat_u, expected_lam):
        raw = cov0(y, yhat) / (
            (1 + Fraction(len(y), len(yhat_u))) * var1(list(yhat) + list(yhat_u))
        )
        lam = tuned_lambda(y, yhat, yhat_u)
        if expected_lam is None:
            assert raw > 1 and lam == 1
        else:
            assert raw < 0 and lam == 0
        res = quiet_ppi(y, yhat, yhat_u, lam=None)
        assert res.lam == float(lam)
        assert_matches(res, by_hand(y, yhat, yhat_u, lam))

    @pytest.mark.parametrize("lam", [0, 0.5, 1, 1.7])
    @pytest.mark.parametrize("level", [0.8, 0.95, 0.99])
    def test_fixed_lambda_matches_formula(self, lam, level):
        res = quiet_ppi(Y, YHAT, YHAT_U, lam=lam, confidence_level=level)
        assert_matches(res, by_hand(Y, YHAT, YHAT_U, lam, level))

    def test_lambda_zero_is_the_classical_mean(self):
        res = quiet_ppi(Y, YHAT, YHAT_U, lam=0)
        z = norm.ppf(0.975)
        half = z * math.sqrt(0.6 * 0.4 / 5)
        assert_matches(res, (0.6, 0.6 - half, 0.6 + half), abs_tol=1e-15)

    def test_constant_verdicts_give_lambda_zero(self):
        # every verdict is 1: the tuned ratio is 0/0; any lambda gives mean(Y) and its Wald se
        y = [1, 0, 1, 1]
        res = quiet_ppi(y, [1, 1, 1, 1], [1, 1, 1], lam=None)
        assert res.lam == 0.0
        half = norm.ppf(0.975) * math.sqrt(0.75 * 0.25 / 4)
        assert_matches(res, (0.75, 0.75 - half, 0.75 + half), abs_tol=1e-15)
        fixed = quiet_ppi(y, [1, 1, 1, 1], [1, 1, 1], lam=1.0)
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
    y, yhat, yhat_u = random_labels(
        rng, m, big_n, *rng.uniform(0.1, 0.9, 1), *rng.uniform(0.55, 0.98, 2)
    )
    level = float(rng.choice([0.8, 0.9, 0.95]))
    ref_estimate = float(np.squeeze(ppi_mean_pointestimate(y, yhat, yhat_u, lam=lam)))
    ref_low, ref_high = (
        float(np.squeeze(v)) for v in ppi_mean_ci(y, yhat, yhat_u, alpha=1 - level, lam=lam)
    )
    res = jc.ppi(y, yhat, yhat_u, lam=lam, confidence_level=level)
    assert 0 < ref_low < ref_high < 1 and res.flags == ()  # inside [0, 1]: ppi-python's numbers
    assert res.estimate == pytest.approx(ref_estimate, rel=1e-12, abs=1e-12)
    assert res.ci.low == pytest.approx(ref_low, rel=1e-12, abs=1e-12)
    assert res.ci.high == pytest.approx(ref_high, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("lam", [1.0, None])
def test_agrees_with_ppi_python_truncated_at_the_boundary(seed, lam):
    # accuracy near 0 or 1 and few labels: ppi-python's interval (and PPI's estimate) often
    # leave [0, 1]; judgestats's numbers are ppi-python's truncated to [0, 1]
    from ppi_py import ppi_mean_ci, ppi_mean_pointestimate

    rng = np.random.default_rng(100 + seed)
    theta = float(rng.choice([0.03, 0.97]))
    y, yhat, yhat_u = random_labels(
        rng, int(rng.integers(8, 25)), int(rng.integers(10, 60)), theta, 0.8, 0.8
    )
    y[:2] = [0.0, 1.0]  # both classes labelled (one class: see TestOneClassLabelled)
    ref_estimate = float(np.squeeze(ppi_mean_pointestimate(y, yhat, yhat_u, lam=lam)))
    ref = [float(np.squeeze(v)) for v in ppi_mean_ci(y, yhat, yhat_u, alpha=0.05, lam=lam)]
    res = quiet_ppi(y, yhat, yhat_u, lam=lam)
    assert res.estimate_raw == pytest.approx(ref_estimate, rel=1e-12, abs=1e-12)
    assert (res.estimate, *res.ci) == pytest.approx(clip01((ref_estimate, *ref)), abs=1e-12)
    assert ("interval_truncated" in res.flags) == (ref[0] < 0 or ref[1] > 1)
    assert ("estimate_clipped" in res.flags) == (not 0 <= ref_estimate <= 1)
    assert "one_class_labelled" not in res.flags


class TestTruncation:
    def test_issue_example(self):
        # one labelled item (human 1, judge 1), unlabelled verdicts 1, 0, 1: the CLT interval
        # 2/3 -/+ z se reached 1.2 before truncation (and the single label is one class)
        with pytest.warns(jc.JudgeStatsWarning) as record:
            res = jc.ppi([1], [1], [1, 0, 1])
        assert len(record) == 1
        assert res.estimate == pytest.approx(2 / 3, abs=1e-15)
        assert 0.0 <= res.ci.low <= res.estimate <= res.ci.high == 1.0
        assert res.flags == ("interval_truncated", "one_class_labelled")

    def test_estimate_clipped_and_interval_truncated(self):
        # phi = 3/4, c = 1/2, r = 1/2, p = 9/10: theta = 9/10 + 3/4 - 1/2 = 1.15 (PPI)
        with pytest.warns(jc.JudgeStatsWarning):
            res = jc.ppi([1, 1, 1, 0], [1, 1, 0, 0], [1] * 9 + [0])
        se = math.sqrt(0.09 / 10 + (3 / 16 + 1 / 4 - 2 * (1 / 2 - 3 / 8)) / 4)
        z = norm.ppf(0.975)
        assert_matches(res, (1.15, 1.15 - z * se, 1.15 + z * se))
        assert res.estimate == 1.0 and res.estimate_raw == pytest.approx(1.15, abs=1e-15)
        assert res.ci == (pytest.approx(1.15 - z * se, abs=1e-14), 1.0)
        assert res.flags == ("estimate_clipped", "interval_truncated")
        payload = json.loads(json.dumps(res.to_dict()))
        assert payload["estimate"] == 1.0
        assert payload["estimate_unclipped"] == pytest.approx(1.15, abs=1e-15)
        assert set(payload["flags"]) == {"estimate_clipped", "interval_truncated"}
        assert str(res).count("warning:") == 2

    def test_inside_the_unit_interval_no_flag(self):
        with warnings.catch_warnings():
            warnings.simplefilter("error", jc.JudgeStatsWarning)
            res = jc.ppi(
                [1] * 30 + [0] * 10, [1] * 27 + [0] * 3 + [0] * 8 + [1] * 2, [1] * 70 + [0] * 30
            )
        assert res.flags == () and res.estimate == res.estimate_raw
        assert res.to_dict()["flags"] == {} and "warning:" not in str(res)

    def test_counts_api_truncates_unless_told_not_to(self):
        k = np.array([0, 5, 9, 10])
        est, ci, lam, se = ppi_counts(k, 10, 2, 2, 1, 2, lam=1.0)
        raw_est, raw_ci, raw_lam, raw_se = ppi_counts(k, 10, 2, 2, 1, 2, lam=1.0, adjust=False)
        np.testing.assert_array_equal(est, np.clip(raw_est, 0, 1))
        np.testing.assert_array_equal(ci.low, np.clip(raw_ci.low, 0, 1))
        np.testing.assert_array_equal(ci.high, np.clip(raw_ci.high, 0, 1))
        np.testing.assert_array_equal(se, raw_se)
        assert raw_ci.high[-1] > 1 and raw_ci.low[0] < 0 and raw_est[-1] > 1
        assert np.all((ci.low >= 0) & (ci.high <= 1))

    def test_counts_api_adjust_must_be_a_bool(self):
        with pytest.raises(TypeError, match=r"`adjust` must be True or False, got 'yes'"):
            ppi_counts(5, 10, 2, 2, 1, 2, adjust="yes")


class TestOneClassLabelled:
    # 30 labelled items, all truly correct; the judge says "correct" for 28 of them and for
    # 930 of 970 unlabelled items: accuracy near 1, m0 = 0
    Y1, YHAT1, YHAT_U1 = [1] * 30, [1] * 28 + [0] * 2, [1] * 930 + [0] * 40

    def test_ppi_python_gives_a_zero_width_interval_here(self):
        from ppi_py import ppi_mean_ci

        low, high = (
            float(np.squeeze(v))
            for v in ppi_mean_ci(
                np.array(self.Y1, float),
                np.array(self.YHAT1, float),
                np.array(self.YHAT_U1, float),
                alpha=0.05,
                lam=None,
            )
        )
        assert low == high == 1.0  # PPI++: lambda-hat = 0, se = 0: "theta = 1 for certain"

    def test_ppi_plus_plus_is_widened_by_the_agresti_coull_label_variance(self):
        with pytest.warns(jc.JudgeStatsWarning) as record:
            res = jc.ppi(self.Y1, self.YHAT1, self.YHAT_U1, lam=None)
        assert len(record) == 1
        assert res.flags == ("interval_truncated", "one_class_labelled")
        assert res.lam == 0.0 and res.estimate == 1.0
        z = norm.ppf(0.975)
        phi = (30 + z**2 / 2) / (30 + z**2)  # the Agresti-Coull-adjusted label mean
        se = math.sqrt(phi * (1 - phi) / 30)
        assert res.se == pytest.approx(se, abs=1e-15)
        assert tuple(res.ci) == pytest.approx((1 - z * se, 1.0), abs=1e-14)
        assert 0.05 < res.ci.high - res.ci.low < 0.1  # about the rule of three's 3/30

    def test_ppi_adds_the_label_variance_to_the_judge_term(self):
        res = quiet_ppi(self.Y1, self.YHAT1, self.YHAT_U1)
        z = norm.ppf(0.975)
        phi = (30 + z**2 / 2) / (30 + z**2)
        p, c = 930 / 970, 28 / 30
        se = math.sqrt(p * (1 - p) / 970 + (phi * (1 - phi) + c * (1 - c)) / 30)
        assert res.se == pytest.approx(se, abs=1e-15)
        assert res.estimate_raw == pytest.approx(p + 1 - c, abs=1e-15)
        assert tuple(res.ci) == pytest.approx((p + 1 - c - z * se, 1.0), abs=1e-14)
        assert set(res.flags) == {"estimate_clipped", "interval_truncated", "one_class_labelled"}
        # with adjust=False the counts API gives ppi-python's (narrower) interval
        _, raw_ci, _, raw_se = ppi_counts(930, 970, 0, 0, 28, 30, adjust=False)
        assert float(raw_se) == pytest.approx(
            math.sqrt(p * (1 - p) / 970 + c * (1 - c) / 30), abs=1e-15
        )
        assert float(raw_se) < res.se

    @pytest.mark.parametrize("lam", [1.0, None, 0.0])
    def test_all_labels_zero_mirrors_all_labels_one(self, lam):
        # swapping "correct" and "incorrect" maps theta to 1 - theta
        ones = quiet_ppi(self.Y1, self.YHAT1, self.YHAT_U1, lam=lam)
        zeros = quiet_ppi(
            *([1 - v for v in seq] for seq in (self.Y1, self.YHAT1, self.YHAT_U1)), lam=lam
        )
        assert "one_class_labelled" in zeros.flags
        assert zeros.estimate == pytest.approx(1 - ones.estimate, abs=1e-14)
        assert tuple(zeros.ci) == pytest.approx((1 - ones.ci.high, 1 - ones.ci.low), abs=1e-14)
        assert zeros.ci.high - zeros.ci.low > 0

    def test_from_data_with_one_class(self):
        data = jc.JudgeData(k=930, n=970, k0=0, m0=0, k1=28, m1=30, design="random")
        with pytest.warns(jc.JudgeStatsWarning):
            res = ppi_from_data(data, lam=None)
        item = quiet_ppi(self.Y1, self.YHAT1, self.YHAT_U1, lam=None)
        assert (res.estimate, *res.ci, res.lam, res.flags) == (
            item.estimate,
            *item.ci,
            item.lam,
            item.flags,
        )


def test_degenerate_verdicts_where_ppi_python_gives_nan():
    from ppi_py import ppi_mean_pointestimate

    y, yhat, yhat_u = np.array([1.0, 0, 1, 1]), np.ones(4), np.ones(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert np.isnan(ppi_mean_pointestimate(y, yhat, yhat_u, lam=None)).all()
    res = quiet_ppi(y, yhat, yhat_u, lam=None)
    assert res.lam == 0.0 and res.estimate == pytest.approx(3 / 4, abs=1e-15)


# -- the result -----------------------------------------------------------------------------------
def test_result_names_its_assumption_and_serialises():
    res = quiet_ppi(Y, YHAT, YHAT_U, lam=None)
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
    res = quiet_ppi(y, yhat, yhat_u)
    np.testing.assert_array_equal(y, before[0])
    pd.testing.assert_series_equal(yhat, before[1])
    assert res.estimate == pytest.approx(5 / 8, abs=1e-15)
    assert quiet_ppi([True, True, False, True, False], YHAT, YHAT_U).estimate == res.estimate


def test_counts_api_broadcasts_like_scalar_calls():
    k = np.array([30, 55, 70])
    est, ci, lam, _ = ppi_counts(k, 100, 8, 10, 12, 15, lam=None)
    for i, ki in enumerate(k):
        e, c, la, _ = ppi_counts(int(ki), 100, 8, 10, 12, 15, lam=None)
        assert (est[i], ci.low[i], ci.high[i], lam[i]) == (
            float(e),
            float(c.low),
            float(c.high),
            float(la),
        )


def test_from_data_matches_item_level_call():
    data = jc.JudgeData(k=5, n=8, k0=1, m0=2, k1=2, m1=3, design="random")
    # cells of (Y, YHAT): (1,1) = 2, (1,0) = 1, (0,1) = 1, (0,0) = 1; 5 of 8 unlabelled say 1
    for lam in (1.0, None):
        with pytest.warns(jc.JudgeStatsWarning):
            a = ppi_from_data(data, lam=lam)
        b = quiet_ppi(Y, YHAT, YHAT_U, lam=lam)
        assert (a.estimate, *a.ci, a.lam) == pytest.approx((b.estimate, *b.ci, b.lam), abs=1e-15)
        assert a.flags == b.flags


# -- errors ---------------------------------------------------------------------------------
def test_from_data_needs_the_random_design():
    data = jc.JudgeData(k=5, n=8, k0=1, m0=2, k1=2, m1=3)
    with pytest.raises(ValueError, match=r"PPI needs design='random'.*'stratified'"):
        ppi_from_data(data)


@pytest.mark.parametrize(
    ("args", "pattern"),
    [
        (([1, 2, 0], [1, 0, 0], [1]), r"`calib_human` must hold only 0/1 labels.*item 1 is 2"),
        (([1, 0, 0], [1, 0, np.nan], [1]), r"`calib_judge`.*item 2 is a missing value"),
        (([1, 0], [1, 0], [1, -1]), r"`test_judge`.*item 1 is -1"),
        (([1, 0, 1], [1, 0], [1]), r"`calib_human` \(3 items\) and `calib_judge` \(2 items\)"),
        (([], [], [1, 0]), r"`calib_human` is empty"),
        (([1, 0], [1, 0], []), r"`test_judge` is empty"),
    ],
)
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


def test_result_is_an_interval_result_that_unpacks():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.axes import Axes

    from judgestats.results import IntervalResult, Result

    # PPI (lambda = 1) by hand on the small vectors: theta = 5/8 + (3/5 - 3/5) = 5/8
    res = quiet_ppi(Y, YHAT, YHAT_U)
    assert isinstance(res, jc.PPIResult) and isinstance(res, IntervalResult)
    assert isinstance(res, Result)
    estimate, low, high = res
    assert (estimate, low, high) == pytest.approx(clip01(by_hand(Y, YHAT, YHAT_U, 1)), abs=1e-12)
    assert (res.low, res.high) == tuple(res.ci) and res.width == res.high - res.low
    assert res.contains(0.625) and not res.contains(1.5)
    with pytest.raises(TypeError):  # fields are keyword-only
        jc.PPIResult(0.5, jc.ConfidenceInterval(0.4, 0.6), 0.95, "PPI")
    ax = res.plot()
    assert isinstance(ax, Axes)
    plt.close("all")
    assert "PPI" in res._repr_html_()


def test_counts_api_errors_name_the_counts():
    with pytest.raises(ValueError, match=r"`m0` \+ `m1` \(0\) must be at least 1"):
        ppi_counts(5, 10, 0, 0, 0, 0)
    with pytest.raises(ValueError, match=r"`k` \(11\) must not exceed `n` \(10\)"):
        ppi_counts(11, 10, 1, 2, 1, 2)
    with pytest.raises(ValueError, match=r"`n` \(0\) must be at least 1"):
        ppi_counts(0, 0, 1, 2, 1, 2)
    with pytest.raises(ValueError, match=r"`k1` must not exceed `m1`; at index 1 `k1` is 3"):
        ppi_counts([1, 2], 10, 1, 2, [1, 3], 2)
