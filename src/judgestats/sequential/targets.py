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

from collections.abc import Iterator
from typing import Any

import numpy as np

from judgestats.sequential.confidence_sequence import EXACT_GRID_LIMIT, GRID_SIZE, bound_steps

__all__ = ["interval_path", "point_estimate", "target_steps", "verdict_interval"]


def _items_grid(judged_total: np.ndarray, size: int) -> tuple[np.ndarray, bool]:
    """Candidate z-means (S - f-bar + 1) / 2 of the shares S (a row per sequence), and exact."""
    exact = size <= EXACT_GRID_LIMIT
    shares = np.arange(size + 1) / size if exact else np.linspace(0.0, 1.0, GRID_SIZE)
    return (shares[None, :] - judged_total[:, None] / size + 1.0) / 2.0, exact


def target_steps(
    judged_total: np.ndarray,
    size: int,
    truth: np.ndarray,
    judged: np.ndarray,
    *,
    target: str,
    alpha: float,
    at: Any = None,
) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """Yield ``(t, low, high)``: the anytime-valid interval after t labels, for R sequences.

    Parameters
    ----------
    judged_total : ndarray, shape (R,)
        Items judged correct among all N (the sum of every verdict).
    size : int
        N, the number of items.
    truth, judged : ndarray, shape (R, n)
        The labelled items' human labels and verdicts, in the order they were drawn.
    target : {"items", "population"}
    alpha : float
        1 - the confidence level.
    at : iterable of int, optional
        The times (numbers of labels) to report; default every time.
    """
    judged_total = np.asarray(judged_total, dtype=float)
    z = (truth - judged + 1.0) / 2.0
    rate = judged_total[:, None] / size
    if target == "items":
        grid, exact = _items_grid(judged_total, size)
        known = np.cumsum(truth, axis=1)
        steps = bound_steps(z, grid, alpha=alpha, population_size=size, exact_grid=exact, at=at)
        for t, low, high in steps:
            low = np.maximum(rate[:, 0] + 2.0 * low - 1.0, known[:, t - 1] / size)
            high = np.minimum(rate[:, 0] + 2.0 * high - 1.0, (known[:, t - 1] + size - t) / size)
            yield t, np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)
        return
    p_low, p_high = verdict_interval(judged_total, size, alpha / 2.0)
    grid = np.linspace(0.0, 1.0, GRID_SIZE)
    for t, low, high in bound_steps(z, grid, alpha=alpha / 2.0, at=at):
        low, high = p_low + 2.0 * low - 1.0, p_high + 2.0 * high - 1.0
        yield t, np.clip(low, 0.0, 1.0), np.clip(high, 0.0, 1.0)


def interval_path(
    verdicts: np.ndarray, order: np.ndarray, truth: np.ndarray, *, target: str, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """The anytime-valid interval after each labelled item of one labelling.

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
    low, high = np.empty(order.size), np.empty(order.size)
    steps = target_steps(
        np.array([verdicts.sum()]),
        verdicts.size,
        np.asarray(truth, dtype=float)[None, :],
        verdicts[order].astype(float)[None, :],
        target=target,
        alpha=alpha,
    )
    for t, low_t, high_t in steps:
        low[t - 1], high[t - 1] = low_t[0], high_t[0]
    return low, high


def verdict_interval(
    judged_correct: np.ndarray, size: int, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """Clopper-Pearson interval of the judged-correct rate p at level 1 - ``alpha``."""
    from judgestats.designs.labels_only import labels_only_interval

    _, low, high = labels_only_interval(
        judged_correct, size, method="clopper_pearson", confidence_level=1.0 - alpha
    )
    return np.asarray(low, dtype=float), np.asarray(high, dtype=float)


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
