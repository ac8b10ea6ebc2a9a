r"""The posterior of the judge model by deterministic numerical integration (no MCMC).

Model (the same as :mod:`judgecal.bayes.model`)::

    theta ~ Beta(a_t, b_t),  q0 ~ Beta(a0, b0),  q1 ~ Beta(a1, b1)   [q0 + q1 > 1 if truncated]
    p = theta q1 + (1 - theta)(1 - q0),  k ~ Bin(n, p),  k0 ~ Bin(m0, q0),  k1 ~ Bin(m1, q1).

Method
------
1. *Calibration.* Prior times calibration likelihood makes q0 and q1 independent Betas
   ``Beta(A0, B0) = Beta(a0 + k0, b0 + m0 - k0)`` and ``Beta(A1, B1) = Beta(a1 + k1, b1 + m1 - k1)``
   (times the indicator of q0 + q1 > 1 when the prior is truncated). q0 is integrated with
   Gauss-Hermite nodes in its normal-score scale, ``q0_i = F0^{-1}(Phi(z_i))``; with truncation
   q1 is integrated conditional on q0 over ``(1 - q0_i, 1)`` with the truncated Beta quantile,
   ``q1_ij = F1^{-1}(1 - Phi(-z_j) S1(1 - q0_i))`` and weight ``w_i w_j S1(1 - q0_i)``, where
   ``S1 = 1 - F1``; the weights sum to ``P(q0 + q1 > 1)`` under the untruncated Betas.
2. *Test set, uniform theta prior (exact in theta).* For a node (q0, q1) put ``lo = 1 - q0``,
   ``hi = q1``, ``J = hi - lo``; p is affine in theta, so with ``a = k + 1``, ``b = n - k + 1``
   and ``I_x = I_x(a, b)`` (regularised incomplete beta)

   .. math:: L(q_0, q_1) = \int_0^1 p^k (1-p)^{n-k}\,d\theta = B(a, b)\,
             \frac{I_{hi} - I_{lo}}{J}, \qquad
             P(\theta \le t \mid q_0, q_1) = \frac{I_{lo + tJ} - I_{lo}}{I_{hi} - I_{lo}}.

   The marginal CDF of theta is the mixture ``F(t) = sum_c W_c P(theta <= t | c)`` with cell
   weights ``W_c ∝ w_c L_c``. Differences of incomplete betas are taken in log space from whichever
   tail avoids cancellation, with a continued fraction where ``betainc`` underflows, so counts up
   to n = 10^6 neither overflow nor underflow.
3. *General Beta theta prior.* The prior depends on theta alone, so the marginal density is
   ``f(t) ∝ pi(t) f_U(t)`` with ``f_U`` the uniform-prior marginal density of step 2. It is
   integrated with composite Gauss-Legendre panels whose edges are quantiles of ``f_U`` and of
   the prior.

Quantiles solve ``F(t) = q`` by a bracketed Newton iteration on the exact CDF (absolute error
< 1e-9 in t of the represented CDF); the HDI minimises ``Q(alpha + prob) - Q(alpha)`` by solving
``f(Q(alpha + prob)) = f(Q(alpha))`` in alpha, and touches 0 or 1 when the density is
monotone there.

Accuracy: the theta direction is exact (uniform prior); the error is the (q0, q1) quadrature.
Each cell's conditional theta law has width ~ sd(p-hat) / J; the mixture is smooth when that is
not much narrower than the spread induced by the calibration uncertainty. For test sets much
larger than the calibration sets (n / m >~ 1000) the node count grows (capped) and the CDF can
show small ripples (about 1e-4).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special as sc

from judgecal._validate import as_generator, check_counts, check_level, check_not_exceeding
from judgecal.bayes.priors import Prior
from judgecal.data import JudgeData

__all__ = ["ExactPosterior", "exact_interval", "exact_quantiles"]

_VARS = ("theta", "q0", "q1")
_TINY = 1e-280


# ------------------------------------------------------------------------------------------------
# log-space incomplete beta
# ------------------------------------------------------------------------------------------------
def _log_cf(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Return log I_x(a, b) by the continued fraction (valid for x < (a + 1) / (a + b + 2))."""
    front = sc.xlogy(a, x) + sc.xlog1py(b, -x) - sc.betaln(a, b) - np.log(a)
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = np.ones_like(x)
    d = 1.0 - qab * x / qap
    d = np.where(np.abs(d) < 1e-300, 1e-300, d)
    d = 1.0 / d
    h = d.copy()
    for m in range(1, 300):
        m2 = 2 * m
        for aa in (m * (b - m) * x / ((qam + m2) * (a + m2)),
                   -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))):
            d = 1.0 + aa * d
            d = np.where(np.abs(d) < 1e-300, 1e-300, d)
            c = 1.0 + aa / c
            c = np.where(np.abs(c) < 1e-300, 1e-300, c)
            d = 1.0 / d
            delta = d * c
            h = h * delta
        if np.all(np.abs(delta - 1.0) < 1e-15):
            break
    return front + np.log(h)


