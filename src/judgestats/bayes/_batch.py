r"""Theta marginals of many datasets that share calibration counts (the vectorised exact path).

The theta likelihood of a dataset factors through the calibration alone:

.. math:: L_k(\theta) = \int b_k(p)\, R(\theta, p)\, dp, \qquad
          R(\theta, p) = \int g_0(1 - p + \theta J)\, g_1(p + (1 - \theta) J)\, dJ,

where ``b_k`` is the binomial kernel of the test count and ``R(theta, .)`` is the density of
``p = theta q1 + (1 - theta)(1 - q0)`` under the calibration posterior (see
:mod:`judgestats.bayes.exact`). ``R`` depends on the calibration counts only, so a group of datasets
sharing ``(k0, m0, k1, m1)`` shares it. The group gets one set of theta nodes (equal panels of
``THETA_ORDER`` Gauss nodes over the union of the datasets' supports, ``PANEL_SCALE`` times the
scale on which ``R`` changes with theta) and one p rule (Gauss-Legendre panels of equal width in
``u = arcsin(sqrt(p))``, where every kernel has the width ``1 / (2 sqrt(n))``, covering the
datasets' kernel windows). ``R`` is computed by the J rule of the exact engine
(:mod:`judgestats.bayes._jrule`) at every (theta, p) node pair inside the calibration's window,
once for the group; then

.. math:: L_k(\theta_i) = \sum_j b_k(p_j)\, w_j\, R(\theta_i, p_j)

is one matrix product, (datasets x p nodes) times (p nodes x theta nodes).

The p rule has no node at the kinks of ``R`` (``p = theta``, and ``p = 1 - theta`` without the
truncation), so a group is served here only where those kinks are mild (see
:func:`batch_ready`); the others, and theta priors with unbounded density at an end, go to the
per-dataset engine.
So do datasets whose test count conflicts with the calibration (the kernel meets ``R`` only in
its far tail, ``CONFLICT_DEPTH`` below its top): their posterior sits where one shared rule
would not resolve it.
"""

from __future__ import annotations

import numpy as np

from judgestats.bayes._jrule import log_r
from judgestats.bayes._panels import PanelDensity, gauss_legendre, to_coefficients
from judgestats.bayes._terms import (
    P_ORDER,
    SUPPORT_DROP,
    THETA_ORDER,
    Rows,
    log_kernel,
    log_prior,
    p_window,
)

__all__ = ["batch_ready", "group_marginals", "stack"]

#: Theta panel width in units of the scale on which R changes with theta; bounds on the count.
PANEL_SCALE = 2.5
MIN_PANELS, MAX_PANELS = 8, 400
#: Width of a panel of the p rule, in kernel widths (standard deviations) of the largest n.
SHARED_WIDTH = 2.5
#: Depth of a dataset's kernel in the tail of R beyond which test and calibration conflict.
CONFLICT_DEPTH = 25.0
#: Points per theta of the coarse grid on which the top of R is found (conflict check).
COARSE_POINTS = 33
#: Largest array evaluated at once: small enough to stay in cache and in the allocator's
#: reused memory (fresh pages are slow to map on some virtual machines).
MAX_ELEMENTS = 30_000


def batch_ready(rows: Rows) -> bool:
    r"""Whether the group's datasets can use the shared rule.

    The theta prior must be bounded (parameters at least 1: the shared theta panels have no
    singular end panel). ``R(theta, p)`` has kinks where the end of the J segment switches
    from one constraint to another: at ``p = theta``, where ``q0 = 1`` meets ``q1 = 1``, and,
    without the truncation, at ``p = 1 - theta``, where ``q0 = 0`` meets ``q1 = 0``. A
    calibration Beta with parameter ``c`` at that end vanishes there like ``(1 - q)^(c - 1)``;
    the p rule, which has no node at the kink, stays accurate while one of the two Betas
    vanishes there, but not when both are non-zero at the corner (every calibration item of
    both classes judged right, or wrong), which also puts a kink into the theta likelihood
    itself, nor when either is unbounded there (a Beta prior parameter below 1).
    """
    at, bt = rows.theta_prior
    (a0, b0), (a1, b1) = ((float(a[0]), float(b[0])) for a, b in (rows.beta0, rows.beta1))
    corners = [(b0, b1)] if rows.truncate else [(b0, b1), (a0, a1)]
    return at >= 1 and bt >= 1 and all(min(c) >= 1 and max(c) > 1 for c in corners)


