r"""A confidence interval for the true accuracy whose coverage is guaranteed by construction.

The Lang-Reiczigel interval and the posterior intervals are approximate: with small calibration
arms or a weak judge they cover far less than their level (issue "One interval to report").
:func:`guaranteed_ci` has coverage at least its level for every true accuracy theta and every
judge (q0, q1) in [0, 1]^3, at every sample size, for the stratified design and, conditionally on
the realised arm sizes, for the random design.

Construction
------------
The data are :math:`k \sim \mathrm{Bin}(n, \pi)`, :math:`k_0 \sim \mathrm{Bin}(m_0, q_0)`,
:math:`k_1 \sim \mathrm{Bin}(m_1, q_1)`, independent, with
:math:`\pi = \theta q_1 + (1-\theta)(1-q_0)` (Lee et al., arXiv 2511.21140 v1, eq. 1; Lee et al.
(ICML 2026) eq. 9). Write :math:`x = (k, k_0, k_1)` and :math:`\nu = (q_0, q_1)`.

1. **Ordering (designating statistic).** With :math:`\tilde q_j = (k_j + 1/2)/(m_j + 1)`,
   :math:`h(t) = \pi(t; \tilde q) + z\,s(t)`, :math:`s^2(t) = \pi(t;\tilde q)(1-\pi(t;\tilde q))/n
   + t^2 \tilde q_1(1-\tilde q_1)/(m_1+1) + (1-t)^2 \tilde q_0(1-\tilde q_0)/(m_0+1)` and
   :math:`z = \Phi^{-1}(1-\alpha/2)`, the approximate (score-type) lower bound is
   :math:`D(x) = \inf\{t \in [0,1] : \hat p \le h(t)\}` (:math:`+\infty` if the set is empty).
   It does not depend on the tested value, and for fixed :math:`(k_0, k_1)` it is
   non-decreasing in :math:`k` (raising :math:`k` shrinks the set).
2. **Exact test with the nuisance maximised over a confidence set** (Berger and Boos, "P values
   maximised over a confidence set for the nuisance parameter", JASA 1994). :math:`C_\gamma` is
   the product of two Clopper-Pearson intervals for :math:`q_0, q_1`, each of level
   :math:`\sqrt{1-\gamma}`, so :math:`P(\nu \in C_\gamma) \ge 1 - \gamma`. The p-value of
   :math:`H_0: \theta = t` against larger values is
   :math:`P^+(t) = \sup_{\nu \in C_\gamma} P_{t,\nu}\{D(X) \ge D(x)\}`.
3. **Buehler bound.** The lower end is :math:`L = \inf\{t : P^+(t) > \alpha/2 - \gamma/2\}`; the
   upper end is the same construction applied to the mirrored data
   :math:`(n-k, k_1, k_0)` with arms swapped (accuracy :math:`1-\theta`). Ordering outcomes by an
   approximate bound and taking the smallest bound that is exact for that ordering is Buehler's
   construction ("Confidence intervals for the product of two binomial parameters", JASA 1957;
   Lloyd and Kabaila, "On the optimality and limitations of Buehler bounds", 2003): it keeps the
   approximate interval's shape where that interval is right and widens it where it undercovers.

Proof sketch of the guarantee. Fix the true :math:`(\theta, \nu)`. For every fixed :math:`\nu`,
:math:`p_\nu(x) = P_{\theta,\nu}\{D(X) \ge D(x)\}` is a valid p-value:
:math:`P(p_\nu(X) \le u) \le u` for all u (a tail probability of a fixed ordering). If
:math:`\theta < L` then :math:`P^+(\theta) \le \alpha/2 - \gamma/2`, and when
:math:`\nu \in C_\gamma` this implies :math:`p_\nu(x) \le \alpha/2 - \gamma/2`. So
:math:`P(\theta < L) \le P(\nu \notin C_\gamma, \theta < L) + (\alpha/2 - \gamma/2)` and, with the
mirrored statement for the upper end on the same :math:`C_\gamma`,
:math:`P(\theta \notin [L, U]) \le \gamma + 2(\alpha/2 - \gamma/2) = \alpha`. Nothing is
asymptotic. The random design: given the arm sizes :math:`(m_0, m_1)` the three counts have exactly
the distribution above (the arm sizes depend on theta only, not on the judge), so coverage holds
conditionally on every realised pair and hence unconditionally; the class count :math:`m_1` of
the random sample carries information on theta that this interval does not use.

Computation. For fixed :math:`(k_0, k_1)` the event :math:`\{D(X) \ge D(x)\}` is
:math:`\{k \ge c(k_0, k_1)\}` with :math:`c = \lceil n \max_{[0, D(x)]} h \rceil`, and
:math:`\max h` is exact because :math:`\sqrt{s^2}` is convex or concave on [0, 1] (a square root
of a quadratic), so the tail probability is a binomial survival function weighted by the two
calibration pmfs. On the judges better than chance (:math:`q_0 + q_1 \ge 1`), :math:`\pi` rises
with :math:`t`, so :math:`P_{t,\nu}\{k \ge c\}` rises with :math:`t` for every :math:`\nu`, the
supremum does too, and :math:`L` is its root: bracketed outwards from the designating bound
:math:`D(x)` (Buehler's end lies near it where the approximate bound is accurate), then located to
2.5e-7 by Brent's method and reported on the conservative (rejected) side.
Judges worse than chance in :math:`C_\gamma` make the tail fall with :math:`t`: their supremum is
largest at :math:`t = 0`, so if it exceeds the threshold there the lower end is 0. The supremum
over :math:`\nu` is taken on a 9 x 9 grid over :math:`C_\gamma` and 25 points on each of its
boundary arcs, then refined in four rounds around each of the two largest coarse values
(refined in three rounds around the largest alone, it missed the maximiser in 2 of 25 random
datasets at level 0.8 and put a lower end 1.3e-4 inside the construction's,
``tests/test_review_exactness.py``, and an upper end 0.0019 inside the one found now,
``tests/test_guaranteed_speed.py``). This is a search, not a bound: against a much finer search
it is narrower by up to 8.2e-4 (``python benchmarks/guaranteed_search.py``), and the tail has
narrow peaks: a search tried and not kept (49 points an arc, three starts no two of them
neighbours) came closer to that search on its 108 datasets, yet put the lower end of (6107,
10000, 15, 20, 17, 20) at 0.3249, where theta = 0.315 is accepted
(``tests/test_review_exactness.py``). Each supremum depends on t alone, not on the values of t tried
before. Calibration outcomes with probability below 1e-10 in each arm are left out of the sums, and
so is the test count's distribution beyond 13 standard deviations; the mass left out is added to
every p-value, and so is 1e-9, a bound of the sums' round-off where they meet the threshold (the
pmfs are precise to about 1e-10 of their size at every size: :func:`judgestats._binomial.log_pmf`
switches from log-gammas to the saddle-point form beyond 10^4 trials). The exact coverage is checked
by enumeration in the tests (``tests/test_guaranteed.py``).

Large calibration arms (cost independent of m). The sums run over an arm's outcomes, about
10 sqrt(m) of them, so their number of pairs grows as m. Beyond 256 items an arm's outcomes are
taken in blocks about an eighth of a standard deviation wide, a partition of 0..m fixed by m
alone (:mod:`judgestats._guaranteed_blocks`): the ordering uses the designating statistic at the
block's mid-point for every outcome in it, which is a fixed function of the outcome, so the test
is exact as before; each block's mass is bounded above through the log-concavity of the binomial
pmf (:func:`judgestats._binomial.block_mass_bound`, within about 0.1% of the mass), which can only
raise the p-value. An arm then meets at most about 160 blocks: arms of 10^12 cost what arms of
300 do (``tests/test_guaranteed_blocks.py``, where the interval at arms of 10^12 is also checked
against the known-judge limit, Clopper-Pearson's interval of k/n mapped through the judge).

Large test sets (cost independent of n). Summing the test count's pmf over its window costs
time and memory in proportion to :math:`\sqrt n`. At each nuisance point whose window would
pass :data:`WINDOW_MAX` counts (:math:`n\pi(1-\pi) \gtrsim 5.8 \cdot 10^5`; points with pi near
0 or 1 keep their exact window), the tail is replaced by its Berry-Esseen upper bound
(Shevtsova 2011, :math:`C \le 0.4748`; :math:`\sigma^2 = n\pi(1-\pi)`), which costs the same
at every n:

.. math:: P(K \ge c) \le \Phi\big((n\pi - c + 1)/\sigma\big) + C(\pi^2 + (1-\pi)^2)/\sigma.

An upper bound of each tail raises the supremum :math:`P^+(t)`; a larger p-value rejects fewer
t, so the interval only widens and the proof above holds unchanged, at every n. The added term
is below :math:`0.4748/\sigma < 6.3 \cdot 10^{-4}` (:math:`5 \cdot 10^{-7}` at n = 10^12), so
the interval is practically the exact one; small test sets never reach this branch (their
intervals are unchanged). Thresholds are lowered by :math:`8 n` units of round-off, so no tie is
lost to floating point at large n. In that branch :math:`\Phi` is evaluated only where its
argument lies in (-9, 9): above it the tail is set to 1 (an upper bound), below it to 0 with
:math:`\Phi(-9) < 1.2 \cdot 10^{-19}` added to every p-value, so the bound stays an upper bound.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from judgestats._binomial import clopper_pearson
from judgestats._guaranteed_tails import NUISANCE_GAMMA, WINDOW_MAX, LowerTest
from judgestats._validate import (
    MAX_EXACT_COUNT,
    check_level,
    check_six_counts,
    no_correction_message,
)
from judgestats.results import ConfidenceInterval

__all__ = [
    "NUISANCE_GAMMA",
    "WINDOW_MAX",
    "clopper_pearson",
    "guaranteed_ci",
    "guaranteed_covers",
    "guaranteed_interval",
    "guaranteed_intervals",
]

#: Bisection stops when the bracket of the interval end is this narrow.
_THETA_TOL = 1e-6


def _lower_end(k: int, n: int, k0: int, m0: int, k1: int, m1: int, level: float) -> float:
    """inf{t: P+(t) > threshold}, reported on the conservative (lower) side of the root."""
    test = LowerTest(k, n, k0, m0, k1, m1, level)
    threshold = test.p_threshold
    if test.everything:
        return 0.0
    if test.sup(0.0, better_than_chance=False) > threshold:  # judges worse than chance
        return 0.0
    known: dict[float, float] = {}

    def excess(t: float) -> float:
        if t not in known:
            known[t] = test.sup(t, better_than_chance=True) - threshold
        return known[t]

    bracket = _bracket(excess, min(max(test.guess, 0.0), 1.0))
    return bracket if isinstance(bracket, float) else _first_accepted(excess, *bracket)


#: First step from the designating bound when bracketing the end (doubled until it brackets).
_FIRST_STEP = 0.004


def _bracket(excess: Any, guess: float) -> tuple[float, float] | float:
    """An interval [a, b] with excess(a) <= 0 < excess(b), searched outwards from ``guess``.

    The designating bound D(x) is the guess: Buehler's end is near it where the approximate
    bound is accurate, so a short bracket saves most of a root search over [0, 1]. Where no
    bracket exists the end itself is returned: 0.0 where excess(0) > 0 (every t accepted),
    1.0 where excess(1) <= 0 (every t rejected).
    """
    step, inside = _FIRST_STEP, excess(guess) > 0.0
    edge = 0.0 if inside else 1.0
    near = guess
    while True:
        far = max(near - step, 0.0) if inside else min(near + step, 1.0)
        if (excess(far) > 0.0) != inside:
            return (far, near) if inside else (near, far)
        if far == edge:
            return edge
        near, step = far, 2.0 * step


def _first_accepted(excess: Any, start: float, end: float) -> float:
    """Root of the increasing ``excess`` on [start, end] (excess(start) <= 0 < excess(end)).

    Brent's method locates the root to ``_THETA_TOL / 4``; the value returned is then moved to
    the rejected side (excess <= 0), so the interval is never narrower than the exact one.
    """
    from scipy.optimize import brentq

    root = brentq(excess, start, end, xtol=_THETA_TOL / 4.0, rtol=4 * np.finfo(float).eps)
    step = _THETA_TOL / 4.0
    candidate = max(start, root - step)
    while candidate > start and excess(candidate) > 0.0:
        step *= 2.0
        candidate = max(start, root - step)
    return candidate


def _accepted(t: float, k: int, n: int, k0: int, m0: int, k1: int, m1: int, level: float) -> bool:
    """Whether t is at or above the lower end (the test for the lower end accepts t)."""
    test = LowerTest(k, n, k0, m0, k1, m1, level)
    threshold = test.p_threshold
    if test.everything or (t > 0.0 and test.sup(t, better_than_chance=True) > threshold):
        return True  # accepted at t: t is at or above the lower end (monotone test)
    if test.sup(0.0, better_than_chance=False) > threshold:
        return True  # the lower end is 0
    if test.sup(0.0, better_than_chance=True) > threshold:
        return True
    return t >= 1.0 and test.sup(1.0, better_than_chance=True) <= threshold  # lower end 1


def guaranteed_covers(
    theta: float, k: int, n: int, k0: int, m0: int, k1: int, m1: int, level: float
) -> bool:
    """Whether the guaranteed interval of these counts contains ``theta``, without computing it.

    Two tests at ``theta`` instead of a root search at each end (a few p-value evaluations
    instead of about thirty); for coverage studies. The interval's ends sit on the conservative
    side of the exact ends by at most 1e-6, so the interval may contain theta where this says
    no only within 1e-6 of an end.
    """
    return _accepted(theta, k, n, k0, m0, k1, m1, level) and _accepted(
        1.0 - theta, n - k, n, k1, m1, k0, m0, level
    )


def guaranteed_interval(
    k: int, n: int, k0: int, m0: int, k1: int, m1: int, level: float
) -> ConfidenceInterval:
    """The guaranteed interval of validated integer counts (see the module docstring)."""
    for name, size in (("m0", m0), ("m1", m1)):
        if size > MAX_EXACT_COUNT:  # betaincinv: NaN sets from ~1e17, a search without end
            raise ValueError(
                f"`{name}` ({size}) must be at most 2**53 ({MAX_EXACT_COUNT}) for the guaranteed "
                "interval: beyond it counts are not exact in floating point and the arm's "
                "Clopper-Pearson set is not computable; use judgestats.lang_reiczigel_ci."
            )
    low = _lower_end(k, n, k0, m0, k1, m1, level)
    # the upper end: the lower end of the mirrored data (accuracy 1 - theta, arms swapped)
    high = 1.0 - _lower_end(n - k, n, k1, m1, k0, m0, level)
    if high < low:  # both one-sided tests reject everything between: data of tiny probability
        low, high = high, low
    return ConfidenceInterval(low, high)


def guaranteed_intervals(
    k: Any, n: Any, k0: Any, m0: Any, k1: Any, m1: Any, level: float
) -> tuple[np.ndarray, np.ndarray]:
    """The guaranteed intervals of many datasets (arrays that broadcast), for coverage studies.

    Each interval is :func:`guaranteed_interval` of its counts (the same numbers); it is
    computed once per distinct dataset, and the datasets are taken in the order of their
    calibration counts, so that those sharing (n, k0, m0, k1, m1) share the nuisance set, its
    grid, the calibration pmfs and the designating curves (``python
    benchmarks/bench_guaranteed.py --speed`` times it). Counts are checked as in
    :func:`guaranteed_ci` (whole, non-negative, a part at most its total, n >= 1); empty arms
    and judges at or below chance are allowed.

    Returns
    -------
    low, high : numpy.ndarray
        The ends, in the broadcast shape of the counts.
    """
    names = ("k", "n", "k0", "m0", "k1", "m1")
    checked = check_six_counts(dict(zip(names, (k, n, k0, m0, k1, m1), strict=True)), int64=True)
    level = check_level(level)
    arrays = np.broadcast_arrays(*(checked[name] for name in names))
    # each column to int64 on its own: stacked first, int64 beside uint64 would become float64
    rows = np.stack([a.ravel().astype(np.int64) for a in arrays], axis=1)
    unique, inverse = np.unique(rows, axis=0, return_inverse=True)
    low, high = np.empty(len(unique)), np.empty(len(unique))
    # grouped by (n, k0, m0, k1, m1), then k: a calibration's shared part is built once
    for i in np.lexsort((unique[:, 0], unique[:, 5], unique[:, 4], unique[:, 3], unique[:, 2])):
        k_, n_, k0_, m0_, k1_, m1_ = (int(c) for c in unique[i])
        low[i], high[i] = guaranteed_interval(k_, n_, k0_, m0_, k1_, m1_, level)
    inverse = inverse.ravel()
    return low[inverse].reshape(arrays[0].shape), high[inverse].reshape(arrays[0].shape)


def guaranteed_ci(
    k: int, n: int, k0: int, m0: int, k1: int, m1: int, *, confidence_level: float = 0.95
) -> ConfidenceInterval:
    r"""Confidence interval for the true accuracy with coverage guaranteed by construction.

    Inverts an exact test of theta whose p-value is maximised over a Clopper-Pearson confidence
    set for the judge's specificity and sensitivity (Berger and Boos, JASA 1994), with outcomes
    ordered by a score-type approximate bound (Buehler, JASA 1957). For every true accuracy
    theta and every judge (q0, q1) the probability that the interval contains theta is at least
    ``confidence_level``, exactly, not asymptotically; the proof sketch, the statistic and the
    computation are in the docstring of :mod:`judgestats.guaranteed`.

    Parameters
    ----------
    k, n : int
        Items the judge marked correct, and test items (n >= 1, finite).
    k0, m0 : int
        Truly-incorrect calibration items the judge marked incorrect, and all of them.
    k1, m1 : int
        Truly-correct calibration items the judge marked correct, and all of them (m0, m1 >= 1;
        :func:`guaranteed_interval`, unvalidated, also takes an empty arm and any judge).
    confidence_level : float, default 0.95
        Strictly inside (0, 1).

    Returns
    -------
    ConfidenceInterval
        ``(low, high)`` within [0, 1]. Where the calibration cannot rule out a judge no better
        than chance the interval can be all of [0, 1]: that is what the data support.

    Raises
    ------
    TypeError, ValueError
        For counts that are not whole non-negative numbers, a part above its total, an infinite
        ``n``, an empty arm (``m0 = 0`` or ``m1 = 0``) or a level outside (0, 1); ValueError
        for a judge no better than chance (q0-hat + q1-hat - 1 <= 0, or its Laplace-adjusted
        version (k + 1)/(m + 2) per arm <= 0), as :func:`judgestats.lang_reiczigel_ci` and
        :func:`judgestats.estimate` do: no correction exists there.

    Notes
    -----
    Computing time grows with the arm sizes up to about 300 items each, then stops growing
    (beyond 256 items an arm's outcomes are summed in blocks, module docstring): median
    34 ms, p90 74 ms per interval over arms of 20-200 items on a 2-core machine
    (``python benchmarks/bench_guaranteed.py --speed``), and 0.12-0.32 s at arms of 10^4 to
    10^12 (``--arms``). It stops growing with ``n`` as well (beyond about 10^6 test items the
    test count's tail is bounded by Berry-Esseen, module docstring): with arms of 200, n = 10^5
    to 10^12 all cost about 0.2-0.3 s of CPU, four times n = 10^3
    (``python benchmarks/bench_guaranteed.py --scaling``).
    :func:`judgestats.lang_reiczigel_ci` stays the fast default.

    Examples
    --------
    >>> low, high = guaranteed_ci(400, 1000, 140, 200, 180, 200)
    >>> round(low, 4), round(high, 4)
    (0.0488, 0.2616)
    """
    level = check_level(confidence_level)
    values = check_six_counts({"k": k, "n": n, "k0": k0, "m0": m0, "k1": k1, "m1": m1}, scalar=True)
    counts = {name: int(value) for name, value in values.items()}
    _check_judge(**counts)
    return guaranteed_interval(**counts, level=level)


def _check_judge(k: int, n: int, k0: int, m0: int, k1: int, m1: int) -> None:
    """The closed form's policy: both arms present, and a judge better than chance.

    Raises ValueError for an empty arm (naming it) and, as :func:`judgestats.estimate` does, for
    a judge with q0-hat + q1-hat - 1 <= 0 or its Laplace-adjusted version (k + 1) / (m + 2)
    per arm <= 0.
    """
    del k, n  # the test counts play no part in the policy
    for name, size, rate in (("m0", m0, "specificity q0"), ("m1", m1, "sensitivity q1")):
        if size == 0:
            raise ValueError(
                f"`{name}` (0) must be at least 1: without calibration items of that class the "
                f"judge's {rate} is not measured; for a labelled random sample of one class "
                "use judgestats.posterior, or judgestats.guaranteed.guaranteed_interval, which "
                "leaves that rate entirely free."
            )
    q0, q1 = k0 / m0, k1 / m1
    if q0 + q1 <= 1.0:
        raise ValueError(no_correction_message(q0, q1, smoothed=False))
    adjusted0, adjusted1 = (k0 + 1) / (m0 + 2), (k1 + 1) / (m1 + 2)
    if adjusted0 + adjusted1 <= 1.0:
        raise ValueError(no_correction_message(adjusted0, adjusted1, smoothed=True))
