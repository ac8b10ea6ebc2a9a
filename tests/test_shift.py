"""The five estimators of Lee et al. (ICML 2026) Table 2 (judgestats.designs.shift); class balance.

Lee et al. (ICML 2026) is the later version of arXiv 2511.21140, "How to Correctly Report
LLM-as-a-Judge Evaluations".
"""

import math
import re

import numpy as np
import pytest
from scipy.stats import norm

import judgestats as jc
from judgestats.designs.shift import (
    ASSUMPTIONS,
    ESTIMATORS,
    class_balance_test,
    shift_point_estimates,
)
from judgestats.exceptions import JudgeStatsWarning

Z95 = norm.ppf(0.975)


def wald(p, n):
    half = Z95 * math.sqrt(p * (1 - p) / n)
    return max(0.0, p - half), min(1.0, p + half)


def table2_by_matrices(data):
    """Lee et al. (ICML 2026) Table 2 in matrix form (App. B.3), from the 2 x 2 labelled table."""
    joint = np.array(
        [
            [data.k1, data.m0 - data.k0],  # rows: Z-hat = 1, 0
            [data.m1 - data.k1, data.k0],
        ],
        float,
    )  # cols: Z = 1, 0
    e_p_zhat = np.array([data.p, 1 - data.p])
    confusion = joint / joint.sum(axis=0, keepdims=True)  # Pr_Q(Z-hat | Z)
    calibration = (joint / joint.sum(axis=1, keepdims=True)).T  # Pr_Q(Z | Z-hat), rows Z
    e_q_z = joint.sum(axis=0) / joint.sum()
    e_q_zhat = joint.sum(axis=1) / joint.sum()
    return {
        "naive": e_p_zhat[0],
        "calibration_only": e_q_z[0],
        "difference": (e_p_zhat + e_q_z - e_q_zhat)[0],
        "conditional_calibration": (calibration @ e_p_zhat)[0],
        "misclassification_adjusted": np.linalg.solve(confusion, e_p_zhat)[0],
    }


SHIFTED = jc.JudgeData(k=300, n=800, k0=50, m0=70, k1=110, m1=130, design="random")
CONSISTENT = jc.JudgeData(k=600, n=1000, k0=70, m0=100, k1=90, m1=100, design="random")


