"""The Rogan-Gladen point estimate, eq. (4) of Lee et al. v1 (judgestats.rogan_gladen).

Reference values come from tests/_frequentist_reference.py, written from the paper's formulas.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
import xarray as xr
from _frequentist_reference import TOL, clip01, ref_rg

import judgestats as jc
from judgestats import JudgeStatsWarning


# ---------------------------------------------------------------------------------------------
# rogan_gladen, eq. (4)
# ---------------------------------------------------------------------------------------------
class TestRoganGladen:
    def test_hand_value_paper_example(self):
        # eq. (4): (0.4 + 0.7 - 1) / (0.7 + 0.9 - 1) = 0.1 / 0.6 = 1/6
        assert jc.rogan_gladen(0.4, 0.7, 0.9) == pytest.approx(1 / 6, abs=TOL)

    @pytest.mark.parametrize(
        ("p", "q0", "q1", "expected"),
        [
            (0.5, 0.8, 0.8, 0.5),  # (0.5 + 0.8 - 1) / 0.6 = 0.3 / 0.6
            (0.9, 1.0, 1.0, 0.9),  # perfect judge: theta = p
            (0.3, 1.0, 0.6, 0.5),  # 0.3 / 0.6
            (0.2, 0.9, 0.7, 0.1 / 0.6),
            (0.0, 1.0, 0.5, 0.0),
        ],
    )
    def test_hand_values(self, p, q0, q1, expected):
        assert jc.rogan_gladen(p, q0, q1) == pytest.approx(expected, abs=TOL)

    def test_returns_python_float_for_scalars(self):
        assert type(jc.rogan_gladen(0.4, 0.7, 0.9)) is float

    def test_clip_true_truncates_clip_false_not(self):
        # eq. (4) with p = 0.05: (0.05 - 0.3) / 0.6 = -0.25 / 0.6 < 0
        assert jc.rogan_gladen(0.05, 0.7, 0.9) == 0.0
        assert jc.rogan_gladen(0.05, 0.7, 0.9, clip=False) == pytest.approx(-0.25 / 0.6, abs=TOL)
        # p = 0.95: (0.95 - 0.3) / 0.6 = 0.65 / 0.6 > 1
        assert jc.rogan_gladen(0.95, 0.7, 0.9) == 1.0
        assert jc.rogan_gladen(0.95, 0.7, 0.9, clip=False) == pytest.approx(0.65 / 0.6, abs=TOL)
        out = jc.rogan_gladen(np.array([0.05, 0.95]), 0.7, 0.9, clip=False)
        np.testing.assert_allclose(out, [-0.25 / 0.6, 0.65 / 0.6], rtol=0, atol=TOL)
        np.testing.assert_array_equal(jc.rogan_gladen(np.array([0.05, 0.95]), 0.7, 0.9), [0, 1])

    def test_broadcasting(self):
        p = np.linspace(0, 1, 5).reshape(5, 1)
        q0 = np.array([0.6, 0.8, 1.0])
        out = jc.rogan_gladen(p, q0, 0.9, clip=False)
        assert out.shape == (5, 3)
        for i in range(5):
            for j in range(3):
                assert out[i, j] == pytest.approx(ref_rg(p[i, 0], q0[j], 0.9), abs=TOL)

    def test_list_input(self):
        out = jc.rogan_gladen([0.4, 0.5], [0.7, 0.8], 0.9)
        assert isinstance(out, np.ndarray)
        np.testing.assert_allclose(
            out, [ref_rg(0.4, 0.7, 0.9), ref_rg(0.5, 0.8, 0.9)], rtol=0, atol=TOL
        )

    def test_inputs_not_modified(self):
        p = np.array([0.05, 0.4, 0.95])
        q0 = np.array([0.7, 0.3, 0.7])
        copies = p.copy(), q0.copy()
        with pytest.warns(JudgeStatsWarning):
            jc.rogan_gladen(p, q0, 0.6)
        np.testing.assert_array_equal(p, copies[0])
        np.testing.assert_array_equal(q0, copies[1])

    def test_xarray_keeps_dims_and_coords(self):
        p = xr.DataArray([0.3, 0.4, 0.5], dims="scenario", coords={"scenario": ["a", "b", "c"]})
        q0 = xr.DataArray([0.7, 0.9], dims="judge", coords={"judge": ["small", "large"]})
        out = jc.rogan_gladen(p, q0, 0.9)
        assert isinstance(out, xr.DataArray)
        assert set(out.dims) == {"scenario", "judge"}
        assert list(out.coords["scenario"].values) == ["a", "b", "c"]
        assert list(out.coords["judge"].values) == ["small", "large"]
        for s, pv in zip("abc", [0.3, 0.4, 0.5], strict=True):
            for name, qv in (("small", 0.7), ("large", 0.9)):
                got = float(out.sel(scenario=s, judge=name))
                assert got == pytest.approx(clip01(ref_rg(pv, qv, 0.9)), abs=TOL)

    def test_array_no_better_than_chance_gives_nan_and_one_warning(self):
        # J = q0 + q1 - 1: 0.6 (ok), 0.0 (chance), -0.2 (worse), 0.2 (ok), -1 (worst)
        q0 = np.array([0.7, 0.5, 0.4, 0.6, 0.0])
        q1 = np.array([0.9, 0.5, 0.4, 0.6, 0.0])
        with pytest.warns(JudgeStatsWarning) as record:
            out = jc.rogan_gladen(0.4, q0, q1)
        assert len(record) == 1
        assert re.search(r"\b3 of 5\b", str(record[0].message))
        assert "no better than chance" in str(record[0].message)
        assert np.isnan(out[[1, 2, 4]]).all()
        assert out[0] == pytest.approx(1 / 6, abs=TOL)
        assert out[3] == pytest.approx(clip01((0.4 + 0.6 - 1) / 0.2), abs=TOL)

    @pytest.mark.parametrize(("q0", "q1"), [(0.5, 0.5), (0.3, 0.6), (0.0, 0.0), (0.2, 0.8)])
    def test_scalar_no_better_than_chance_raises(self, q0, q1):
        with pytest.raises(ValueError, match="no better than chance"):
            jc.rogan_gladen(0.4, q0, q1)
        with pytest.raises(ValueError, match="no better than chance"):
            jc.rogan_gladen(0.4, q0, q1, clip=False)
