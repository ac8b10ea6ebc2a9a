r"""Independent brute-force reference for the random-design posterior of theta.

The model is written from the documentation of :class:`judgestats.JudgeData` (design
``"random"``), :mod:`judgestats.bayes.model` and
:func:`judgestats.bayes.priors.random_design_prior`, and shares no code with the package::

    theta ~ Beta(a_t, b_t),  q0 ~ Beta(a0, b0),  q1 ~ Beta(a1, b1),  [q0 + q1 > 1 if truncated]
    m1 ~ Bin(m0 + m1, theta)                    (the labelled class count)
    k1 | m1 ~ Bin(m1, q1),  k0 | m0 ~ Bin(m0, q0)  (the labelled items' verdicts)
    k ~ Bin(n, p),  p = theta q1 + (1 - theta)(1 - q0)  (unlabelled test items only)

with the package defaults a_t = b_t = a0 = b0 = a1 = b1 = 1 and the truncation on.

The unnormalised posterior is integrated in the original coordinates (theta, q0, q1) by nested
composite Gauss-Legendre rules in log space. For fixed (theta, q0) the integrand is log-concave in
q1, and after integrating q1 it is log-concave in q0 (Prekopa; the truncation region is convex), so
the inner windows are found by bisection (q1: on the derivative; q0: golden-section search on the
log integral) and cut where the log integrand has dropped by ``drop``. theta is covered by a
scouting grid, then by panels of Gauss-Legendre nodes on the window where its log marginal is within
``drop`` of the maximum; the density is interpolated by a polynomial through the nodes of each
panel, so the CDF is exact polynomial integration and quantiles are polynomial roots.

Run it as a script to print the quantiles of one case at two resolutions (the second doubling every
node count and widening the windows)::

    PYTHONPATH=src python benchmarks/random_posterior_reference.py K N K0 M0 K1 M1

or import :func:`reference_quantiles`.
"""

from __future__ import annotations

import sys

import numpy as np
from numpy.polynomial import legendre
from scipy.special import xlog1py, xlogy

QUANTILES = (0.025, 0.5, 0.975)
_TINY = 1e-300


def _log_kernel_q1(theta, q0, q1, counts):
    """Log of the factors that depend on q1 (test binomial and q1 calibration), unnormalised."""
    k, n, _k0, _m0, k1, m1, _prior = counts
    p = theta * q1 + (1.0 - theta) * (1.0 - q0)
    r = theta * (1.0 - q1) + (1.0 - theta) * q0  # 1 - p without cancellation
    (a1, b1) = _prior[2]
    return (
        xlogy(k, p) + xlogy(n - k, r) + xlogy(k1 + a1 - 1.0, q1) + xlog1py(m1 - k1 + b1 - 1.0, -q1)
    )


def _dlog_kernel_q1(theta, q0, q1, counts):
    """Derivative in q1 of :func:`_log_kernel_q1` (decreasing: the kernel is log-concave)."""
    k, n, _k0, _m0, k1, m1, _prior = counts
    p = theta * q1 + (1.0 - theta) * (1.0 - q0)
    r = theta * (1.0 - q1) + (1.0 - theta) * q0
    (a1, b1) = _prior[2]
    out = theta * (k / np.maximum(p, _TINY) - (n - k) / np.maximum(r, _TINY))
    return (
        out
        + (k1 + a1 - 1.0) / np.maximum(q1, _TINY)
        - (m1 - k1 + b1 - 1.0) / np.maximum(1.0 - q1, _TINY)
    )


def _bisect_level(func, lo, hi, level, steps=40):
    """x in [lo, hi] with func(x) = level, func increasing from lo to hi (vectorised)."""
    for _ in range(steps):
        mid = 0.5 * (lo + hi)
        above = func(mid) >= level
        hi = np.where(above, mid, hi)
        lo = np.where(above, lo, mid)
    return 0.5 * (lo + hi)


def _composite_rule(left, right, centre, panels, order):
    """Nodes, weights (last axis): composite Gauss-Legendre on [left, centre], [centre, right]."""
    x, w = legendre.leggauss(order)
    edges_l = np.linspace(0.0, 1.0, panels + 1)
    nodes, weights = [], []
    for lo_end, hi_end in ((left, centre), (centre, right)):
        for i in range(panels):
            a = lo_end[..., None] + (hi_end - lo_end)[..., None] * edges_l[i]
            b = lo_end[..., None] + (hi_end - lo_end)[..., None] * edges_l[i + 1]
            nodes.append(0.5 * (a + b) + 0.5 * (b - a) * x)
            weights.append(0.5 * (b - a) * w)
    return np.concatenate(nodes, axis=-1), np.concatenate(weights, axis=-1)


