"""The naive Wald interval and the delta-method variance (naive_wald_ci, rogan_gladen_variance)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import xarray as xr
from _frequentist_reference import TOL, clip01, z_of

import judgestats as jc
from judgestats import JudgeStatsWarning


# ---------------------------------------------------------------------------------------------
# naive_wald_ci and rogan_gladen_variance
# ---------------------------------------------------------------------------------------------
class TestNaiveWald:
    @pytest.mark.parametrize(
        ("p", "n"), [(0.4, 1000), (0.5, 10), (0.01, 50), (0.99, 20), (0.0, 100), (1.0, 100)]
    )
    def test_hand_values(self, p, n):
        z = z_of(0.95)
        half = z * math.sqrt(p * (1 - p) / n)
        low, high = jc.naive_wald_ci(p, n)
        assert low == pytest.approx(clip01(p - half), abs=TOL)
        assert high == pytest.approx(clip01(p + half), abs=TOL)

    def test_clipped(self):
        # 0.01 - 1.96 * sqrt(0.0099 / 50) < 0
        assert jc.naive_wald_ci(0.01, 50).low == 0.0
        assert jc.naive_wald_ci(0.99, 20).high == 1.0

    def test_level(self):
        z = z_of(0.9)
        low, high = jc.naive_wald_ci(0.3, 200, confidence_level=0.9)
        assert high - low == pytest.approx(2 * z * math.sqrt(0.21 / 200), abs=TOL)

    def test_n_infinite_zero_width(self):
        low, high = jc.naive_wald_ci(0.37, np.inf)
        assert low == high == pytest.approx(0.37, abs=TOL)

    def test_arrays(self):
        p = np.array([0.1, 0.5, 0.9])
        low, high = jc.naive_wald_ci(p, np.array([[10], [1000]]))
        assert low.shape == (2, 3)
        z = z_of(0.95)
        for i, n in enumerate((10, 1000)):
            for j, pv in enumerate(p):
                half = z * math.sqrt(pv * (1 - pv) / n)
                assert low[i, j] == pytest.approx(clip01(pv - half), abs=TOL)
                assert high[i, j] == pytest.approx(clip01(pv + half), abs=TOL)

    def test_xarray(self):
        p = xr.DataArray([0.2, 0.6], dims="x", coords={"x": ["u", "v"]})
        ci = jc.naive_wald_ci(p, 100)
        assert ci.low.dims == ("x",) and list(ci.low.coords["x"].values) == ["u", "v"]

    def test_errors(self):
        with pytest.raises(ValueError, match="`p`"):
            jc.naive_wald_ci(1.2, 10)
        with pytest.raises(ValueError, match="`n`"):
            jc.naive_wald_ci(0.5, 0)
        with pytest.raises(ValueError, match="confidence_level"):
            jc.naive_wald_ci(0.5, 10, confidence_level=1.0)


class TestVariance:
    @pytest.mark.parametrize(
        ("p", "q0", "q1", "n", "m0", "m1"),
        [
            (0.4, 0.7, 0.9, 1000, 200, 200),
            (0.05, 0.7, 0.9, 1000, 200, 200),  # unclipped theta-hat < 0 is used
            (0.5, 1.0, 1.0, 30, 10, 10),
            (0.6, 0.8, 0.65, 50, 17, 301),
        ],
    )
    def test_delta_method_by_hand(self, p, q0, q1, n, m0, m1):
        # App. A.1: Var = [p(1-p)/n + (1-th)^2 q0(1-q0)/m0 + th^2 q1(1-q1)/m1] / (q0+q1-1)^2
        th = (p + q0 - 1) / (q0 + q1 - 1)
        var = (
            p * (1 - p) / n + (1 - th) ** 2 * q0 * (1 - q0) / m0 + th**2 * q1 * (1 - q1) / m1
        ) / (q0 + q1 - 1) ** 2
        got = jc.rogan_gladen_variance(p, q0, q1, n, m0, m1)
        assert type(got) is float
        assert got == pytest.approx(var, abs=TOL, rel=1e-12)

    def test_n_infinite(self):
        th = (0.4 + 0.7 - 1) / 0.6
        var = ((1 - th) ** 2 * 0.21 / 200 + th**2 * 0.09 / 200) / 0.36
        assert jc.rogan_gladen_variance(0.4, 0.7, 0.9, np.inf, 200, 200) == pytest.approx(
            var, rel=1e-12
        )

    def test_arrays(self):
        p = np.array([0.3, 0.5])
        got = jc.rogan_gladen_variance(p, 0.8, 0.9, 100, np.array([[20], [40]]), 30)
        assert got.shape == (2, 2)
        for i, m0 in enumerate((20, 40)):
            for j, pv in enumerate(p):
                th = (pv + 0.8 - 1) / 0.7
                var = (pv * (1 - pv) / 100 + (1 - th) ** 2 * 0.16 / m0 + th**2 * 0.09 / 30) / 0.49
                assert got[i, j] == pytest.approx(var, rel=1e-12)

    def test_scalar_chance_raises(self):
        with pytest.raises(ValueError, match="no better than chance"):
            jc.rogan_gladen_variance(0.5, 0.5, 0.5, 100, 10, 10)

    def test_array_chance_nan_warns(self):
        with pytest.warns(JudgeStatsWarning, match="1 of 2"):
            got = jc.rogan_gladen_variance(0.5, np.array([0.5, 0.8]), 0.5, 100, 10, 10)
        assert np.isnan(got[0]) and np.isfinite(got[1])
