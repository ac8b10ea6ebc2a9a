r"""Active selection: label next where the judge is least certain, and keep the interval valid.

When the judge gives every one of the N items a score :math:`s_i \in [0, 1]` (its probability
that the item is correct), labels are worth most where :math:`s_i(1 - s_i)` is large. The design
here follows active statistical inference (Zrnic & Candes, "Active Statistical Inference", ICML
2024, arXiv 2403.03208) made sequential, and *without replacement*, with the betting confidence
sequences of :mod:`judgestats.sequential.confidence_sequence` (Waudby-Smith & Ramdas, arXiv
2010.09686; the finite-population form follows their "Confidence sequences for sampling without
replacement", arXiv 2006.04347).

**Weights.** Fix a floor :math:`\pi_{\min} \in (0, 1]` and

.. math:: a_i = \frac{\sqrt{s_i (1 - s_i)}}{\max_j \sqrt{s_j (1 - s_j)}}, \qquad
          w_i = \pi_{\min} + (1 - \pi_{\min})\, a_i \in [\pi_{\min}, 1]

(:math:`a_i = 0` when every score is 0 or 1): the Neyman allocation :math:`w \propto
\sqrt{s(1 - s)}` mixed with the uniform one.

**Selection: successive sampling.** The labelling order :math:`I_1, I_2, \ldots, I_N` is drawn
without replacement, each next item with probability proportional to its weight among those not
yet drawn, :math:`U_t = \{1..N\} \setminus \{I_1..I_{t-1}\}`:

.. math:: P(I_t = i \mid I_1, \ldots, I_{t-1}) = q_t(i) = \frac{w_i}{W_t}, \qquad
          W_t = \sum_{j \in U_t} w_j .

It is drawn at once by sorting the keys :math:`E_i / w_i`, :math:`E_i \sim` Exp(1)
independent: the smallest key is item i with probability :math:`w_i / \sum_j w_j`, and by the
exponential's lack of memory the remaining keys, given the order so far, are again independent
exponentials over their weights. The order depends on the seed and the scores only, so it is
fixed before any label and each batch is the next unlabelled items in it.

**The increment.** With :math:`\bar s = \frac1N \sum_i s_i` and
:math:`K_{t-1} = \sum_{j < t} (Y_{I_j} - s_{I_j})` (the labelled items' residuals),

.. math:: \phi_t = \bar s + \frac1N \Bigl(K_{t-1}
          + \frac{W_t}{w_{I_t}} \bigl(Y_{I_t} - s_{I_t}\bigr)\Bigr).

Given the past :math:`\mathcal F_{t-1}` (the first t - 1 items and their labels),

.. math:: E[\phi_t \mid \mathcal F_{t-1}] = \bar s + \frac1N \Bigl(K_{t-1}
          + \sum_{i \in U_t} \frac{w_i}{W_t} \frac{W_t}{w_i} (Y_i - s_i)\Bigr)
          = \bar s + \frac1N \sum_{i=1}^N (Y_i - s_i) = S,

the share :math:`S = \frac1N \sum_i Y_i` of correct items, whatever the past: a martingale
difference :math:`\phi_t - S`, a Horvitz-Thompson estimate of the unlabelled items' residual
total added to the labelled ones' known total. With :math:`w \equiv 1` it is the labels' own
without-replacement increment. The identity needs only that :math:`q_t` is fixed before
:math:`I_t` is drawn (predictable); here the weights are fixed before any label.

**Range, known before each draw.** :math:`Y - s \in [-s, 1 - s]`, so

.. math:: \phi_t \in [\ell_t, u_t], \quad
          \ell_t = \bar s + \frac{K_{t-1} - W_t \max_{i \in U_t} s_i / w_i}{N}, \quad
          u_t = \bar s + \frac{K_{t-1} + W_t \max_{i \in U_t} (1 - s_i) / w_i}{N},

both :math:`\mathcal F_{t-1}`-measurable. Since :math:`W_t \max_{U_t} s_i/w_i \ge \sum_{U_t}
s_i`, :math:`\ell_t \le \sum_{j<t} Y_{I_j} / N`, the least S can be, and likewise
:math:`u_t \ge (\sum_{j<t} Y_{I_j} + N - t + 1)/N`: every possible S lies in the range. As the
items are used up, :math:`W_t / N` shrinks and so does the range (the finite-population gain).

**The confidence sequence.** Rescale :math:`z_t = (\phi_t - \ell_t)/(u_t - \ell_t) \in [0, 1]`;
under a candidate S its conditional mean is :math:`m_t(S) = (S - \ell_t)/(u_t - \ell_t)`,
predictable and increasing in S. The two gamblers of
:mod:`~judgestats.sequential.confidence_sequence` bet the plug-in :math:`\tilde\lambda_t` on z,
truncated at :math:`c_t / m_t` and :math:`c_t / (1 - m_t)`:

.. math:: K_t^{\pm}(S) = \prod_{j \le t} \bigl(1 \pm \lambda_j^{\pm} (z_j - m_j(S))\bigr).

Each factor is positive when :math:`c_t < 1` and has conditional mean 1 at the true S, so
:math:`K^{\pm}(S)` are non-negative martingales and, by Ville's inequality, reach
:math:`2/\alpha` with probability at most :math:`\alpha/2` each, at any time. The candidates
never rejected form the confidence sequence, valid at any stopping time; the factors decrease
in :math:`m_t` and :math:`m_t` increases in S, so the rejected candidates are two half-lines and
the grid (the shares k / N for N <=
:data:`~judgestats.sequential.confidence_sequence.EXACT_GRID_LIMIT`, else a fine grid) gives
the ends. The interval is intersected with what the labels settle for sure,
:math:`S \in [\sum_L Y / N, (\sum_L Y + N - n)/N]`.

**The truncation.** Any predictable :math:`c_t \in (0, 1)` keeps the argument. With the running
variance :math:`\hat\sigma^2_{t-1}` of :math:`z_1..z_{t-1}` (the plug-in's, 1/4 before any
label) and :data:`CAP_RANGE` :math:`= (c_0, c_1)`, :data:`VARIANCE_RANGE` :math:`= (v_0, v_1)`,

.. math:: c_t = c_0 + (c_1 - c_0)\,
          \mathrm{clip}\Bigl(\frac{v_1 - \hat\sigma^2_{t-1}}{v_1 - v_0}, 0, 1\Bigr):

the uniform design's 1/2 while the increments vary (a weak judge, and the first labels, whose
variance is mostly the prior's: large early bets lose wealth that later labels must win back),
rising to 0.9 where they barely vary (a strong judge: most residuals are tiny, the growth of the
wealth is limited by the cap rather than the variance). ``benchmarks/active_labelling.py
--cap`` measures fixed caps against it.

**Stopping.** The interval after t labels uses the first t items of the order; stopping after
any batch, for any reason seen in the labels, is a stopping time.

**Cost.** :math:`O(N \log N)` for the order and :math:`O(tG)` for t labels and G candidates.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np

from judgestats.sequential.confidence_sequence import (
    EXACT_GRID_LIMIT,
    GRID_SIZE,
    WEALTH_CAP,
    interval_ends,
    plug_in_bets,
    predictable_variance,
    wealth_factors,
)

__all__ = [
    "CAP_RANGE",
    "MIN_PROBABILITY",
    "VARIANCE_RANGE",
    "ActiveDraws",
    "active_interval",
    "bet_caps",
    "check_scores",
    "draw_order",
    "ipw_increments",
    "prefix_interval",
    "selection_probabilities",
]

#: Default floor pi_min of the weights (benchmarks/active_labelling.py measures it).
MIN_PROBABILITY = 0.6
#: The bets' truncation c_t runs from the first value to the second (module docstring) ...
CAP_RANGE = (0.5, 0.9)
#: ... as the running variance of the rescaled increments falls from the second value to the first.
VARIANCE_RANGE = (0.02, 0.05)


def check_scores(scores: Any, size: int) -> np.ndarray:
    """Scores as floats in [0, 1], one per item; else ValueError / TypeError naming ``scores``."""
    array = np.asarray(scores)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"`scores` must hold numbers in [0, 1], got values of type {array.dtype}.")
    array = array.astype(float)
    if array.ndim != 1 or array.size != size:
        raise ValueError(f"`scores` ({array.size} values) must give one score per id ({size} ids).")
    if np.isnan(array).any():
        raise ValueError(
            f"`scores` has {int(np.isnan(array).sum())} missing value(s); every item needs one."
        )
    bad = (array < 0) | (array > 1)
    if bad.any():
        raise ValueError(
            f"`scores` must lie in [0, 1]; got {float(array[bad][0])!r} ({int(bad.sum())} outside)."
        )
    return array


def selection_probabilities(scores: np.ndarray, floor: float = MIN_PROBABILITY) -> np.ndarray:
    r"""The weights :math:`w_i` of the module docstring, in [floor, 1] (last axis: the items)."""
    if isinstance(floor, bool) or not isinstance(floor, (int, float, np.floating)):
        raise TypeError(f"`min_probability` must be a number, got {type(floor).__name__}.")
    if not 0.0 < float(floor) <= 1.0:
        raise ValueError(f"`min_probability` ({floor!r}) must lie in (0, 1].")
    spread = np.sqrt(scores * (1.0 - scores))
    top = spread.max(axis=-1, keepdims=True)
    share = np.divide(spread, top, out=np.zeros_like(spread), where=top > 0)
    return float(floor) + (1.0 - float(floor)) * share


def draw_order(weights: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    r"""The successive-sampling order: items sorted by :math:`E_i / w_i`, last axis."""
    keys = rng.exponential(size=weights.shape) / weights
    return np.argsort(keys, axis=-1, kind="stable")


def ipw_increments(
    scores: np.ndarray, weights: np.ndarray, order: np.ndarray, truth: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The increments :math:`\phi_t` and their ranges :math:`[\ell_t, u_t]`, t = 1..n.

    Parameters
    ----------
    scores, weights : ndarray, shape (R, N)
        Every item's score and weight, for R independent populations.
    order : ndarray of int, shape (R, N)
        The whole labelling order (the ranges need the items not yet drawn).
    truth : ndarray, shape (R, n)
        The labels of the first n items of the order.

    Returns
    -------
    phi, low, high : ndarray, shape (R, n)
    """
    size, n = scores.shape[1], truth.shape[1]
    rows = np.arange(scores.shape[0])[:, None]
    s, w = scores[rows, order], weights[rows, order]
    remaining = np.cumsum(w[:, ::-1], axis=1)[:, ::-1][:, :n]  # W_t
    below = np.maximum.accumulate((s / w)[:, ::-1], axis=1)[:, ::-1][:, :n]
    above = np.maximum.accumulate(((1.0 - s) / w)[:, ::-1], axis=1)[:, ::-1][:, :n]
    residual = np.asarray(truth, dtype=float) - s[:, :n]
    base = scores.mean(axis=1, keepdims=True) + (np.cumsum(residual, axis=1) - residual) / size
    phi = base + remaining * residual / w[:, :n] / size
    return phi, base - remaining * below / size, base + remaining * above / size


