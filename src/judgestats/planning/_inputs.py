"""Argument checks shared by the planning functions (package-internal helpers).

Every planning input is a single number; the checks reuse :mod:`judgestats._validate` and add the
planning-specific rules (a judge better than chance at the planning values, a width in (0, 1]).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from judgestats._validate import (
    MAX_EXACT_COUNT,
    as_scalar,
    check_counts,
    check_proportions,
    check_scalar_count,
    no_correction_message,
)


def check_planning_values(
    p: Any, q0: Any, q1: Any, *, judge_range: bool = True
) -> tuple[float, float, float]:
    """Planning values p, q0, q1: single proportions with a judge better than chance.

    With ``judge_range`` (the default), p must also be a judged-correct rate this judge can
    produce: p = theta q1 + (1 - theta)(1 - q0) lies in [1 - q0, q1] for every theta in [0, 1].
    """
    p_v, q0_v, q1_v = (
        as_scalar(check_proportions(value, name), name)
        for value, name in ((p, "p"), (q0, "q0"), (q1, "q1"))
    )
    if q0_v + q1_v - 1.0 <= 0.0:
        raise ValueError(no_correction_message(q0_v, q1_v, smoothed=False))
    low = 1.0 - q0_v
    if judge_range and not (low - 1e-12 <= p_v <= q1_v + 1e-12):
        raise ValueError(
            f"`p` ({p_v:g}) must lie in [1 - `q0`, `q1`] = [{low:g}, {q1_v:g}]: a judge with "
            f"specificity {q0_v:g} and sensitivity {q1_v:g} marks {low:.0%} of the items correct "
            f"when the true accuracy is 0 and {q1_v:.0%} when it is 1, so a judged-correct rate "
            f"of {p_v:g} is impossible for it; revise p, q0 or q1."
        )
    return p_v, q0_v, q1_v


def check_n(n: Any) -> float:
    """Planned test-set size: a single whole number >= 1, or ``inf``."""
    return as_scalar(check_counts(n, "n", minimum=1, allow_inf=True), "n")


def check_labels(value: Any, name: str, minimum: int) -> int:
    """A calibration budget or arm: a single whole number in [``minimum``, 2**53].

    Beyond 2**53 counts are not exact in floating point, and the width models' grids stop being
    finite.
    """
    labels = check_scalar_count(value, name, minimum)
    if labels > MAX_EXACT_COUNT:
        shown = labels if labels < 10**16 else f"{float(labels):.3g}"
        raise ValueError(
            f"`{name}` ({shown}) must be at most 2**53 ({MAX_EXACT_COUNT}) calibration labels: "
            "beyond it label counts are not exact in floating point."
        )
    return labels


def check_width(width: Any) -> float:
    """Target interval width: a single number in (0, 1]."""
    value = as_scalar(np.asarray(check_proportions(width, "width")), "width")
    if value <= 0.0:
        raise ValueError(
            f"`width` ({value!r}) must be greater than 0, e.g. 0.1 for an interval "
            "of total width 0.1."
        )
    return value
