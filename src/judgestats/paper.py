"""The paper's own function names and signatures (Lee et al. v1 App. B), as thin wrappers.

A drop-in for readers of Lee et al., "How to Correctly Report LLM-as-a-Judge Evaluations"
(arXiv 2511.21140 v1, "Lee et al. v1"; App. B and the authors' reference code)::

    from judgestats.paper import point_estimator, confidence_interval

Results equal those of the paper's reference code wherever that code returns a meaningful answer.
Where it would not, these wrappers raise a clear :class:`ValueError` instead:

* a judge no better than chance (q0 + q1 - 1 <= 0): the reference code divides by zero at
  J = 0 and returns a meaningless clipped number for J < 0;
* the same for the Laplace-adjusted judge in the interval (q0~ + q1~ - 1 <= 0), where the
  reference code divides by zero or returns an inverted interval;
* ``alpha`` outside (0, 1), where ``norm.ppf`` returns NaN or infinity;
* proportions outside [0, 1] and counts that are zero, negative or not whole (e.g. ``m0 = 0``,
  for which the reference code silently uses q0~ = 1/2).

Unlike the reference code, the functions also accept numpy arrays (elementwise, see
:func:`judgestats.lang_reiczigel_ci`) and ``n = numpy.inf``.
"""

from __future__ import annotations

from typing import Any

from judgestats._validate import (
    as_real_array,
    as_scalar,
    check_level,
    check_proportions,
    check_scalar_count,
    no_correction_message,
)
from judgestats.frequentist import (
    check_interval_inputs,
    lang_reiczigel_at_z,
    normal_quantile,
    rogan_gladen,
)
from judgestats.planning.algorithm1 import algorithm1_split, check_pilot_size, smoothed_pilot
from judgestats.results import ConfidenceInterval

__all__ = ["allocate_calibration_sample", "confidence_interval", "point_estimator"]


def point_estimator(p: Any, q0: Any, q1: Any) -> Any:
    """Bias-adjusted point estimate (p + q0 - 1) / (q0 + q1 - 1), clipped to [0, 1] (eq. 4).

    Same as the paper's ``point_estimator``; raises ValueError when q0 + q1 - 1 <= 0, where the
    reference code divides by zero (J = 0) or returns a meaningless value (J < 0).
    """
    return rogan_gladen(p, q0, q1, clip=True)


def confidence_interval(
    p: Any, q0: Any, q1: Any, n: Any, m0: Any, m1: Any, alpha: float = 0.05
) -> ConfidenceInterval:
    """Adjusted (1 - alpha) confidence interval of eqs. (5)-(7), as in the paper's code.

    z is the (1 - alpha/2) normal quantile, computed exactly as the reference code does
    (``norm.ppf(1 - alpha/2)``; :func:`scipy.special.ndtri` is bitwise identical). Returns
    ``(low, high)`` as a :class:`~judgestats.ConfidenceInterval`, a tuple like the reference code's.
    See the module docstring for the inputs on which this raises instead of following the
    reference code.
    """
    alpha = check_level(alpha, "alpha")
    z = normal_quantile(1 - alpha / 2)
    return lang_reiczigel_at_z(check_interval_inputs(p, q0, q1, n, m0, m1), z)


def allocate_calibration_sample(
    m: Any,
    p: Any,
    q0_pilot: Any = 0.9,
    q1_pilot: Any = 0.9,
    m_pilot: Any = 0,
    eps: float = 1e-6,
) -> tuple[int, int]:
    """Algorithm 1's split ``(m0, m1)`` of a calibration budget ``m``, as in the paper's code.

    See :func:`judgestats.allocate_calibration` for the algorithm and the decisions taken on the
    paper's text (m0 = m - m1; p-hat -> 0 sends the budget to m0; ``m_pilot = 0`` means no pilot
    information, kappa = 1; ``2 * m_pilot > m`` raises; arms get at least one item; ties round half
    up). ``eps`` is accepted for compatibility and must be a non-negative number; it changes
    nothing, because this implementation never divides by p-hat or by 1 - q~. Returns plain ints.
    """
    eps_value = as_real_array(eps, "eps")
    if eps_value.ndim or not 0.0 <= float(eps_value) < 0.5:
        raise ValueError(f"`eps` ({eps!r}) must be a single number in [0, 0.5).")
    total = check_scalar_count(m, "m", 2)
    p_f = as_scalar(check_proportions(p, "p"), "p")
    q0_f = as_scalar(check_proportions(q0_pilot, "q0_pilot"), "q0_pilot")
    q1_f = as_scalar(check_proportions(q1_pilot, "q1_pilot"), "q1_pilot")
    pilot = check_pilot_size(m_pilot, total)
    if pilot and q0_f + q1_f <= 1.0:
        raise ValueError(no_correction_message(q0_f, q1_f, smoothed=False))
    q0_t, q1_t = smoothed_pilot(q0_f * pilot, pilot), smoothed_pilot(q1_f * pilot, pilot)
    m0, m1, _, _ = algorithm1_split(total, p_f, q0_t, q1_t, max(pilot, 1))
    return int(m0), int(m1)
