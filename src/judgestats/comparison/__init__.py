"""Two-model comparison: theta_A - theta_B for two models judged by the same judge.

* :mod:`~judgestats.comparison.inputs` -- :class:`ModelLabels` (item-level labels, paired design)
  and the counts every method uses;
* :mod:`~judgestats.comparison.estimators` -- the delta method, the bootstrap and the hierarchical
  posterior (:mod:`judgestats.bayes.compare_model`);
* :mod:`~judgestats.comparison.bootstrap` -- the categorical bootstrap (percentile and BCa);
* :mod:`~judgestats.comparison.diagnostics` -- judge diagnostics, the expected shared-calibration
  bias, the flag keys of every warning and note, the verdict;
* :mod:`~judgestats.comparison.result` -- :class:`Comparison`, the result and its report;
* :mod:`~judgestats.comparison.comparison` -- :func:`compare`, the entry point;
* :mod:`~judgestats.comparison.from_logs` -- :func:`models_from_items`: models A and B from their
  eval logs or item tables and one label file (labels joined per model, the design, the pairing).
"""

from judgestats.comparison.comparison import (
    BAYES_OPTIONS,
    BOOTSTRAP_INTERVALS,
    BOOTSTRAP_OPTIONS,
    CALIBRATION_DESIGNS,
    METHODS,
    compare,
)
from judgestats.comparison.diagnostics import NOTE_FLAGS, WARNING_FLAGS, expected_shared_bias
from judgestats.comparison.from_logs import ModelsFromItems, models_from_items
from judgestats.comparison.inputs import ModelLabels
from judgestats.comparison.result import Comparison

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
    "ModelsFromItems",
    "compare",
    "expected_shared_bias",
    "models_from_items",
]
