r"""The posterior of the judge model by deterministic numerical integration (no MCMC).

Model (the same as :mod:`judgestats.bayes.model`)::

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
(:class:`judgestats.bayes._panels.PanelDensity`): CDF, density, moments and quantiles are
polynomial evaluations. The marginals of q0, q1, J and p are tabulated the same way from 2-D
integrals of their own (:mod:`judgestats.bayes._marginals`), so no summary is a node value. The
nested rule also gives the diagnostics' expectations (posterior predictive p-values, the
probability of a weak judge; :class:`_NestedRule`) and the joint draws, by conditional inversion:
theta from its marginal, then p given theta, then J given (theta, p). Many datasets at once
(:func:`exact_quantiles`, :func:`exact_interval`) share a table per calibration group
(:mod:`judgestats.bayes._batch`).
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special as sc

from judgestats._validate import (
    as_generator,
    check_choice,
    check_level,
    check_open_probabilities,
    check_positive_int,
    check_six_counts,
)
from judgestats.bayes._batch import batch_ready, group_marginals, stack
from judgestats.bayes._marginals import marginal
from judgestats.bayes._panels import (
    PanelDensity,
    end_to_coefficients,
    gauss_legendre,
    jacobi_rule,
    legendre_table,
    to_coefficients,
)
from judgestats.bayes._terms import (
    BOX_TAIL,
    J_ORDER,
    P_ORDER,
    SUPPORT_DROP,
    THETA_ORDER,
    Rows,
    j_window,
    log_calibration,
    log_kernel,
    log_prior,
    logsumexp,
    p_window,
    rows_for,
)
from judgestats.bayes.priors import Prior, as_prior
from judgestats.data import JudgeData

__all__ = ["ExactPosterior", "VARIABLES", "exact_interval", "exact_quantiles"]

#: Variables with an exact marginal.
VARIABLES = ("theta", "q0", "q1", "youden", "p")
#: Nodes of the p and J rules behind the diagnostics (posterior predictive p-values, P(J < x)).
DIAGNOSTIC_ORDERS = (8, 24)
#: Theta panels of the final tabulation, and (panels, p nodes, J nodes) of the scouting pass.
THETA_PANELS = 10
SCOUT = (4, 8, 12)
#: Array elements evaluated at once (memory bound of the vectorised path).
MAX_ELEMENTS = 3_000_000


# ------------------------------------------------------------------------------------------------
# the nested rule at given theta
# ------------------------------------------------------------------------------------------------
@dataclass
class _Inner:
    """The p and J rules at points theta (R, T): nodes, windows and log integrand values."""

    theta: np.ndarray  # (R, T)
    p: np.ndarray  # (R, T, 2, Np) p nodes on two panels
    p_half: np.ndarray  # (R, T, 2) half-widths of the p panels
    log_b: np.ndarray  # (R, T, 2, Np) log kernel at the p nodes
    j_low: np.ndarray  # (R, T, 2, Np) J window
    j_high: np.ndarray
    log_h: np.ndarray  # (R, T, 2, Np, Nj) log calibration density at the J nodes
    log_r: np.ndarray  # (R, T, 2, Np) log of the J integral (times the J half-width)
    log_l: np.ndarray  # (R, T) log of the p integral: the theta likelihood


def _inner(rows: Rows, t: np.ndarray, p_order: int = P_ORDER, j_order: int = J_ORDER) -> _Inner:
    """The p and J rules at theta = t (R, T) and the theta likelihood ``log L(t)``."""
    xp, wp = gauss_legendre(p_order)
    xj, wj = gauss_legendre(j_order)
    low, high, split = p_window(rows, t)
    valid = high > low
    ends = np.stack([np.stack([low, split], -1), np.stack([split, high], -1)], -2)  # (R,T,2,2)
    ends = np.where(valid[..., None, None], ends, 0.5)
    p_half = (ends[..., 1] - ends[..., 0]) / 2  # (R, T, 2)
    p = ends[..., :1] + p_half[..., None] * (xp + 1)  # (R,T,2,Np)
    log_b = log_kernel(rows.k[:, None, None, None], rows.n[:, None, None, None], p)
    t4 = t[:, :, None, None]
    j_low, j_high = j_window(rows, t4, p)
    j_ok = (j_high > j_low) & valid[..., None, None]
    j_half = np.where(j_ok, (j_high - j_low) / 2, 0.0)
    j = j_low[..., None] + j_half[..., None] * (xj + 1)  # (...,Nj)
    log_h = log_calibration(rows, t4[..., None], p[..., None], j)
    with np.errstate(divide="ignore"):
        log_r = logsumexp(log_h + np.log(wj), axis=-1) + np.log(j_half)
        log_l = logsumexp(
            (log_b + log_r + np.log(wp)).reshape(t.shape + (-1,))
            + np.repeat(np.log(np.where(valid[..., None], p_half, 0.0)), p_order, axis=-1),
            axis=-1,
        )
    return _Inner(t, p, p_half, log_b, j_low, np.where(j_ok, j_high, j_low), log_h, log_r, log_l)


def _log_likelihood(
    rows: Rows, t: np.ndarray, p_order: int = P_ORDER, j_order: int = J_ORDER
) -> np.ndarray:
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
def _theta_range(rows: Rows) -> tuple[np.ndarray, np.ndarray]:
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
    if at > 1:  # a prior density that is unbounded at an end keeps that end (singular panel)
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


def _scout_support(
    rows: Rows, keep_rule: bool = False
) -> tuple[np.ndarray, np.ndarray] | tuple[np.ndarray, np.ndarray, _Inner, np.ndarray]:
    """Where the theta density is within ``exp(-SUPPORT_DROP)`` of its maximum (cheap pass).

    With ``keep_rule`` (one dataset) also the scouting pass's nested rule and the log weights
    of its theta nodes (prior included), which the diagnostics use.
    """
    low, high = _theta_range(rows)
    panels, p_order, j_order = SCOUT
    t = _equal_panels(low, high, panels, THETA_ORDER)
    at, bt = rows.theta_prior
    if keep_rule:
        inner = _inner(rows, t, p_order, j_order)
        log_l = inner.log_l
    else:
        log_l = _log_likelihood(rows, t, p_order, j_order)
    log_f = log_l + log_prior(at, bt, t)
    top = np.max(log_f, axis=1, keepdims=True)
    keep = log_f >= top - SUPPORT_DROP
    keep &= np.isfinite(top)
    first = np.argmax(keep, axis=1)
    last = t.shape[1] - 1 - np.argmax(keep[:, ::-1], axis=1)
    index = np.arange(t.shape[0])
    new_low = np.where(first > 0, t[index, np.maximum(first - 1, 0)], low)
    new_high = np.where(last < t.shape[1] - 1, t[index, np.minimum(last + 1, t.shape[1] - 1)], high)
    found = keep.any(axis=1)
    support = (np.where(found, new_low, low), np.where(found, new_high, high))
    if not keep_rule:
        return support
    w = gauss_legendre(THETA_ORDER)[1]
    with np.errstate(divide="ignore"):
        log_w = (
            np.log((high - low) / (2 * panels))[:, None]
            + np.tile(np.log(w), panels)
            + log_prior(at, bt, t)
        )
    return (*support, inner, log_w)


def _panel_edges(rows: Rows, low: np.ndarray, high: np.ndarray) -> np.ndarray:
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
        THETA_PANELS - left[:, None]
    )
    return np.where(j <= left[:, None], left_edges, right_edges)


def _singular_powers(rows: Rows, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exponents of the singular prior factors on the end panels (1 where regular)."""
    at, bt = rows.theta_prior
    power_low = np.where((at < 1) & (edges[:, 0] <= 0.0), at, 1.0)
    power_high = np.where((bt < 1) & (edges[:, -1] >= 1.0), bt, 1.0)
    return power_low, power_high


