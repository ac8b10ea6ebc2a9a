"""Estimators for the random calibration design: PPI / PPI++ and the distribution-shift estimators.

In the random design the labelled items are a random subsample of the test items (Lee et al. (ICML
2026) Sec. 8), so the labels also measure the true accuracy directly:

* :mod:`judgestats.designs.prediction_powered` -- prediction-powered inference (PPI) and PPI++
  (power tuning);
* :mod:`judgestats.designs.random_guaranteed` -- an interval whose coverage is guaranteed for
  every accuracy and judge, using the judge and the labelled class count;
* :mod:`judgestats.designs.shift` -- the five estimators of Lee et al. (ICML 2026) Table 2 with
  their assumptions, and the class-balance test between the calibration and test sets.
"""

from judgestats.designs.prediction_powered import (
    PPI_ASSUMPTION,
    PPIResult,
    ppi,
    ppi_counts,
    ppi_from_data,
)
from judgestats.designs.random_guaranteed import guaranteed_judge_ci
from judgestats.designs.shift import (
    ASSUMPTIONS,
    CLASS_BALANCE_ALPHA,
    ESTIMATORS,
    SHIFT_FLAGS,
    ClassBalanceTest,
    ShiftEstimates,
    class_balance_test,
    shift_estimators,
    shift_point_estimates,
)

__all__ = [
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
]
