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
from typing import Literal

import numpy as np
from scipy import special as sc

from judgestats.bayes._shortest import shortest_interval

__all__ = [
    "PanelDensity",
    "end_nodes",
    "end_to_coefficients",
    "gauss_legendre",
    "legendre_table",
    "shortest_interval",
    "to_coefficients",
]

#: Newton iterations and the tolerance (in the variable) of every quantile search.
QUANTILE_ITERATIONS = 100
QUANTILE_TOLERANCE = 1e-11
#: Points per panel of the CDF table behind starting points and the shortest-interval grid.
TABLE_POINTS = 8


@functools.lru_cache(maxsize=16)
def gauss_legendre(order: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Legendre nodes and weights on [-1, 1] (cached, read-only)."""
    x, w = np.polynomial.legendre.leggauss(order)
    x.flags.writeable = False
    w.flags.writeable = False
    return x, w


def legendre_table(x: np.ndarray, degree: int) -> np.ndarray:
    """``P_0(x), ..., P_degree(x)`` on a new last axis (recurrence on contiguous planes)."""
    x = np.asarray(x, float)
    planes = np.empty((degree + 1,) + x.shape)
    planes[0] = 1.0
    if degree >= 1:
        planes[1] = x
    for j in range(1, degree):
        planes[j + 1] = ((2 * j + 1) * x * planes[j] - j * planes[j - 1]) / (j + 1)
    return np.ascontiguousarray(np.moveaxis(planes, 0, -1))


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
    out = np.linalg.inv(legendre_table(end_nodes(order, power, at_low_end), order - 1))
    out.flags.writeable = False
    return out


def to_coefficients(values: np.ndarray) -> np.ndarray:
    """Legendre coefficients of the interpolant through values at Gauss-Legendre nodes."""
    return values @ _gauss_to_coefficients(values.shape[-1]).T


def end_to_coefficients(values: np.ndarray, power: float, at_low_end: bool) -> np.ndarray:
    """Legendre coefficients of the interpolant through values at a singular end panel's nodes."""
    return values @ _jacobi_to_coefficients(values.shape[-1], power, at_low_end).T


def end_nodes(order: int, power: float, at_low_end: bool) -> np.ndarray:
    """Panel coordinates ``u`` in [-1, 1] of the Jacobi nodes of a singular end panel."""
    v = jacobi_rule(order, power)[0]
    return 2 * v - 1 if at_low_end else 1 - 2 * v


def _series_value_and_integral(
    planes: np.ndarray, index: np.ndarray, u: np.ndarray, integral: bool = True
) -> tuple[np.ndarray, np.ndarray | None]:
    """``sum_l c_l P_l(u)``, ``c_l = planes[l, index]``, and (if asked) its integral from -1.

    ``int_{-1}^{u} P_l = (P_{l+1}(u) - P_{l-1}(u)) / (2l + 1)`` for l >= 1, ``u + 1`` for l = 0.
    """
    c = np.take(planes[0], index)
    value, area = c + 0.0 * u, (c * (u + 1) if integral else None)
    prev, cur = np.ones_like(u), u  # P_{l-1}, P_l
    scratch = np.empty_like(value)
    for j in range(1, planes.shape[0]):  # in place, in the order of the formula (same bits)
        nxt = np.multiply(2 * j + 1, u)
        nxt *= cur
        nxt -= np.multiply(j, prev, out=scratch)
        nxt /= j + 1
        np.take(planes[j], index, out=c)
        value += np.multiply(c, cur, out=scratch)
        if area is not None:
            np.subtract(nxt, prev, out=scratch)
            scratch /= 2 * j + 1
            area += np.multiply(c, scratch, out=scratch)
        prev, cur = cur, nxt
    return value, area


SEARCH_FROM = 64  #: points per row from which a row's boundaries are searched, not compared


def count_before(bounds: np.ndarray, values: np.ndarray, strict: bool) -> np.ndarray:
    """Per row, how many of ``bounds`` (R, B), non-decreasing along each row, lie below ``values``.

    Counts ``bounds < values`` (``strict``) or ``bounds <= values``, shape of ``values`` (R, Q):
    with many points per row by bisection, otherwise (or where anything is not finite) by
    comparing every pair; both give the same integers.
    """
    rows, points = values.shape
    if points < SEARCH_FROM or not (np.isfinite(values).all() and np.isfinite(bounds).all()):
        compare = np.greater if strict else np.greater_equal
        return compare(values[:, :, None], bounds[:, None, :]).sum(axis=2)
    side: Literal["left", "right"] = "left" if strict else "right"
    out = np.empty(values.shape, dtype=np.intp)
    for row in range(rows):
        out[row] = np.searchsorted(bounds[row], values[row], side=side)
    return out


def _points_below(flat_f: np.ndarray, base: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """How many of a panel's table points 1 .. TABLE_POINTS lie below the level (< TABLE_POINTS).

    ``flat_f`` is the table (R, P * (TABLE_POINTS + 1)), ``base`` the index of the panel's
    first point in the flattened table. By bisection on the non-decreasing table
    (TABLE_POINTS a power of 2), or by counting where the table is not finite; the same
    integers either way.
    """
    if not np.isfinite(flat_f).all():
        below = sum(levels > np.take(flat_f, base + k) for k in range(1, TABLE_POINTS + 1))
        return np.minimum(below, TABLE_POINTS - 1)
    index = np.zeros(levels.shape, dtype=np.intp)
    step = TABLE_POINTS // 2
    while step:
        probe = np.take(flat_f, base + index + step)
        index += np.where(levels > probe, step, 0)
        step //= 2
    return index


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

    def __init__(
        self,
        edges: np.ndarray,
        coef: np.ndarray,
        power_low: np.ndarray | None = None,
        power_high: np.ndarray | None = None,
    ) -> None:
        rows = edges.shape[0]
        self.edges = edges
        self.half = np.diff(edges, axis=1) / 2  # (R, P)
        self.power = (
            np.ones(rows) if power_low is None else power_low,
            np.ones(rows) if power_high is None else power_high,
        )
        self.coef = coef
        mass = 2 * self.half * coef[..., 0]
        for side in (0, 1):
            mass[:, -side] = np.where(
                self.power[side] != 1.0,
                self._end_partial(side, 2 * self.half[:, -side], None),
                mass[:, -side],
            )
        mass = np.maximum(mass, 0.0)
        self.norm = mass.sum(axis=1)
        self.coef = coef / self.norm[:, None, None]
        self.cum = (
            np.concatenate([np.zeros((rows, 1)), np.cumsum(mass, axis=1)], axis=1)
            / self.norm[:, None]
        )

    def take(self, rows: np.ndarray) -> PanelDensity:
        """The densities of ``rows`` only (normalisation kept)."""
        out = PanelDensity.__new__(PanelDensity)
        out.edges, out.half, out.coef = self.edges[rows], self.half[rows], self.coef[rows]
        out.power = (self.power[0][rows], self.power[1][rows])
        out.norm, out.cum = self.norm[rows], self.cum[rows]
        return out

    @property
    def support(self) -> tuple[np.ndarray, np.ndarray]:
        """Lower and upper end of every row's support."""
        return self.edges[:, 0], self.edges[:, -1]

    def _end_partial(self, side: int, distance: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
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

    def _locate(
        self, t: np.ndarray, sel: slice | np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Panel of every point (R, Q), its row index, left edge, half width and coordinate u."""
        edges, half = self.edges[sel], self.half[sel]
        count = half.shape[1]
        panel = np.clip(count_before(edges[:, 1:-1], t, strict=False), 0, count - 1)
        row = np.arange(edges.shape[0])[:, None]
        left, width = edges[row, panel], half[row, panel]
        u = np.clip((t - left) / width - 1, -1.0, 1.0)
        return panel, row, left, width, u

    def cdf_pdf(
        self, t: np.ndarray, rows: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """CDF and density at points ``t`` of shape (R, Q) (``rows`` selects R rows)."""
        sel = slice(None) if rows is None else rows
        t = np.asarray(t, float)
        panel, row, _, width, u = self._locate(t, sel)
        rows_all = np.arange(self.edges.shape[0])[sel][:, None]
        index = rows_all * self.coef.shape[1] + panel
        pdf, integral = _series_value_and_integral(self._coefficient_planes(), index, u)
        cdf = self.cum[sel][row, panel] + width * np.asarray(integral)
        for side in (0, 1):
            self._fix_end(side, sel, t, panel, cdf, pdf)
        low, high = self.edges[sel][:, :1], self.edges[sel][:, -1:]
        below, above = t < low, t > high
        cdf = np.where(below, 0.0, np.where(above, 1.0, np.clip(cdf, 0.0, 1.0)))
        pdf = np.where(below | above, 0.0, np.maximum(pdf, 0.0))
        return cdf, pdf

    def _coefficient_planes(self) -> np.ndarray:
        """Coefficient l of every (row, panel) as row l of an (N, R * P) array (built once)."""
        if getattr(self, "_planes", None) is None:
            self._planes = np.moveaxis(self.coef, -1, 0).reshape(self.coef.shape[-1], -1)
        return self._planes

    def pdf(self, t: np.ndarray, rows: slice | np.ndarray | None = None) -> np.ndarray:
        """The density of :meth:`cdf_pdf` alone (no CDF: the series' integral is skipped)."""
        sel = slice(None) if rows is None else rows
        t = np.asarray(t, float)
        panel, _, _, _, u = self._locate(t, sel)
        index = np.arange(self.edges.shape[0])[sel][:, None] * self.coef.shape[1] + panel
        pdf = _series_value_and_integral(self._coefficient_planes(), index, u, False)[0]
        for side in (0, 1):
            self._fix_end(side, sel, t, panel, np.empty(t.shape), pdf)
        below, above = t < self.edges[sel][:, :1], t > self.edges[sel][:, -1:]
        return np.where(below | above, 0.0, np.maximum(pdf, 0.0))

    def _fix_end(
        self,
        side: int,
        sel: slice | np.ndarray,
        t: np.ndarray,
        panel: np.ndarray,
        cdf: np.ndarray,
        pdf: np.ndarray,
    ) -> None:
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
        t = self.edges[:, :-1, None] + self.half[:, :, None] * (x + 1)  # (R, P, M)
        dens = np.einsum(
            "rpl,rpml->rpm",
            self.coef,
            np.broadcast_to(legendre_table(x, order - 1), t.shape + (order,)),
        )
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
            g = self.coef[hit, -side] @ legendre_table(u, order - 1).T  # (E, N)
            end = self.edges[hit, 0] if side == 0 else self.edges[hit, -1]
            nodes = end[:, None] + (h[:, None] * v if side == 0 else -h[:, None] * v)
            exact = h**power * ((g * nodes**j) @ w)
            out[hit] = exact - np.sum(weight[hit] * t[hit] ** j, axis=1)
        return out

    def quantile(
        self, levels: np.ndarray, start: np.ndarray | None = None, rows: np.ndarray | None = None
    ) -> np.ndarray:
        """Solve ``F(t) = level`` for levels of shape (R, Q) (bracketed Newton)."""
        sel = slice(None) if rows is None else rows
        low, high = self.edges[sel][:, :1], self.edges[sel][:, -1:]
        levels = np.asarray(levels, float)
        edge = (levels <= 0) | (levels >= 1)  # the support's ends: no search needed
        inner = np.where(edge, 0.5, levels)
        if start is None:
            start = self._start(inner, sel)
        out = solve_cdf(
            lambda t: self.cdf_pdf(t, rows),
            inner,
            start,
            np.broadcast_to(low, levels.shape),
            np.broadcast_to(high, levels.shape),
        )
        return np.where(levels <= 0, low, np.where(levels >= 1, high, out))

    def _table(self) -> tuple[np.ndarray, np.ndarray]:
        """The CDF at ``TABLE_POINTS`` equally spaced points of every panel (built once)."""
        if getattr(self, "_cached_table", None) is None:
            frac = np.linspace(0.0, 1.0, TABLE_POINTS + 1)
            t = self.edges[:, :-1, None] + 2 * self.half[:, :, None] * frac  # (R, P, S + 1)
            rows, panels = self.half.shape
            cdf = self.cdf_pdf(t.reshape(rows, -1))[0].reshape(t.shape)
            cdf[:, :, 0], cdf[:, :, -1] = self.cum[:, :-1], self.cum[:, 1:]
            self._cached_table = (t, np.maximum.accumulate(cdf, axis=2))
        return self._cached_table

    def approximate_quantile(
        self, levels: np.ndarray, sel: slice | np.ndarray = slice(None)
    ) -> np.ndarray:
        """Quantiles by linear interpolation of the tabulated CDF (starting points, grids)."""
        levels = np.asarray(levels, float)
        t_table, f_table = (v[sel] for v in self._table())
        panel = np.clip(count_before(self.cum[sel][:, 1:], levels, strict=True), 0, None)
        panel = np.minimum(panel, t_table.shape[1] - 1)
        points = TABLE_POINTS + 1
        flat_t, flat_f = (v.reshape(v.shape[0], -1) for v in (t_table, f_table))
        base = panel * points + np.arange(flat_f.shape[0])[:, None] * flat_f.shape[1]
        at = base + _points_below(flat_f, base, levels)  # in the flattened tables
        f0, t0 = (np.take(v, at) for v in (flat_f, flat_t))
        f1, t1 = (np.take(v, at + 1) for v in (flat_f, flat_t))
        with np.errstate(divide="ignore", invalid="ignore"):
            frac = np.where(f1 > f0, (levels - f0) / (f1 - f0), 0.5)
        return t0 + np.clip(frac, 0.0, 1.0) * (t1 - t0)

    def shortest(self, prob: float) -> tuple[np.ndarray, np.ndarray]:
        """Shortest interval of mass ``prob`` of every row (see :func:`shortest_interval`)."""
        return shortest_interval(
            lambda levels, sel: self.quantile(levels, rows=sel),
            self.pdf,
            self.edges.shape[0],
            prob,
            approximate=self.approximate_quantile,
        )

    def _start(self, levels: np.ndarray, sel: slice | np.ndarray) -> np.ndarray:
        """Starting points of the quantile search (see :meth:`approximate_quantile`)."""
        return self.approximate_quantile(levels, sel)


def solve_cdf(
    cdf_pdf, levels: np.ndarray, start: np.ndarray, low: np.ndarray, high: np.ndarray
) -> np.ndarray:
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
