"""The engine of the guaranteed interval: the p-value P+(t), a supremum of tail sums.

:class:`LowerTest` holds one dataset's ordering (its thresholds c(k0, k1)), its nuisance
confidence set and the test count's tail sums; :mod:`judgestats.guaranteed` inverts it (the
construction, the proof and the numerical bounds are in that module's docstring). Its
intervals contain those of the engine before issue 27 (``tests/test_guaranteed_speed.py``
compares them with a copy of it): the supremum is refined around two starts, not one. What
makes them cheaper:

* the test count's tail is evaluated once per distinct threshold and spread over the
  calibration outcomes (:meth:`LowerTest._distinct_tails`);
* the coarse nuisance points are the same at every t, and so are their calibration pmfs and,
  per dataset, the calibration mass of each distinct threshold; a coarse tail is first summed
  over distinct thresholds (equal to round-off) and only the points within a margin of the
  largest are summed exactly, as before, so the maximiser is unchanged;
* on judges better than chance each point's tail rises with t, so a tail already computed at
  a larger t bounds it; the starts' points are always summed, and points whose bound is below
  the starts' values are not (the p-value stays a function of t alone);
* the refinement's points of all starts are summed in one call per round, and each zoom's
  points and calibration masses are kept for the later t of the same test (:meth:`_zoom`);
* what datasets with the same calibration counts and n share (the nuisance set, its grid, the
  pmfs, the designating curves) is built once (:func:`_calibration`), and the log binomial
  coefficients of the test count once per n.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from judgestats._binomial import arm_p_value as _arm_p_value
from judgestats._binomial import arm_range
from judgestats._binomial import arm_set as _arm_set
from judgestats._binomial import fisher_cutoff as _fisher_cutoff
from judgestats._binomial import log_pmf as _log_pmf
from judgestats._binomial import p_value_ends as _p_value_ends
from judgestats._designating import Curves, designating_bound
from judgestats._guaranteed_blocks import Blocks

__all__ = ["NUISANCE_GAMMA", "WINDOW_MAX", "LowerTest", "settings"]

#: Miss probability of the confidence set for (q0, q1) in the Berger-Boos p-value.
NUISANCE_GAMMA = 1e-3
#: Calibration outcomes lighter than this in each arm are dropped; their mass (4 x this) is
#: added to every p-value.
_ARM_TAIL = 1e-10
#: Added to every p-value as well: a bound of its round-off at the threshold (module docstring of
#: :mod:`judgestats.guaranteed`).
_ROUND_OFF = 1e-9
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
#: Nuisance grid: points per side of the coarse grid, and of each refinement grid.
_COARSE, _ARC, _FINE, _ROUNDS = 9, 25, 9, 4
#: Coarse points (the largest tails) the supremum is refined around.
_STARTS = 2
#: Zooms (their points and calibration masses) a test keeps for its later suprema.
_ZOOMS_KEPT = 128
#: A zoom's usable points: q0, q1, their coordinates on the arc or in 2-D, their masses.
_Zoomed = tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]
#: Coarse points whose tail, summed by distinct threshold, is within this of the largest are
#: summed exactly as well, and points whose bound is this far below the starts' values are left
#: out (:meth:`LowerTest._coarse_tails`).
_PRUNE_MARGIN = 1e-9
#: Test sizes up to which the log binomial coefficients are tabulated once per dataset.
_LOG_CHOOSE_MAX = 2_000_000
#: Slack in units of k when comparing n * max h with an integer count (ties are included).
_TIE = 1e-7
#: The largest float below 2**63: counts computed in floating point are cut there before they
#: become int64, since a test size from 2**63 - 512 on (allowed: counts go to 2**63 - 1) rounds
#: to 2**63, whose cast wrapped to -2**63 and turned the interval into [0, 1].
_BELOW_2_63 = float(np.nextafter(2.0**63, 0.0))


def _as_counts(values: np.ndarray) -> np.ndarray:
    """Counts held as floats, as int64 (cut at :data:`_BELOW_2_63`, within their round-off)."""
    return np.minimum(values, _BELOW_2_63).astype(np.int64)


# ---------------------------------------------------------------------------------------------
# tail probabilities and their supremum over the nuisance set
# ---------------------------------------------------------------------------------------------
class LowerTest:
    """The p-value P+(t) of one dataset: sup over the nuisance set of P{D(X) >= D(x)}."""

    def __init__(self, k: int, n: int, k0: int, m0: int, k1: int, m1: int, level: float):
        shared = _calibration(n, k0, m0, k1, m1, level)
        z, self.p_threshold, self.fisher = shared.settings
        self.n = n
        self.box = shared.box
        self.calibration = (k0, m0, k1, m1)
        self.blocks = shared.blocks
        blocks0, blocks1 = shared.blocks
        middle0, middle1 = blocks0.middle_of(k0), blocks1.middle_of(k1)
        observed = Curves(np.array([middle0]), np.array([middle1]), m0, m1, n, z)
        bound = designating_bound(observed, k / n)
        self.guess = bound  # D(x): where the interval's end is searched from
        self.everything = bound == 0.0  # D(x) = 0: every outcome is as extreme
        top = shared.curves.max_on(min(bound, 1.0))
        threshold = np.ceil(n * top - max(_TIE, 8.0 * np.finfo(float).eps * n))
        i, j = blocks0.index(k0), blocks1.index(k1)
        if i is not None and j is not None:
            threshold[i, j] = min(threshold[i, j], k)  # the observed outcome is in its tail
        self.threshold = _as_counts(np.clip(threshold, 0, n + 1))
        # the tails are evaluated once per distinct threshold, then spread over (k0, k1)
        self._distinct, inverse = np.unique(self.threshold, return_inverse=True)
        self._inverse = inverse.ravel()
        self.slack = 4.0 * _ARM_TAIL + _ROUND_OFF
        # log C(n, n - i) at i: the coefficients of a row of counts going down are contiguous
        self._log_choose = _log_choose_down(n) if n <= _LOG_CHOOSE_MAX else None
        self._coarse, self._shared_weights = shared.coarse, shared.coarse_weights
        self._zooms: dict[tuple[object, ...], _Zoomed] = {}  # see _zoom
        self._seen: dict[float, np.ndarray] = {}  # coarse tails (better than chance) by t
        self._grouped: np.ndarray | None = None  # _grouped_weights at the coarse points
        self._coarse_weights: tuple[np.ndarray, np.ndarray] = (np.empty(0), np.empty(0))
        # round-off of a tail summed in two orders stays far below this (module docstring)
        self._margin = _PRUNE_MARGIN + 8.0 * np.finfo(float).eps * self.threshold.size

    def _test_log_pmf(self, counts: np.ndarray, pi: np.ndarray, top: np.ndarray) -> np.ndarray:
        """Log Bin(counts; n, pi) (pi a column) for rows of counts top, top - 1, ... .

        The log binomial coefficients are read from a table, a contiguous run per row;
        ``xlogy(c, pi) = c log(pi)`` and ``xlog1py(n - c, -pi) = (n - c) log1p(-pi)`` with the
        logarithms taken once per row; the rows with pi at 0 or 1 (0 log 0 = 0) use the
        elementwise functions.
        """
        if self._log_choose is None:
            return _log_pmf(counts, self.n, pi)
        from scipy.special import xlog1py, xlogy

        n, width = self.n, counts.shape[1]
        log_pi, log_rest = xlogy(1.0, pi), xlog1py(1.0, -pi)
        # row p: log C(n, top_p - j) = downwards[n - top_p + j], j = 0 .. width - 1
        down = self._log_choose  # rows of the (n + 2 - width, width) view overlap
        windows = np.ndarray((n + 2 - width, width), float, down, strides=2 * down.strides)
        out = windows[n - top.astype(np.int64)]
        work = counts * log_pi
        out += work
        np.subtract(n, counts, out=work)
        work *= log_rest
        out += work
        edge = np.flatnonzero((pi <= 0.0) | (pi >= 1.0))
        if edge.size:
            c, p = counts[edge], pi[edge]
            down = self._log_choose[n - c.astype(np.int64)]
            out[edge] = down + xlogy(c, p) + xlog1py(n - c, -p)
        return out

    def tail(
        self,
        t: float,
        q0: np.ndarray,
        q1: np.ndarray,
        weights: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> np.ndarray:
        """P_{t, q0, q1}{k >= c(k0, k1)} for every nuisance point (1-D arrays q0, q1).

        ``weights``: the points' calibration masses (:meth:`_weights`), where known.

        Summed over a window of the test count where it holds at most ``WINDOW_MAX`` counts;
        the Berry-Esseen upper bound for the other points (each point on its own: a point with
        pi near 0 or 1 has a small spread, where the bound would be loose).
        """
        n = self.n
        pi = np.minimum(np.maximum(t * q1 + (1.0 - t) * (1.0 - q0), 0.0), 1.0)
        half = np.ceil(_WINDOW_SD * np.sqrt(n * pi * (1.0 - pi)) + 12.0)
        summed = np.minimum(2 * half + 1, n + 1) <= WINDOW_MAX
        w0, w1 = self._weights(q0, q1) if weights is None else weights
        out = np.empty(pi.size)
        if summed.any():
            distinct, outside = self._distinct_tails(pi[summed], int(half[summed].max()))
            out[summed] = self._exact_sum(distinct, outside, w0[summed], w1[summed])
        if not summed.all():
            part = (pi[~summed], q0[~summed], q1[~summed])
            out[~summed] = self._tail_bound(*part, (w0[~summed], w1[~summed]))
        return out

    def _distinct_tails(self, pi: np.ndarray, half: int) -> tuple[np.ndarray, np.ndarray]:
        """P(K >= c) at each distinct threshold c (points x c), and the mass outside the window.

        The window holds 2 half + 1 counts around n pi; below it the tail is 1, above it 0.
        """
        n = self.n
        width = min(2 * half + 1, n + 1)
        start = np.minimum(np.maximum(np.floor(n * pi) - half, 0.0), n + 1 - width)
        top = start + (width - 1)
        counts = top[:, None] - np.arange(width)[None, :]  # downwards
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            pmf = self._test_log_pmf(counts, pi[:, None], top)
            np.exp(pmf, out=pmf)
        # columns: 0 (counts above the window), P(K >= start + width - j) in the window, 1 below
        table = np.empty((pi.size, width + 2))
        table[:, 0], table[:, -1] = 0.0, 1.0
        np.cumsum(pmf, axis=1, out=table[:, 1:-1])
        index = (width - 1) - self._distinct[None, :] + _as_counts(start)[:, None]
        np.clip(index, -1, width, out=index)
        index += (np.arange(pi.size) * (width + 2) + 1)[:, None]
        # the test count's mass outside the window (set to 0 above it) is added back
        outside = np.maximum(1.0 - pmf[:, ::-1].sum(axis=1), 0.0)
        return np.take(table.ravel(), index), outside

    def _exact_sum(
        self,
        distinct: np.ndarray,
        added: np.ndarray,
        w0: np.ndarray,
        w1: np.ndarray,
        bound: bool = False,
    ) -> np.ndarray:
        """The tails: sum over the calibration outcomes of w0 P(K >= c(k0, k1)) w1, + slack.

        ``added``: the mass outside the window, or (``bound``) the Berry-Esseen term.
        """
        sf = np.take(distinct, self._inverse, axis=1).reshape(len(w0), *self.threshold.shape)
        if bound:
            return _weighted_sum(w0, sf, w1) + added + self.slack
        return _weighted_sum(w0, sf, w1) + self.slack + added

    def _grouped_sum(
        self, distinct: np.ndarray, outside: np.ndarray, grouped: np.ndarray
    ) -> np.ndarray:
        """:meth:`_exact_sum` regrouped by distinct threshold: equal up to round-off.

        ``grouped[p, u]`` is the calibration mass of the outcomes whose threshold is the u-th
        distinct one (:meth:`_grouped_weights`); the sum has U terms instead of K0 K1.
        """
        return np.einsum("pu,pu->p", distinct, grouped) + self.slack + outside

    def _grouped_weights(self, w0: np.ndarray, w1: np.ndarray) -> np.ndarray:
        """Calibration mass of each distinct threshold at each point (points x distinct)."""
        order = np.argsort(self._inverse, kind="stable")
        starts = np.flatnonzero(np.r_[True, np.diff(self._inverse[order]) != 0])
        joint = (w0[:, :, None] * w1[:, None, :]).reshape(len(w0), -1)
        return np.add.reduceat(joint[:, order], starts, axis=1)

    def _weights(self, q0: np.ndarray, q1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Calibration masses of the arms' blocks, one row per nuisance point."""
        return self.blocks[0].masses(q0), self.blocks[1].masses(q1)

    def _tail_bound(
        self,
        pi: np.ndarray,
        q0: np.ndarray,
        q1: np.ndarray,
        weights: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> np.ndarray:
        """:meth:`tail` with the Berry-Esseen upper bound of P(K >= c) (large n; module doc)."""
        w0, w1 = self._weights(q0, q1) if weights is None else weights
        return self._exact_sum(*self._distinct_bound(pi), w0, w1, bound=True)

    def _distinct_bound(self, pi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The Berry-Esseen bound of P(K >= c) at each distinct threshold, and its added term."""
        from scipy.special import ndtr

        n = float(self.n)
        scale = 1.0 / np.sqrt(n * pi * (1.0 - pi))  # sigma > 768 at every point sent here
        # x = (n pi - c + 1) / sigma at each distinct threshold c, built in place
        sf = np.subtract.outer(n * pi + 1.0, self._distinct.astype(float))
        sf *= scale[:, None]
        # Phi(x) only where |x| < _NDTR_BAND; elsewhere 1 (x above: an upper bound) or 0 (x
        # below: Phi(x) < Phi(-band), added to every p-value); at large n few elements are near 0
        near = np.flatnonzero(np.abs(sf) < _NDTR_BAND)  # (ndtr's where= crashes scipy 1.17)
        values = ndtr(sf.flat[near])
        np.clip(sf, 0.0, 1.0, out=sf)  # 1 above the band, 0 below it
        sf.flat[near] = values
        return sf, _BERRY_ESSEEN * (pi**2 + (1.0 - pi) ** 2) * scale + _NDTR_FLOOR

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
        q0 + q1 = 1, then refined around each of the :data:`_STARTS` best points (along its
        arc, or in 2-D): around the best alone the refinement can stay in the wrong basin.
        """
        ranges = self._arc_ranges()
        if better_than_chance not in self._coarse:  # the same points at every t
            q0, q1, label, param = self._candidates(ranges)
            keep = _usable(q0, q1, better_than_chance)
            self._coarse[better_than_chance] = (q0[keep], q1[keep], label[keep], param[keep])
        q0, q1, label, param = self._coarse[better_than_chance]
        if not q0.size:
            return -math.inf
        values = self._coarse_tails(t, q0, q1, better_than_chance)
        starts = []  # along an arc, or in 2-D
        (lo0, hi0), (lo1, hi1) = self.box
        for i in np.argsort(values)[::-1][:_STARTS]:  # several basins, not only the best
            if label[i] >= 0:
                arc = list(ranges)[label[i]]
                step = (ranges[arc][1] - ranges[arc][0]) / (_ARC - 1)
                starts.append(_Start(arc, (float(param[i]),), (step,), float(values[i])))
            else:
                steps = ((hi0 - lo0) / (_COARSE - 1), (hi1 - lo1) / (_COARSE - 1))
                centre = (float(q0[i]), float(q1[i]))
                starts.append(_Start(None, centre, steps, float(values[i])))
        return max(float(values.max()), self._refine(t, starts, ranges, better_than_chance))

    def _coarse_tails(
        self, t: float, q0: np.ndarray, q1: np.ndarray, better_than_chance: bool
    ) -> np.ndarray:
        """:meth:`tail` at the coarse points, where it can be their largest value.

        On judges better than chance each point's tail summed over the window rises with t (pi
        does), so its tail at the nearest t' >= t seen before bounds it (a Berry-Esseen bound
        at t' too: it bounds the exact tail). The :data:`_STARTS` points with the largest bounds
        are summed first; points whose bound is below the smallest of their values (less
        ``self._margin``, far above the round-off of a tail) cannot be among the
        :data:`_STARTS` largest, and keep their bound (which stays a bound at every smaller t).
        The others are summed by :meth:`_coarse_sums`, each with the window it would get among
        all the points, so the largest values, and the starts of the refinement, are those of
        :meth:`tail` at every point, whatever t the test saw before: the p-value is a function
        of t alone (with the single best point first, a point left with its bound could be
        taken as a start, and the p-value depended on the order of the t tried).
        """
        pi = np.minimum(np.maximum(t * q1 + (1.0 - t) * (1.0 - q0), 0.0), 1.0)
        if not better_than_chance:  # one supremum per test: nothing to share
            return self.tail(t, q0, q1)
        half = np.ceil(_WINDOW_SD * np.sqrt(self.n * pi * (1.0 - pi)) + 12.0)
        summed = np.minimum(2 * half + 1, self.n + 1) <= WINDOW_MAX
        width = int(half[summed].max()) if summed.any() else 0
        if self._grouped is None:  # the calibration pmfs are the same for every dataset
            if not self._shared_weights:
                self._shared_weights[True] = self._weights(q0, q1)
            self._coarse_weights = self._shared_weights[True]
            self._grouped = self._grouped_weights(*self._coarse_weights)
        grouped = self._grouped
        # a tail summed over the window rises with t; the Berry-Esseen bound need not
        above = [seen for seen in self._seen if seen >= t] if summed.all() else []
        values = self._seen[min(above)].copy() if above else np.full(q0.size, np.inf)
        if above:  # leave out the points whose bound is below a value reached at t
            seeds = np.argsort(values)[::-1][:_STARTS]
            reached = self._coarse_sums(pi, seeds, width, summed, grouped, exact=False)
            rows = np.flatnonzero(values >= reached.min() - self._margin)
        else:
            rows = np.arange(q0.size)
        values[rows] = self._coarse_sums(pi, rows, width, summed, grouped)
        self._seen[t] = values
        return values

    def _coarse_sums(
        self,
        pi: np.ndarray,
        rows: np.ndarray,
        width: int,
        summed: np.ndarray,
        grouped: np.ndarray,
        exact: bool = True,
    ) -> np.ndarray:
        """Tails at some coarse points: summed by distinct threshold, then exactly near the top.

        The sums by distinct threshold equal the exact ones (:meth:`tail`) to round-off, far
        below ``self._margin``; only the points within the margin of the largest can be the
        maximiser, and only they are summed exactly (the same numbers as :meth:`tail`), unless
        ``exact`` is False.
        """
        w0, w1 = self._coarse_weights
        out = np.empty(rows.size)
        parts = []
        for window in (True, False):
            mine = np.flatnonzero(summed[rows] == window)
            if mine.size:
                points = rows[mine]
                if window:
                    distinct, added = self._distinct_tails(pi[points], width)
                else:
                    distinct, added = self._distinct_bound(pi[points])
                out[mine] = self._grouped_sum(distinct, added, grouped[points])
                parts.append((window, mine, distinct, added))
        if not exact:
            return out
        top = out.max() - self._margin
        for window, mine, distinct, added in parts:
            near = np.flatnonzero(out[mine] >= top)
            points = rows[mine[near]]
            sums = (distinct[near], added[near], w0[points], w1[points])
            out[mine[near]] = self._exact_sum(*sums, bound=not window)
        return out

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

    def _refine(
        self,
        t: float,
        starts: list[_Start],
        ranges: dict[str, tuple[float, float]],
        better_than_chance: bool,
    ) -> float:
        """Zoom in around every start at once, keeping the largest tail seen by each.

        A start on an arc takes :data:`_FINE` points around its parameter, one in the box
        :data:`_FINE` x :data:`_FINE` points around its centre (those inside the set); each
        round the steps shrink by 2 / (_FINE - 1), and moves to its best point if that beats
        its value. The points of all starts are summed in one :meth:`tail` call per round.
        """
        for _ in range(_ROUNDS):
            parts = [self._zoom(start, ranges, better_than_chance) for start in starts]
            sizes = [part[0].size for part in parts]
            if sum(sizes):
                q0, q1 = (np.concatenate([part[j] for part in parts]) for j in (0, 1))
                w0, w1 = (np.concatenate([part[3][j] for part in parts]) for j in (0, 1))
                local = np.split(self.tail(t, q0, q1, (w0, w1)), np.cumsum(sizes)[:-1])
                for start, part, values in zip(starts, parts, local, strict=True):
                    if values.size and values.max() > start.value:
                        i = int(np.argmax(values))
                        start.centre, start.value = tuple(part[2][i]), float(values[i])
            for start in starts:
                start.steps = tuple(step * 2.0 / (_FINE - 1) for step in start.steps)
        return max(start.value for start in starts)

    def _zoom(
        self,
        start: _Start,
        ranges: dict[str, tuple[float, float]],
        better_than_chance: bool,
    ) -> _Zoomed:
        """The usable points of one zoom: (q0, q1, their coordinates, their calibration masses).

        Kept for the test's later suprema (the maximiser often stays put as t moves), at most
        :data:`_ZOOMS_KEPT` of them.
        """
        arc, centre, steps = start.arc, start.centre, start.steps
        key = (arc, centre, steps, better_than_chance)
        if key not in self._zooms:
            if arc is not None:  # along the arc: coordinate s
                low, high = ranges[arc]
                s = np.clip(
                    np.linspace(centre[0] - steps[0], centre[0] + steps[0], _FINE), low, high
                )
                a, b = self._arc(arc, s)
                ok = _usable(a, b, better_than_chance)
                coords = s[ok][:, None]
            else:  # in 2-D, inside the set
                axes = [
                    np.clip(np.linspace(c - step, c + step, _FINE), *bounds)
                    for c, step, bounds in zip(centre, steps, self.box, strict=True)
                ]
                a, b = (grid.ravel() for grid in np.meshgrid(*axes, indexing="ij"))
                ok = _usable(a, b, better_than_chance) & self.in_set(a, b)
                coords = np.stack([a[ok], b[ok]], axis=1)
            if len(self._zooms) >= _ZOOMS_KEPT:
                self._zooms.clear()
            self._zooms[key] = (a[ok], b[ok], coords, self._weights(a[ok], b[ok]))
        return self._zooms[key]


@dataclasses.dataclass
class _Start:
    """A refinement of the supremum: on an arc (its parameter) or in 2-D (q0, q1), and its best."""

    arc: str | None
    centre: tuple[float, ...]
    steps: tuple[float, ...]
    value: float


class _Calibration:
    """What the tests of all datasets with the same calibration counts and n share.

    The level's constants, the nuisance set's bounding box, the arms' blocks of outcomes (each
    arm's support cut into the fixed blocks of :mod:`judgestats._guaranteed_blocks`), the
    curves h of the designating statistic at the blocks' mid-points, and (filled by the first
    test that needs them) the coarse nuisance points and their calibration masses, for each
    side of q0 + q1 = 1.
    """

    def __init__(self, n: int, k0: int, m0: int, k1: int, m1: int, level: float):
        self.settings = settings(level)
        z, _, fisher = self.settings
        self.box = (_arm_set(k0, m0, 1.0 - fisher), _arm_set(k1, m1, 1.0 - fisher))
        self.blocks = (
            Blocks(m0, arm_range(m0, *self.box[0], _ARM_TAIL)),
            Blocks(m1, arm_range(m1, *self.box[1], _ARM_TAIL)),
        )
        grid0, grid1 = np.meshgrid(self.blocks[0].middle, self.blocks[1].middle, indexing="ij")
        self.curves = Curves(grid0, grid1, m0, m1, n, z)
        self.coarse: dict[bool, tuple[np.ndarray, ...]] = {}
        self.coarse_weights: dict[bool, tuple[np.ndarray, np.ndarray]] = {}


@functools.lru_cache(maxsize=32)
def _calibration(n: int, k0: int, m0: int, k1: int, m1: int, level: float) -> _Calibration:
    """The shared part of a test, kept for the last few calibrations (coverage studies)."""
    return _Calibration(n, k0, m0, k1, m1, level)


@functools.lru_cache(maxsize=4)
def _log_choose_down(n: int) -> np.ndarray:
    """Log binomial coefficients log C(n, n - i) for i = 0..n, read-only.

    The tables of the last few test sizes are kept (at most 16 MB each): both ends of an
    interval, and the datasets of a coverage study, share them.
    """
    from scipy.special import gammaln

    counts = np.arange(n + 1, dtype=float)
    table = gammaln(n + 1.0) - gammaln(counts + 1.0) - gammaln(n - counts + 1.0)
    down = np.ascontiguousarray(table[::-1])
    down.flags.writeable = False
    return down


def _weighted_sum(w0: np.ndarray, sf: np.ndarray, w1: np.ndarray) -> np.ndarray:
    """Sum over i, j of w0[p, i] sf[p, i, j] w1[p, j] per p: a batched matrix product."""
    return (w0 * np.matmul(sf, w1[:, :, None])[:, :, 0]).sum(axis=1)


def _usable(a: np.ndarray, b: np.ndarray, better_than_chance: bool) -> np.ndarray:
    """Finite (q0, q1) pairs on the requested side of q0 + q1 = 1 (the side included)."""
    side = a + b >= 1.0 if better_than_chance else a + b <= 1.0
    return np.isfinite(a) & np.isfinite(b) & side


def settings(level: float) -> tuple[float, float, float]:
    """The constants of a level: (z, threshold, Fisher cut-off).

    z of the designating bound, the one-sided p-value threshold alpha/2 - gamma/2, and c with
    c (1 - log c) = gamma.
    """
    from scipy.special import ndtri

    alpha = 1.0 - level
    gamma = min(NUISANCE_GAMMA, alpha / 10.0)
    return float(ndtri(1.0 - alpha / 2.0)), alpha / 2.0 - gamma / 2.0, _fisher_cutoff(gamma)
