r"""Theta marginals of many datasets that share calibration counts (the vectorised exact path).

The theta likelihood of a dataset factors through the calibration alone:

.. math:: L_k(\theta) = \int b_k(p)\, R(\theta, p)\, dp, \qquad
          R(\theta, p) = \int g_0(1 - p + \theta J)\, g_1(p + (1 - \theta) J)\, dJ,

where ``b_k`` is the binomial kernel of the test count and ``R(theta, .)`` is the density of
``p = theta q1 + (1 - theta)(1 - q0)`` under the calibration posterior (see
:mod:`judgecal.bayes.exact`). ``R`` depends on the calibration counts only, so for a group of
datasets sharing ``(k0, m0, k1, m1)`` it is tabulated once: on equal theta panels over the union
of the datasets' supports (``THETA_ORDER`` Gauss nodes each), and at every theta node on the band
of p where ``log R`` is within ``BAND_DROP`` of its maximum (beyond, the band's end makes
``log R`` diverge), split at ``p = theta`` into two panels where ``log R`` is held as a Legendre
series of ``P_ORDER`` terms. Each dataset then needs only the kernel ``b_k`` and polynomial
evaluations of ``log R``: a coarse pass at the panel midpoints finds the panels where
its posterior lives, and the p rule of the exact engine (kernel window intersected with the band,
split at ``p = theta``) runs on those panels' nodes. The theta panels are ``PANEL_SCALE`` times
the scale on which ``R`` changes with theta, ``min(sd(q0), sd(q1)) / sqrt(2) / J`` at the
calibration means.

Groups the table cannot serve exactly fall back to the per-dataset engine: a theta prior with a
parameter below 1 (unbounded density at an end), and calibration Betas that are both non-zero at
q = 1 (every calibration item judged right), where ``L_k`` has a kink at ``theta = p-hat`` that
equal panels would not resolve.
"""

from __future__ import annotations

import numpy as np

from judgecal.bayes._panels import PanelDensity, gauss_legendre, legendre_table, to_coefficients
from judgecal.bayes._terms import (
    Rows,
    j_window,
    log_calibration,
    log_kernel,
    log_prior,
    logsumexp,
    p_window,
)

__all__ = ["batch_ready", "group_marginals", "stack"]

#: p panels per theta node of the table (half on each side of p = theta), and the kernel width
#: (in its standard deviations) up to which one table panel may span it: such kernels are
#: integrated on the table's own rule instead of interpolating log R.
BAND_PANELS = 6
DIRECT_WIDTH = 2.5
#: Gauss nodes per theta panel and per p panel, and nodes of the J integral of the table.
THETA_ORDER = 12
P_ORDER = 16
J_ORDER = 24
#: p nodes per panel in the coarse pass that selects a dataset's panels.
COARSE_P_ORDER = 8
#: Theta panel width in units of the scale on which R changes with theta; bounds on the count.
PANEL_SCALE = 2.5
MIN_PANELS, MAX_PANELS = 8, 400
#: Log-density drop below the maximum that bounds a dataset's support, the band of p kept in
#: the table (per theta node), and the depth of a dataset's kernel in the tail of R beyond which
#: test and calibration conflict and the dataset goes to the per-dataset engine.
SUPPORT_DROP = 40.0
BAND_DROP = 60.0
CONFLICT_DEPTH = 25.0
#: Datasets evaluated at once (memory bound).
CHUNK = 64


def batch_ready(rows: Rows) -> bool:
    """Whether the group's datasets can use the shared table (see the module docstring)."""
    at, bt = rows.theta_prior
    both_at_one = float(rows.beta0[1][0]) <= 1.0 and float(rows.beta1[1][0]) <= 1.0
    return at >= 1 and bt >= 1 and not both_at_one


def _scale(rows: Rows) -> float:
    """Scale on which R changes with theta (see the module docstring)."""
    (a0, b0), (a1, b1) = ((float(a[0]), float(b[0])) for a, b in (rows.beta0, rows.beta1))
    sd = [np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1))) for a, b in ((a0, b0), (a1, b1))]
    youden = abs(a0 / (a0 + b0) + a1 / (a1 + b1) - 1)
    return min(sd) / np.sqrt(2) / max(youden, 1e-3)


