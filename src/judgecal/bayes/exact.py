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
2. *Test set and theta.* Given (q0, q1), p is affine in theta, ``p = lo + t J`` with
   ``lo = 1 - q0`` and ``J = q0 + q1 - 1``, so the marginal density of theta is

   .. math:: f(t) \propto \pi(t)\, E_{q_0, q_1}\big[p^k (1 - p)^{n-k}\big]

   (binomial likelihood of the test count averaged over the calibration posterior, times the Beta
   prior of theta). The expectation is a 2-D integral along the ridge of the binomial kernel: for
   each t, one calibration parameter is integrated with the Gauss-Hermite nodes of its Beta, the
   other with Gauss-Legendre nodes on the interval where its Beta and the kernel both matter; the
   variable with the larger weight in p is the inner one, so the outer integrand is smooth on the
   scale of its Beta and no ripple appears however narrow the kernel is. f is tabulated on equal
   panels and represented by Legendre interpolants (:mod:`judgecal.bayes._theta_marginal`), so the
   CDF, density and moments are polynomial evaluations. The (q0, q1) cells of step 1 give the
   posterior of q0 and q1 (cell weights ``w_c int pi(t) p_c(t)^k (1 - p_c(t))^(n-k) dt``) and the
   draws of (q0, q1) given theta.

Quantiles solve ``F(t) = q`` by a bracketed Newton iteration on the exact CDF (absolute error
< 1e-9 in t of the represented CDF); the HDI minimises ``Q(alpha + prob) - Q(alpha)`` by solving
``f(Q(alpha + prob)) = f(Q(alpha))`` in alpha, and touches 0 or 1 when the density is
monotone there.

Accuracy: quantiles of theta agree with brute-force 3-D quadrature to about 1e-5 or better,
including calibration arms of 10 items against 1,000 test items (tests/test_bayes_exact.py). A
theta prior with a parameter below 1 has an unbounded density at 0 or 1; where the posterior has
mass next to that end, the panel next to it is integrated with a Gauss-Jacobi rule that absorbs
the singular factor. The q0 and q1 summaries come from the cells (24-64 nodes per axis).
"""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special as sc

from judgecal._validate import as_generator, check_counts, check_level, check_not_exceeding
from judgecal.bayes._theta_marginal import Calibration, ThetaMarginal
from judgecal.bayes.priors import Prior
from judgecal.data import JudgeData

__all__ = ["ExactPosterior", "exact_interval", "exact_quantiles"]

_VARS = ("theta", "q0", "q1")
_OUTER = 24      # Gauss-Hermite nodes of the outer calibration integral
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


def _logsumexp(v: np.ndarray, axis: int = -1) -> np.ndarray:
    top = np.max(v, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.squeeze(top, axis) + np.log(np.sum(np.exp(v - top), axis=axis))


# ------------------------------------------------------------------------------------------------
# calibration quadrature
# ------------------------------------------------------------------------------------------------
@functools.lru_cache(maxsize=64)
def _normal_nodes(size: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss-Hermite nodes and weights (summing to 1) for the standard normal (cached)."""
    z, w = sc.roots_hermitenorm(size)
    z.flags.writeable = False
    w = w / w.sum()
    w.flags.writeable = False
    return z, w


def _beta_ppf_z(a: float, b: float, z: np.ndarray) -> np.ndarray:
    """Beta(a, b) quantile at probability Phi(z), accurate in both tails."""
    with np.errstate(all="ignore"):
        return np.where(z <= 0, sc.betaincinv(a, b, sc.ndtr(np.minimum(z, 0.0))),
                        sc.betainccinv(a, b, sc.ndtr(-np.maximum(z, 0.0))))


@functools.lru_cache(maxsize=4096)
def _beta_nodes(a: float, b: float, size: int) -> np.ndarray:
    """Gauss-Hermite nodes of Beta(a, b) in its normal-score scale (cached, read-only)."""
    out = _beta_ppf_z(a, b, _normal_nodes(size)[0])
    out.flags.writeable = False
    return out