def _theta_nodes(
    edges: np.ndarray, powers: tuple[np.ndarray, np.ndarray]
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


def _regular_log_prior(
    rows: Rows, t: np.ndarray, powers: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    """Log theta prior at the nodes, without the singular factor on singular end panels."""
    at, bt = rows.theta_prior
    out = log_prior(at, bt, t)
    first = np.zeros(t.shape[1], bool)
    first[:THETA_ORDER] = True
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where((powers[0] != 1.0)[:, None] & first, out - sc.xlogy(at - 1, t), out)
        out = np.where((powers[1] != 1.0)[:, None] & first[::-1], out - sc.xlog1py(bt - 1, -t), out)
    return out


def _theta_density(
    rows: Rows,
    log_l: np.ndarray,
    t: np.ndarray,
    edges: np.ndarray,
    powers: tuple[np.ndarray, np.ndarray],
) -> PanelDensity:
    """The theta marginal as a piecewise Legendre series from ``log L`` at the nodes."""
    log_f = log_l + _regular_log_prior(rows, t, powers)
    top = np.max(log_f, axis=1, keepdims=True)
    values = np.exp(log_f - np.where(np.isfinite(top), top, 0.0))
    values = np.where(np.isfinite(values), values, 0.0).reshape(rows.size, -1, THETA_ORDER)
    coef = to_coefficients(values)
    for side, power in ((0, powers[0]), (-1, powers[1])):
        for value in np.unique(power[power != 1.0]):
            hit = power == value
            coef[hit, side] = end_to_coefficients(values[hit, side], float(value), side == 0)
    return PanelDensity(edges, coef, *powers)


def _theta_rule(
    rows: Rows, scout: list | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Support, panel edges, nodes, log weights and singular powers of the theta rule.

    When ``scout`` is a list, the scouting pass's rule and theta log weights are appended to it.
    """
    found = _scout_support(rows, keep_rule=scout is not None)
    low, high = found[:2]
    if scout is not None:
        scout.extend(found[2:])
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
        random design pass the prior of :func:`judgestats.bayes.priors.random_design_prior`.

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
        self.prior = as_prior(prior)
        k, n, k0, m0, k1, m1 = (
            np.array([float(getattr(data, name))]) for name in ("k", "n", "k0", "m0", "k1", "m1")
        )
        self._rows = rows_for(k, n, k0, m0, k1, m1, self.prior)
        edges, t, log_w, powers = _theta_rule(self._rows)
        inner = _inner(self._rows, t)
        self._marginals = {"theta": _theta_density(self._rows, inner.log_l, t, edges, powers)}
        # the diagnostics' expectations need less: the same theta rule, coarser p and J rules
        self._nested = _NestedRule(
            _inner(self._rows, t, *DIAGNOSTIC_ORDERS),
            log_w + _regular_log_prior(self._rows, t, powers),
        )

    def _marginal(self, var: str) -> PanelDensity:
        """The marginal of ``var`` as a piecewise Legendre series (built on first use)."""
        if var not in self._marginals:
            self._marginals[var] = marginal(self._rows, var)
        return self._marginals[var]

    # -- public API -----------------------------------------------------------------------------
    def cdf(self, x: Any, var: str = "theta") -> np.ndarray | float:
        """Posterior CDF ``P(var <= x)``, vectorised over ``x``."""
        arr = np.asarray(x, float)
        out = self._marginal(_check_var(var)).cdf_pdf(arr.reshape(1, -1))[0]
        return _shaped(out, arr.shape)

    def pdf(self, x: Any, var: str = "theta") -> np.ndarray | float:
        """Posterior density of ``var`` at ``x``, vectorised over ``x``."""
        arr = np.asarray(x, float)
        out = self._marginal(_check_var(var)).cdf_pdf(arr.reshape(1, -1))[1]
        return _shaped(out, arr.shape)

    def quantile(self, q: Any, var: str = "theta") -> np.ndarray | float:
        """Posterior quantile of ``var`` at probabilities ``q`` (vectorised)."""
        var = _check_var(var)
        arr = check_open_probabilities(q, "q")
        out = self._marginal(var).quantile(arr.reshape(1, -1))
        return _shaped(out, arr.shape)

    def mean(self, var: str = "theta") -> float:
        """Posterior mean of ``var``."""
        return float(self._marginal(_check_var(var)).mean_sd()[0][0])

    def sd(self, var: str = "theta") -> float:
        """Posterior standard deviation of ``var``."""
        return float(self._marginal(_check_var(var)).mean_sd()[1][0])

    def interval(
        self, prob: float = 0.95, kind: str = "eti", var: str = "theta"
    ) -> tuple[float, float]:
        """Credible interval of ``var``: equal-tailed (``"eti"``) or shortest (``"hdi"``)."""
        prob = check_level(prob, "prob")
        kind = _check_kind(kind)
        density = self._marginal(_check_var(var))
        if kind == "eti":
            low, high = density.quantile(np.array([[(1 - prob) / 2, (1 + prob) / 2]]))[0]
            return float(low), float(high)
        low, high = density.shortest(prob)
        return float(low[0]), float(high[0])

    def expect(self, funcs: list, var: str) -> list[float]:
        """``[E[func(var)] for func in funcs]`` on the nested rule (:class:`_NestedRule`).

        ``funcs`` are smooth vectorised functions on [0, 1]; ``var`` is p, q0, q1 or youden.
        """
        return self._nested.expect(funcs, var)

    def prob_youden_below(self, threshold: float) -> float:
        """Posterior probability that Youden's J lies below ``threshold`` (nested rule)."""
        return self._nested.youden_cdf(float(threshold))

    def mode(self) -> float:
        """Posterior mode of theta (maximiser of the marginal density; 0 or 1 at a bound)."""
        low, high = self._marginals["theta"].support
        grid = np.linspace(low[0], high[0], 513)
        dens = self._marginals["theta"].cdf_pdf(grid[None, :])[1][0]
        i = int(np.argmax(dens))
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
        ratio = (np.sqrt(5.0) - 1) / 2
        for _ in range(60):
            c, d = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
            fc, fd = self._marginals["theta"].cdf_pdf(np.array([[c, d]]))[1][0]
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
        theta = self._marginals["theta"].quantile(u[:1])[0] if size else np.empty(0)
        p, j = _conditional_draws(self._rows, theta, u[1], u[2])
        return {
            "theta": theta,
            "q0": 1 - p + theta * j,
            "q1": p + (1 - theta) * j,
            "youden": j,
            "p": p,
        }

    def __repr__(self) -> str:
        return f"ExactPosterior(data={self.data!r}, prior={self.prior!r})"


def _shaped(out: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | float:
    out = np.asarray(out).reshape(shape)
    return float(out) if out.ndim == 0 else out


# ------------------------------------------------------------------------------------------------
# expectations on the nested rule (diagnostics)
# ------------------------------------------------------------------------------------------------
#: Grid points of the interpolated smooth functions whose expectations the diagnostics need,
#: and the relative weight below which nodes are left out of those expectations.
EXPECT_GRID = 1025
PRUNE = 1e-15


class _NestedRule:
    """The nested (theta, p, J) rule of one dataset as weighted points, for expectations.

    ``E[g(v)] = sum_ijl W_ijl g(v_ijl)`` with weights theta rule x p rule x kernel x J rule x
    calibration density, at the nodes ``(theta_i, p_ij, J_ijl)``. Smooth ``g`` of q0 or q1
    (binomial CDFs) are interpolated from a fine grid, which is exact to about 1e-6 and costs
    one interpolation per node; the probability ``P(J <= x)`` integrates the Legendre series of
    the calibration density on every J window up to the cut.
    """

    def __init__(self, inner: _Inner, log_w_theta: np.ndarray) -> None:
        xj, wj = gauss_legendre(inner.log_h.shape[-1])
        wp = gauss_legendre(inner.p.shape[-1])[1]
        j_half = (inner.j_high[0] - inner.j_low[0]) / 2  # (T, 2, Np)
        with np.errstate(divide="ignore"):
            log_pair = (
                log_w_theta[0][:, None, None]
                + np.log(inner.p_half[0])[..., None]
                + np.log(wp)
                + inner.log_b[0]
                + np.log(j_half)
            )
            log_node = log_pair[..., None] + inner.log_h[0] + np.log(wj)  # (T, 2, Np, Nj)
        top = np.max(log_node)
        self.node_weight = np.where(np.isfinite(log_node), np.exp(log_node - top), 0.0)
        self.node_weight /= self.node_weight.sum()
        t, p = inner.theta[0][:, None, None, None], inner.p[0][..., None]
        j = inner.j_low[0][..., None] + j_half[..., None] * (xj + 1)
        self.values = {
            "p": np.broadcast_to(p, j.shape),
            "q0": 1 - p + t * j,
            "q1": p + (1 - t) * j,
            "youden": j,
        }
        self.j_low, self.j_half = inner.j_low[0], j_half
        h = np.exp(inner.log_h[0] - np.max(inner.log_h[0], axis=-1, keepdims=True))
        h = np.where(np.isfinite(h), h, 0.0)
        self.pair_weight = self.node_weight.sum(axis=-1)
        mass = np.sum(h * wj, axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            self.coef = to_coefficients(h) / np.where(mass > 0, mass, 1.0)[..., None] * 2

    def expect(self, funcs: list, var: str) -> list[float]:
        """``E[func(var)]`` for smooth vectorised functions on [0, 1] (one interpolation)."""
        if var == "p":  # p is constant along J: the (theta, p) pairs suffice
            weight, values = self.pair_weight, self.values["p"][..., 0]
        else:
            weight, values = self.node_weight, self.values[var]
        live = weight > PRUNE * weight.max()
        weight, values = weight[live], values[live]
        low, high = float(values.min()), float(values.max())
        grid = np.linspace(low, max(high, low + 1e-12), EXPECT_GRID)
        step = grid[1] - grid[0]
        position = np.clip((values - low) / step, 0.0, EXPECT_GRID - 1.0)
        index = np.minimum(position.astype(np.intp), EXPECT_GRID - 2)
        frac = position - index
        out = []
        for func in funcs:
            table = func(grid)
            out.append(
                float(np.sum(weight * (table[index] + frac * (table[index + 1] - table[index]))))
            )
        return out

    def youden_cdf(self, x: float) -> float:
        """``P(J <= x)``: on every (theta, p) pair the J density integrated up to x."""
        live = self.pair_weight > 0
        u = np.clip((x - self.j_low[live]) / self.j_half[live] - 1, -1.0, 1.0)
        coef = self.coef[live]
        order = coef.shape[-1]
        table = legendre_table(u, order)
        integral = (table[..., 2:] - table[..., :-2]) / (2 * np.arange(1, order) + 1)
        part = coef[..., 0] * (u + 1) + np.sum(coef[..., 1:] * integral, axis=-1)
        return float(np.clip(np.sum(self.pair_weight[live] * part / 2), 0.0, 1.0))


# ------------------------------------------------------------------------------------------------
# joint draws
# ------------------------------------------------------------------------------------------------
def _conditional_draws(
    rows: Rows, theta: np.ndarray, u_p: np.ndarray, u_j: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Draw p given theta and J given (theta, p) by inverting their conditional CDFs."""
    p_out, j_out = np.empty(theta.size), np.empty(theta.size)
    step = max(1, MAX_ELEMENTS // (2 * P_ORDER * J_ORDER))
    for start in range(0, theta.size, step):
        part = slice(start, start + step)
        t = theta[None, part]
        inner = _inner(rows, t)
        with np.errstate(divide="ignore"):
            log_v = inner.log_b[0] + inner.log_r[0]  # (S, 2, Np)
        top = np.max(np.where(np.isfinite(log_v), log_v, -np.inf), axis=(1, 2), keepdims=True)
        values = np.where(np.isfinite(log_v), np.exp(log_v - top), 0.0)
        low, high, split = p_window(rows, t)
        edges = np.stack([low[0], split[0], high[0]], axis=1)
        p_density = PanelDensity(edges, to_coefficients(values))
        p = p_density.quantile(u_p[part][:, None])[:, 0]
        p_out[part] = p
        j_low, j_high = j_window(rows, t[0], p)
        j_half = (j_high - j_low) / 2
        xj = gauss_legendre(J_ORDER)[0]
        j_nodes = j_low[:, None] + j_half[:, None] * (xj + 1)
        log_h = log_calibration(rows, t[0][:, None], p[:, None], j_nodes)
        h = np.exp(log_h - np.max(log_h, axis=1, keepdims=True))
        j_density = PanelDensity(np.stack([j_low, j_high], axis=1), to_coefficients(h)[:, None])
        j_out[part] = j_density.quantile(u_j[part][:, None])[:, 0]
    return p_out, j_out


# ------------------------------------------------------------------------------------------------
# validation helpers
# ------------------------------------------------------------------------------------------------
def _check_var(var: Any) -> str:
    return check_choice(var, "var", VARIABLES)


def _check_kind(kind: Any) -> str:
    if kind not in ("eti", "hdi"):
        raise ValueError(f"`kind` ({kind!r}) must be 'eti' or 'hdi'.")
    return str(kind)


def _broadcast_counts(k: Any, n: Any, k0: Any, m0: Any, k1: Any, m1: Any) -> list[np.ndarray]:
    arrays = check_six_counts({"k": k, "n": n, "k0": k0, "m0": m0, "k1": k1, "m1": m1})
    return [a.astype(float) for a in np.broadcast_arrays(*arrays.values())]


#: Smallest group of datasets sharing calibration counts that uses the shared table, and the
#: rows of marginals whose quantiles and shortest intervals are searched at once.
BATCH_MIN_GROUP = 4
SOLVE_CHUNK = 1024


def _theta_marginals(
    counts: list[np.ndarray], prior: Prior, pool: Any = None
) -> list[tuple[PanelDensity, tuple[np.ndarray, np.ndarray]]]:
    """Theta marginals of the distinct datasets among ``counts``, in blocks.

    Groups of at least ``BATCH_MIN_GROUP`` distinct datasets sharing calibration counts use the
    shared table of :mod:`judgestats.bayes._batch` (one task per group, run on ``pool``'s threads
    when given); the rest the per-dataset rule. Each block comes with ``(served, row)``: the
    flattened datasets it serves and its row for each of them.
    """
    flat = np.stack([c.ravel() for c in counts], axis=1)
    unique, inverse = np.unique(flat, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    k, n, k0, m0, k1, m1 = unique.T
    rows = rows_for(k, n, k0, m0, k1, m1, prior)
    keys, group = np.unique(unique[:, 2:], axis=0, return_inverse=True)
    group = group.ravel()
    low, high = _theta_range(rows)
    tasks, single = [], []
    for g in range(keys.shape[0]):
        members = np.flatnonzero(group == g)
        if members.size >= BATCH_MIN_GROUP and batch_ready(rows.take(members[:1])):
            tasks.append(members)
        else:
            single.append(members)

    def run(members: np.ndarray) -> tuple[list, np.ndarray]:
        return group_marginals(
            rows.take(members), float(low[members].min()), float(high[members].max())
        )

    results = list((pool.map if pool is not None else map)(run, tasks))
    blocks = [block for parts, _ in results for block in parts]
    batched = [members[index] for members, (_, index) in zip(tasks, results, strict=True)]
    single += [
        np.delete(members, index) for members, (_, index) in zip(tasks, results, strict=True)
    ]
    out = []
    if blocks:
        batched_members = np.concatenate(batched)
        out += [(density, batched_members[block_rows]) for density, block_rows in stack(blocks)]
    single = [members for members in single if members.size]
    if single:
        members = np.concatenate(single)
        part = rows.take(members)
        edges, t, _, powers = _theta_rule(part)
        out.append((_theta_density(part, _log_likelihood(part, t), t, edges, powers), members))
    return [(density, _dataset_rows(members, inverse)) for density, members in out]


def _dataset_rows(members: np.ndarray, inverse: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(datasets served by a block, the block row of each of them)."""
    position = np.full(int(inverse.max()) + 1, -1)
    position[members] = np.arange(members.size)
    served = np.flatnonzero(position[inverse] >= 0)
    return served, position[inverse[served]]


def _per_dataset(
    counts: list[np.ndarray], prior: Prior, width: int, operation, workers: int | None
) -> np.ndarray:
    """``operation(marginals)`` -> (rows, width) for every dataset of the flattened counts.

    Calibration groups and chunks of the searches run on ``workers`` threads (numpy releases
    the GIL in its array loops); the result does not depend on ``workers``.
    """
    from concurrent.futures import ThreadPoolExecutor

    size = counts[0].size
    out = np.empty((size, width))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for density, (served, row) in _theta_marginals(counts, prior, pool):
            rows = density.edges.shape[0]
            chunks = [
                density.take(np.arange(start, min(start + SOLVE_CHUNK, rows)))
                for start in range(0, rows, SOLVE_CHUNK)
            ]  # small arrays for the searches
            result = (
                np.concatenate(list(pool.map(operation, chunks))) if rows else np.empty((0, width))
            )
            out[served] = result[row]
    return out


def _check_workers(workers: Any) -> int:
    import os

    if workers is None:
        return max(
            1,
            len(os.sched_getaffinity(0))
            if hasattr(os, "sched_getaffinity")
            else (os.cpu_count() or 1),
        )
    return check_positive_int(workers, "workers")


def exact_quantiles(
    k: Any,
    n: Any,
    k0: Any,
    m0: Any,
    k1: Any,
    m1: Any,
    q: Any,
    *,
    prior: Prior | None = None,
    workers: int | None = None,
) -> np.ndarray:
    """Posterior quantiles of theta for many datasets at once.

    Parameters
    ----------
    k, n, k0, m0, k1, m1 : array_like of int
        Counts; they broadcast together to the shape S.
    q : float or 1-D array_like
        Probabilities strictly inside (0, 1).
    prior : Prior, optional
        Shared prior (default ``Prior()``).
    workers : int, optional
        Threads (default: the CPUs available); results do not depend on it.

    Returns
    -------
    numpy.ndarray
        Shape ``S + (len(q),)`` (``S`` when ``q`` is a scalar). Identical datasets are computed
        once.
    """
    prior = as_prior(prior)
    levels = check_open_probabilities(q, "q")
    if levels.ndim > 1:
        raise ValueError(f"`q` must be a scalar or 1-D, got shape {levels.shape}.")
    counts = _broadcast_counts(k, n, k0, m0, k1, m1)
    shape = counts[0].shape
    flat_q = np.atleast_1d(levels)
    out = np.empty(shape + (flat_q.size,))
    if counts[0].size:
        out = _per_dataset(
            counts,
            prior,
            flat_q.size,
            lambda density: density.quantile(
                np.broadcast_to(flat_q, (density.edges.shape[0], flat_q.size))
            ),
            _check_workers(workers),
        ).reshape(out.shape)
    return out[..., 0] if levels.ndim == 0 else out


def exact_interval(
    k: Any,
    n: Any,
    k0: Any,
    m0: Any,
    k1: Any,
    m1: Any,
    *,
    prob: float = 0.95,
    kind: str = "eti",
    prior: Prior | None = None,
    workers: int | None = None,
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
    workers : int, optional
        Threads (default: the CPUs available); results do not depend on it.

    Returns
    -------
    (low, high) : tuple of numpy.ndarray
        Arrays of the broadcast shape.
    """
    prob = check_level(prob, "prob")
    kind = _check_kind(kind)
    prior = as_prior(prior)
    if kind == "eti":
        out = exact_quantiles(
            k, n, k0, m0, k1, m1, [(1 - prob) / 2, (1 + prob) / 2], prior=prior, workers=workers
        )
        return out[..., 0], out[..., 1]
    counts = _broadcast_counts(k, n, k0, m0, k1, m1)
    shape = counts[0].shape
    if counts[0].size == 0:
        return np.empty(shape), np.empty(shape)
    out = _per_dataset(
        counts,
        prior,
        2,
        lambda density: np.stack(density.shortest(prob), axis=1),
        _check_workers(workers),
    )
    return out[:, 0].reshape(shape), out[:, 1].reshape(shape)
