"""The public API of ``import judgestats`` is pinned: a name is added or removed on purpose only."""

import ast
import importlib
from pathlib import Path

import pytest

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
    "LabellingReport",
    "JudgeStatsWarning",
    "LabellingSession",
    "SequentialInterval",
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
    "labelling_report",
}


def test_all_is_pinned():
    assert set(jc.__all__) == PUBLIC
    assert len(jc.__all__) == len(set(jc.__all__))


def test_every_public_name_is_importable_and_public():
    for name in jc.__all__:
        assert not name.startswith("_")
        assert getattr(jc, name) is not None


# --------------------------------------------------------------------------------------------
# every subpackage's __all__, pinned the same way
# --------------------------------------------------------------------------------------------
SUBPACKAGES = {
    "grouped": {
        "CORRECTIONS",
        "ClusteredEstimate",
        "GroupCrossCheck",
        "GroupRow",
        "GroupedCrossChecks",
        "GroupedEstimates",
        "GroupedTable",
        "adjust_p_values",
        "crosscheck_items",
        "estimate_items",
    },
    "recommendation": {
        "CONFLICT_FLAGS",
        "CrossCheck",
        "FLAGS",
        "METHOD_LABELS",
        "ROWS",
        "ROW_LABELS",
        "Recommendation",
        "choose_random",
        "crosscheck",
        "recommend",
        "recommend_random",
    },
    "reporting": {
        "FIGURES",
        "FORMATS",
        "GroupedReport",
        "LabellingReport",
        "Report",
        "labelling_report",
        "report",
        "report_items",
    },
    "bayes": {"DirichletPrior", "Prior", "StratifiedPrior"},
    "comparison": {
        "BAYES_OPTIONS",
        "BOOTSTRAP_INTERVALS",
        "BOOTSTRAP_OPTIONS",
        "CALIBRATION_DESIGNS",
        "METHODS",
        "NOTE_FLAGS",
        "WARNING_FLAGS",
        "Comparison",
        "ModelLabels",
        "ModelsFromItems",
        "compare",
        "models_from_items",
        "expected_shared_bias",
    },
    "cli": {"build_parser", "main"},
    "datasets": {
        "DATA_SUFFIXES",
        "EXAMPLE_TRUTH",
        "coverage_atlas",
        "data_files",
        "example_path",
        "load_example",
    },
    "designs": {
        "ASSUMPTIONS",
        "CLASS_BALANCE_ALPHA",
        "ESTIMATORS",
        "PPI_ASSUMPTION",
        "SHIFT_FLAGS",
        "ClassBalanceTest",
        "PPIResult",
        "ShiftEstimates",
        "class_balance_test",
        "guaranteed_judge_ci",
        "ppi",
        "ppi_counts",
        "ppi_from_data",
        "shift_estimators",
        "shift_point_estimates",
    },
    "io": {
        "items_frame",
        "join_human",
        "load_json",
        "map_classes",
        "map_verdicts",
        "read_frame",
        "read_inspect",
        "read_lm_eval",
        "read_mlflow",
        "read_promptfoo",
        "read_table",
    },
    "kclass": {
        "BINARY_CLASSES",
        "KCLASS_FLAGS",
        "KClassData",
        "KClassEstimate",
        "KClassPosterior",
        "KClassRecommendation",
        "kclass_estimate",
        "kclass_posterior",
        "kclass_recommended",
    },
    "planning": {
        "PLAN_FLAGS",
        "CalibrationPlan",
        "HumanOnlyComparison",
        "algorithm1_split",
        "allocate_calibration",
        "compare_human_only",
        "expected_width",
        "human_only_ratio",
        "optimal_allocation",
        "plot_human_only_regime",
        "required_calibration",
        "smoothed_pilot",
    },
    "sequential": {
        "LabellingSession",
        "SequentialInterval",
        "StratifiedLabellingSession",
        "betting_confidence_sequence",
    },
    "simulate": {
        "ALLOCATIONS",
        "DESIGNS",
        "METHODS",
        "PARAMETERS",
        "adaptive_allocation",
        "cell_generator",
        "coverage",
        "draw_cell",
        "simulate_counts",
    },
    "stratified": {
        "POOLED_BIAS_MIN",
        "POOLED_BIAS_Z",
        "STRATIFIED_FLAGS",
        "PooledBias",
        "StratifiedData",
        "StratifiedEstimate",
        "StratifiedPosterior",
        "pooled_bias",
        "stratified_estimate",
        "stratified_posterior",
    },
}


def _subpackages() -> list[str]:
    """Every subpackage of judgestats (a folder with an ``__init__.py``)."""
    root = Path(jc.__file__).parent
    return sorted(p.parent.name for p in root.glob("*/__init__.py"))


def _exported_by_init(name: str) -> set[str]:
    """Public names a subpackage's ``__init__`` defines or re-exports (so ``__all__`` owes them).

    Defined at module level (def, class, assignment), imported from one of the subpackage's own
    modules, or imported with the explicit re-export form ``import x as x``; names under
    ``if TYPE_CHECKING:`` and helpers imported from elsewhere (``typing.Any``) are not.
    """
    path = Path(jc.__file__).parent / name / "__init__.py"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = f"judgestats.{name}"
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                local = alias.asname or alias.name
                if node.module.startswith(own + ".") or alias.asname == alias.name:
                    names.add(local)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return {n for n in names if not n.startswith("_")}


def test_every_subpackage_is_pinned():
    assert set(SUBPACKAGES) == set(_subpackages())


@pytest.mark.parametrize("name", sorted(SUBPACKAGES))
def test_subpackage_all_is_pinned_and_complete(name):
    module = importlib.import_module(f"judgestats.{name}")
    assert set(module.__all__) == SUBPACKAGES[name]
    assert len(module.__all__) == len(set(module.__all__))
    assert _exported_by_init(name) <= set(module.__all__)
    for entry in module.__all__:
        assert getattr(module, entry) is not None