def _calibration_nodes(
    a0: float, b0: float, a1: float, b1: float, truncate: bool, size: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Quadrature of the (possibly truncated) product of Betas for (q0, q1).

    Returns flat arrays ``(q0, q1, log_w)`` with ``sum(exp(log_w)) == 1`` and the log of the
    truncation probability ``log P(q0 + q1 > 1)`` (0 when not truncated).
    """
    z, w = _normal_nodes(size)
    q0 = _beta_nodes(float(a0), float(b0), size)
    free = _beta_nodes(float(a1), float(b1), size)
    if not truncate:
        g0, g1 = np.meshgrid(q0, free, indexing="ij")
        logw = np.log(w)[:, None] + np.log(w)[None, :]
        return g0.ravel(), g1.ravel(), logw.ravel(), 0.0
    cut = 1.0 - q0
    log_s = _log_tails(a1, b1, cut)[1]                      # log P(q1 > 1 - q0_i)
    keep = np.isfinite(log_s) & (np.exp(log_s) > 0)
    q1 = np.broadcast_to(free, (size, size)).copy()
    cut_rows = keep & (np.exp(log_s) < 1.0)    # where S1 == 1 in double, q1 | q0 = the free nodes
    if cut_rows.any():
        z_low = sc.ndtr(-z)                                  # 1 - Phi(z_j)
        with np.errstate(all="ignore"):
            q1[cut_rows] = sc.betainccinv(a1, b1, np.exp(log_s[cut_rows])[:, None]
                                          * z_low[None, :])
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
    # the density just inside the support (at the 1e-10 and 1 - 1e-10 quantiles, not at 0 or 1,
    # where a theta prior with a parameter below 1 makes it infinite over negligible mass)
    q_ends = quantile(np.array([[prob, span, 1e-10, 1 - 1e-10]] * rows), np.full((rows, 4), 0.5))
    f_ends = cdf_pdf(q_ends[:, 2:])[1]
    q_ends = q_ends[:, :2]
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
        size = nodes if nodes is not None else _node_count((data.n, data.m0, data.m1))
        self._q0, self._q1, logw = _cells(data.k0, data.m0, data.k1, data.m1, self.prior, size)
        self._marginal = ThetaMarginal(
            np.array([data.k]), np.array([data.n]),
            _calibration(data.k0, data.m0, data.k1, data.m1, self.prior), self.prior.theta,
            cells=(self._q0, self._q1, logw))
        self._cell_weight = self._cell_posterior()
        self._moments = tuple(float(v[0]) for v in self._marginal.moments())

    def _cell_posterior(self) -> np.ndarray:
        """Posterior probability of every (q0, q1) cell: the test likelihood integrated over t."""
        weight = np.zeros(self._q0.size)
        weight[self._marginal.live_cells] = self._marginal.cell_weights()
        return weight

    def _theta_cdf_pdf(self, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """CDF and density of theta at ``t`` (rows, cols)."""
        flat = np.asarray(t, float).reshape(1, -1)
        f_val, d_val = self._marginal.cdf_pdf(flat)
        return f_val.reshape(np.shape(t)), d_val.reshape(np.shape(t))

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
        mean, sd = self._moments
        return np.clip(mean + sd * sc.ndtri(levels), 1e-9, 1 - 1e-9)

    def _theta_quantile(self, levels: np.ndarray, start: np.ndarray) -> np.ndarray:
        return _solve_quantile(self._theta_cdf_pdf, levels, start)

    def mean(self, var: str = "theta") -> float:
        """Posterior mean of ``var``."""
        var = _check_var(var)
        if var == "theta":
            return self._moments[0]
        values = self._q0 if var == "q0" else self._q1
        return float(np.sum(self._cell_weight * values))

    def sd(self, var: str = "theta") -> float:
        """Posterior standard deviation of ``var``."""
        var = _check_var(var)
        if var == "theta":
            return self._moments[1]
        values = self._q0 if var == "q0" else self._q1
        mean = np.sum(self._cell_weight * values)
        return float(np.sqrt(max(np.sum(self._cell_weight * (values - mean) ** 2), 0.0)))

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
        marginal = self._marginal
        grid = marginal.nodes()[0]
        i = int(np.argmax(marginal._values[0]))
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, grid.size - 1)]
        lo, hi = (0.0 if i == 0 else lo), (1.0 if i == grid.size - 1 else hi)
        ratio = (np.sqrt(5) - 1) / 2
        for _ in range(60):
            c, d = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
            if self.pdf(c) >= self.pdf(d):
                hi = d
            else:
                lo = c
        return float((lo + hi) / 2)

    def _q_cdf(self, x: np.ndarray, var: str) -> np.ndarray:
        """CDF of q0 or q1 from the quadrature (a step function at the nodes, interpolated)."""
        values = self._q0 if var == "q0" else self._q1
        order = np.argsort(values)
        v, cum = values[order], np.cumsum(self._cell_weight[order])
        mid = cum - self._cell_weight[order] / 2
        return np.interp(x, v, mid, left=0.0, right=1.0)

    def sample(self, size: int, random_seed: Any = None) -> dict[str, np.ndarray]:
        """Draw ``size`` joint posterior draws of theta, q0 and q1.

        theta is drawn from its marginal by inverting the CDF at uniform variates (exact up to the
        quadrature); the cell (q0, q1) is then drawn from its conditional law given theta,
        ``P(c | t) ∝ w_c p_c(t)^k (1 - p_c(t))^(n - k)``, so q0 and q1 take the quadrature node
        values (their marginal moments and quantiles are those of the quadrature).
        """
        if isinstance(size, bool) or not isinstance(size, numbers.Integral) or size < 0:
            raise ValueError(f"`size` ({size!r}) must be a non-negative integer.")
        rng = as_generator(random_seed)
        u = rng.random(size).reshape(1, -1)
        theta = self._theta_quantile(u, self._start(u))[0]
        live = np.flatnonzero(self._marginal.live_cells)
        cell = np.empty(size, dtype=np.intp)
        pick = rng.random(size)
        for start in range(0, size, 4096):
            part = slice(start, start + 4096)
            terms = self._marginal.cell_terms(theta[None, part], np.array([0]))[0]
            cum = np.cumsum(terms, axis=1)
            index = (cum < pick[part, None] * cum[:, -1:]).sum(axis=1)
            cell[part] = live[np.minimum(index, live.size - 1)]
        return {"theta": theta, "q0": self._q0[cell].copy(), "q1": self._q1[cell].copy()}

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


def _cells(k0: float, m0: float, k1: float, m1: float, prior: Prior,
           size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Quadrature cells ``(q0, q1, log w)`` of the calibration posterior for these counts."""
    (a0, b0), (a1, b1) = prior.q0, prior.q1
    q0, q1, logw, _ = _calibration_nodes(a0 + k0, b0 + m0 - k0, a1 + k1, b1 + m1 - k1,
                                         prior.better_than_chance, size)
    keep = np.isfinite(logw) & (logw > np.log(1e-300))
    return q0[keep], q1[keep], logw[keep]


def _calibration(k0: float, m0: float, k1: float, m1: float, prior: Prior) -> Calibration:
    """The calibration posterior of (q0, q1) for the exact theta marginal."""
    (a0, b0), (a1, b1) = prior.q0, prior.q1
    beta0 = (float(a0 + k0), float(b0 + m0 - k0))
    beta1 = (float(a1 + k1), float(b1 + m1 - k1))
    size = _OUTER if min(m0, m1) >= 30 else 2 * _OUTER   # broad Betas: slower convergence
    weights = _normal_nodes(size)[1]
    return Calibration(*beta0, *beta1, prior.better_than_chance,
                       (_beta_nodes(*beta0, size), weights),
                       (_beta_nodes(*beta1, size), weights))


def _grouped(counts: list[np.ndarray], prior: Prior,
             work: Callable[[ThetaMarginal], np.ndarray], width: int) -> np.ndarray:
    """Apply ``work(marginal)`` to every dataset; one calibration quadrature per distinct counts.

    Marginals are tabulated per group of datasets sharing (k0, m0, k1, m1) and then stacked, so
    the quantile and HDI searches run over up to ~2,000 datasets at once.
    """
    k, n, k0, m0, k1, m1 = (c.ravel() for c in counts)
    out = np.empty((k.size, width))
    if k.size == 0:
        return out
    keys = np.stack([k0, m0, k1, m1], axis=1)
    uniq, inverse = np.unique(keys, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    parts: list[ThetaMarginal] = []
    part_rows: list[np.ndarray] = []

    def flush() -> None:
        if parts:
            rows = np.concatenate(part_rows)
            out[rows] = work(ThetaMarginal.stack(parts))
            parts.clear()
            part_rows.clear()

    for g, (gk0, gm0, gk1, gm1) in enumerate(uniq):
        rows = np.flatnonzero(inverse == g)
        calibration = _calibration(gk0, gm0, gk1, gm1, prior)
        for chunk in np.array_split(rows, max(1, rows.size // 256)):
            parts.append(ThetaMarginal(k[chunk], n[chunk], calibration, prior.theta))
            part_rows.append(chunk)
            if sum(r.size for r in part_rows) >= 2048:
                flush()
    flush()
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
        ``(k0, m0, k1, m1)`` share one calibration quadrature (see :class:`ExactPosterior`).
    """
    prior = _check_prior(prior)
    levels = _check_probs(q, "q")
    if levels.ndim > 1:
        raise ValueError(f"`q` must be a scalar or 1-D, got shape {levels.shape}.")
    counts = _broadcast_counts(k, n, k0, m0, k1, m1)
    shape = counts[0].shape
    flat_q = np.atleast_1d(levels)
    def work(marginal: ThetaMarginal) -> np.ndarray:
        mean, sd = marginal.moments()
        target = np.broadcast_to(flat_q, (mean.size, flat_q.size))
        start = np.clip(mean[:, None] + sd[:, None] * sc.ndtri(target), 1e-9, 1 - 1e-9)
        return _solve_quantile(marginal.cdf_pdf, target, start)

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
    def work(marginal: ThetaMarginal) -> np.ndarray:
        def quantile(levels: np.ndarray, start: np.ndarray) -> np.ndarray:
            return _solve_quantile(marginal.cdf_pdf, levels, start)

        low, high = _hdi(marginal.cdf_pdf, quantile, prob, marginal.k.size)
        return np.stack([low, high], axis=1)

    out = _grouped(counts, prior, work, 2)
    return out[:, 0].reshape(shape), out[:, 1].reshape(shape)
