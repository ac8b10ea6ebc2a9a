r"""PPI++ moments from the five counts of binary data, and the variance its tuned lambda adds.

The labelled items form a 2x2 table (human label y x verdict v) with cells ``k0`` (y = 0,
v = 0), ``m0 - k0`` (y = 0, v = 1), ``k1`` (y = 1, v = 1) and ``m1 - k1`` (y = 1, v = 0); the
unlabelled items give ``k`` verdicts "correct" of ``n``. Every PPI++ quantity is a function of
these counts (module docstring of :mod:`judgestats.designs.prediction_powered`):
:func:`pp_parts` evaluates lambda, the rectified mean and the variances, optionally with
pseudo-items, and :func:`lambda_jackknife_excess` the labelled variance that estimating lambda on
the same labels adds to the plug-in Var(r) / m, which treats lambda as fixed.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["lambda_jackknife_excess", "pp_parts"]


def pp_parts(
    counts: tuple[np.ndarray, ...], pseudo: float, p_pseudo: float, inflation: float | np.ndarray
) -> tuple[np.ndarray, ...]:
    r"""lambda, the rectified mean, Var(Y - lambda Yhat) and Var(Yhat^u) with pseudo-counts.

    ``pseudo`` is added to each cell of the labelled 2x2 table, ``p_pseudo`` to each of the
    unlabelled verdict counts (0 and 0: the plug-in moments of ppi-python). With
    :math:`\tilde m = m + 4a`, :math:`\phi = (m_1 + 2a)/\tilde m`,
    :math:`c = (k_1 + m_0 - k_0 + 2a)/\tilde m` and :math:`\mathrm{Cov} = (k_1 + a)/\tilde m
    - \phi c`: :math:`\lambda = \mathrm{clip}_{[0,1]}(\mathrm{Cov} / (\text{inflation}
    \cdot \mathrm{Var}(\hat Y^{l \cup u})))`, the rectified mean :math:`\lambda k/n + \phi -
    \lambda c` and :math:`\mathrm{Var}(r) = \phi(1-\phi) + \lambda^2 c(1-c) - 2\lambda
    \mathrm{Cov}`.
    """
    k, n, k0, m0, k1, m1 = counts
    m = m0 + m1 + 4.0 * pseudo
    phi = (m1 + 2.0 * pseudo) / m
    c = (k1 + m0 - k0 + 2.0 * pseudo) / m
    cov = (k1 + pseudo) / m - phi * c
    total, size = k + c * m, n + m
    var_all = total * (size - total) / (size * (size - 1.0))
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.clip(np.where(var_all > 0, cov / (inflation * var_all), 0.0), 0.0, 1.0)
    var_r = np.maximum(phi * (1 - phi) + lam**2 * c * (1 - c) - 2 * lam * cov, 0.0)
    p = (k + p_pseudo) / (n + 2.0 * p_pseudo)
    rectified = lam * k / n + phi - lam * c
    return lam, rectified, var_r, p * (1 - p)


def lambda_jackknife_excess(
    counts: tuple[np.ndarray, ...],
    pseudo: float,
    inflation: float | np.ndarray,
    lam: np.ndarray,
    rectified: Callable[[tuple[np.ndarray, ...]], np.ndarray] | None = None,
) -> np.ndarray:
    r"""The labelled variance that the estimated lambda adds: max(0, V_jack - V_fix).

    Leaving out one labelled item of cell c (``n_c`` items; four cells) and recomputing the
    rectified mean :math:`\hat\theta_{(c)}` with the same pseudo-items and lambda re-tuned on
    the remaining labels, the delete-one jackknife variance of the rectified mean is

    .. math:: V_{jack} = \frac{m - 1}{m} \sum_c n_c\,(\hat\theta_{(c)} - \bar\theta)^2,
              \qquad \bar\theta = \frac{1}{m}\sum_c n_c\,\hat\theta_{(c)},

    which sees the scatter of lambda as well as that of the labels (the jackknife variance of a
    smooth statistic is conservative in expectation: Efron & Stein 1981, "The jackknife estimate
    of variance", Annals of Statistics 9). ``V_fix`` is the plug-in variance of the labelled
    mean of r = Y - lambda Yhat with ``lam`` held fixed, :math:`\mathrm{Var}(r)/m` without
    pseudo-items; the difference, where positive, is the part owed to estimating lambda.
    ``rectified`` maps reduced counts to :math:`\hat\theta_{(c)}` (default: :func:`pp_parts`
    with ``pseudo`` pseudo-items in the error cells; ``benchmarks/ppi_small_sample.py`` passes
    its variants' own).
    """
    if rectified is None:

        def rectified(reduced: tuple[np.ndarray, ...]) -> np.ndarray:
            return pp_parts(reduced, pseudo, 0.0, inflation)[1]

    k, n, k0, m0, k1, m1 = counts
    m = m0 + m1
    leave_out = (  # (items in the cell, removed from k0, m0, k1, m1)
        (k0, 1, 1, 0, 0),
        (m0 - k0, 0, 1, 0, 0),
        (k1, 0, 0, 1, 1),
        (m1 - k1, 0, 0, 0, 1),
    )
    weights, thetas = [], []
    for size, d_k0, d_m0, d_k1, d_m1 in leave_out:
        reduced = (k, n, k0 - d_k0, m0 - d_m0, k1 - d_k1, m1 - d_m1)
        with np.errstate(divide="ignore", invalid="ignore"):
            theta = rectified(reduced)
        weights.append(np.asarray(size, dtype=float))
        thetas.append(np.where(size > 0, theta, 0.0))
    mean = sum(w * t for w, t in zip(weights, thetas, strict=True)) / m
    spread = sum(w * (t - mean) ** 2 for w, t in zip(weights, thetas, strict=True))
    v_jack = (m - 1.0) / m * spread
    phi, c, r = m1 / m, (k1 + m0 - k0) / m, k1 / m
    v_fix = np.maximum(phi * (1 - phi) + lam**2 * c * (1 - c) - 2 * lam * (r - phi * c), 0.0) / m
    return np.maximum(v_jack - v_fix, 0.0)
