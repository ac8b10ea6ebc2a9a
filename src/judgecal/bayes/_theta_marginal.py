r"""The marginal posterior of theta as a piecewise Legendre series (the core of the exact engine).

Given quadrature cells ``c`` for the calibration parameters -- nodes ``(q0_c, q1_c)`` with
log-weights ``log w_c`` that represent the calibration posterior (see
:func:`judgecal.bayes.exact._calibration_nodes`) -- the marginal posterior density of theta is

.. math:: f(t) \propto \pi(t) \sum_c w_c\, p_c(t)^k\,(1 - p_c(t))^{n-k}, \qquad
          p_c(t) = (1 - q_{0c}) + t\,(q_{0c} + q_{1c} - 1),

the binomial test likelihood (the model's eq. for ``k ~ Bin(n, p)``, with
``p = theta q1 + (1 - theta)(1 - q0)``) mixed over the cells. It costs a logarithm and an
exponential per (t, cell); no incomplete beta functions. The density is tabulated at
Gauss-Legendre nodes on ``P`` equal panels covering the support of f, and on each panel it is
replaced by its degree-(N - 1) Legendre interpolant

.. math:: f(t) = \sum_{l<N} c_l P_l(x), \quad x = 2 (t - e_j) / h - 1, \quad
          c_l = \tfrac{2l+1}{2} \sum_i \omega_i f(t_i) P_l(x_i),

whose integral is again a Legendre series (``\int_{-1}^x P_l = (P_{l+1} - P_{l-1}) / (2l + 1)``),
so the CDF, density, moments, quantiles and the HDI are cheap polynomial evaluations.

The support and panel width come from the test likelihood: for each cell the theta range where
``w_c p^k (1 - p)^{n-k}`` is within ``exp(-_DROP)`` of the largest cell maximum (exact roots of the
binomial log-kernel, found by Newton's method in log p), and a panel width of a fraction of the
narrowest cell component, ``sd(p-hat) / max |J_c|``. A Beta prior for theta multiplies the density
(its log-density range over the support widens the cut-off, up to ``_PRIOR_SLACK``).
"""

from __future__ import annotations

import numpy as np
from scipy import special as sc

__all__ = ["ThetaMarginal"]

_ORDER = 12            # Gauss-Legendre nodes per panel
_DROP = 40.0           # log-density drop that bounds the support (e^-40 ~ 4e-18)
_PRIOR_SLACK = 30.0    # extra drop allowed for a theta prior that is far from flat
_PANEL_SCALE = 6.0      # panel width in units of the narrowest cell component
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


