"""Tests of the closed-form path: eqs. (4)-(7) of Lee et al. v1, the Wald interval, the delta-method
variance, estimate() and the Estimate result object.

Reference values are computed in this file from the paper's formulas in plain Python, with z from
``statistics.NormalDist().inv_cdf`` (independent of scipy), never copied from the code under test.
"""

from __future__ import annotations

import json
import math
import random
import re
import subprocess
import sys
import warnings
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import judgestats as jc
from judgestats import JudgeData, JudgeStatsWarning

TOL = 1e-12


# ---------------------------------------------------------------------------------------------
# independent references, written from Lee et al. v1
# ---------------------------------------------------------------------------------------------
def z_of(level: float) -> float:
    """z_alpha: the (1 - alpha/2) standard normal quantile, alpha = 1 - level (below eq. 5)."""
    alpha = 1.0 - level
    return NormalDist().inv_cdf(1.0 - alpha / 2.0)


def ref_rg(p: float, q0: float, q1: float) -> float:
    """Eq. (4): theta-hat = (p + q0 - 1) / (q0 + q1 - 1), unclipped."""
    return (p + q0 - 1.0) / (q0 + q1 - 1.0)


def ref_lr_raw(p, q0, q1, n, m0, m1, level=0.95):
    """Eqs. (5)-(7) before truncation; n = inf gives the n -> infinity limit (p~ = p)."""
    z = z_of(level)
    z2 = z * z
    if math.isinf(n):
        pt = p
        var_test = 0.0
    else:
        nt = n + z2  # eq. (6)
        pt = (n * p + z2 / 2.0) / nt  # eq. (6)
        var_test = pt * (1.0 - pt) / nt
    m0t, m1t = m0 + 2.0, m1 + 2.0  # eq. (6)
    q0t = (m0 * q0 + 1.0) / m0t  # eq. (6)
    q1t = (m1 * q1 + 1.0) / m1t  # eq. (6)
    jt = q0t + q1t - 1.0
    tht = (pt + q0t - 1.0) / jt  # eq. (7)
    v0 = q0t * (1.0 - q0t) / m0t
    v1 = q1t * (1.0 - q1t) / m1t
    dth = 2.0 * z2 * (-(1.0 - tht) * v0 + tht * v1)  # eq. (7)
    se = math.sqrt(var_test + (1.0 - tht) ** 2 * v0 + tht**2 * v1) / jt  # eq. (5)
    return tht + dth - z * se, tht + dth + z * se


def clip01(x: float) -> float:
    return min(1.0, max(0.0, x))


def ref_lr(p, q0, q1, n, m0, m1, level=0.95):
    """Eq. (5) with both ends truncated to [0, 1]."""
    low, high = ref_lr_raw(p, q0, q1, n, m0, m1, level)
    return clip01(low), clip01(high)


def random_valid(rng: random.Random):
    """Random inputs with a judge clearly better than chance after smoothing."""
    while True:
        q0, q1 = rng.uniform(0.3, 1.0), rng.uniform(0.3, 1.0)
        m0, m1 = rng.randint(1, 500), rng.randint(1, 500)
        q0t, q1t = (m0 * q0 + 1) / (m0 + 2), (m1 * q1 + 1) / (m1 + 2)
        if q0t + q1t - 1 > 0.05 and q0 + q1 - 1 > 0.05:
            return rng.random(), q0, q1, rng.randint(1, 10_000), m0, m1


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


# ---------------------------------------------------------------------------------------------
# validation of the functions' arguments
# ---------------------------------------------------------------------------------------------
GOOD = {"p": 0.4, "q0": 0.7, "q1": 0.9, "n": 1000, "m0": 200, "m1": 200}


def lr(**changes):
    return jc.lang_reiczigel_ci(**{**GOOD, **changes})


