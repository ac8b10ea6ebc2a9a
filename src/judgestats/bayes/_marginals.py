r"""Exact marginals of q0, q1, J (Youden's index) and p for one dataset.

Each marginal density is a 2-D integral of the posterior over the other two free variables, in
coordinates where the remaining variables are affine and each sharp factor (the binomial kernel
in p, the calibration Betas) has a window of its own (see :mod:`judgestats.bayes.exact`):

* **q0 = x**: ``q1 = 1 - x + J`` and ``p = 1 - x + theta J`` (unit Jacobian from
  ``(theta, q0, q1)``), so

  .. math:: f(x) \propto g_0(x) \int g_1(1 - x + J) \int \pi(\theta)\,
            b(1 - x + \theta J)\, d\theta\, dJ,

  J over the calibration box of q1 (and ``J > 0`` if truncated), split where the kernel's window
  begins and ends (``J = p - 1 + x`` for p at the window's ends, where the inner integral turns
  from rising to flat within a kernel width); theta over the kernel's window mapped to theta.
* **q1**: the q0 marginal of the mirrored problem (correct <-> incorrect: ``k -> n - k``,
  ``(k0, m0) <-> (k1, m1)``, ``theta -> 1 - theta``), which maps q0 to q1 exactly.
* **J = j**: ``f(j) \propto \int b(p) \int \pi(\theta)\, g_0(1 - p + \theta j)\,
  g_1(p + (1 - \theta) j)\, d\theta\, dp``, p over the kernel's window, theta over the range where
  both Betas lie in their boxes.
* **p = x**: ``f(x) \propto b(x) \int \pi(\theta) \int g_0(1 - x + \theta J)\,
  g_1(x + (1 - \theta) J)\, dJ\, d\theta``, theta over the directions from the corner
  ``(1 - x, x)`` that meet the calibration box, J on its segment as in the theta marginal.

Each density is tabulated on panels twice: over a conservative support, then over the part where
it is within ``exp(-SUPPORT_DROP)`` of its maximum, and held as a piecewise Legendre series, so
CDF, quantiles, moments and the shortest interval are exact up to the quadrature.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from judgestats.bayes._panels import PanelDensity, gauss_legendre, to_coefficients
from judgestats.bayes._terms import (
    SUPPORT_DROP,
    Rows,
    j_window,
    log_calibration,
    log_kernel,
    logsumexp,
    prior_rule,
)

__all__ = ["marginal", "tabulate"]

#: Gauss nodes per panel of the tabulated density and panels of the two passes.
ORDER = 12
PANELS = (6, 10)
#: Nodes of the inner rules: per outer panel of the 2-D integral, and of the innermost rule.
OUTER_ORDER = 16
INNER_ORDER = 24
#: Nodes of the theta rule of the p marginal: the J integral decays like a power of theta away
#: from the corner q0 = q1 = 1 when a calibration arm is all correct, so it needs many nodes.
P_THETA_ORDER = 64


def marginal(rows: Rows, var: str) -> PanelDensity:
    """The marginal of ``var`` ("q0", "q1", "youden" or "p") for the single dataset ``rows``."""
    if var == "q1":  # the specificity of the mirrored problem is this one's sensitivity
        return marginal(rows.mirrored(), "q0")
    log_density, low, high, breaks = {"q0": _q0_terms, "youden": _youden_terms, "p": _p_terms}[var](
        rows
    )
    return tabulate(log_density, low, high, breaks)


# ------------------------------------------------------------------------------------------------
# tabulation
# ------------------------------------------------------------------------------------------------
def _edges(low: float, high: float, breaks: list[float], panels: int) -> np.ndarray:
    """Panel edges on [low, high]: the breaks that fall inside, and panels spread by length."""
    inner = sorted({b for b in breaks if low < b < high})
    points = np.array([low, *inner, high])
    lengths = np.diff(points)
    counts = np.maximum(1, np.round(panels * lengths / (high - low))).astype(int)
    return np.concatenate(
        [
            np.linspace(a, b, c, endpoint=False)
            for a, b, c in zip(points[:-1], points[1:], counts, strict=True)
        ]
        + [np.array([high])]
    )


def _nodes(edges: np.ndarray) -> np.ndarray:
    x = gauss_legendre(ORDER)[0]
    half = np.diff(edges) / 2
    return (edges[:-1, None] + half[:, None] * (x + 1)).ravel()


def tabulate(
    log_density: Callable[[np.ndarray], np.ndarray], low: float, high: float, breaks: list[float]
) -> PanelDensity:
    """Two passes: locate the support on coarse panels, then tabulate on it."""
    edges = _edges(low, high, breaks, PANELS[0])
    x = _nodes(edges)
    log_f = log_density(x)
    top = np.max(log_f)
    if np.isfinite(top):
        keep = np.flatnonzero(log_f >= top - SUPPORT_DROP)
        low = float(x[keep[0] - 1]) if keep[0] > 0 else low
        high = float(x[keep[-1] + 1]) if keep[-1] < x.size - 1 else high
    edges = _edges(low, high, breaks, PANELS[1])
    x = _nodes(edges)
    log_f = log_density(x)
    top = np.max(log_f)
    values = np.exp(log_f - (top if np.isfinite(top) else 0.0))
    values = np.where(np.isfinite(values), values, 0.0).reshape(1, -1, ORDER)
    return PanelDensity(edges[None, :], to_coefficients(values))


def _sum_rule(log_terms: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """Log of a sum over ``axes`` of exponentiated terms."""
    out = log_terms
    for axis in sorted(axes, reverse=True):
        out = logsumexp(out, axis=axis)
    return out


def _panels_on(cuts: np.ndarray, order: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss nodes and log weights on consecutive panels ``cuts[..., i]`` to ``cuts[..., i+1]``.

    Shapes: cuts (..., C + 1) -> nodes and log weights (..., C, order).
    """
    x, w = gauss_legendre(order)
    half = np.diff(cuts, axis=-1)[..., None] / 2
    nodes = cuts[..., :-1, None] + half * (x + 1)
    with np.errstate(divide="ignore"):
        return nodes, np.log(np.maximum(half, 0.0) * w)


