"""judgecal: honest accuracy estimates from LLM-as-a-judge evaluations.

An LLM judge errs in both directions, so the raw judged-correct rate is biased. A small
human-labelled calibration set measures the judge's specificity q0 and sensitivity q1; judgecal
corrects the bias (Rogan-Gladen) and reports the uncertainty (Lang-Reiczigel interval).

Importing judgecal loads numpy only; scipy.special, pandas, xarray, pymc, arviz and matplotlib
load when first used.
"""

from judgecal._version import __version__ as __version__
from judgecal.bayes.posterior import Posterior, posterior
from judgecal.bayes.priors import Prior
from judgecal.compare import Comparison, ModelLabels, compare
from judgecal.crosscheck import CrossCheck, crosscheck
from judgecal.data import JudgeData
from judgecal.designs import PPIResult, class_balance_test, ppi, shift_estimators
from judgecal.exceptions import JudgeCalWarning
from judgecal.frequentist import (
    Estimate,
    estimate,
    lang_reiczigel_ci,
    naive_wald_ci,
    rogan_gladen,
    rogan_gladen_variance,
)
from judgecal.grouped import (
    ClusteredEstimate,
    GroupedCrossChecks,
    GroupedEstimates,
    crosscheck_items,
    estimate_items,
)
from judgecal.guaranteed import guaranteed_ci
from judgecal.planning import (
    CalibrationPlan,
    allocate_calibration,
    expected_width,
    optimal_allocation,
    required_calibration,
)
from judgecal.report import (  # matplotlib loads only when a figure is drawn
    GroupedReport,
    Report,
    report,
    report_items,
)
from judgecal.results import ConfidenceInterval

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
    "JudgeCalWarning",
    "JudgeData",
    "ModelLabels",
    "PPIResult",
    "Posterior",
    "Prior",
    "Report",
    "allocate_calibration",
    "class_balance_test",
    "compare",
    "crosscheck",
    "crosscheck_items",
    "estimate",
    "estimate_items",
    "expected_width",
    "guaranteed_ci",
    "lang_reiczigel_ci",
    "naive_wald_ci",
    "optimal_allocation",
    "posterior",
    "ppi",
    "report",
    "report_items",
    "required_calibration",
    "rogan_gladen",
    "rogan_gladen_variance",
    "shift_estimators",
]
