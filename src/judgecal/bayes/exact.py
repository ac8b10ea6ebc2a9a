r"""The posterior of the judge model by deterministic numerical integration (no MCMC).

Model (the same as :mod:`judgecal.bayes.model`)::

    theta ~ Beta(a_t, b_t),  q0 ~ Beta(a0, b0),  q1 ~ Beta(a1, b1)   [q0 + q1 > 1 if truncated]
    p = theta q1 + (1 - theta)(1 - q0),  k ~ Bin(n, p),  k0 ~ Bin(m0, q0),  k1 ~ Bin(m1, q1).

Coordinates
-----------
The posterior is integrated in the coordinates ``(theta, p, J)`` with ``J = q0 + q1 - 1``
(Youden's J), i.e. ``q0 = 1 - p + theta J`` and ``q1 = p + (1 - theta) J``. The map from
``(theta, q0, q1)`` has Jacobian 1, so the posterior density there is

.. math:: f(\theta, p, J) \propto \pi(\theta)\; p^{k}(1-p)^{n-k}\;
          g_0(1 - p + \theta J)\; g_1(p + (1 - \theta) J),

with ``g0 = Beta(a0 + k0, b0 + m0 - k0)`` and ``g1 = Beta(a1 + k1, b1 + m1 - k1)`` (prior times
calibration likelihood) and the better-than-chance truncation ``q0 + q1 > 1`` becoming the fixed
boundary ``J > 0``. In these coordinates each factor is smooth and each sharp factor has one
variable of its own: the binomial kernel lives in p alone (width ``~ n^(-1/2)``), the calibration
Betas along the segment of J at fixed (theta, p) (width ``~ m^(-1/2)``), and the weak-judge corner
``J -> 0``, where theta = (p - 1 + q0) / J is ill-defined in (q0, q1), is an ordinary edge.

Quadrature
----------
Nested Gauss rules, each on the window where its integrand is not negligible:

* ``J`` (inner): ``J_ORDER`` Gauss-Legendre nodes on the J-segment where both calibration Betas
  lie inside their boxes (Beta quantiles at ``BOX_TAIL``) and ``J > 0`` if truncated;
* ``p`` (middle): two panels of ``P_ORDER`` nodes on the intersection of the binomial kernel's
  window (quantiles ``BOX_TAIL`` of Beta(k + 1, n - k + 1)) with the range of p that the
  calibration boxes allow at this theta, split at ``p = theta`` (where the density, integrated
  over J, has a kink when both Betas reach 1);
* ``theta`` (outer): ``THETA_PANELS`` panels of ``THETA_ORDER`` nodes on the support found by a
  cheaper scouting pass (log-density within ``SUPPORT_DROP`` of its maximum), with a panel edge
  at ``p-hat``; a panel next to an end where a theta prior with a parameter below 1 is unbounded
  uses a Gauss-Jacobi rule that absorbs the singular factor.

The theta marginal is tabulated at the outer nodes and held as a piecewise Legendre series
(:class:`judgecal.bayes._panels.PanelDensity`): CDF, density, moments and quantiles are
polynomial evaluations. The marginals of q0, q1, J and p keep the whole nested rule: their CDF
at x integrates the innermost variable only up to the cut (``J <= (x - 1 + p) / theta`` for q0,
``J <= (x - p) / (1 - theta)`` for q1, ``J <= x`` for J; for p the middle integral stops at x),
using the Legendre interpolant of the integrand on its window, so no summary is a node value.
Joint draws come from the same rule by conditional inversion: theta from its marginal, then p
given theta, then J given (theta, p).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special as sc

from judgecal._validate import as_generator, check_counts, check_level, check_not_exceeding
from judgecal.bayes._panels import (
    PanelDensity,
    end_nodes,
    gauss_legendre,
    jacobi_rule,
    legendre_table,
    shortest_interval,
    solve_cdf,
    to_coefficients,
)
from judgecal.bayes.priors import Prior
from judgecal.data import JudgeData

__all__ = ["ExactPosterior", "VARIABLES", "exact_interval", "exact_quantiles"]

#: Variables with an exact marginal.
VARIABLES = ("theta", "q0", "q1", "youden", "p")
#: Mass of each Beta (calibration, test kernel, theta prior) left outside its integration box.
BOX_TAIL = 1e-14
#: Log-density drop below the maximum that bounds the theta support.
SUPPORT_DROP = 40.0
#: Gauss nodes: per theta panel, per half of the p window, on the J segment.
THETA_ORDER = 12
P_ORDER = 16
J_ORDER = 24
#: Theta panels of the final tabulation, and (panels, p nodes, J nodes) of the scouting pass.
THETA_PANELS = 10
SCOUT = (6, 8, 12)
#: Array elements evaluated at once (memory bound of the vectorised path).
MAX_ELEMENTS = 3_000_000
#: Outer-rule points (theta, p) whose weight is below this fraction of the largest are dropped
#: from the q0, q1, J and p marginals (their total weight is far below the quadrature error).
PRUNE = 1e-15
#: Rows of the coarse grid for the shortest interval of q0, q1, J and p.
HDI_GRID_SLOW = 24


# ------------------------------------------------------------------------------------------------
# per-dataset parameters
# ------------------------------------------------------------------------------------------------
@dataclass
class _Rows:
    """Counts, Beta parameters and integration boxes of R datasets (arrays of shape (R,))."""

    k: np.ndarray
    n: np.ndarray
    beta0: tuple[np.ndarray, np.ndarray]
    beta1: tuple[np.ndarray, np.ndarray]
    theta_prior: tuple[float, float]
    truncate: bool

    def __post_init__(self) -> None:
        (a0, b0), (a1, b1) = self.beta0, self.beta1
        self.box0 = _beta_box(a0, b0)
        self.box1 = _beta_box(a1, b1)
        self.box_p = _beta_box(self.k + 1.0, self.n - self.k + 1.0)
        self.p_hat = self.k / self.n
        self._bridge()

    def _bridge(self) -> None:
        """Widen the boxes where test and calibration data conflict so that they meet.

        p ranges over ``(1 - q0, q1)`` under truncation (over the hull of ``1 - q0`` and ``q1``
        without it). When the kernel's window lies entirely outside that range, the posterior
        sits in the gap between them, in the tails of both: the kernel's window is stretched
        across the gap and the calibration box that limits the range is stretched to reach
        the kernel.
        """
        (l0, u0), (l1, u1), (pl, pu) = self.box0, self.box1, self.box_p
        reach_low = 1 - u0 if self.truncate else np.minimum(1 - u0, l1)
        reach_high = u1 if self.truncate else np.maximum(1 - l0, u1)
        below, above = pu < reach_low, pl > reach_high
        self.box_p = (np.where(above, reach_high, pl), np.where(below, reach_low, pu))
        self.box0 = (np.where(above, np.minimum(l0, 1 - pu), l0),
                     np.where(below, np.maximum(u0, 1 - pl), u0))
        self.box1 = (np.where(below, np.minimum(l1, pl), l1),
                     np.where(above, np.maximum(u1, pu), u1))

    def take(self, rows: np.ndarray) -> _Rows:
        """The sub-batch ``rows``."""
        out = _Rows.__new__(_Rows)
        for name in ("k", "n", "p_hat"):
            setattr(out, name, getattr(self, name)[rows])
        for name in ("beta0", "beta1", "box0", "box1", "box_p"):
            setattr(out, name, tuple(v[rows] for v in getattr(self, name)))
        out.theta_prior, out.truncate = self.theta_prior, self.truncate
        return out

    @property
    def size(self) -> int:
        return self.k.size


def _beta_box(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Quantiles ``BOX_TAIL`` and ``1 - BOX_TAIL`` of Beta(a, b)."""
    return sc.betaincinv(a, b, BOX_TAIL), sc.betainccinv(a, b, BOX_TAIL)


