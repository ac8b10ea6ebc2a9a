"""Two-model comparison (judgestats.compare): its warnings and notes, and their flag keys."""

from __future__ import annotations

import importlib

import numpy as np
import pytest
from _compare_data import A_COUNTS, B_COUNTS, labels

from judgestats import JudgeData, JudgeStatsWarning, compare
from judgestats.comparison import NOTE_FLAGS, WARNING_FLAGS
from judgestats.results import FLAG_MESSAGES


def test_low_judge_quality_warns_and_weakens_the_verdict():
    a = JudgeData(k=700, n=1000, k0=170, m0=200, k1=180, m1=200)
    b = JudgeData(k=520, n=1000, k0=60, m0=100, k1=70, m1=100)  # J_B = 0.3, interval below 0.2
    with pytest.warns(JudgeStatsWarning):
        result = compare(a, b)
    assert result.flags == ("weak_judge",)
    assert result.ci.low > 0  # A clearly better, but the claim is weakened
    assert "Claim weakened" in result.verdict
    report = str(result)
    assert report.index(f"WARNING: {result.flag_messages[0]}") < report.index("1. estimand")


def test_instability_warns_under_shared_calibration_only():
    a = JudgeData(k=690, n=1000, k0=360, m0=400, k1=360, m1=400)  # q0 0.9, q1 0.9
    b = JudgeData(k=630, n=1000, k0=240, m0=400, k1=340, m1=400)  # q0 0.6, q1 0.85
    with pytest.warns(JudgeStatsWarning):
        shared = compare(a, b, calibration="shared")
    assert "instability_under_shared" in shared.flags
    assert shared.instability.low > 0
    own = compare(a, b)  # no warning (pytest turns JudgeStatsWarning into an error)
    assert own.flags == () and own.warnings == ()
    assert "instability_corrected" in own.note_keys
    assert "instability_under_shared" not in own.note_keys


def test_a_bias_as_large_as_the_estimate_is_called_out():
    a = JudgeData(k=690, n=1000, k0=80, m0=100, k1=90, m1=100)
    b = JudgeData(k=680, n=1000, k0=60, m0=100, k1=95, m1=100)
    with pytest.warns(JudgeStatsWarning) as record:
        result = compare(a, b, calibration="shared")
    # estimate (0.69 - 0.68) / 0.7; theta_B on its own calibration (0.68 + 0.6 - 1) / 0.55;
    # App. C: (theta_B * (0.9 - 0.95) - (1 - theta_B) * (0.8 - 0.6)) / 0.7
    theta_b = 0.28 / 0.55
    assert result.estimate == pytest.approx(0.01 / 0.7)
    assert result.expected_bias == pytest.approx((theta_b * -0.05 - (1 - theta_b) * 0.2) / 0.7)
    assert result.flags == ("instability_under_shared", "shared_bias_dominates")
    assert len(record) == 1  # one JudgeStatsWarning carries every message
    assert str(record[0].message) == " ".join(result.flag_messages)


# ---------------------------------------------------------------------------------------------
# flag keys: every warning and note has one, registered in the package catalogue
# ---------------------------------------------------------------------------------------------
def test_every_comparison_key_is_in_the_catalogue():
    from judgestats.comparison.diagnostics import REUSED_FLAGS

    for key in (*WARNING_FLAGS, *NOTE_FLAGS, *REUSED_FLAGS):
        assert key in FLAG_MESSAGES, key
    assert not set(WARNING_FLAGS) & set(NOTE_FLAGS)


def _warned(*args, **kwargs):
    with pytest.warns(JudgeStatsWarning) as record:
        result = compare(*args, **kwargs)
    assert len(record) == 1 and str(record[0].message) == " ".join(result.warnings)
    return result


def test_weak_judge_key_per_model_and_its_sentences():
    # J_A = 0.3 and J_B = 0.28 from 100 + 100 labels: both intervals reach below 0.2
    a = JudgeData(k=520, n=1000, k0=60, m0=100, k1=70, m1=100)
    b = JudgeData(k=500, n=1000, k0=58, m0=100, k1=70, m1=100)
    result = _warned(a, b)
    assert result.flags == ("weak_judge",)
    assert len(result.warnings) == 2  # one sentence per model, printed as two warnings
    assert result.flag_messages == [" ".join(result.warnings)]
    assert result.to_dict()["flags"] == {"weak_judge": " ".join(result.warnings)}
    assert str(result).count("WARNING:") == 2
    assert result.verdict.endswith("The diagnostics warn as well (see above).")
    strong = JudgeData(k=700, n=1000, k0=170, m0=200, k1=180, m1=200)  # J = 0.75 with m = 400
    assert "weak_judge" not in compare(strong, strong).flags


