"""Large calibration arms in the guaranteed interval: blocks of outcomes, precise pmfs, cost.

References are independent of the code under test: the binomial pmf in 60-digit decimal
arithmetic (Stirling's series), block masses from scipy's binomial cdf, exact coverage by summing
the joint pmf over every outcome (scipy), and the large-arm limit (arms so large that the judge
is known), where the interval is the Clopper-Pearson interval of the judged-correct rate mapped
through the judge.
"""

from __future__ import annotations

from decimal import Decimal, getcontext

import numpy as np
import pytest
from scipy.stats import beta, binom

from judgestats import _binomial
from judgestats import _guaranteed_blocks as blocks_module
from judgestats import _guaranteed_tails as tails
from judgestats import guaranteed as g
from judgestats._guaranteed_blocks import Blocks

getcontext().prec = 60
_PI = Decimal("3.14159265358979323846264338327950288419716939937510582097494")


def decimal_log_pmf(k: int, m: int, q: float) -> float:
    """log Bin(k; m, q) in 60-digit arithmetic (Stirling's series, k and m - k >= 10^4)."""

    def log_factorial(z: int) -> Decimal:
        x = Decimal(z)
        return x * x.ln() - x + (2 * _PI * x).ln() / 2 + 1 / (12 * x) - 1 / (360 * x**3)

    p = Decimal(q)  # the float's exact binary value
    return float(
        log_factorial(m)
        - log_factorial(k)
        - log_factorial(m - k)
        + k * p.ln()
        + (m - k) * (1 - p).ln()
    )


@pytest.mark.parametrize("m", [10**5, 10**7, 10**9, 10**12])
@pytest.mark.parametrize("q", [0.7, 0.001, 0.999999])
def test_log_pmf_is_precise_at_huge_sizes(m, q):
    """Log-gammas lose eps m log m (2e-3 at 10^12); the saddle-point form does not."""
    sd = (m * q * (1 - q)) ** 0.5
    for z in (0.0, 0.3, 3.0, -5.0, 12.0):
        k = int(m * q + z * sd)
        if min(k, m - k) < 10**4:
            continue
        got = float(_binomial.log_pmf(np.float64(k), m, q))
        assert abs(got - decimal_log_pmf(k, m, q)) < 1e-10


def test_log_pmf_edges_at_huge_sizes():
    m = 10**12
    assert _binomial.log_pmf(np.float64(0), m, 0.0) == 0.0
    assert _binomial.log_pmf(np.float64(m), m, 1.0) == 0.0
    assert _binomial.log_pmf(np.float64(5), m, 0.0) == -np.inf
    assert _binomial.log_pmf(np.float64(m + 1), m, 0.5) == -np.inf
    assert _binomial.log_pmf(np.float64(0), m, 1e-13) == pytest.approx(
        m * np.log1p(-1e-13), rel=1e-12
    )


def test_arm_range_matches_the_cumulative_sums():
    """The bisection on the incomplete-beta tails gives the counts of the summed definition."""
    rng = np.random.default_rng(1)
    for _ in range(300):
        m = int(rng.integers(0, 2000))
        low, high = np.sort(rng.uniform(0, 1, 2))
        low, high = (0.0 if rng.uniform() < 0.2 else low), (1.0 if rng.uniform() < 0.2 else high)
        cdf_low = binom.cdf(np.arange(m + 1), m, low)
        sf_high = binom.sf(np.arange(m + 1) - 1, m, high)
        first = int(np.argmax(cdf_low > 1e-10))
        last = int(np.flatnonzero(sf_high > 1e-10)[-1])
        assert _binomial.arm_range(m, low, high, 1e-10) == (min(first, last), max(first, last))


def test_arm_range_costs_nothing_at_huge_sizes():
    first, last = _binomial.arm_range(10**15, 0.5, 0.5, 1e-10)
    sd = (10**15 * 0.25) ** 0.5
    assert 6.0 < (10**15 / 2 - first) / sd < 6.7  # Phi^-1(1e-10) = -6.36
    assert first + last == pytest.approx(10**15, abs=2)


@pytest.mark.parametrize("m", [300, 5_000, 10**6])
@pytest.mark.parametrize("q", [0.5, 0.9, 0.003])
def test_block_mass_bound_is_an_upper_bound_and_tight(m, q):
    sd = (m * q * (1 - q)) ** 0.5
    support = (max(0, int(m * q - 8 * sd)), min(m, int(m * q + 8 * sd)))
    blocks = Blocks(m, support)
    bound = blocks.masses(np.array([q]))[0]
    exact = np.array(
        [
            binom.pmf(np.arange(a, b + 1), m, q).sum()
            for a, b in zip(blocks.lower, blocks.upper, strict=True)
        ]
    )
    heavy = exact > 1e-300
    assert np.all(bound[heavy] >= exact[heavy] * (1 - 1e-9))
    assert np.all(bound[heavy] <= exact[heavy] * 1.01)  # blocks are about sd / 8 wide


