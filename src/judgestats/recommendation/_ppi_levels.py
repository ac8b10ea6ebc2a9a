"""PPI++ at the level its regime sets: the random-design rule's calibrated levels (issue 24).

The random-design coverage table (:mod:`judgestats.recommendation.random_rule`, step 2) gives
each cell a step into :data:`LEVEL_STEPS`: the nominal level at which the rule computes PPI++
with its small-sample correction (:func:`judgestats.designs.prediction_powered.ppi_pp_counts`)
so that the rule's own pick covers at least ``TUNED_COVERAGE`` in every cell of the regime.
A dataset's step is the largest over its regime's cells. Steps above :data:`NOMINAL_STEP`
raise the level where the selection or a lopsided judge costs coverage; steps below lower it
where the correction is conservative throughout the regime.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["LEVEL_STEPS", "NOMINAL_STEP", "ppi_at_steps", "ppi_offers"]

#: The levels ``ppi_pp`` may be computed at for a 95% recommendation: the table's ``steps``
#: index into them (the tuning, ``benchmarks/random_design.py``, starts every cell at the
#: lowest and raises a cell's level one step at a time where the rule undercovers there).
LEVEL_STEPS = (0.93, 0.94, 0.95, 0.96, 0.97, 0.98, 0.99)
#: The step of the 95% level itself, taken where a table has no ``steps``.
NOMINAL_STEP = LEVEL_STEPS.index(0.95)


def ppi_at_steps(
    counts: tuple[Any, ...], step: np.ndarray, target: str, interval: tuple[Any, Any]
) -> tuple[np.ndarray, np.ndarray]:
    """``ppi_pp``'s (low, high) per dataset, computed at ``LEVEL_STEPS[step]``.

    ``counts``: 1-D arrays of the datasets' length. ``interval``: the candidate at the level
    itself (:data:`NOMINAL_STEP`), broadcast to the datasets; where it is not finite with a positive
    width the caller has ruled the candidate out, and it is not recomputed.
    """
    from judgestats.designs.prediction_powered import ppi_pp_counts

    size = step.size
    low, high = (np.array(np.broadcast_to(np.asarray(a, dtype=float), (size,))) for a in interval)
    with np.errstate(invalid="ignore"):  # a candidate the caller left out stays left out
        usable = np.isfinite(low) & np.isfinite(high) & (high > low)
    for s in range(len(LEVEL_STEPS)):
        rows = np.flatnonzero((step == s) & usable)
        if rows.size and s != NOMINAL_STEP:
            chosen = (a[rows] for a in counts)
            _, low[rows], high[rows], _ = ppi_pp_counts(
                *chosen, target=target, confidence_level=LEVEL_STEPS[s]
            )
    return low, high


def ppi_offers(
    counts: tuple[np.ndarray, ...],
    step: np.ndarray,
    target: str,
    intervals: dict[str, tuple[Any, Any]],
) -> tuple[np.ndarray, dict[str, tuple[Any, Any]], dict[str, tuple[Any, Any]]]:
    """ppi_pp's step per dataset (as reported); the candidates as compared, and as reported.

    ``step``: the regime's largest step per dataset (NaN outside the table: the nominal one).
    Compared with the exact interval, ``ppi_pp`` is taken at its regime's level but never below
    95%, so a lowered level cannot make a judge look useful where it only narrows the
    approximation (the margin of step 3 is a 95% comparison); reported, it is at its level.
    """
    step = np.where(np.isnan(step), NOMINAL_STEP, step).astype(np.int64)
    compared = dict(intervals)
    if "ppi_pp" not in intervals or (step == NOMINAL_STEP).all():
        return step, compared, compared
    at_least_nominal = np.maximum(step, NOMINAL_STEP)
    compared["ppi_pp"] = ppi_at_steps(counts, at_least_nominal, target, intervals["ppi_pp"])
    reported = dict(compared)
    if (step < NOMINAL_STEP).any():
        lowered = np.minimum(step, NOMINAL_STEP)
        low, high = ppi_at_steps(counts, lowered, target, compared["ppi_pp"])
        # truncated to a point (a centre beyond 0 or 1): the 95% interval, never zero width
        point = (step < NOMINAL_STEP) & ~(high > low)
        step = np.where(point, NOMINAL_STEP, step)
        low, high = (
            np.where(point, compared["ppi_pp"][0], low),
            np.where(point, compared["ppi_pp"][1], high),
        )
        reported["ppi_pp"] = (low, high)
    return step, compared, reported