def _logsumexp(values, axis=-1):
    top = np.max(values, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.sum(np.exp(values - top), axis=axis)) + np.squeeze(top, axis=axis)


def _log_q1_integral(theta, q0, counts, res):
    """log of the integral over q1 of the q1 kernel at (theta, q0), both arrays of one shape."""
    truncated = counts[6][3]
    lo = np.maximum(1.0 - q0, 0.0) if truncated else np.zeros_like(q0)
    hi = np.ones_like(q0)
    # the mode: the decreasing derivative changes sign
    a, b = lo.copy(), hi.copy()
    for _ in range(res["mode_steps"]):
        mid = 0.5 * (a + b)
        up = _dlog_kernel_q1(theta, q0, mid, counts) > 0.0
        a = np.where(up, mid, a)
        b = np.where(up, b, mid)
    mode = 0.5 * (a + b)
    top = _log_kernel_q1(theta, q0, mode, counts)
    level = top - res["drop"]

    def f(x):
        return _log_kernel_q1(theta, q0, x, counts)

    left = np.where(f(lo) >= level, lo, _bisect_level(f, lo, mode, level))
    right = np.where(f(hi) >= level, hi, _bisect_level(lambda x: -f(x), mode, hi, -level))
    nodes, weights = _composite_rule(left, right, mode, res["panels"], res["order"])
    values = _log_kernel_q1(theta[..., None], q0[..., None], nodes, counts)
    with np.errstate(divide="ignore"):
        return _logsumexp(values + np.log(weights))


def _log_q0_integrand(theta, q0, counts, res):
    """log of (q0 calibration kernel) x (integral over q1) at (theta, q0)."""
    _k, _n, k0, m0, _k1, _m1, prior = counts
    a0, b0 = prior[1]
    return (
        xlogy(k0 + a0 - 1.0, q0)
        + xlog1py(m0 - k0 + b0 - 1.0, -q0)
        + _log_q1_integral(theta, q0, counts, res)
    )


def log_theta_marginal(theta, counts, res):
    """Unnormalised log posterior density of theta at the points ``theta`` (1-D array)."""
    theta = np.asarray(theta, dtype=float)
    eps = 1e-15
    lo = np.full_like(theta, eps)
    hi = np.full_like(theta, 1.0 - eps)

    search = {"drop": res["drop"], "panels": 1, "order": 8, "mode_steps": 45}

    def g(x):
        return _log_q0_integrand(theta, x, counts, search)

    # golden-section search of the log-concave function of q0
    ratio = (np.sqrt(5.0) - 1.0) / 2.0
    a, b = lo.copy(), hi.copy()
    c = b - ratio * (b - a)
    d = a + ratio * (b - a)
    gc, gd = g(c), g(d)
    for _ in range(55):
        go_left = gc >= gd  # the maximum lies in [a, d]
        a, b = np.where(go_left, a, c), np.where(go_left, d, b)
        new = np.where(go_left, b - ratio * (b - a), a + ratio * (b - a))
        g_new = g(new)
        c, d = np.where(go_left, new, d), np.where(go_left, c, new)
        gc, gd = np.where(go_left, g_new, gd), np.where(go_left, gc, g_new)
    mode = 0.5 * (a + b)
    top = g(mode)
    level = top - res["drop"]
    left = np.where(g(lo) >= level, lo, _bisect_level(g, lo, mode, level))
    right = np.where(g(hi) >= level, hi, _bisect_level(lambda x: -g(x), mode, hi, -level))
    nodes, weights = _composite_rule(left, right, mode, res["panels"], res["order"])
    shape = nodes.shape
    values = _log_q0_integrand(
        np.repeat(theta[:, None], shape[1], axis=1).ravel(), nodes.ravel(), counts, res
    ).reshape(shape)
    a_t, b_t = counts[6][0]
    with np.errstate(divide="ignore"):
        log_q = _logsumexp(values + np.log(weights))
    return xlogy(a_t - 1.0, theta) + xlog1py(b_t - 1.0, -theta) + log_q


def _counts(k, n, k0, m0, k1, m1, prior):
    a_t, b_t = prior.get("theta", (1.0, 1.0))
    full = (
        (a_t + m1, b_t + m0),  # random design: m1 ~ Bin(m0 + m1, theta) folded into the prior
        prior.get("q0", (1.0, 1.0)),
        prior.get("q1", (1.0, 1.0)),
        prior.get("truncated", True),
    )
    return (k, n, k0, m0, k1, m1, full)