class TestValidation:
    @pytest.mark.parametrize("name", ["p", "q0", "q1"])
    @pytest.mark.parametrize("value", [-0.1, 1.5, float("nan"), float("inf"), -float("inf")])
    def test_bad_proportions(self, name, value):
        with pytest.raises(ValueError, match=rf"`{name}`.*\[0, 1\]"):
            lr(**{name: value})
        args = {k: GOOD[k] for k in ("p", "q0", "q1")}
        args[name] = value
        with pytest.raises(ValueError, match=rf"`{name}`"):
            jc.rogan_gladen(**args)

    def test_proportion_message_shows_value(self):
        with pytest.raises(ValueError, match=r"`p` \(1\.5\) must lie in \[0, 1\]"):
            jc.rogan_gladen(1.5, 0.7, 0.9)

    @pytest.mark.parametrize("name", ["n", "m0", "m1"])
    @pytest.mark.parametrize(
        ("value", "pattern"),
        [
            (-1, "must not be negative|at least 1"),
            (0, "at least 1"),
            (2.5, "whole number"),
            (float("nan"), "integer"),
        ],
    )
    def test_bad_counts(self, name, value, pattern):
        with pytest.raises(ValueError, match=rf"`{name}`.*({pattern})"):
            lr(**{name: value})

    @pytest.mark.parametrize("name", ["m0", "m1"])
    def test_inf_calibration_rejected(self, name):
        with pytest.raises(ValueError, match=rf"`{name}`"):
            lr(**{name: np.inf})

    def test_integral_float_counts_accepted(self):
        a = lr(n=1e9, m0=200.0, m1=np.float64(200))
        ref = ref_lr(0.4, 0.7, 0.9, 1e9, 200, 200)
        assert a.low == pytest.approx(ref[0], abs=TOL)

    @pytest.mark.parametrize("name", list(GOOD))
    @pytest.mark.parametrize("value", ["0.5", None, True, [0.5, "a"], {"a": 1}])
    def test_bad_types(self, name, value):
        with pytest.raises(TypeError, match=rf"`{name}`"):
            lr(**{name: value})

    def test_boolean_array_rejected(self):
        with pytest.raises(TypeError, match="`m0`"):
            lr(m0=np.array([True, False]))

    @pytest.mark.parametrize("level", [0, 1, 1.5, -0.5, float("nan"), 0.0, 1.0])
    def test_bad_level_value(self, level):
        with pytest.raises(ValueError, match=r"`confidence_level`.*strictly between 0 and 1"):
            lr(confidence_level=level)
        with pytest.raises(ValueError, match="`confidence_level`"):
            jc.naive_wald_ci(0.5, 10, confidence_level=level)

    @pytest.mark.parametrize("level", ["0.95", True, None, [0.95]])
    def test_bad_level_type(self, level):
        with pytest.raises(TypeError, match="`confidence_level`"):
            lr(confidence_level=level)

    def test_level_numpy_float_accepted(self):
        a = lr(confidence_level=np.float64(0.9))
        ref = ref_lr(0.4, 0.7, 0.9, 1000, 200, 200, 0.9)
        assert a.low == pytest.approx(ref[0], abs=TOL)

    def test_array_message_names_index(self):
        with pytest.raises(ValueError, match=r"`p`.*1\.5 at index 2"):
            jc.rogan_gladen(np.array([0.1, 0.2, 1.5, 0.3]), 0.7, 0.9)
        with pytest.raises(ValueError, match=r"`m0`.*-3 at index 1"):
            lr(m0=np.array([10, -3, 5]))
        with pytest.raises(ValueError, match=r"`n`.*2\.5 at index 0"):
            lr(n=np.array([2.5, 3.0]))
        with pytest.raises(ValueError, match=r"`q1`.*nan at index \(1, 0\)"):
            lr(q1=np.array([[0.9, 0.8], [np.nan, 0.7]]))

    def test_array_message_names_first_offending_proportion(self):
        # DESIGN: "for arrays the message shows the first offending element and its index";
        # index 1 (1.5) comes before index 2 (nan), whatever the kind of fault.
        with pytest.raises(ValueError, match=r"`p`.*index 1\b"):
            jc.rogan_gladen(np.array([0.5, 1.5, np.nan]), 0.7, 0.9)

    def test_array_message_names_first_offending_count(self):
        # index 1 (-1) comes before index 2 (2.5)
        with pytest.raises(ValueError, match=r"`m0`.*index 1\b"):
            lr(m0=np.array([5.0, -1.0, 2.5]))

    def test_no_zero_division_or_float_errors_leak(self):
        with np.errstate(all="raise"):
            with pytest.warns(JudgeStatsWarning):
                jc.lang_reiczigel_ci(
                    np.array([0.0, 1.0]),
                    np.array([0.5, 1.0]),
                    np.array([0.5, 1.0]),
                    np.array([np.inf, 5]),
                    4,
                    4,
                )
            with pytest.warns(JudgeStatsWarning):
                jc.rogan_gladen(np.array([0.0, 1.0]), np.array([0.5, 1.0]), 0.5)


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
