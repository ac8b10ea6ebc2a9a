r"""A guaranteed interval for random-design data that uses the judge and the labelled class count.

:func:`judgestats.guaranteed_ci` conditions on the labelled class sizes (m0, m1), so with a
random labelled sample it ignores what m1 of m says about theta. :func:`guaranteed_judge_ci`
inverts an exact test whose outcome includes m1.

Model
-----
The m labelled items are a simple random sample; item i has truth :math:`Y_i \sim
\mathrm{Bern}(\theta)` and verdict :math:`V_i` with :math:`P(V=0 \mid Y=0) = q_0`,
:math:`P(V=1 \mid Y=1) = q_1`; the labelled 2x2 table is
:math:`m_1 \sim \mathrm{Bin}(m, \theta)`, :math:`k_0 \mid m_1 \sim \mathrm{Bin}(m - m_1, q_0)`,
:math:`k_1 \mid m_1 \sim \mathrm{Bin}(m_1, q_1)`, and independently the n unlabelled verdicts give
:math:`k \sim \mathrm{Bin}(n, \pi)`, :math:`\pi = \theta q_1 + (1-\theta)(1-q_0)`.

Construction
------------
1. **Ordering.** A PPI++-type approximate lower bound (Angelopoulos, Duchi and Zrnic, "PPI++:
   Efficient Prediction-Powered Inference", arXiv 2311.01453) computed from the 2x2 table with
   :math:`a = z^2/4` pseudo-items per cell (:math:`\bar y, \bar v, \hat c` the adjusted share of
   truly correct, of judged correct, and their covariance; :math:`\tilde m = m + 4a`):

   .. math:: \lambda = \mathrm{clip}_{[0,1]}\frac{\hat c}{(1 + m/n)\,\bar v(1-\bar v)},\quad
             D = \bar y + \lambda\Big(\frac{k}{n} - \bar v\Big) - z\sqrt{\frac{\lambda^2 \bar
             v(1-\bar v)}{n} + \frac{\bar y(1-\bar y) - 2\lambda\hat c + \lambda^2\bar v(1-\bar
             v)}{m}}.

   For a fixed table D is affine and non-decreasing in k, so :math:`\{D(X) \ge D(x)\}` is
   :math:`\{k \ge c(m_1, k_0, k_1)\}` with c in closed form (ties included).
2. **Nuisance** (Berger and Boos, JASA 1994): :math:`C_\gamma` is the product of the
   Clopper-Pearson intervals of q0 (from k0 of m0) and q1 (from k1 of m1), each of level
   :math:`\sqrt{1-\gamma}`; given (m0, m1) the arms are independent binomials, so
   :math:`P(\nu \in C_\gamma) \ge 1-\gamma` for every theta. An empty arm gives [0, 1].
3. **Test and bound.** :math:`P^+(t) = \sup_{\nu \in C_\gamma} P_{t,\nu}\{D(X) \ge D(x)\}`,
   summed over every table (m1', k0', k1') and the test count's tail; the lower end is
   :math:`L = \inf\{t : P^+(t) > \alpha/2 - \gamma/2\}`, the upper end the same for the mirrored
   data (:math:`1 - \theta`; classes and k swapped).

Proof sketch. For fixed :math:`\nu`, :math:`P_{t,\nu}\{D(X) \ge D(x)\}` is the tail of a fixed
ordering, a valid p-value. If :math:`\theta < L` and :math:`\nu \in C_\gamma` then the p-value at
the true :math:`(\theta, \nu)` is at most :math:`\alpha/2 - \gamma/2`, so
:math:`P(\theta < L) \le P(\nu \notin C_\gamma, \theta < L) + \alpha/2 - \gamma/2`; with the
mirrored upper end on the same :math:`C_\gamma`, :math:`P(\theta \notin [L, U]) \le \alpha`, for
every :math:`(\theta, q_0, q_1)` and every n and m: nothing is asymptotic. The labelled class count
enters the outcome, so, unlike :func:`judgestats.guaranteed_ci`, nothing is conditioned away.

Numerics. Every table is summed (1e-12 is added to each p-value for round-off). The test
count's tail is summed exactly over a window of 13 standard deviations around n pi where that
window holds at most :data:`judgestats.guaranteed.WINDOW_MAX` counts (the mass outside it is
added); beyond (:math:`n\pi(1-\pi) > 5.9 \cdot 10^5`) it is the Berry-Esseen upper bound of
:mod:`judgestats.guaranteed`, which adds less than 0.4748/768 = 6.2e-4 to a p-value.
Two steps are searches, not bounds: the supremum over :math:`C_\gamma` is taken on a 9 x 9
grid with one finer 7 x 7 grid around its best point, and t is scanned on :data:`T_GRID` points
with the first accepted cell bisected (the end reported on its rejected side), which assumes no
accepted t hides between two rejected grid points below it. Both are checked by exact
enumeration of every outcome in ``tests/test_random_guaranteed.py``.

**Items target.** :math:`\theta_{items} = (m_1 + T_u)/N`, with :math:`T_u` the truly correct
unlabelled items and N = n + m. Marginally :math:`T_u \sim \mathrm{Bin}(n, \theta)`. With
:math:`[L, U]` the population interval at level :math:`1 - (1 - f)\alpha` and
:math:`l(t), u(t)` the :math:`f\alpha/2` and :math:`1 - f\alpha/2` quantiles of Bin(n, t)
(non-decreasing in t), the interval :math:`[(m_1 + l(L))/N, (m_1 + u(U))/N]` misses only if
:math:`\theta \notin [L, U]` (probability :math:`\le (1 - f)\alpha`) or
:math:`T_u \notin [l(\theta), u(\theta)]` (:math:`\le f\alpha`): a union bound, valid whatever
the dependence, but it ignores what the verdicts say about the individual unlabelled items. The
split f is fixed by (n, m, level) (:func:`items_split`: small when n is much larger than m).

Cost. About :math:`(m+1)^3/6` tables times 130 nuisance points per value of t, and about 30
values of t per end (seconds per interval: ``python benchmarks/random_guaranteed.py``). Where m
exceeds :data:`LABELLED_MAX` it is not computed (:func:`guaranteed_judge_ci` raises,
``random_design_candidates`` reports NaN); in n the cost is capped (a window of at most
:data:`judgestats.guaranteed.WINDOW_MAX` counts, a bound of fixed cost beyond).
"""

