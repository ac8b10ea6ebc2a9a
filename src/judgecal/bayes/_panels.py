r"""Densities on [0, 1] as piecewise Legendre series: CDF, density, quantiles, shortest intervals.

A density known at Gauss nodes of consecutive panels is replaced, on each panel, by its
interpolating polynomial written as a Legendre series in the panel coordinate ``u`` in [-1, 1],

.. math:: f(t) = \sum_{l < N} c_l P_l(u), \qquad
          \int_{-1}^{u} P_l = \frac{P_{l+1}(u) - P_{l-1}(u)}{2l + 1}\ (l \ge 1),

so the CDF and the density are polynomial evaluations and quantiles are found by a bracketed
Newton iteration. A panel that ends where the density is unbounded -- a factor ``(t - e)^(a-1)``
with ``a < 1`` at the end ``e`` -- holds the smooth part ``g`` only; its mass and CDF are
``|x - e|^a * sum_i W_i g(e + |x - e| v_i)`` with the Gauss-Jacobi rule ``(v_i, W_i)`` of the
weight ``v^(a-1)`` on [0, 1], exact for a polynomial ``g``.

Everything is vectorised over rows (independent densities); panels may have unequal widths.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import special as sc

__all__ = ["PanelDensity", "gauss_legendre", "legendre_table", "shortest_interval",
           "to_coefficients"]

#: Newton iterations and the tolerance (in the variable) of every quantile search.
QUANTILE_ITERATIONS = 100
QUANTILE_TOLERANCE = 1e-12
#: Probabilities on the coarse grid that brackets the shortest interval.
SHORTEST_GRID = 64
#: Golden-section steps that shrink a grid cell (width <= 2 / SHORTEST_GRID) below 1e-9.
GOLDEN_ITERATIONS = 32


@functools.lru_cache(maxsize=16)
def gauss_legendre(order: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on [-1, 1] (cached, read-only)."""
    x, w = np.polynomial.legendre.leggauss(order)
    x.flags.writeable = False
    w.flags.writeable = False
    return x, w


def legendre_table(x: np.ndarray, degree: int) -> np.ndarray:
    """``P_0(x), ..., P_degree(x)`` stacked on a new last axis (three-term recurrence)."""
    out = np.empty(np.shape(x) + (degree + 1,))
    out[..., 0] = 1.0
    if degree >= 1:
        out[..., 1] = x
    for j in range(1, degree):
        out[..., j + 1] = ((2 * j + 1) * x * out[..., j] - j * out[..., j - 1]) / (j + 1)
    return out


@functools.lru_cache(maxsize=16)
def _gauss_to_coefficients(order: int) -> np.ndarray:
    """Matrix taking values at the Gauss-Legendre nodes to Legendre coefficients."""
    x, w = gauss_legendre(order)
    scale = (2 * np.arange(order) + 1) / 2
    out = scale[:, None] * (w[None, :] * legendre_table(x, order - 1).T)
    out.flags.writeable = False
    return out


@functools.lru_cache(maxsize=64)
def jacobi_rule(order: int, power: float) -> tuple[np.ndarray, np.ndarray]:
    """Nodes ``v`` and weights ``W`` on [0, 1] for the weight ``v^(power - 1)`` (cached)."""
    x, w = sc.roots_jacobi(order, 0.0, power - 1.0)
    v, weights = (x + 1) / 2, w / 2.0**power
    v.flags.writeable = False
    weights.flags.writeable = False
    return v, weights


@functools.lru_cache(maxsize=64)
def _jacobi_to_coefficients(order: int, power: float, at_low_end: bool) -> np.ndarray:
    """Matrix taking values at the Jacobi nodes of an end panel to Legendre coefficients."""
    v = jacobi_rule(order, power)[0]
    u = 2 * v - 1 if at_low_end else 1 - 2 * v
    out = np.linalg.inv(legendre_table(u, order - 1))
    out.flags.writeable = False
    return out


