r"""Active selection: label next where the judge is least certain, and keep the interval valid.

When the judge gives every one of the N items a score :math:`s_i \in [0, 1]` (its probability
that the item is correct), labels are worth most where :math:`s_i(1 - s_i)` is large. The design
here follows active statistical inference (Zrnic & Candes, "Active Statistical Inference", ICML
2024, arXiv 2403.03208) made sequential with the betting confidence sequences of
:mod:`judgestats.sequential.confidence_sequence` (Waudby-Smith & Ramdas, arXiv 2010.09686).

**Selection.** Fix a floor :math:`\pi_{\min} \in (0, 1]` and

.. math:: a_i = \frac{\sqrt{s_i (1 - s_i)}}{\max_j \sqrt{s_j (1 - s_j)}}, \qquad
          \pi_i = \pi_{\min} + (1 - \pi_{\min})\, a_i \in [\pi_{\min}, 1]

(:math:`a_i = 0` when every score is 0 or 1): the Neyman allocation :math:`\pi \propto
\sqrt{s(1 - s)}` mixed with the uniform one. At steps :math:`t = 1, 2, \ldots` an item
:math:`I_t` is drawn uniformly from all N (with replacement) and selected,
:math:`\xi_t = 1`, with probability :math:`\pi_t(I_t)`; a selected item is labelled (once: a
label already given is reused and costs nothing).

**The increment.** With :math:`\bar s = \frac1N \sum_i s_i` (known), let

.. math:: \phi_t = \bar s + \frac{\xi_t}{\pi_t(I_t)} \bigl(Y_{I_t} - s_{I_t}\bigr).

Given the past :math:`\mathcal F_{t-1}`, if the probabilities :math:`\pi_t(\cdot)` are
:math:`\mathcal F_{t-1}`-measurable (predictable: chosen before :math:`I_t` and
:math:`\xi_t`),

.. math:: E[\phi_t \mid \mathcal F_{t-1}] = \bar s + \frac1N \sum_i \pi_t(i)
          \frac{Y_i - s_i}{\pi_t(i)} = \bar s + \frac1N \sum_i (Y_i - s_i) = S,

the share :math:`S = \frac1N \sum_i Y_i` of correct items, whatever the past. So
:math:`\phi_t - S` is a martingale difference sequence, and each betting factor
:math:`1 + \lambda_t (z_t - m)` at the true mean has conditional mean 1: the capital processes
stay non-negative martingales and Ville's inequality applies unchanged. Probabilities that
depended on :math:`Y_{I_t}` itself, or were chosen after seeing it, would break the identity;
this module uses fixed :math:`\pi_i` (a special case of predictable ones), so the whole
sequence of draws is fixed by the seed and the scores before any label.

**Bounded range.** :math:`Y - s \in [-s, 1 - s]`, so with :math:`\pi_i \ge \pi_{\min}`,

.. math:: \phi_t \in [\ell, u], \quad \ell = \bar s - \max_i \frac{s_i}{\pi_i}, \quad
          u = \bar s + \max_i \frac{1 - s_i}{\pi_i}, \qquad u - \ell \le 2/\pi_{\min},

both known from the scores alone (before any label), and :math:`\ell \le 0`, :math:`u \ge 1`.
Rescaled, :math:`z_t = (\phi_t - \ell)/(u - \ell) \in [0, 1]` has conditional mean
:math:`(S - \ell)/(u - \ell)`, and the betting confidence sequence *with replacement* for it,
mapped back, is an anytime-valid interval for S. The candidates are the shares k / N
(N <= :data:`~judgestats.sequential.confidence_sequence.EXACT_GRID_LIMIT`) or a fine grid,
and the interval is intersected with what the labels settle for sure,
:math:`S \in [\sum_L Y / N, (\sum_L Y + N - n)/N]`.

**Stopping.** The interval is read after the draws before the first selected draw of an
unlabelled item: a stopping time of the draws, so the sequence's guarantee holds there. The
next batch is the unlabelled items of the next selected draws.

**Cost.** :math:`O(TG)` for T draws and G candidates; the expected labels per draw are
:math:`\bar\pi = \frac1N \sum_i \pi_i`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from judgestats.sequential.confidence_sequence import EXACT_GRID_LIMIT, GRID_SIZE, bound_steps

__all__ = [
    "DRAW_BLOCK",
    "MIN_PROBABILITY",
    "ActiveDraws",
    "active_interval",
    "check_scores",
    "ipw_range",
    "ipw_values",
    "selection_probabilities",
]

#: Default floor pi_min of the selection probabilities (a high floor keeps the IPW range, so
#: the bets the range allows, moderate; benchmarks/active_labelling.py measures it).
MIN_PROBABILITY = 0.6
#: Draws generated at a time (the sequence is the same whatever the number of blocks).
DRAW_BLOCK = 4096


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
    r"""The selection probabilities :math:`\pi_i` of the module docstring, in [floor, 1]."""
    if isinstance(floor, bool) or not isinstance(floor, (int, float, np.floating)):
        raise TypeError(f"`min_probability` must be a number, got {type(floor).__name__}.")
    if not 0.0 < float(floor) <= 1.0:
        raise ValueError(f"`min_probability` ({floor!r}) must lie in (0, 1].")
    spread = np.sqrt(scores * (1.0 - scores))
    top = spread.max(axis=-1, keepdims=True)
    share = np.divide(spread, top, out=np.zeros_like(spread), where=top > 0)
    return float(floor) + (1.0 - float(floor)) * share


def ipw_range(scores: np.ndarray, probs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""The known range :math:`[\ell, u]` of the increments (last axis: the items)."""
    mean = scores.mean(axis=-1)
    return mean - (scores / probs).max(axis=-1), mean + ((1.0 - scores) / probs).max(axis=-1)


