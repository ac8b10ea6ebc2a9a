"""Validation of the closed-form functions' arguments (rogan_gladen, lang_reiczigel_ci, ...)."""

from __future__ import annotations

import numpy as np
import pytest
from _frequentist_reference import TOL, ref_lr

import judgestats as jc
from judgestats import JudgeStatsWarning

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

    @pytest.mark.parametrize("name", ["p", "n", "m0"])
    def test_boolean_among_numbers_rejected(self, name):
        # numpy reads [0.4, True] as [0.4, 1.0]; the boolean is refused, not read as 1.
        value = [0.4, True] if name == "p" else [200, True]
        with pytest.raises(TypeError, match=rf"`{name}` must hold real numbers, not booleans"):
            lr(**{name: value})

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