def _log_tails(a: Any, b: Any, x: Any, precise: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(log I_x(a, b), log(1 - I_x(a, b)))`` accurately, including deep tails."""
    a, b, x = np.broadcast_arrays(np.asarray(a, float), np.asarray(b, float),
                                  np.clip(np.asarray(x, float), 0.0, 1.0))
    upper = x > a / (a + b)
    low = np.empty(x.shape)
    high = np.empty(x.shape)
    with np.errstate(divide="ignore"):
        lo_val = sc.betainc(a[~upper], b[~upper], x[~upper])
        hi_val = sc.betaincc(a[upper], b[upper], x[upper])
        low[~upper], high[~upper] = np.log(lo_val), np.log1p(-lo_val)
        high[upper], low[upper] = np.log(hi_val), np.log1p(-hi_val)
    for out, aa, bb, xx in ((low, a, b, x), (high, b, a, 1.0 - x)):
        bad = (out < np.log(_TINY)) & (xx > 0.0)
        if bad.any():
            aa, bb, xx = aa[bad], bb[bad], xx[bad]
            if precise:
                out[bad] = _log_cf(aa, bb, xx)
            else:  # first convergent of the continued fraction: ample where I < 1e-280
                with np.errstate(all="ignore"):
                    out[bad] = (sc.xlogy(aa, xx) + sc.xlog1py(bb, -xx) - sc.betaln(aa, bb)
                                - np.log(aa) - np.log(np.abs(1 - (aa + bb) * xx / (aa + 1))))
    return low, high


def _log1mexp(d: np.ndarray) -> np.ndarray:
    """Return log(1 - exp(d)) for d <= 0."""
    d = np.minimum(d, 0.0)
    with np.errstate(divide="ignore"):
        return np.where(d > -0.693, np.log(-np.expm1(d)), np.log1p(-np.exp(d)))


def _log_diff(a: Any, b: Any, x: Any, y: Any,
              tails_x: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """Return log(I_y(a, b) - I_x(a, b)) for x <= y, from the tail that avoids cancellation."""
    a, b, x, y = np.broadcast_arrays(*(np.asarray(v, float) for v in (a, b, x, y)))
    lx, ux = _log_tails(a, b, x) if tails_x is None else np.broadcast_arrays(*tails_x)
    ly, uy = _log_tails(a, b, y)
    return _combine(a / (a + b), x, y, lx, ux, ly, uy)


def _combine(mean: np.ndarray, x: np.ndarray, y: np.ndarray, lx: np.ndarray, ux: np.ndarray,
             ly: np.ndarray, uy: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        low = ly + _log1mexp(lx - ly)
        high = ux + _log1mexp(uy - ux)
        mid = np.log1p(-np.minimum(np.exp(lx) + np.exp(uy), 1.0))
    out = np.where(y <= mean, low, np.where(x >= mean, high, mid))
    return np.where(y <= x, -np.inf, out)


def _logsumexp(v: np.ndarray, axis: int = -1) -> np.ndarray:
    top = np.max(v, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.squeeze(top, axis) + np.log(np.sum(np.exp(v - top), axis=axis))


# ------------------------------------------------------------------------------------------------
# calibration quadrature
# ------------------------------------------------------------------------------------------------
def _normal_nodes(size: int) -> tuple[np.ndarray, np.ndarray]:
    z, w = sc.roots_hermitenorm(size)
    return z, w / w.sum()


def _beta_ppf_z(a: float, b: float, z: np.ndarray) -> np.ndarray:
    """Beta(a, b) quantile at probability Phi(z), accurate in both tails."""
    with np.errstate(all="ignore"):
        return np.where(z <= 0, sc.betaincinv(a, b, sc.ndtr(np.minimum(z, 0.0))),
                        sc.betainccinv(a, b, sc.ndtr(-np.maximum(z, 0.0))))


def _calibration_nodes(
    a0: float, b0: float, a1: float, b1: float, truncate: bool, size: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Quadrature of the (possibly truncated) product of Betas for (q0, q1).

    Returns flat arrays ``(q0, q1, log_w)`` with ``sum(exp(log_w)) == 1`` and the log of the
    truncation probability ``log P(q0 + q1 > 1)`` (0 when not truncated).
    """
    z, w = _normal_nodes(size)
    q0 = _beta_ppf_z(a0, b0, z)
    if not truncate:
        q1 = _beta_ppf_z(a1, b1, z)
        g0, g1 = np.meshgrid(q0, q1, indexing="ij")
        logw = np.log(w)[:, None] + np.log(w)[None, :]
        return g0.ravel(), g1.ravel(), logw.ravel(), 0.0
    cut = 1.0 - q0
    log_s = _log_tails(a1, b1, cut)[1]                      # log P(q1 > 1 - q0_i)
    keep = np.isfinite(log_s) & (np.exp(log_s) > 0)
    z_low = sc.ndtr(-z)                                      # 1 - Phi(z_j)
    with np.errstate(all="ignore"):
        q1 = sc.betainccinv(a1, b1, np.exp(log_s)[:, None] * z_low[None, :])
    q1 = np.where(keep[:, None], np.clip(q1, cut[:, None], 1.0), 1.0)
    logw = np.log(w)[:, None] + np.where(keep, log_s, -np.inf)[:, None] + np.log(w)[None, :]
    g0 = np.broadcast_to(q0[:, None], q1.shape)
    total = float(_logsumexp(logw.ravel()))
    return g0.ravel(), q1.ravel(), (logw - total).ravel(), total


def _node_count(data_like: tuple[float, ...]) -> int:
    """Nodes per axis: more when the test set is much sharper than the calibration sets."""
    n, m0, m1 = data_like
    ratio = np.sqrt(n / max(min(m0, m1), 1.0))
    return int(np.clip(np.ceil(16 + 5 * ratio), 24, 64))


# ------------------------------------------------------------------------------------------------
# the mixture over cells (uniform theta prior), vectorised over datasets
# ------------------------------------------------------------------------------------------------
class _Mixture:
    """Cells (lo, hi) with weights; datasets along axis 0, cells along axis 1."""

    def __init__(self, k: np.ndarray, n: np.ndarray, q0: np.ndarray, q1: np.ndarray,
                 logw: np.ndarray) -> None:
        self.a = (np.asarray(k, float) + 1.0)[:, None]
        self.b = (np.asarray(n, float) - np.asarray(k, float) + 1.0)[:, None]
        lo = 1.0 - q0
        hi = q1
        jj = hi - lo
        flat = np.abs(jj) < 1e-12
        hi = np.where(flat, lo + 1e-12, hi)
        jj = np.where(flat, 1e-12, jj)
        self.lo, self.hi, self.jj = lo[None, :], hi[None, :], jj[None, :]
        self.q0, self.q1 = q0, q1
        self.mean_p = self.a / (self.a + self.b)
        self.tails_lo = _log_tails(self.a, self.b, self.lo)
        tails_hi = _log_tails(self.a, self.b, self.hi)
        self.log_d = self._between(self.lo, self.tails_lo, self.hi, tails_hi, self.mean_p)
        log_post = logw[None, :] + self.log_d - np.log(np.abs(self.jj))
        log_post = log_post - _logsumexp(log_post)[:, None]
        self.weight = np.exp(log_post)
        self.weight[~np.isfinite(self.weight)] = 0.0
        self.log_norm = sc.betaln(self.a, self.b)

    @staticmethod
    def _between(u: np.ndarray, tu: tuple[np.ndarray, np.ndarray], v: np.ndarray,
                 tv: tuple[np.ndarray, np.ndarray], mean: np.ndarray) -> np.ndarray:
        """Log |I_v - I_u| from precomputed tails of u and v."""
        swap = v < u
        x, y = np.where(swap, v, u), np.where(swap, u, v)
        lx, ux = np.where(swap, tv[0], tu[0]), np.where(swap, tv[1], tu[1])
        ly, uy = np.where(swap, tu[0], tv[0]), np.where(swap, tu[1], tv[1])
        return _combine(mean, x, y, lx, ux, ly, uy)

    def cdf_pdf(self, t: np.ndarray, rows: np.ndarray | None = None) -> tuple[np.ndarray, ...]:
        """CDF and density of theta at t of shape (D, Q) (rows select datasets)."""
        sel = slice(None) if rows is None else rows
        a, b = self.a[sel][:, :, None], self.b[sel][:, :, None]
        log_d = self.log_d[sel][:, :, None]
        weight = self.weight[sel][:, :, None]
        lo, jj = self.lo[:, :, None], self.jj[:, :, None]
        t = np.clip(t, 0.0, 1.0)[:, None, :]
        p = np.clip(lo + t * jj, 0.0, 1.0)
        tails_lo = tuple(v[sel][:, :, None] for v in self.tails_lo)
        with np.errstate(all="ignore"):
            part = self._between(lo, tails_lo, p, _log_tails(a, b, p, False), a / (a + b))
            cond = np.exp(part - log_d)
            log_f = (sc.xlogy(a - 1, p) + sc.xlog1py(b - 1, -p) - self.log_norm[sel][:, :, None]
                     - log_d + np.log(np.abs(jj)))
            dens = np.exp(log_f)
        cond = np.where(np.isfinite(cond), np.clip(cond, 0.0, 1.0), 0.0)
        dens = np.where(np.isfinite(dens), dens, 0.0)
        return np.sum(weight * cond, axis=1), np.sum(weight * dens, axis=1)

    def moments(self) -> tuple[np.ndarray, np.ndarray]:
        """Posterior mean and sd of theta for every dataset (exact per cell)."""
        x, y = np.minimum(self.lo, self.hi), np.maximum(self.lo, self.hi)
        s = self.a + self.b
        with np.errstate(all="ignore"):
            e1 = self.a / s * np.exp(_log_diff(self.a + 1, self.b, x, y) - self.log_d)
            e2 = (self.a * (self.a + 1) / (s * (s + 1))
                  * np.exp(_log_diff(self.a + 2, self.b, x, y) - self.log_d))
        e1 = np.where(np.isfinite(e1), e1, 0.0)
        e2 = np.where(np.isfinite(e2), e2, 0.0)
        m1 = (e1 - self.lo) / self.jj
        m2 = (e2 - 2 * self.lo * e1 + self.lo**2) / self.jj**2
        mean = np.sum(self.weight * np.clip(m1, 0, 1), axis=1)
        second = np.sum(self.weight * np.clip(m2, 0, 1), axis=1)
        return mean, np.sqrt(np.maximum(second - mean**2, 0.0))


# ------------------------------------------------------------------------------------------------
# generic root finding (vectorised)
# ------------------------------------------------------------------------------------------------
CdfPdf = Callable[[np.ndarray], tuple[np.ndarray, np.ndarray]]


def _solve_quantile(cdf_pdf: CdfPdf, q: np.ndarray, start: np.ndarray,
                    tol: float = 1e-10, max_iter: int = 100) -> np.ndarray:
    """Solve F(t) = q elementwise by Newton's method safeguarded by a bracket in [0, 1]."""
    q = np.asarray(q, float)
    t = np.clip(np.broadcast_to(start, q.shape).astype(float), 1e-12, 1 - 1e-12)
    left, right = np.zeros_like(t), np.ones_like(t)
    for _ in range(max_iter):
        f_val, d_val = cdf_pdf(t)
        err = f_val - q
        left = np.where(err <= 0, t, left)
        right = np.where(err > 0, t, right)
        with np.errstate(all="ignore"):
            step = t - err / d_val
        ok = np.isfinite(step) & (step > left) & (step < right)
        new = np.where(ok, step, 0.5 * (left + right))
        done = (np.abs(new - t) < tol) | (np.abs(err) < 1e-13)
        t = np.where(np.abs(err) < 1e-13, t, new)
        if done.all():
            break
    return t


def _hdi(cdf_pdf: CdfPdf, quantile: Callable[[np.ndarray, np.ndarray], np.ndarray],
         prob: float, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Shortest interval of mass ``prob`` for ``rows`` unimodal distributions on [0, 1]."""
    span = 1.0 - prob
    ends = np.array([[0.0, 1.0]] * rows)
    f_ends = cdf_pdf(ends)[1]
    q_ends = quantile(np.array([[prob, span]] * rows), np.full((rows, 2), 0.5))
    f_q = cdf_pdf(q_ends)[1]
    at_zero = f_ends[:, 0] >= f_q[:, 0]            # density decreasing: [0, Q(prob)]
    at_one = ~at_zero & (f_ends[:, 1] >= f_q[:, 1])  # density increasing: [Q(1 - prob), 1]

    def g(alpha: np.ndarray, guess: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        levels = np.stack([alpha, alpha + prob], axis=1)
        t = quantile(levels, guess)
        dens = cdf_pdf(t)[1]
        return dens[:, 1] - dens[:, 0], t

    a_lo, a_hi = np.zeros(rows), np.full(rows, span)
    g_lo, g_hi = np.ones(rows), -np.ones(rows)
    alpha = np.full(rows, 0.5 * span)
    guess = quantile(np.stack([alpha, alpha + prob], axis=1), np.full((rows, 2), 0.5))
    side = np.zeros(rows)
    for _ in range(60):
        val, guess = g(alpha, guess)
        pos = val > 0
        a_lo, g_lo = np.where(pos, alpha, a_lo), np.where(pos, val, g_lo)
        a_hi, g_hi = np.where(pos, a_hi, alpha), np.where(pos, g_hi, val)
        # Illinois-style false position, bisection when the update stalls
        side = np.where(pos, np.minimum(side, 0) - 1, np.maximum(side, 0) + 1)
        gl = np.where(side >= 2, g_lo / 2, g_lo)
        gh = np.where(side <= -2, g_hi / 2, g_hi)
        with np.errstate(all="ignore"):
            new = a_lo - gl * (a_hi - a_lo) / (gh - gl)
        bad = ~np.isfinite(new) | (new <= a_lo) | (new >= a_hi)
        new = np.where(bad, 0.5 * (a_lo + a_hi), new)
        if np.all((a_hi - a_lo < 1e-10) | (np.abs(new - alpha) < 1e-11)
                  | at_zero | at_one):
            alpha = new
            break
        alpha = new
    low, high = guess[:, 0], guess[:, 1]
    low = np.where(at_zero, 0.0, np.where(at_one, q_ends[:, 1], low))
    high = np.where(at_zero, q_ends[:, 0], np.where(at_one, 1.0, high))
    return low, high


# ------------------------------------------------------------------------------------------------
# validation helpers
# ------------------------------------------------------------------------------------------------
def _check_var(var: Any) -> str:
    if var not in _VARS:
        raise ValueError(f"`var` ({var!r}) must be one of 'theta', 'q0' or 'q1'.")
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




# ------------------------------------------------------------------------------------------------
# the public class
# ------------------------------------------------------------------------------------------------
class ExactPosterior:
    r"""Posterior of (theta, q0, q1) by deterministic quadrature; see the module docstring.

    Parameters
    ----------
    data : JudgeData
        The six counts.
    prior : Prior, optional
        Beta priors; ``None`` means ``Prior()`` (uniform, truncated to q0 + q1 > 1).
    nodes : int, optional
        Gauss-Hermite nodes per calibration axis (default: 24-64, growing with
        ``sqrt(n / min(m0, m1))``).

    Notes
    -----
    With the uniform theta prior the theta marginal is the exact mixture

    .. math:: F(t) = \sum_c W_c\,\frac{I_{lo_c + t J_c}(k+1, n-k+1) - I_{lo_c}(k+1, n-k+1)}
              {I_{hi_c}(k+1, n-k+1) - I_{lo_c}(k+1, n-k+1)},\quad
              W_c \propto w_c\,\frac{I_{hi_c} - I_{lo_c}}{J_c},

    over the (q0, q1) quadrature cells c; a Beta(a_t, b_t) theta prior multiplies its density by
    ``pi(t)`` (integrated with composite Gauss-Legendre panels).

    Examples
    --------
    >>> post = ExactPosterior(JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200))
    >>> round(post.mean(), 3)
    0.162
    """

    def __init__(self, data: JudgeData, prior: Prior | None = None, *,
                 nodes: int | None = None) -> None:
        if not isinstance(data, JudgeData):
            raise TypeError(f"`data` must be a JudgeData, got {type(data).__name__}.")
        self.data = data
        self.prior = _check_prior(prior)
        (a0, b0), (a1, b1) = self.prior.q0, self.prior.q1
        self._beta0 = (a0 + data.k0, b0 + data.m0 - data.k0)
        self._beta1 = (a1 + data.k1, b1 + data.m1 - data.k1)
        size = nodes if nodes is not None else _node_count((data.n, data.m0, data.m1))
        q0, q1, logw, self._log_trunc = _calibration_nodes(
            *self._beta0, *self._beta1, self.prior.better_than_chance, size)
        mix = _Mixture(np.array([data.k]), np.array([data.n]), q0, q1, logw)
        keep = mix.weight[0] > 1e-15
        self._mix = _Mixture(np.array([data.k]), np.array([data.n]), q0[keep], q1[keep],
                             logw[keep])
        self._uniform = self.prior.theta == (1.0, 1.0)
        if not self._uniform:
            self._build_panels()

    # -- general theta prior: composite Gauss-Legendre on panels -----------------------------
    def _prior_logpdf(self, t: np.ndarray) -> np.ndarray:
        at, bt = self.prior.theta
        with np.errstate(divide="ignore"):
            return sc.xlogy(at - 1, t) + sc.xlog1py(bt - 1, -t) - sc.betaln(at, bt)

    def _uniform_cdf_pdf(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        flat = np.asarray(t, float).reshape(1, -1)
        f_val, d_val = self._mix.cdf_pdf(flat)
        return f_val.reshape(np.shape(t)), d_val.reshape(np.shape(t))

    def _build_panels(self) -> None:
        levels = np.array([1e-12, 1e-8, 1e-5, 1e-3, 0.01, 0.05, 0.15, 0.3, 0.5, 0.7, 0.85,
                           0.95, 0.99, 0.999, 1 - 1e-5, 1 - 1e-8, 1 - 1e-12])
        mean, sd = self._mix.moments()
        start = np.clip(mean + sc.ndtri(levels) * sd, 0, 1)[None, :]
        q_u = _solve_quantile(lambda t: self._mix.cdf_pdf(t), levels[None, :], start,
                              tol=1e-9)[0]
        at, bt = self.prior.theta
        q_p = sc.betaincinv(at, bt, levels)
        edges = np.unique(np.concatenate([[0.0, 1.0], q_u, q_p]))
        edges = edges[np.concatenate([[True], np.diff(edges) > 1e-9])]
        edges[-1] = 1.0
        x, w = sc.roots_legendre(16)
        self._gl = (x, w)
        half = np.diff(edges)[:, None] / 2
        nodes = edges[:-1, None] + half * (x[None, :] + 1)
        dens = self._uniform_cdf_pdf(nodes)[1] * np.exp(self._prior_logpdf(nodes))
        mass = np.sum(half * w[None, :] * dens, axis=1)
        self._norm = float(mass.sum())
        self._edges = edges
        self._cum = np.concatenate([[0.0], np.cumsum(mass)]) / self._norm
        self._nodes = nodes.ravel()
        self._node_mass = (half * w[None, :] * dens).ravel() / self._norm

    def _general_cdf_pdf(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        t = np.clip(np.asarray(t, float), 0.0, 1.0)
        flat = t.ravel()
        panel = np.clip(np.searchsorted(self._edges, flat, side="right") - 1, 0,
                        len(self._edges) - 2)
        start = self._edges[panel]
        x, w = self._gl
        half = (flat - start)[:, None] / 2
        nodes = start[:, None] + half * (x[None, :] + 1)
        dens = self._uniform_cdf_pdf(nodes)[1] * np.exp(self._prior_logpdf(nodes))
        part = np.sum(half * w[None, :] * dens, axis=1) / self._norm
        cdf = np.clip(self._cum[panel] + part, 0.0, 1.0)
        with np.errstate(all="ignore"):
            pdf = (self._uniform_cdf_pdf(flat)[1] * np.exp(self._prior_logpdf(flat))
                   / self._norm)
        pdf = np.where(np.isfinite(pdf), pdf, 0.0)
        return cdf.reshape(t.shape), pdf.reshape(t.shape)

    def _theta_cdf_pdf(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """CDF and density of theta at ``t`` (rows, cols)."""
        if self._uniform:
            return self._uniform_cdf_pdf(t)
        return self._general_cdf_pdf(t)

    # -- public API -----------------------------------------------------------------------------
    def cdf(self, x: Any, var: str = "theta") -> np.ndarray | float:
        """Posterior CDF P(var <= x), vectorised over ``x``."""
        var = _check_var(var)
        arr = np.asarray(x, float)
        if var == "theta":
            out = self._theta_cdf_pdf(arr.reshape(1, -1))[0]
        else:
            out = self._q_cdf(arr.reshape(-1), var)
        out = np.asarray(out).reshape(arr.shape)
        return float(out) if out.ndim == 0 else out

    def pdf(self, x: Any, var: str = "theta") -> np.ndarray | float:
        """Posterior density of theta at ``x`` (only ``var="theta"`` is supported)."""
        if _check_var(var) != "theta":
            raise ValueError(f"`var` ({var!r}) must be 'theta' for the density.")
        arr = np.asarray(x, float)
        out = self._theta_cdf_pdf(arr.reshape(1, -1))[1].reshape(arr.shape)
        return float(out) if out.ndim == 0 else out

    def quantile(self, q: Any, var: str = "theta") -> np.ndarray | float:
        """Posterior quantile of ``var`` at probabilities ``q`` (vectorised, error < 1e-9)."""
        var = _check_var(var)
        arr = _check_probs(q, "q")
        flat = arr.reshape(1, -1)
        if var == "theta":
            out = self._theta_quantile(flat, self._start(flat))
        else:
            out = _solve_quantile(
                lambda t: (self._q_cdf(t.ravel(), var).reshape(t.shape),
                           np.ones_like(t) * np.inf), flat, np.full(flat.shape, 0.5), tol=1e-11,
                max_iter=80)
        out = out.reshape(arr.shape)
        return float(out) if out.ndim == 0 else out

    def _start(self, levels: np.ndarray) -> np.ndarray:
        mean, sd = self.mean(), self.sd()
        return np.clip(mean + sd * sc.ndtri(levels), 1e-9, 1 - 1e-9)

    def _theta_quantile(self, levels: np.ndarray, start: np.ndarray) -> np.ndarray:
        return _solve_quantile(self._theta_cdf_pdf, levels, start)

    def mean(self, var: str = "theta") -> float:
        """Posterior mean of ``var``."""
        var = _check_var(var)
        if var != "theta":
            values = self._mix.q0 if var == "q0" else self._mix.q1
            return float(np.sum(self._mix.weight[0] * values))
        if self._uniform:
            return float(self._mix.moments()[0][0])
        return float(np.sum(self._node_mass * self._nodes))

    def sd(self, var: str = "theta") -> float:
        """Posterior standard deviation of ``var``."""
        var = _check_var(var)
        if var != "theta":
            values = self._mix.q0 if var == "q0" else self._mix.q1
            mean = np.sum(self._mix.weight[0] * values)
            return float(np.sqrt(max(np.sum(self._mix.weight[0] * (values - mean) ** 2), 0.0)))
        if self._uniform:
            return float(self._mix.moments()[1][0])
        mean = self.mean()
        return float(np.sqrt(max(np.sum(self._node_mass * (self._nodes - mean) ** 2), 0.0)))

    def interval(self, prob: float = 0.95, kind: str = "eti") -> tuple[float, float]:
        """Credible interval for theta: equal-tailed (``"eti"``) or shortest (``"hdi"``)."""
        prob = check_level(prob, "prob")
        kind = _check_kind(kind)
        if kind == "eti":
            low, high = self.quantile([(1 - prob) / 2, (1 + prob) / 2])
            return float(low), float(high)
        low, high = _hdi(self._theta_cdf_pdf, self._theta_quantile, prob, 1)
        return float(low[0]), float(high[0])

    def mode(self) -> float:
        """Posterior mode of theta (maximiser of the marginal density)."""
        grid = np.linspace(0.0, 1.0, 2001)
        dens = self.pdf(grid)
        i = int(np.argmax(dens))
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, 2000)]
        gr = (np.sqrt(5) - 1) / 2
        for _ in range(60):
            c, d = hi - gr * (hi - lo), lo + gr * (hi - lo)
            if self.pdf(c) >= self.pdf(d):
                hi = d
            else:
                lo = c
        return float((lo + hi) / 2)

    def _q_cdf(self, x: np.ndarray, var: str) -> np.ndarray:
        """CDF of q0 or q1 from the quadrature (a step function at the nodes, interpolated)."""
        values = self._mix.q0 if var == "q0" else self._mix.q1
        order = np.argsort(values)
        v, cum = values[order], np.cumsum(self._mix.weight[0][order])
        mid = cum - self._mix.weight[0][order] / 2
        return np.interp(x, v, mid, left=0.0, right=1.0)

    def sample(self, size: int, random_seed: Any = None) -> dict[str, np.ndarray]:
        """Draw ``size`` joint posterior draws of theta, q0 and q1.

        (q0, q1) is drawn from the quadrature cells (so its values are the nodes) and theta
        exactly from its conditional law given the cell: with the uniform prior by inverting
        ``I_p(k + 1, n - k + 1)`` on ``[lo, hi]``; with another Beta prior theta is drawn first
        from its marginal by inverse CDF and the cell from its conditional given theta.
        """
        if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 0:
            raise ValueError(f"`size` ({size!r}) must be a non-negative integer.")
        rng = as_generator(random_seed)
        mix = self._mix
        weight = mix.weight[0]
        if self._uniform:
            cell = rng.choice(weight.size, size=size, p=weight / weight.sum())
            u = rng.random(size)
            a, b = float(mix.a[0, 0]), float(mix.b[0, 0])
            lo, hi, jj = mix.lo[0, cell], mix.hi[0, cell], mix.jj[0, cell]
            x, y = np.minimum(lo, hi), np.maximum(lo, hi)
            fx, fy = sc.betainc(a, b, x), sc.betainc(a, b, y)
            p = sc.betaincinv(a, b, fx + u * (fy - fx))
            bad = ~(fy > fx)   # deep tail: fall back to the cell's position by its log mass
            p = np.where(bad, x + u * (y - x), p)
            theta = np.clip((p - lo) / jj, 0.0, 1.0)
        else:
            u = rng.random(size)
            theta = self._theta_quantile(u.reshape(1, -1), self._start(u.reshape(1, -1)))[0]
            p = np.clip(mix.lo[0][None, :] + theta[:, None] * mix.jj[0][None, :], 0, 1)
            a, b = float(mix.a[0, 0]), float(mix.b[0, 0])
            logp = (np.log(np.maximum(weight, 1e-300))[None, :] + sc.xlogy(a - 1, p)
                    + sc.xlog1py(b - 1, -p) - mix.log_d[0][None, :]
                    + np.log(np.abs(mix.jj[0]))[None, :])
            logp -= _logsumexp(logp)[:, None]
            cum = np.cumsum(np.exp(logp), axis=1)
            cell = np.minimum((cum < rng.random(size)[:, None] * cum[:, -1:]).sum(axis=1),
                              weight.size - 1)
        return {"theta": theta, "q0": mix.q0[cell].copy(), "q1": mix.q1[cell].copy()}

    def __repr__(self) -> str:
        return f"ExactPosterior(data={self.data!r}, prior={self.prior!r})"


# ------------------------------------------------------------------------------------------------
# vectorised path
# ------------------------------------------------------------------------------------------------
def _broadcast_counts(k: Any, n: Any, k0: Any, m0: Any, k1: Any, m1: Any) -> list[np.ndarray]:
    arrays = {}
    for name, value, minimum in (("k", k, 0), ("n", n, 1), ("k0", k0, 0), ("m0", m0, 1),
                                 ("k1", k1, 0), ("m1", m1, 1)):
        arrays[name] = check_counts(value, name, minimum=minimum)
    for part, whole in (("k", "n"), ("k0", "m0"), ("k1", "m1")):
        check_not_exceeding(arrays[part], arrays[whole], part, whole)
    return [a.astype(float) for a in np.broadcast_arrays(*arrays.values())]


def _grouped(counts: list[np.ndarray], prior: Prior,
             work: Callable[[_Mixture, np.ndarray], np.ndarray], width: int) -> np.ndarray:
    """Apply ``work(mixture, rows)`` per group of datasets sharing their calibration counts."""
    k, n, k0, m0, k1, m1 = (c.ravel() for c in counts)
    out = np.empty((k.size, width))
    if k.size == 0:
        return out
    keys = np.stack([k0, m0, k1, m1, n], axis=1)
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    (a0, b0), (a1, b1), trunc = prior.q0, prior.q1, prior.better_than_chance
    for g, (gk0, gm0, gk1, gm1, gn) in enumerate(uniq):
        rows = np.flatnonzero(inverse == g)
        size = _node_count((gn, gm0, gm1))
        q0, q1, logw, _ = _calibration_nodes(a0 + gk0, b0 + gm0 - gk0, a1 + gk1,
                                             b1 + gm1 - gk1, trunc, size)
        for chunk in np.array_split(rows, max(1, rows.size // 64)):
            mix = _Mixture(k[chunk], n[chunk], q0, q1, logw)
            keep = mix.weight.max(axis=0) > 1e-15
            mix = _Mixture(k[chunk], n[chunk], q0[keep], q1[keep], logw[keep])
            out[chunk] = work(mix, chunk)
    return out


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
        Shape ``S + (len(q),)`` (``S`` when ``q`` is a scalar). Datasets sharing
        ``(k0, m0, k1, m1, n)`` share one calibration quadrature (see :class:`ExactPosterior`).
    """
    prior = _check_prior(prior)
    levels = _check_probs(q, "q")
    if levels.ndim > 1:
        raise ValueError(f"`q` must be a scalar or 1-D, got shape {levels.shape}.")
    counts = _broadcast_counts(k, n, k0, m0, k1, m1)
    shape = counts[0].shape
    flat_q = np.atleast_1d(levels)
    if prior.theta != (1.0, 1.0):
        out = np.array([ExactPosterior(JudgeData(*map(int, row)), prior).quantile(flat_q)
                        for row in zip(*(c.ravel() for c in counts), strict=True)])
        out = out.reshape((-1, flat_q.size))
    else:
        def work(mix: _Mixture, rows: np.ndarray) -> np.ndarray:
            mean, sd = mix.moments()
            target = np.broadcast_to(flat_q, (rows.size, flat_q.size))
            start = np.clip(mean[:, None] + sd[:, None] * sc.ndtri(target), 1e-9, 1 - 1e-9)
            return _solve_quantile(lambda t: mix.cdf_pdf(t), target, start)

        out = _grouped(counts, prior, work, flat_q.size)
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
    if prior.theta != (1.0, 1.0):
        rows = [ExactPosterior(JudgeData(*map(int, row)), prior).interval(prob, "hdi")
                for row in zip(*(c.ravel() for c in counts), strict=True)]
        out = np.array(rows).reshape(-1, 2)
    else:
        def work(mix: _Mixture, rows: np.ndarray) -> np.ndarray:
            def quant(levels: np.ndarray, start: np.ndarray) -> np.ndarray:
                return _solve_quantile(lambda t: mix.cdf_pdf(t), levels, start)

            low, high = _hdi(lambda t: mix.cdf_pdf(t), quant, prob, rows.size)
            return np.stack([low, high], axis=1)

        out = _grouped(counts, prior, work, 2)
    return out[:, 0].reshape(shape), out[:, 1].reshape(shape)