class _Table:
    """``log R(theta, p)`` of one calibration group on its theta panels."""

    def __init__(self, rows: Rows, low: float, high: float) -> None:
        panels = int(np.clip(np.ceil((high - low) / (PANEL_SCALE * _scale(rows))),
                             MIN_PANELS, MAX_PANELS))
        self.edges = np.linspace(low, high, panels + 1)
        x = gauss_legendre(THETA_ORDER)[0]
        half = np.diff(self.edges)[:, None] / 2
        self.theta = (self.edges[:-1, None] + half * (x + 1)).ravel()          # (T,)
        band = _band_rows(rows)
        p_low, p_high, split = (v[0] for v in p_window(band, self.theta[None, :]))
        # first pass on the whole band, then the band is trimmed to where log R is within
        # BAND_DROP of its maximum: log R diverges where the band's J segment vanishes
        p, log_r = self._evaluate(band, p_low, split, p_high)
        top = np.max(log_r, axis=(1, 2))
        p, log_r = p.reshape(p.shape[0], -1), log_r.reshape(p.shape[0], -1)
        order = np.argsort(p, axis=1)
        p, log_r = np.take_along_axis(p, order, 1), np.take_along_axis(log_r, order, 1)
        keep = log_r >= top[:, None] - BAND_DROP
        first = np.maximum(np.argmax(keep, axis=1) - 1, 0)
        last = np.minimum(p.shape[1] - np.argmax(keep[:, ::-1], axis=1), p.shape[1] - 1)
        rows_index = np.arange(p.shape[0])
        p_low = np.where(first > 0, p[rows_index, first], p_low)
        p_high = np.where(last < p.shape[1] - 1, p[rows_index, last], p_high)
        split = np.where((self.theta > p_low) & (self.theta < p_high), self.theta,
                         0.5 * (p_low + p_high))
        self.p_low, self.p_high = p_low, p_high
        side = np.linspace(0.0, 1.0, BAND_PANELS // 2 + 1)
        self.p_edges = np.concatenate([p_low[:, None] + (split - p_low)[:, None] * side,
                                       split[:, None] + (p_high - split)[:, None] * side[1:]],
                                      axis=1)                                   # (T, B + 1)
        xp = gauss_legendre(P_ORDER)[0]
        half = np.maximum(np.diff(self.p_edges, axis=1) / 2, 0.0)              # (T, B)
        p = self.p_edges[:, :-1, None] + half[..., None] * (xp + 1)            # (T, B, Np)
        log_r = _log_r(band, self.theta[:, None, None], p)
        log_r = np.where(np.isfinite(log_r), log_r, -1e300)
        self.p_half = half
        self.top = np.max(log_r, axis=(1, 2))
        log_r = np.maximum(log_r, self.top[:, None, None] - 2 * BAND_DROP)
        self.coef = to_coefficients(log_r)                                     # (T, B, Np)
        # the table's own rule: nodes and log weights x R, for kernels as wide as a panel
        wp = gauss_legendre(P_ORDER)[1]
        self.p_nodes = p.reshape(p.shape[0], -1)                               # (T, B Np)
        with np.errstate(divide="ignore"):
            self.log_weighted_r = (log_r + np.log(half[..., None] * wp)).reshape(p.shape[0], -1)
        self.widest = float(2 * half.max())

    def _evaluate(self, band: Rows, p_low: np.ndarray, split: np.ndarray, p_high: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
        """Nodes (T, 2, Np) of two p panels and ``log R`` there (first pass)."""
        xp = gauss_legendre(P_ORDER)[0]
        ends = np.stack([np.stack([p_low, split], -1), np.stack([split, p_high], -1)], -2)
        half = np.maximum((ends[..., 1] - ends[..., 0]) / 2, 0.0)              # (T, 2)
        p = ends[..., :1] + half[..., None] * (xp + 1)
        log_r = _log_r(band, self.theta[:, None, None], p)
        return p, np.where(np.isfinite(log_r), log_r, -1e300)

    def log_r(self, node: np.ndarray, p: np.ndarray) -> np.ndarray:
        """``log R`` at theta nodes ``node`` (indices, shape S) and points p (S + (Q,))."""
        edges = self.p_edges[node][..., None, :]                               # S + (1, B + 1)
        panel = (p[..., None] >= edges[..., 1:-1]).sum(axis=-1)                # S + (Q,)
        flat = node[..., None] * (self.p_edges.shape[1] - 1) + panel
        left = self.p_edges[:, :-1].reshape(-1)[flat]
        half = self.p_half.reshape(-1)[flat]
        u = np.clip((p - left) / np.where(half > 0, half, 1.0) - 1, -1.0, 1.0)
        coef = self.coef.reshape(-1, P_ORDER)[flat]                              # S+(Q, Np)
        value = np.einsum("...l,...l->...", coef, legendre_table(u, P_ORDER - 1))
        inside = (p > edges[..., 0]) & (p < edges[..., -1])
        return np.where(inside, value, -np.inf)


def _band_rows(rows: Rows) -> Rows:
    """The group's calibration with the kernel's window opened to [0, 1] (for the band of p)."""
    band = rows.take(np.array([0]))
    band.box0, band.box1 = band.calibration_box    # the calibration's own boxes, not widened
    band.box_p = (np.zeros(1), np.ones(1))          # for one dataset's kernel
    return band


def _log_r(rows: Rows, t: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``log R(theta, p)`` by the J rule (rows: one calibration; t broadcastable to p)."""
    xj, wj = gauss_legendre(J_ORDER)
    j_low, j_high = j_window(rows, t, p)
    ok = j_high > j_low
    j_half = np.where(ok, (j_high - j_low) / 2, 0.0)
    j = j_low[..., None] + j_half[..., None] * (xj + 1)
    log_h = log_calibration(rows, np.broadcast_to(t, p.shape)[..., None], p[..., None], j)
    with np.errstate(divide="ignore"):
        return logsumexp(log_h + np.log(wj), axis=-1) + np.log(j_half)


def _log_likelihood(table: _Table, rows: Rows, node: np.ndarray, order: int) -> np.ndarray:
    """``log L_k`` at theta nodes ``node`` (D, S) of datasets ``rows`` (D of them).

    A kernel at least ``DIRECT_WIDTH`` panel widths wide (in standard deviations of p-hat) is
    integrated on the table's own p rule; a narrower one on its own window, with ``log R``
    interpolated from the table.
    """
    p_tilde = (rows.k + 1) / (rows.n + 2)
    sd = np.sqrt(p_tilde * (1 - p_tilde) / (rows.n + 3))
    direct = table.widest <= DIRECT_WIDTH * sd * (1 + 1e-9)
    out = np.empty(node.shape)
    if direct.any():
        out[direct] = _direct(table, rows.take(np.flatnonzero(direct)), node[direct])
    if (~direct).any():
        out[~direct] = _interpolated(table, rows.take(np.flatnonzero(~direct)), node[~direct],
                                     order)
    return out


def _direct(table: _Table, rows: Rows, node: np.ndarray) -> np.ndarray:
    """``log L_k`` by the table's p rule (kernel smooth on the scale of a table panel)."""
    log_b = log_kernel(rows.k[:, None, None], rows.n[:, None, None], table.p_nodes[node])
    return logsumexp(log_b + table.log_weighted_r[node], axis=-1)


def _interpolated(table: _Table, rows: Rows, node: np.ndarray, order: int) -> np.ndarray:
    """``log L_k`` on the kernel's window within the band, ``log R`` interpolated."""
    xp, wp = gauss_legendre(order)
    t = table.theta[node]
    low = np.maximum(table.p_low[node], rows.box_p[0][:, None])
    high = np.minimum(table.p_high[node], rows.box_p[1][:, None])
    valid = high > low
    split = np.where((t > low) & (t < high), t, 0.5 * (low + high))
    ends = np.stack([np.stack([low, split], -1), np.stack([split, high], -1)], -2)
    ends = np.where(valid[..., None, None], ends, 0.5)
    half = (ends[..., 1] - ends[..., 0]) / 2                                    # (D, S, 2)
    p = (ends[..., :1] + half[..., None] * (xp + 1)).reshape(t.shape + (-1,))  # (D, S, 2Np)
    log_b = log_kernel(rows.k[:, None, None], rows.n[:, None, None], p)
    with np.errstate(divide="ignore"):
        log_w = np.log(np.repeat(np.where(valid[..., None], half, 0.0), order, axis=-1)
                       * np.tile(wp, 2))
    out = logsumexp(log_b + table.log_r(node, p) + log_w, axis=-1)
    return np.where(valid, out, -np.inf)


def _select_panels(table: _Table, rows: Rows) -> tuple[np.ndarray, int, np.ndarray]:
    """First panel and panel count covering each dataset's support (coarse pass).

    Also whether the table serves the dataset: its kernel must reach the bulk of R (log R at
    p-hat within ``CONFLICT_DEPTH`` of its maximum at some theta); otherwise the posterior sits
    in the tails the table leaves out, and the dataset goes to the per-dataset engine.
    """
    count = table.edges.size - 1
    mid = np.arange(count) * THETA_ORDER + THETA_ORDER // 2                  # near-middle node
    node = np.broadcast_to(mid, (rows.size, count))
    at, bt = rows.theta_prior
    log_f = (_log_likelihood(table, rows, node, COARSE_P_ORDER)
             + log_prior(at, bt, table.theta[node]))
    top = np.max(log_f, axis=1, keepdims=True)
    p_hat = np.broadcast_to(rows.p_hat[:, None, None], node.shape + (1,))
    depth = np.max(table.log_r(node, p_hat)[..., 0] - table.top[node],
                   axis=1)
    served = np.isfinite(top[:, 0]) & (depth > -CONFLICT_DEPTH)
    keep = (log_f >= top - SUPPORT_DROP) & np.isfinite(top)
    keep = keep | ~keep.any(axis=1, keepdims=True)
    first = np.maximum(np.argmax(keep, axis=1) - 1, 0)
    last = np.minimum(count - 1 - np.argmax(keep[:, ::-1], axis=1) + 1, count - 1)
    width = int(np.max(np.where(served, last - first + 1, 1)))
    first = np.clip(first, 0, count - width)
    return first, width, served


def group_marginals(rows: Rows, low: float, high: float
                    ) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray]:
    """Theta marginals of datasets sharing one calibration (``batch_ready(rows)`` is True).

    ``[low, high]`` must hold every dataset's support (the union of their theta ranges).
    Returns blocks of (panel edges, Legendre coefficients) for :func:`stack`, in the order of
    the served datasets, and the mask of the datasets served (see :func:`_select_panels`).
    """
    table = _Table(rows, low, high)
    at, bt = rows.theta_prior
    parts, served_all = [], []
    for start in range(0, rows.size, CHUNK):
        part = rows.take(np.arange(start, min(start + CHUNK, rows.size)))
        first, width, served = _select_panels(table, part)
        served_all.append(served)
        if not served.any():
            continue
        part = part.take(np.flatnonzero(served))
        first = first[served]
        panel = first[:, None] + np.arange(width)                              # (D, W)
        node = (panel[..., None] * THETA_ORDER + np.arange(THETA_ORDER)).reshape(part.size, -1)
        log_f = (_log_likelihood(table, part, node, P_ORDER)
                 + log_prior(at, bt, table.theta[node]))
        top = np.max(log_f, axis=1, keepdims=True)
        values = np.exp(log_f - np.where(np.isfinite(top), top, 0.0))
        values = np.where(np.isfinite(values), values, 0.0).reshape(part.size, width,
                                                                     THETA_ORDER)
        edges = table.edges[np.concatenate([panel, panel[:, -1:] + 1], axis=1)]
        parts.append((edges, to_coefficients(values)))
    return parts, np.concatenate(served_all)


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
