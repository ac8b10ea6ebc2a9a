"""judgestats: honest accuracy estimates from LLM-as-a-judge evaluations.

An LLM judge errs in both directions, so the raw judged-correct rate is biased. A small
human-labelled calibration set measures the judge's specificity q0 and sensitivity q1; judgestats
corrects the bias (Rogan-Gladen) and reports the uncertainty (Lang-Reiczigel interval).

Importing judgestats loads numpy only; scipy.special, pandas, xarray, pymc, arviz and matplotlib
load when first used.
"""

from judgestats._version import __version__ as __version__
from judgestats.bayes.binary_posterior import Posterior, posterior
from judgestats.bayes.priors import Prior
from judgestats.comparison import Comparison, ModelLabels, compare
from judgestats.data import JudgeData
from judgestats.designs import PPIResult, class_balance_test, ppi, shift_estimators
from judgestats.designs.random_candidates import RandomDesignCandidates, random_design_candidates
from judgestats.exceptions import JudgeStatsWarning
from judgestats.frequentist import (
    Estimate,
    estimate,
    lang_reiczigel_ci,
    naive_wald_ci,
    rogan_gladen,
    rogan_gladen_variance,
)
from judgestats.grouped import (
    ClusteredEstimate,
    GroupedCrossChecks,
    GroupedEstimates,
    crosscheck_items,
    estimate_items,
)
from judgestats.guaranteed import guaranteed_ci
from judgestats.planning import (
    CalibrationPlan,
    allocate_calibration,
    expected_width,
    optimal_allocation,
    required_calibration,
)
from judgestats.recommendation import CrossCheck, crosscheck
from judgestats.reporting import (  # matplotlib loads only when a figure is drawn
    GroupedReport,
    LabellingReport,
    Report,
    labelling_report,
    report,
    report_items,
)
from judgestats.results import ConfidenceInterval
from judgestats.sequential import LabellingSession, SequentialInterval

__all__ = [
    "CalibrationPlan",
    "ClusteredEstimate",
    "Comparison",
    "ConfidenceInterval",
    "CrossCheck",
    "Estimate",
    "GroupedCrossChecks",
    "GroupedEstimates",
    "GroupedReport",
    "JudgeStatsWarning",
    "JudgeData",
    "LabellingReport",
    "LabellingSession",
    "ModelLabels",
    "PPIResult",
    "Posterior",
    "Prior",
    "RandomDesignCandidates",
    "Report",
    "SequentialInterval",
    "allocate_calibration",
    "class_balance_test",
    "compare",
    "crosscheck",
    "crosscheck_items",
    "estimate",
    "estimate_items",
    "expected_width",
    "guaranteed_ci",
    "labelling_report",
    "lang_reiczigel_ci",
    "naive_wald_ci",
    "optimal_allocation",
    "posterior",
    "ppi",
    "random_design_candidates",
    "report",
    "report_items",
    "required_calibration",
    "rogan_gladen",
    "rogan_gladen_variance",
    "shift_estimators",
]
