r"""Anytime-valid intervals of the two random-design targets from verdicts and sequential labels.

Every one of the N items has a judge verdict :math:`f_i \in \{0, 1\}`; a labelled item also
reveals its truth :math:`Y_i`, hence the judge's error :math:`\Delta_i = Y_i - f_i \in
\{-1, 0, 1\}`, rescaled to :math:`z_i = (\Delta_i + 1)/2 \in \{0, 1/2, 1\}`. The labelled items
arrive one at a time, each drawn uniformly from the items not yet labelled.

``target="items"``, the share of correct items among the N evaluated:

.. math:: S = \frac{1}{N}\sum_{i=1}^{N} Y_i = \bar f + \bar\Delta,
          \qquad \bar f = \frac{1}{N}\sum_{i=1}^{N} f_i \text{ (known)}, \quad
          \bar\Delta = 2\bar z - 1,

so the without-replacement betting confidence sequence for the finite-population mean
:math:`\bar z` (:mod:`judgestats.sequential.confidence_sequence`, population size N) maps to an
exact anytime-valid sequence for S. The possible shares are k / N; for N <= 4000 they are the
grid itself. It is intersected with what is known for sure, :math:`S \in [\sum_L Y/N,
(\sum_L Y + N - n)/N]` (n labelled), so with every item labelled it is the known share.

``target="population"``, the accuracy :math:`\theta` of the process that produced the items
(items i.i.d.):

.. math:: \theta = E[Y] = E[f] + E[\Delta] = p + \delta.

The N verdicts do not change as labels arrive: an exact Clopper-Pearson interval
:math:`[p_-, p_+]` for p from them, at level :math:`1 - \alpha/2`, holds once and for all; the
labelled items are an i.i.d. sample (chosen without looking at their values), so the
with-replacement betting sequence for :math:`E[z]` at level :math:`1 - \alpha/2` gives
:math:`[\delta_-, \delta_+]` at every time. By the union bound

.. math:: P\bigl(\exists t: \theta \notin [p_- + \delta_{-,t},\ p_+ + \delta_{+,t}]\bigr)
          \le \alpha/2 + \alpha/2 = \alpha.

A good judge makes :math:`\Delta` mostly 0: the bets grow large and the sequence narrows much
faster than one from the labels alone.
"""

from __future__ import annotations

import numpy as np

from judgestats.sequential.confidence_sequence import (
    EXACT_GRID_LIMIT,
    GRID_SIZE,
    running_bounds,
)

__all__ = ["interval_path", "point_estimate"]


def _items_grid(verdicts: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool]:
    """Candidate shares S, their z-means (S - f-bar + 1) / 2, and whether the grid is exact."""
    size = verdicts.size
    exact = size <= EXACT_GRID_LIMIT
    shares = np.arange(size + 1) / size if exact else np.linspace(0.0, 1.0, GRID_SIZE)
    return shares, (shares - verdicts.mean() + 1.0) / 2.0, exact


def interval_path(
    verdicts: np.ndarray, order: np.ndarray, truth: np.ndarray, *, target: str, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """The anytime-valid interval after each labelled item, in the order they were drawn.

    Parameters
    ----------
    verdicts : ndarray of 0/1, shape (N,)
        Every item's judge verdict.
    order : ndarray of int, shape (n,)
        The labelled items' positions, in the order they were drawn.
    truth : ndarray of 0/1, shape (n,)
        Their human labels, in the same order.
    target : {"items", "population"}
    alpha : float
        1 - the confidence level.

    Returns
    -------
    low, high : ndarray of shape (n,)
    """
    size = verdicts.size
    delta = truth - verdicts[order]
    z = (delta + 1.0) / 2.0
    if target == "items":
        shares, grid, exact = _items_grid(verdicts)
        low, high = running_bounds(
            z[None, :], grid, alpha=alpha, population_size=size, exact_grid=exact
        )
        low, high = verdicts.mean() + 2.0 * low[0] - 1.0, verdicts.mean() + 2.0 * high[0] - 1.0
        known = np.cumsum(truth)
        labelled = np.arange(1, truth.size + 1)
        low = np.maximum(low, known / size)
        high = np.minimum(high, (known + size - labelled) / size)
        return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
    p_low, p_high = verdict_interval(int(verdicts.sum()), size, alpha / 2.0)
    grid = np.linspace(0.0, 1.0, GRID_SIZE)
    low, high = running_bounds(z[None, :], grid, alpha=alpha / 2.0)
    low = p_low + 2.0 * low[0] - 1.0
    high = p_high + 2.0 * high[0] - 1.0
    return np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)


def verdict_interval(judged_correct: int, size: int, alpha: float) -> tuple[float, float]:
    """Clopper-Pearson interval of the judged-correct rate p at level 1 - ``alpha``."""
    from judgestats.designs.labels_only import labels_only_interval

    _, low, high = labels_only_interval(
        judged_correct, size, method="clopper_pearson", confidence_level=1.0 - alpha
    )
    return float(low), float(high)


def point_estimate(
    verdicts: np.ndarray, order: np.ndarray, truth: np.ndarray, target: str
) -> float:
    r"""The judge's rate corrected by the mean labelled error.

    Population: :math:`\bar f + \bar\Delta_L`; items: :math:`(\sum_L Y + \sum_U f +
    (N - n)\bar\Delta_L) / N`, clipped to [0, 1]. With no label: :math:`\bar f`.
    """
    if order.size == 0:
        return float(verdicts.mean())
    mean_error = float(np.mean(truth - verdicts[order]))
    if target == "population":
        return float(np.clip(verdicts.mean() + mean_error, 0.0, 1.0))
    size = verdicts.size
    unlabelled = np.ones(size, dtype=bool)
    unlabelled[order] = False
    total = truth.sum() + verdicts[unlabelled].sum() + unlabelled.sum() * mean_error
    return float(np.clip(total / size, 0.0, 1.0))
