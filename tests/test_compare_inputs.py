"""Two-model comparison (judgestats.compare): bad input, method-specific options, no mutation."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _compare_data import A_COUNTS, B_COUNTS

from judgestats import JudgeData, JudgeStatsWarning, ModelLabels, compare


# ---------------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------------
def test_paired_arrays_of_different_lengths_raise():
    with pytest.raises(ValueError, match=r"`a.test_judge` has 3 items and `b.test_judge` has 2"):
        compare(ModelLabels([1, 0, 1], [0, 1], [0, 1]), ModelLabels([1, 0], [0, 1], [0, 1]))


def test_calibration_missing_a_class_raises():
    with pytest.raises(ValueError, match="model B: the calibration set has no truly incorrect"):
        compare(ModelLabels([1, 0], [0, 1], [0, 1]), ModelLabels([1, 1], [1, 1], [1, 0]))


def test_judge_no_better_than_chance_on_either_model_raises():
    a = JudgeData(k=60, n=100, k0=40, m0=50, k1=45, m1=50)
    chance = JudgeData(k=50, n=100, k0=25, m0=50, k1=25, m1=50)
    with pytest.raises(ValueError, match="no better than chance on model B's calibration set"):
        compare(a, chance, calibration="shared")
    with pytest.raises(ValueError, match="no better than chance on model A's"):
        compare(chance, a)


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        (
            "calibration",
            "pooled",
            r"`calibration` \('pooled'\) must be one of 'model_specific', "
            r"'shared'",
        ),
        ("method", "jackknife", r"`method` \('jackknife'\) must be one of"),
        ("confidence_level", 1.5, r"`confidence_level` \(1.5\) must lie strictly between 0 and 1"),
    ],
)
def test_bad_options_raise(option, value, message):
    a = JudgeData(k=60, n=100, k0=40, m0=50, k1=45, m1=50)
    with pytest.raises(ValueError, match=message):
        compare(a, a, **{option: value})


def test_bad_data_raises():
    a = JudgeData(k=60, n=100, k0=40, m0=50, k1=45, m1=50)
    with pytest.raises(TypeError, match="`b` must be a JudgeData"):
        compare(a, {"k": 1})
    with pytest.raises(ValueError, match="needs model B's own calibration labels"):
        compare(ModelLabels([1, 0], [0, 1], [0, 1]), ModelLabels([1, 0]))
    with pytest.raises(ValueError, match="give both `calib_human` and `calib_judge`"):
        ModelLabels([1, 0], [0, 1])
    with pytest.raises(ValueError, match=r"`test_judge` must hold only 0/1 labels"):
        ModelLabels([1, 2])
    with pytest.raises(ValueError, match=r"`calib_human` \(2 items\) and `calib_judge` \(3"):
        ModelLabels([1], [0, 1], [0, 1, 1])


# ---------------------------------------------------------------------------------------------
# method-specific options, grouped by method
# ---------------------------------------------------------------------------------------------


def test_grouped_options_reach_their_method():
    result = compare(
        A_COUNTS,
        B_COUNTS,
        method="bootstrap",
        random_seed=3,
        bootstrap={"n_resamples": 4000, "interval": "percentile"},
    )
    assert result.details["n_resamples"] == 4000 and result.details["interval"] == "percentile"
    assert result.ci == result.intervals["percentile"]
    assert len(result.draws["difference"]) == 4000  # no replicate dropped: J is far from 0
    default = compare(A_COUNTS, B_COUNTS, method="bootstrap", random_seed=3)
    assert default.details["n_resamples"] == 4000 and default.ci == default.intervals["bca"]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        (
            {"method": "bootstrap", "bootstrap": [("n_resamples", 10)]},
            TypeError,
            r"`bootstrap` must be a mapping of option names to values.*got list",
        ),
        (
            {"method": "bayes", "bayes": 1000},
            TypeError,
            r"`bayes` must be a mapping of option names to values.*got int",
        ),
        (
            {"method": "bootstrap", "bootstrap": {"reps": 10}},
            ValueError,
            r"`bootstrap` has no option 'reps'; the options of method='bootstrap' are "
            r"'n_resamples', 'interval'\.",
        ),
        (
            {"method": "bayes", "bayes": {"draws": 100, "cores": 2}},
            ValueError,
            r"`bayes` has no option 'cores'; .* 'prior', 'draws', 'tune', 'chains', "
            r"'target_accept', 'compiled', 'progressbar'\.",
        ),
        (
            {"bootstrap": {"n_resamples": 10}},
            ValueError,
            r"`bootstrap` \(\{'n_resamples': 10\}\) holds options of method='bootstrap', but "
            r"method is 'delta'",
        ),
        (
            {"method": "bootstrap", "bayes": {}},
            ValueError,
            r"`bayes` \(\{\}\) holds options of method='bayes', but method is 'bootstrap'",
        ),
        (
            {"method": "bootstrap", "bootstrap": {"n_resamples": 0}},
            ValueError,
            r"`n_resamples` \(0\) must be a positive integer",
        ),
        (
            {"method": "bootstrap", "bootstrap": {"interval": "basic"}},
            ValueError,
            r"`interval` \('basic'\) must be one of 'bca', 'percentile'",
        ),
        (
            {"method": "bayes", "bayes": {"draws": 2.5}},
            ValueError,
            r"`draws` \(2.5\) must be a positive integer",
        ),
        (
            {"method": "bayes", "bayes": {"chains": "4"}},
            TypeError,
            r"`chains` must be a positive integer, got '4'",
        ),
        (
            {"method": "bayes", "bayes": {"target_accept": 1.0}},
            ValueError,
            r"`target_accept` \(1\) must lie strictly between 0 and 1",
        ),
    ],
)
def test_grouped_options_are_checked(kwargs, error, message):
    with pytest.raises(error, match=message):
        compare(A_COUNTS, B_COUNTS, **kwargs)


def test_flat_method_options_are_gone():
    for option in ("n_resamples", "interval", "prior", "draws", "tune", "chains", "compiled"):
        with pytest.raises(TypeError, match=option):
            compare(A_COUNTS, B_COUNTS, method="bootstrap", **{option: 1})


def test_inputs_are_not_mutated():
    ya, human, judge = np.array([1, 0, 1, 1]), np.array([0, 1, 0, 1]), np.array([0, 1, 1, 1])
    copies = [x.copy() for x in (ya, human, judge)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # tiny sets: many warnings
        compare(
            ModelLabels(ya, human, judge),
            ModelLabels(ya[::-1], human, judge),
            method="bootstrap",
            random_seed=0,
            bootstrap={"n_resamples": 200},
        )
    for original, copy in zip((ya, human, judge), copies, strict=True):
        np.testing.assert_array_equal(original, copy)
