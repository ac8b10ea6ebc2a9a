"""Multiplicity across groups: Holm's and Bonferroni's corrections, and the level they imply.

A grouped table (:class:`~judgestats.GroupedEstimates`, :class:`~judgestats.GroupedCrossChecks`)
makes one statement per group. With ``correction="holm"`` or ``"bonferroni"`` every group's
interval is computed at Bonferroni's ``1 - alpha / G`` (so the G intervals hold simultaneously
with probability at least ``1 - alpha``) and the p-values are Holm- or Bonferroni-adjusted;
``"none"`` leaves both marginal.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from judgestats._html import fmt_percent
from judgestats._validate import CORRECTIONS, check_choice

__all__ = [
    "CORRECTIONS",
    "adjust_p_values",
    "check_correction",
    "family_level",
    "interval_statement",
]


def check_correction(correction: Any) -> str:
    """Return ``correction`` if it is one of :data:`CORRECTIONS`, else raise."""
    return check_choice(correction, "correction", CORRECTIONS)


def adjust_p_values(
    p_values: Any, correction: str, *, family_size: int | None = None
) -> np.ndarray:
    """Adjust p-values for multiplicity: Holm's step-down, Bonferroni, or none.

    Holm (Scand. J. Statist. 6, 1979): with the m p-values sorted, p_(1) <= ... <= p_(m), the
    adjusted value of p_(i) is ``max_{j <= i} min(1, (m - j + 1) p_(j))`` (monotone in i).
    Bonferroni: ``min(1, m p)``. NaN p-values (groups without an estimate) stay NaN and count in
    the family as if they were 1 (never rejected; they then do not change the others).

    Parameters
    ----------
    p_values : array_like
        Raw p-values in [0, 1] (NaN allowed).
    correction : {"holm", "bonferroni", "none"}
        The adjustment.
    family_size : int, optional
        m; by default the number of p-values.

    Returns
    -------
    ndarray
        Adjusted p-values, in the input order.
    """
    correction = check_correction(correction)
    raw = np.asarray(p_values, dtype=np.float64).reshape(-1)
    m = raw.size if family_size is None else int(family_size)
    if correction == "none" or raw.size == 0:
        return raw.copy()
    filled = np.where(np.isnan(raw), 1.0, raw)
    if correction == "bonferroni":
        adjusted = np.minimum(1.0, m * filled)
    else:
        order = np.argsort(filled, kind="stable")
        steps = np.minimum(1.0, (m - np.arange(raw.size)) * filled[order])
        adjusted = np.empty_like(filled)
        adjusted[order] = np.maximum.accumulate(steps)
    return np.where(np.isnan(raw), np.nan, adjusted)


def family_level(level: float, correction: str, groups: int) -> float:
    """Each group's interval level: Bonferroni's ``1 - alpha / G``, or ``level`` for "none"."""
    return level if correction == "none" else 1.0 - (1.0 - level) / groups


def interval_statement(correction: str, interval_level: float, groups: int) -> str:
    """What the intervals of a grouped table are, in words (simultaneous or marginal)."""
    if correction == "none":
        return (
            f"intervals marginal at {fmt_percent(interval_level)} each, not corrected for the "
            f"{groups} groups"
        )
    text = (
        f"intervals simultaneous over {groups} group{'s' * (groups != 1)} (Bonferroni, each "
        f"at {fmt_percent(interval_level)}"
    )
    return text + (
        "; Holm's step-down has no interval counterpart)" if correction == "holm" else ")"
    )
