r"""Independent brute-force reference for the posterior of the judge model.

Written from the model alone (it shares no code with ``judgestats.bayes``), to test the exact engine
in the regimes where quadrature engines fail: weak judges, tiny calibration arms, huge test sets,
calibration counts at 0 or m, estimates at 0 or 1, unbounded theta priors.

Model
-----
u = 1 - q0 (false-positive rate), v = q1 (sensitivity), p = u + theta (v - u).  Posterior density

    pi(theta) f0(u) f1(v) L(p) 1{v > u (if truncated)}

with pi = Beta(at, bt), f0 = Beta(u; b0 + m0 - k0, a0 + k0), f1 = Beta(v; a1 + k1, b1 + m1 - k1) and
L(p) = p^k (1 - p)^(n - k) (stored as the Beta(k+1, n-k+1) density, in a cancellation-free form).

Method
------
For each variable X the marginal density g_X(x) is a 2-D integral over two of (theta, u, v, p),
chosen so that the sharp likelihood L enters through a single coordinate (p, or theta at fixed
u, v):

* theta = t : over (u, p) for t >= 1/2 (v = (p - (1 - t) u) / t), over (v, p) for t < 1/2;
* q0 (u = x): over (v, theta);  q1 (v = x): over (u, theta);  youden J = j: over (u, theta);
* p = x     : L(x) times an integral over (u, v) of f0 f1 pi((x - u)/(v - u)) / |v - u|.

Every 1-D integral is composite Gauss-Legendre on panels graded geometrically (factor 2) about every
place where the integrand is sharp: the likelihood peak p-hat (width ~ sqrt(p(1-p)/n), seen through
the map to the coordinate in use), the calibration peaks (width ~ 1/sqrt(m)), the edges where the
integration range crosses p-hat, and singular ends.  theta is integrated in phi with
theta = sin^2(phi), which makes Beta(1/2, 1/2)-type priors smooth.

The marginal density of X is then resolved by adaptive piecewise Chebyshev interpolation on panels
in x (theta in the phi coordinate) seeded with graded panels about the plug-in estimates; panels are
bisected until the trailing Chebyshev coefficients fall below ``tol`` times the total mass.  The
CDF is the exact antiderivative of the interpolant; quantiles are found with brentq (xtol 1e-13) on
it; the mean integrates x g(x) on the same nodes; the shortest theta interval minimises
Q(a + prob) - Q(a) over a in [0, 1 - prob] (grid scan, then the root of g(Q(a)) = g(Q(a + prob))).

``compute(case, resolution)`` returns everything; run it at two resolutions (``COARSE``, ``FINE``:
doubled Gauss-Legendre order, doubled Chebyshev degree, tighter tolerance) to see the convergence.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import numpy as np
from scipy import optimize, special

VARS = ("theta", "q0", "q1", "youden", "p")
LEVELS = (0.025, 0.5, 0.975)


@dataclass(frozen=True)
class Case:
    k: int
    n: int
    k0: int
    m0: int
    k1: int
    m1: int
    theta: tuple[float, float] = (1.0, 1.0)
    q0: tuple[float, float] = (1.0, 1.0)
    q1: tuple[float, float] = (1.0, 1.0)
    truncate: bool = True

    def to_dict(self) -> dict:
        d = asdict(self)
        d["theta"], d["q0"], d["q1"] = list(self.theta), list(self.q0), list(self.q1)
        return d

    @classmethod
    def from_dict(cls, d: dict) -> Case:
        return cls(**{**d, "theta": tuple(d["theta"]), "q0": tuple(d["q0"]), "q1": tuple(d["q1"])})


@dataclass(frozen=True)
class Resolution:
    order: int  # Gauss-Legendre nodes per panel of the 2-D integrals
    cheb: int  # Chebyshev degree per panel of a marginal density
    tol: float  # trailing-coefficient tolerance, relative to the total mass
    uniform: int  # uniform panels added to every graded 1-D range


# FINE doubles every Gauss-Legendre node count of COARSE and tightens the Chebyshev adaptivity
COARSE = Resolution(order=6, cheb=12, tol=1e-9, uniform=4)
FINE = Resolution(order=12, cheb=16, tol=1e-10, uniform=6)

_TINY = 1e-300
# graded panels reach this many feature widths from a feature (every feature here is a density peak
# or a likelihood step whose tails are below exp(-60) of its height that far out); beyond, the
# uniform panels and the other features' grading take over
REACH = 64.0
_GL: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _gl(order: int) -> tuple[np.ndarray, np.ndarray]:
    if order not in _GL:
        x, w = np.polynomial.legendre.leggauss(order)
        _GL[order] = ((x + 1) / 2, w / 2)
    return _GL[order]


def _beta_stats(a: float, b: float) -> tuple[float, float]:
    """Mode (or the end where the density is largest) and standard deviation of Beta(a, b)."""
    sd = math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
    if a > 1 and b > 1:
        mode = (a - 1) / (a + b - 2)
    elif a <= 1 < b or (a < 1 and b <= 1 and a <= b):
        mode = 0.0
    elif b <= 1 < a or b < 1:
        mode = 1.0
    else:  # a == b == 1
        mode = 0.5
    return mode, sd


def _log_beta_pdf(x: np.ndarray, a: float, b: float) -> np.ndarray:
    x = np.clip(x, 0.0, 1.0)  # nodes of vanishing panels can stray out by rounding
    out = np.full(np.shape(x), -float(special.betaln(a, b)))
    with np.errstate(divide="ignore", invalid="ignore"):
        if a != 1:
            out = out + (a - 1) * np.log(x)
        if b != 1:
            out = out + (b - 1) * np.log1p(-x)
    return np.where(np.isnan(out), -np.inf, out)


# contributions below exp(_NEGLIGIBLE) (densities normalised to at most ~1e9) are skipped
_NEGLIGIBLE = -700.0


def _panels(lo, hi, feats, res: Resolution, order: int | None = None, transform=None):
    """Composite Gauss-Legendre nodes on [lo, hi] (arrays of shape (B,)), graded about features.

    feats: list of (center, width) arrays broadcastable to (B,).  Panel edges are placed at
    center +- width * {0, 1/4, 1/2, 1, 2, 4, ...} (clipped to the range), at ``res.uniform`` equal
    divisions and at the ends.  ``transform`` maps edges monotonically to the coordinate in which
    the nodes are placed (e.g. theta -> phi).  Returns nodes and weights of shape (B, Q).
    """
    order = order or res.order
    lo = np.asarray(lo, float)
    hi = np.asarray(hi, float)
    B = lo.shape[0]
    span = np.maximum(hi - lo, 0.0)
    cols = [lo[:, None] + span[:, None] * np.linspace(0.0, 1.0, res.uniform + 1)[None, :]]
    for feat in feats:
        c, w = feat[0], feat[1]
        reach = feat[2] if len(feat) > 2 else REACH
        c = np.broadcast_to(np.asarray(c, float), (B,))
        w = np.broadcast_to(np.asarray(w, float), (B,))
        w = np.maximum(w, 1e-15)
        ok = np.isfinite(c) & np.isfinite(w)
        c = np.where(ok, c, lo)
        ratio = min(np.max(np.where(span > 0, span / w, 1.0)), reach)
        jmax = int(min(max(math.ceil(math.log2(max(ratio, 1.0))), 0), 60))
        g = 2.0 ** np.arange(0, jmax + 1)
        off = np.concatenate([-g[::-1], [0.0], g])
        cols.append(c[:, None] + w[:, None] * off[None, :])
    e = np.concatenate(cols, axis=1)
    e = np.clip(e, lo[:, None], hi[:, None])
    if transform is not None:
        e = transform(e)
        lo_t, hi_t = transform(lo), transform(hi)
    else:
        lo_t, hi_t = lo, hi
    e.sort(axis=1)
    keep = np.ones(e.shape, dtype=bool)
    keep[:, 1:] = np.diff(e, axis=1) > 0
    cnt = keep.sum(axis=1)
    m = int(cnt.max())
    idx = np.argsort(~keep, axis=1, kind="stable")[:, :m]
    e2 = np.take_along_axis(e, idx, axis=1)
    pad = np.arange(m)[None, :] >= cnt[:, None]
    e2 = np.where(pad, hi_t[:, None], e2)
    e2[:, 0] = lo_t
    a, b = e2[:, :-1], e2[:, 1:]
    x0, w0 = _gl(order)
    x = a[..., None] + (b - a)[..., None] * x0
    w = np.maximum(b - a, 0.0)[..., None] * w0
    return x.reshape(B, -1), w.reshape(B, -1)


def _phi(theta):
    return np.arcsin(np.sqrt(np.clip(theta, 0.0, 1.0)))


class _Model:
    def __init__(self, case: Case, res: Resolution):
        self.case, self.res = case, res
        c = case
        if not (0 <= c.k <= c.n and c.n >= 1 and 0 <= c.k0 <= c.m0 and 0 <= c.k1 <= c.m1):
            raise ValueError(f"bad counts {case}")
        self.at, self.bt = map(float, c.theta)
        # u = 1 - q0 ~ Beta(b0 + m0 - k0, a0 + k0); v = q1 ~ Beta(a1 + k1, b1 + m1 - k1)
        self.Au, self.Bu = c.q0[1] + c.m0 - c.k0, c.q0[0] + c.k0
        self.Av, self.Bv = c.q1[0] + c.k1, c.q1[1] + c.m1 - c.k1
        self.uhat, self.su = _beta_stats(self.Au, self.Bu)
        self.vhat, self.sv = _beta_stats(self.Av, self.Bv)
        self.phat = c.k / c.n
        a, b = c.k + 1.0, c.n - c.k + 1.0
        self.sp = math.sqrt(a * b / ((a + b) ** 2 * (a + b + 1)))
        # log of the Beta(k+1, n-k+1) density at its mode p-hat
        self.logLmax = float(
            special.xlogy(c.k, self.phat)
            + special.xlog1py(c.n - c.k, -self.phat)
            - special.betaln(a, b)
        )
        self.trunc = bool(c.truncate)
        np.seterr(divide="ignore", invalid="ignore", under="ignore", over="raise")

    # -- factors (natural logs) -------------------------------------------------------------------
    def logL(self, p):
        k, n, ph = self.case.k, self.case.n, self.phat
        p = np.asarray(p, float)
        out = np.full(p.shape, self.logLmax)
        with np.errstate(divide="ignore", invalid="ignore"):
            if k > 0:
                out = out + k * np.log1p((p - ph) / ph)
            if k < n:
                out = out + (n - k) * np.log1p((ph - p) / (1.0 - ph))
        return np.where(np.isnan(out), -np.inf, out)

    def logf0(self, u):
        return _log_beta_pdf(u, self.Au, self.Bu)

    def logf1(self, v):
        return _log_beta_pdf(v, self.Av, self.Bv)

    def log_prior_theta(self, t):
        return _log_beta_pdf(t, self.at, self.bt)

    def log_prior_phi(self, phi):
        """log of pi(theta) dtheta/dphi at theta = sin^2 phi (smooth for at, bt >= 1/2)."""
        out = math.log(2.0) - float(special.betaln(self.at, self.bt))
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.at != 0.5:
                out = out + (2 * self.at - 1) * np.log(np.sin(phi))
            if self.bt != 0.5:
                out = out + (2 * self.bt - 1) * np.log(np.cos(phi))
        return np.broadcast_to(out, np.shape(phi))

    # -- inner theta integral  M(u, v) = int_0^1 pi(theta) L(u + theta (v - u)) dtheta -----------
    def inner_theta(self, u, v):
        u = np.asarray(u, float).ravel()
        v = np.asarray(v, float).ravel()
        J = v - u
        Jabs = np.maximum(np.abs(J), _TINY)
        Js = np.where(J >= 0, Jabs, -Jabs)
        ts = (self.phat - u) / Js
        c = np.clip(ts, 0.0, 1.0)
        # width of L in theta: sigma_p / |J| when p-hat lies in the range, else the local decay
        # length 1 / |d log L / dp| at the nearer end of the range
        pend = np.clip(u + c * J, 1e-300, 1 - 1e-16)
        k, n = self.case.k, self.case.n
        slope = np.abs(k / pend - (n - k) / (1 - pend))
        outside = np.abs(ts - c) * Jabs > 0
        wp = np.where(outside, np.minimum(self.sp, 1.0 / np.maximum(slope, 1e-300)), self.sp)
        w = wp / Jabs
        B = u.shape[0]
        phi, wp = _panels(np.zeros(B), np.ones(B), [(c, w)], self.res, transform=_phi)
        th = np.sin(phi) ** 2
        p = u[:, None] + th * J[:, None]
        lg = self.log_prior_phi(phi) + self.logL(p)
        return np.sum(wp * np.exp(lg), axis=1)

    def _masked_inner(self, u, v, logw):
        """inner_theta(u, v) where the outer log weight logw is not negligible, else 0."""
        u = np.broadcast_to(u, logw.shape)
        v = np.broadcast_to(v, logw.shape)
        out = np.zeros(logw.shape)
        mask = logw > _NEGLIGIBLE
        if mask.any():
            out[mask] = self.inner_theta(u[mask], v[mask])
        return out

    # -- marginal densities (unnormalised, common constant) ---------------------------------------
    def dens_u(self, x):
        """q0 marginal in the u = 1 - q0 coordinate."""
        x = np.asarray(x, float)
        B = x.shape[0]
        lo = x.copy() if self.trunc else np.zeros(B)
        hi = np.ones(B)
        feats = [(self.vhat, self.sv), (self.phat, self.sp)]
        v, w = _panels(lo, hi, feats, self.res)
        uu = np.broadcast_to(x[:, None], v.shape)
        lf = self.logf1(v)
        val = np.sum(w * np.exp(lf) * self._masked_inner(uu, v, lf), axis=1)
        return np.exp(self.logf0(x)) * val

    def dens_v(self, x):
        x = np.asarray(x, float)
        B = x.shape[0]
        lo = np.zeros(B)
        hi = x.copy() if self.trunc else np.ones(B)
        feats = [(self.uhat, self.su), (self.phat, self.sp)]
        u, w = _panels(lo, hi, feats, self.res)
        vv = np.broadcast_to(x[:, None], u.shape)
        lf = self.logf0(u)
        val = np.sum(w * np.exp(lf) * self._masked_inner(u, vv, lf), axis=1)
        return np.exp(self.logf1(x)) * val

    def dens_j(self, x):
        x = np.asarray(x, float)
        lo = np.maximum(0.0, -x)
        hi = np.minimum(1.0, 1.0 - x)
        feats = [
            (self.uhat, self.su),
            (self.vhat - x, self.sv),
            (self.phat, self.sp),
            (self.phat - x, self.sp),
        ]
        u, w = _panels(lo, hi, feats, self.res)
        v = u + x[:, None]
        lf = self.logf0(u) + self.logf1(v)
        return np.sum(w * np.exp(lf) * self._masked_inner(u, v, lf), axis=1)

    def dens_theta_core(self, t):
        """int int f0(u) f1(v) L(u + t (v - u)) du dv  (the theta marginal is pi(t) times this)."""
        t = np.asarray(t, float)
        out = np.empty_like(t)
        hi_mask = t >= 0.5
        if hi_mask.any():
            out[hi_mask] = self._theta_core_u(t[hi_mask])
        if (~hi_mask).any():
            out[~hi_mask] = self._theta_core_v(t[~hi_mask])
        return out

    def _theta_core_u(self, t):
        # outer u, inner p; v = (p - (1 - t) u) / t
        B = t.shape[0]
        s = 1.0 - t
        ph, sp = self.phat, self.sp
        feats = [
            (self.uhat, self.su),
            ((ph - t * self.vhat) / s, t * self.sv / s),
            (ph, sp),
            ((ph - t) / s, sp / s),
        ]
        if not self.trunc:
            feats.append((ph / s, sp / s))
        u, wu = _panels(np.zeros(B), np.ones(B), feats, self.res)
        lf0 = self.logf0(u)
        keep = (lf0 > _NEGLIGIBLE).ravel()
        tt = np.broadcast_to(t[:, None], u.shape).ravel()[keep]
        ss = 1.0 - tt
        uf = u.ravel()[keep]
        vlo = uf if self.trunc else np.zeros_like(uf)
        plo = ss * uf + tt * vlo
        phi_ = ss * uf + tt
        pf, wpf = _panels(plo, phi_, [(ph, sp), (ss * uf + tt * self.vhat, tt * self.sv)], self.res)
        v = (pf - (ss * uf)[:, None]) / tt[:, None]
        inner = np.zeros(u.size)
        inner[keep] = np.sum(wpf * np.exp(self.logL(pf) + self.logf1(v)), axis=1) / tt
        return np.sum(wu * np.exp(lf0) * inner.reshape(u.shape), axis=1)

    def _theta_core_v(self, t):
        # outer v, inner p; u = (p - t v) / (1 - t)
        B = t.shape[0]
        s = 1.0 - t
        ph, sp = self.phat, self.sp
        tc = np.maximum(t, _TINY)
        feats = [
            (self.vhat, self.sv),
            ((ph - s * self.uhat) / tc, s * self.su / tc),
            (ph, sp),
            (ph / tc, sp / tc),
        ]
        if not self.trunc:
            feats.append(((ph - s) / tc, sp / tc))
        v, wv = _panels(np.zeros(B), np.ones(B), feats, self.res)
        lf1 = self.logf1(v)
        keep = (lf1 > _NEGLIGIBLE).ravel()
        tt = np.broadcast_to(t[:, None], v.shape).ravel()[keep]
        ss = 1.0 - tt
        vf = v.ravel()[keep]
        uhi = vf if self.trunc else np.ones_like(vf)
        plo = tt * vf
        phi_ = tt * vf + ss * uhi
        pf, wpf = _panels(plo, phi_, [(ph, sp), (tt * vf + ss * self.uhat, ss * self.su)], self.res)
        u = (pf - (tt * vf)[:, None]) / ss[:, None]
        inner = np.zeros(v.size)
        inner[keep] = np.sum(wpf * np.exp(self.logL(pf) + self.logf0(u)), axis=1) / ss
        return np.sum(wv * np.exp(lf1) * inner.reshape(v.shape), axis=1)

    def line_K(self, th, x):
        """K(theta, x) = int f0(u) f1(v) along the line (1 - theta) u + theta v = x.

        With the measure that makes g_theta(t) = pi(t) int L(p) K(t, p) dp and
        g_p(x) = L(x) int pi(theta) K(theta, x) dtheta: parametrised by u (weight 1/theta) for
        theta >= 1/2 and by v (weight 1/(1 - theta)) otherwise.
        """
        th = np.asarray(th, float).ravel()
        x = np.asarray(x, float).ravel()
        out = np.empty_like(th)
        big = th >= 0.5
        if big.any():
            t, xx = th[big], x[big]
            s = np.maximum(1.0 - t, _TINY)
            lo = np.maximum(0.0, (xx - t) / s)
            hi = np.minimum(1.0, xx if self.trunc else xx / s)
            hi = np.maximum(hi, lo)
            feats = [(self.uhat, self.su), ((xx - t * self.vhat) / s, t * self.sv / s)]
            u, w = _panels(lo, hi, feats, self.res)
            v = (xx[:, None] - s[:, None] * u) / t[:, None]
            out[big] = np.sum(w * np.exp(self.logf0(u) + self.logf1(v)), axis=1) / t
        if (~big).any():
            t, xx = th[~big], x[~big]
            s = 1.0 - t
            tc = np.maximum(t, _TINY)
            lo = np.maximum(0.0, xx if self.trunc else (xx - s) / tc)
            hi = np.minimum(1.0, xx / tc)
            hi = np.maximum(hi, lo)
            feats = [(self.vhat, self.sv), ((xx - s * self.uhat) / tc, s * self.su / tc)]
            v, w = _panels(lo, hi, feats, self.res)
            u = (xx[:, None] - t[:, None] * v) / s[:, None]
            out[~big] = np.sum(w * np.exp(self.logf0(u) + self.logf1(v)), axis=1) / s
        return out

    def dens_p(self, x):
        """L(x) * int pi(theta) K(theta, x) dtheta, theta = sin^2 phi."""
        x = np.asarray(x, float)
        B = x.shape[0]
        uh, vh, su, sv = self.uhat, self.vhat, self.su, self.sv
        # where K(theta, x) is sharp or kinked as a function of theta: the line through the
        # calibration peak, the ends of the u- or v-range sweeping over a calibration peak, and
        # the switches of those ends (theta = x, theta = 1 - x)
        feats = [
            ((x - uh) / (1 - uh), su * (1 - x) / (1 - uh) ** 2 / 2),
            (x / max(vh, 1e-3), sv * x / max(vh, 1e-3) ** 2 / 2),
            (x, np.minimum(np.minimum(x, 1 - x), 0.01) / 2),
            (1 - x, np.minimum(np.minimum(x, 1 - x), 0.01) / 2),
        ]
        if abs(vh - uh) > 1e-3:
            feats.append(((x - uh) / (vh - uh), math.hypot(su, sv) / abs(vh - uh) / 2))
        phi, wp = _panels(np.zeros(B), np.ones(B), feats, self.res, transform=_phi)
        xf = np.broadcast_to(x[:, None], phi.shape)
        kk = self.line_K(np.sin(phi) ** 2, xf).reshape(phi.shape)
        val = np.sum(wp * np.exp(self.log_prior_phi(phi)) * kk, axis=1)
        return np.exp(self.logL(x)) * val


# ---------------------------------------------------------------------------------------------
# adaptive piecewise Chebyshev representation of a marginal density
# ---------------------------------------------------------------------------------------------
class _Cheb:
    def __init__(self, deg: int):
        self.deg = deg
        N = deg + 1
        j = np.arange(N)
        self.nodes = np.cos(np.pi * (j + 0.5) / N)  # Chebyshev points of the first kind
        kk = np.arange(N)
        C = (2.0 / N) * np.cos(np.pi * np.outer(kk, j + 0.5) / N)
        C[0] /= 2.0
        self.C = C  # coefficients = C @ values
        Ik = np.zeros(N)
        Ik[::2] = 2.0 / (1.0 - np.arange(0, N, 2) ** 2)
        self.intw = Ik @ C  # integral over [-1, 1] of the interpolant


class Marginal:
    """Piecewise Chebyshev interpolant of a density on [lo, hi]; CDF, quantiles, mean."""

    def __init__(
        self,
        dens,
        lo: float,
        hi: float,
        seeds,
        res: Resolution,
        value=None,
        max_iter: int = 40,
        chunk: int = 64,
    ):
        self.ch = _Cheb(res.cheb)
        self.dens = dens
        self.value = value if value is not None else (lambda s: s)
        edges = set([lo, hi] + list(np.linspace(lo, hi, 2 * res.uniform + 1)))
        for c, w in seeds:
            if not (np.isfinite(c) and np.isfinite(w)):
                continue
            w = max(w, 1e-12 * (hi - lo))
            g = 2.0 ** np.arange(-1, 60)
            for o in np.concatenate([[0.0], g, -g]):
                e = c + o * w
                if lo <= e <= hi:
                    edges.add(float(e))
                if abs(o * w) > hi - lo:
                    break
        edges = np.array(sorted(edges))
        panels = list(zip(edges[:-1], edges[1:], strict=False))
        done: list[tuple[float, float, np.ndarray]] = []
        pending = panels
        self.evals = 0
        minw = 1e-13 * (hi - lo)
        for _ in range(max_iter):
            if not pending:
                break
            vals = self._evaluate(pending, chunk)
            new = []
            results = []
            for (a, b), f in zip(pending, vals, strict=False):
                c = self.ch.C @ f
                results.append((a, b, c, f))
            all_items = [(a, b, c) for a, b, c in done] + [(a, b, c) for a, b, c, _ in results]
            ik = self._ik_even(self.ch.deg + 1)
            total = sum((b - a) / 2 * float(np.sum(c[::2] * ik)) for a, b, c in all_items)
            tol_abs = res.tol * abs(total)
            for a, b, c, f in results:
                tail = float(np.max(np.abs(c[-4:]))) * (b - a) / 2
                if tail > tol_abs and (b - a) > minw and np.all(np.isfinite(f)):
                    m = 0.5 * (a + b)
                    new += [(a, m), (m, b)]
                elif not np.all(np.isfinite(f)):
                    raise FloatingPointError(f"non-finite density on [{a}, {b}]")
                else:
                    done.append((a, b, c))
            pending = new
        else:
            raise RuntimeError("adaptive refinement did not converge")
        done.sort(key=lambda r: r[0])
        self.a = np.array([r[0] for r in done])
        self.b = np.array([r[1] for r in done])
        self.coef = np.array([r[2] for r in done])
        ik = self._ik_even(self.coef.shape[1])
        masses = (self.b - self.a) / 2 * np.sum(self.coef[:, ::2] * ik, axis=1)
        self.cum = np.concatenate([[0.0], np.cumsum(masses)])
        self.total = float(self.cum[-1])
        # antiderivative coefficients per panel (from -1)
        self.icoef = np.array([np.polynomial.chebyshev.chebint(c, lbnd=-1) for c in self.coef])
        # mean of value(s)
        xs = 0.5 * (self.a + self.b)[:, None] + 0.5 * (self.b - self.a)[:, None] * self.ch.nodes
        fv = np.array([np.polynomial.chebyshev.chebval(self.ch.nodes, c) for c in self.coef])
        wts = 0.5 * (self.b - self.a)[:, None] * self.ch.intw[None, :]
        self.mean = float(np.sum(wts * fv * self.value(xs)) / self.total)
        self.npanels = len(done)

    @staticmethod
    def _ik_even(N):
        k = np.arange(0, N, 2)
        return 2.0 / (1.0 - k**2)

    def _evaluate(self, panels, chunk):
        a = np.array([p[0] for p in panels])
        b = np.array([p[1] for p in panels])
        xs = 0.5 * (a + b)[:, None] + 0.5 * (b - a)[:, None] * self.ch.nodes[None, :]
        flat = xs.ravel()
        out = np.empty_like(flat)
        for i in range(0, flat.size, chunk):
            out[i : i + chunk] = self.dens(flat[i : i + chunk])
        self.evals += flat.size
        return out.reshape(xs.shape)

    def cdf(self, s: float) -> float:
        i = int(np.clip(np.searchsorted(self.b, s), 0, len(self.b) - 1))
        a, b = self.a[i], self.b[i]
        z = np.clip((2 * s - a - b) / (b - a), -1.0, 1.0)
        part = (b - a) / 2 * np.polynomial.chebyshev.chebval(z, self.icoef[i])
        return float((self.cum[i] + part) / self.total)

    def pdf(self, s: float) -> float:
        i = int(np.clip(np.searchsorted(self.b, s), 0, len(self.b) - 1))
        a, b = self.a[i], self.b[i]
        z = np.clip((2 * s - a - b) / (b - a), -1.0, 1.0)
        return float(np.polynomial.chebyshev.chebval(z, self.coef[i]) / self.total)

    def quantile_s(self, q: float) -> float:
        lo, hi = float(self.a[0]), float(self.b[-1])
        if q <= 0:
            return lo
        if q >= 1:
            return hi
        # bracket using panel cumulative masses
        cq = q * self.total
        i = int(np.clip(np.searchsorted(self.cum, cq) - 1, 0, len(self.a) - 1))
        a, b = float(self.a[i]), float(self.b[i])
        fa, fb = self.cdf(a) - q, self.cdf(b) - q
        if fa > 0:
            a, fa = lo, self.cdf(lo) - q
        if fb < 0:
            b, fb = hi, 1.0 - q
        if fa == 0:
            return a
        if fb == 0:
            return b
        return optimize.brentq(lambda s: self.cdf(s) - q, a, b, xtol=1e-15, rtol=1e-15, maxiter=300)


# ---------------------------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------------------------
class Reference:
    """Brute-force posterior of one case at one resolution."""

    def __init__(self, case: Case, res: Resolution = FINE, variables=VARS):
        self.case, self.res = case, res
        self.model = md = _Model(case, res)
        self.marg: dict[str, Marginal] = {}
        for var in variables:
            self.marg[var] = self._build(var)
        md = self.model
        del md

    def _build(self, var: str) -> Marginal:
        md = self.model
        ph, sp, uh, su, vh, sv = md.phat, md.sp, md.uhat, md.su, md.vhat, md.sv
        res = self.res
        if var == "theta":
            jh = vh - uh
            th = float(np.clip((ph - uh) / jh, 0, 1)) if jh > 0.02 else 0.5
            widths = [
                math.sqrt(sp**2 + su**2 + sv**2) / max(abs(jh), 0.02) / 4,
                sp / max(abs(jh), 0.02) / 4,
            ]
            seeds = []
            for c in (th, 0.0, 1.0):
                for width in widths:
                    lo_, hi_ = float(_phi(c - width)), float(_phi(c + width))
                    seeds.append((float(_phi(c)), max((hi_ - lo_) / 2, 1e-9)))

            def dens(s):
                t = np.sin(s) ** 2
                return np.exp(md.log_prior_phi(s)) * md.dens_theta_core(t)

            return Marginal(dens, 0.0, math.pi / 2, seeds, res, value=lambda s: np.sin(s) ** 2)
        if var == "q0":  # in u = 1 - q0
            seeds = [(uh, su / 2), (ph, min(su, sp) / 2)]
            return Marginal(md.dens_u, 0.0, 1.0, seeds, res)
        if var == "q1":
            seeds = [(vh, sv / 2), (ph, min(sv, sp) / 2)]
            return Marginal(md.dens_v, 0.0, 1.0, seeds, res)
        if var == "youden":
            w = min(su, sv) / 2
            seeds = [(vh - uh, w), (0.0, w), (vh - ph, min(w, sp)), (ph - uh, min(w, sp))]
            return Marginal(md.dens_j, 0.0 if md.trunc else -1.0, 1.0, seeds, res)
        if var == "p":
            seeds = [(ph, sp / 2), (uh, su / 2), (vh, sv / 2)]
            return Marginal(md.dens_p, 0.0, 1.0, seeds, res)
        raise ValueError(var)

    # value <-> internal coordinate
    def _to_value(self, var, s):
        if var == "theta":
            return math.sin(s) ** 2
        if var == "q0":
            return 1.0 - s
        return s

    def _to_s(self, var, x):
        if var == "theta":
            return float(_phi(x))
        if var == "q0":
            return 1.0 - x
        return x

    def cdf(self, x: float, var: str = "theta") -> float:
        m = self.marg[var]
        if var == "q0":
            return 1.0 - m.cdf(1.0 - x)
        return m.cdf(self._to_s(var, x))

    def quantile(self, q: float, var: str = "theta") -> float:
        m = self.marg[var]
        if var == "q0":
            return 1.0 - m.quantile_s(1.0 - q)
        return self._to_value(var, m.quantile_s(q))

    def mean(self, var: str = "theta") -> float:
        m = self.marg[var].mean
        return 1.0 - m if var == "q0" else m

    def pdf_theta(self, t: float) -> float:
        s = float(_phi(t))
        d = self.marg["theta"].pdf(s)
        return d / max(math.sin(2 * s), _TINY)

    def shortest_interval(self, prob: float = 0.95, grid: int = 801) -> tuple[float, float]:
        """Shortest theta interval [Q(a), Q(a + prob)] over a in [0, 1 - prob]."""
        Q = lambda a: self.quantile(min(a, 1.0), "theta")  # noqa: E731
        alpha = 1.0 - prob
        aa = np.linspace(0.0, alpha, grid)
        lens = np.array([Q(a + prob) - Q(a) for a in aa])
        i = int(np.argmin(lens))
        best_a = aa[i]
        if 0 < i < grid - 1:
            lo_a, hi_a = aa[i - 1], aa[i + 1]
            h = lambda a: self.pdf_theta(Q(a)) - self.pdf_theta(Q(a + prob))  # noqa: E731
            hl, hh = h(lo_a), h(hi_a)
            if hl < 0 < hh or hl > 0 > hh:  # the density at the ends cross: the HDI condition
                best_a = optimize.brentq(h, lo_a, hi_a, xtol=1e-14, rtol=1e-15, maxiter=200)
            else:
                r = optimize.minimize_scalar(
                    lambda a: Q(a + prob) - Q(a),
                    bounds=(lo_a, hi_a),
                    method="bounded",
                    options={"xatol": 1e-13},
                )
                best_a = float(r.x)
        else:
            # shortest at an end: confirm against the neighbouring grid values (fine local scan)
            lo_a = aa[max(i - 1, 0)]
            hi_a = aa[min(i + 1, grid - 1)]
            fine = np.linspace(lo_a, hi_a, 201)
            fl = np.array([Q(a + prob) - Q(a) for a in fine])
            best_a = float(fine[int(np.argmin(fl))])
        return (Q(best_a), Q(best_a + prob))

    def summary(self, hdi: bool = True) -> dict:
        out = {}
        for var in self.marg:
            out[var] = {
                "quantiles": [self.quantile(q, var) for q in LEVELS],
                "mean": self.mean(var),
            }
        if hdi and "theta" in self.marg:
            out["theta"]["hdi95"] = list(self.shortest_interval(0.95))
        return out

    def diagnostics(self) -> dict:
        totals = {v: m.total for v, m in self.marg.items()}
        ref = totals.get("theta", next(iter(totals.values())))
        return {
            "mass_rel_spread": max(abs(t / ref - 1) for t in totals.values()),
            "panels": {v: m.npanels for v, m in self.marg.items()},
            "density_evals": {v: m.evals for v, m in self.marg.items()},
        }


def compute(case: Case, res: Resolution = FINE, variables=VARS, hdi: bool = True) -> dict:
    ref = Reference(case, res, variables)
    return {"summary": ref.summary(hdi=hdi), "diagnostics": ref.diagnostics()}


def quantiles(case: Case, q, var: str = "theta", res: Resolution = FINE) -> list[float]:
    ref = Reference(case, res, (var,))
    return [ref.quantile(float(x), var) for x in np.atleast_1d(q)]


def cdf(case: Case, x, var: str = "theta", res: Resolution = FINE) -> list[float]:
    ref = Reference(case, res, (var,))
    return [ref.cdf(float(t), var) for t in np.atleast_1d(x)]
