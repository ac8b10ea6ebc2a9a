"""The Lang-Reiczigel interval, eqs. (5)-(7) of Lee et al. v1 (judgestats.lang_reiczigel_ci).

Reference values come from tests/_frequentist_reference.py, written from the paper's formulas in
plain Python with z from ``statistics.NormalDist().inv_cdf`` (independent of scipy).
"""

from __future__ import annotations

import math
import random
import re

import numpy as np
import pytest
import xarray as xr
from _frequentist_reference import TOL, clip01, random_valid, ref_lr, ref_lr_raw, z_of

import judgestats as jc
from judgestats import JudgeStatsWarning


# ---------------------------------------------------------------------------------------------
# lang_reiczigel_ci, eqs. (5)-(7)
# ---------------------------------------------------------------------------------------------
class TestLangReiczigel:
    def test_paper_example(self):
        # the authors' reference code usage example: p=0.4, q0=0.7, q1=0.9, n=1000, m0=m1=200
        low, high = jc.lang_reiczigel_ci(0.4, 0.7, 0.9, 1000, 200, 200)
        assert low == pytest.approx(0.0564, abs=5e-5)
        assert high == pytest.approx(0.2627, abs=5e-5)
        ref = ref_lr(0.4, 0.7, 0.9, 1000, 200, 200)
        assert low == pytest.approx(ref[0], abs=TOL)
        assert high == pytest.approx(ref[1], abs=TOL)

    def test_result_type(self):
        ci = jc.lang_reiczigel_ci(0.4, 0.7, 0.9, 1000, 200, 200)
        assert isinstance(ci, jc.ConfidenceInterval)
        assert type(ci.low) is float and type(ci.high) is float
        assert ci == (ci.low, ci.high)

    def test_random_scalars_equal_transcription(self):
        rng = random.Random(12345)
        for _ in range(2000):
            args = random_valid(rng)
            low, high = jc.lang_reiczigel_ci(*args)
            ref = ref_lr(*args)
            assert low == pytest.approx(ref[0], abs=TOL), args
            assert high == pytest.approx(ref[1], abs=TOL), args

    @pytest.mark.parametrize("size", [100_000, 16_384 * 2 + 17])
    def test_random_arrays_every_element(self, size):
        rng = np.random.default_rng(size)
        q0 = rng.uniform(0.55, 1.0, size)
        q1 = rng.uniform(0.55, 1.0, size)
        p = rng.uniform(0.0, 1.0, size)
        n = rng.integers(1, 100_000, size)
        m0 = rng.integers(1, 1000, size)
        m1 = rng.integers(1, 1000, size)
        low, high = jc.lang_reiczigel_ci(p, q0, q1, n, m0, m1)
        assert low.shape == high.shape == (size,)
        ref = [ref_lr(*map(float, a)) for a in zip(p, q0, q1, n, m0, m1, strict=True)]
        ref_low = np.array([r[0] for r in ref])
        ref_high = np.array([r[1] for r in ref])
        np.testing.assert_allclose(low, ref_low, rtol=0, atol=TOL)
        np.testing.assert_allclose(high, ref_high, rtol=0, atol=TOL)

    def test_blocking_with_broadcast_scalars_and_inf(self):
        # more elements than the internal block (16384); some operands scalar, n partly inf
        size = 40_000
        rng = np.random.default_rng(7)
        p = rng.uniform(0, 1, size)
        n = np.where(rng.random(size) < 0.3, np.inf, rng.integers(1, 5000, size).astype(float))
        low, high = jc.lang_reiczigel_ci(p, 0.8, 0.75, n, 50, 120)
        for i in range(size):
            ref = ref_lr(float(p[i]), 0.8, 0.75, float(n[i]), 50, 120)
            assert abs(low[i] - ref[0]) <= TOL and abs(high[i] - ref[1]) <= TOL, i

    def test_blocking_elements_in_last_block_match_first(self):
        # the same input repeated across block boundaries gives the same answer everywhere
        size = 16_384 * 3 + 5
        low, high = jc.lang_reiczigel_ci(np.full(size, 0.4), 0.7, 0.9, 1000, 200, 200)
        ref = ref_lr(0.4, 0.7, 0.9, 1000, 200, 200)
        np.testing.assert_allclose(low, ref[0], rtol=0, atol=TOL)
        np.testing.assert_allclose(high, ref[1], rtol=0, atol=TOL)

    def test_mixed_shapes_broadcast(self):
        p = np.array([[0.2], [0.4], [0.6]])  # (3, 1)
        m0 = np.array([10, 50, 200, 1000])  # (4,)
        low, high = jc.lang_reiczigel_ci(p, 0.75, 0.85, 500, m0, 80)
        assert low.shape == high.shape == (3, 4)
        for i in range(3):
            for j in range(4):
                ref = ref_lr(float(p[i, 0]), 0.75, 0.85, 500, int(m0[j]), 80)
                assert low[i, j] == pytest.approx(ref[0], abs=TOL)
                assert high[i, j] == pytest.approx(ref[1], abs=TOL)

    def test_three_way_broadcast(self):
        q0 = np.array([0.7, 0.8]).reshape(2, 1, 1)
        q1 = np.array([0.6, 0.9, 0.95]).reshape(1, 3, 1)
        n = np.array([10, 100, 1000, np.inf])
        low, high = jc.lang_reiczigel_ci(0.5, q0, q1, n, 30, 40)
        assert low.shape == (2, 3, 4)
        for idx in np.ndindex(2, 3, 4):
            ref = ref_lr(
                0.5, float(q0[idx[0], 0, 0]), float(q1[0, idx[1], 0]), float(n[idx[2]]), 30, 40
            )
            assert low[idx] == pytest.approx(ref[0], abs=TOL)
            assert high[idx] == pytest.approx(ref[1], abs=TOL)

    def test_size_one_array_keeps_shape(self):
        low, high = jc.lang_reiczigel_ci([0.4], 0.7, 0.9, 1000, 200, 200)
        assert isinstance(low, np.ndarray) and low.shape == (1,)
        ref = ref_lr(0.4, 0.7, 0.9, 1000, 200, 200)
        assert low[0] == pytest.approx(ref[0], abs=TOL)
        assert high[0] == pytest.approx(ref[1], abs=TOL)

    def test_empty_array(self):
        low, high = jc.lang_reiczigel_ci(np.array([]), 0.7, 0.9, 1000, 200, 200)
        assert low.shape == high.shape == (0,)

    def test_n_infinite_is_the_limit(self):
        # n -> inf: p~ = p and the test-variance term vanishes (text after eq. 7)
        z = z_of(0.95)
        p, q0, q1, m0, m1 = 0.4, 0.7, 0.9, 200, 200
        q0t, q1t = (m0 * q0 + 1) / (m0 + 2), (m1 * q1 + 1) / (m1 + 2)
        v0, v1 = q0t * (1 - q0t) / (m0 + 2), q1t * (1 - q1t) / (m1 + 2)
        jt = q0t + q1t - 1
        tht = (p + q0t - 1) / jt
        centre = tht + 2 * z * z * (-(1 - tht) * v0 + tht * v1)
        half = z * math.sqrt((1 - tht) ** 2 * v0 + tht**2 * v1) / jt
        low, high = jc.lang_reiczigel_ci(p, q0, q1, np.inf, m0, m1)
        assert low == pytest.approx(clip01(centre - half), abs=TOL)
        assert high == pytest.approx(clip01(centre + half), abs=TOL)
        big = jc.lang_reiczigel_ci(p, q0, q1, 1e15, m0, m1)
        assert big.low == pytest.approx(low, abs=1e-9)
        assert big.high == pytest.approx(high, abs=1e-9)
        assert big.low != low or big.high != high  # 1e15 is finite: p~ differs from p

    @pytest.mark.parametrize("p", [0.0, 1.0])
    def test_n_infinite_at_boundary_p(self, p):
        # inf * 0 must not leak a NaN into p~ (the limit has p~ = p exactly)
        low, high = jc.lang_reiczigel_ci(p, 0.8, 0.9, np.inf, 100, 100)
        ref = ref_lr(p, 0.8, 0.9, math.inf, 100, 100)
        assert low == pytest.approx(ref[0], abs=TOL) and high == pytest.approx(ref[1], abs=TOL)
        arr = jc.lang_reiczigel_ci(
            np.array([p, 0.5]), 0.8, 0.9, np.array([np.inf, np.inf]), 100, 100
        )
        assert arr.low[0] == pytest.approx(ref[0], abs=TOL)
        assert arr.high[0] == pytest.approx(ref[1], abs=TOL)

    def test_truncation_to_unit_interval(self):
        # p = 0.02 < 1 - q0 = 0.3: the raw lower end is below 0 (computed by hand)
        raw = ref_lr_raw(0.02, 0.7, 0.9, 1000, 200, 200)
        assert raw[0] < 0.0
        low, high = jc.lang_reiczigel_ci(0.02, 0.7, 0.9, 1000, 200, 200)
        assert low == 0.0
        assert high == pytest.approx(clip01(raw[1]), abs=TOL)
        # p = 0.99 > q1 = 0.9: the raw upper end is above 1
        raw = ref_lr_raw(0.99, 0.7, 0.9, 1000, 200, 200)
        assert raw[1] > 1.0
        assert jc.lang_reiczigel_ci(0.99, 0.7, 0.9, 1000, 200, 200).high == 1.0

    @pytest.mark.parametrize("level", [0.5, 0.8, 0.9, 0.95, 0.99, 0.999])
    def test_confidence_level_changes_z(self, level):
        low, high = jc.lang_reiczigel_ci(0.5, 0.8, 0.85, 400, 100, 150, confidence_level=level)
        ref = ref_lr(0.5, 0.8, 0.85, 400, 100, 150, level)
        assert low == pytest.approx(ref[0], abs=TOL)
        assert high == pytest.approx(ref[1], abs=TOL)

    def test_higher_level_is_wider(self):
        w = [
            jc.lang_reiczigel_ci(0.5, 0.8, 0.85, 400, 100, 150, confidence_level=c)
            for c in (0.8, 0.9, 0.95, 0.99)
        ]
        widths = [h - lo for lo, h in w]
        assert widths == sorted(widths) and len(set(widths)) == 4

    @pytest.mark.parametrize("alpha", [0.01, 0.05, 0.1, 0.32])
    def test_alpha_relation_with_paper(self, alpha):
        from judgestats.paper import confidence_interval

        a = jc.lang_reiczigel_ci(0.45, 0.75, 0.92, 800, 60, 90, confidence_level=1 - alpha)
        b = confidence_interval(0.45, 0.75, 0.92, 800, 60, 90, alpha=alpha)
        assert a.low == pytest.approx(b[0], abs=TOL)
        assert a.high == pytest.approx(b[1], abs=TOL)

    def test_xarray(self):
        p = xr.DataArray([0.3, 0.4, 0.5], dims="scenario", coords={"scenario": [10, 20, 30]})
        m0 = xr.DataArray([50, 200], dims="m0", coords={"m0": [50, 200]})
        ci = jc.lang_reiczigel_ci(p, 0.7, 0.9, 1000, m0, 200)
        assert isinstance(ci, jc.ConfidenceInterval)
        for part in ci:
            assert isinstance(part, xr.DataArray)
            assert set(part.dims) == {"scenario", "m0"}
            assert list(part.coords["scenario"].values) == [10, 20, 30]
        for s, pv in zip([10, 20, 30], [0.3, 0.4, 0.5], strict=True):
            for mv in (50, 200):
                ref = ref_lr(pv, 0.7, 0.9, 1000, mv, 200)
                assert float(ci.low.sel(scenario=s, m0=mv)) == pytest.approx(ref[0], abs=TOL)
                assert float(ci.high.sel(scenario=s, m0=mv)) == pytest.approx(ref[1], abs=TOL)

    def test_array_smoothed_chance_nan_and_one_warning(self):
        # q0 = q1 = 0.3, m = 4: q~ = (1.2 + 1) / 6 = 0.3667, q0~ + q1~ - 1 = -0.267 <= 0
        # q0 = q1 = 0.5: q~ = 0.5 exactly, J~ = 0 (the reference code divides by zero)
        q = np.array([0.3, 0.8, 0.5, 0.9])
        with pytest.warns(JudgeStatsWarning) as record:
            low, high = jc.lang_reiczigel_ci(0.4, q, q, 100, 4, 4)
        assert len(record) == 1
        assert re.search(r"\b2 of 4\b", str(record[0].message))
        assert np.isnan(low[[0, 2]]).all() and np.isnan(high[[0, 2]]).all()
        for i in (1, 3):
            ref = ref_lr(0.4, float(q[i]), float(q[i]), 100, 4, 4)
            assert low[i] == pytest.approx(ref[0], abs=TOL)
            assert high[i] == pytest.approx(ref[1], abs=TOL)

    def test_smoothed_chance_warning_counts_across_blocks(self):
        size = 16_384 * 2 + 100
        q = np.full(size, 0.9)
        q[[0, 16_384, size - 1]] = 0.3  # one bad element in each block
        with pytest.warns(JudgeStatsWarning) as record:
            low, _ = jc.lang_reiczigel_ci(0.4, q, q, 100, 4, 4)
        assert len(record) == 1
        assert re.search(rf"\b3 of {size}\b", str(record[0].message))
        assert np.isnan(low).sum() == 3

    @pytest.mark.parametrize(("q0", "q1", "m"), [(0.3, 0.3, 4), (0.5, 0.5, 10), (0.0, 1.0, 1)])
    def test_scalar_smoothed_chance_raises(self, q0, q1, m):
        # (0.0, 1.0, m=1): q0~ = 1/3, q1~ = 2/3, J~ = 0
        with pytest.raises(ValueError, match="no better than chance"):
            jc.lang_reiczigel_ci(0.4, q0, q1, 100, m, m)

    def test_smoothing_can_make_a_good_judge_chance(self):
        # J = 1 + 0.3 - 1 = 0.3 > 0 but q0~ = 2/3 (m0 = 1), q1~ = 301/1002: J~ < 0
        assert (1 * 1.0 + 1) / 3 + (1000 * 0.3 + 1) / 1002 - 1 < 0
        with pytest.raises(ValueError, match="no better than chance"):
            jc.lang_reiczigel_ci(0.5, 1.0, 0.3, 100, 1, 1000)

    def test_inputs_not_modified(self):
        p = np.array([0.1, 0.5, 0.9])
        n = np.array([10.0, np.inf, 100.0])
        pc, nc = p.copy(), n.copy()
        jc.lang_reiczigel_ci(p, 0.8, 0.8, n, 30, 30)
        np.testing.assert_array_equal(p, pc)
        np.testing.assert_array_equal(n, nc)
