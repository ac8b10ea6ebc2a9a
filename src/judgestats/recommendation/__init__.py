"""The cross-check and the one recommended interval, with a rule and coverage table per design.

* :mod:`~judgestats.recommendation.side_by_side` -- :func:`crosscheck` and :class:`CrossCheck`:
  the closed form and the posterior side by side;
* :mod:`~judgestats.recommendation.cross_flags` -- the cross-check's flags and their sentences;
* :mod:`~judgestats.recommendation.result` -- :class:`Recommendation`;
* :mod:`~judgestats.recommendation.stratified_rule` -- the rule for a stratified calibration set
  (``datasets/coverage_table.npz``);
* :mod:`~judgestats.recommendation.random_rule` -- the rule for a random labelled sample
  (``datasets/random_coverage_table.npz``), never wider than the labels-only exact interval.
"""

from judgestats.recommendation.cross_flags import CONFLICT_FLAGS
from judgestats.recommendation.random_rule import choose_random, recommend_random
from judgestats.recommendation.result import METHOD_LABELS, Recommendation
from judgestats.recommendation.side_by_side import (
    FLAGS,
    ROW_LABELS,
    ROWS,
    CrossCheck,
    crosscheck,
)
from judgestats.recommendation.stratified_rule import recommend

__all__ = [
    "CONFLICT_FLAGS",
    "FLAGS",
    "METHOD_LABELS",
    "ROWS",
    "ROW_LABELS",
    "CrossCheck",
    "Recommendation",
    "choose_random",
    "crosscheck",
    "recommend",
    "recommend_random",
]
