"""The closed-form path's entry point: estimate(), the Estimate result, and its light imports.

Reference values are computed from the paper's formulas in tests/_frequentist_reference.py (z from
``statistics.NormalDist().inv_cdf``, independent of scipy), never copied from the code under test.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from _frequentist_reference import TOL, ref_lr, ref_lr_raw, z_of

import judgestats as jc
from judgestats import JudgeData, JudgeStatsWarning

# ---------------------------------------------------------------------------------------------
# estimate() and the Estimate result
# ---------------------------------------------------------------------------------------------
PAPER = JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)


class TestEstimate:
    def test_fields(self):
        est = jc.estimate(PAPER)
        assert isinstance(est, jc.Estimate)
        assert est.naive == pytest.approx(0.4, abs=TOL)
        z = z_of(0.95)
        half = z * math.sqrt(0.4 * 0.6 / 1000)
        assert est.naive_ci.low == pytest.approx(0.4 - half, abs=TOL)
        assert est.naive_ci.high == pytest.approx(0.4 + half, abs=TOL)
        assert est.theta_raw == pytest.approx(1 / 6, abs=TOL)  # eq. (4)
        assert est.theta == pytest.approx(1 / 6, abs=TOL)
        ref = ref_lr(0.4, 0.7, 0.9, 1000, 200, 200)
        assert est.ci.low == pytest.approx(ref[0], abs=TOL)
        assert est.ci.high == pytest.approx(ref[1], abs=TOL)
        assert est.youden == pytest.approx(0.6, abs=TOL)
        assert est.confidence_level == 0.95
        assert est.flags == ()
        assert est.data == PAPER
        assert est.width == pytest.approx(ref[1] - ref[0], abs=TOL)

    def test_level(self):
        est = jc.estimate(PAPER, confidence_level=0.9)
        ref = ref_lr(0.4, 0.7, 0.9, 1000, 200, 200, 0.9)
        assert est.ci.low == pytest.approx(ref[0], abs=TOL)
        assert est.confidence_level == 0.9
        half = z_of(0.9) * math.sqrt(0.24 / 1000)
        assert est.naive_ci.high == pytest.approx(0.4 + half, abs=TOL)

    def test_frozen(self):
        est = jc.estimate(PAPER)
        with pytest.raises(AttributeError):
            est.theta = 0.5

    def test_to_dict_json_and_inputs(self):
        est = jc.estimate(PAPER)
        d = est.to_dict()
        text = json.dumps(d)
        back = json.loads(text)
        assert back["inputs"] == {"k": 400, "n": 1000, "k0": 140, "m0": 200, "k1": 180, "m1": 200}
        assert back["confidence_level"] == 0.95
        assert back["adjusted"]["estimate"] == pytest.approx(1 / 6, abs=TOL)
        assert back["adjusted"]["low"] == pytest.approx(est.ci.low, abs=0)
        assert back["naive"]["estimate"] == pytest.approx(0.4, abs=TOL)

    def test_to_dict_with_flags_json(self):
        with pytest.warns(JudgeStatsWarning):
            est = jc.estimate(JudgeData(k=50, n=1000, k0=140, m0=200, k1=180, m1=200))
        back = json.loads(json.dumps(est.to_dict()))
        assert set(back["flags"]) == set(est.flags)
        assert {"clipped", "p_outside_judge_range"} <= set(back["flags"])
        assert all(isinstance(v, str) and v for v in back["flags"].values())

    def test_summary(self):
        est = jc.estimate(PAPER)
        frame = est.summary()
        assert isinstance(frame, pd.DataFrame)
        assert list(frame.columns) == ["estimate", "low", "high", "width"]
        assert len(frame) == 2
        naive_row, adj_row = frame.iloc[0], frame.iloc[1]
        assert naive_row["estimate"] == pytest.approx(0.4, abs=TOL)
        assert adj_row["estimate"] == pytest.approx(1 / 6, abs=TOL)
        ref = ref_lr(0.4, 0.7, 0.9, 1000, 200, 200)
        assert adj_row["low"] == pytest.approx(ref[0], abs=TOL)
        assert adj_row["high"] == pytest.approx(ref[1], abs=TOL)
        assert adj_row["width"] == pytest.approx(ref[1] - ref[0], abs=TOL)
        np.testing.assert_allclose(frame["width"], frame["high"] - frame["low"], rtol=0, atol=0)

    def test_repr_and_str(self):
        est = jc.estimate(PAPER)
        r = repr(est)
        assert r.startswith("Estimate(") and "theta=" in r and "flags=()" in r
        s = str(est)
        assert "400 of 1000" in s
        assert "0.1667" in s and "0.0564" in s and "0.2627" in s
        assert "warning" not in s

    def test_str_lists_flag_warnings(self):
        with pytest.warns(JudgeStatsWarning):
            est = jc.estimate(JudgeData(k=50, n=1000, k0=140, m0=200, k1=180, m1=200))
        assert "warning: " in str(est)

    def test_clipped_and_outside_range(self):
        # p = 0.05 < 1 - q0 = 0.3, so eq. (4) gives (0.05 - 0.3) / 0.6 = -0.41667 < 0
        data = JudgeData(k=50, n=1000, k0=140, m0=200, k1=180, m1=200)
        with pytest.warns(JudgeStatsWarning) as record:
            est = jc.estimate(data)
        assert len(record) == 1
        assert est.theta_raw == pytest.approx(-0.25 / 0.6, abs=TOL)
        assert est.theta == 0.0
        # eqs. (5)-(7) by hand: even the raw upper end is below 0, so the interval is [0, 0]
        raw = ref_lr_raw(0.05, 0.7, 0.9, 1000, 200, 200)
        assert raw[1] < 0.0
        assert est.ci == (0.0, 0.0)
        assert set(est.flags) == {"clipped", "p_outside_judge_range", "zero_width"}
        msg = str(record[0].message)
        assert "clipped" in msg and "outside" in msg

    def test_small_calibration(self):
        # m0 = 25 < 30; p = 0.4 lies inside [1 - 0.8, 0.9], theta = 0.2 / 0.7 unclipped
        data = JudgeData(k=400, n=1000, k0=20, m0=25, k1=180, m1=200)
        with pytest.warns(JudgeStatsWarning):
            est = jc.estimate(data)
        assert est.flags == ("small_calibration",)
        assert est.theta == pytest.approx(0.2 / 0.7, abs=TOL)

    def test_small_calibration_boundary(self):
        # exactly 30 items is not small
        est = jc.estimate(JudgeData(k=400, n=1000, k0=21, m0=30, k1=27, m1=30))
        assert "small_calibration" not in est.flags

    def test_zero_width(self):
        # k = n (p = 1), q0 = 1, q1 = 0.8, n = 1000, m0 = m1 = 200. By hand (eqs. 5-7):
        # p~ = (1000 + z^2/2)/(1000 + z^2) ~ 0.998, q0~ = 201/202, q1~ = 161/202,
        # theta~ = (p~ + q0~ - 1)/(q0~ + q1~ - 1) ~ 1.25, z * se ~ 0.09, d-theta~ > 0,
        # so the raw lower end already exceeds 1 and both ends truncate to 1.
        z = z_of(0.95)
        z2 = z * z
        pt = (1000 * 1.0 + z2 / 2) / (1000 + z2)
        q0t, q1t = 201 / 202, 161 / 202
        tht = (pt + q0t - 1) / (q0t + q1t - 1)
        v0, v1 = q0t * (1 - q0t) / 202, q1t * (1 - q1t) / 202
        dth = 2 * z2 * (-(1 - tht) * v0 + tht * v1)
        se = math.sqrt(pt * (1 - pt) / (1000 + z2) + (1 - tht) ** 2 * v0 + tht**2 * v1) / (
            q0t + q1t - 1
        )
        assert tht + dth - z * se > 1.0
        data = JudgeData(k=1000, n=1000, k0=200, m0=200, k1=160, m1=200)
        with pytest.warns(JudgeStatsWarning):
            est = jc.estimate(data)
        assert est.ci == (1.0, 1.0)
        assert est.width == 0.0
        assert "zero_width" in est.flags
        assert "clipped" in est.flags and "p_outside_judge_range" in est.flags

    def test_typeerror_for_non_judgedata(self):
        with pytest.raises(TypeError, match="JudgeData"):
            jc.estimate({"k": 400, "n": 1000, "k0": 140, "m0": 200, "k1": 180, "m1": 200})
        with pytest.raises(TypeError, match="JudgeData"):
            jc.estimate((400, 1000, 140, 200, 180, 200))

    @pytest.mark.parametrize(
        ("level", "exc"),
        [(1.0, ValueError), ("0.95", TypeError), (True, TypeError), (float("nan"), ValueError)],
    )
    def test_bad_level(self, level, exc):
        with pytest.raises(exc, match="`confidence_level`"):
            jc.estimate(PAPER, confidence_level=level)

    @pytest.mark.parametrize(
        ("counts", "pattern"),
        [
            (
                {"k0": 0, "m0": 0, "k1": 28, "m1": 30},
                r"holds no truly-incorrect item \(`m0` = 0\), so the judge's specificity q0 "
                r"cannot be estimated.*use the posterior \(judgestats.posterior\), which takes "
                r"that rate from its prior",
            ),
            (
                {"k0": 27, "m0": 30, "k1": 0, "m1": 0},
                r"holds no truly-correct item \(`m1` = 0\), so the judge's sensitivity q1 "
                r"cannot be estimated",
            ),
        ],
    )
    def test_one_class_random_design_is_a_clear_error(self, counts, pattern):
        # a random labelled subsample of 30 items at accuracy 0.95 (or 0.05) often holds no
        # item of the rarer class: Rogan-Gladen needs both q0-hat and q1-hat
        data = JudgeData(k=900, n=970, **counts, design="random")
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no RuntimeWarning / nan on the way to the error
            with pytest.raises(ValueError, match=pattern):
                jc.estimate(data)

    def test_chance_judge_raises(self):
        with pytest.raises(ValueError, match="no better than chance"):
            jc.estimate(JudgeData(k=400, n=1000, k0=100, m0=200, k1=100, m1=200))
        # J > 0 but the Laplace-adjusted J~ < 0 (q0 = 1 with m0 = 1, q1 = 0.3 with m1 = 1000)
        with pytest.raises(ValueError, match="no better than chance"):
            jc.estimate(JudgeData(k=500, n=1000, k0=1, m0=1, k1=300, m1=1000))

    def test_no_warning_without_flags(self):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            jc.estimate(PAPER)


# ---------------------------------------------------------------------------------------------
# import hygiene
# ---------------------------------------------------------------------------------------------
def test_import_loads_no_heavy_modules():
    code = (
        "import sys, judgestats\n"
        "heavy = ['pymc', 'pytensor', 'arviz', 'matplotlib', 'dask', 'scipy.stats', 'tqdm']\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_closed_form_path_loads_no_heavy_modules():
    code = (
        "import sys, judgestats as jc\n"
        "d = jc.JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)\n"
        "jc.estimate(d); jc.lang_reiczigel_ci([0.4], 0.7, 0.9, 1000, 200, 200)\n"
        "from judgestats import paper; paper.confidence_interval(0.4, 0.7, 0.9, 1000, 200, 200)\n"
        "heavy = ['pymc', 'pytensor', 'arviz', 'matplotlib', 'dask', 'scipy.stats', 'tqdm']\n"
        "print(','.join(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
