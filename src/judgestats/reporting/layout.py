"""The fixed wording of a report: figure captions, table headers and row labels.

Shared by the content (:mod:`~judgestats.reporting.content`), the figures and both renderers
(:mod:`~judgestats.reporting.html`, :mod:`~judgestats.reporting.markdown`).
"""

from __future__ import annotations

__all__ = [
    "DESIGN_TEXT",
    "FIGURES",
    "GROUP_FIGURE",
    "INTERVAL_HEADER",
    "NO_FLAGS",
    "NO_POSTERIOR_FIGURE",
    "POSTERIOR_HEADER",
    "VARIABLES",
    "VARIABLE_LABELS",
]

#: Figures of a report: file suffix -> caption.
FIGURES = {
    "theta": "Posterior density of the true accuracy theta (above; shaded: the recommended "
    "interval) and each interval of the table on its own row beneath it (dot: that row's point "
    "estimate; red: the recommended interval).",
    "judge": "Posterior densities of the judge's specificity q0 and sensitivity q1, with their "
    "equal-tailed credible intervals.",
}
#: Caption of the theta figure where the posterior could not be computed (no judge figure then).
NO_POSTERIOR_FIGURE = (
    "Each interval of the table on its own row (dot: that row's point estimate; red: the "
    "recommended interval); no posterior density: the posterior could not be computed for "
    "these data."
)
#: The posterior quantities of the judge-quality table, in order, and their labels.
VARIABLES = ("theta", "q0", "q1", "youden")
VARIABLE_LABELS = {
    "theta": "theta (true accuracy)",
    "q0": "q0 (specificity)",
    "q1": "q1 (sensitivity)",
    "youden": "J = q0 + q1 - 1",
}
#: Headers of the interval tables (cross-check, PPI) and of the posterior table.
INTERVAL_HEADER = ("method", "estimate", "low", "high", "width")
POSTERIOR_HEADER = (
    "",
    "calibration",
    "mean",
    "median",
    "ETI low",
    "ETI high",
    "HDI low",
    "HDI high",
)
#: Caption of the theta figure of one group of a grouped report.
GROUP_FIGURE = (
    "Posterior density of theta in this group (above; shaded: the recommended interval) and "
    "each interval of its table on its own row beneath it (dot: that row's point estimate; "
    "red: the recommended interval)."
)

#: The calibration design in words (the inputs table).
DESIGN_TEXT = {
    "stratified": "stratified: m0 truly-incorrect and m1 truly-correct calibration items "
    "chosen by design",
    "random": "random: the labelled items are a random subsample of the test items; k and n "
    "count the unlabelled ones",
}

#: What a report says where no flag was raised.
NO_FLAGS = "No flags: nothing in these data calls for caution."
