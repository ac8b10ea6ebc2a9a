r"""Anytime-valid intervals of the two random-design targets from verdicts and sequential labels.

Every one of the N items has a judge verdict :math:`f_i \in \{0, 1\}` (k of them 1); a labelled
item also reveals its truth :math:`Y_i`. The labelled items arrive one at a time, each drawn
uniformly from the items not yet labelled. For a coefficient :math:`\lambda \in [0, 1]` let
:math:`x_i = Y_i - \lambda f_i \in [-\lambda, 1]`, rescaled to
:math:`z_i = (x_i + \lambda)/(1 + \lambda) \in [0, 1]`: :math:`\lambda = 0` is the labels alone,
:math:`\lambda = 1` the judge's error :math:`Y - f`, and in between a control variate as in
PPI++. Each bettor of :mod:`judgestats.sequential.confidence_sequence` bets on z; here two bet at
once, and their average wealth is the test (an average of test martingales is one):

* the labels alone, :math:`\lambda = 0` (best for a weak judge, and near 0 or 1, where the
  labels' own range makes large bets safe);
* the judge, with the predictable coefficient
  :math:`\lambda_t = \mathrm{clip}\bigl((\widehat{C}_{t-1} + 5 v_{t-1})/((t - 1 + 5)
  v_{t-1}), 0, 1\bigr)`, :math:`\widehat C_{t-1} = \sum_{j<t} (Y_j - \bar Y)(f_j - \bar f)` and
  :math:`v_{t-1} = \tilde f(1 - \tilde f)`, :math:`\tilde f = (1 + \sum_{j<t} f_j)/(t + 1)`,
  over the first t - 1 labelled items only (so it is predictable for both targets): the
  variance-minimising :math:`\mathrm{Cov}(Y, f)/\mathrm{Var}(f)`, shrunk towards 1 by five
  pseudo-labels.

Both wealths decrease in the candidate's null mean m, which increases with the candidate, so the
rejected candidates still form two half-lines (see that module).

``target="items"``, the share :math:`S = \frac1N \sum_{i=1}^N Y_i` of correct items among the N:
for a candidate S the N values :math:`x_i` total :math:`NS - \lambda k`, so after t draws the
next one has mean

.. math:: m_t(S) = \frac{NS - \lambda_t k - \sum_{j \le t} (Y_j - \lambda_t f_j)}{N - t}

(without replacement: exact for the fixed items, whatever the coefficient, since it is chosen
before the draw). The possible shares are k / N, for N <= 4000 the grid itself, and the interval
is intersected with what is known for sure, :math:`S \in [\sum_L Y / N, (\sum_L Y + N - n)/N]`
(n labelled), so with every item labelled it is the known share.

``target="population"``, the accuracy :math:`\theta = E[Y]` of the process (items i.i.d.):
:math:`E[x_t] = \theta - \lambda_t p` with :math:`p = E[f]`. The N verdicts give an exact
Clopper-Pearson interval :math:`[p_-, p_+]` at level :math:`1 - \alpha/2`; the bettor on
:math:`z > m` uses :math:`m = \theta - \lambda_t p_-` and the one on :math:`z < m` uses
:math:`\theta - \lambda_t p_+`, the null means least favourable to them. On the event
:math:`p \in [p_-, p_+]` each wealth is at most the test martingale at the true p, so by the union
bound, with :math:`\alpha/4` for each bettor's side,

.. math:: P(\exists t: \theta \notin C_t) \le P(p \notin [p_-, p_+]) + \alpha/4 + \alpha/4
          \le \alpha.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from judgestats.sequential.confidence_sequence import (
    BET_CAP,
    EXACT_GRID_LIMIT,
    GRID_SIZE,
    WEALTH_CAP,
    interval_ends,
    plug_in_bets,
)

__all__ = [
    "PRIOR_LABELS",
    "control_coefficients",
    "interval_path",
    "point_estimate",
    "target_steps",
    "verdict_interval",
]


#: Pseudo-labels that shrink the judge bettor's coefficient towards 1 (see the module docstring).
PRIOR_LABELS = 5.0


def control_coefficients(truth: np.ndarray, judged: np.ndarray) -> np.ndarray:
    """The predictable coefficients lambda_t, shape (R, n), from the first t - 1 labels only."""
    seen = np.arange(truth.shape[1], dtype=float)  # labels before time t

    def before(values: np.ndarray) -> np.ndarray:
        return np.concatenate([np.zeros((values.shape[0], 1)), np.cumsum(values, 1)[:, :-1]], 1)

    sum_y, sum_f, sum_yf = before(truth), before(judged), before(truth * judged)
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = np.where(seen > 0, sum_yf - sum_y * sum_f / np.maximum(seen, 1.0), 0.0)
        rate = (sum_f + 1.0) / (seen + 2.0)
        var = rate * (1.0 - rate)
        lam = (cov + PRIOR_LABELS * var) / ((seen + PRIOR_LABELS) * var)
    return np.clip(lam, 0.0, 1.0)


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
        Items judged correct among all N (k, the sum of every verdict).
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
    truth, judged = np.asarray(truth, dtype=float), np.asarray(judged, dtype=float)
    total = np.asarray(judged_total, dtype=float)[:, None]
    sequences, n = truth.shape
    checkpoints = set(range(1, n + 1) if at is None else (int(t) for t in at))
    exact = target == "items" and size <= EXACT_GRID_LIMIT
    grid = np.arange(size + 1) / size if exact else np.linspace(0.0, 1.0, GRID_SIZE)
    side = alpha / 2.0 if target == "items" else alpha / 4.0
    p_ends = None if target == "items" else verdict_interval(total[:, 0], size, alpha / 2.0)
    bettors = [_Bettor(np.zeros_like(truth), truth, judged, side)]
    bettors.append(_Bettor(control_coefficients(truth, judged), truth, judged, side))
    rejected_low = np.zeros((sequences, grid.size), dtype=bool)
    rejected_high = np.zeros_like(rejected_low)
    cols = slice(0, grid.size)  # candidates some sequence has not rejected yet
    for t in range(n):
        up: Any = 0.0
        down: Any = 0.0
        for bettor in bettors:
            gain_up, gain_down = bettor.step(t, grid, cols, total, size, p_ends)
            up, down = up + gain_up / len(bettors), down + gain_down / len(bettors)
        rejected_low[:, cols] |= up >= 1.0 / side
        rejected_high[:, cols] |= down >= 1.0 / side
        if t + 1 in checkpoints:
            finite = size if target == "items" else None
            yield (t + 1, *_ends(grid, rejected_low, rejected_high, truth, t + 1, finite, exact))
        if t % 8 == 7:
            cols = _still_open(rejected_low, rejected_high)


def _still_open(rejected_low: np.ndarray, rejected_high: np.ndarray) -> slice:
    """The grid columns not rejected on one side by every sequence.

    Rejection is permanent and each side's rejected candidates form a half-line, so the
    columns left of the first one some sequence still accepts from below, and right of the
    last one some sequence accepts from above, never change an interval again: their wealths
    need no more updates (the cost falls as the intervals narrow).
    """
    size = rejected_low.shape[1]
    first = np.where(rejected_low.all(axis=0), size, np.arange(size)).min()
    last = np.where(rejected_high.all(axis=0), -1, np.arange(size)).max()
    return slice(int(min(first, last)), int(max(last, first)) + 1)


def _ends(
    grid: np.ndarray,
    rejected_low: np.ndarray,
    rejected_high: np.ndarray,
    truth: np.ndarray,
    seen: int,
    size: int | None,
    exact: bool,
) -> tuple[np.ndarray, np.ndarray]:
    """The interval's ends; for the items target (``size`` N) with what the labels settle."""
    candidates = np.broadcast_to(grid, rejected_low.shape)
    if size is None:
        possible = np.ones_like(rejected_low)
        return interval_ends(candidates, rejected_low, rejected_high, possible, exact)
    known = truth[:, :seen].sum(axis=1, keepdims=True)
    too_low = candidates < known / size - 1e-12
    too_high = candidates > (known + size - seen) / size + 1e-12
    possible = ~(too_low | too_high)
    return interval_ends(
        candidates, rejected_low | too_low, rejected_high | too_high, possible, exact
    )