# ------------------------------------------------------------------------------------------------
# the three integrals
# ------------------------------------------------------------------------------------------------
def _q0_terms(rows: Rows) -> tuple[Callable[[np.ndarray], np.ndarray], float, float, list]:
    (l0, u0), (l1, u1), (pl, pu) = (
        tuple(float(v[0]) for v in box) for box in (rows.box0, rows.box1, rows.box_p)
    )
    (a0, b0), (a1, b1) = ((float(v[0]) for v in beta) for beta in (rows.beta0, rows.beta1))
    k, n = float(rows.k[0]), float(rows.n[0])
    truncate = rows.truncate

    def log_density(x: np.ndarray) -> np.ndarray:
        x = x[:, None]
        low = l1 - 1 + x
        if truncate:
            low = np.maximum(low, 0.0)
        high = np.maximum(u1 - 1 + x, low)
        cuts = np.sort(
            np.concatenate(
                [low, np.clip(pl - 1 + x, low, high), np.clip(pu - 1 + x, low, high), high], axis=1
            ),
            axis=1,
        )
        j, log_wj = _panels_on(cuts, OUTER_ORDER)  # (X, 3, O)
        with np.errstate(divide="ignore", invalid="ignore"):
            ends = np.stack([(pl - 1 + x[..., None]) / j, (pu - 1 + x[..., None]) / j])
        t_low = np.clip(np.nan_to_num(ends.min(axis=0), nan=0.0), 0.0, 1.0)
        t_high = np.clip(np.nan_to_num(ends.max(axis=0), nan=1.0), 0.0, 1.0)
        t, log_wt = prior_rule(t_low, t_high, rows.theta_prior, INNER_ORDER)  # (X, 3, O, I)
        p = np.clip(1 - x[..., None, None] + t * j[..., None], 0.0, 1.0)
        inner = _sum_rule(log_kernel(k, n, p) + log_wt, (-1,))
        inner = np.where(t_high > t_low, inner, -np.inf)
        q1 = np.clip(1 - x[..., None] + j, 1e-300, 1 - 1e-16)
        log_g1 = (a1 - 1) * np.log(q1) + (b1 - 1) * np.log1p(-q1)
        total = _sum_rule(inner + log_g1 + log_wj, (1, 2))
        q0 = np.clip(x[:, 0], 1e-300, 1 - 1e-16)
        return total + (a0 - 1) * np.log(q0) + (b0 - 1) * np.log1p(-q0)

    low = max(l0, 1 - pu) if truncate else l0
    high = u0
    return log_density, low, max(high, low + 1e-12), [1 - pu, 1 - k / n, 1 - pl]


