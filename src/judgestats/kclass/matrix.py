r"""The matrix Rogan-Gladen estimator, its delta-method covariance and its adjusted interval.

Notation: K classes; :math:`\pi` the true class shares (the simplex); :math:`C` the judge's
confusion matrix, row :math:`i` the distribution of the verdict on an item of true class
:math:`i` (so :math:`C\mathbf 1 = \mathbf 1`); :math:`p = C^\top \pi` the judged shares.
Estimates: :math:`\hat p` = test verdict shares of :math:`n` items, :math:`\hat C` = calibration
rows divided by their totals :math:`m_i`. The binary case (K = 2, classes ordered incorrect,
correct) is that of Lee et al., "How to Correctly Report LLM-as-a-Judge Evaluations",
arXiv 2511.21140 v1 ("Lee et al. v1"), with :math:`C = ((q_0, 1-q_0), (1-q_1, q_1))` and
:math:`\pi = (1-\theta, \theta)`; its future-work section names this extension.

**Point estimate** (eq. 4 generalised). Solve :math:`\hat C^\top \hat\pi = \hat p`. The sum of
:math:`\hat\pi` is 1 automatically (:math:`\mathbf 1^\top \hat C^\top = \mathbf 1^\top`), but a
share may be negative; the estimate reported is then the Euclidean projection of
:math:`\hat\pi` onto the simplex (at K = 2: eq. 4's truncation to [0, 1]).

**Delta-method covariance** (Lee et al. v1 App. A.1 generalised). With test and calibration
rows independent, :math:`d\hat\pi = C^{-\top}(d\hat p - d\hat C^\top \pi)`, so

.. math::
    \Sigma = C^{-\top} \Big[\frac{\mathrm{diag}(p) - p p^\top}{n}
        + \sum_i \pi_i^2 \frac{\mathrm{diag}(c_i) - c_i c_i^\top}{m_i}\Big] C^{-1},

:math:`c_i` the i-th row of :math:`C`. For a functional :math:`a^\top\pi` the variance is
:math:`a^\top \Sigma a`; at K = 2 and :math:`a = (0, 1)` this is the binary delta variance.

**Second-order bias.** Expanding :math:`\hat C^{-\top}` to second order in the calibration error,
:math:`E[\hat\pi] - \pi \approx b = C^{-\top} v` with

.. math::
    v = \sum_i \pi_i \,\mathrm{Cov}(\hat c_i)\, C^{-1} e_i
      = \sum_i \frac{\pi_i}{m_i}\, c_i \odot \big(C^{-1} e_i - \mathbf 1\big)

(using :math:`c_i^\top C^{-1} e_i = 1`); the test noise enters linearly and adds no bias.

**Adjusted interval** (Lang-Reiczigel, Lee et al. v1 eqs. 5-7, generalised). The test shares
get add-:math:`z^2` smoothing spread evenly, :math:`\tilde p = (n\hat p + z^2/K)/(n + z^2)`,
:math:`\tilde n = n + z^2`; every calibration row gets 2 pseudo-items spread evenly,
:math:`\tilde c_i = (m_i \hat c_i + 2/K)/(m_i + 2)`, :math:`\tilde m_i = m_i + 2`. With
:math:`\tilde\pi = \tilde C^{-\top}\tilde p` and :math:`\tilde\Sigma` the covariance above at the
smoothed values, the interval for :math:`a^\top\pi` is

.. math::
    a^\top(\pi_0 + 2 z^2 \tilde C^\top \tilde v) \mp z \sqrt{a^\top \tilde\Sigma a},

truncated to :math:`[\min a, \max a]`, where the starting point :math:`\pi_0` is
:math:`\tilde\pi` at K = 2 and the unsmoothed :math:`\hat\pi = \hat C^{-\top}\hat p` at
K >= 3. At K = 2 the smoothing is eq. (6)'s, and
:math:`2 z^2 \tilde C^\top \tilde v` is eq. (7)'s centre shift
:math:`2z^2(-(1-\tilde\theta)\tilde q_0(1-\tilde q_0)/\tilde m_0
+ \tilde\theta\tilde q_1(1-\tilde q_1)/\tilde m_1)` times :math:`(-1, 1)`: the shift is the
second-order bias mapped twice by :math:`\tilde C^\top` (at K = 2, :math:`C^\top` multiplies
every sum-zero vector by Youden's J, so this is :math:`J^2` times the bias, as in eq. 7). The
interval is therefore exactly Lang-Reiczigel's at K = 2.

Why the centre starts from :math:`\hat\pi` at K >= 3: at K = 2 every off-diagonal cell is an
error the judge really makes, but at K >= 3 spreading the pseudo-items over all K cells also
fills confusions the judge never makes (a strong 1-5 rubric judge's 1 -> 5), and the smoothed
:math:`\tilde\pi` moves by O(1/m) in a direction set by the smoothing rather than by the data.
On the grid of ``benchmarks/kclass_coverage.py`` (K = 3 and 5, strong to weak judges,
m = 10-100, n = 500-100,000; 10,000 datasets a cell) the centre at :math:`\tilde\pi` covers
the mean score of a 1-5 rubric only 0.81 of the time with m = 10 (the shift drags it further),
while starting from :math:`\hat\pi` keeps every share, win rate, mean score and top-two share
at or above 0.945 -- over the datasets on which the estimator exists: with the weakest judges and
10 calibration items per class up to 71% of the datasets give a non-dominant C-hat, which
:func:`judgestats.kclass.kclass_estimate` refuses. The smoothed values keep their two jobs: the
covariance (so an empty calibration cell does not collapse the interval, the reason the Wald
interval covers as little as 0.64 there) and the shift.

Every function here takes stacked arrays (shares ``(..., K)``, matrices ``(..., K, K)``) and does
no validation: :mod:`judgestats.kclass.closed_form` checks the inputs.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "DOMINANCE_RULE",
    "adjusted_parts",
    "delta_covariance",
    "dominance_violation",
    "matrix_rogan_gladen",
    "second_order_term",
    "simplex_projection",
]

#: The identifiability condition on the confusion matrix, in words.
DOMINANCE_RULE = (
    "every column's diagonal entry to be its largest (C[j, j] > C[i, j] for every other "
    "true class i: an item of class j is judged j more often than an item of any other class "
    "is); at K = 2 this is q0 + q1 > 1"
)


def matrix_rogan_gladen(p: np.ndarray, rates: np.ndarray) -> np.ndarray:
    r"""Solve :math:`C^\top \pi = p` for the shares (unprojected; they sum to 1)."""
    return np.linalg.solve(np.swapaxes(rates, -1, -2), p[..., None])[..., 0]


def simplex_projection(x: np.ndarray) -> np.ndarray:
    r"""Euclidean projection of each row of ``x`` onto the probability simplex.

    The projection is :math:`\max(x - \tau, 0)` with :math:`\tau` the unique number making it
    sum to 1; sorting the entries in decreasing order :math:`u_1 \ge \dots \ge u_K`,
    :math:`\tau = (\sum_{j \le \rho} u_j - 1)/\rho` for the largest :math:`\rho` with
    :math:`u_\rho > (\sum_{j \le \rho} u_j - 1)/\rho`.
    """
    u = -np.sort(-x, axis=-1)
    excess = np.cumsum(u, axis=-1) - 1.0
    ranks = np.arange(1, x.shape[-1] + 1)
    positive = u - excess / ranks > 0
    rho = x.shape[-1] - np.argmax(positive[..., ::-1], axis=-1)  # the largest such rank
    tau = np.take_along_axis(excess, (rho - 1)[..., None], axis=-1) / rho[..., None]
    return np.maximum(x - tau, 0.0)


def delta_covariance(
    shares: np.ndarray, p: np.ndarray, rates: np.ndarray, n: np.ndarray, m: np.ndarray
) -> np.ndarray:
    r"""The delta-method covariance :math:`\Sigma` of the shares (module docstring).

    ``n`` has the batch shape (``inf`` drops the test term); ``m`` the shape ``(..., K)``.
    """
    inverse = np.linalg.inv(rates)
    test = (p[..., :, None] * np.eye(p.shape[-1]) - p[..., :, None] * p[..., None, :]) / np.asarray(
        n
    )[..., None, None]
    weight = shares**2 / m
    calibration = np.einsum("...i,...ij->...j", weight, rates)[..., :, None] * np.eye(
        p.shape[-1]
    ) - np.einsum("...ij,...i,...ik->...jk", rates, weight, rates)
    return np.swapaxes(inverse, -1, -2) @ (test + calibration) @ inverse


def second_order_term(shares: np.ndarray, rates: np.ndarray, m: np.ndarray) -> np.ndarray:
    r""":math:`v = \sum_i (\pi_i / m_i)\, c_i \odot (C^{-1} e_i - \mathbf 1)` (module docstring).

    The second-order bias of the estimator is :math:`C^{-\top} v`; the adjusted interval shifts
    its centre by :math:`2 z^2 C^\top v`.
    """
    inverse = np.linalg.inv(rates)
    weight = shares / m
    return np.einsum("...i,...ik,...ki->...k", weight, rates, inverse) - np.einsum(
        "...i,...ik->...k", weight, rates
    )


def adjusted_parts(
    test: np.ndarray, confusion: np.ndarray, z: float
) -> tuple[np.ndarray, np.ndarray]:
    r"""The adjusted interval's centre vector and covariance (module docstring).

    Parameters
    ----------
    test : numpy.ndarray, shape (..., K)
        Test verdict counts.
    confusion : numpy.ndarray, shape (..., K, K)
        Calibration counts, rows = true class.
    z : float
        The normal quantile.

    Returns
    -------
    centre : numpy.ndarray, shape (..., K)
        :math:`\pi_0 + 2 z^2 \tilde C^\top \tilde v` with :math:`\pi_0 = \tilde\pi` at
        K = 2 and the unsmoothed estimate at K >= 3; the interval of :math:`a^\top\pi` is
        centred at ``a @ centre``.
    covariance : numpy.ndarray, shape (..., K, K)
        :math:`\tilde\Sigma`; its standard error is ``sqrt(a @ covariance @ a)``.
    """
    size = test.shape[-1]
    z2 = z * z
    n = test.sum(axis=-1)
    n_t = n + z2
    p_t = (test + z2 / size) / n_t[..., None]
    m_t = confusion.sum(axis=-1) + 2.0
    rates_t = (confusion + 2.0 / size) / m_t[..., None]
    shares_t = matrix_rogan_gladen(p_t, rates_t)
    shift = np.einsum("...ij,...i->...j", rates_t, second_order_term(shares_t, rates_t, m_t))
    if size == 2:
        start = shares_t
    else:
        rates = confusion / confusion.sum(axis=-1)[..., None]
        start = matrix_rogan_gladen(test / n[..., None], rates)
    centre = start + 2.0 * z2 * shift
    return centre, delta_covariance(shares_t, p_t, rates_t, n_t, m_t)


def dominance_violation(rates: np.ndarray) -> tuple[int, int] | None:
    """The first (true class i, judged class j) with ``C[i, j] >= C[j, j]``, i != j; else None."""
    diagonal = np.diag(rates)
    offending = (rates >= diagonal[None, :]) & ~np.eye(rates.shape[0], dtype=bool)
    if not offending.any():
        return None
    i, j = np.argwhere(offending)[0]
    return int(i), int(j)