def bet_caps(z: np.ndarray) -> np.ndarray:
    r"""The predictable truncations :math:`c_t` of the module docstring, the shape of ``z``."""
    low, high = VARIANCE_RANGE
    share = np.clip((high - predictable_variance(z)) / (high - low), 0.0, 1.0)
    return CAP_RANGE[0] + (CAP_RANGE[1] - CAP_RANGE[0]) * share


def active_interval(
    phi: np.ndarray,
    low_high: tuple[np.ndarray, np.ndarray],
    size: int,
    *,
    alpha: float,
    at: Any = None,
    cap: Any = None,
) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    r"""Yield ``(t, low, high)``: the anytime-valid interval of S after t labels, R sequences.

    Parameters
    ----------
    phi : ndarray, shape (R, n)
        The increments :math:`\phi_t` (:func:`ipw_increments`).
    low_high : (ndarray, ndarray), shape (R, n) each
        Their predictable ranges :math:`[\ell_t, u_t]`.
    size : int
        N, the number of items (the candidates are k / N when N is small enough).
    alpha : float
        1 - the confidence level; each side spends alpha / 2.
    at : iterable of int, optional
        The times to report; default every label.
    cap : float, optional
        A fixed truncation c in (0, 1) of the bets instead of :func:`bet_caps` (for the
        benchmark's ablation).

    The ends are not yet intersected with what the labels settle (the caller knows them).
    """
    lo, hi = (np.asarray(v, dtype=float) for v in low_high)
    sequences, n = phi.shape
    exact = size <= EXACT_GRID_LIMIT
    shares = np.arange(size + 1) / size if exact else np.linspace(0.0, 1.0, GRID_SIZE)
    grid = np.broadcast_to(shares, (sequences, shares.size))
    z = np.clip((phi - lo) / (hi - lo), 0.0, 1.0)  # rounding only: phi lies in [lo, hi]
    side = alpha / 2.0
    bets = plug_in_bets(z, side)
    caps = bet_caps(z) if cap is None else np.full(z.shape, float(cap))
    checkpoints = set(range(1, n + 1) if at is None else (int(t) for t in at))
    up, down = np.ones(grid.shape), np.ones(grid.shape)
    rejected_low = np.zeros(grid.shape, dtype=bool)
    rejected_high = np.zeros(grid.shape, dtype=bool)
    for t in range(n):
        span = hi[:, t : t + 1] - lo[:, t : t + 1]
        m = np.clip((grid - lo[:, t : t + 1]) / span, 0.0, 1.0)
        gain_up, gain_down = wealth_factors(
            z[:, t : t + 1], bets[:, t : t + 1], m, cap=caps[:, t : t + 1]
        )
        up = np.minimum(up * gain_up, WEALTH_CAP)
        down = np.minimum(down * gain_down, WEALTH_CAP)
        rejected_low |= up >= 1.0 / side
        rejected_high |= down >= 1.0 / side
        if t + 1 in checkpoints:
            possible = np.ones(grid.shape, dtype=bool)
            yield t + 1, *interval_ends(grid, rejected_low, rejected_high, possible, exact)
        if checkpoints and t + 1 >= max(checkpoints):
            return


