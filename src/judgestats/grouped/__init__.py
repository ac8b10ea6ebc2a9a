"""Estimates from an items frame: repeated judging clustered by item, and grouped tables.

:func:`estimate_items` is the closed form of :func:`judgestats.estimate` (Rogan-Gladen estimate,
Lang-Reiczigel interval; Lee et al., "How to Correctly Report LLM-as-a-Judge Evaluations",
arXiv 2511.21140 v1, eqs. 4-7) taken straight from the items frame every :mod:`judgestats.io`
reader returns, with two additions the six counts cannot express:

**Repeated judging.** When item ids repeat (Inspect epochs, several samples per prompt) every row
is one judgment and the rows of one id form a cluster: the point estimate uses every row, the
variances are cluster-robust and the interval is evaluated at the effective sizes
(:class:`ClusteredEstimate`; :mod:`~judgestats.grouped.clustered` next to the arithmetic of
:mod:`~judgestats.grouped.clusters`).

**Groups.** ``by="model"`` (or several columns) gives one row per group, with a multiplicity
correction across the groups (:class:`GroupedEstimates`; Holm and Bonferroni in
:mod:`~judgestats.grouped.multiplicity`; the p-value is
:func:`judgestats.frequentist.lang_reiczigel_p_value`). :func:`crosscheck_items` does the same
for :func:`judgestats.crosscheck` (the closed form and the posterior side by side,
:class:`GroupedCrossChecks`); as the posterior does not cluster, it refuses item ids that repeat
within a group. Both tables share one base, :class:`~judgestats.grouped.table.GroupedTable`.
"""

from judgestats.grouped.clustered import ClusteredEstimate
from judgestats.grouped.crosschecks import GroupCrossCheck, GroupedCrossChecks, crosscheck_items
from judgestats.grouped.estimates import GroupedEstimates, GroupRow, estimate_items
from judgestats.grouped.multiplicity import CORRECTIONS, adjust_p_values
from judgestats.grouped.table import GroupedTable

__all__ = [
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
]