def test_block_mass_bound_is_the_pmf_for_single_counts_and_exact_at_the_ends():
    k = np.arange(0, 41, dtype=float)
    got = _binomial.block_mass_bound(k, k, 40, np.array(0.3))
    np.testing.assert_allclose(got, binom.pmf(k, 40, 0.3), rtol=1e-13)
    three = _binomial.block_mass_bound(np.array(10.0), np.array(12.0), 40, np.array(0.3))
    assert float(three) == pytest.approx(binom.pmf([10, 11, 12], 40, 0.3).sum(), rel=1e-11)
    assert float(_binomial.block_mass_bound(np.array(0.0), np.array(3.0), 40, np.array(0.0))) == 1.0
    assert float(_binomial.block_mass_bound(np.array(4.0), np.array(9.0), 40, np.array(0.0))) == 0.0
    assert (
        float(_binomial.block_mass_bound(np.array(38.0), np.array(40.0), 40, np.array(1.0))) == 1.0
    )


@pytest.mark.parametrize("m", [100, 257, 4_000, 10**6, 10**12])
def test_blocks_are_a_fixed_partition_of_bounded_size(m):
    """Contiguous, the same block for a count whatever the support, about sd / 8 wide, <= 200."""
    for q in (0.5, 0.95, 0.001):
        sd = (m * q * (1 - q)) ** 0.5
        support = (max(0, int(m * q - 10 * sd)), min(m, int(m * q + 10 * sd)))
        blocks = Blocks(m, support)
        assert blocks.lower[0] <= support[0] and blocks.upper[-1] >= support[1]
        assert np.all(blocks.lower[1:] == blocks.upper[:-1] + 1)
        assert blocks.lower.size <= 200
        if m <= 256:
            assert np.all(blocks.lower == blocks.upper)  # every count its own block
        else:
            middle = (blocks.lower + blocks.upper) / 2
            local_sd = np.sqrt(middle * (m - middle) / m)  # a count's spread where the block is
            assert np.all(blocks.upper - blocks.lower + 1 <= 1 + local_sd / 4)
        middle = (support[0] + support[1]) // 2
        wider = Blocks(m, (max(0, support[0] - 50), min(m, support[1] + 50)))
        assert wider.span(middle) == blocks.span(middle)


def all_intervals(n, m0, m1, level):
    shape = (n + 1, m0 + 1, m1 + 1)
    low, high = np.empty(shape), np.empty(shape)
    for index in np.ndindex(shape):
        k, k0, k1 = (int(i) for i in index)
        low[index], high[index] = g.guaranteed_interval(k, n, k0, m0, k1, m1, level)
    return low, high


def test_exact_coverage_with_blocks_of_several_counts(monkeypatch):
    """Blocks forced onto tiny arms (three counts or more): coverage is still at least the level."""
    monkeypatch.setattr(blocks_module, "SINGLE_COUNTS_UP_TO", 0)
    monkeypatch.setattr(blocks_module, "_PER_UNIT", 0.6)
    tails._calibration.cache_clear()
    assert (Blocks(9, (0, 9)).upper - Blocks(9, (0, 9)).lower).max() >= 2
    n, m0, m1, level = 8, 9, 9, 0.9
    low, high = all_intervals(n, m0, m1, level)
    tails._calibration.cache_clear()
    grid = np.linspace(0.0, 1.0, 21)
    q0, q1 = (a.ravel() for a in np.meshgrid(grid, grid, indexing="ij"))
    worst = 1.0
    for theta in (0.0, 0.02, 0.2, 0.4, 0.5, 0.6, 0.8, 0.98, 1.0):
        covered = ((low <= theta) & (theta <= high)).astype(float)
        pi = theta * q1 + (1 - theta) * (1 - q0)
        pk = binom.pmf(np.arange(n + 1)[None, :], n, pi[:, None])
        p0 = binom.pmf(np.arange(m0 + 1)[None, :], m0, q0[:, None])
        p1 = binom.pmf(np.arange(m1 + 1)[None, :], m1, q1[:, None])
        worst = min(worst, float(np.einsum("jk,ja,jb,kab->j", pk, p0, p1, covered).min()))
    assert worst >= level - 1e-12


def test_huge_arms_give_the_known_judge_limit():
    """Arms of 10^12: the judge is known, and the interval is the Clopper-Pearson interval of k/n.

    With q0, q1 known the test of theta is the exact binomial test of pi = theta q1 + (1 - theta)
    (1 - q0), each side at alpha/2 - gamma/2, so the interval is Clopper-Pearson's at level
    1 - alpha + gamma (gamma = 0.001) mapped through theta = (pi - 1 + q0) / (q0 + q1 - 1).
    """
    k, n, q0, q1, m = 400, 1000, 0.7, 0.9, 10**12
    low, high = g.guaranteed_ci(k, n, int(q0 * m), m, int(q1 * m), m)
    tail = (1 - 0.95 + 0.001) / 2
    cp = beta.ppf(tail, k, n - k + 1), beta.ppf(1 - tail, k + 1, n - k)
    mapped = [(p - 1 + q0) / (q0 + q1 - 1) for p in cp]
    assert low <= mapped[0] + 1e-6 and high >= mapped[1] - 1e-6
    assert low == pytest.approx(mapped[0], abs=1e-3) and high == pytest.approx(mapped[1], abs=1e-3)


def test_large_arms_cost_a_bounded_number_of_outcomes():
    """The calibration sums run over at most about 160 x 160 blocks, at any arm size."""
    tails._calibration.cache_clear()
    for m in (10**4, 10**8, 10**12):
        shared = tails._calibration(1000, int(0.5 * m), m, int(0.9 * m), m, 0.95)
        assert all(b.lower.size <= 200 for b in shared.blocks)
    tails._calibration.cache_clear()