class ThetaMarginal:
    """Theta marginals of D datasets ``(k_d, n_d)`` sharing the calibration cells.

    Parameters
    ----------
    k, n : numpy.ndarray
        Test counts, shape (D,).
    lo, jj, logw : numpy.ndarray
        Cells: ``p_c(t) = lo_c + t jj_c`` and log-weights, shape (C,).
    prior_theta : tuple of float
        Beta parameters of the theta prior.
    """

    def __init__(self, k: np.ndarray, n: np.ndarray, lo: np.ndarray, jj: np.ndarray,
                 logw: np.ndarray, prior_theta: tuple[float, float] = (1.0, 1.0)) -> None:
        self.k = np.asarray(k, float)
        self.n = np.asarray(n, float)
        self.lo, self.jj, self.logw = lo, jj, logw
        self.prior_theta = prior_theta
        self.uniform = tuple(prior_theta) == (1.0, 1.0)
        self._support()
        self._tabulate()

    # -- construction --------------------------------------------------------------------------
    def _cell_peaks(self) -> np.ndarray:
        """Largest log-weight x kernel of every cell over t in [0, 1], shape (D, C)."""
        with np.errstate(divide="ignore", invalid="ignore"):
            p_hat = (self.k / self.n)[:, None]
            t_star = np.clip((p_hat - self.lo) / self.jj, 0.0, 1.0)
            t_star = np.where(np.isfinite(t_star), t_star, 0.5)
        p = self.lo + t_star * self.jj
        return self.logw + binomial_log_kernel(self.k[:, None], self.n[:, None], p)

    def _log_prior(self, t: np.ndarray) -> np.ndarray:
        at, bt = self.prior_theta
        with np.errstate(divide="ignore", invalid="ignore"):
            return sc.xlogy(at - 1, t) + sc.xlog1py(bt - 1, -t) - sc.betaln(at, bt)

    def _support(self) -> None:
        peaks = self._cell_peaks()
        top = np.max(peaks, axis=1, keepdims=True)
        drop = _DROP + self._prior_slack(peaks, top)
        tau = self.logw - top + drop[:, None]                      # drop allowed per cell
        live = tau > 0
        p_low, p_high = np.zeros(tau.shape), np.ones(tau.shape)
        rows = np.broadcast_to(np.arange(self.k.size)[:, None], tau.shape)[live]
        p_low[live], p_high[live] = kernel_range(self.k[rows], self.n[rows], tau[live])
        with np.errstate(divide="ignore", invalid="ignore"):
            ends = np.stack([(p_low - self.lo) / self.jj, (p_high - self.lo) / self.jj])
        flat = ~np.isfinite(ends).all(axis=0)                     # jj ~ 0: the whole of [0, 1]
        t_a = np.where(flat, 0.0, np.clip(ends.min(axis=0), 0.0, 1.0))
        t_b = np.where(flat, 1.0, np.clip(ends.max(axis=0), 0.0, 1.0))
        live &= t_b >= t_a
        reach = np.where(live, np.abs(self.jj), 0.0)
        self.t0 = np.min(np.where(live, t_a, 1.0), axis=1)
        self.t1 = np.max(np.where(live, t_b, 0.0), axis=1)
        self.t1 = np.maximum(self.t1, self.t0 + 1e-12)
        self.live_cells = live.any(axis=0)
        self._top = top[:, 0]
        p_tilde = (self.k + 1) / (self.n + 2)
        sd_p = np.sqrt(p_tilde * (1 - p_tilde) / (self.n + 3))
        width = _PANEL_SCALE * sd_p / np.maximum(reach.max(axis=1), 1e-3)
        panels = np.ceil((self.t1 - self.t0) / width)
        self.panels = int(np.clip(panels.max(initial=_MIN_PANELS), _MIN_PANELS, _MAX_PANELS))
        self.h = (self.t1 - self.t0) / self.panels

    def _prior_slack(self, peaks: np.ndarray, top: np.ndarray) -> np.ndarray:
        if self.uniform:
            return np.zeros(self.k.size)
        at, bt = self.prior_theta
        if at < 1 or bt < 1:
            return np.full(self.k.size, _PRIOR_SLACK)
        mode = (at - 1) / (at + bt - 2) if at + bt > 2 else 0.5
        best = np.argmax(peaks, axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            centre = np.clip(((self.k / self.n) - self.lo[best]) / self.jj[best], 0, 1)
        gap = self._log_prior(np.array(mode)) - self._log_prior(np.nan_to_num(centre, nan=0.5))
        return np.clip(gap, 0.0, _PRIOR_SLACK)

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
        cells = int(self.live_cells.sum())
        values = np.empty((d_count, points))
        self.sing_lo, self.sing_hi = self._singular_ends()
        first = np.zeros(points, bool)
        first[:_ORDER] = True
        step = max(1, _MAX_ELEMENTS // max(points * cells, 1))
        for start in range(0, d_count, step):
            rows = np.arange(start, min(start + step, d_count))
            t = self.nodes(rows)
            values[rows] = self.cell_terms(t, rows).sum(axis=2)
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
        panel = np.clip(np.floor(where), 0, self.panels - 1).astype(np.intp)
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
        for end, power, side in ((self.sing_lo, self.prior_theta[0], 0),
                                 (self.sing_hi, self.prior_theta[1], self.panels - 1)):
            hit = end[sel][:, None] & (panel == side)
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