def _youden_terms(rows: Rows) -> tuple[Callable[[np.ndarray], np.ndarray], float, float, list]:
    (l0, u0), (l1, u1), (pl, pu) = (
        tuple(float(v[0]) for v in box) for box in (rows.box0, rows.box1, rows.box_p)
    )
    k, n = float(rows.k[0]), float(rows.n[0])

    def log_density(j: np.ndarray) -> np.ndarray:
        j = j[:, None]
        pos, neg = np.maximum(j, 0.0), np.minimum(j, 0.0)
        low = np.maximum.reduce([np.full(j.shape, pl), 1 - u0 + neg, l1 - pos])
        high = np.minimum.reduce([np.full(j.shape, pu), 1 - l0 + pos, u1 - neg])
        high = np.maximum(high, low)
        # kinks of the theta integral where q0 = 1 meets theta = 1 (p = j) and q1 = 1 meets
        # theta = 0 (p = 1 - j)
        cuts = np.sort(
            np.concatenate([low, np.clip(j, low, high), np.clip(1 - j, low, high), high], axis=1),
            axis=1,
        )
        p, log_wp = _panels_on(cuts, OUTER_ORDER)  # (X, 3, O)
        jj = j[..., None]
        with np.errstate(divide="ignore", invalid="ignore"):
            a = np.stack([(l0 - 1 + p) / jj, (u0 - 1 + p) / jj])
            b = np.stack([1 - (u1 - p) / jj, 1 - (l1 - p) / jj])
        t_low = np.clip(np.maximum(a.min(axis=0), b.min(axis=0)), 0.0, 1.0)
        t_high = np.clip(np.minimum(a.max(axis=0), b.max(axis=0)), 0.0, 1.0)
        t, log_wt = prior_rule(t_low, t_high, rows.theta_prior, INNER_ORDER)  # (X, 3, O, I)
        log_h = log_calibration(rows, t, p[..., None], np.broadcast_to(jj[..., None], t.shape))
        inner = np.where(t_high > t_low, _sum_rule(log_h + log_wt, (-1,)), -np.inf)
        return _sum_rule(inner + log_kernel(k, n, p) + log_wp, (1, 2))

    low = l0 + l1 - 1
    if rows.truncate:
        low = max(low, 0.0)
    high = u0 + u1 - 1
    return log_density, low, max(high, low + 1e-12), []


def _p_terms(rows: Rows) -> tuple[Callable[[np.ndarray], np.ndarray], float, float, list]:
    (l0, u0), (l1, u1), (pl, pu) = (
        tuple(float(v[0]) for v in box) for box in (rows.box0, rows.box1, rows.box_p)
    )
    k, n = float(rows.k[0]), float(rows.n[0])
    xj, wj = gauss_legendre(INNER_ORDER)

    def log_density(x: np.ndarray) -> np.ndarray:
        if rows.truncate:  # theta = a / (a + b), a = q0 - (1 - x) >= 0, b = q1 - x >= 0
            a_low, a_high = np.maximum(l0 - 1 + x, 0.0), np.maximum(u0 - 1 + x, 0.0)
            b_low, b_high = np.maximum(l1 - x, 0.0), np.maximum(u1 - x, 0.0)
            with np.errstate(divide="ignore", invalid="ignore"):
                t_low = np.nan_to_num(a_low / (a_low + b_high), nan=0.0)
                t_high = np.nan_to_num(a_high / (a_high + b_low), nan=1.0)
        else:
            t_low, t_high = np.zeros(x.shape), np.ones(x.shape)
        # theta = x is the direction of the corner q0 = q1 = 1, where the J integral has a kink
        t, log_wt = prior_rule(t_low, t_high, rows.theta_prior, P_THETA_ORDER, split=x)
        p = np.broadcast_to(x[:, None], t.shape)
        j_low, j_high = j_window(rows, t, p)
        ok = j_high > j_low
        j_half = np.where(ok, (j_high - j_low) / 2, 0.0)
        j = j_low[..., None] + j_half[..., None] * (xj + 1)  # (X, O, I)
        log_h = log_calibration(rows, t[..., None], p[..., None], j)
        with np.errstate(divide="ignore"):
            inner = logsumexp(log_h + np.log(wj), axis=-1) + np.log(j_half)
        inner = np.where(ok & (t_high > t_low)[:, None], inner, -np.inf)
        return logsumexp(inner + log_wt, axis=-1) + log_kernel(k, n, x)

    low, high = pl, pu
    if rows.truncate:
        low, high = max(low, 1 - u0), min(high, u1)
    else:
        low, high = max(low, min(1 - u0, l1)), min(high, max(1 - l0, u1))
    return log_density, low, max(high, low + 1e-12), []
