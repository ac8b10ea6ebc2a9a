r"""The J rule of the exact engine, evaluated fast: ``log R(theta, p)`` for one calibration.

For a node pair (theta, p) the calibration factor of the posterior is integrated over J,

.. math:: R(\theta, p) = \int g_0(1 - p + \theta J)\, g_1(p + (1 - \theta) J)\, dJ,

by ``J_ORDER`` Gauss-Legendre nodes on the window where both calibration Betas lie inside their
boxes (:func:`judgestats.bayes._terms.j_window`). On that window ``J = mid + half x``, and each
of ``q0``, ``1 - q0``, ``q1``, ``1 - q1`` is a straight line ``centre + slope x`` in the node
coordinate ``x``, so the four arguments of the logarithms at every node are one matrix product,
(nodes, 2) times (2, terms x pairs), and the log density a product with the weights
``(a0 - 1, b0 - 1, a1 - 1, b1 - 1)``. The result equals the engine's direct evaluation
(:func:`judgestats.bayes._terms.log_calibration`) up to rounding.
"""

from __future__ import annotations

import functools
import threading

import numpy as np

from judgestats.bayes._panels import gauss_legendre
from judgestats.bayes._terms import J_ORDER, Rows, j_window

__all__ = ["log_r"]

#: Node pairs whose J rule is evaluated at once (a block of nodes x terms x pairs values).
PAIRS_PER_BLOCK = 4096
#: Distance of the calibration boxes from 0 and 1 beyond which no J node rounds out of (0, 1).
SAFE_MARGIN = 1e-12
#: The engine's clip of q (``[1e-300, 1 - 2^-53]``) as floors of q and of 1 - q.
Q_FLOOR, ONE_MINUS_Q_FLOOR = 1e-300, 2.0**-53

_WORKSPACE = threading.local()  # per thread, the memory reused by every block


def _workspace(name: str, size: int) -> np.ndarray:
    """A float buffer ``name`` of ``size`` elements, reused by later calls on the same thread.

    Fresh memory of this size is mapped page by page on first touch, which on some virtual
    machines costs as much as the logarithms written into it.
    """
    buffer = getattr(_WORKSPACE, name, None)
    if buffer is None or buffer.size < size:
        buffer = np.empty(size)
        setattr(_WORKSPACE, name, buffer)
    return buffer[:size]


@functools.lru_cache(maxsize=8)
def _basis(order: int) -> np.ndarray:
    """``(1, x_i)`` for the Gauss nodes ``x_i`` of the J rule, shape (order, 2) (read-only)."""
    out = np.stack([np.ones(order), gauss_legendre(order)[0]], axis=1)
    out.flags.writeable = False
    return out


