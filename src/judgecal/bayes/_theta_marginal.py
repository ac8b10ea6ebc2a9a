r"""The marginal posterior of theta as a piecewise Legendre series (the core of the exact engine).

With the calibration posterior ``q0 ~ Beta(A0, B0)``, ``q1 ~ Beta(A1, B1)`` (restricted to
q0 + q1 > 1 when the prior is truncated), the marginal posterior density of theta is

.. math:: f(t) \propto \pi(t)\, L(t), \qquad
          L(t) = E\big[p^k (1-p)^{n-k}\big], \quad p = t q_1 + (1 - t)(1 - q_0),

the binomial test likelihood (``k ~ Bin(n, p)``) averaged over the calibration posterior
(:class:`Calibration`). ``L(t)`` is a smooth function of t (a convolution of the narrow binomial
kernel with the calibration spread), computed by a 2-D quadrature that follows the kernel's ridge
(see :class:`Calibration`), so neither the ratio n / m nor the calibration size limits its accuracy.
The density is tabulated at Gauss-Legendre nodes on ``P`` equal panels covering the support of f,
and on each panel it is replaced by its degree-(N - 1) Legendre interpolant

.. math:: f(t) = \sum_{l<N} c_l P_l(x), \quad x = 2 (t - e_j) / h - 1, \quad
          c_l = \tfrac{2l+1}{2} \sum_i \omega_i f(t_i) P_l(x_i),

whose integral is again a Legendre series (``\int_{-1}^x P_l = (P_{l+1} - P_{l-1}) / (2l + 1)``),
so the CDF, density, moments, quantiles and the HDI are cheap polynomial evaluations.

The support is where the band of reachable p over the calibration box (Beta quantiles at 1e-13)
meets the range of p where the binomial kernel is within ``exp(-_DROP)`` of its best reachable
value (exact roots of the log-kernel by Newton's method in log p); panels are ``_PANEL_SCALE``
times ``sd(p-hat) / max J`` wide. A Beta prior for theta multiplies the density (the cut-off
widens by its log-density range, up to ``_PRIOR_SLACK``); next to an end where the prior density
is unbounded (a parameter below 1) the panel is integrated with a Gauss-Jacobi rule.
"""

from __future__ import annotations

import numpy as np
from scipy import special as sc

__all__ = ["ThetaMarginal"]

_ORDER = 12            # Gauss-Legendre nodes per panel
_DROP = 32.0           # log-density drop that bounds the support (e^-32 ~ 1e-14)
_PRIOR_SLACK = 30.0    # extra drop allowed for a theta prior that is far from flat
_PANEL_SCALE = 10.0     # panel width in units of the narrowest cell component
_MIN_PANELS = 8
_MAX_PANELS = 2000
_MAX_ELEMENTS = 2_000_000   # datasets x points x cells evaluated at once

_X, _W = np.polynomial.legendre.leggauss(_ORDER)


def _legendre_table(x: np.ndarray, degree: int) -> np.ndarray:
    """``P_0(x), ..., P_degree(x)`` stacked on a new last axis (three-term recurrence)."""
    out = np.empty(x.shape + (degree + 1,))
    out[..., 0] = 1.0
    if degree >= 1:
        out[..., 1] = x
    for j in range(1, degree):
        out[..., j + 1] = ((2 * j + 1) * x * out[..., j] - j * out[..., j - 1]) / (j + 1)
    return out


# values at the nodes -> Legendre coefficients of the interpolant
_TO_COEF = ((2 * np.arange(_ORDER) + 1) / 2)[:, None] * (_W[None, :]
                                                          * _legendre_table(_X, _ORDER - 1).T)