class TestTable2:
    def test_estimates_match_the_matrix_formulas(self):
        frame = jc.shift_estimators(CONSISTENT).summary()
        expected = table2_by_matrices(CONSISTENT)
        for name in ESTIMATORS:
            assert frame.loc[name, "estimate"] == pytest.approx(expected[name], abs=1e-12)

    def test_layout_and_assumptions(self):
        frame = jc.shift_estimators(CONSISTENT).summary()
        assert list(frame.index) == list(ESTIMATORS) and frame.index.name == "estimator"
        assert list(frame.columns) == ["estimate", "low", "high", "assumption"]
        # the right-hand column of Lee et al. (ICML 2026) Table 2
        for name, condition in [
            ("naive", "Pr_P(Z) = Pr_P(Z_hat)"),
            ("calibration_only", "Pr_P(Z) = Pr_Q(Z)"),
            ("difference", "Pr_P(Z - Z_hat) = Pr_Q(Z - Z_hat)"),
            ("conditional_calibration", "Pr_P(Z | Z_hat) = Pr_Q(Z | Z_hat)"),
            ("misclassification_adjusted", "Pr_P(Z_hat | Z) = Pr_Q(Z_hat | Z)"),
        ]:
            assert frame.loc[name, "assumption"].startswith(condition)
            assert ASSUMPTIONS[name] == frame.loc[name, "assumption"]
        assert frame.attrs["confidence_level"] == 0.95
        assert frame.attrs["class_balance"]["p_value"] > 0.05

    def test_intervals(self):
        d = CONSISTENT
        frame = jc.shift_estimators(d, confidence_level=0.95).summary()
        assert tuple(frame.loc["naive", ["low", "high"]]) == pytest.approx(wald(0.6, 1000))
        assert tuple(frame.loc["calibration_only", ["low", "high"]]) == pytest.approx(
            wald(0.5, 200)
        )
        ppi = jc.ppi(
            [1] * 90 + [1] * 10 + [0] * 70 + [0] * 30,  # Y: 100 correct, 100 not
            [1] * 90 + [0] * 10 + [0] * 70 + [1] * 30,  # Yhat
            [1] * 600 + [0] * 400,
        )
        assert tuple(frame.loc["difference", ["estimate", "low", "high"]]) == pytest.approx(
            (ppi.estimate, *ppi.ci), abs=1e-12
        )
        lr = jc.lang_reiczigel_ci(0.6, 0.7, 0.9, 1000, 100, 100)
        assert tuple(frame.loc["misclassification_adjusted", ["low", "high"]]) == pytest.approx(
            tuple(lr), abs=1e-12
        )
        # (iv): a = 90/120, b = 10/80, delta method written out
        a, b, p = 0.75, 0.125, 0.6
        se = math.sqrt(
            (a - b) ** 2 * p * (1 - p) / 1000
            + p**2 * a * (1 - a) / 120
            + (1 - p) ** 2 * b * (1 - b) / 80
        )
        est = a * p + b * (1 - p)
        assert tuple(
            frame.loc["conditional_calibration", ["estimate", "low", "high"]]
        ) == pytest.approx((est, est - Z95 * se, est + Z95 * se), abs=1e-12)

    @pytest.mark.parametrize(
        ("k", "n", "m0", "m1"), [(400, 1000, 60, 40), (70, 100, 9, 21), (10, 50, 40, 10)]
    )
    def test_perfect_judge_without_shift_all_coincide(self, k, n, m0, m1):
        # a perfect judge (q0 = q1 = 1) and labelled class balance m1/m = k/n (no shift)
        data = jc.JudgeData(k=k, n=n, k0=m0, m0=m0, k1=m1, m1=m1, design="random")
        p = k / n
        assert m1 / (m0 + m1) == pytest.approx(p)
        frame = jc.shift_estimators(data).summary()
        np.testing.assert_allclose(frame["estimate"], p, rtol=0, atol=1e-15)
        # naive, difference and conditional calibration have the same interval, Wald with n
        for name in ("naive", "difference", "conditional_calibration"):
            assert tuple(frame.loc[name, ["low", "high"]]) == pytest.approx(
                (p - Z95 * math.sqrt(p * (1 - p) / n), p + Z95 * math.sqrt(p * (1 - p) / n)),
                abs=1e-12,
            )

    def test_vectorised_equals_scalar(self):
        k = np.array([[100, 400], [700, 950]])
        out = shift_point_estimates(k, 1000, 60, 80, 100, 120)
        for index in np.ndindex(k.shape):
            data = jc.JudgeData(
                k=int(k[index]), n=1000, k0=60, m0=80, k1=100, m1=120, design="random"
            )
            expected = table2_by_matrices(data)
            for name in ESTIMATORS:
                assert out[name][index] == pytest.approx(expected[name], abs=1e-12)


def first_order_bias(theta_p, theta_q, q0, q1):
    """Large-sample bias of each estimator when only the class balance shifts (Sec. 8)."""

    def rate(theta):
        return theta * q1 + (1 - theta) * (1 - q0)

    p_p, p_q = rate(theta_p), rate(theta_q)
    ppv, false_omission = theta_q * q1 / p_q, theta_q * (1 - q1) / (1 - p_q)
    return {
        "naive": p_p - theta_p,
        "calibration_only": theta_q - theta_p,
        "difference": p_p + theta_q - p_q - theta_p,
        "conditional_calibration": ppv * p_p + false_omission * (1 - p_p) - theta_p,
        "misclassification_adjusted": 0.0,
    }


def test_bias_under_shift_icml_2026_fig7():
    """Lee et al. (ICML 2026) Sec. 8 / App. E.

    q0 = 0.7, q1 = 0.9, theta_P = 0.5, n = 1000, m = 200.
    """
    rng = np.random.default_rng(20260)
    reps, q0, q1, n, m = 20_000, 0.7, 0.9, 1000, 200
    for theta_q in (0.25, 0.5, 0.75):
        m1 = rng.binomial(m, theta_q, reps)
        k1, k0 = rng.binomial(m1, q1), rng.binomial(m - m1, q0)
        k = rng.binomial(n, 0.5 * q1 + 0.5 * (1 - q0), reps)
        est = shift_point_estimates(k, n, k0, m - m1, k1, m1)
        expected = first_order_bias(0.5, theta_q, q0, q1)
        for name in ESTIMATORS:
            # O(1/m) second-order terms of the ratio estimators stay below 0.01 here
            assert np.mean(est[name]) - 0.5 == pytest.approx(expected[name], abs=0.01), name
        if theta_q != 0.5:
            for name in ("calibration_only", "difference", "conditional_calibration"):
                assert abs(expected[name]) > 0.04
    assert first_order_bias(0.5, 0.5, q0, q1)["difference"] == pytest.approx(0.0, abs=1e-15)