def _terms(band: Rows) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Which of ``q0, 1 - q0, q1, 1 - q1`` enter ``log g0 g1``, their weights and floors.

    The weights are ``(a0 - 1, b0 - 1, a1 - 1, b1 - 1)``; a term of weight zero is left out
    (all four kept with weight zero where every one is). The floors clip the terms as the
    engine clips ``q`` to ``[1e-300, 1 - 2^-53]``; None where the calibration boxes keep every
    J node safely inside (0, 1).
    """
    (a0, b0), (a1, b1) = ((float(a[0]) - 1, float(b[0]) - 1) for a, b in (band.beta0, band.beta1))
    weights = np.array([a0, b0, a1, b1])
    keep = weights != 0 if np.any(weights != 0) else np.ones(4, dtype=bool)
    (l0, u0), (l1, u1) = ((float(v[0]) for v in box) for box in (band.box0, band.box1))
    safe = min(l0, l1, 1 - u0, 1 - u1) > SAFE_MARGIN
    floors = np.array([Q_FLOOR, ONE_MINUS_Q_FLOOR, Q_FLOOR, ONE_MINUS_Q_FLOOR])
    return keep, weights[keep], None if safe else floors[keep]


def _lines(
    band: Rows, t: np.ndarray, p: np.ndarray, keep: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    r"""The kept terms at node pairs (t, p) of shape (pairs,) as lines in ``x``; half-widths.

    The J window is where both calibration Betas lie inside their boxes (and ``J >= 0`` under
    the truncation), :func:`judgestats.bayes._terms.j_window`. On it, at
    ``J = mid + half x``,

    .. math:: q_0 = 1 - p + tJ, \quad 1 - q_0 = p - tJ, \quad
              q_1 = p + (1 - t)J, \quad 1 - q_1 = 1 - p - (1 - t)J.

    Returns the lines (2, K, pairs: centres, slopes; in this thread's workspace) and the
    half-widths (pairs,), zero where the window is empty (there the lines are the constants
    ``1 - p``, ``p``: harmless inside (0, 1)).
    """
    s, shift = 1 - t, p - 1
    low, high = j_window(band, t, p)
    half = np.subtract(high, low, out=high)
    half *= 0.5
    ok = half > 0
    np.maximum(half, 0.0, out=half)
    mid = np.where(ok, low + half, 0.0)
    lines = _workspace("lines", 2 * int(keep.sum()) * t.size).reshape(2, -1, t.size)
    rows = iter(range(lines.shape[1]))
    for kept, centre, slope in zip(keep, (-shift, p, p, -shift), (t, -t, s, -s), strict=True):
        if kept:
            row = next(rows)
            np.multiply(slope, mid, out=lines[0, row])
            lines[0, row] += centre
            np.multiply(slope, half, out=lines[1, row])
    return lines, half


def _log_r_block(
    weights: np.ndarray, floors: np.ndarray | None, lines: np.ndarray, half: np.ndarray, order: int
) -> np.ndarray:
    r"""``log R`` of a block of node pairs from their lines (see :func:`_lines`).

    .. math:: R = h \sum_i w_i \exp \sum_k c_k \log(\mathrm{centre}_k + \mathrm{slope}_k x_i)

    Both products are written into this thread's workspace; the J nodes run along the first
    axis, so that the maximum and the sum over them are operations on contiguous rows.
    """
    count, pairs = weights.size, lines.shape[2]
    space = _workspace("terms", order * (count + 1) * pairs)
    terms = space[: order * count * pairs].reshape(order, count * pairs)
    log_h = space[order * count * pairs :].reshape(order, pairs)
    np.matmul(_basis(order), lines.reshape(2, -1), out=terms)
    stacked = terms.reshape(order, count, pairs)
    if floors is not None:
        np.maximum(stacked, floors[:, None], out=stacked)
    with np.errstate(divide="ignore", invalid="ignore"):  # empty windows at p = 0 or 1
        np.log(terms, out=terms)
        np.matmul(weights, stacked, out=log_h)
        top = np.max(log_h, axis=0)
        log_h -= top
        np.exp(log_h, out=log_h)
        out = top + np.log(gauss_legendre(order)[1] @ log_h) + np.log(half)
    return np.where(half > 0, out, -np.inf)


def log_r(band: Rows, t: np.ndarray, p: np.ndarray, order: int = J_ORDER) -> np.ndarray:
    """``log R(theta, p)`` by the J rule of ``order`` nodes for one calibration (``band``).

    ``t`` and ``p`` broadcast together, theta strictly inside (0, 1); -inf where the J window
    is empty. Evaluated in blocks of ``PAIRS_PER_BLOCK`` pairs.
    """
    shape = np.broadcast_shapes(np.shape(t), np.shape(p))
    t, p = (np.broadcast_to(v, shape).ravel() for v in (t, p))
    keep, weights, floors = _terms(band)
    out = np.empty(t.size)
    for start in range(0, t.size, PAIRS_PER_BLOCK):
        part = slice(start, start + PAIRS_PER_BLOCK)
        lines, half = _lines(band, t[part], p[part], keep)
        out[part] = _log_r_block(weights, floors, lines, half, order)
    return out.reshape(shape)
