r"""Algorithm 1 of Lee et al. (arXiv 2511.21140 v1, Sec. 3; ICML 2026 version App. A), vectorised.

The one implementation of the split rule: :func:`judgestats.allocate_calibration` calls it on one
budget, :func:`judgestats.simulate.adaptive_allocation` on a whole Monte Carlo chunk, and
:func:`judgestats.paper.allocate_calibration_sample` with the paper's signature.

Step 3 smooths a pilot's accuracy,
:math:`\tilde q_j = (k_{j,\text{pilot}} + 1)/(m_\text{pilot} + 2)`;
steps 4-7 give :math:`\hat\kappa = (1 - \tilde q_0)/(1 - \tilde q_1)`,
:math:`m_1^* = \mathrm{round}(m / (1 + (1/\hat p - 1)\sqrt{\hat\kappa}))` (Prop. 2; ICML 2026
Prop. 5.2), :math:`m_1 = \min(\max(m_1^*, f), m - f)` and :math:`m_0 = m - m_1`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from judgestats._validate import check_scalar_count

__all__ = ["algorithm1_split", "check_pilot_size", "smoothed_pilot"]


def smoothed_pilot(successes: Any, m_pilot: Any) -> Any:
    """Step 3: q~ = (k + 1) / (m_pilot + 2) for ``successes`` k of ``m_pilot`` pilot items.

    Elementwise over arrays; ``m_pilot = 0`` gives 1/2 (no pilot information).
    """
    return (np.asarray(successes, dtype=np.float64) + 1.0) / (np.asarray(m_pilot) + 2.0)


def algorithm1_split(m: Any, p: Any, q0_t: Any, q1_t: Any, floor: Any) -> tuple[Any, ...]:
    """Steps 4-7 on smoothed (or exact) accuracies: ``(m0, m1, kappa, m1_star)``, elementwise.

    Step 6, m1* = round(m / (1 + (1/p - 1) sqrt(kappa))), is evaluated in the equivalent form
    m p s1 / (p s1 + (1 - p) s0) with s_j = sqrt(1 - q_j), which is finite for p = 0 (limit:
    m1* = 0, the whole budget to m0) and for q1 = 1 (kappa = inf: m1* = 0). Only when both terms
    vanish (p = 0 and q0 = 1, or p = 1 and q1 = 1: no calibration variance at all) is the ratio
    undefined; then kappa = 1 is used (m1* = m p). Ties round half up. The arms are clamped to
    ``[floor, m - floor]``.

    Parameters
    ----------
    m : int or array_like
        Budgets m0 + m1.
    p : float or array_like
        Judged-correct rates p-hat of the test sets.
    q0_t, q1_t : float or array_like
        Smoothed pilot accuracies (:func:`smoothed_pilot`), or the exact ones.
    floor : int or array_like
        Smallest arm size.

    Returns
    -------
    m0, m1 : numpy.ndarray of int64
    kappa : numpy.ndarray of float
        (1 - q0~) / (1 - q1~); ``inf`` where q1~ = 1.
    m1_star : numpy.ndarray of int64
        Step 6 before the clamp.
    """
    m = np.asarray(m, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    q0_t = np.asarray(q0_t, dtype=np.float64)
    q1_t = np.asarray(q1_t, dtype=np.float64)
    s0, s1 = np.sqrt(1.0 - q0_t), np.sqrt(1.0 - q1_t)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(q1_t < 1.0, (1.0 - q0_t) / np.where(q1_t < 1.0, 1.0 - q1_t, 1.0), np.inf)
        numerator, denominator = p * s1, p * s1 + (1.0 - p) * s0
        safe = np.where(denominator > 0.0, denominator, 1.0)
        share = np.where(denominator > 0.0, numerator / safe, p)
    m1_star = np.floor(m * share + 0.5)
    m1 = np.minimum(np.maximum(m1_star, floor), m - floor)
    return (
        (m - m1).astype(np.int64),
        m1.astype(np.int64),
        kappa,
        m1_star.astype(np.int64),
    )


def check_pilot_size(m_pilot: Any, total: int | None) -> int:
    """Algorithm 1's pilot size per arm: a whole number with ``2 * m_pilot <= total``."""
    pilot = check_scalar_count(m_pilot, "m_pilot")
    if total is not None and 2 * pilot > total:
        raise ValueError(
            f"`m_pilot` ({pilot}) is too large for `m` ({total}): the pilot labels m_pilot items "
            f"of each kind, 2 * m_pilot = {2 * pilot} > m. Use m_pilot <= {total // 2}."
        )
    return pilot
