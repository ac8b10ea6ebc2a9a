"""The contract's own types: IntervalResult, register_flags, Estimate.confidence_interval.

Reference values are computed here from the paper's equations (Lee et al., arXiv 2511.21140 v1,
eqs. 5-7) written out by hand, not by the code under test.
"""

from __future__ import annotations

import json
import math
import warnings

import pytest
from scipy.stats import norm

import judgestats as jc
from judgestats.results import FLAG_MESSAGES, ConfidenceInterval, IntervalResult, register_flags

PAPER = jc.JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)


def lang_reiczigel_by_hand(k, n, k0, m0, k1, m1, level):
    """Eqs. (5)-(7) of Lee et al. v1, term by term."""
    z = norm.ppf(1 - (1 - level) / 2)
    p_t = (k + z**2 / 2) / (n + z**2)
    q0_t, q1_t = (k0 + 1) / (m0 + 2), (k1 + 1) / (m1 + 2)
    n_t, m0_t, m1_t = n + z**2, m0 + 2, m1 + 2
    theta_t = (p_t + q0_t - 1) / (q0_t + q1_t - 1)
    shift = (
        2 * z**2 * (-(1 - theta_t) * q0_t * (1 - q0_t) / m0_t + theta_t * q1_t * (1 - q1_t) / m1_t)
    )
    se = math.sqrt(
        p_t * (1 - p_t) / n_t
        + (1 - theta_t) ** 2 * q0_t * (1 - q0_t) / m0_t
        + theta_t**2 * q1_t * (1 - q1_t) / m1_t
    ) / (q0_t + q1_t - 1)
    centre = theta_t + shift
    return max(0.0, centre - z * se), min(1.0, centre + z * se)


class TestIntervalResult:
    def test_unpacks_and_reports(self):
        row = IntervalResult(0.3, ConfidenceInterval(0.2, 0.45), 0.9, "some_method")
        estimate, low, high = row
        assert (estimate, low, high) == (0.3, 0.2, 0.45)
        assert row.width == pytest.approx(0.25, abs=1e-15)
        assert row.contains(0.2) and row.contains(0.45) and not row.contains(0.46)
        payload = json.loads(json.dumps(row.to_dict()))
        assert payload == {
            "method": "some_method",
            "confidence_level": 0.9,
            "estimate": 0.3,
            "low": 0.2,
            "high": 0.45,
            "flags": {},
        }
        frame = row.summary()
        assert list(frame.columns) == ["estimate", "low", "high", "width"]
        assert frame.loc["some_method", "high"] == 0.45
        assert str(row) == "some_method: 0.3000 (90% interval 0.2000 to 0.4500)"

    def test_flags_print_their_sentence(self):
        row = IntervalResult(0.0, ConfidenceInterval(0.0, 0.1), 0.95, "m", ("clipped",))
        assert row.flag_messages == [FLAG_MESSAGES["clipped"]]
        assert FLAG_MESSAGES["clipped"] in str(row)
        assert "<code>clipped</code>" in row._repr_html_()


class TestRegisterFlags:
    def test_same_sentence_twice_is_allowed_and_a_clash_raises(self):
        key = "test_only_flag_for_register"
        try:
            register_flags({key: "one sentence"})
            register_flags({key: "one sentence"})  # idempotent
            with pytest.raises(ValueError, match=f"`{key}` is already registered"):
                register_flags({key: "another sentence"})
            assert FLAG_MESSAGES[key] == "one sentence"
        finally:
            FLAG_MESSAGES.pop(key, None)


class TestConfidenceInterval:
    """scipy's pattern: recompute at another level from the validated counts."""

    def test_other_level_matches_the_equations(self):
        est = jc.estimate(PAPER)
        for level in (0.5, 0.8, 0.9, 0.99, 0.999):
            ci = est.confidence_interval(confidence_level=level)
            expected = lang_reiczigel_by_hand(400, 1000, 140, 200, 180, 200, level)
            assert tuple(ci.ci) == pytest.approx(expected, abs=1e-12)
            assert ci.confidence_level == level
            assert ci.estimate == est.theta
            assert ci.method == "rogan_gladen+lang_reiczigel"

    def test_defaults_reproduce_the_estimate(self):
        est = jc.estimate(PAPER, confidence_level=0.9)
        same = est.confidence_interval()
        assert same == est.interval
        assert same.confidence_level == 0.9

    def test_guaranteed_on_request_equals_guaranteed_ci(self):
        est = jc.estimate(PAPER)
        ci = est.confidence_interval(interval="guaranteed", confidence_level=0.9)
        assert tuple(ci.ci) == tuple(
            jc.guaranteed_ci(400, 1000, 140, 200, 180, 200, confidence_level=0.9)
        )
        assert ci.method == "rogan_gladen+guaranteed"

    def test_flags_follow_the_interval_and_no_warning_is_issued(self):
        small = jc.JudgeData(k=40, n=100, k0=14, m0=20, k1=18, m1=20)
        with pytest.warns(jc.JudgeStatsWarning):
            est = jc.estimate(small)
        assert est.flags == ("small_calibration",)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # recomputing warns nothing
            lr = est.confidence_interval(confidence_level=0.8)
            guaranteed = est.confidence_interval(interval="guaranteed")
        assert lr.flags == ("small_calibration",)
        assert guaranteed.flags == ()  # the guaranteed interval needs no approximation

    def test_bad_arguments(self):
        est = jc.estimate(PAPER)
        with pytest.raises(ValueError, match="`confidence_level`"):
            est.confidence_interval(confidence_level=1.0)
        with pytest.raises(ValueError, match="`interval`"):
            est.confidence_interval(interval="wald")
        with pytest.raises(TypeError, match="`interval`"):
            est.confidence_interval(interval=3)
