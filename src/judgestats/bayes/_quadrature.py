r"""The nested Gauss rule of the exact posterior (:mod:`judgestats.bayes.exact`).

At points theta, the p rule (two panels split at p = theta) and the J rule on the window where
the calibration Betas live (:class:`InnerRule`, :func:`inner_rule`); the theta support, found by
a cheap scouting pass, its panels (a panel edge at p-hat, Gauss-Jacobi on an end panel where the
theta prior is unbounded) and the theta marginal as a piecewise Legendre series
(:func:`theta_rule`, :func:`theta_density`); the same rule as weighted points for the
diagnostics' expectations (:class:`NestedRule`); and joint draws by conditional inversion
(:func:`conditional_draws`). The module docstring of :mod:`judgestats.bayes.exact` describes the
coordinates and the quadrature.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special as sc

from judgestats.bayes import _jrule as jrule
from judgestats.bayes._panels import (
    PanelDensity,
    end_to_coefficients,
    gauss_legendre,
    jacobi_rule,
    legendre_table,
    to_coefficients,
)
from judgestats.bayes._terms import (
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
)

#: Theta panels of the final tabulation, and (panels, p nodes, J nodes) of the scouting pass.
THETA_PANELS = 10
SCOUT = (4, 8, 12)
#: Array elements evaluated at once (memory bound of the vectorised path).
MAX_ELEMENTS = 3_000_000


# ------------------------------------------------------------------------------------------------
# the nested rule at given theta
# ------------------------------------------------------------------------------------------------
@dataclass
class InnerRule:
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


def _p_rule(
    rows: Rows, t: np.ndarray, p_order: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The p rule at theta = t (R, T): nodes (R, T, 2, Np), half-widths, validity, log kernel."""
    xp = gauss_legendre(p_order)[0]
    low, high, split = p_window(rows, t)
    valid = high > low
    ends = np.stack([np.stack([low, split], -1), np.stack([split, high], -1)], -2)  # (R,T,2,2)
    ends = np.where(valid[..., None, None], ends, 0.5)
    p_half = (ends[..., 1] - ends[..., 0]) / 2  # (R, T, 2)
    p = ends[..., :1] + p_half[..., None] * (xp + 1)  # (R,T,2,Np)
    log_b = log_kernel(rows.k[:, None, None, None], rows.n[:, None, None, None], p)
    return p, p_half, valid, log_b


def _p_integral(
    log_b: np.ndarray, log_r: np.ndarray, p_half: np.ndarray, valid: np.ndarray, t: np.ndarray
) -> np.ndarray:
    """``log L(t)``: the p rule's sum of kernel times J integral, (R, T)."""
    p_order = log_b.shape[-1]
    wp = gauss_legendre(p_order)[1]
    with np.errstate(divide="ignore"):
        return logsumexp(
            (log_b + log_r + np.log(wp)).reshape(t.shape + (-1,))
            + np.repeat(np.log(np.where(valid[..., None], p_half, 0.0)), p_order, axis=-1),
            axis=-1,
        )


def inner_rule(
    rows: Rows, t: np.ndarray, p_order: int = P_ORDER, j_order: int = J_ORDER
) -> InnerRule:
    """The p and J rules at theta = t (R, T) and the theta likelihood ``log L(t)``."""
    xj, wj = gauss_legendre(j_order)
    p, p_half, valid, log_b = _p_rule(rows, t, p_order)
    t4 = t[:, :, None, None]
    j_low, j_high = j_window(rows, t4, p)
    j_ok = (j_high > j_low) & valid[..., None, None]
    j_half = np.where(j_ok, (j_high - j_low) / 2, 0.0)
    j = j_low[..., None] + j_half[..., None] * (xj + 1)  # (...,Nj)
    log_h = log_calibration(rows, t4[..., None], p[..., None], j)
    with np.errstate(divide="ignore"):
        log_r = logsumexp(log_h + np.log(wj), axis=-1) + np.log(j_half)
    log_l = _p_integral(log_b, log_r, p_half, valid, t)
    return InnerRule(t, p, p_half, log_b, j_low, np.where(j_ok, j_high, j_low), log_h, log_r, log_l)