class TestClassBalance:
    def test_shift_is_detected_and_warned(self):
        with pytest.warns(JudgeStatsWarning):
            result = jc.shift_estimators(SHIFTED)
        assert result.flags == ("class_balance_shift",)
        assert result.class_balance.flags == ("class_balance_shift",)
        balance = result.summary().attrs["class_balance"]
        # J = k1 + m0 - k0 = 110 + 70 - 50 = 130 of m = 200 judged correct, k = 300 of n = 800;
        # Fisher's two-sided p-value summed exactly over the hypergeometric(1000, 430, 200)
        pmf = [math.comb(430, j) * math.comb(570, 200 - j) for j in range(201)]
        p_exact = sum(f for f in pmf if f <= pmf[130]) / math.comb(1000, 200)
        assert balance["statistic"] == pytest.approx(130 / 200 - 300 / 800, rel=1e-12)
        assert balance["p_value"] == pytest.approx(p_exact, rel=1e-9)
        p, q0, q1 = 300 / 800, 50 / 70, 110 / 130
        assert balance["test_accuracy"] == pytest.approx((p + q0 - 1) / (q0 + q1 - 1), rel=1e-12)

    def test_size_under_no_shift(self):
        rng = np.random.default_rng(7)
        rejected = 0
        reps = 1500
        for _ in range(reps):
            m1 = int(rng.binomial(200, 0.5))
            data = jc.JudgeData(
                k=int(rng.binomial(1000, 0.5 * 0.9 + 0.5 * 0.3)),
                n=1000,
                k0=int(rng.binomial(200 - m1, 0.7)),
                m0=200 - m1,
                k1=int(rng.binomial(m1, 0.9)),
                m1=m1,
                design="random",
            )
            rejected += class_balance_test(data).p_value < 0.05
        # binomial(1500, 0.05): mean 75, sd 8.4
        assert 45 <= rejected <= 105

    def test_needs_random_design(self):
        with pytest.raises(ValueError, match="design='random'"):
            class_balance_test(jc.JudgeData(k=1, n=2, k0=1, m0=1, k1=1, m1=1))


class TestUndefinedRows:
    def test_judge_no_better_than_chance(self):
        data = jc.JudgeData(k=50, n=100, k0=5, m0=10, k1=4, m1=10, design="random")
        with pytest.warns(JudgeStatsWarning):
            result = jc.shift_estimators(data)
        assert result.flags == ("estimator_undefined",)
        assert result["misclassification_adjusted"].flags == ("estimator_undefined",)
        assert result["naive"].flags == ()
        frame = result.summary()
        assert frame.loc["misclassification_adjusted", ["estimate", "low", "high"]].isna().all()
        assert frame.attrs["class_balance"] is None
        assert frame.loc["naive", "estimate"] == 0.5

    def test_labelled_items_all_judged_alike(self):
        # every labelled item judged correct: Pr_Q(Z | Z_hat = 0) has no data
        data = jc.JudgeData(k=50, n=100, k0=0, m0=10, k1=10, m1=10, design="random")
        with pytest.warns(JudgeStatsWarning):
            result = jc.shift_estimators(data)
        assert result.flags == ("estimator_undefined",)
        assert result["conditional_calibration"].flags == ("estimator_undefined",)
        frame = result.summary()
        assert math.isnan(frame.loc["conditional_calibration", "estimate"])


class TestErrors:
    def test_stratified_design_is_refused(self):
        data = jc.JudgeData(k=420, n=1000, k0=70, m0=100, k1=90, m1=100)
        with pytest.raises(
            ValueError, match=re.escape("`shift_estimators` needs design='random'")
        ) as info:
            jc.shift_estimators(data)
        assert "'stratified'" in str(info.value)

    def test_bad_arguments(self):
        with pytest.raises(TypeError, match="`data` must be a JudgeData"):
            jc.shift_estimators({"k": 1})
        with pytest.raises(ValueError, match="`confidence_level`"):
            jc.shift_estimators(CONSISTENT, confidence_level=0)
        with pytest.raises(ValueError, match=r"`k` must not exceed `n`"):
            shift_point_estimates([5, 20], 10, 1, 2, 1, 2)


def test_class_balance_text_follows_the_test_result():
    """The printed diagnostic says 'differs' only when the test rejects at 5%."""
    shifted = class_balance_test(SHIFTED)
    assert shifted.p_value < 0.05 and "differs from" in str(shifted)
    balanced = class_balance_test(CONSISTENT)
    assert balanced.p_value >= 0.05
    assert "is consistent with" in str(balanced) and "differs" not in str(balanced)


