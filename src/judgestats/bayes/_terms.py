r"""Terms of the judge model's posterior shared by every exact marginal (private to ``bayes``).

For R datasets at once: the calibration Betas ``g0 = Beta(a0 + k0, b0 + m0 - k0)`` and
``g1 = Beta(a1 + k1, b1 + m1 - k1)`` (prior times calibration likelihood), the binomial kernel
``p^k (1 - p)^(n - k)`` of the test set, the theta prior, their logarithms, and the boxes outside
which each of these Betas holds less than ``BOX_TAIL`` of its mass. Windows of integration are
intersections of these boxes, mapped through ``q0 = 1 - p + theta J``, ``q1 = p + (1 - theta) J``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import special as sc

from judgestats.bayes._panels import gauss_legendre
from judgestats.bayes.priors import Prior

__all__ = [
    "BOX_TAIL",
    "J_ORDER",
    "P_ORDER",
    "SUPPORT_DROP",
    "THETA_ORDER",
    "Rows",
    "beta_box",
    "j_window",
    "log_calibration",
    "log_kernel",
    "log_prior",
    "logsumexp",
    "p_window",
    "prior_rule",
    "rows_for",
    "theta_box",
]

#: Mass of each Beta (calibration, test kernel, theta prior) left outside its integration box.
BOX_TAIL = 1e-14
#: Log-density drop below the maximum that bounds the support of every tabulated marginal.
SUPPORT_DROP = 40.0
#: Gauss nodes of the engine's nested rule: per theta panel, per p panel, on the J segment
#: (the per-dataset engine and the vectorised path use the same rule).
THETA_ORDER = 12
P_ORDER = 16
J_ORDER = 24


# ------------------------------------------------------------------------------------------------
@dataclass
class Rows:
    """Counts, Beta parameters and integration boxes of R datasets (arrays of shape (R,))."""

    k: np.ndarray
    n: np.ndarray
    beta0: tuple[np.ndarray, np.ndarray]
    beta1: tuple[np.ndarray, np.ndarray]
    theta_prior: tuple[float, float]
    truncate: bool

    def __post_init__(self) -> None:
        (a0, b0), (a1, b1) = self.beta0, self.beta1
        self.box0 = beta_box(a0, b0)
        self.box1 = beta_box(a1, b1)
        self.box_p = beta_box(self.k + 1.0, self.n - self.k + 1.0)
        self.p_hat = self.k / self.n
        self.calibration_box = (self.box0, self.box1)
        self.box_t = theta_box(self.theta_prior, self.k.shape)
        self._bridge()
        self._reach()
        if self.truncate:
            for _ in range(2):
                self._follow_the_constraint()

    def _follow_the_constraint(self) -> None:
        """Extend each box into the tail where the truncation pushes the posterior.

        Under truncation ``1 - q0 < p < q1``. When the kernel puts p high in q1's range (or
        the calibration puts q1 low in p's range), the posterior lives in a tail of one Beta
        that the other factor lifts; each box is extended to hold all but ``BOX_TAIL`` of its
        Beta *given* the constraint: for q1 given ``q1 > p_low``, for q0 given
        ``q0 > 1 - p_high``, for p given ``p < u1`` and given ``p > 1 - u0``.
        """
        (l0, u0), (l1, u1), (pl, pu) = self.box0, self.box1, self.box_p
        (a0, b0), (a1, b1) = self.beta0, self.beta1
        a, b = self.k + 1.0, self.n - self.k + 1.0
        self.box1 = (l1, np.maximum(u1, _upper_given_above(a1, b1, pl)))
        self.box0 = (l0, np.maximum(u0, _upper_given_above(a0, b0, 1 - pu)))
        self.box_p = (
            np.minimum(pl, _lower_given_below(a, b, self.box1[1])),
            np.maximum(pu, _upper_given_above(a, b, 1 - self.box0[1])),
        )

    def _bridge(self) -> None:
        """Widen the boxes where test and calibration data conflict so that they meet.

        ``p = theta q1 + (1 - theta)(1 - q0)`` is linear in each variable, so over the boxes of
        theta, q0 and q1 it ranges between its values at their corners. When the kernel's
        window lies entirely outside that range, the posterior sits in the gap between them,
        in the tails of all: the kernel's window is stretched across the gap, the calibration
        box that limits the range is stretched to reach the kernel, and the theta box (the
        theta prior's, informative under the random design) is opened to the end of [0, 1]
        towards which p moves.
        """
        (l0, u0), (l1, u1), (pl, pu), (tl, tu) = self.box0, self.box1, self.box_p, self.box_t
        ends_low = [t * l1 + (1 - t) * (1 - u0) for t in (tl, tu)]
        ends_high = [t * u1 + (1 - t) * (1 - l0) for t in (tl, tu)]
        reach_low, reach_high = np.minimum(*ends_low), np.maximum(*ends_high)
        below, above = pu < reach_low, pl > reach_high
        self.box_p = (np.where(above, reach_high, pl), np.where(below, reach_low, pu))
        self.box0 = (
            np.where(above, np.minimum(l0, 1 - pu), l0),
            np.where(below, np.maximum(u0, 1 - pl), u0),
        )
        self.box1 = (
            np.where(below, np.minimum(l1, pl), l1),
            np.where(above, np.maximum(u1, pu), u1),
        )
        # p falls with theta where q1 > 1 - q0 at the corner that limits the range
        open_low = (below & (l1 > 1 - u0)) | (above & (u1 < 1 - l0))
        open_high = (below & (l1 <= 1 - u0)) | (above & (u1 >= 1 - l0))
        self.box_t = (np.where(open_low, 0.0, tl), np.where(open_high, 1.0, tu))
        self.conflict = below | above
        _tighten(self, self.conflict)

    def _reach(self) -> None:
        """Widen the boxes where the data conflict in part, so that they hold the posterior.

        :meth:`_bridge` stretches the boxes only where no p inside them meets the kernel's
        window. Where it meets it only in the tails of the factors, the posterior can still lie
        beyond a box, since each holds all but ``BOX_TAIL`` of its own factor, not of the
        posterior: 900 of 1000 judged correct against calibration arms of 80 in 100 (random
        design) puts q0's conditional mode at 0.35 below box0's 0.425, and the interval of theta
        was 0.04 off. The bound of :func:`_tighten` says how far each variable reaches: with C
        the deficit of the best point found (:func:`_best_point`), a point whose own factor's
        deficit exceeds ``C + D`` lies at least D below the posterior's top. So where the
        deficit at the factors' modes (:func:`_mode_deficit`, an upper bound of C) exceeds
        ``REACH_CHECK``, an end of a box whose factor's deficit there is below
        ``C + REACH_MARGIN`` moves out to the level set at depth ``C + SUPPORT_DROP``; these
        datasets then count as conflicting (the theta rule is checked by refinement). Only
        under an informative theta prior (the random design): with a flat one theta moves to
        reconcile the counts, and the ends where it cannot are :meth:`_bridge`'s.
        """
        at, bt = self.theta_prior
        if max(at, bt) <= 1:  # theta is free to reconcile the data (the stratified design)
            return
        hit = _mode_deficit(self) > REACH_CHECK
        if not hit.any():
            return
        index = np.flatnonzero(hit)
        part = self.take(index)
        bound = -_best_point(part)
        widened = np.zeros(part.size, dtype=bool)
        for name, log_rel, mode, usable in _factor_terms(part):
            low, high = getattr(part, name)
            short_low = usable & (-log_rel(low) < bound + REACH_MARGIN)
            short_high = usable & (-log_rel(high) < bound + REACH_MARGIN)
            if not (short_low | short_high).any():
                continue
            zero, one = np.zeros(part.size), np.ones(part.size)
            far_low, far_high = _level_ends(log_rel, mode, zero, one, bound + SUPPORT_DROP)
            old_low, old_high = (v.copy() for v in getattr(self, name))
            old_low[index] = np.where(short_low, np.minimum(low, far_low), low)
            old_high[index] = np.where(short_high, np.maximum(high, far_high), high)
            setattr(self, name, (old_low, old_high))
            widened |= short_low | short_high
        self.conflict = self.conflict.copy()
        self.conflict[index[widened]] = True

    def take(self, rows: np.ndarray) -> Rows:
        """The sub-batch ``rows``."""
        out = Rows.__new__(Rows)
        for name in ("k", "n", "p_hat", "conflict"):
            setattr(out, name, getattr(self, name)[rows])
        for name in ("beta0", "beta1", "box0", "box1", "box_p", "box_t"):
            setattr(out, name, tuple(v[rows] for v in getattr(self, name)))
        (l0, u0), (l1, u1) = self.calibration_box
        out.calibration_box = ((l0[rows], u0[rows]), (l1[rows], u1[rows]))
        out.theta_prior, out.truncate = self.theta_prior, self.truncate
        return out

    def mirrored(self) -> Rows:
        """The same datasets with correct and incorrect swapped (k -> n - k, q0 <-> q1).

        theta -> 1 - theta, q0 <-> q1 and p -> 1 - p map the posterior onto this one's.
        """
        out = Rows.__new__(Rows)
        out.k, out.n, out.p_hat = self.n - self.k, self.n, 1 - self.p_hat
        out.conflict = self.conflict
        out.beta0, out.beta1 = self.beta1, self.beta0
        out.box0, out.box1 = self.box1, self.box0
        out.calibration_box = self.calibration_box[::-1]
        out.box_p = (1 - self.box_p[1], 1 - self.box_p[0])
        out.box_t = (1 - self.box_t[1], 1 - self.box_t[0])
        out.theta_prior = self.theta_prior[::-1]
        out.truncate = self.truncate
        return out

    @property
    def size(self) -> int:
        return self.k.size


def beta_box(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Quantiles ``BOX_TAIL`` and ``1 - BOX_TAIL`` of Beta(a, b)."""
    return sc.betaincinv(a, b, BOX_TAIL), sc.betainccinv(a, b, BOX_TAIL)


def theta_box(prior: tuple[float, float], shape: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Box of the theta prior: its ``BOX_TAIL`` quantiles (an end stays where a parameter <= 1)."""
    at, bt = prior
    low = sc.betaincinv(at, bt, BOX_TAIL) if at > 1 else 0.0
    high = sc.betainccinv(at, bt, BOX_TAIL) if bt > 1 else 1.0
    return np.full(shape, low), np.full(shape, high)


def _upper_given_above(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The point above which Beta(a, b) given ``> x`` holds ``BOX_TAIL`` of its mass."""
    with np.errstate(all="ignore"):
        tail = sc.betaincc(a, b, np.clip(x, 0.0, 1.0))
        out = sc.betainccinv(a, b, BOX_TAIL * tail)
    return np.where(tail > 1e-290, out, 1.0)


def _lower_given_below(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The point below which Beta(a, b) given ``< x`` holds ``BOX_TAIL`` of its mass."""
    with np.errstate(all="ignore"):
        tail = sc.betainc(a, b, np.clip(x, 0.0, 1.0))
        out = sc.betaincinv(a, b, BOX_TAIL * tail)
    return np.where(tail > 1e-290, out, 0.0)


def log_kernel(k: float | np.ndarray, n: float | np.ndarray, p: np.ndarray) -> np.ndarray:
    """``log[p^k (1-p)^(n-k)]`` minus its maximum over p (accurate for n up to 1e9 and more)."""
    p_hat = k / n
    with np.errstate(divide="ignore", invalid="ignore"):
        d = p - p_hat
        left = np.where(k > 0, k * np.log1p(d / np.where(k > 0, p_hat, 1.0)), 0.0)
        right = np.where(k < n, (n - k) * np.log1p(-d / np.where(k < n, 1 - p_hat, 1.0)), 0.0)
    return left + right


def log_prior(
    at: float, bt: float, t: np.ndarray, low: bool = True, high: bool = True
) -> np.ndarray:
    """Log Beta(at, bt) density at t, without ``t^(at-1)`` (``low=False``) or ``(1-t)^(bt-1)``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = -sc.betaln(at, bt) + np.zeros_like(t)
        if low:
            out = out + sc.xlogy(at - 1, t)
        if high:
            out = out + sc.xlog1py(bt - 1, -t)
    return out


def logsumexp(v: np.ndarray, axis: int) -> np.ndarray:
    top = np.max(v, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    shifted = np.subtract(v, top)
    np.exp(shifted, out=shifted)
    with np.errstate(divide="ignore"):
        return np.squeeze(top, axis) + np.log(np.sum(shifted, axis=axis))


def p_window(rows: Rows, t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Window of p at theta = t (R, T) and the split point between its two panels."""
    (l0, u0), (l1, u1) = ((v[:, None] for v in box) for box in (rows.box0, rows.box1))
    low = (1 - t) * (1 - u0) + t * l1
    high = (1 - t) * (1 - l0) + t * u1
    if rows.truncate:  # p = 1 - q0 + t J > 1 - q0 and p = q1 - (1 - t) J < q1
        low, high = np.maximum(low, 1 - u0), np.minimum(high, u1)
    low = np.maximum(low, rows.box_p[0][:, None])
    high = np.minimum(high, rows.box_p[1][:, None])
    kink = t if rows.truncate else np.where((t > low) & (t < high), t, 1 - t)
    split = np.where((kink > low) & (kink < high), kink, 0.5 * (low + high))
    return low, high, split


def j_window(rows: Rows, t: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Window of J at (theta, p): both calibration Betas inside their boxes (and J > 0)."""
    shape = (-1,) + (1,) * (p.ndim - 1)
    (l0, u0), (l1, u1) = ((v.reshape(shape) for v in box) for box in (rows.box0, rows.box1))
    tt = t.reshape(t.shape + (1,) * (p.ndim - t.ndim))
    with np.errstate(divide="ignore", invalid="ignore"):  # theta at 0 or 1: an unbounded side
        low = np.maximum((l0 - 1 + p) / tt, (l1 - p) / (1 - tt))
        high = np.minimum((u0 - 1 + p) / tt, (u1 - p) / (1 - tt))
    if rows.truncate:
        low = np.maximum(low, 0.0)
    return low, high


def log_calibration(rows: Rows, t: np.ndarray, p: np.ndarray, j: np.ndarray) -> np.ndarray:
    """Log of g0(1 - p + t J) g1(p + (1 - t) J) (unnormalised Beta densities).

    Computed in place on the full (broadcast) shape: the engine's largest arrays go through
    here, and fresh temporaries cost more than the logarithms.
    """
    shape = (-1,) + (1,) * (j.ndim - 1)
    out = np.zeros(j.shape)
    q, term = np.empty(j.shape), np.empty(j.shape)
    for (a, b), base, slope in ((rows.beta0, 1 - p, t), (rows.beta1, p, 1 - t)):
        with np.errstate(invalid="ignore"):  # 0 x inf at theta 0 or 1: NaN, clipped to a bound
            np.multiply(slope, j, out=q)
        q += base  # = base + slope * j, bit for bit
        np.clip(q, 1e-300, 1 - 1e-16, out=q)
        a, b = a.reshape(shape), b.reshape(shape)
        if np.any(a != 1):
            np.log(q, out=term)
            term *= a - 1
            out += term
        if np.any(b != 1):
            np.negative(q, out=q)
            np.log1p(q, out=q)
            q *= b - 1
            out += q
    return out


def rows_for(
    k: np.ndarray,
    n: np.ndarray,
    k0: np.ndarray,
    m0: np.ndarray,
    k1: np.ndarray,
    m1: np.ndarray,
    prior: Prior,
) -> Rows:
    (a0, b0), (a1, b1) = prior.q0, prior.q1
    return Rows(
        k,
        n,
        (a0 + k0, b0 + m0 - k0),
        (a1 + k1, b1 + m1 - k1),
        prior.theta,
        prior.better_than_chance,
    )


def prior_rule(
    low: np.ndarray,
    high: np.ndarray,
    prior: tuple[float, float],
    order: int,
    split: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and log weights on [low, high] for ``int pi(t) g(t) dt`` with a smooth g.

    The log weights include the log Beta prior density. Where the window reaches 0 (or 1) and
    the prior parameter there is below 1, the density is unbounded; that half of the window is
    mapped by ``t = w s^(1/a)`` (``s`` Gauss-Legendre on [0, 1]), which turns ``t^(a-1) dt`` into
    ``(w^a / a) ds`` exactly. Otherwise both halves are Gauss-Legendre. The halves meet at
    ``split`` where it lies inside (a kink of g), else at the midpoint. Shapes: ``low``, ``high``
    and ``split`` (...), result (..., order) with ``order`` even.
    """
    at, bt = prior
    x, w = gauss_legendre(order // 2)
    s, ws = (x + 1) / 2, w / 2
    low, high = np.asarray(low, float)[..., None], np.asarray(high, float)[..., None]
    mid = 0.5 * (low + high)
    if split is not None:
        split = np.asarray(split, float)[..., None]
        mid = np.where((split > low) & (split < high), split, mid)
    halves = []
    for start, end, power, lower, at_end in (
        (low, mid, at, True, low <= 0.0),
        (mid, high, bt, False, high >= 1.0),
    ):
        width = end - start
        plain_t = start + width * s
        with np.errstate(divide="ignore", invalid="ignore"):  # empty windows: weight -inf
            plain_w = np.log(width * ws) + log_prior(at, bt, plain_t)
        if power >= 1:
            halves.append((plain_t, plain_w))
            continue
        u = width * s ** (1 / power)
        sub_t = u if lower else 1.0 - u
        with np.errstate(divide="ignore"):
            sub_w = (
                power * np.log(width)
                - np.log(power)
                + np.log(ws)
                + log_prior(at, bt, sub_t, low=not lower, high=lower)
            )
        halves.append((np.where(at_end, sub_t, plain_t), np.where(at_end, sub_w, plain_w)))
    t = np.concatenate([halves[0][0], halves[1][0]], axis=-1)
    log_w = np.concatenate([halves[0][1], halves[1][1]], axis=-1)
    return t, log_w


# ------------------------------------------------------------------------------------------------
# boxes of conflicting data
# ------------------------------------------------------------------------------------------------


#: Grid points per variable of the search for a good point, and the zoom rounds.
SEARCH_POINTS = 17
ZOOM_ROUNDS = 6
#: Bisection steps of the superlevel-set ends.
BISECTION_STEPS = 60
#: :meth:`Rows._reach`: the deficit at the factors' modes (log units) above which a dataset's
#: boxes are checked, and how far (log units) below the posterior's top a box's end must lie.
REACH_CHECK = 8.0
REACH_MARGIN = 20.0


def _mode_deficit(rows: Rows) -> np.ndarray:
    """``sum F - log f`` at a point near the top, an upper bound of the least deficit, (R,).

    q0 and q1 at their Betas' modes (moved equally onto q0 + q1 > 1 under truncation), theta at
    the better of its prior's mode and the value that puts p at the kernel's top (clipped).
    """
    q0, q1 = (np.clip(_beta_mode(a, b), 0.0, 1.0) for a, b in (rows.beta0, rows.beta1))
    if rows.truncate:
        lift = np.maximum(0.0, 1.0 + 1e-9 - q0 - q1) / 2
        q0, q1 = np.minimum(q0 + lift, 1.0), np.minimum(q1 + lift, 1.0)
    at, bt = (float(v) for v in rows.theta_prior)
    prior_mode = (at - 1) / (at + bt - 2) if at >= 1 and bt >= 1 and at + bt > 2 else 0.5
    with np.errstate(divide="ignore", invalid="ignore"):
        matched = np.clip((rows.p_hat - 1 + q0) / (q0 + q1 - 1), 0.0, 1.0)
    matched = np.where(np.isfinite(matched), matched, 0.5)
    values = [_factors(rows, t, q0, q1) for t in (np.full(rows.size, prior_mode), matched)]
    return -np.maximum(*values)


_FactorTerm = tuple[str, Callable[[np.ndarray], np.ndarray], np.ndarray, np.ndarray]


def _factor_terms(rows: Rows) -> list[_FactorTerm]:
    """(box name, log factor minus its top, its mode, rows where it has a top) per factor."""
    at, bt = (np.full(rows.size, float(v)) for v in rows.theta_prior)
    out: list[_FactorTerm] = []
    for name, (a, b) in (("box_t", (at, bt)), ("box0", rows.beta0), ("box1", rows.beta1)):
        usable = (a >= 1) & (b >= 1)
        mode = _beta_mode(a, b)
        out.append((name, functools.partial(_log_beta_rel, a, b), mode, usable))
    kernel = functools.partial(log_kernel, rows.k, rows.n)
    out.append(("box_p", kernel, rows.p_hat, np.ones(rows.size, dtype=bool)))
    return out


def _beta_mode(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The mode (a - 1) / (a + b - 2) of Beta(a, b) with a, b >= 1 (0.5 for the uniform)."""
    return np.where(a + b > 2, (a - 1) / np.maximum(a + b - 2, 1e-300), 0.5)


def _log_beta_rel(a: np.ndarray, b: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``log Beta(a, b)(x)`` minus its maximum (a, b >= 1: the mode lies in [0, 1])."""
    mode = _beta_mode(a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        low = np.where(a > 1, (a - 1) * (np.log(x) - np.log(mode)), 0.0)
        high = np.where(b > 1, (b - 1) * (np.log1p(-x) - np.log1p(-mode)), 0.0)
    return low + high


def _factors(rows: Rows, t: np.ndarray, q0: np.ndarray, q1: np.ndarray) -> np.ndarray:
    """``log f - sum F`` at the points (R, ...) (-inf outside the truncation)."""
    shape = (-1,) + (1,) * (t.ndim - 1)
    (a0, b0), (a1, b1) = ((a.reshape(shape), b.reshape(shape)) for a, b in (rows.beta0, rows.beta1))
    at, bt = (np.asarray(float(v)) for v in rows.theta_prior)
    p = t * q1 + (1 - t) * (1 - q0)
    out = (
        _log_beta_rel(at, bt, t)
        + _log_beta_rel(a0, b0, q0)
        + _log_beta_rel(a1, b1, q1)
        + log_kernel(rows.k.reshape(shape), rows.n.reshape(shape), p)
    )
    if rows.truncate:
        out = np.where(q0 + q1 > 1, out, -np.inf)
    return np.where(np.isfinite(out), out, -np.inf)


def _best_point(rows: Rows) -> np.ndarray:
    """``max log f - sum F`` over a zooming grid on the boxes (a lower bound of it), (R,)."""
    boxes = [np.stack(box, axis=1) for box in (rows.box_t, rows.box0, rows.box1)]  # (R, 2)
    s = np.linspace(0.0, 1.0, SEARCH_POINTS)
    best = np.full(rows.size, -np.inf)
    for _ in range(ZOOM_ROUNDS):
        axes = [box[:, :1] + (box[:, 1:] - box[:, :1]) * s for box in boxes]  # (R, S)
        values = _factors(
            rows, axes[0][:, :, None, None], axes[1][:, None, :, None], axes[2][:, None, None, :]
        )
        flat = values.reshape(rows.size, -1)
        index = np.argmax(flat, axis=1)
        best = np.maximum(best, flat[np.arange(rows.size), index])
        where = np.unravel_index(index, values.shape[1:])
        step = [(box[:, 1] - box[:, 0]) / (SEARCH_POINTS - 1) for box in boxes]
        boxes = [
            np.stack(
                [
                    np.maximum(box[:, 0], axis[np.arange(rows.size), i] - h),
                    np.minimum(box[:, 1], axis[np.arange(rows.size), i] + h),
                ],
                axis=1,
            )
            for box, axis, i, h in zip(boxes, axes, where, step, strict=True)
        ]
    return best


def _level_ends(
    log_rel: Callable[[np.ndarray], np.ndarray],
    mode: np.ndarray,
    low: np.ndarray,
    high: np.ndarray,
    depth: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """Ends of ``{x in [low, high]: log_rel(x) >= -depth}`` for a unimodal ``log_rel``."""
    mode = np.clip(mode, low, high)
    ends = []
    for far in (low, high):
        inside = log_rel(far) >= -depth  # the set reaches the box's end
        near, out = mode.copy(), far.copy()
        for _ in range(BISECTION_STEPS):
            mid = 0.5 * (near + out)
            ok = log_rel(mid) >= -depth
            near, out = np.where(ok, mid, near), np.where(ok, out, mid)
        ends.append(np.where(inside, far, out))
    return ends[0], ends[1]


def _tighten(rows: Rows, hit: np.ndarray) -> None:
    r"""Cut the stretched boxes of the datasets ``hit`` back to what the posterior can reach.

    Where the binomial kernel's window and the range of ``p`` that the theta and calibration
    boxes allow do not meet, :meth:`Rows._bridge` stretches the boxes across the gap; the
    stretched boxes hold the posterior but can be far wider than it, and a Gauss rule on a
    window of 70 kernel widths is not accurate. Where the theta prior is informative (the
    random design) they are cut back with a bound that needs no knowledge of where the
    posterior lies.

    Write the log posterior as a sum of factors, each a function of one variable,

    .. math:: \log f = \sum_i \ell_i(x_i), \qquad
              x = (\theta, q_0, q_1, p), \quad \ell_i \le F_i = \max \ell_i,

    (theta prior, the two calibration Betas, the kernel ``p^k (1 - p)^(n - k)``). For any point
    ``x'`` the deficit ``C = \sum_i F_i - \log f(x') \ge \sum_i F_i - \max \log f``, so wherever
    ``\log f \ge \max \log f - D``,

    .. math:: \ell_i(x_i) \ge F_i - C - D \quad \text{for every } i,

    i.e. each variable lies in the superlevel set of its own factor at depth ``C + D``. The point
    ``x'`` is the best of a grid over the stretched boxes, refined by zooming; any point gives a
    valid bound, a better one a tighter box.

    Only Betas with both parameters at least 1 are cut (an unbounded density has no
    maximum); the kernel's box is always cut.
    """
    if not hit.any():
        return
    part = rows.take(np.flatnonzero(hit))
    depth = -_best_point(part) + SUPPORT_DROP
    ok = np.isfinite(depth)
    new: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name, log_rel, mode, usable in _factor_terms(part):
        if usable.all():  # a factor is cut only where every dataset's has a top
            low, high = getattr(part, name)
            new[name] = _level_ends(log_rel, mode, low, high, depth)
    index = np.flatnonzero(hit)
    for name, (low, high) in new.items():
        old_low, old_high = getattr(rows, name)
        old_low, old_high = old_low.copy(), old_high.copy()
        old_low[index[ok]], old_high[index[ok]] = low[ok], high[ok]
        setattr(rows, name, (old_low, old_high))