def _scale(rows: Rows) -> float:
    """Scale on which R changes with theta (see the module docstring)."""
    (a0, b0), (a1, b1) = ((float(a[0]), float(b[0])) for a, b in (rows.beta0, rows.beta1))
    sd = [np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1))) for a, b in ((a0, b0), (a1, b1))]
    youden = abs(a0 / (a0 + b0) + a1 / (a1 + b1) - 1)
    return min(sd) / np.sqrt(2) / max(youden, 1e-3)


def _theta_nodes(rows: Rows, low: float, high: float) -> tuple[np.ndarray, np.ndarray]:
    """Equal theta panels on [low, high] (edges) and their Gauss nodes (T,)."""
    panels = int(
        np.clip(np.ceil((high - low) / (PANEL_SCALE * _scale(rows))), MIN_PANELS, MAX_PANELS)
    )
    edges = np.linspace(low, high, panels + 1)
    x = gauss_legendre(THETA_ORDER)[0]
    half = np.diff(edges)[:, None] / 2
    return edges, (edges[:-1, None] + half * (x + 1)).ravel()


def _band_rows(rows: Rows, boxes: tuple) -> Rows:
    """One calibration with the given (q0, q1) boxes and the kernel's window opened to [0, 1]."""
    band = rows.take(np.array([0]))
    band.box0, band.box1 = boxes
    band.box_p = (np.zeros(1), np.ones(1))
    return band


def _served(rows: Rows, theta: np.ndarray) -> np.ndarray:
    """Datasets whose kernel, at its centre, meets R within ``CONFLICT_DEPTH`` of R's top.

    Checked at the given theta (the panels' middle nodes) on the calibration's own window;
    the top of R at each theta is taken on ``COARSE_POINTS`` points of that window.
    """
    band = _band_rows(rows, tuple(tuple(v[:1] for v in box) for box in rows.calibration_box))
    low, high, _ = (v[0] for v in p_window(band, theta[None, :]))
    grid = np.linspace(low, high, COARSE_POINTS, axis=1)[:, 1:-1]
    top = np.max(log_r(band, np.broadcast_to(theta[:, None], grid.shape), grid), axis=1)
    p_hat = np.broadcast_to(rows.p_hat[:, None], (rows.size, theta.size))
    at_hat = log_r(band, np.broadcast_to(theta, p_hat.shape), p_hat)
    return np.max(at_hat - top, axis=1) > -CONFLICT_DEPTH