def to_coefficients(values: np.ndarray) -> np.ndarray:
    """Legendre coefficients of the interpolant through values at Gauss-Legendre nodes."""
    return values @ _gauss_to_coefficients(values.shape[-1]).T


def end_nodes(order: int, power: float, at_low_end: bool) -> np.ndarray:
    """Panel coordinates ``u`` in [-1, 1] of the Jacobi nodes of a singular end panel."""
    v = jacobi_rule(order, power)[0]
    return 2 * v - 1 if at_low_end else 1 - 2 * v


def _series_integral(coef: np.ndarray, u: np.ndarray) -> np.ndarray:
    """``int_{-1}^{u} sum_l c_l P_l`` for coefficients (..., N) and points u (...)."""
    order = coef.shape[-1]
    table = legendre_table(u, order)
    integral = (table[..., 2:] - table[..., :-2]) / (2 * np.arange(1, order) + 1)
    return coef[..., 0] * (u + 1) + np.einsum("...l,...l->...", coef[..., 1:], integral)


def _series_value(coef: np.ndarray, u: np.ndarray) -> np.ndarray:
    return np.einsum("...l,...l->...", coef, legendre_table(u, coef.shape[-1] - 1))


class PanelDensity:
    """Rows of densities on consecutive panels, each a Legendre series of N terms.

    Parameters
    ----------
    edges : numpy.ndarray
        Panel edges, shape (R, P + 1), increasing along each row.
    coef : numpy.ndarray
        Legendre coefficients of the density (or of its smooth part on a singular end panel),
        shape (R, P, N); need not be normalised.
    power_low, power_high : numpy.ndarray, optional
        Per row, the exponent ``a`` of the factor ``(t - e)^(a - 1)`` on the first panel (and
        ``(e - t)^(b - 1)`` on the last); 1 means a regular panel.
    """

    def __init__(self, edges: np.ndarray, coef: np.ndarray,
                 power_low: np.ndarray | None = None,
                 power_high: np.ndarray | None = None) -> None:
        rows = edges.shape[0]
        self.edges = edges
        self.half = np.diff(edges, axis=1) / 2                        # (R, P)
        self.power = (np.ones(rows) if power_low is None else power_low,
                      np.ones(rows) if power_high is None else power_high)
        self.coef = coef
        mass = 2 * self.half * coef[..., 0]
        for side in (0, 1):
            mass[:, -side] = np.where(self.power[side] != 1.0,
                                      self._end_partial(side, 2 * self.half[:, -side], None),
                                      mass[:, -side])
        mass = np.maximum(mass, 0.0)
        self.norm = mass.sum(axis=1)
        self.coef = coef / self.norm[:, None, None]
        self.cum = np.concatenate([np.zeros((rows, 1)), np.cumsum(mass, axis=1)],
                                  axis=1) / self.norm[:, None]

    @property
    def support(self) -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper end of every row's support."""
        return self.edges[:, 0], self.edges[:, -1]

    def _end_partial(self, side: int, distance: np.ndarray, rows: np.ndarray | None
                     ) -> np.ndarray:
        """Mass between a singular end and ``distance`` from it (unnormalised coefficients)."""
        out = np.zeros(np.shape(distance))
        powers = self.power[side] if rows is None else self.power[side][rows]
        coef = self.coef[:, -side] if rows is None else self.coef[rows, -side]
        half = self.half[:, -side] if rows is None else self.half[rows, -side]
        for power in np.unique(powers[powers != 1.0]):
            hit = powers == power
            v, w = jacobi_rule(self.coef.shape[-1], float(power))
            r = np.clip(distance[hit], 0.0, None)
            u = r[:, None] * v[None, :] / half[hit][:, None] - 1
            u = u if side == 0 else -u
            g = np.einsum("rl,ril->ri", coef[hit], legendre_table(u, coef.shape[-1] - 1))
            out[hit] = r**power * (g @ w)
        return out

    def cdf_pdf(self, t: np.ndarray, rows: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
        """CDF and density at points ``t`` of shape (R, Q) (``rows`` selects R rows)."""
        sel = slice(None) if rows is None else rows
        edges, half = self.edges[sel], self.half[sel]
        t = np.asarray(t, float)
        count = half.shape[1]
        panel = np.clip((t[:, :, None] >= edges[:, None, 1:-1]).sum(axis=2), 0, count - 1)
        left = np.take_along_axis(edges, panel, axis=1)
        width = np.take_along_axis(half, panel, axis=1)
        u = np.clip((t - left) / width - 1, -1.0, 1.0)
        coef = np.take_along_axis(self.coef[sel], panel[..., None], axis=1)   # (R, Q, N)
        pdf = _series_value(coef, u)
        cdf = np.take_along_axis(self.cum[sel], panel, axis=1) + width * _series_integral(coef, u)
        for side in (0, 1):
            self._fix_end(side, sel, t, panel, cdf, pdf)
        low, high = edges[:, :1], edges[:, -1:]
        below, above = t <= low, t >= high
        cdf = np.where(below, 0.0, np.where(above, 1.0, np.clip(cdf, 0.0, 1.0)))
        pdf = np.where(below | above, 0.0, np.maximum(pdf, 0.0))
        return cdf, pdf

    def _fix_end(self, side: int, sel: slice | np.ndarray, t: np.ndarray, panel: np.ndarray,
                 cdf: np.ndarray, pdf: np.ndarray) -> None:
        """CDF and density inside a singular end panel (in place)."""
        powers = self.power[side][sel]
        last = self.half.shape[1] - 1
        hit = (powers != 1.0)[:, None] & (panel == (0 if side == 0 else last))
        if not hit.any():
            return
        rows = np.broadcast_to(np.arange(self.edges.shape[0])[sel][:, None], t.shape)[hit]
        end = self.edges[rows, 0] if side == 0 else self.edges[rows, -1]
        r = np.abs(t[hit] - end)
        part = self._end_partial(side, r, rows)
        cdf[hit] = part if side == 0 else 1.0 - part
        power = self.power[side][rows]
        with np.errstate(divide="ignore", invalid="ignore"):
            pdf[hit] = pdf[hit] * r ** (power - 1)

    def mean_sd(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard deviation per row (Gauss rule with 2N nodes per panel)."""
        order = self.coef.shape[-1]
        x, w = gauss_legendre(order + 2)
        t = self.edges[:, :-1, None] + self.half[:, :, None] * (x + 1)       # (R, P, M)
        dens = np.einsum("rpl,rpml->rpm", self.coef, np.broadcast_to(
            legendre_table(x, order - 1), t.shape + (order,)))
        weight = self.half[:, :, None] * w * dens
        moments = []
        for j in (0, 1, 2):
            total = np.sum(weight * t**j, axis=(1, 2))
            for side in (0, 1):
                total = total + self._end_moment(side, j, weight[:, -side], t[:, -side])
            moments.append(total)
        mean = moments[1] / moments[0]
        return mean, np.sqrt(np.maximum(moments[2] / moments[0] - mean**2, 0.0))

    def _end_moment(self, side: int, j: int, weight: np.ndarray, t: np.ndarray) -> np.ndarray:
        """Correction of moment ``j`` for a singular end panel (Jacobi rule replaces Gauss)."""
        out = np.zeros(self.edges.shape[0])
        powers = self.power[side]
        for power in np.unique(powers[powers != 1.0]):
            hit = powers == power
            order = self.coef.shape[-1]
            v, w = jacobi_rule(order, float(power))
            h = 2 * self.half[hit, -side]
            u = 2 * v - 1 if side == 0 else 1 - 2 * v
            g = self.coef[hit, -side] @ legendre_table(u, order - 1).T             # (E, N)
            end = self.edges[hit, 0] if side == 0 else self.edges[hit, -1]
            nodes = end[:, None] + (h[:, None] * v if side == 0 else -h[:, None] * v)
            exact = h**power * ((g * nodes**j) @ w)
            out[hit] = exact - np.sum(weight[hit] * t[hit] ** j, axis=1)
        return out

    def quantile(self, levels: np.ndarray, start: np.ndarray | None = None,
                 rows: np.ndarray | None = None) -> np.ndarray:
        """Solve ``F(t) = level`` for levels of shape (R, Q) (bracketed Newton)."""
        sel = slice(None) if rows is None else rows
        low, high = self.edges[sel][:, :1], self.edges[sel][:, -1:]
        levels = np.asarray(levels, float)
        edge = (levels <= 0) | (levels >= 1)          # the support's ends: no search needed
        inner = np.where(edge, 0.5, levels)
        if start is None:
            start = self._start(inner, sel)
        out = solve_cdf(lambda t: self.cdf_pdf(t, rows), inner, start,
                        np.broadcast_to(low, levels.shape), np.broadcast_to(high, levels.shape))
        return np.where(levels <= 0, low, np.where(levels >= 1, high, out))

    def _start(self, levels: np.ndarray, sel: slice | np.ndarray) -> np.ndarray:
        """Starting points: linear interpolation of the CDF between panel edges."""
        edges, cum = self.edges[sel], self.cum[sel]
        index = np.clip((levels[:, :, None] > cum[:, None, 1:]).sum(axis=2), 0,
                        edges.shape[1] - 2)
        c0 = np.take_along_axis(cum, index, axis=1)
        c1 = np.take_along_axis(cum, index + 1, axis=1)
        e0 = np.take_along_axis(edges, index, axis=1)
        e1 = np.take_along_axis(edges, index + 1, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            frac = np.where(c1 > c0, (levels - c0) / (c1 - c0), 0.5)
        return e0 + np.clip(frac, 0.0, 1.0) * (e1 - e0)


def solve_cdf(cdf_pdf, levels: np.ndarray, start: np.ndarray, low: np.ndarray,
              high: np.ndarray) -> np.ndarray:
    """Solve ``F(t) = level`` elementwise by Newton's method kept inside a shrinking bracket.

    An element stops moving once its step or its bracket is below ``QUANTILE_TOLERANCE``.
    """
    left, right = np.array(low, float), np.array(high, float)
    t = np.clip(np.array(start, float), left, right)
    done = np.zeros(t.shape, bool)
    for _ in range(QUANTILE_ITERATIONS):
        value, slope = cdf_pdf(t)
        err = value - levels
        left = np.where(err <= 0, t, left)
        right = np.where(err > 0, t, right)
        with np.errstate(all="ignore"):
            step = t - err / slope
        inside = np.isfinite(step) & (step >= left) & (step <= right)
        new = np.where(inside, step, 0.5 * (left + right))
        done |= (np.abs(new - t) <= QUANTILE_TOLERANCE) | (right - left <= QUANTILE_TOLERANCE)
        done |= err == 0
        t = np.where(done, t, new)
        if done.all():
            break
    return t


def shortest_interval(quantile, density, rows: int, prob: float, *,
                      grid: int = SHORTEST_GRID) -> tuple[np.ndarray, np.ndarray]:
    """Shortest interval of mass ``prob`` for ``rows`` distributions.

    ``quantile(levels)`` maps probabilities of shape (rows, Q) to quantiles and ``density(t)``
    gives the density there. The width ``w(a) = Q(a + prob) - Q(a)`` is evaluated on a grid of
    ``a`` in [0, 1 - prob], ends included, so the global minimum is bracketed even when the
    density has several modes or is unbounded at a bound of the support (where the shortest
    interval may or may not touch that bound). Inside the best grid cell the minimum solves
    ``w'(a) = 1 / f(Q(a + prob)) - 1 / f(Q(a)) = 0``, i.e. equal densities at both ends, found by
    Illinois false position; when the sign does not change in that cell the minimum is at a grid
    end and is refined by golden-section search on ``w`` itself.
    """
    span = 1.0 - prob
    a = np.linspace(0.0, span, grid + 1)
    levels = np.broadcast_to(np.concatenate([a, a + prob]), (rows, 2 * grid + 2))
    q = quantile(levels)
    width = q[:, grid + 1:] - q[:, :grid + 1]
    best = np.argmin(width, axis=1)
    lo_i, hi_i = np.maximum(best - 1, 0), np.minimum(best + 1, grid)
    lo, hi = a[lo_i], a[hi_i]

    def gap(x: np.ndarray, guess: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        ends = quantile(np.stack([x, x + prob], axis=1))
        dens = density(ends)
        return dens[:, 0] - dens[:, 1], ends    # < 0 left of the minimum, > 0 right

    g_lo, _ = gap(lo)
    g_hi, _ = gap(hi)
    bracketed = (g_lo < 0) & (g_hi > 0)
    # minimum at an end of [0, 1 - prob]: the interval touches a bound of the support
    at_start = ~bracketed & (best == 0) & (g_lo >= 0)
    at_end = ~bracketed & (best == grid) & (g_hi <= 0)
    settled = bracketed | at_start | at_end
    side = np.zeros(rows)
    previous = np.full(rows, np.inf)
    x = 0.5 * (lo + hi)
    for _ in range(60):
        with np.errstate(all="ignore"):
            x = lo - g_lo * (hi - lo) / (g_hi - g_lo)
        bad = ~np.isfinite(x) | (x <= lo) | (x >= hi)
        x = np.where(bad, 0.5 * (lo + hi), x)
        g_x, _ = gap(x)
        pos = g_x > 0
        hi, g_hi = np.where(pos, x, hi), np.where(pos, g_x, g_hi)
        lo, g_lo = np.where(pos, lo, x), np.where(pos, g_lo, g_x)
        side = np.where(pos, np.minimum(side, 0) - 1, np.maximum(side, 0) + 1)
        g_lo = np.where(side >= 2, g_lo / 2, g_lo)   # Illinois: halve the stale end's value
        g_hi = np.where(side <= -2, g_hi / 2, g_hi)
        if np.all(~bracketed | (hi - lo < 1e-12) | (np.abs(g_x) == 0)
                  | (np.abs(x - previous) < 1e-12)):
            break
        previous = x
    refined = x
    # no sign change in the best cell: minimise the width itself (golden section)
    lo, hi = a[lo_i], a[hi_i]
    ratio = (np.sqrt(5.0) - 1) / 2
    todo = np.flatnonzero(~settled)
    for _ in range(GOLDEN_ITERATIONS if todo.size else 0):
        c, d = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        ends = quantile(np.stack([c, c + prob, d, d + prob], axis=1))
        left = (ends[:, 1] - ends[:, 0]) <= (ends[:, 3] - ends[:, 2])
        hi, lo = np.where(left, d, hi), np.where(left, lo, c)
    choice = np.where(bracketed, refined, 0.5 * (lo + hi))
    choice = np.where(at_start, 0.0, np.where(at_end, span, choice))
    # compare with the grid's best point (an end of [0, 1 - prob] included)
    candidates = np.stack([choice, a[best]], axis=1)
    ends = quantile(np.concatenate([candidates, candidates + prob], axis=1))
    widths = ends[:, 2:] - ends[:, :2]
    pick = np.argmin(widths, axis=1)[:, None]
    low = np.take_along_axis(ends[:, :2], pick, axis=1)[:, 0]
    high = np.take_along_axis(ends[:, 2:], pick, axis=1)[:, 0]
    return low, high