def prefix_interval(
    scores: np.ndarray, weights: np.ndarray, order: np.ndarray, labels: np.ndarray, alpha: float
) -> tuple[int, float, float, float]:
    """The interval from the labelled prefix of one session's order.

    ``labels`` holds every item's label (-1: none). Returns the prefix length t, the estimate
    (the mean increment, unbiased for S at a fixed t) and the interval's ends before the
    intersection with what the labels settle; with t = 0: the mean score and (0, 1).
    """
    labelled = labels[order] >= 0
    prefix = int(np.argmin(labelled)) if not labelled.all() else labelled.size
    if prefix == 0:
        return 0, float(scores.mean()), 0.0, 1.0
    truth = labels[order[:prefix]].astype(float)[None, :]
    phi, low, high = ipw_increments(scores[None, :], weights[None, :], order[None, :], truth)
    _, cs_low, cs_high = next(
        active_interval(phi, (low, high), scores.size, alpha=alpha, at=[prefix])
    )
    return prefix, float(phi.mean()), float(cs_low[0]), float(cs_high[0])


class ActiveDraws:
    """The seeded successive-sampling order of active selection (module docstring).

    Parameters
    ----------
    probs : ndarray, shape (N,)
        The weights (all positive).
    rng : numpy.random.Generator
        Draws the order once, at construction.
    """

    def __init__(self, probs: np.ndarray, rng: np.random.Generator) -> None:
        self.probs = probs
        self.order = draw_order(probs, rng)

    def next_items(self, labelled: np.ndarray, count: int) -> list[int]:
        """The first ``count`` unlabelled items of the order (fewer when fewer remain).

        ``labelled`` is a boolean mask over the items.
        """
        pending = self.order[~labelled[self.order]]
        return [int(item) for item in pending[:count]]