from __future__ import annotations

import math

import numpy as np

from judgestats._binomial import arm_set
from judgestats._validate import check_level
from judgestats.data import JudgeData, require_design
from judgestats.designs.labels_only import check_target
from judgestats.guaranteed import WINDOW_MAX
from judgestats.results import ConfidenceInterval

__all__ = [
    "LABELLED_MAX",
    "T_GRID",
    "guaranteed_judge_ci",
    "guaranteed_judge_counts",
    "items_split",
]

#: Largest labelled sample for which the interval is computed (cost grows as m^3).
LABELLED_MAX = 40
#: Test sizes up to which the log binomial coefficients are tabulated once per dataset.
_LOG_CHOOSE_MAX = 2_000_000
#: Half-width of the window, in standard deviations, where the test count's pmf is summed.
_WINDOW_SD = 13.0
#: Points of the t grid scanned before the bisection.
T_GRID = 11
#: Miss probability of the nuisance confidence set.
_GAMMA = 1e-3
#: Added to every p-value for the round-off of the sums (and pmfs below exp(-745) lost).
_ROUND_OFF = 1e-12
_BERRY_ESSEEN = 0.4748
_NDTR_BAND, _NDTR_FLOOR = 9.0, 1.2e-19
_TIE = 1e-9
#: Bisection tolerance for the ends (reported on the rejected side).
_T_TOL = 1e-5
_GRID, _FINE = 9, 7
_LOG_ZERO = -1e30


