"""Hand-written references shared by several test modules (tests/ is not a package).

Each is written from its definition in exact integer arithmetic, independently of the code
under test.
"""

from __future__ import annotations

import math
from fractions import Fraction


def fisher_two_sided_p(judged: int, m: int, test_judged: int, n: int) -> float:
    """Fisher's two-sided p-value of J = ``judged`` of ``m`` against ``test_judged`` of ``n``.

    Given K = J + k of N = m + n items judged correct, J is hypergeometric; the p-value sums,
    as an exact fraction, every outcome at most as likely as the observed one (ties within a
    relative 1e-7, as :func:`judgestats.class_balance_test` counts them; exact ties here).
    """
    total, ones = m + n, judged + test_judged
    weights = {
        j: math.comb(ones, j) * math.comb(total - ones, m - j)
        for j in range(max(0, m - (total - ones)), min(m, ones) + 1)
    }
    observed = weights[judged]
    tail = sum(w for w in weights.values() if w <= observed * (1 + Fraction(1, 10**7)))
    return float(Fraction(tail, math.comb(total, m)))
