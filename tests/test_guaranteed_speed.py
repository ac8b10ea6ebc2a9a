"""The faster guaranteed interval (issue 27) gives the numbers of the engine it replaced, or wider.

The engine before the speed-up is kept verbatim in ``tests/reference/guaranteed_before.py``.
Every interval here contains its interval (to the 1e-6 to which an end is located) and lies
within 5e-3 of it: the supremum over the nuisance set is now refined around the two largest
coarse tails over four rounds, where the old engine refined around the largest over three and
could miss the maximiser (a review found a lower end 1.3e-4 inside the construction's,
``tests/test_review_exactness.py``), so the supremum can only be larger and the interval only
wider. The designs are chosen to break a shortcut: empty and one-item arms, judges at, below
and far above chance, accuracies at 0 and 1 (k = 0, k = n), n = 1, n = 10^6 and n up to 10^12
(the Berry-Esseen tail bound), and moderate random designs. The pruning of nuisance points (a
tail at a larger t bounds the tail at t) is checked on its own: a supremum computed after other
t values must equal the one computed from scratch.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from _script_modules import load_file

from judgestats import _guaranteed_tails as tails
from judgestats import guaranteed as g

REF = Path(__file__).resolve().parent / "reference" / "guaranteed_before.py"


def _before():
    """The engine before issue 27, imported by path (tests/ is not a package)."""
    return load_file(REF, "_judgestats_reference_guaranteed_before")


def tiny_arms(sizes: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every arm outcome of tiny arms (one-class data included), with k at 0, 1, n/3, n-1, n."""
    cases = []
    for m0, m1 in [(0, 3), (2, 0), (1, 1), (1, 5), (3, 2), (5, 5)]:
        for n in sizes:
            for k0 in sorted({0, m0 // 2, m0}):
                for k1 in sorted({0, m1 // 2, m1}):
                    for k in sorted({0, 1, n // 3, n - 1, n} & set(range(n + 1))):
                        cases.append((k, n, k0, m0, k1, m1))
    return cases


def random_designs(count: int, sizes: list[int], seed: int) -> list[tuple[int, ...]]:
    """Arms of 6-60 items, judges from below chance to near perfect, theta 0, 1 or uniform."""
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(count):
        m0, m1 = (int(x) for x in rng.integers(6, 60, 2))
        n = int(rng.choice(sizes))
        q0, q1 = rng.uniform(0.3, 1.0, 2)
        theta = rng.choice([0.0, 1.0, rng.uniform()])
        pi = theta * q1 + (1 - theta) * (1 - q0)
        k, k0, k1 = (int(rng.binomial(size, p)) for size, p in ((n, pi), (m0, q0), (m1, q1)))
        cases.append((k, n, k0, m0, k1, m1))
    return cases


#: About 2 s for the old engine: at n = 10^6 each of its intervals tabulates 10^6 coefficients.
#: (421, 1000, 15, 20, 19, 20): a tail summed in another order (equal to 1e-16) moves the upper
#: end by 1e-5 (the maximiser of the nuisance grid changes), so the tails must be summed as before.
QUICK = (
    tiny_arms((1, 9))[::3]
    + tiny_arms((10**6,))[::7]
    + random_designs(6, [30, 1000, 20000], 27)
    + [(421, 1000, 15, 20, 19, 20)]
    + [(4 * 10**11, 10**12, 16, 20, 18, 20), (5 * 10**6, 10**7, 3, 5, 4, 5)]  # Berry-Esseen
)


def assert_contains_before(low: float, high: float, old: object, counts: object) -> None:
    """[low, high] holds the old engine's interval (to the root finder's 1e-6) and is within
    5e-3 of it."""
    tol = g._THETA_TOL  # each end is located to this; a larger supremum moves the search
    assert low <= old.low + tol and high >= old.high - tol, counts
    assert old.low - low <= 5e-3 and high - old.high <= 5e-3, counts


def assert_same_as_before(cases: list[tuple[int, ...]], level: float) -> None:
    before = _before()
    for counts in cases:
        old = before.guaranteed_interval(*counts, level)
        new = g.guaranteed_interval(*counts, level)
        assert_contains_before(new.low, new.high, old, counts)


def test_same_intervals_as_before_quick():
    assert_same_as_before(QUICK, 0.95)


@pytest.mark.slow
@pytest.mark.parametrize("level", [0.95, 0.8])
def test_same_intervals_as_before_full_grid(level):
    """450 designs per level (about a minute per level for the old engine)."""
    cases = tiny_arms((1, 9, 10**6)) + random_designs(40, [30, 200, 1000, 20000, 10**6], seed=27)
    cases += [(4 * 10**11, 10**12, 140, 200, 180, 200), (4 * 10**6, 10**7, 40, 50, 45, 50)]
    assert_same_as_before(cases, level)


def test_vectorised_path_equals_one_at_a_time():
    cases = np.array(QUICK[:40] + QUICK[:5])  # repeated datasets are computed once
    before = _before()
    low, high = g.guaranteed_intervals(*cases.T, 0.9)
    assert low.shape == high.shape == (len(cases),)
    for row, lo, hi in zip(cases, low, high, strict=True):
        old = before.guaranteed_interval(*(int(c) for c in row), 0.9)
        assert_contains_before(lo, hi, old, row)


def test_vectorised_path_broadcasts():
    k = np.array([[30, 40], [50, 60]])
    low, high = g.guaranteed_intervals(k, 100, 18, 20, 17, 20, 0.95)
    assert low.shape == high.shape == (2, 2)
    for idx in np.ndindex(2, 2):
        one = g.guaranteed_interval(int(k[idx]), 100, 18, 20, 17, 20, 0.95)
        assert (low[idx], high[idx]) == (one.low, one.high)
    assert np.all(np.diff(low[0]) >= 0)  # more items marked correct never lower the lower end


@pytest.mark.parametrize(
    ("counts", "level", "match"),
    [
        ((5, 10, 3, 2, 1, 2), 0.95, "k0"),  # a part above its total
        ((-1, 10, 1, 2, 1, 2), 0.95, "`k`"),
        ((5, 0, 1, 2, 1, 2), 0.95, "`n`"),
        ((5, 10, 1, 2, 1, 2), 1.0, "level"),
    ],
)
def test_vectorised_path_errors(counts, level, match):
    with pytest.raises(ValueError, match=match):
        g.guaranteed_intervals(*counts, level)


@pytest.mark.parametrize("counts", [(450, 1000, 16, 20, 18, 20), (5000, 10000, 40, 50, 42, 50)])
def test_supremum_after_other_t_equals_a_fresh_one(counts):
    """A test that evaluated other t first gives the same supremum as a fresh test.

    (Coarse points were once left out with bounds from larger t, and could then be taken as
    starts of the refinement; ``tests/test_guaranteed.py`` checks the search of an end.)
    """
    history = tails.LowerTest(*counts, 0.95)
    for t in (1.0, 0.9, 0.6, 0.45, 0.44, 0.3, 0.2999, 0.1, 0.0, 0.45):
        expected = tails.LowerTest(*counts, 0.95).sup(t, better_than_chance=True)
        assert history.sup(t, better_than_chance=True) == expected


@pytest.mark.parametrize("counts", [(450, 1000, 16, 20, 18, 20), (5000, 10000, 40, 50, 42, 50)])
def test_pruned_supremum_equals_full_supremum(counts):
    """After larger t values (whose tails bound the tails at t), the supremum is unchanged."""
    summed = []
    distinct_tails = tails.LowerTest._distinct_tails

    def counting(self, pi, *args):
        summed.append(pi.size)
        return distinct_tails(self, pi, *args)

    history = tails.LowerTest(*counts, 0.95)
    pruned = full = 0
    for t in (1.0, 0.9, 0.6, 0.45, 0.44, 0.3, 0.2999, 0.1, 0.0):
        fresh = tails.LowerTest(*counts, 0.95)
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(tails.LowerTest, "_distinct_tails", counting)
            summed.clear()
            expected = fresh.sup(t, better_than_chance=True)
            full += sum(summed)
            summed.clear()
            assert history.sup(t, better_than_chance=True) == expected
            pruned += sum(summed)
    assert pruned < full  # the bounds did leave points out


def test_shared_calibration_does_not_change_an_interval():
    """An interval is the same whether its calibration's shared part was built for it or not."""
    tails._calibration.cache_clear()
    cold = g.guaranteed_interval(520, 1000, 40, 50, 42, 50, 0.95)
    g.guaranteed_interval(480, 1000, 40, 50, 42, 50, 0.95)  # same calibration, other k
    assert g.guaranteed_interval(520, 1000, 40, 50, 42, 50, 0.95) == cold