def ipw_values(mean_score: Any, scores: Any, probs: Any, selected: Any, truth: Any) -> np.ndarray:
    r"""The increments :math:`\phi_t` from each draw's score, probability, selection and label.

    ``truth`` is only read where ``selected`` is true (elsewhere it may be anything finite).
    """
    weight = np.where(selected, 1.0 / np.asarray(probs, dtype=float), 0.0)
    return np.asarray(mean_score, dtype=float)[..., None] + weight * (
        np.asarray(truth, dtype=float) - scores
    )


def active_interval(
    phi: np.ndarray,
    low_high: tuple[np.ndarray, np.ndarray],
    size: int,
    *,
    alpha: float,
    at: Any = None,
) -> Any:
    r"""Yield ``(t, low, high)``: the anytime-valid interval of S after t draws, R sequences.

    Parameters
    ----------
    phi : ndarray, shape (R, T)
        The increments :math:`\phi_t`.
    low_high : (ndarray, ndarray), shape (R,) each
        The known range :math:`[\ell, u]` (:func:`ipw_range`).
    size : int
        N, the number of items (the candidates are k / N when N is small enough).
    alpha : float
        1 - the confidence level.
    at : iterable of int, optional
        The times to report; default every draw.

    The ends are not yet intersected with what the labels settle (the caller knows them).
    """
    lo, hi = (np.asarray(v, dtype=float)[:, None] for v in low_high)
    exact = size <= EXACT_GRID_LIMIT
    shares = np.arange(size + 1) / size if exact else np.linspace(0.0, 1.0, GRID_SIZE)
    grid = (shares[None, :] - lo) / (hi - lo)
    z = np.clip((phi - lo) / (hi - lo), 0.0, 1.0)  # rounding only: phi lies in [lo, hi]
    for t, low, high in bound_steps(z, grid, alpha=alpha, exact_grid=exact, at=at):
        yield t, lo[:, 0] + low * (hi - lo)[:, 0], lo[:, 0] + high * (hi - lo)[:, 0]


class ActiveDraws:
    """The seeded sequence of draws (item, uniform) of active selection, grown on demand.

    Parameters
    ----------
    probs : ndarray, shape (N,)
        The selection probabilities (all positive).
    rng : numpy.random.Generator
        Owned by this object: the draws are the same for the same seed, however far they go.
    """

    def __init__(self, probs: np.ndarray, rng: np.random.Generator) -> None:
        self.probs = probs
        self._rng = rng
        self.items = np.empty(0, dtype=np.int64)
        self.selected = np.empty(0, dtype=bool)

    def _grow(self) -> None:
        items = self._rng.integers(0, self.probs.size, size=DRAW_BLOCK)
        chosen = self._rng.random(DRAW_BLOCK) < self.probs[items]
        self.items = np.concatenate([self.items, items])
        self.selected = np.concatenate([self.selected, chosen])

    def stop(self, labelled: np.ndarray) -> int:
        """The number of draws before the first selected draw of an unlabelled item.

        ``labelled`` is a boolean mask over the items; when every item is labelled there is no
        such draw and the answer is -1.
        """
        if labelled.all():
            return -1
        start = 0
        while True:
            if start >= self.items.size:
                self._grow()
            need = self.selected[start:] & ~labelled[self.items[start:]]
            if need.any():
                return start + int(np.argmax(need))
            start = self.items.size

    def next_items(self, labelled: np.ndarray, count: int) -> list[int]:
        """The first ``count`` distinct unlabelled items of the selected draws, in order drawn.

        Fewer when fewer remain unlabelled.
        """
        start = self.stop(labelled)
        chosen: dict[int, None] = {}
        want = min(count, int((~labelled).sum()))
        while start >= 0 and len(chosen) < want:
            if start >= self.items.size:
                self._grow()
            block = slice(start, self.items.size)
            for item in self.items[block][self.selected[block]]:
                if not labelled[item]:
                    chosen.setdefault(int(item))
                    if len(chosen) == want:
                        break
            start = self.items.size
        return list(chosen)