def _ordering(
    m1: np.ndarray, k0: np.ndarray, k1: np.ndarray, m: int, n: int, z: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(base, lambda, centre) per table: D = base + lambda k / n; estimate centre + lambda k / n."""
    a = z * z / 4.0
    size = m + 4.0 * a
    m0 = m - m1
    y11, y10, y01 = (k1 + a) / size, (m1 - k1 + a) / size, (m0 - k0 + a) / size
    ybar, vbar = y11 + y10, y11 + y01
    var_v, var_y, cov = vbar * (1 - vbar), ybar * (1 - ybar), y11 - ybar * vbar
    lam = np.clip(cov / ((1.0 + m / n) * var_v), 0.0, 1.0)
    var_r = np.maximum(var_y - 2 * lam * cov + lam**2 * var_v, 0.0)
    se = np.sqrt(lam**2 * var_v / n + var_r / m)
    return ybar - lam * vbar - z * se, lam, ybar - lam * vbar


def _one_table(m1: int, k0: int, k1: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One table as the 1-element arrays :func:`_ordering` takes."""
    return np.array([float(m1)]), np.array([float(k0)]), np.array([float(k1)])


class _Test:
    """P+(t) for the lower end of one dataset: sup over the nuisance box of P{k >= c(table)}."""

    def __init__(self, k: int, n: int, k0: int, m0: int, k1: int, m1: int, level: float):
        from scipy.special import gammaln, ndtri

        alpha = 1.0 - level
        gamma = min(_GAMMA, alpha / 10.0)
        self.threshold = alpha / 2.0 - gamma / 2.0
        z = float(ndtri(1.0 - alpha / 2.0))
        m = m0 + m1
        self.n, self.m = n, m
        self.box = (
            arm_set(k0, m0, math.sqrt(1.0 - gamma)),
            arm_set(k1, m1, math.sqrt(1.0 - gamma)),
        )
        # every table (m1', k0', k1') of m labelled items
        grid = [(a, b, c) for a in range(m + 1) for b in range(m - a + 1) for c in range(a + 1)]
        tm1, tk0, tk1 = (np.array(col, dtype=float) for col in zip(*grid, strict=True))
        base, lam, _ = _ordering(tm1, tk0, tk1, m, n, z)
        obs_base, obs_lam, _ = _ordering(*_one_table(m1, k0, k1), m, n, z)
        observed = float(obs_base[0] + obs_lam[0] * k / n) - _TIE
        with np.errstate(divide="ignore", invalid="ignore"):
            cut = np.where(lam > 0, np.ceil((observed - base) * n / lam), np.inf)
        cut = np.where((lam == 0) & (base >= observed), 0.0, cut)
        cut = np.clip(cut, 0.0, n + 1.0)
        own = (tm1 == m1) & (tk0 == k0) & (tk1 == k1)
        cut[own] = np.minimum(cut[own], k)  # the observed outcome lies in its own tail
        self.m1, self.cut = tm1, cut
        # x: the counts of the log pmf [k0', m0' - k0', k1', m1' - k1'] and the log of the
        # multinomial coefficient m! / (k0'! (m0' - k0')! k1'! (m1' - k1')!)
        counts = np.stack([tk0, m - tm1 - tk0, tk1, tm1 - tk1], axis=1)
        log_choose = gammaln(m + 1.0) - gammaln(counts + 1.0).sum(axis=1)
        self.x = np.column_stack([counts, log_choose])
        self._log_choose_n: np.ndarray | None = None

    def _test_tail(self, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """P(K >= cut) for every table (rows) at each pi (columns), and the slack to add.

        Summed exactly over a window of 13 standard deviations where that window has at most
        ``WINDOW_MAX`` counts; beyond, the Berry-Esseen upper bound (sigma > 768 there, so it
        adds less than 6.2e-4).
        """
        sigma = np.sqrt(self.n * pi * (1.0 - pi))
        half = np.ceil(_WINDOW_SD * sigma + 12.0)
        summed = 2 * half + 1 <= WINDOW_MAX
        out = np.empty((self.cut.size, pi.size))
        slack = np.zeros(pi.size)
        if summed.any():
            out[:, summed], slack[summed] = self._window_tail(pi[summed], int(half[summed].max()))
        if not summed.all():
            out[:, ~summed], slack[~summed] = self._normal_tail(pi[~summed])
        return out, slack

    def _window_tail(self, pi: np.ndarray, half: int) -> tuple[np.ndarray, np.ndarray]:
        """Exact sums of Bin(n, pi) over a window of 2 half + 1 counts around n pi."""
        from scipy.special import gammaln, xlog1py, xlogy

        n = self.n
        width = min(2 * half + 1, n + 1)
        start = np.clip(np.floor(n * pi) - half, 0, n + 1 - width).astype(np.int64)
        counts = start[:, None] + np.arange(width)[None, :]
        if n <= _LOG_CHOOSE_MAX:
            if self._log_choose_n is None:
                every = np.arange(n + 1, dtype=float)
                self._log_choose_n = (
                    gammaln(n + 1.0) - gammaln(every + 1.0) - gammaln(n - every + 1.0)
                )
            log_choose = self._log_choose_n[counts]
        else:
            c = counts.astype(float)
            log_choose = gammaln(n + 1.0) - gammaln(c + 1.0) - gammaln(n - c + 1.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            pmf = np.exp(
                log_choose + xlogy(counts, pi[:, None]) + xlog1py(n - counts, -pi[:, None])
            )
        # columns: 1 (cut below the window), P(start + j <= K <= end), 0 (cut above the window)
        table = np.ones((pi.size, width + 2))
        table[:, 1:-1] = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]
        table[:, -1] = 0.0
        index = np.clip(self.cut[:, None] - start[None, :] + 1, 0, width + 1).astype(np.int64)
        sf = np.take_along_axis(table.T, index, axis=0)
        # the mass outside the window (beyond its end, where the sums stop) is added back
        return sf, np.maximum(1.0 - pmf.sum(axis=1), 0.0)

    def _normal_tail(self, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Berry-Esseen upper bound of P(K >= cut): Phi((n pi - c + 1) / sigma) + C rho / sigma."""
        from scipy.special import ndtr

        n, cut = self.n, self.cut
        scale = 1.0 / np.sqrt(n * pi * (1.0 - pi))
        x = (n * pi[None, :] + 1.0 - cut[:, None]) * scale[None, :]
        near = np.flatnonzero(np.abs(x) < _NDTR_BAND)
        values = ndtr(x.flat[near])
        np.clip(x, 0.0, 1.0, out=x)  # 1 above the band, 0 below it
        x.flat[near] = values
        return x, _BERRY_ESSEEN * (pi**2 + (1 - pi) ** 2) * scale + _NDTR_FLOOR

    def tail(self, t: float, q0: np.ndarray, q1: np.ndarray) -> np.ndarray:
        """P_{t,q0,q1}{D(X) >= D(x)} (an upper bound for large n), one per nuisance point.

        Every table is summed: P(table) = m! / (k0'! r0'! k1'! r1'!) t^m1' (1 - t)^m0'
        q0^k0' (1 - q0)^r0' q1^k1' (1 - q1)^r1' with r the arms' misses.
        """
        with np.errstate(divide="ignore", invalid="ignore"):
            logs = np.stack(
                [
                    np.log(q0 * (1.0 - t)),
                    np.log((1.0 - q0) * (1.0 - t)),
                    np.log(q1 * t),
                    np.log((1.0 - q1) * t),
                ]
            )
        logs = np.maximum(np.nan_to_num(logs, neginf=_LOG_ZERO), _LOG_ZERO)
        logs = np.vstack([logs, np.ones_like(q0)])  # the last column of x is the coefficient
        # einsum's own loop: BLAS threads made this tiny product slow on shared cores
        weight = np.einsum("tk,kp->tp", self.x, logs)
        np.exp(np.minimum(weight, 0.0, out=weight), out=weight)
        pi = np.clip(t * q1 + (1 - t) * (1 - q0), 0.0, 1.0)
        sf, slack = self._test_tail(pi)
        return np.einsum("tp,tp->p", weight, sf) + slack + _ROUND_OFF

    def sup(self, t: float) -> float:
        """Sup of :meth:`tail` over the nuisance box: a grid, then one finer grid at its best."""
        (lo0, hi0), (lo1, hi1) = self.box
        g0, g1 = (
            a.ravel()
            for a in np.meshgrid(
                np.linspace(lo0, hi0, _GRID), np.linspace(lo1, hi1, _GRID), indexing="ij"
            )
        )
        values = self.tail(t, g0, g1)
        best = int(np.argmax(values))
        s0, s1 = (hi0 - lo0) / (_GRID - 1), (hi1 - lo1) / (_GRID - 1)
        f0, f1 = (
            a.ravel()
            for a in np.meshgrid(
                np.clip(np.linspace(g0[best] - s0, g0[best] + s0, _FINE), lo0, hi0),
                np.clip(np.linspace(g1[best] - s1, g1[best] + s1, _FINE), lo1, hi1),
                indexing="ij",
            )
        )
        return float(max(values[best], self.tail(t, f0, f1).max()))


def _lower_end(k: int, n: int, k0: int, m0: int, k1: int, m1: int, level: float) -> float:
    """inf{t: P+(t) > threshold}: scan a grid of t, bisect the first accepted cell.

    The end is reported on the rejected side of the bisection's root (never inside the
    interval's exact end, given the scan found the first accepted cell).
    """
    from scipy.optimize import brentq

    test = _Test(k, n, k0, m0, k1, m1, level)

    def excess(t: float) -> float:
        return test.sup(t) - test.threshold

    grid = np.linspace(0.0, 1.0, T_GRID)
    previous = None
    for t in grid:
        value = excess(float(t))
        if value > 0.0:
            if previous is None:
                return 0.0
            low, low_value = previous
            root = brentq(excess, low, float(t), xtol=_T_TOL)
            candidate, step = max(low, root - _T_TOL), _T_TOL
            while candidate > low and excess(candidate) > 0.0:
                step *= 2.0
                candidate = max(low, root - step)
            return candidate
        previous = (float(t), value)
    return 1.0  # every t rejected


def guaranteed_judge_counts(
    k: int, n: int, k0: int, m0: int, k1: int, m1: int, *, target: str, level: float
) -> tuple[float, float, float]:
    """(estimate, low, high) of validated counts; NaN where m exceeds :data:`LABELLED_MAX`.

    The unvalidated engine of :func:`guaranteed_judge_ci` (module docstring), for any counts
    with n >= 1 (an empty class and any judge included).
    """
    m = m0 + m1
    if m > LABELLED_MAX:
        return (math.nan, math.nan, math.nan)
    split = items_split(n, m, level) if target == "items" else 0.0
    share = 1.0 - (1.0 - split) * (1.0 - level)  # the population interval's level
    low = _lower_end(k, n, k0, m0, k1, m1, share)
    high = 1.0 - _lower_end(n - k, n, k1, m1, k0, m0, share)
    if high < low:  # both one-sided tests reject everything between: data of tiny probability
        low, high = high, low
    from scipy.special import ndtri

    z = float(ndtri(1.0 - (1.0 - share) / 2.0))
    _, lam, centre = _ordering(*_one_table(m1, k0, k1), m, n, z)
    estimate = float(centre[0] + lam[0] * k / n)
    if target == "items":
        low, high = _items_ends(low, high, n, m, m1, split * (1.0 - level))
        estimate = (m1 + n * estimate) / (n + m)
    return (min(max(estimate, low), high), low, high)


def items_split(n: int, m: int, level: float) -> float:
    """Share f of alpha spent on the unlabelled truths T_u (items target; module docstring).

    Fixed by the design (n, m, level), never by the data: the f in [0.005, 0.995] minimising
    z(alpha (1 - f) / 2) + sqrt(m / n) z(alpha f / 2), the half-width of the union bound with
    the population interval's standard error taken as sqrt(theta (1 - theta) / m) and T_u / n's
    as sqrt(theta (1 - theta) / n).
    """
    from scipy.special import ndtri

    alpha = 1.0 - level
    f = np.linspace(0.005, 0.995, 199)
    cost = ndtri(1.0 - alpha * (1.0 - f) / 2.0) + math.sqrt(m / n) * ndtri(1.0 - alpha * f / 2.0)
    return float(f[int(np.argmin(cost))])


def _items_ends(
    low: float, high: float, n: int, m: int, m1: int, alpha_t: float
) -> tuple[float, float]:
    """Union bound for theta_items: Bin(n, t) quantiles at the population interval's ends."""
    from scipy.stats import binom

    tail = alpha_t / 2.0
    fewest = 0.0 if low <= 0.0 else float(binom.ppf(tail, n, low))
    most = float(n) if high >= 1.0 else float(binom.ppf(1.0 - tail, n, high))
    return (m1 + fewest) / (n + m), (m1 + most) / (n + m)


def guaranteed_judge_ci(
    data: JudgeData, *, target: str = "population", confidence_level: float = 0.95
) -> ConfidenceInterval:
    r"""Guaranteed interval for random-design data that also uses the judge and the class count.

    Inverts an exact test of theta whose outcome is the whole labelled 2x2 table (the class
    count m1 included) and the unlabelled verdict count, ordered by a PPI++-type lower bound, with
    the judge's (q0, q1) handled by a Berger-Boos supremum over a Clopper-Pearson box:

    .. math:: L = \inf\{t : \sup_{\nu \in C_\gamma} P_{t,\nu}\{D(X) \ge D(x)\}
              > \alpha/2 - \gamma/2\}, \qquad \pi = \theta q_1 + (1 - \theta)(1 - q_0),

    and U from the mirrored data. Coverage is at least ``confidence_level`` for every
    (theta, q0, q1), every n and m (proof sketch in :mod:`judgestats.designs.random_guaranteed`).

    Parameters
    ----------
    data : JudgeData
        ``design="random"``: k of n unlabelled items judged correct and the labelled random
        sample's 2x2 table (an empty class and any judge are allowed).
    target : {"population", "items"}, default "population"
        The accuracy of the process, or the share of correct items among the n + m evaluated
        (a union bound with the unlabelled truths' binomial quantiles; module docstring).
    confidence_level : float, default 0.95

    Returns
    -------
    ConfidenceInterval

    Raises
    ------
    ValueError
        If ``data`` is not of the random design, ``target`` is unknown, the level is outside
        (0, 1), or ``data.m`` exceeds :data:`LABELLED_MAX` (the cost grows as m^3).

    Examples
    --------
    >>> from judgestats import JudgeData
    >>> data = JudgeData(k=70, n=100, k0=8, m0=10, k1=9, m1=10, design="random")
    >>> low, high = guaranteed_judge_ci(data)
    >>> 0.0 < low < 0.7 < high < 1.0
    True
    """
    target = check_target(target)
    data = require_design(data, "random", "`guaranteed_judge_ci`")
    level = check_level(confidence_level)
    if data.m > LABELLED_MAX:
        raise ValueError(
            f"`data` holds m = {data.m} labelled items; guaranteed_judge_ci sums over every "
            f"labelled 2x2 table, about m^3 / 6 of them, and is computed up to m = "
            f"{LABELLED_MAX}. Use the labels-only exact interval or judgestats.guaranteed_ci."
        )
    _, low, high = guaranteed_judge_counts(
        data.k, data.n, data.k0, data.m0, data.k1, data.m1, target=target, level=level
    )
    return ConfidenceInterval(low, high)