def _batched(func, x, size=256):
    return np.concatenate([func(x[i : i + size]) for i in range(0, x.size, size)])


def reference_quantiles(
    k, n, k0, m0, k1, m1, probs=QUANTILES, *, level=1, prior=None, random_design=True
):
    """Quantiles of the posterior of theta, by brute-force nested quadrature.

    Parameters
    ----------
    k, n, k0, m0, k1, m1 : int
        The six counts (random design: ``k`` of ``n`` are the unlabelled test items).
    probs : sequence of float
        Probabilities of the quantiles.
    level : int
        Resolution: 1 is the base; each step doubles every node count and widens the windows.
    prior : dict, optional
        ``{"theta": (a, b), "q0": (a, b), "q1": (a, b), "truncated": bool}``; defaults uniform
        and truncated to q0 + q1 > 1.
    random_design : bool
        Fold ``m1 ~ Bin(m0 + m1, theta)`` into the theta prior (False: the stratified model).

    Returns
    -------
    numpy.ndarray
        The quantiles.
    """
    prior = dict(prior or {})
    counts = _counts(k, n, k0, m0, k1, m1, prior)
    if not random_design:
        counts = counts[:6] + ((prior.get("theta", (1.0, 1.0)),) + counts[6][1:],)
    scale = 2 ** (level - 1)
    res = {"drop": 40.0 + 8.0 * (level - 1), "panels": 2 * scale, "order": 24, "mode_steps": 60}
    scout_res = {"drop": 40.0, "panels": 1, "order": 12, "mode_steps": 45}

    def logf(x, r=res):
        return _batched(lambda y: log_theta_marginal(y, counts, r), x)

    # scouting: a uniform grid, then a zoom on the window
    grid = np.linspace(1e-9, 1.0 - 1e-9, 401)
    values = logf(grid, scout_res)
    for _ in range(3):
        keep = np.nonzero(values >= values.max() - res["drop"] - 5.0)[0]
        lo = grid[max(keep[0] - 1, 0)]
        hi = grid[min(keep[-1] + 1, grid.size - 1)]
        grid = np.linspace(lo, hi, 201)
        values = logf(grid, scout_res)
    keep = np.nonzero(values >= values.max() - res["drop"])[0]
    lo = grid[max(keep[0] - 1, 0)]
    hi = grid[min(keep[-1] + 1, grid.size - 1)]
    panels = 24 * scale
    order = 16
    x, w = legendre.leggauss(order)
    edges = np.linspace(lo, hi, panels + 1)
    mids = 0.5 * (edges[:-1] + edges[1:])
    halves = 0.5 * (edges[1:] - edges[:-1])
    nodes = (mids[:, None] + halves[:, None] * x).ravel()
    logv = logf(nodes).reshape(panels, order)
    dens = np.exp(logv - logv.max())
    # a Legendre interpolant of the density on each panel, integrated exactly
    coef = legendre.legfit(x, dens.T, order - 1).T  # (panels, order)
    integ = np.array([legendre.legint(c, lbnd=-1.0) for c in coef])
    masses = np.array([legendre.legval(1.0, c) for c in integ]) * halves
    total = masses.sum()
    cum = np.concatenate([[0.0], np.cumsum(masses)]) / total
    out = []
    for prob in probs:
        i = int(np.clip(np.searchsorted(cum, prob) - 1, 0, panels - 1))
        target = (prob - cum[i]) * total / halves[i]
        poly = integ[i].copy()
        poly[0] -= target
        roots = legendre.legroots(poly)
        real = roots[np.abs(roots.imag) < 1e-9].real if np.iscomplexobj(roots) else roots
        real = real[(real >= -1.0 - 1e-9) & (real <= 1.0 + 1e-9)]
        guess = 2.0 * target / (2.0 * legendre.legval(1.0, integ[i]) / 2.0 + 1e-300) - 1.0
        t = real[np.argmin(np.abs(real - guess))]
        out.append(mids[i] + halves[i] * t)
    return np.array(out)


def main(argv):
    """Print the reference quantiles of one case at levels 1 and 2."""
    counts = [int(v) for v in argv[1:7]]
    for level in (1, 2):
        print(level, reference_quantiles(*counts, level=level).tolist())


if __name__ == "__main__":
    main(sys.argv)