class TestShiftEstimatesResult:
    """The result object: rows, table, printout, JSON, plot (the contract of judgestats.results)."""

    def test_rows_are_interval_results_matching_the_table(self):
        result = jc.shift_estimators(CONSISTENT)
        frame = result.summary()
        assert isinstance(result, jc.results.Result)
        for name in ESTIMATORS:
            row = result[name]
            assert isinstance(row, jc.results.IntervalResult)
            estimate, low, high = row
            assert (estimate, low, high) == tuple(frame.loc[name, ["estimate", "low", "high"]])
            assert row.method == name and row.confidence_level == 0.95
        # the naive row by hand: p-hat with its Wald interval
        p = CONSISTENT.k / CONSISTENT.n
        assert result["naive"].estimate == p
        assert result["naive"].ci == pytest.approx(wald(p, CONSISTENT.n))

    def test_str_json_plot_and_html(self, capsys):
        import json

        import matplotlib

        matplotlib.use("Agg")
        result = jc.shift_estimators(CONSISTENT)
        frame = result.summary()
        assert capsys.readouterr().out == ""  # summary() prints nothing
        text = str(result)
        assert all(name in text for name in ESTIMATORS)
        assert f"{frame.loc['naive', 'estimate']:9.4f}" in text
        payload = json.loads(json.dumps(result.to_dict()))
        assert set(payload["estimators"]) == set(ESTIMATORS)
        assert payload["flags"] == {}
        ax = result.plot()
        assert len(ax.get_yticklabels()) == len(ESTIMATORS)
        html = result._repr_html_()
        assert "misclassification_adjusted" in html and "<script" not in html

    def test_class_balance_result(self):
        import matplotlib

        matplotlib.use("Agg")
        balance = class_balance_test(CONSISTENT)
        assert balance.flags == ()
        frame = balance.summary()
        assert frame.loc["class_balance", "p_value"] == balance.p_value
        assert balance.plot().get_title().startswith("class balance: verdict shares differ by")


class TestShiftEstimatesContract:
    """ShiftEstimates as a mapping of IntervalResults, its printout, JSON and the echoed data."""

    def test_mapping_access_in_table2_order(self):
        result = jc.shift_estimators(CONSISTENT)
        assert list(result) == list(ESTIMATORS) and len(result) == 5
        assert result.data is CONSISTENT and result.confidence_level == 0.95
        assert result.assumptions == {name: ASSUMPTIONS[name] for name in ESTIMATORS}
        # (v) by hand: (0.6 + 0.7 - 1) / (0.7 + 0.9 - 1) = 0.5, Lang-Reiczigel interval (eqs. 5-7)
        estimate, low, high = result["misclassification_adjusted"]
        assert estimate == pytest.approx(0.5, abs=1e-15)
        assert (low, high) == tuple(jc.lang_reiczigel_ci(0.6, 0.7, 0.9, 1000, 100, 100))
        with pytest.raises(KeyError, match="no estimator 'rogan_gladen'.*'naive'"):
            result["rogan_gladen"]

    def test_str_is_a_table_of_the_five_rows_with_four_decimals(self):
        text = str(jc.shift_estimators(CONSISTENT))
        lines = text.splitlines()
        assert len(lines) == 2 + len(ESTIMATORS)  # title, header, five rows, no warning
        # naive: 0.6 with the Wald interval of n = 1000; calibration only: 0.5 with m = 200
        naive = f"{0.6:9.4f}{wald(0.6, 1000)[0]:9.4f}{wald(0.6, 1000)[1]:9.4f}"
        calibration = f"{0.5:9.4f}{wald(0.5, 200)[0]:9.4f}{wald(0.5, 200)[1]:9.4f}"
        assert lines[2].split() == ["naive", *naive.split()]
        assert lines[3].split() == ["calibration_only", *calibration.split()]
        for line, name in zip(lines[2:], ESTIMATORS, strict=True):
            assert line.split()[0] == name and all(
                len(v.split(".")[1]) == 4 for v in line.split()[1:]
            )

    def test_to_dict_is_strict_json_with_undefined_rows_as_null(self):
        import json

        # q0 + q1 - 1 = 0.5 + 0.4 - 1 < 0: no misclassification-adjusted estimate
        data = jc.JudgeData(k=50, n=100, k0=5, m0=10, k1=4, m1=10, design="random")
        with pytest.warns(JudgeStatsWarning):
            result = jc.shift_estimators(data)
        payload = json.loads(json.dumps(result.to_dict(), allow_nan=False))
        row = payload["estimators"]["misclassification_adjusted"]
        assert (row["estimate"], row["low"], row["high"]) == (None, None, None)
        assert row["flags"] == ["estimator_undefined"]
        assert payload["estimators"]["naive"]["estimate"] == 0.5
        assert payload["data"] == {
            "k": 50,
            "n": 100,
            "k0": 5,
            "m0": 10,
            "k1": 4,
            "m1": 10,
            "design": "random",
        }
        assert set(payload["flags"]) == {"estimator_undefined"}
        assert payload["class_balance"] is None

    def test_plot_and_html(self):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.axes import Axes

        with pytest.warns(JudgeStatsWarning):
            result = jc.shift_estimators(SHIFTED)
        _, own = plt.subplots()
        ax = result.plot(ax=own)
        assert isinstance(ax, Axes) and ax is own
        heights = {t.get_text(): t.get_position()[1] for t in ax.get_yticklabels()}
        assert sorted(heights, key=heights.get, reverse=True) == list(ESTIMATORS)  # (i) on top
        plt.close("all")
        html = result._repr_html_()
        assert "class_balance_shift" in html and "difference" in html


