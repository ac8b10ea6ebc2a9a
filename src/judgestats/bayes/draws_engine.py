"""The draws-based engine of :class:`judgestats.bayes.binary_posterior.Posterior` (MCMC draws).

The same protocol as the exact engine (:class:`judgestats.bayes.exact.ExactPosterior`):
``quantile``, ``mean``, ``sd``, ``interval``, ``cdf``, ``pdf``, ``sample``, ``expect``,
``prob_youden_below``, each computed from the draws.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["VARIABLES", "DrawsEngine"]

#: Variables of the posterior, in the order of summaries.
VARIABLES = ("theta", "q0", "q1", "youden", "p")


class DrawsEngine:
    """Posterior summaries from draws (MCMC): the same protocol as the exact engine.

    Parameters
    ----------
    draws : dict of str to numpy.ndarray
        Draws of theta, q0, q1, youden and p, any shape (flattened).
    """

    def __init__(self, draws: dict[str, np.ndarray]) -> None:
        self._draws = {var: np.asarray(draws[var], float).reshape(-1) for var in VARIABLES}

    def quantile(self, q: Any, var: str = "theta") -> np.ndarray | float:
        """Empirical quantile of the draws."""
        out = np.quantile(self._draws[var], q)
        return float(out) if np.ndim(out) == 0 else out

    def mean(self, var: str = "theta") -> float:
        """Mean of the draws."""
        return float(np.mean(self._draws[var]))

    def sd(self, var: str = "theta") -> float:
        """Standard deviation of the draws."""
        return float(np.std(self._draws[var], ddof=1))

    def interval(
        self, prob: float = 0.95, kind: str = "eti", var: str = "theta"
    ) -> tuple[float, float]:
        """Equal-tailed interval, or the shortest interval holding ``prob`` of the draws."""
        values = np.sort(self._draws[var])
        if kind == "eti":
            low, high = np.quantile(values, [(1 - prob) / 2, (1 + prob) / 2])
            return float(low), float(high)
        size = int(np.ceil(prob * values.size))
        widths = values[size - 1 :] - values[: values.size - size + 1]
        start = int(np.argmin(widths))
        return float(values[start]), float(values[start + size - 1])

    def cdf(self, x: Any, var: str = "theta") -> np.ndarray | float:
        """Empirical CDF of the draws."""
        values = np.sort(self._draws[var])
        out = np.searchsorted(values, np.asarray(x, float), side="right") / values.size
        return float(out) if np.ndim(out) == 0 else out

    def pdf(self, x: Any, var: str = "theta") -> np.ndarray | float:
        """Gaussian kernel density estimate of the draws (Scott's bandwidth)."""
        from scipy.stats import gaussian_kde

        out = gaussian_kde(self._draws[var])(np.atleast_1d(np.asarray(x, float)))
        return float(out[0]) if np.ndim(x) == 0 else out.reshape(np.shape(x))

    def sample(self, size: int, random_seed: Any = None) -> dict[str, np.ndarray]:
        """The draws themselves (``size`` must equal their number)."""
        return {var: values.copy() for var, values in self._draws.items()}

    def expect(self, funcs: list, var: str) -> list[float]:
        """``[E[func(var)] for func in funcs]``: means over the draws (clipped to [0, 1])."""
        r = np.clip(self._draws[var], 0.0, 1.0)
        return [float(np.mean(func(r))) for func in funcs]

    def prob_youden_below(self, threshold: float) -> float:
        """Share of the draws of J below ``threshold``."""
        return float(np.mean(self._draws["youden"] < threshold))