def log_likelihood(
    rows: Rows, t: np.ndarray, p_order: int = P_ORDER, j_order: int = J_ORDER
) -> np.ndarray:
    """``log L(t)`` at theta = t (R, T).

    With theta strictly inside (0, 1), the J integrals come from the fast rule of
    :mod:`judgestats.bayes._jrule`, one dataset (calibration) at a time; otherwise (theta at
    an end, where empty J windows are unbounded) from :func:`inner_rule`, in chunks that bound
    memory. Both give the same values up to rounding.
    """
    if not np.all((t > 0) & (t < 1)):
        per_point = 2 * p_order * j_order
        step = max(1, MAX_ELEMENTS // (per_point * t.shape[1]))
        out = np.empty(t.shape)
        for start in range(0, rows.size, step):
            part = np.arange(start, min(start + step, rows.size))
            out[part] = inner_rule(rows.take(part), t[part], p_order, j_order).log_l
        return out
    p, p_half, valid, log_b = _p_rule(rows, t, p_order)
    log_r = np.empty(p.shape)
    for row in range(rows.size):
        pairs = np.broadcast_to(t[row, :, None, None], p.shape[1:])
        log_r[row] = jrule.log_r(rows.take(np.array([row])), pairs, p[row], j_order)
    log_r[~valid] = -np.inf
    return _p_integral(log_b, log_r, p_half, valid, t)


# ------------------------------------------------------------------------------------------------
# the theta support and its panels
# ------------------------------------------------------------------------------------------------
def theta_range(rows: Rows) -> tuple[np.ndarray, np.ndarray]:
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
    # the theta prior's box (an end where its density is unbounded stays: singular panel)
    low, high = np.maximum(low, rows.box_t[0]), np.minimum(high, rows.box_t[1])
    bad = ~(high > low)
    return np.where(bad, 0.0, low), np.where(bad, 1.0, high)


def _equal_panels(low: np.ndarray, high: np.ndarray, panels: int, order: int) -> np.ndarray:
    """Gauss-Legendre nodes of ``panels`` equal panels on [low, high], shape (R, panels*order)."""
    x = gauss_legendre(order)[0]
    base = (np.arange(panels)[:, None] + (x[None, :] + 1) / 2).ravel() / panels
    return low[:, None] + (high - low)[:, None] * base[None, :]


def _scout_support(
    rows: Rows, keep_rule: bool = False
) -> tuple[np.ndarray, np.ndarray] | tuple[np.ndarray, np.ndarray, InnerRule, np.ndarray]:
    """Where the theta density is within ``exp(-SUPPORT_DROP)`` of its maximum (cheap pass).

    With ``keep_rule`` (one dataset) also the scouting pass's nested rule and the log weights
    of its theta nodes (prior included), which the diagnostics use.
    """
    low, high = theta_range(rows)
    panels, p_order, j_order = SCOUT
    t = _equal_panels(low, high, panels, THETA_ORDER)
    at, bt = rows.theta_prior
    if keep_rule:
        inner = inner_rule(rows, t, p_order, j_order)
        log_l = inner.log_l
    else:
        log_l = log_likelihood(rows, t, p_order, j_order)
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


def _panel_edges(
    rows: Rows, low: np.ndarray, high: np.ndarray, panels: int = THETA_PANELS
) -> np.ndarray:
    """``panels`` panels on [low, high], with an edge at p-hat when it lies inside."""
    cut = rows.p_hat
    inside = (cut > low) & (cut < high)
    frac = np.where(inside, (cut - low) / (high - low), 0.5)
    left = np.clip(np.round(frac * panels), 1, panels - 1).astype(int)
    left = np.where(inside, left, panels // 2)
    cut = np.where(inside, cut, 0.5 * (low + high))
    j = np.arange(panels + 1)[None, :]
    left_edges = low[:, None] + (cut - low)[:, None] * j / left[:, None]
    right_edges = cut[:, None] + (high - cut)[:, None] * (j - left[:, None]) / (
        panels - left[:, None]
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


def regular_log_prior(
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


def theta_density(
    rows: Rows,
    log_l: np.ndarray,
    t: np.ndarray,
    edges: np.ndarray,
    powers: tuple[np.ndarray, np.ndarray],
) -> PanelDensity:
    """The theta marginal as a piecewise Legendre series from ``log L`` at the nodes."""
    log_f = log_l + regular_log_prior(rows, t, powers)
    top = np.max(log_f, axis=1, keepdims=True)
    values = np.exp(log_f - np.where(np.isfinite(top), top, 0.0))
    values = np.where(np.isfinite(values), values, 0.0).reshape(rows.size, -1, THETA_ORDER)
    coef = to_coefficients(values)
    for side, power in ((0, powers[0]), (-1, powers[1])):
        for value in np.unique(power[power != 1.0]):
            hit = power == value
            coef[hit, side] = end_to_coefficients(values[hit, side], float(value), side == 0)
    return PanelDensity(edges, coef, *powers)


#: A density that rises by more than this factor from the rule's first (last) node to a point
#: 100 times nearer the support's end has its mass below the node spacing: a needle.
NEEDLE_RISE = 10.0
#: Zoom steps towards such an end, and the share of the support each keeps.
ZOOM_STEPS = 12
ZOOM_KEEP = 1 / 50


def end_rising(rows: Rows, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Whether the theta density rises steeply beyond the rule's first and last nodes.

    The final rule's outermost nodes lie ``(1 - x_max) / 2`` of a panel inside the support;
    the density (likelihood times the regular part of the prior) is compared there and at a
    point 100 times nearer the end. A rise of more than ``NEEDLE_RISE`` means that the
    posterior's mass lies between the end and the first node, where no node sees it.
    """
    x = gauss_legendre(THETA_ORDER)[0]
    offset = (high - low) * (1 - x[-1]) / (2 * THETA_PANELS)
    t = np.stack([low + offset, low + offset / 100, high - offset, high - offset / 100], axis=1)
    at, bt = rows.theta_prior
    log_f = log_likelihood(rows, t) + log_prior(at, bt, t, low=at >= 1, high=bt >= 1)
    with np.errstate(invalid="ignore"):
        rise = np.log(NEEDLE_RISE)
        return log_f[:, 1] > log_f[:, 0] + rise, log_f[:, 3] > log_f[:, 2] + rise


def resolve_ends(rows: Rows, low: np.ndarray, high: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Zoom the support towards an end where the density is a needle (:func:`end_rising`).

    At k = 0 or n with n huge the posterior of theta can sit within 1e-9 of an end, below
    every node of the scouting pass; each step keeps ``ZOOM_KEEP`` of the support next to
    the end where the density rises.
    """
    low, high = low.copy(), high.copy()
    for _ in range(ZOOM_STEPS):
        rise_low, rise_high = end_rising(rows, low, high)
        if not (rise_low | rise_high).any():
            break
        width = (high - low) * ZOOM_KEEP
        high = np.where(rise_low, low + width, high)
        low = np.where(rise_high & ~rise_low, high - width, low)
    return low, high


def theta_rule(
    rows: Rows, scout: list | None = None, panels: int = THETA_PANELS
) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[np.ndarray, np.ndarray]]:
    """Support, panel edges, nodes, log weights and singular powers of the theta rule.

    When ``scout`` is a list, the scouting pass's rule and theta log weights are appended to it.
    ``panels`` theta panels (more where a check of the rule asks for them).
    """
    found = _scout_support(rows, keep_rule=scout is not None)
    low, high = resolve_ends(rows, *found[:2])
    if scout is not None:
        scout.extend(found[2:])
    edges = _panel_edges(rows, low, high, panels)
    powers = _singular_powers(rows, edges)
    t, log_w = _theta_nodes(edges, powers)
    return edges, t, log_w, powers


# ------------------------------------------------------------------------------------------------
# expectations on the nested rule (diagnostics)
# ------------------------------------------------------------------------------------------------
#: Grid points of the interpolated smooth functions whose expectations the diagnostics need,
#: and the relative weight below which nodes are left out of those expectations.
EXPECT_GRID = 1025
PRUNE = 1e-15


class NestedRule:
    """The nested (theta, p, J) rule of one dataset as weighted points, for expectations.

    ``E[g(v)] = sum_ijl W_ijl g(v_ijl)`` with weights theta rule x p rule x kernel x J rule x
    calibration density, at the nodes ``(theta_i, p_ij, J_ijl)``. Smooth ``g`` of q0 or q1
    (binomial CDFs) are interpolated from a fine grid, which is exact to about 1e-6 and costs
    one interpolation per node; the probability ``P(J <= x)`` integrates the Legendre series of
    the calibration density on every J window up to the cut.
    """

    def __init__(self, inner: InnerRule, log_w_theta: np.ndarray) -> None:
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
def conditional_draws(
    rows: Rows, theta: np.ndarray, u_p: np.ndarray, u_j: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Draw p given theta and J given (theta, p) by inverting their conditional CDFs."""
    p_out, j_out = np.empty(theta.size), np.empty(theta.size)
    step = max(1, MAX_ELEMENTS // (2 * P_ORDER * J_ORDER))
    for start in range(0, theta.size, step):
        part = slice(start, start + step)
        t = theta[None, part]
        inner = inner_rule(rows, t)
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