class _Bettor:
    """One bettor's coefficients, rescaled observations, bets and wealth on the grid."""

    def __init__(self, lam: np.ndarray, truth: np.ndarray, judged: np.ndarray, side: float):
        self.lam, self.truth, self.judged = lam, truth, judged
        self.z = (truth - lam * judged + lam) / (1.0 + lam)
        self.bets = plug_in_bets(self.z, side)
        self.sum_y = np.zeros((truth.shape[0], 1))
        self.sum_f = np.zeros((truth.shape[0], 1))
        self.up = np.ones((truth.shape[0], 0))
        self.down = np.ones((truth.shape[0], 0))

    def step(
        self,
        t: int,
        grid: np.ndarray,
        cols: slice,
        total: np.ndarray,
        size: int,
        p_ends: tuple[np.ndarray, np.ndarray] | None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """Update the wealths on the grid columns ``cols`` with observation t; return them."""
        if self.up.shape[1] != grid.size:
            self.up = np.ones((self.z.shape[0], grid.size))
            self.down = np.ones((self.z.shape[0], grid.size))
        lam = self.lam[:, t : t + 1]
        if p_ends is None:  # items: the mean of the N - t values not yet drawn
            rest = size * grid[cols] - lam * total - (self.sum_y - lam * self.sum_f)
            m_up = m_down = np.clip((rest / (size - t) + lam) / (1.0 + lam), 0.0, 1.0)
        else:  # population: the null means least favourable to each bettor
            m_up = (grid[cols] - lam * p_ends[0][:, None] + lam) / (1.0 + lam)
            m_down = (grid[cols] - lam * p_ends[1][:, None] + lam) / (1.0 + lam)
        z, bet = self.z[:, t : t + 1], self.bets[:, t : t + 1]
        with np.errstate(divide="ignore"):
            gain_up = 1.0 + np.minimum(bet, BET_CAP / m_up) * (z - m_up)
            gain_down = 1.0 - np.minimum(bet, BET_CAP / (1.0 - m_down)) * (z - m_down)
        up = self.up[:, cols] = np.minimum(self.up[:, cols] * gain_up, WEALTH_CAP)
        down = self.down[:, cols] = np.minimum(self.down[:, cols] * gain_down, WEALTH_CAP)
        self.sum_y += self.truth[:, t : t + 1]
        self.sum_f += self.judged[:, t : t + 1]
        return up, down


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