def binomial_log_kernel(k: np.ndarray, n: np.ndarray, p: np.ndarray) -> np.ndarray:
    """``k log(p / p-hat) + (n - k) log((1 - p) / (1 - p-hat))``: 0 at p-hat = k / n, else < 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        p_hat = k / n
        left = np.where(k > 0, k * (np.log(p) - np.log(np.where(k > 0, p_hat, 1.0))), 0.0)
        right = np.where(k < n, (n - k) * (np.log1p(-p)
                                          - np.log1p(-np.where(k < n, p_hat, 0.0))), 0.0)
    return left + right


def _left_root_log(k: np.ndarray, n: np.ndarray, drop: np.ndarray) -> np.ndarray:
    """Log of the p < k/n where the binomial log-kernel equals ``-drop`` (-inf when k = 0).

    In ``x = log p`` the kernel is concave and increasing left of its maximum, so Newton's method
    converges monotonically from the left after its first step.
    """
    k, n, drop = np.broadcast_arrays(*(np.asarray(v, float) for v in (k, n, drop)))
    p_hat = k / n
    with np.errstate(divide="ignore", invalid="ignore"):
        sd = np.sqrt(np.maximum(p_hat * (1 - p_hat), 1.0 / n) / n)
        x = np.log(np.maximum(p_hat - 1.5 * np.sqrt(2 * drop) * sd, p_hat * 1e-3))
        for _ in range(60):
            e = np.exp(x)
            value = binomial_log_kernel(k, n, e) + drop
            slope = k - (n - k) * e / (-np.expm1(x))
            step = value / slope
            x = np.minimum(x - step, np.log(np.where(p_hat > 0, p_hat, 1.0)))
            if np.all(~np.isfinite(step) | (np.abs(step) < 1e-12)):
                break
    return np.where(k > 0, x, -np.inf)


def kernel_range(k: np.ndarray, n: np.ndarray, drop: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The p-interval where the binomial log-kernel is at least ``-drop`` (``drop > 0``)."""
    low = np.exp(_left_root_log(k, n, drop))
    high = -np.expm1(_left_root_log(n - k, n, drop))
    return low, high


_INNER = 24                           # Gauss-Legendre nodes of the inner calibration integral
_XI, _WI = np.polynomial.legendre.leggauss(_INNER)
_BOX_TAIL = 1e-13                     # calibration Beta mass left outside the integration box