def test_estimate_outside_the_unit_interval_is_flagged():
    # p_A = 0.98 > q1 = 0.9 and p_B = 0.03 < 1 - q0 = 0.2: theta_A > 1 and theta_B < 0
    a = JudgeData(k=98, n=100, k0=40, m0=50, k1=45, m1=50)
    b = JudgeData(k=3, n=100, k0=40, m0=50, k1=45, m1=50)
    result = _warned(a, b)
    assert result.flags == ("p_outside_judge_range",)
    assert len(result.warnings) == 2
    assert result.theta_a.estimate == pytest.approx(0.78 / 0.7)  # reported unclipped
    assert "p_outside_judge_range" not in compare(A_COUNTS, B_COUNTS).flags


def test_small_calibration_and_dropped_bootstrap_replicates_are_flagged():
    # arms of 25 items, J = 0.6 + 0.56 - 1 = 0.16: many replicates have J <= 0
    a = JudgeData(k=60, n=100, k0=15, m0=25, k1=14, m1=25)
    b = JudgeData(k=50, n=100, k0=14, m0=25, k1=15, m1=25)
    result = _warned(a, b, method="bootstrap", random_seed=0, bootstrap={"n_resamples": 4000})
    assert set(result.flags) == {
        "weak_judge",
        "p_outside_judge_range",  # (0.6 + 0.6 - 1) / 0.16 = 1.25
        "small_calibration",
        "bootstrap_dropped_replicates",
    }
    dropped = result.to_dict()["flags"]["bootstrap_dropped_replicates"]
    assert dropped.startswith(f"{4000 - len(result.draws['difference'])} of 4000 ")
    delta = _warned(a, b)  # the delta method drops nothing
    assert "bootstrap_dropped_replicates" not in delta.flags and "small_calibration" in delta.flags


def test_shared_design_keys():
    same_calib = JudgeData(k=50, n=100, k0=40, m0=50, k1=45, m1=50)
    result = _warned(A_COUNTS, same_calib, calibration="shared")
    assert result.flags == ("instability_unchecked",)
    assert result.note_keys == ("identical_calibration_counts", "unpaired_test_sets")
    assert result.notes == tuple(NOTE_FLAGS[key] + "." for key in result.note_keys)
    assert result.to_dict()["notes"] == dict(zip(result.note_keys, result.notes, strict=True))


def test_paired_labels_need_no_unpaired_note():
    ca, cb = (40, 50, 45, 50), (35, 50, 44, 50)
    a, b = labels((40, 12, 6, 42), (ca, cb), np.random.default_rng(3))
    assert "unpaired_test_sets" not in compare(a, b).note_keys


def test_inconclusive_instability_is_a_note():
    # identical judges on both models (J_A - J_B = 0) but 50 + 50 labels each: the interval of
    # J_A - J_B is about +-0.2, which does not rule out a difference beyond 0.1
    result = compare(A_COUNTS, JudgeData(k=50, n=100, k0=40, m0=50, k1=45, m1=50))
    assert result.flags == ()
    assert result.note_keys == ("unpaired_test_sets", "instability_inconclusive")
    assert max(abs(result.instability.low), abs(result.instability.high)) > 0.1
    big = JudgeData(k=6000, n=10000, k0=4000, m0=5000, k1=4500, m1=5000)
    assert "instability_inconclusive" not in compare(big, big).note_keys


def test_undefined_bca_falls_back_to_percentile(monkeypatch):
    from judgestats.results import ConfidenceInterval

    # judgestats.compare is also the name of the function, so import the module by its path
    bootstrap_module = importlib.import_module("judgestats.comparison.bootstrap")
    original = bootstrap_module.categorical_bootstrap

    def without_bca(*args, **kwargs):
        result = original(*args, **kwargs)
        nan = ConfidenceInterval(float("nan"), float("nan"))
        object.__setattr__(result, "bca", [nan] * len(result.bca))
        return result

    monkeypatch.setattr(bootstrap_module, "categorical_bootstrap", without_bca)
    result = compare(A_COUNTS, B_COUNTS, method="bootstrap", random_seed=1)
    assert result.note_keys[-1] == "bca_undefined" and result.flags == ()
    assert (
        result.ci == result.intervals["percentile"] and result.details["interval"] == "percentile"
    )
    assert result.difference.method == "rogan_gladen+bootstrap_percentile"


def test_convergence_keys_share_one_sentence():
    from judgestats.comparison.diagnostics import convergence_finding

    diagnostics = {"r_hat": 1.05, "ess_bulk": 120.0, "ess_tail": 300.0, "divergences": 3}
    (finding,) = convergence_finding(("r_hat", "low_ess", "divergences"), diagnostics)
    assert finding.keys == ("r_hat", "low_ess", "divergences")
    assert "max R-hat 1.050, min ESS 120, 3 divergences" in finding.message
    assert convergence_finding((), diagnostics) == []
