"""Planning a calibration set: how many items to label, how to split them, whether to use a judge.

Modules:

* :mod:`judgestats.planning.algorithm1` -- Algorithm 1 of Lee et al. (arXiv 2511.21140 v1), the
  paper's split rule, vectorised (the one implementation; the simulations use it too);
* :mod:`judgestats.planning.allocation` -- :func:`allocate_calibration`,
  :func:`optimal_allocation`, :func:`expected_width`, :func:`required_calibration`, on the
  expected-width engine of ``_width``;
* :mod:`judgestats.planning.plan` -- the result, :class:`CalibrationPlan`, and its flags;
* :mod:`judgestats.planning.human_only` -- judge plus calibration against humans only (Lee et al.
  (ICML 2026) Prop. 6.1).
"""

from judgestats.planning.algorithm1 import algorithm1_split, smoothed_pilot
from judgestats.planning.allocation import (
    allocate_calibration,
    expected_width,
    optimal_allocation,
    required_calibration,
)
from judgestats.planning.human_only import (
    HumanOnlyComparison,
    compare_human_only,
    human_only_ratio,
    plot_human_only_regime,
)
from judgestats.planning.plan import PLAN_FLAGS, CalibrationPlan

__all__ = [
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
]
