"""Two-model comparison: theta_A - theta_B for two models judged by the same judge.

* :mod:`~judgecal.compare.inputs` -- :class:`ModelLabels` (item-level labels, paired design)
  and the counts every method uses;
* :mod:`~judgecal.compare.estimators` -- the delta method, the bootstrap and the hierarchical
  posterior (:mod:`judgecal.bayes.compare_model`);
* :mod:`~judgecal.compare.bootstrap` -- the categorical bootstrap (percentile and BCa);
* :mod:`~judgecal.compare.diagnostics` -- judge diagnostics, the expected shared-calibration
  bias, the flag keys of every warning and note, the verdict;
* :mod:`~judgecal.compare.result` -- :class:`Comparison`, the result and its report;
* :mod:`~judgecal.compare.comparison` -- :func:`compare`, the entry point.
"""

from judgecal.compare.comparison import (
    BAYES_OPTIONS,
    BOOTSTRAP_INTERVALS,
    BOOTSTRAP_OPTIONS,
    CALIBRATION_DESIGNS,
    METHODS,
    compare,
)
from judgecal.compare.diagnostics import NOTE_FLAGS, WARNING_FLAGS, expected_shared_bias
from judgecal.compare.inputs import ModelLabels
from judgecal.compare.result import Comparison

__all__ = [
    "BAYES_OPTIONS",
    "BOOTSTRAP_INTERVALS",
    "BOOTSTRAP_OPTIONS",
    "CALIBRATION_DESIGNS",
    "METHODS",
    "NOTE_FLAGS",
    "WARNING_FLAGS",
    "Comparison",
    "ModelLabels",
    "compare",
    "expected_shared_bias",
]