class TestOneClassLabelled:
    """A random subsample may hold one true class only (JudgeData accepts it)."""

    def test_point_estimates_by_hand(self):
        # k/n = 0.5; labelled: m0 = 0, 7 of m1 = 10 truly correct items judged correct
        out = shift_point_estimates(5, 10, 0, 0, 7, 10)
        assert out["naive"] == 0.5 and out["calibration_only"] == 1.0
        assert out["difference"] == pytest.approx(0.5 + (10 - 7) / 10, abs=1e-15)
        # Pr_Q(Z = 1 | Z_hat) = 7/7 and 3/3: every labelled item is truly correct
        assert out["conditional_calibration"] == pytest.approx(1.0, abs=1e-15)
        assert math.isnan(out["misclassification_adjusted"])  # q0 = 0/0 is not measured

    def test_no_labelled_item_is_an_error_naming_the_counts(self):
        with pytest.raises(ValueError, match=r"`m0` \+ `m1` \(0\) must be at least 1"):
            shift_point_estimates(5, 10, 0, 0, 0, 0)
        with pytest.raises(ValueError, match=r"`k0` \(1\) must not exceed `m0` \(0\)"):
            shift_point_estimates(5, 10, 1, 0, 1, 2)

    def test_shift_estimators_flags_the_undefined_rows(self):
        data = jc.JudgeData(k=5, n=10, k0=0, m0=0, k1=7, m1=10, design="random")
        with pytest.warns(JudgeStatsWarning):
            result = jc.shift_estimators(data)
        assert result.flags == ("estimator_undefined",)
        assert result["misclassification_adjusted"].flags == ("estimator_undefined",)
        assert result["conditional_calibration"].flags == ()
        assert result.class_balance is None
        with pytest.raises(ValueError, match=r"`class_balance_test` needs .* both true classes"):
            class_balance_test(data)


class TestClassBalanceContract:
    def test_summary_to_dict_and_flag_keys(self):
        shifted, balanced = class_balance_test(SHIFTED), class_balance_test(CONSISTENT)
        assert isinstance(shifted, jc.results.Result)
        assert shifted.flags == ("class_balance_shift",) and balanced.flags == ()
        frame = shifted.summary()
        assert list(frame.columns) == ["labelled_accuracy", "test_accuracy", "statistic", "p_value"]
        assert frame.loc["class_balance", "labelled_accuracy"] == 130 / 200
        assert set(shifted.to_dict()) == {
            "labelled_accuracy",
            "test_accuracy",
            "statistic",
            "p_value",
            "flags",
        }
        assert set(shifted.to_dict()["flags"]) == {"class_balance_shift"}

    def test_plot_returns_the_axes_and_html_names_the_flag(self):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        from matplotlib.axes import Axes

        shifted = class_balance_test(SHIFTED)
        _, own = plt.subplots()
        assert shifted.plot(ax=own) is own and isinstance(shifted.plot(), Axes)
        # the two accuracies, labelled m1/m = 0.65 and the test set's Rogan-Gladen estimate
        xs = sorted(own.lines[0].get_xdata())
        assert xs == pytest.approx(sorted([0.65, shifted.test_accuracy]))
        plt.close("all")
        assert "class_balance_shift" in shifted._repr_html_()
