"""The designating statistic of the guaranteed interval: an approximate lower bound monotone in k.

Step 1 of the construction in :mod:`judgestats.guaranteed` (its module docstring has the
formulas): for every calibration outcome (k0, k1), the curve h(t) of the score-type bound, and the
bound D(x) = inf{t in [0, 1]: p_hat <= h(t)} of one outcome.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["Curves", "designating_bound"]


class Curves:
    """h(t) = a + J t + z sqrt(A0 + A1 t + A2 t^2) for every calibration outcome (k0, k1)."""

    def __init__(self, k0: np.ndarray, k1: np.ndarray, m0: int, m1: int, n: float, z: float):
        q0 = (k0 + 0.5) / (m0 + 1.0)
        q1 = (k1 + 0.5) / (m1 + 1.0)
        v0, v1 = q0 * (1.0 - q0) / (m0 + 1.0), q1 * (1.0 - q1) / (m1 + 1.0)
        self.a = 1.0 - q0
        self.slope = q0 + q1 - 1.0
        self.a0 = self.a * (1.0 - self.a) / n + v0
        self.a1 = self.slope * (1.0 - 2.0 * self.a) / n - 2.0 * v0
        self.a2 = v0 + v1 - self.slope**2 / n
        self.z = z
        # sqrt(quadratic) on [0, 1] is convex iff the quadratic opens upwards with no real root
        self.convex = (self.a2 > 0.0) & (4.0 * self.a2 * self.a0 - self.a1**2 >= 0.0)

    def value(self, t: Any) -> np.ndarray:
        quad = np.maximum(self.a0 + self.a1 * t + self.a2 * t * t, 0.0)
        return self.a + self.slope * t + self.z * np.sqrt(quad)

    def derivative(self, t: Any) -> np.ndarray:
        quad = np.maximum(self.a0 + self.a1 * t + self.a2 * t * t, 1e-300)
        return self.slope + self.z * (self.a1 + 2.0 * self.a2 * t) / (2.0 * np.sqrt(quad))

    def argmax(self, upper: Any) -> np.ndarray:
        """Maximiser of h on [0, upper] (elementwise), exact for convex and concave h.

        Convex h: the better end. Concave h: the root of the decreasing derivative, clipped to
        [0, upper], by bisection on the concave curves only (elementwise, so each curve's
        result does not depend on the others).
        """
        upper = np.broadcast_to(np.asarray(upper, dtype=float), self.a.shape)
        best = np.where(self.value(upper) >= self.value(0.0), upper, 0.0)
        concave = ~self.convex
        if concave.any():
            best[concave] = self._subset(concave)._concave_argmax(upper[concave])
        return best

    def _subset(self, mask: np.ndarray) -> Curves:
        """The curves selected by a boolean mask, as a flat Curves."""
        part = object.__new__(Curves)
        for name in ("a", "slope", "a0", "a1", "a2", "convex"):
            setattr(part, name, getattr(self, name)[mask])
        part.z = self.z
        return part

    def _concave_argmax(self, upper: np.ndarray) -> np.ndarray:
        """Maximiser on [0, upper] of concave curves: the derivative's root, clipped."""
        low, high = np.zeros_like(upper), upper.copy()
        for _ in range(60):
            mid = 0.5 * (low + high)
            rising = self.derivative(mid) > 0.0
            low, high = np.where(rising, mid, low), np.where(rising, high, mid)
        return np.where(
            self.derivative(np.zeros_like(upper)) <= 0.0,
            0.0,
            np.where(self.derivative(upper) >= 0.0, upper, low),
        )

    def max_on(self, upper: Any) -> np.ndarray:
        """Max of h on [0, upper]."""
        return self.value(self.argmax(upper))


def designating_bound(curves: Curves, p_hat: float) -> float:
    """D(x) = inf{t in [0, 1]: p_hat <= h(t)} for one outcome (curves of length 1); inf if none."""
    if curves.value(0.0)[0] >= p_hat:
        return 0.0
    top = float(curves.argmax(1.0)[0])
    if curves.value(top)[0] < p_hat:
        return math.inf
    low, high = 0.0, top  # h < p_hat at low, >= at high; h rises on [0, top] when it crosses
    for _ in range(80):
        mid = 0.5 * (low + high)
        if curves.value(mid)[0] >= p_hat:
            high = mid
        else:
            low = mid
    return high
