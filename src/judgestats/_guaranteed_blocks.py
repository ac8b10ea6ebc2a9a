r"""The guaranteed interval's blocks of calibration outcomes: a fixed partition of 0..m.

The cost of the guaranteed interval's p-value grows with the number of calibration outcomes
(k0, k1) summed over, about 10 sqrt(m) per arm. Beyond 256 items an arm's outcomes are grouped
into blocks of counts about an eighth of a standard deviation wide, equal steps of the
variance-stabilising scale :math:`g(k) = \sqrt m \arcsin\sqrt{k/m}` (on which a binomial count
has standard deviation about 1/2):

.. math:: \text{block } j = \{k : b_j \le k < b_{j+1}\}, \qquad
          b_j = \lceil m \sin^2(j / (16\sqrt m)) \rceil,

empty blocks dropped. The partition depends on the arm size m alone, a constant of the design,
so the designating statistic evaluated at a block's mid-point for every outcome in it is a fixed
function of the outcome, and the test it orders stays exact (:mod:`judgestats.guaranteed`). An
arm's support then meets at most about 160 blocks at every m and every q, and the calibration
mass of a block is bounded above at a cost independent of its width
(:func:`judgestats._binomial.block_mass_bound`): an upper bound of every tail, hence of the
p-value, so the interval can only widen. Up to 256 items every count is its own block and the
masses are the pmfs, as before blocks were introduced.
"""

from __future__ import annotations

import math

import numpy as np

from judgestats._binomial import block_mass_bound, log_pmf

__all__ = ["Blocks", "SINGLE_COUNTS_UP_TO"]

#: Arms up to this size keep every count in its own block.
SINGLE_COUNTS_UP_TO = 256
#: Blocks per unit of the variance-stabilised scale (a count's standard deviation is about 1/2).
_PER_UNIT = 16.0


class Blocks:
    """The blocks of an arm of ``m`` items that meet its support ``[first, last]``.

    ``lower``, ``upper``: each block's first and last count (floats); ``middle``: its mid-point,
    the representative at which the designating statistic is evaluated.
    """

    def __init__(self, m: int, support: tuple[int, int]):
        self.m = m
        self._scale = _PER_UNIT * math.sqrt(m)
        first, last = support
        starts = {self._boundary(j) for j in range(self._block_of(first), self._block_of(last) + 1)}
        bounds = np.array(sorted(starts) + [self._boundary(self._block_of(last) + 1)], float)
        self.lower, self.upper = bounds[:-1], bounds[1:] - 1.0
        self.middle = (self.lower + self.upper) / 2.0
        self.single = bool(np.all(self.lower == self.upper))

    def _boundary(self, j: int) -> int:
        """b_j, the first count of block j (the module docstring); m + 1 past the last block."""
        if self.m <= SINGLE_COUNTS_UP_TO:
            return min(j, self.m + 1)
        angle = j / self._scale
        return self.m + 1 if angle >= math.pi / 2.0 else math.ceil(self.m * math.sin(angle) ** 2)

    def _block_of(self, count: int) -> int:
        """The largest j with b_j <= count: the nonempty block of ``count`` (0 <= count <= m)."""
        if self.m <= SINGLE_COUNTS_UP_TO:
            return count
        j = math.floor(self._scale * math.asin(math.sqrt(min(count / self.m, 1.0))))
        while j > 0 and self._boundary(j) > count:
            j -= 1
        while self._boundary(j + 1) <= count:
            j += 1
        return j

    def span(self, count: int) -> tuple[int, int]:
        """First and last count of ``count``'s block (inside the support or not)."""
        j = self._block_of(count)
        return self._boundary(j), self._boundary(j + 1) - 1

    def index(self, count: int) -> int | None:
        """The position of ``count``'s block among these blocks, or None where it is not one."""
        low = self.span(count)[0]
        i = int(np.searchsorted(self.lower, low))
        return i if i < self.lower.size and self.lower[i] == low else None

    def middle_of(self, count: int) -> float:
        """The representative (mid-point) of ``count``'s block."""
        low, high = self.span(count)
        return (low + high) / 2.0

    def masses(self, q: np.ndarray) -> np.ndarray:
        """Upper bounds of P(K in block), K ~ Bin(m, q), one row per q (pmfs for single counts)."""
        if self.single:  # the bound is the pmf: computed as one
            return np.exp(log_pmf(self.lower[None, :], self.m, q[:, None]))
        return block_mass_bound(self.lower[None, :], self.upper[None, :], self.m, q[:, None])
