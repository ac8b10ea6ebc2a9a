"""The public API of ``import judgestats`` is pinned: a name is added or removed on purpose only."""

import judgestats as jc

PUBLIC = {
    # data and results
    "JudgeData",
    "ConfidenceInterval",
    "Estimate",
    "ClusteredEstimate",
    "GroupedEstimates",
    "CrossCheck",
    "GroupedCrossChecks",
    "Posterior",
    "Prior",
    "PPIResult",
    "RandomDesignCandidates",
    "Comparison",
    "ModelLabels",
    "CalibrationPlan",
    "Report",
    "GroupedReport",
    "JudgeStatsWarning",
    # the closed form
    "rogan_gladen",
    "rogan_gladen_variance",
    "lang_reiczigel_ci",
    "naive_wald_ci",
    "estimate",
    "estimate_items",
    "guaranteed_ci",
    # the posterior and the cross-check
    "posterior",
    "crosscheck",
    "crosscheck_items",
    # designs, comparison, planning, report
    "ppi",
    "shift_estimators",
    "random_design_candidates",
    "class_balance_test",
    "compare",
    "allocate_calibration",
    "optimal_allocation",
    "expected_width",
    "required_calibration",
    "report",
    "report_items",
}


def test_all_is_pinned():
    assert set(jc.__all__) == PUBLIC
    assert len(jc.__all__) == len(set(jc.__all__))


def test_every_public_name_is_importable_and_public():
    for name in jc.__all__:
        assert not name.startswith("_")
        assert getattr(jc, name) is not None
