"""Property tests (hypothesis) of the closed form: Lee et al. v1 eqs. (4)-(7)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

import judgestats as jc

SETTINGS = settings(max_examples=200, deadline=None)

unit = st.floats(0.0, 1.0, allow_nan=False)
good_q = st.floats(0.55, 1.0, allow_nan=False)  # J >= 0.1 and J~ > 0 for every m >= 1
test_n = st.one_of(st.integers(1, 10**6), st.just(math.inf))
calib_m = st.integers(1, 5000)
levels = st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99])


def interval_case():
    return st.tuples(unit, good_q, good_q, test_n, calib_m, calib_m)


# ---- vectorised equals scalar -----------------------------------------------------------------
@SETTINGS
@given(st.lists(interval_case(), min_size=1, max_size=20), levels)
def test_lang_reiczigel_vectorised_equals_scalar(cases, level):
    columns = [np.array(c, dtype=float) for c in zip(*cases, strict=True)]
    low, high = jc.lang_reiczigel_ci(*columns, confidence_level=level)
    for i, case in enumerate(cases):
        s_low, s_high = jc.lang_reiczigel_ci(*case, confidence_level=level)
        assert abs(low[i] - s_low) <= 1e-15
        assert abs(high[i] - s_high) <= 1e-15


@SETTINGS
@given(st.lists(st.tuples(unit, good_q, good_q), min_size=1, max_size=20), st.booleans())
def test_rogan_gladen_vectorised_equals_scalar(cases, clip):
    p, q0, q1 = (np.array(c) for c in zip(*cases, strict=True))
    out = jc.rogan_gladen(p, q0, q1, clip=clip)
    for i, case in enumerate(cases):
        assert out[i] == jc.rogan_gladen(*case, clip=clip)


@SETTINGS
@given(st.lists(st.tuples(unit, test_n), min_size=1, max_size=20))
def test_naive_wald_vectorised_equals_scalar(cases):
    p, n = (np.array(c, dtype=float) for c in zip(*cases, strict=True))
    low, high = jc.naive_wald_ci(p, n)
    for i, case in enumerate(cases):
        s = jc.naive_wald_ci(*case)
        assert low[i] == s.low and high[i] == s.high


# ---- relabelling correct <-> incorrect --------------------------------------------------------
# Swapping the roles of the labels maps p -> 1 - p, q0 <-> q1, m0 <-> m1. By eq. (4),
# (1 - p + q1 - 1) / (q1 + q0 - 1) = 1 - theta. In eqs. (6)-(7), p~ -> 1 - p~, q0~ <-> q1~,
# theta~ -> 1 - theta~, d-theta~ -> -d-theta~ and the standard error is unchanged, so the
# interval (low, high) maps to (1 - high, 1 - low); truncation to [0, 1] commutes with x -> 1 - x.
@SETTINGS
@given(unit, good_q, good_q)
def test_relabelling_rogan_gladen(p, q0, q1):
    theta = jc.rogan_gladen(p, q0, q1, clip=False)
    swapped = jc.rogan_gladen(1 - p, q1, q0, clip=False)
    assert swapped == pytest.approx(1 - theta, abs=1e-12)
    assert jc.rogan_gladen(1 - p, q1, q0) == pytest.approx(
        1 - jc.rogan_gladen(p, q0, q1), abs=1e-12
    )


@SETTINGS
@given(interval_case(), levels)
def test_relabelling_lang_reiczigel(case, level):
    p, q0, q1, n, m0, m1 = case
    low, high = jc.lang_reiczigel_ci(p, q0, q1, n, m0, m1, confidence_level=level)
    s_low, s_high = jc.lang_reiczigel_ci(1 - p, q1, q0, n, m1, m0, confidence_level=level)
    assert s_low == pytest.approx(1 - high, abs=1e-12)
    assert s_high == pytest.approx(1 - low, abs=1e-12)


# ---- bounds -----------------------------------------------------------------------------------
@SETTINGS
@given(st.tuples(unit, unit, unit, test_n, calib_m, calib_m), levels)
def test_interval_ordered_and_in_unit_interval(case, level):
    p, q0, q1, n, m0, m1 = case
    q0t, q1t = (m0 * q0 + 1) / (m0 + 2), (m1 * q1 + 1) / (m1 + 2)
    assume(q0t + q1t - 1 > 1e-9)  # otherwise no interval exists (scalar raises)
    low, high = jc.lang_reiczigel_ci(p, q0, q1, n, m0, m1, confidence_level=level)
    assert 0.0 <= low <= high <= 1.0


@SETTINGS
@given(st.tuples(unit, unit, unit, test_n, calib_m, calib_m))
def test_array_interval_ordered_or_nan(case):
    p, q0, q1, n, m0, m1 = case
    arrays = [np.array([v, v]) for v in case]
    q0t, q1t = (m0 * q0 + 1) / (m0 + 2), (m1 * q1 + 1) / (m1 + 2)
    if q0t + q1t - 1 > 0:
        low, high = jc.lang_reiczigel_ci(*arrays)
        assert (0.0 <= low).all() and (low <= high).all() and (high <= 1.0).all()
    else:
        with pytest.warns(jc.JudgeStatsWarning, match="2 of 2"):
            low, high = jc.lang_reiczigel_ci(*arrays)
        assert np.isnan(low).all() and np.isnan(high).all()
    del p, q0, q1, n, m0, m1


@SETTINGS
@given(unit, good_q, good_q)
def test_rogan_gladen_clipped_in_unit_interval(p, q0, q1):
    theta = jc.rogan_gladen(p, q0, q1)
    assert 0.0 <= theta <= 1.0
    raw = jc.rogan_gladen(p, q0, q1, clip=False)
    assert theta == min(1.0, max(0.0, raw))


# ---- more data never widens the interval ------------------------------------------------------
# The unclipped width is 2 z se with se from eq. (5). Multiplying n, m0, m1 by 4 divides each
# variance term's denominator by ~4 (at least by 2: (m + 2) / (4m + 2) <= 1/2), moves every
# smoothed proportion of eq. (6) away from 1/2 towards its estimate (so p~(1 - p~), q~(1 - q~)
# do not grow when q >= 1/2), and can only increase J~ when q0, q1 >= 1/2. But theta~ moves
# too, so this is not an identity, and it is false in corners of the domain. A brute-force search
# of eqs. (5)-(7) (6 million random inputs, q0, q1 in [0.55, 1]) found:
# * unclipped width growing by up to 17% when n <= 2 and one calibration arm has m = 1 (e.g.
#   p = 0.98, q0 = 0.563, q1 = 0.562, n = 1, m0 = 1, m1 = 113); every such interval lies far
#   outside [0, 1], so it is truncated;
# * truncated width growing in ~0.6% of cases, when the centre moves back into [0, 1] (e.g.
#   p = 0.129, q0 = 0.981, q1 = 0.997, n = 591, m0 = 1, m1 = 299: [0, 0.0056] -> [0, 0.139]);
# * no growth when neither interval is truncated (width ratio at most 0.85, levels 0.5-0.99).
# Hypothesis also found truncated-width growth with every size >= 30: p = q1 = 0.9375, q0 = 1,
# n = 162, m0 = 31, m1 = 30, level 0.5: raw (0.98958, 1.0746) -> (0.98958, 1.0263), the lower end
# moving down by 1e-6 (checked with a plain transcription of eqs. 5-7). So the property is
# asserted on untruncated intervals (where truncated and raw widths agree); the two
# counterexamples are kept as tests below.
@settings(max_examples=200, deadline=None)
@given(unit, good_q, good_q, st.integers(1, 10**5), calib_m, calib_m, levels)
def test_width_does_not_grow_with_four_times_the_data(p, q0, q1, n, m0, m1, level):
    low, high = jc.lang_reiczigel_ci(p, q0, q1, n, m0, m1, confidence_level=level)
    low4, high4 = jc.lang_reiczigel_ci(p, q0, q1, 4 * n, 4 * m0, 4 * m1, confidence_level=level)
    assume(0.0 < low and high < 1.0 and 0.0 < low4 and high4 < 1.0)
    assert high4 - low4 <= (high - low) * (1 + 1e-12)


def test_truncated_width_can_grow_with_a_one_item_arm():
    # the counterexample quoted above: the domain restriction is needed, not a bug
    low, high = jc.lang_reiczigel_ci(0.129, 0.981, 0.997, 591, 1, 299)
    low4, high4 = jc.lang_reiczigel_ci(0.129, 0.981, 0.997, 4 * 591, 4, 4 * 299)
    assert low == 0.0 and low4 == 0.0
    assert high4 - low4 > high - low


def test_truncated_width_can_grow_with_large_arms():
    low, high = jc.lang_reiczigel_ci(0.9375, 1.0, 0.9375, 162, 31, 30, confidence_level=0.5)
    low4, high4 = jc.lang_reiczigel_ci(
        0.9375, 1.0, 0.9375, 4 * 162, 4 * 31, 4 * 30, confidence_level=0.5
    )
    assert high == 1.0 and high4 == 1.0
    assert high4 - low4 > high - low


@settings(max_examples=200, deadline=None)
@given(unit, good_q, good_q, calib_m, calib_m, levels)
def test_width_does_not_grow_with_four_times_the_calibration_n_infinite(p, q0, q1, m0, m1, level):
    low, high = jc.lang_reiczigel_ci(p, q0, q1, math.inf, m0, m1, confidence_level=level)
    low4, high4 = jc.lang_reiczigel_ci(p, q0, q1, math.inf, 4 * m0, 4 * m1, confidence_level=level)
    assume(0.0 < low and high < 1.0 and 0.0 < low4 and high4 < 1.0)
    assert high4 - low4 <= (high - low) * (1 + 1e-12)


@SETTINGS
@given(unit, st.integers(1, 10**6))
def test_naive_wald_contains_p(p, n):
    low, high = jc.naive_wald_ci(p, n)
    assert 0.0 <= low <= p <= high <= 1.0
