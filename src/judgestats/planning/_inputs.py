"""Argument checks shared by the planning functions (package-internal helpers).

Every planning input is a single number; the checks reuse :mod:`judgestats._validate` and add the
planning-specific rules (a judge better than chance at the planning values, a width in (0, 1]).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from judgestats._validate import as_scalar, check_counts, check_proportions, no_correction_message


def check_planning_values(p: Any, q0: Any, q1: Any) -> tuple[float, float, float]:
    """Planning values p, q0, q1: single proportions with a judge better than chance."""
    p_v, q0_v, q1_v = (
        as_scalar(check_proportions(value, name), name)
        for value, name in ((p, "p"), (q0, "q0"), (q1, "q1"))
    )
    if q0_v + q1_v - 1.0 <= 0.0:
        raise ValueError(no_correction_message(q0_v, q1_v, smoothed=False))
    return p_v, q0_v, q1_v


def check_n(n: Any) -> float:
    """Planned test-set size: a single whole number >= 1, or ``inf``."""
    return as_scalar(check_counts(n, "n", minimum=1, allow_inf=True), "n")


def check_width(width: Any) -> float:
    """Target interval width: a single number in (0, 1]."""
    value = as_scalar(np.asarray(check_proportions(width, "width")), "width")
    if value <= 0.0:
        raise ValueError(
            f"`width` ({value!r}) must be greater than 0, e.g. 0.1 for an interval "
            "of total width 0.1."
        )
    return value