def _log_kernel(k: np.ndarray, n: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``log[p^k (1-p)^(n-k)]`` minus its maximum over p (accurate for n up to 1e9 and more)."""
    p_hat = k / n
    with np.errstate(divide="ignore", invalid="ignore"):
        d = p - p_hat
        left = np.where(k > 0, k * np.log1p(d / np.where(k > 0, p_hat, 1.0)), 0.0)
        right = np.where(k < n, (n - k) * np.log1p(-d / np.where(k < n, 1 - p_hat, 1.0)), 0.0)
    return left + right


def _log_prior(at: float, bt: float, t: np.ndarray, low: bool = True,
               high: bool = True) -> np.ndarray:
    """Log Beta(at, bt) density at t, without ``t^(at-1)`` (``low=False``) or ``(1-t)^(bt-1)``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = -sc.betaln(at, bt) + np.zeros_like(t)
        if low:
            out = out + sc.xlogy(at - 1, t)
        if high:
            out = out + sc.xlog1py(bt - 1, -t)
    return out


def _logsumexp(v: np.ndarray, axis: int) -> np.ndarray:
    top = np.max(v, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.squeeze(top, axis) + np.log(np.sum(np.exp(v - top), axis=axis))


# ------------------------------------------------------------------------------------------------
# the nested rule at given theta
# ------------------------------------------------------------------------------------------------
@dataclass
class _Inner:
    """The p and J rules at points theta (R, T): nodes, windows and log integrand values."""

    theta: np.ndarray        # (R, T)
    p: np.ndarray            # (R, T, 2, Np) p nodes on two panels
    p_half: np.ndarray       # (R, T, 2) half-widths of the p panels
    log_b: np.ndarray        # (R, T, 2, Np) log kernel at the p nodes
    j_low: np.ndarray        # (R, T, 2, Np) J window
    j_high: np.ndarray
    log_h: np.ndarray        # (R, T, 2, Np, Nj) log calibration density at the J nodes
    log_r: np.ndarray        # (R, T, 2, Np) log of the J integral (times the J half-width)
    log_l: np.ndarray        # (R, T) log of the p integral: the theta likelihood


def _p_window(rows: _Rows, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Window of p at theta = t (R, T) and the split point between its two panels."""
    (l0, u0), (l1, u1) = ((v[:, None] for v in box) for box in (rows.box0, rows.box1))
    low = (1 - t) * (1 - u0) + t * l1
    high = (1 - t) * (1 - l0) + t * u1
    if rows.truncate:                  # p = 1 - q0 + t J > 1 - q0 and p = q1 - (1 - t) J < q1
        low, high = np.maximum(low, 1 - u0), np.minimum(high, u1)
    low = np.maximum(low, rows.box_p[0][:, None])
    high = np.minimum(high, rows.box_p[1][:, None])
    kink = t if rows.truncate else np.where((t > low) & (t < high), t, 1 - t)
    split = np.where((kink > low) & (kink < high), kink, 0.5 * (low + high))
    return low, high, split


def _j_window(rows: _Rows, t: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Window of J at (theta, p): both calibration Betas inside their boxes (and J > 0)."""
    shape = (-1,) + (1,) * (p.ndim - 1)
    (l0, u0), (l1, u1) = ((v.reshape(shape) for v in box) for box in (rows.box0, rows.box1))
    tt = t.reshape(t.shape + (1,) * (p.ndim - t.ndim))
    low = np.maximum((l0 - 1 + p) / tt, (l1 - p) / (1 - tt))
    high = np.minimum((u0 - 1 + p) / tt, (u1 - p) / (1 - tt))
    if rows.truncate:
        low = np.maximum(low, 0.0)
    return low, high


def _log_calibration(rows: _Rows, t: np.ndarray, p: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Log of g0(1 - p + t J) g1(p + (1 - t) J) (unnormalised Beta densities)."""
    shape = (-1,) + (1,) * (j.ndim - 1)
    out = np.zeros(j.shape)
    for (a, b), q in ((rows.beta0, 1 - p + t * j), (rows.beta1, p + (1 - t) * j)):
        q = np.clip(q, 1e-300, 1 - 1e-16)
        a, b = a.reshape(shape), b.reshape(shape)
        if np.any(a != 1):
            out += (a - 1) * np.log(q)
        if np.any(b != 1):
            out += (b - 1) * np.log1p(-q)
    return out


def _inner(rows: _Rows, t: np.ndarray, p_order: int = P_ORDER,
           j_order: int = J_ORDER) -> _Inner:
    """The p and J rules at theta = t (R, T) and the theta likelihood ``log L(t)``."""
    xp, wp = gauss_legendre(p_order)
    xj, wj = gauss_legendre(j_order)
    low, high, split = _p_window(rows, t)
    valid = high > low
    ends = np.stack([np.stack([low, split], -1), np.stack([split, high], -1)], -2)  # (R,T,2,2)
    ends = np.where(valid[..., None, None], ends, 0.5)
    p_half = (ends[..., 1] - ends[..., 0]) / 2                                     # (R, T, 2)
    p = ends[..., :1] + p_half[..., None] * (xp + 1)                               # (R,T,2,Np)
    log_b = _log_kernel(rows.k[:, None, None, None], rows.n[:, None, None, None], p)
    t4 = t[:, :, None, None]
    j_low, j_high = _j_window(rows, t4, p)
    j_ok = (j_high > j_low) & valid[..., None, None]
    j_half = np.where(j_ok, (j_high - j_low) / 2, 0.0)
    j = j_low[..., None] + j_half[..., None] * (xj + 1)                            # (...,Nj)
    log_h = _log_calibration(rows, t4[..., None], p[..., None], j)
    with np.errstate(divide="ignore"):
        log_r = _logsumexp(log_h + np.log(wj), axis=-1) + np.log(j_half)
        log_l = _logsumexp((log_b + log_r + np.log(wp)).reshape(t.shape + (-1,))
                           + np.repeat(np.log(np.where(valid[..., None], p_half, 0.0)),
                                       p_order, axis=-1), axis=-1)
    return _Inner(t, p, p_half, log_b, j_low, np.where(j_ok, j_high, j_low), log_h, log_r,
                  log_l)


def _log_likelihood(rows: _Rows, t: np.ndarray, p_order: int = P_ORDER,
                    j_order: int = J_ORDER) -> np.ndarray:
    """``log L(t)`` in chunks that bound memory."""
    per_point = 2 * p_order * j_order
    step = max(1, MAX_ELEMENTS // (per_point * t.shape[1]))
    out = np.empty(t.shape)
    for start in range(0, rows.size, step):
        part = np.arange(start, min(start + step, rows.size))
        out[part] = _inner(rows.take(part), t[part], p_order, j_order).log_l
    return out


# ------------------------------------------------------------------------------------------------
# the theta support and its panels
# ------------------------------------------------------------------------------------------------
def _theta_range(rows: _Rows) -> tuple[np.ndarray, np.ndarray]:
    """Conservative theta range: theta = (p - 1 + q0) / J over the box of (p, q0, q1).

    A linear-fractional function takes its extremes over a box at the vertices, as long as the
    denominator J keeps its sign; where the box reaches J <= 0 the range is [0, 1].
    """
    corners = np.array(np.meshgrid([0, 1], [0, 1], [0, 1], indexing="ij")).reshape(3, -1)
    p = np.stack(rows.box_p)[corners[0]]
    q0 = np.stack(rows.box0)[corners[1]]
    q1 = np.stack(rows.box1)[corners[2]]
    jj = q0 + q1 - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = (p - 1 + q0) / jj
    same_sign = np.all(jj > 0, axis=0) | np.all(jj < 0, axis=0)
    low = np.where(same_sign, np.clip(theta.min(axis=0), 0, 1), 0.0)
    high = np.where(same_sign, np.clip(theta.max(axis=0), 0, 1), 1.0)
    at, bt = rows.theta_prior
    if at > 1:       # a prior density that is unbounded at an end keeps that end (singular panel)
        low = np.maximum(low, sc.betaincinv(at, bt, BOX_TAIL))
    if bt > 1:
        high = np.minimum(high, sc.betainccinv(at, bt, BOX_TAIL))
    bad = ~(high > low)
    return np.where(bad, 0.0, low), np.where(bad, 1.0, high)


def _equal_panels(low: np.ndarray, high: np.ndarray, panels: int, order: int) -> np.ndarray:
    """Gauss-Legendre nodes of ``panels`` equal panels on [low, high], shape (R, panels*order)."""
    x = gauss_legendre(order)[0]
    base = (np.arange(panels)[:, None] + (x[None, :] + 1) / 2).ravel() / panels
    return low[:, None] + (high - low)[:, None] * base[None, :]


def _scout_support(rows: _Rows) -> tuple[np.ndarray, np.ndarray]:
    """Where the theta density is within ``exp(-SUPPORT_DROP)`` of its maximum (cheap pass)."""
    low, high = _theta_range(rows)
    panels, p_order, j_order = SCOUT
    t = _equal_panels(low, high, panels, THETA_ORDER)
    at, bt = rows.theta_prior
    log_f = _log_likelihood(rows, t, p_order, j_order) + _log_prior(at, bt, t)
    top = np.max(log_f, axis=1, keepdims=True)
    keep = log_f >= top - SUPPORT_DROP
    keep &= np.isfinite(top)
    first = np.argmax(keep, axis=1)
    last = t.shape[1] - 1 - np.argmax(keep[:, ::-1], axis=1)
    index = np.arange(t.shape[0])
    new_low = np.where(first > 0, t[index, np.maximum(first - 1, 0)], low)
    new_high = np.where(last < t.shape[1] - 1, t[index, np.minimum(last + 1, t.shape[1] - 1)],
                        high)
    found = keep.any(axis=1)
    return np.where(found, new_low, low), np.where(found, new_high, high)


def _panel_edges(rows: _Rows, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """``THETA_PANELS`` panels on [low, high], with an edge at p-hat when it lies inside."""
    cut = rows.p_hat
    inside = (cut > low) & (cut < high)
    frac = np.where(inside, (cut - low) / (high - low), 0.5)
    left = np.clip(np.round(frac * THETA_PANELS), 1, THETA_PANELS - 1).astype(int)
    left = np.where(inside, left, THETA_PANELS // 2)
    cut = np.where(inside, cut, 0.5 * (low + high))
    j = np.arange(THETA_PANELS + 1)[None, :]
    left_edges = low[:, None] + (cut - low)[:, None] * j / left[:, None]
    right_edges = cut[:, None] + (high - cut)[:, None] * (j - left[:, None]) / (
        THETA_PANELS - left[:, None])
    return np.where(j <= left[:, None], left_edges, right_edges)


def _singular_powers(rows: _Rows, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exponents of the singular prior factors on the end panels (1 where regular)."""
    at, bt = rows.theta_prior
    power_low = np.where((at < 1) & (edges[:, 0] <= 0.0), at, 1.0)
    power_high = np.where((bt < 1) & (edges[:, -1] >= 1.0), bt, 1.0)
    return power_low, power_high


def _theta_nodes(edges: np.ndarray, powers: tuple[np.ndarray, np.ndarray]
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Nodes (R, P*N) and log weights of the theta rule (Jacobi on singular end panels).

    The weights include the singular factor on those panels, so ``sum w g(t)`` integrates
    ``pi(t) L(t)`` when the nodes carry the regular part of the prior.
    """
    x, w = gauss_legendre(THETA_ORDER)
    half = np.diff(edges, axis=1) / 2
    t = edges[:, :-1, None] + half[:, :, None] * (x + 1)
    with np.errstate(divide="ignore"):
        log_w = np.log(half)[:, :, None] + np.log(w)
    log_w = np.broadcast_to(log_w, t.shape).copy()
    for side, power in ((0, powers[0]), (-1, powers[1])):
        for value in np.unique(power[power != 1.0]):
            hit = power == value
            v, weights = jacobi_rule(THETA_ORDER, float(value))
            width = 2 * half[hit, side]
            end = edges[hit, 0 if side == 0 else -1]
            sign = 1.0 if side == 0 else -1.0
            t[hit, side] = end[:, None] + sign * width[:, None] * v
            log_w[hit, side] = value * np.log(width)[:, None] + np.log(weights)
    return t.reshape(t.shape[0], -1), log_w.reshape(t.shape[0], -1)


def _regular_log_prior(rows: _Rows, t: np.ndarray, powers: tuple[np.ndarray, np.ndarray]
                       ) -> np.ndarray:
    """Log theta prior at the nodes, without the singular factor on singular end panels."""
    at, bt = rows.theta_prior
    out = _log_prior(at, bt, t)
    first = np.zeros(t.shape[1], bool)
    first[:THETA_ORDER] = True
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where((powers[0] != 1.0)[:, None] & first, out - sc.xlogy(at - 1, t), out)
        out = np.where((powers[1] != 1.0)[:, None] & first[::-1],
                       out - sc.xlog1py(bt - 1, -t), out)
    return out


def _theta_density(rows: _Rows, log_l: np.ndarray, t: np.ndarray, edges: np.ndarray,
                   powers: tuple[np.ndarray, np.ndarray]) -> PanelDensity:
    """The theta marginal as a piecewise Legendre series from ``log L`` at the nodes."""
    log_f = log_l + _regular_log_prior(rows, t, powers)
    top = np.max(log_f, axis=1, keepdims=True)
    values = np.exp(log_f - np.where(np.isfinite(top), top, 0.0))
    values = np.where(np.isfinite(values), values, 0.0).reshape(rows.size, -1, THETA_ORDER)
    coef = to_coefficients(values)
    for side, power in ((0, powers[0]), (-1, powers[1])):
        for value in np.unique(power[power != 1.0]):
            hit = power == value
            u = end_nodes(THETA_ORDER, float(value), side == 0)
            coef[hit, side] = np.linalg.solve(legendre_table(u, THETA_ORDER - 1),
                                              values[hit, side].T).T
    return PanelDensity(edges, coef, *powers)


def _theta_rule(rows: _Rows) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                      tuple[np.ndarray, np.ndarray]]:
    """Support, panel edges, nodes, log weights and singular powers of the theta rule."""
    low, high = _scout_support(rows)
    edges = _panel_edges(rows, low, high)
    powers = _singular_powers(rows, edges)
    t, log_w = _theta_nodes(edges, powers)
    return edges, t, log_w, powers


# ------------------------------------------------------------------------------------------------
# the public class
# ------------------------------------------------------------------------------------------------
class ExactPosterior:
    r"""Posterior of (theta, q0, q1, J, p) by deterministic quadrature (see the module docstring).

    Parameters
    ----------
    data : JudgeData
        The six counts. An empty calibration arm (``m0 = 0`` or ``m1 = 0``, possible in a random
        design) leaves that parameter to its prior.
    prior : Prior, optional
        Beta priors; ``None`` means ``Prior()`` (uniform, truncated to q0 + q1 > 1). For a
        random design pass the prior of :func:`judgecal.bayes.priors.random_design_prior`.

    Notes
    -----
    Every summary is computed from the nested Gauss rule, never from draws: quantiles agree with
    an independent brute-force integration to 1e-4 or better across weak judges, tiny and huge
    calibration sets, n up to 1e9 and estimates at 0 and 1 (tests/test_exact_reference.py).

    Examples
    --------
    >>> post = ExactPosterior(JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200))
    >>> round(post.mean(), 3), round(post.quantile(0.5, var="q0"), 4)
    (0.162, 0.6971)
    """

    def __init__(self, data: JudgeData, prior: Prior | None = None) -> None:
        if not isinstance(data, JudgeData):
            raise TypeError(f"`data` must be a JudgeData, got {type(data).__name__}.")
        self.data = data
        self.prior = _check_prior(prior)
        self._rows = _rows_for(*(np.array([float(getattr(data, name))])
                                 for name in ("k", "n", "k0", "m0", "k1", "m1")), self.prior)
        edges, t, log_w, powers = _theta_rule(self._rows)
        self._inner = _inner(self._rows, t)
        self._theta = _theta_density(self._rows, self._inner.log_l, t, edges, powers)
        self._log_w_theta = log_w + _regular_log_prior(self._rows, t, powers)
        self._outer: _OuterRule | None = None

    # -- the rule for q0, q1, J and p -----------------------------------------------------------
    @property
    def _rule(self) -> _OuterRule:
        if self._outer is None:
            self._outer = _OuterRule(self._inner, self._log_w_theta)
        return self._outer

    # -- public API -----------------------------------------------------------------------------
    def cdf(self, x: Any, var: str = "theta") -> np.ndarray | float:
        """Posterior CDF ``P(var <= x)``, vectorised over ``x``."""
        var = _check_var(var)
        arr = np.asarray(x, float)
        flat = arr.reshape(1, -1)
        out = (self._theta.cdf_pdf(flat)[0] if var == "theta"
               else self._rule.cdf_pdf(flat[0], var)[0])
        return _shaped(out, arr.shape)

    def pdf(self, x: Any, var: str = "theta") -> np.ndarray | float:
        """Posterior density of ``var`` at ``x``, vectorised over ``x``."""
        var = _check_var(var)
        arr = np.asarray(x, float)
        flat = arr.reshape(1, -1)
        out = (self._theta.cdf_pdf(flat)[1] if var == "theta"
               else self._rule.cdf_pdf(flat[0], var)[1])
        return _shaped(out, arr.shape)

    def quantile(self, q: Any, var: str = "theta") -> np.ndarray | float:
        """Posterior quantile of ``var`` at probabilities ``q`` (vectorised)."""
        var = _check_var(var)
        arr = _check_probs(q, "q")
        flat = arr.reshape(1, -1)
        out = self._quantile(flat, var)
        return _shaped(out, arr.shape)

    def _quantile(self, levels: np.ndarray, var: str) -> np.ndarray:
        if var == "theta":
            return self._theta.quantile(levels)
        return self._rule.quantile(levels[0], var)[None, :]

    def mean(self, var: str = "theta") -> float:
        """Posterior mean of ``var``."""
        var = _check_var(var)
        if var == "theta":
            return float(self._theta.mean_sd()[0][0])
        return float(self._rule.moments(var)[0])

    def sd(self, var: str = "theta") -> float:
        """Posterior standard deviation of ``var``."""
        var = _check_var(var)
        if var == "theta":
            return float(self._theta.mean_sd()[1][0])
        return float(self._rule.moments(var)[1])

    def interval(self, prob: float = 0.95, kind: str = "eti",
                 var: str = "theta") -> tuple[float, float]:
        """Credible interval: equal-tailed (``"eti"``) or shortest (``"hdi"``)."""
        prob = check_level(prob, "prob")
        kind = _check_kind(kind)
        var = _check_var(var)
        if kind == "eti":
            low, high = self._quantile(np.array([[(1 - prob) / 2, (1 + prob) / 2]]), var)[0]
            return float(low), float(high)
        if var == "theta":
            low, high = shortest_interval(self._theta.quantile,
                                          lambda t: self._theta.cdf_pdf(t)[1], 1, prob)
        else:
            rule = self._rule
            low, high = shortest_interval(
                lambda lv: rule.quantile(lv[0], var)[None, :],
                lambda t: rule.cdf_pdf(t[0], var)[1][None, :], 1, prob, grid=HDI_GRID_SLOW)
        return float(low[0]), float(high[0])

    def mode(self) -> float:
        """Posterior mode of theta (maximiser of the marginal density; 0 or 1 at a bound)."""
        low, high = self._theta.support
        grid = np.linspace(low[0], high[0], 513)
        dens = self._theta.cdf_pdf(grid[None, :])[1][0]
        i = int(np.argmax(dens))
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
        ratio = (np.sqrt(5.0) - 1) / 2
        for _ in range(60):
            c, d = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
            fc, fd = self._theta.cdf_pdf(np.array([[c, d]]))[1][0]
            hi, lo = (d, lo) if fc >= fd else (hi, c)
        return float((lo + hi) / 2)

    def sample(self, size: int, random_seed: Any = None) -> dict[str, np.ndarray]:
        """Draw ``size`` joint posterior draws of theta, q0, q1, youden and p.

        theta is drawn from its marginal, p from its conditional law given theta and J from its
        conditional law given (theta, p), each by inverting a CDF of the nested rule at uniform
        variates; q0 = 1 - p + theta J and q1 = p + (1 - theta) J. The draws are i.i.d. and
        continuous (no quadrature-node values).
        """
        if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 0:
            raise ValueError(f"`size` ({size!r}) must be a non-negative integer.")
        rng = as_generator(random_seed)
        u = rng.random((3, int(size)))
        theta = self._theta.quantile(u[:1])[0] if size else np.empty(0)
        p, j = _conditional_draws(self._rows, theta, u[1], u[2])
        return {"theta": theta, "q0": 1 - p + theta * j, "q1": p + (1 - theta) * j,
                "youden": j, "p": p}

    def __repr__(self) -> str:
        return f"ExactPosterior(data={self.data!r}, prior={self.prior!r})"


def _shaped(out: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | float:
    out = np.asarray(out).reshape(shape)
    return float(out) if out.ndim == 0 else out


# ------------------------------------------------------------------------------------------------
# marginals of q0, q1, J and p from the nested rule
# ------------------------------------------------------------------------------------------------
class _OuterRule:
    """The nested rule of one dataset, flattened over the (theta, p) points that matter.

    Holds, for every retained (theta, p) point, its log weight (theta weight x p weight x
    kernel x J half-width) and the Legendre coefficients of the calibration density on its J
    window; and, per theta node and p panel, the coefficients of ``b(p) R(theta, p)``.
    """

    def __init__(self, inner: _Inner, log_w_theta: np.ndarray) -> None:
        xj, wj = gauss_legendre(J_ORDER)
        xp, wp = gauss_legendre(P_ORDER)
        t = np.broadcast_to(inner.theta[0][:, None, None], inner.p.shape[1:])      # (T, 2, Np)
        j_half = (inner.j_high[0] - inner.j_low[0]) / 2
        with np.errstate(divide="ignore"):
            log_wt = log_w_theta[0][:, None, None]
            log_point = (log_wt + np.log(inner.p_half[0])[..., None] + np.log(wp)
                         + inner.log_b[0] + np.log(j_half))
        log_h = inner.log_h[0]
        top_h = np.max(np.where(np.isfinite(log_h), log_h, -np.inf))
        log_point = log_point + top_h
        h = np.exp(log_h - top_h)
        top = np.max(log_point)
        keep = np.isfinite(log_point) & (log_point > top + np.log(PRUNE)) & (j_half > 0)
        self.weight = np.exp(log_point[keep] - top)                       # (M,)
        self.theta, self.p = t[keep], inner.p[0][keep]
        self.j_low, self.j_half = inner.j_low[0][keep], j_half[keep]
        self.coef = to_coefficients(h[keep])                              # (M, Nj)
        self.norm = 2 * np.sum(self.weight * self.coef[:, 0])
        # J-moments at the nodes for means: sum_l wj h(J_l) J_l^r
        nodes = self.j_low[:, None] + self.j_half[:, None] * (xj + 1)
        self._node_mass = h[keep] * wj                                     # (M, Nj)
        self._j_nodes = nodes
        # p marginal: per theta node and p panel, coefficients of b(p) R(theta, p) on the panel
        with np.errstate(divide="ignore"):
            log_bpr = inner.log_b[0] + inner.log_r[0] + log_wt
        top_p = np.max(np.where(np.isfinite(log_bpr), log_bpr, -np.inf))
        bpr = np.where(np.isfinite(log_bpr), np.exp(log_bpr - top_p), 0.0)  # (T, 2, Np)
        self.p_left = inner.p[0][..., 0] - inner.p_half[0] * (xp[0] + 1)    # (T, 2)
        self.p_half = inner.p_half[0]
        self.p_coef = to_coefficients(bpr)                                  # (T, 2, Np)
        self.p_norm = np.sum(2 * self.p_half * self.p_coef[..., 0])

    def _cut(self, x: np.ndarray, var: str) -> tuple[np.ndarray, np.ndarray]:
        """Cut J*(x) on every J window for ``var <= x`` and dJ*/dx, shapes (M, X)."""
        t, p = self.theta[:, None], self.p[:, None]
        if var == "youden":
            return np.broadcast_to(x[None, :], (t.size, x.size)), np.ones((t.size, 1))
        if var == "q0":
            return (x[None, :] - 1 + p) / t, 1 / t
        return (x[None, :] - p) / (1 - t), 1 / (1 - t)

    def cdf_pdf(self, x: np.ndarray, var: str) -> tuple[np.ndarray, np.ndarray]:
        """CDF and density of ``var`` at points x (1-D)."""
        x = np.asarray(x, float).ravel()
        if var == "p":
            return self._p_cdf_pdf(x)
        cut, slope = self._cut(x, var)
        u = (cut - self.j_low[:, None]) / self.j_half[:, None] - 1                  # (M, X)
        inside = (u > -1) & (u < 1)
        uc = np.clip(u, -1.0, 1.0)
        table = legendre_table(uc, J_ORDER)                                          # (M,X,N+1)
        coef = self.coef[:, None, :]
        integral = (table[..., 2:] - table[..., :-2]) / (2 * np.arange(1, J_ORDER) + 1)
        part = coef[..., 0] * (uc + 1) + np.einsum("mxl,mxl->mx",
                                                   np.broadcast_to(coef[..., 1:], integral.shape),
                                                   integral)
        cdf = self.weight @ part / self.norm
        value = np.einsum("mxl,mxl->mx", np.broadcast_to(coef, table[..., :J_ORDER].shape),
                          table[..., :J_ORDER])
        dens = self.weight @ np.where(inside, value * slope / self.j_half[:, None], 0.0)
        return np.clip(cdf, 0.0, 1.0), np.maximum(dens / self.norm, 0.0)

    def _p_cdf_pdf(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        half = self.p_half[..., None]
        u = (x - self.p_left[..., None]) / np.where(half > 0, half, 1.0) - 1        # (T, 2, X)
        inside = (u > -1) & (u < 1) & (half > 0)
        uc = np.clip(u, -1.0, 1.0)
        table = legendre_table(uc, P_ORDER)
        coef = np.broadcast_to(self.p_coef[:, :, None, :], uc.shape + (P_ORDER,))
        integral = (table[..., 2:] - table[..., :-2]) / (2 * np.arange(1, P_ORDER) + 1)
        part = coef[..., 0] * (uc + 1) + np.einsum("tpxl,tpxl->tpx", coef[..., 1:], integral)
        cdf = np.sum(half * part, axis=(0, 1)) / self.p_norm
        value = np.einsum("tpxl,tpxl->tpx", coef, table[..., :P_ORDER])
        dens = np.sum(np.where(inside, value, 0.0), axis=(0, 1)) / self.p_norm
        return np.clip(cdf, 0.0, 1.0), np.maximum(dens, 0.0)

    def values(self, var: str) -> np.ndarray:
        """``var`` at every node of the rule, shape (M, Nj)."""
        t, p, j = self.theta[:, None], self.p[:, None], self._j_nodes
        return {"q0": 1 - p + t * j, "q1": p + (1 - t) * j, "youden": j,
                "p": np.broadcast_to(p, j.shape)}[var]

    def moments(self, var: str) -> tuple[float, float]:
        """Mean and standard deviation of ``var``."""
        mass = self.weight[:, None] * self._node_mass
        total = mass.sum()
        v = self.values(var)
        mean = float(np.sum(mass * v) / total)
        var_ = float(np.sum(mass * (v - mean) ** 2) / total)
        return mean, float(np.sqrt(max(var_, 0.0)))

    def quantile(self, levels: np.ndarray, var: str) -> np.ndarray:
        """Quantiles of ``var`` at probabilities ``levels`` (1-D)."""
        levels = np.asarray(levels, float).ravel()
        values = self.values(var)
        low = np.full(levels.shape, float(values.min()) - 1e-12)
        high = np.full(levels.shape, float(values.max()) + 1e-12)
        if var == "p":
            low = np.full(levels.shape, float(np.min(self.p_left)))
            high = np.full(levels.shape, float(np.max(self.p_left + 2 * self.p_half)))
        mean, sd = self.moments(var)
        start = np.clip(mean + sd * sc.ndtri(levels), low, high)
        return solve_cdf(lambda x: self.cdf_pdf(x, var), levels, start, low, high)


# ------------------------------------------------------------------------------------------------
# joint draws
# ------------------------------------------------------------------------------------------------
def _conditional_draws(rows: _Rows, theta: np.ndarray, u_p: np.ndarray, u_j: np.ndarray
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Draw p given theta and J given (theta, p) by inverting their conditional CDFs."""
    p_out, j_out = np.empty(theta.size), np.empty(theta.size)
    step = max(1, MAX_ELEMENTS // (2 * P_ORDER * J_ORDER))
    for start in range(0, theta.size, step):
        part = slice(start, start + step)
        t = theta[None, part]
        inner = _inner(rows, t)
        with np.errstate(divide="ignore"):
            log_v = inner.log_b[0] + inner.log_r[0]                            # (S, 2, Np)
        top = np.max(np.where(np.isfinite(log_v), log_v, -np.inf), axis=(1, 2), keepdims=True)
        values = np.where(np.isfinite(log_v), np.exp(log_v - top), 0.0)
        low, high, split = _p_window(rows, t)
        edges = np.stack([low[0], split[0], high[0]], axis=1)
        p_density = PanelDensity(edges, to_coefficients(values))
        p = p_density.quantile(u_p[part][:, None])[:, 0]
        p_out[part] = p
        j_low, j_high = _j_window(rows, t[0], p)
        j_half = (j_high - j_low) / 2
        xj = gauss_legendre(J_ORDER)[0]
        j_nodes = j_low[:, None] + j_half[:, None] * (xj + 1)
        log_h = _log_calibration(rows, t[0][:, None], p[:, None], j_nodes)
        h = np.exp(log_h - np.max(log_h, axis=1, keepdims=True))
        j_density = PanelDensity(np.stack([j_low, j_high], axis=1), to_coefficients(h)[:, None])
        j_out[part] = j_density.quantile(u_j[part][:, None])[:, 0]
    return p_out, j_out


# ------------------------------------------------------------------------------------------------
# validation helpers
# ------------------------------------------------------------------------------------------------
def _check_var(var: Any) -> str:
    if var not in VARIABLES:
        raise ValueError(f"`var` ({var!r}) must be one of {', '.join(map(repr, VARIABLES))}.")
    return str(var)


def _check_kind(kind: Any) -> str:
    if kind not in ("eti", "hdi"):
        raise ValueError(f"`kind` ({kind!r}) must be 'eti' or 'hdi'.")
    return str(kind)


def _check_probs(q: Any, name: str) -> np.ndarray:
    if isinstance(q, (bool, np.bool_, str, bytes)) or q is None:
        raise TypeError(f"`{name}` must be a probability or an array of them, got {q!r}.")
    try:
        arr = np.asarray(q, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be a probability or an array of them, got {q!r}.") from None
    if arr.size and not (np.all(arr > 0) and np.all(arr < 1)):
        bad = arr[~((arr > 0) & (arr < 1))].ravel()[0]
        raise ValueError(f"`{name}` ({bad!r}) must lie strictly between 0 and 1.")
    return arr


def _check_prior(prior: Any) -> Prior:
    if prior is None:
        return Prior()
    if not isinstance(prior, Prior):
        raise TypeError(f"`prior` must be a judgecal Prior or None, got {type(prior).__name__}.")
    return prior


def _rows_for(k: np.ndarray, n: np.ndarray, k0: np.ndarray, m0: np.ndarray, k1: np.ndarray,
              m1: np.ndarray, prior: Prior) -> _Rows:
    (a0, b0), (a1, b1) = prior.q0, prior.q1
    return _Rows(k, n, (a0 + k0, b0 + m0 - k0), (a1 + k1, b1 + m1 - k1), prior.theta,
                 prior.better_than_chance)


# ------------------------------------------------------------------------------------------------
# vectorised path
# ------------------------------------------------------------------------------------------------
def _broadcast_counts(k: Any, n: Any, k0: Any, m0: Any, k1: Any, m1: Any) -> list[np.ndarray]:
    arrays = {}
    for name, value, minimum in (("k", k, 0), ("n", n, 1), ("k0", k0, 0), ("m0", m0, 0),
                                 ("k1", k1, 0), ("m1", m1, 0)):
        arrays[name] = check_counts(value, name, minimum=minimum)
    for part, whole in (("k", "n"), ("k0", "m0"), ("k1", "m1")):
        check_not_exceeding(arrays[part], arrays[whole], part, whole)
    return [a.astype(float) for a in np.broadcast_arrays(*arrays.values())]


def _theta_marginals(counts: list[np.ndarray], prior: Prior) -> tuple[PanelDensity, np.ndarray]:
    """Theta marginals of the distinct datasets among ``counts`` and the map back to them."""
    flat = np.stack([c.ravel() for c in counts], axis=1)
    unique, inverse = np.unique(flat, axis=0, return_inverse=True)
    rows = _rows_for(*unique.T, prior)
    edges, t, _, powers = _theta_rule(rows)
    log_l = _log_likelihood(rows, t)
    return _theta_density(rows, log_l, t, edges, powers), inverse.ravel()


def exact_quantiles(k: Any, n: Any, k0: Any, m0: Any, k1: Any, m1: Any, q: Any, *,
                    prior: Prior | None = None) -> np.ndarray:
    """Posterior quantiles of theta for many datasets at once.

    Parameters
    ----------
    k, n, k0, m0, k1, m1 : array_like of int
        Counts; they broadcast together to the shape S.
    q : float or 1-D array_like
        Probabilities strictly inside (0, 1).
    prior : Prior, optional
        Shared prior (default ``Prior()``).

    Returns
    -------
    numpy.ndarray
        Shape ``S + (len(q),)`` (``S`` when ``q`` is a scalar). Identical datasets are computed
        once.
    """
    prior = _check_prior(prior)
    levels = _check_probs(q, "q")
    if levels.ndim > 1:
        raise ValueError(f"`q` must be a scalar or 1-D, got shape {levels.shape}.")
    counts = _broadcast_counts(k, n, k0, m0, k1, m1)
    shape = counts[0].shape
    flat_q = np.atleast_1d(levels)
    if counts[0].size == 0:
        out = np.empty(shape + (flat_q.size,))
    else:
        density, inverse = _theta_marginals(counts, prior)
        rows = density.edges.shape[0]
        out = density.quantile(np.broadcast_to(flat_q, (rows, flat_q.size)))[inverse]
        out = out.reshape(shape + (flat_q.size,))
    return out[..., 0] if levels.ndim == 0 else out


def exact_interval(k: Any, n: Any, k0: Any, m0: Any, k1: Any, m1: Any, *, prob: float = 0.95,
                   kind: str = "eti", prior: Prior | None = None
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Credible intervals for theta for many datasets at once.

    Parameters
    ----------
    k, n, k0, m0, k1, m1 : array_like of int
        Counts; they broadcast together.
    prob : float, default 0.95
        Credibility level in (0, 1).
    kind : {"eti", "hdi"}
        Equal-tailed or shortest (highest-density) interval.
    prior : Prior, optional
        Shared prior (default ``Prior()``).

    Returns
    -------
    (low, high) : tuple of numpy.ndarray
        Arrays of the broadcast shape.
    """
    prob = check_level(prob, "prob")
    kind = _check_kind(kind)
    prior = _check_prior(prior)
    if kind == "eti":
        out = exact_quantiles(k, n, k0, m0, k1, m1, [(1 - prob) / 2, (1 + prob) / 2],
                              prior=prior)
        return out[..., 0], out[..., 1]
    counts = _broadcast_counts(k, n, k0, m0, k1, m1)
    shape = counts[0].shape
    if counts[0].size == 0:
        return np.empty(shape), np.empty(shape)
    density, inverse = _theta_marginals(counts, prior)
    low, high = shortest_interval(density.quantile, lambda t: density.cdf_pdf(t)[1],
                                  density.edges.shape[0], prob)
    return low[inverse].reshape(shape), high[inverse].reshape(shape)
