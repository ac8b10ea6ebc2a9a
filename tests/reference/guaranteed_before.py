"""The guaranteed interval's engine as it was before issue 27 (the speed-up), kept as a reference.

A verbatim copy of the computation in ``src/judgestats/guaranteed.py`` at commit 82be423 (the
public wrapper ``guaranteed_ci`` left out) and of the designating curves it used
(``src/judgestats/_designating.py``); the binomial helpers come from ``judgestats._binomial``,
which issue 27 left unchanged. The tests compare the faster engine with it
(``tests/test_guaranteed_speed.py``) and ``benchmarks/bench_guaranteed.py --speed`` times both
in the same process. Not part of the package.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from judgestats._binomial import arm_p_value as _arm_p_value
from judgestats._binomial import arm_set as _arm_set
from judgestats._binomial import arm_support
from judgestats._binomial import fisher_cutoff as _fisher_cutoff
from judgestats._binomial import log_pmf as _log_pmf
from judgestats._binomial import p_value_ends as _p_value_ends
from judgestats.results import ConfidenceInterval

__all__ = ["guaranteed_covers", "guaranteed_interval"]

#: Miss probability of the confidence set for (q0, q1) in the Berger-Boos p-value.
NUISANCE_GAMMA = 1e-3
#: Calibration outcomes lighter than this in each arm are dropped; their mass (4 x this) is
#: added to every p-value.
_ARM_TAIL = 1e-10
#: Half-width of the window, in standard deviations, where the test count's pmf is summed.
_WINDOW_SD = 13.0
#: Widest window summed; beyond it the tail is the Berry-Esseen upper bound (module docstring).
WINDOW_MAX = 20_001
#: Berry-Esseen constant for sums of independent identically distributed terms (Shevtsova 2011).
_BERRY_ESSEEN = 0.4748
#: Large-n tails: Phi(x) is evaluated only for |x| below this; Phi(-band) (< 1.2e-19) bounds
#: what is set to 0 below it and is added to every p-value.
_NDTR_BAND = 9.0
_NDTR_FLOOR = 1.2e-19
#: Bisection stops when the bracket of the interval end is this narrow.
_THETA_TOL = 1e-6
#: Nuisance grid: points per side of the coarse grid, and of each refinement grid.
_COARSE, _ARC, _FINE, _ROUNDS = 9, 25, 9, 3
#: Test sizes up to which the log binomial coefficients are tabulated once per dataset.
_LOG_CHOOSE_MAX = 2_000_000
#: Slack in units of k when comparing n * max h with an integer count (ties are included).
_TIE = 1e-7


# ---------------------------------------------------------------------------------------------
# the designating statistic, verbatim from src/judgestats/_designating.py at the same commit
# ---------------------------------------------------------------------------------------------
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
        """Maximiser of h on [0, upper] (elementwise), exact for convex and concave h."""
        upper = np.broadcast_to(np.asarray(upper, dtype=float), self.a.shape)
        # concave: the root of the decreasing derivative, clipped to [0, upper]
        low, high = np.zeros_like(upper), upper.copy()
        for _ in range(60):
            mid = 0.5 * (low + high)
            rising = self.derivative(mid) > 0.0
            low, high = np.where(rising, mid, low), np.where(rising, high, mid)
        concave_best = np.where(
            self.derivative(np.zeros_like(upper)) <= 0.0,
            0.0,
            np.where(self.derivative(upper) >= 0.0, upper, low),
        )
        convex_best = np.where(self.value(upper) >= self.value(0.0), upper, 0.0)
        return np.where(self.convex, convex_best, concave_best)

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


# ---------------------------------------------------------------------------------------------
# tail probabilities and their supremum over the nuisance set
# ---------------------------------------------------------------------------------------------
class _LowerTest:
    """The p-value P+(t) of one dataset: sup over the nuisance set of P{D(X) >= D(x)}."""

    def __init__(self, k: int, n: int, k0: int, m0: int, k1: int, m1: int, level: float):
        z, self.p_threshold, fisher = _settings(level)
        box = (_arm_set(k0, m0, 1.0 - fisher), _arm_set(k1, m1, 1.0 - fisher))
        self.n = n
        self.box = box
        self.fisher = fisher
        self.calibration = (k0, m0, k1, m1)
        self.k0 = arm_support(m0, *box[0], _ARM_TAIL)
        self.k1 = arm_support(m1, *box[1], _ARM_TAIL)
        self.m0, self.m1 = m0, m1
        observed = Curves(np.array([k0], float), np.array([k1], float), m0, m1, n, z)
        bound = designating_bound(observed, k / n)
        self.everything = bound == 0.0  # D(x) = 0: every outcome is as extreme
        grid0, grid1 = np.meshgrid(self.k0, self.k1, indexing="ij")
        curves = Curves(grid0, grid1, m0, m1, n, z)
        top = curves.max_on(min(bound, 1.0))
        threshold = np.ceil(n * top - max(_TIE, 8.0 * np.finfo(float).eps * n))
        if self.k0[0] <= k0 <= self.k0[-1] and self.k1[0] <= k1 <= self.k1[-1]:
            i, j = int(k0 - self.k0[0]), int(k1 - self.k1[0])
            threshold[i, j] = min(threshold[i, j], k)  # the observed outcome is in its tail
        self.threshold = np.clip(threshold, 0, n + 1).astype(np.int64)
        self._threshold_float = self.threshold.astype(float)
        self.slack = 4.0 * _ARM_TAIL
        self._log_choose: np.ndarray | None = None
        if n <= _LOG_CHOOSE_MAX:
            from scipy.special import gammaln

            counts = np.arange(n + 1, dtype=float)
            self._log_choose = gammaln(n + 1.0) - gammaln(counts + 1.0) - gammaln(n - counts + 1.0)

    def _test_log_pmf(self, counts: np.ndarray, pi: np.ndarray) -> np.ndarray:
        """Log Bin(counts; n, pi) (pi a column), from a table of log binomial coefficients."""
        if self._log_choose is None:
            return _log_pmf(counts, self.n, pi)
        from scipy.special import xlog1py, xlogy

        return (
            self._log_choose[counts.astype(np.int64)]
            + xlogy(counts, pi)
            + xlog1py(self.n - counts, -pi)
        )

    def tail(self, t: float, q0: np.ndarray, q1: np.ndarray) -> np.ndarray:
        """P_{t, q0, q1}{k >= c(k0, k1)} for every nuisance point (1-D arrays q0, q1).

        Summed over a window of the test count where it holds at most ``WINDOW_MAX`` counts;
        the Berry-Esseen upper bound for the other points (each point on its own: a point with
        pi near 0 or 1 has a small spread, where the bound would be loose).
        """
        n = self.n
        pi = np.minimum(np.maximum(t * q1 + (1.0 - t) * (1.0 - q0), 0.0), 1.0)
        half = np.ceil(_WINDOW_SD * np.sqrt(n * pi * (1.0 - pi)) + 12.0)
        summed = np.minimum(2 * half + 1, n + 1) <= WINDOW_MAX
        out = np.empty(pi.size)
        if summed.any():
            part = (pi[summed], q0[summed], q1[summed])
            out[summed] = self._window_tail(*part, int(half[summed].max()))
        if not summed.all():
            out[~summed] = self._tail_bound(pi[~summed], q0[~summed], q1[~summed])
        return out

    def _window_tail(self, pi: np.ndarray, q0: np.ndarray, q1: np.ndarray, half: int) -> np.ndarray:
        """:meth:`tail` summed over a window of 2 half + 1 counts around n pi."""
        n = self.n
        width = min(2 * half + 1, n + 1)
        start = np.minimum(np.maximum(np.floor(n * pi) - half, 0.0), n + 1 - width)
        counts = start[:, None] + np.arange(width)[None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            pmf = np.exp(self._test_log_pmf(counts, pi[:, None]))
        # columns: 1 (counts below the window), P(K >= start + j) in the window, 0 above it
        table = np.ones((pi.size, width + 2))
        table[:, 1:-1] = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]
        table[:, -1] = 0.0
        offset = self.threshold[None, :, :] - start.astype(np.int64)[:, None, None]
        index = np.minimum(np.maximum(offset + 1, 0), width + 1)
        index += (np.arange(pi.size) * (width + 2))[:, None, None]
        sf = np.take(table.ravel(), index)
        w0, w1 = self._weights(q0, q1)
        # the test count's mass outside the window (set to 0 above it) is added back
        outside = np.maximum(1.0 - pmf.sum(axis=1), 0.0)
        return _weighted_sum(w0, sf, w1) + self.slack + outside

    def _weights(self, q0: np.ndarray, q1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Calibration pmfs on the supports, one row per nuisance point."""
        w0 = np.exp(_log_pmf(self.k0[None, :], self.m0, q0[:, None]))
        w1 = np.exp(_log_pmf(self.k1[None, :], self.m1, q1[:, None]))
        return w0, w1

    def _tail_bound(self, pi: np.ndarray, q0: np.ndarray, q1: np.ndarray) -> np.ndarray:
        """:meth:`tail` with the Berry-Esseen upper bound of P(K >= c) (large n; module doc)."""
        from scipy.special import ndtr

        n = float(self.n)
        scale = 1.0 / np.sqrt(n * pi * (1.0 - pi))  # sigma > 768 at every point sent here
        # x = (n pi - c + 1) / sigma, built in place: one array of the full (points, k0, k1) size
        sf = np.subtract.outer(n * pi + 1.0, self._threshold_float)
        sf *= scale[:, None, None]
        # Phi(x) only where |x| < _NDTR_BAND; elsewhere 1 (x above: an upper bound) or 0 (x
        # below: Phi(x) < Phi(-band), added to every p-value); at large n few elements are near 0
        near = np.flatnonzero(np.abs(sf) < _NDTR_BAND)  # (ndtr's where= crashes scipy 1.17)
        values = ndtr(sf.flat[near])
        np.clip(sf, 0.0, 1.0, out=sf)  # 1 above the band, 0 below it
        sf.flat[near] = values
        w0, w1 = self._weights(q0, q1)
        extra = _BERRY_ESSEEN * (pi**2 + (1.0 - pi) ** 2) * scale + _NDTR_FLOOR
        return _weighted_sum(w0, sf, w1) + extra + self.slack

    def in_set(self, q0: np.ndarray, q1: np.ndarray) -> np.ndarray:
        """Membership of the nuisance confidence set: the product of the arms' p-values > c."""
        k0, m0, k1, m1 = self.calibration
        return _arm_p_value(k0, m0, q0) * _arm_p_value(k1, m1, q1) > self.fisher

    def _arc(self, arc: str, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Points of one boundary arc of the nuisance set, at parameters ``s``.

        ``"q0-low"`` / ``"q0-high"``: q0 = s and q1 on the lower / upper edge of the set's
        section at q0 (closed form by the Clopper-Pearson inversion); ``"q1-low"`` /
        ``"q1-high"`` the same with the arms' roles swapped; ``"line"``: q0 = s, q1 = 1 - s.
        Points that do not exist (the section is empty) are NaN.
        """
        k0, m0, k1, m1 = self.calibration
        if arc == "line":
            q0, q1 = s, 1.0 - s
            return np.where(self.in_set(q0, q1), q0, np.nan), q1
        (k_own, m_own), (k_other, m_other) = (
            ((k0, m0), (k1, m1)) if arc.startswith("q0") else ((k1, m1), (k0, m0))
        )
        p_own = _arm_p_value(k_own, m_own, s)
        with np.errstate(divide="ignore"):
            target = np.where(p_own > self.fisher, self.fisher / p_own, np.nan)
        edge = _p_value_ends(k_other, m_other, target)[0 if arc.endswith("low") else 1]
        return (s, edge) if arc.startswith("q0") else (edge, s)

    def sup(self, t: float, better_than_chance: bool) -> float:
        """Sup of the tail over the nuisance set, on judges with J >= 0 (or J <= 0).

        Evaluated on a grid over the set's bounding box, on its boundary arcs and on the line
        q0 + q1 = 1, then refined around the best point (along its arc, or in 2-D).
        """
        ranges = self._arc_ranges()
        q0, q1, label, param = self._candidates(ranges)
        keep = _usable(q0, q1, better_than_chance)
        if not keep.any():
            return -math.inf
        q0, q1, label, param = q0[keep], q1[keep], label[keep], param[keep]
        values = self.tail(t, q0, q1)
        best = int(np.argmax(values))
        if label[best] >= 0:  # refine along the arc
            arc = list(ranges)[label[best]]
            return self._refine_on_arc(
                t, arc, ranges[arc], float(param[best]), float(values[best]), better_than_chance
            )
        return self._refine_in_box(
            t, (float(q0[best]), float(q1[best])), float(values[best]), better_than_chance
        )

    def _arc_ranges(self) -> dict[str, tuple[float, float]]:
        """Parameter range of each boundary arc of the set, and of the line q0 + q1 = 1."""
        (lo0, hi0), (lo1, hi1) = self.box
        return {
            "q0-low": (lo0, hi0),
            "q0-high": (lo0, hi0),
            "q1-low": (lo1, hi1),
            "q1-high": (lo1, hi1),
            "line": (max(lo0, 1.0 - hi1), min(hi0, 1.0 - lo1)),
        }

    def _candidates(
        self, ranges: dict[str, tuple[float, float]]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Grid points inside the set and points on each arc: (q0, q1, arc index, arc parameter).

        Grid points have arc index -1 and parameter NaN.
        """
        (lo0, hi0), (lo1, hi1) = self.box
        g0, g1 = np.meshgrid(
            np.linspace(lo0, hi0, _COARSE), np.linspace(lo1, hi1, _COARSE), indexing="ij"
        )
        inside = self.in_set(g0.ravel(), g1.ravel())
        points = [(g0.ravel()[inside], g1.ravel()[inside])]
        labels = [np.full(int(inside.sum()), -1)]
        params = [np.full(int(inside.sum()), np.nan)]
        for i, (arc, (low, high)) in enumerate(ranges.items()):
            if low <= high:
                s = np.linspace(low, high, _ARC)
                points.append(self._arc(arc, s))
                labels.append(np.full(_ARC, i))
                params.append(s)
        q0 = np.concatenate([p[0] for p in points])
        q1 = np.concatenate([p[1] for p in points])
        return q0, q1, np.concatenate(labels), np.concatenate(params)

    def _refine_on_arc(
        self,
        t: float,
        arc: str,
        bounds: tuple[float, float],
        centre: float,
        best_value: float,
        better_than_chance: bool,
    ) -> float:
        """Zoom in around ``centre`` along ``arc``, keeping the largest tail seen."""
        low, high = bounds
        step = (high - low) / (_ARC - 1)
        for _ in range(_ROUNDS):
            s = np.clip(np.linspace(centre - step, centre + step, _FINE), low, high)
            a, b = self._arc(arc, s)
            ok = _usable(a, b, better_than_chance)
            if ok.any():
                local = self.tail(t, a[ok], b[ok])
                i = int(np.argmax(local))
                if local[i] > best_value:
                    best_value, centre = float(local[i]), float(s[ok][i])
            step *= 2.0 / (_FINE - 1)
        return best_value

    def _refine_in_box(
        self, t: float, centre: tuple[float, float], best_value: float, better_than_chance: bool
    ) -> float:
        """Zoom in around ``centre`` in 2-D (inside the set), keeping the largest tail seen."""
        (lo0, hi0), (lo1, hi1) = self.box
        c0, c1 = centre
        step0, step1 = (hi0 - lo0) / (_COARSE - 1), (hi1 - lo1) / (_COARSE - 1)
        for _ in range(_ROUNDS):
            f0, f1 = np.meshgrid(
                np.clip(np.linspace(c0 - step0, c0 + step0, _FINE), lo0, hi0),
                np.clip(np.linspace(c1 - step1, c1 + step1, _FINE), lo1, hi1),
                indexing="ij",
            )
            r0, r1 = f0.ravel(), f1.ravel()
            ok = _usable(r0, r1, better_than_chance) & self.in_set(r0, r1)
            if ok.any():
                local = self.tail(t, r0[ok], r1[ok])
                i = int(np.argmax(local))
                if local[i] > best_value:
                    best_value, c0, c1 = float(local[i]), float(r0[ok][i]), float(r1[ok][i])
            step0, step1 = step0 * 2.0 / (_FINE - 1), step1 * 2.0 / (_FINE - 1)
        return best_value


def _weighted_sum(w0: np.ndarray, sf: np.ndarray, w1: np.ndarray) -> np.ndarray:
    """Sum over i, j of w0[p, i] sf[p, i, j] w1[p, j] per p: a batched matrix product."""
    return (w0 * np.matmul(sf, w1[:, :, None])[:, :, 0]).sum(axis=1)


def _usable(a: np.ndarray, b: np.ndarray, better_than_chance: bool) -> np.ndarray:
    """Finite (q0, q1) pairs on the requested side of q0 + q1 = 1 (the side included)."""
    side = a + b >= 1.0 if better_than_chance else a + b <= 1.0
    return np.isfinite(a) & np.isfinite(b) & side


def _lower_end(k: int, n: int, k0: int, m0: int, k1: int, m1: int, level: float) -> float:
    """inf{t: P+(t) > threshold}, reported on the conservative (lower) side of the root."""
    test = _LowerTest(k, n, k0, m0, k1, m1, level)
    threshold = test.p_threshold
    if test.everything:
        return 0.0
    if test.sup(0.0, better_than_chance=False) > threshold:  # judges worse than chance
        return 0.0
    bottom = test.sup(0.0, better_than_chance=True)
    if bottom > threshold:
        return 0.0
    top = test.sup(1.0, better_than_chance=True)
    if top <= threshold:  # every t rejected
        return 1.0
    return _first_accepted(
        lambda t: test.sup(t, better_than_chance=True) - threshold,
        start=bottom - threshold,
        end=top - threshold,
    )


def _first_accepted(excess: Any, start: float, end: float) -> float:
    """Root of the increasing ``excess`` on [0, 1] (excess(0) = start <= 0 < end = excess(1)).

    Brent's method locates the root to ``_THETA_TOL / 4``; the value returned is then moved to
    the rejected side (excess <= 0), so the interval is never narrower than the exact one.
    """
    from scipy.optimize import brentq

    known = {0.0: start, 1.0: end}

    def cached(t: float) -> float:
        return known[t] if t in known else excess(t)

    root = brentq(cached, 0.0, 1.0, xtol=_THETA_TOL / 4.0, rtol=4 * np.finfo(float).eps)
    step = _THETA_TOL / 4.0
    candidate = max(0.0, root - step)
    while candidate > 0.0 and excess(candidate) > 0.0:
        step *= 2.0
        candidate = max(0.0, root - step)
    return candidate


def _settings(level: float) -> tuple[float, float, float]:
    """The constants of a level: (z, threshold, Fisher cut-off).

    z of the designating bound, the one-sided p-value threshold alpha/2 - gamma/2, and c with
    c (1 - log c) = gamma.
    """
    from scipy.special import ndtri

    alpha = 1.0 - level
    gamma = min(NUISANCE_GAMMA, alpha / 10.0)
    return float(ndtri(1.0 - alpha / 2.0)), alpha / 2.0 - gamma / 2.0, _fisher_cutoff(gamma)


def _accepted(t: float, k: int, n: int, k0: int, m0: int, k1: int, m1: int, level: float) -> bool:
    """Whether t is at or above the lower end (the test for the lower end accepts t)."""
    test = _LowerTest(k, n, k0, m0, k1, m1, level)
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
    low = _lower_end(k, n, k0, m0, k1, m1, level)
    # the upper end: the lower end of the mirrored data (accuracy 1 - theta, arms swapped)
    high = 1.0 - _lower_end(n - k, n, k1, m1, k0, m0, level)
    if high < low:  # both one-sided tests reject everything between: data of tiny probability
        low, high = high, low
    return ConfidenceInterval(low, high)