def _p_rule(rows: Rows, low: float, high: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Nodes and weights of one p rule for all datasets of a group.

    Gauss-Legendre panels of equal width in ``u = arcsin(sqrt(p))``, ``SHARED_WIDTH`` kernel
    widths of the largest n each, over [0, pi/2]; only the panels that meet some dataset's
    kernel window within [low, high] are kept. The weights include ``dp / du = sin(2u)``.
    """
    count = int(np.ceil(np.pi / 2 / (SHARED_WIDTH / (2 * np.sqrt(rows.n.max())))))
    width = np.pi / 2 / count

    def panel(p: np.ndarray) -> np.ndarray:
        return np.arcsin(np.sqrt(np.clip(p, 0.0, 1.0))) / width

    first = np.floor(panel(np.maximum(rows.box_p[0], low))).astype(np.int64)
    last = np.minimum(np.ceil(panel(np.minimum(rows.box_p[1], high))).astype(np.int64), count)
    length = np.maximum(last - first, 0)
    offsets = np.arange(length.sum()) - np.repeat(np.cumsum(length) - length, length)
    panels = np.unique(np.repeat(first, length) + offsets)
    x, w = gauss_legendre(P_ORDER)
    u = ((panels[:, None] + (x + 1) / 2) * width).ravel()
    return np.sin(u) ** 2, np.tile(w, panels.size) * (width / 2) * np.sin(2 * u)


def _log_r_grid(band: Rows, theta: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``log R`` at every (theta, p) node pair (T, P); -inf outside the calibration's window."""
    low, high, _ = (v[0] for v in p_window(band, theta[None, :]))
    inside = (p[None, :] > low[:, None]) & (p[None, :] < high[:, None])
    node, point = np.nonzero(inside)
    out = np.full(inside.shape, -np.inf)
    out[node, point] = log_r(band, theta[node], p[point])
    return out


def _log_likelihood(rows: Rows, p: np.ndarray, weight: np.ndarray, table: np.ndarray) -> np.ndarray:
    """``log L_k`` at every theta node (D, T): kernel factor (D, P) times R factor (P, T).

    Both factors are scaled by their maximum (the kernel's is 1 by construction of
    :func:`~judgestats.bayes._terms.log_kernel`), so the product neither overflows nor, where
    the posterior lives, underflows.
    """
    top = np.max(table, axis=1)
    top = np.where(np.isfinite(top), top, 0.0)
    factor_r = (np.exp(table - top[:, None]) * weight).T  # (P, T)
    out = np.empty((rows.size, table.shape[0]))
    step = max(1, MAX_ELEMENTS // p.size)
    with np.errstate(divide="ignore"):
        for start in range(0, rows.size, step):
            part = slice(start, start + step)
            factor_b = np.exp(log_kernel(rows.k[part, None], rows.n[part, None], p))
            out[part] = np.log(factor_b @ factor_r) + top
    return out


def group_marginals(
    rows: Rows, low: float, high: float
) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray]:
    """Theta marginals of datasets sharing one calibration (``batch_ready(rows)`` is True).

    ``[low, high]`` must hold every dataset's support (the union of their theta ranges).
    Returns blocks of (panel edges, Legendre coefficients) for :func:`stack`, one per panel
    count, and the indices (into ``rows``) of the datasets their rows hold, in block order;
    the other datasets conflict with the calibration and are left to the per-dataset engine.
    Each dataset keeps the panels where its log density is within ``SUPPORT_DROP`` of its
    maximum, and one more on each side.
    """
    edges, theta = _theta_nodes(rows, low, high)
    count = edges.size - 1
    served = np.flatnonzero(_served(rows, theta[THETA_ORDER // 2 :: THETA_ORDER]))
    if served.size == 0:
        return [], served
    rows = rows.take(served)
    band = _band_rows(
        rows,
        tuple(
            (np.min(box[0], keepdims=True), np.max(box[1], keepdims=True))
            for box in (rows.box0, rows.box1)
        ),
    )
    low_p, high_p, _ = p_window(band, theta[None, :])
    p, weight = _p_rule(rows, float(low_p.min()), float(high_p.max()))
    at, bt = rows.theta_prior
    log_f = (
        _log_likelihood(rows, p, weight, _log_r_grid(band, theta, p)) + log_prior(at, bt, theta)
    ).reshape(rows.size, count, THETA_ORDER)
    top = np.max(log_f, axis=(1, 2))
    keep = np.max(log_f, axis=2) >= top[:, None] - SUPPORT_DROP  # (D, count)
    first = np.maximum(np.argmax(keep, axis=1) - 1, 0)
    last = np.minimum(count - np.argmax(keep[:, ::-1], axis=1), count - 1)
    width = last - first + 1
    found = np.flatnonzero(np.isfinite(top))
    parts, index = [], []
    for size in np.unique(width[found]):
        chosen = found[width[found] == size]
        panel = first[chosen, None] + np.arange(size)  # (D, W)
        values = np.exp(log_f[chosen[:, None], panel] - top[chosen, None, None])
        values = np.where(np.isfinite(values), values, 0.0)
        parts.append(
            (edges[np.concatenate([panel, panel[:, -1:] + 1], axis=1)], to_coefficients(values))
        )
        index.append(served[chosen])
    return parts, (np.concatenate(index) if index else np.empty(0, dtype=np.int64))


def stack(parts: list[tuple[np.ndarray, np.ndarray]]) -> list[tuple[PanelDensity, np.ndarray]]:
    """PanelDensities from blocks of rows, one per panel count, with each one's block rows."""
    widths = np.array([edges.shape[1] for edges, _ in parts])
    starts = np.concatenate([[0], np.cumsum([edges.shape[0] for edges, _ in parts])])
    out = []
    for width in np.unique(widths):
        chosen = np.flatnonzero(widths == width)
        edges = np.concatenate([parts[i][0] for i in chosen])
        coef = np.concatenate([parts[i][1] for i in chosen])
        rows = np.concatenate([np.arange(starts[i], starts[i + 1]) for i in chosen])
        out.append((PanelDensity(edges, coef), rows))
    return out