class Calibration:
    r"""The calibration posterior of (q0, q1) and the test likelihood averaged over it.

    ``q0 ~ Beta(a0, b0)``, ``q1 ~ Beta(a1, b1)`` independent (prior times calibration likelihood),
    restricted to ``q0 + q1 > 1`` when ``truncate``. :meth:`likelihood` computes, up to a factor
    per dataset,

    .. math:: L(t) = E\big[p^k (1-p)^{n-k}\,\mathbf 1\{q_0 + q_1 > 1\}\big], \qquad
              p = t q_1 + (1 - t)(1 - q_0),

    the likelihood of theta = t with the calibration parameters integrated out. One parameter is
    integrated with Gauss-Hermite nodes of its Beta (``outer``), the other with Gauss-Legendre
    nodes on the interval where both its Beta density and the binomial kernel are non-negligible
    (inner); for each t the inner variable is the one with the larger weight in p
    (``t sd(q1)`` against ``(1 - t) sd(q0)``), so the outer integrand varies on a scale of at
    least one standard deviation of the outer Beta and the discrete outer nodes leave no ripple in
    t. The truncation becomes a limit of the inner interval (``q1 > 1 - q0``).
    """

    def __init__(self, a0: float, b0: float, a1: float, b1: float, truncate: bool,
                 outer0: tuple[np.ndarray, np.ndarray], outer1: tuple[np.ndarray, np.ndarray]):
        self.beta = ((a0, b0), (a1, b1))
        self.truncate = truncate
        self.outer = (outer0, outer1)
        self.sd = tuple(np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1))) for a, b in self.beta)
        self.box = tuple((float(sc.betaincinv(a, b, _BOX_TAIL)),
                          float(sc.betainccinv(a, b, _BOX_TAIL))) for a, b in self.beta)
        self.log_norm = tuple(float(sc.betaln(a, b)) for a, b in self.beta)

    def likelihood(self, k: np.ndarray, n: np.ndarray, t: np.ndarray) -> np.ndarray:
        """``L(t) / max_t L(t)`` for datasets (k, n) at points t of shape (D, G)."""
        p_low, p_high = self.kernel_range(k, n, np.full(k.shape, _DROP))
        inner_q1 = t * self.sd[1] >= (1 - t) * self.sd[0]
        log_value = np.full(t.shape, -np.inf)
        for branch in (True, False):
            mask = inner_q1 == branch
            if not mask.any():
                continue
            rows = np.broadcast_to(np.arange(k.size)[:, None], t.shape)[mask]
            log_value[mask] = self._branch(branch, k[rows], n[rows], t[mask], p_low[rows],
                                           p_high[rows])
        top = np.max(log_value, axis=1, keepdims=True)
        top = np.where(np.isfinite(top), top, 0.0)
        return np.exp(log_value - top)

    def kernel_range(self, k: np.ndarray, n: np.ndarray, drop: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray]:
        """Range of p where the binomial kernel is within ``exp(-drop)`` of its best reachable.

        p = t q1 + (1 - t)(1 - q0) only reaches [min(1 - q0), max(q1)] over the box; when p-hat
        lies outside, the range is taken relative to the best reachable p.
        """
        (lo0, hi0), (lo1, hi1) = self.box
        reach = np.clip(k / n, min(1 - hi0, lo1), max(1 - lo0, hi1))
        best = binomial_log_kernel(k, n, reach)
        return kernel_range(k, n, drop - np.minimum(best, 0.0))

    def _branch(self, inner_q1: bool, k: np.ndarray, n: np.ndarray, t: np.ndarray,
                p_low: np.ndarray, p_high: np.ndarray) -> np.ndarray:
        """Log of the averaged likelihood at flat points, one branch (inner q1 or inner q0)."""
        out = np.empty(t.shape)
        step = max(1, 2_000_000 // (_INNER * self.outer[0][0].size))
        for start in range(0, t.size, step):
            part = slice(start, start + step)
            out[part] = self._branch_block(inner_q1, k[part], n[part], t[part], p_low[part],
                                           p_high[part])
        return out

    def _branch_block(self, inner_q1: bool, k: np.ndarray, n: np.ndarray, t: np.ndarray,
                      p_low: np.ndarray, p_high: np.ndarray) -> np.ndarray:
        inner, outer = (1, 0) if inner_q1 else (0, 1)
        nodes, weights = self.outer[outer]
        (box_lo, box_hi), (a, b) = self.box[inner], self.beta[inner]
        u = nodes[None, :]
        if inner_q1:       # p = t q1 + (1 - t)(1 - q0): q1 = (p - c) / t with c = (1 - t)(1 - q0)
            slope, base = t[:, None], (1 - t[:, None]) * (1 - u)
        else:              # p = t q1 + (1 - t)(1 - q0): q0 = (c - p) / (1 - t), c = t q1 + 1 - t
            slope, base = -(1 - t[:, None]), t[:, None] * u + (1 - t[:, None])
        with np.errstate(divide="ignore", invalid="ignore"):
            ends = np.stack([(p_low[:, None] - base) / slope, (p_high[:, None] - base) / slope])
        low = np.maximum(np.min(ends, axis=0), box_lo)
        high = np.minimum(np.max(ends, axis=0), box_hi)
        if self.truncate:                                   # q_inner > 1 - q_outer
            low = np.maximum(low, 1 - u)
        width = np.where(high > low, high - low, 0.0)
        q = low[:, :, None] + width[:, :, None] * ((_XI + 1) / 2)          # (P, O, I)
        p = np.clip(base[:, :, None] + slope[:, :, None] * q, 1e-300, 1 - 2.0**-53)
        q = np.clip(q, 0.0, 1.0)
        k3, n3 = k[:, None, None], n[:, None, None]
        with np.errstate(divide="ignore", invalid="ignore"):
            log_f = (binomial_log_kernel(k3, n3, p) + sc.xlogy(a - 1, q)
                     + sc.xlog1py(b - 1, -q) - self.log_norm[inner]
                     + np.log(width[:, :, None] / 2 * _WI) + np.log(weights)[None, :, None])
        log_f = np.where((width > 0)[:, :, None] & ~np.isnan(log_f), log_f, -np.inf)
        log_f = log_f.reshape(t.size, -1)
        top = np.max(log_f, axis=1, keepdims=True)
        top = np.where(np.isfinite(top), top, 0.0)
        with np.errstate(divide="ignore"):
            return top[:, 0] + np.log(np.sum(np.exp(log_f - top), axis=1))


class ThetaMarginal:
    """Theta marginals of D datasets ``(k_d, n_d)`` sharing one calibration posterior.

    Parameters
    ----------
    k, n : numpy.ndarray
        Test counts, shape (D,).
    calibration : Calibration
        The calibration posterior of (q0, q1) and its quadrature.
    prior_theta : tuple of float
        Beta parameters of the theta prior.
    cells : tuple of numpy.ndarray, optional
        ``(q0, q1, log w)`` quadrature cells of the calibration posterior, only needed for the
        posterior of the cells (:meth:`cell_weights`) and for drawing (q0, q1) given theta.
    """

    def __init__(self, k: np.ndarray, n: np.ndarray, calibration: Calibration,
                 prior_theta: tuple[float, float] = (1.0, 1.0),
                 cells: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> None:
        self.k = np.asarray(k, float)
        self.n = np.asarray(n, float)
        self.calibration = calibration
        self.prior_theta = prior_theta
        self.uniform = tuple(prior_theta) == (1.0, 1.0)
        self._support()
        self._tabulate()
        if cells is not None:
            self._set_cells(*cells)

    # -- construction --------------------------------------------------------------------------
    def _log_prior(self, t: np.ndarray) -> np.ndarray:
        at, bt = self.prior_theta
        with np.errstate(divide="ignore", invalid="ignore"):
            return sc.xlogy(at - 1, t) + sc.xlog1py(bt - 1, -t) - sc.betaln(at, bt)

    def _support(self) -> None:
        """Support [t0, t1] and equal panels, from the calibration box and the kernel range.

        ``p(t) = t q1 + (1 - t)(1 - q0)`` over the box ``[L0, U0] x [L1, U1]`` lies between
        ``t L1 + (1 - t)(1 - U0)`` and ``t U1 + (1 - t)(1 - L0)``, both linear in t; theta = t is
        in the support where that band meets the range of p where the binomial kernel is within
        ``exp(-drop)`` of its best reachable value.
        """
        cal = self.calibration
        (lo0, hi0), (lo1, hi1) = cal.box
        p_low, p_high = cal.kernel_range(self.k, self.n, _DROP + self._prior_slack())
        ends = []
        for start, end, bound, keep_above in ((1 - lo0, hi1, p_low, True),
                                              (1 - hi0, lo1, p_high, False)):
            slope = end - start                  # band edge: start + t slope; need >= / <= bound
            with np.errstate(divide="ignore", invalid="ignore"):
                cross = (bound - start) / slope
            rising = slope > 0 if keep_above else slope < 0
            ok_at_0 = (start >= bound) if keep_above else (start <= bound)
            low = np.where(slope == 0, np.where(ok_at_0, 0.0, 1.0), np.where(rising, cross, 0.0))
            high = np.where(slope == 0, np.where(ok_at_0, 1.0, 0.0), np.where(rising, 1.0, cross))
            ends.append((low, high))
        self.t0 = np.clip(np.maximum(ends[0][0], ends[1][0]), 0.0, 1.0)
        self.t1 = np.clip(np.minimum(ends[0][1], ends[1][1]), 0.0, 1.0)
        empty = self.t1 <= self.t0
        self.t0, self.t1 = np.where(empty, 0.0, self.t0), np.where(empty, 1.0, self.t1)
        p_tilde = (self.k + 1) / (self.n + 2)
        sd_p = np.sqrt(p_tilde * (1 - p_tilde) / (self.n + 3))
        width = _PANEL_SCALE * sd_p / max(hi0 + hi1 - 1.0, 1e-3)
        panels = np.ceil((self.t1 - self.t0) / width)
        self.panels = int(np.clip(panels.max(initial=_MIN_PANELS), _MIN_PANELS, _MAX_PANELS))
        self.h = (self.t1 - self.t0) / self.panels
        self.panel_count = np.full(self.k.size, self.panels)

    def _prior_slack(self) -> np.ndarray:
        """Extra kernel drop allowed because the theta prior may favour the tails of the kernel."""
        if self.uniform:
            return np.zeros(self.k.size)
        at, bt = self.prior_theta
        if at < 1 or bt < 1:
            return np.full(self.k.size, _PRIOR_SLACK)
        mode = (at - 1) / (at + bt - 2) if at + bt > 2 else 0.5
        (a0, b0), (a1, b1) = self.calibration.beta
        q0, q1 = a0 / (a0 + b0), a1 / (a1 + b1)
        centre = np.clip((self.k / self.n - (1 - q0)) / max(q0 + q1 - 1, 1e-3), 0.0, 1.0)
        gap = self._log_prior(np.array(mode)) - self._log_prior(centre)
        return np.clip(np.nan_to_num(gap, nan=_PRIOR_SLACK, posinf=_PRIOR_SLACK), 0.0,
                       _PRIOR_SLACK)

    def _set_cells(self, q0: np.ndarray, q1: np.ndarray, logw: np.ndarray) -> None:
        """(q0, q1) quadrature cells, for cell posteriors and for sampling (q0, q1) given theta."""
        self.lo, self.jj, self.logw = 1.0 - q0, q0 + q1 - 1.0, logw
        self.live_cells = np.isfinite(logw)
        with np.errstate(divide="ignore", invalid="ignore"):
            p_hat = (self.k / self.n)[:, None]
            t_star = np.clip((p_hat - self.lo) / self.jj, 0.0, 1.0)
            t_star = np.where(np.isfinite(t_star), t_star, 0.5)
        peaks = self.logw + binomial_log_kernel(self.k[:, None], self.n[:, None],
                                                self.lo + t_star * self.jj)
        self._top = np.max(peaks, axis=1)

    def nodes(self, rows: slice | np.ndarray = slice(None)) -> np.ndarray:
        """Gauss-Legendre nodes of every panel, shape (D, P * N)."""
        base = np.arange(self.panels)[:, None] + (_X[None, :] + 1) / 2
        return self.t0[rows, None] + self.h[rows, None] * base.ravel()[None, :]

    def cell_terms(self, t: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``w_c kernel(p_c(t)) / exp(top)`` for datasets ``rows`` at t (D, G); shape (D, G, C)."""
        cells = self.live_cells
        k, n = self.k[rows, None, None], self.n[rows, None, None]
        p_hat = k / n
        with np.errstate(divide="ignore", invalid="ignore"):
            shift = (sc.xlogy(k, p_hat) + sc.xlog1py(n - k, -p_hat)
                     + self._top[rows, None, None])
        p = t[:, :, None] * self.jj[cells]
        p += self.lo[cells]
        np.clip(p, 1e-300, 1.0 - 2.0**-53, out=p)
        out = np.log1p(-p)
        out *= n - k
        np.log(p, out=p)
        p *= k
        out += p
        out += self.logw[cells] - shift
        return np.exp(out, out=out)

    # -- singular ends of the theta prior ---------------------------------------------------
    def _singular_ends(self) -> tuple[np.ndarray, np.ndarray]:
        """Datasets whose first (last) panel touches 0 (1) where the prior density is unbounded."""
        at, bt = self.prior_theta
        return (at < 1) & (self.t0 <= 0.0), (bt < 1) & (self.t1 >= 1.0)

    def _log_prior_regular(self, t: np.ndarray, low_end: np.ndarray,
                           high_end: np.ndarray) -> np.ndarray:
        """Log prior density without ``t^(a-1)`` (low end) or ``(1-t)^(b-1)`` (high end)."""
        at, bt = self.prior_theta
        out = self._log_prior(t)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(low_end, out - sc.xlogy(at - 1, t), out)
            out = np.where(high_end, out - sc.xlog1py(bt - 1, -t), out)
        return out

    def _end_rule(self, power: float) -> tuple[np.ndarray, np.ndarray]:
        """Gauss-Jacobi nodes u and weights W on [0, 1] for the weight ``u^(power - 1)``."""
        x, w = sc.roots_jacobi(_ORDER, 0.0, power - 1.0)
        return (x + 1) / 2, w / 2.0**power

    def _tabulate(self) -> None:
        d_count = self.k.size
        points = self.panels * _ORDER
        values = np.empty((d_count, points))
        self.sing_lo, self.sing_hi = self._singular_ends()
        first = np.zeros(points, bool)
        first[:_ORDER] = True
        step = max(1, _MAX_ELEMENTS // (points * self.calibration.outer[0][0].size * _INNER))
        for start in range(0, d_count, step):
            rows = np.arange(start, min(start + step, d_count))
            t = self.nodes(rows)
            values[rows] = self.calibration.likelihood(self.k[rows], self.n[rows], t)
            if not self.uniform:
                low_end = self.sing_lo[rows, None] & first[None, :]
                high_end = self.sing_hi[rows, None] & first[None, ::-1]
                values[rows] *= np.exp(self._log_prior_regular(t, low_end, high_end))
        values = np.where(np.isfinite(values), values, 0.0)
        coef = values.reshape(d_count, self.panels, _ORDER) @ _TO_COEF.T       # (D, P, N)
        mass = self.h[:, None] * coef[:, :, 0]
        t = self.nodes()
        weight = (self.h[:, None] / 2) * np.tile(_W, self.panels)[None, :]
        moment = [np.sum(weight * values * t**j, axis=1) for j in (1, 2)]
        for end, power, side in ((self.sing_lo, self.prior_theta[0], 0),
                                 (self.sing_hi, self.prior_theta[1], -1)):
            if end.any():
                self._end_panels(end, power, side, coef, mass, moment)
        self.norm = mass.sum(axis=1)
        self.coef = coef / self.norm[:, None, None]
        self.cum = np.concatenate([np.zeros((d_count, 1)), np.cumsum(mass, axis=1)],
                                  axis=1) / self.norm[:, None]
        self.mean = moment[0] / self.norm
        self.sd = np.sqrt(np.maximum(moment[1] / self.norm - self.mean**2, 0.0))
        at, bt = self.prior_theta
        with np.errstate(divide="ignore", invalid="ignore"):
            values[:, :_ORDER] *= np.where(self.sing_lo[:, None], t[:, :_ORDER] ** (at - 1), 1.0)
            values[:, -_ORDER:] *= np.where(self.sing_hi[:, None],
                                            (1 - t[:, -_ORDER:]) ** (bt - 1), 1.0)
        self._values = values / self.norm[:, None]       # density at the nodes (for the mode)

    def _end_panels(self, end: np.ndarray, power: float, side: int, coef: np.ndarray,
                    mass: np.ndarray, moment: list[np.ndarray]) -> None:
        """Mass and moments of the panel at a singular end, by Gauss-Jacobi (in place).

        On the panel next to 0 the density is ``t^(a-1) g(t)`` with g smooth (tabulated and
        interpolated like any panel); ``int_0^h t^(a-1) g = h^a sum_i W_i g(h u_i)``. The panel
        next to 1 is the mirror image.
        """
        u, w = self._end_rule(power)
        x = 2 * u - 1 if side == 0 else 1 - 2 * u
        g = coef[end, side] @ _legendre_table(x, _ORDER - 1).T                   # (E, N)
        h = self.h[end, None]
        t = h * u if side == 0 else 1 - h * u
        scale = h[:, 0] ** power
        panel_mass = scale * (g @ w)
        panel_moments = [scale * ((g * t**j) @ w) for j in (1, 2)]
        # replace the Gauss-Legendre contribution of that panel
        gl_t = self.nodes(end)[:, :_ORDER] if side == 0 else self.nodes(end)[:, -_ORDER:]
        gl_w = (h / 2) * _W[None, :]
        gl_f = (coef[end, side] @ _legendre_table(_X, _ORDER - 1).T)
        for j in (1, 2):
            moment[j - 1][end] += panel_moments[j - 1] - np.sum(gl_w * gl_f * gl_t**j, axis=1)
        mass[end, side] = panel_mass

    # -- evaluation -----------------------------------------------------------------------------
    def cdf_pdf(self, t: np.ndarray, rows: np.ndarray | None = None
                ) -> tuple[np.ndarray, np.ndarray]:
        """CDF and density at t of shape (D, Q) (``rows`` selects datasets)."""
        sel = slice(None) if rows is None else rows
        t0, h = self.t0[sel][:, None], self.h[sel][:, None]
        t = np.asarray(t, float)
        where = (t - t0) / h
        panel = np.clip(np.floor(where), 0, self.panel_count[sel][:, None] - 1).astype(np.intp)
        x = np.clip(2 * (where - panel) - 1, -1.0, 1.0)
        coef = self.coef[sel][np.arange(panel.shape[0])[:, None], panel]     # (D, Q, N)
        table = _legendre_table(x, _ORDER)
        pdf = np.einsum("dql,dql->dq", coef, table[..., :_ORDER])
        integral = table[..., 2:] - table[..., :-2]
        integral /= (2 * np.arange(1, _ORDER) + 1)
        part = coef[..., 0] * (x + 1) + np.einsum("dql,dql->dq", coef[..., 1:], integral)
        cdf = np.take_along_axis(self.cum[sel], panel, axis=1) + h / 2 * part
        if not self.uniform:
            self._fix_singular_ends(sel, t, panel, coef, cdf, pdf)
        below, above = t < t0, t > self.t1[sel][:, None]
        cdf = np.where(below, 0.0, np.where(above, 1.0, np.clip(cdf, 0.0, 1.0)))
        pdf = np.where(below | above, 0.0, np.maximum(pdf, 0.0))
        return cdf, pdf

    def _fix_singular_ends(self, sel: slice | np.ndarray, t: np.ndarray, panel: np.ndarray,
                           coef: np.ndarray, cdf: np.ndarray, pdf: np.ndarray) -> None:
        """CDF and density in a panel next to a singular end of the prior (in place)."""
        h = np.broadcast_to(self.h[sel][:, None], t.shape)
        last = self.panel_count[sel][:, None] - 1
        for end, power, side in ((self.sing_lo, self.prior_theta[0], 0),
                                 (self.sing_hi, self.prior_theta[1], 1)):
            hit = end[sel][:, None] & (panel == (0 if side == 0 else last))
            if not hit.any():
                continue
            r = np.clip(t[hit] if side == 0 else 1 - t[hit], 0.0, None)
            u, w = self._end_rule(power)
            x = 2 * r[:, None] * u[None, :] / h[hit][:, None] - 1
            x = x if side == 0 else -x
            g_inner = np.einsum("ql,qil->qi", coef[hit], _legendre_table(x, _ORDER - 1))
            part = r**power * (g_inner @ w)
            cdf[hit] = np.clip(part if side == 0 else 1 - part, 0.0, 1.0)
            with np.errstate(divide="ignore"):
                pdf[hit] = pdf[hit] * r ** (power - 1)

    def moments(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean and standard deviation of theta per dataset."""
        return self.mean, self.sd

    @classmethod
    def stack(cls, parts: list[ThetaMarginal]) -> ThetaMarginal:
        """One object holding the datasets of several marginals (same theta prior).

        Only what evaluation needs is kept (CDF, density, moments; not the cells), so quantile
        and HDI searches run once over every dataset instead of once per calibration group.
        """
        if len(parts) == 1:
            return parts[0]
        out = cls.__new__(cls)
        out.prior_theta, out.uniform = parts[0].prior_theta, parts[0].uniform
        out.panels = max(part.panels for part in parts)
        for name in ("k", "n", "t0", "t1", "h", "panel_count", "sing_lo", "sing_hi", "mean",
                     "sd"):
            setattr(out, name, np.concatenate([getattr(part, name) for part in parts]))
        out.coef = np.zeros((out.k.size, out.panels, _ORDER))
        out.cum = np.ones((out.k.size, out.panels + 1))
        start = 0
        for part in parts:
            rows = slice(start, start + part.k.size)
            out.coef[rows, :part.panels] = part.coef
            out.cum[rows, :part.panels + 1] = part.cum
            start += part.k.size
        return out

    def cell_weights(self, row: int = 0) -> np.ndarray:
        """Posterior probability of every live cell for dataset ``row``.

        ``P(c | data) ∝ w_c int pi(t) p_c(t)^k (1 - p_c(t))^(n-k) dt``, by the panel rules (Gauss-
        Legendre, and Gauss-Jacobi next to a singular end of the prior).
        """
        rows = np.array([row])
        t = self.nodes(rows)
        weight = (self.h[row] / 2) * np.tile(_W, self.panels)
        if not self.uniform:
            weight = weight * np.exp(self._log_prior(t[0]))
        total = weight @ self.cell_terms(t, rows)[0]
        for end, power, side in ((self.sing_lo, self.prior_theta[0], 0),
                                 (self.sing_hi, self.prior_theta[1], -1)):
            if not end[row]:
                continue
            u, w = self._end_rule(power)
            h = self.h[row]
            part = slice(0, _ORDER) if side == 0 else slice(-_ORDER, None)
            total -= weight[part] @ self.cell_terms(t[:, part], rows)[0]
            t_end = (h * u if side == 0 else 1 - h * u)[None, :]
            low_end = np.array(side == 0)
            prior = np.exp(self._log_prior_regular(t_end[0], low_end, ~low_end))
            total += (h**power * w * prior) @ self.cell_terms(t_end, rows)[0]
        return total / total.sum()
