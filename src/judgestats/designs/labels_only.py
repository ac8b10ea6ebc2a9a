r"""Exact intervals from the labelled items alone (the random design, the judge ignored).

Under the random design the ``m = m0 + m1`` labelled items are a simple random sample of the
``N = n + m`` items evaluated, so the labelled count of truly correct items ``m1`` measures the
accuracy directly, whatever the judge. Two estimands (``target``):

``"population"`` -- the accuracy theta of the process that produced the items; m1 ~ Bin(m, theta).
    * Clopper-Pearson: the equal-tailed inversion of the binomial test (Beta quantiles;
      :func:`judgestats.guaranteed.clopper_pearson`).
    * Blaker: the inversion of Blaker's acceptability test (Blaker 2000, "Confidence curves and
      improved exact confidence intervals for discrete distributions", Canadian Journal of
      Statistics 28). The acceptability p-value of theta for the observed x is

      .. math:: a(\theta) = \sum_{y:\ \gamma_\theta(y) \le \gamma_\theta(x)} P_\theta(X = y),
                \qquad \gamma_\theta(y) = \min\{P_\theta(X \le y),\ P_\theta(X \ge y)\},

      and the interval holds the theta with a(theta) > alpha. It is exact (coverage at least the
      level for every theta) and lies inside the Clopper-Pearson interval. Its acceptance
      region may, rarely, have gaps; the interval reported is the smallest one holding every
      accepted theta (so it still covers), intersected with Clopper-Pearson.

``"items"`` -- the share of truly correct items among the N items, theta_items = T / N, with T
    the (fixed, unknown) number of truly correct items. Given T, the labelled count is
    hypergeometric, m1 ~ Hypergeom(N, T, m), whatever produced the items; inverting the
    hypergeometric test over T in {m1, ..., m1 + n} gives an interval for T / N whose coverage is
    at least the level for every T, hence also averaged over any process that produced the
    items (a design-based guarantee). The Clopper-Pearson version inverts the two one-sided
    tests at alpha / 2 each,

    .. math:: T_{low} = \min\{T: P_T(X \ge m_1) > \alpha/2\}, \quad
              T_{high} = \max\{T: P_T(X \le m_1) > \alpha/2\},

    (both tail probabilities are monotone in T, so each end is an integer bisection); the
    Blaker version inverts the acceptability test above with the hypergeometric law. Mapping the
    binomial interval as ``(m1 + n [low, high]) / N`` would not be right: it ignores that the n
    unlabelled items' count scatters around n theta, so it is not an interval for T / N with the
    stated coverage. With n = 0 every item is labelled and the interval is the known share
    m1 / m with zero width.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from judgestats.guaranteed import clopper_pearson

__all__ = [
    "LABELS_ONLY_MAX",
    "LABELS_ONLY_METHODS",
    "TARGETS",
    "blaker_acceptability",
    "check_target",
    "labels_only_interval",
]

#: The estimands a random-design interval can target.
TARGETS = ("population", "items")
#: The labels-only intervals, by name.
LABELS_ONLY_METHODS = ("clopper_pearson", "blaker")
#: Relative slack when comparing gamma values (ties count as "at most as probable").
_TIE = 1e-9
#: Points of the scan that precedes the integer search for the items target's Blaker ends.
_SCAN = 48
#: Labelled items above which the items target's intervals are refused: their cost grows as
#: sqrt(m) per law evaluated (the window of :func:`_window`), 48 laws at a time.
LABELS_ONLY_MAX = 10_000_000


def check_target(target: Any, *, design: str = "random") -> str:
    """Validate ``target``: ``"population"`` or ``"items"`` (the latter for the random design).

    Raises
    ------
    ValueError
        For any other value, or ``"items"`` with ``design="stratified"``: there the calibration
        items are separate from the test items and hold a fixed share of each class, so the
        share of correct items among the items evaluated is not defined by these counts.
    """
    if not isinstance(target, str) or target not in TARGETS:
        raise ValueError(
            f"`target` ({target!r}) must be one of {', '.join(map(repr, TARGETS))}: the accuracy "
            "of the process that produced the items, or the share of correct items among the "
            "items evaluated."
        )
    if target == "items" and design != "random":
        raise ValueError(
            "`target` ('items') needs design='random': with a stratified calibration set the "
            "labelled items are chosen by their true class, so the share of correct items among "
            "the items evaluated is not estimable from these counts; use target='population'."
        )
    return target


def describe_target(target: str, evaluated: int) -> str:
    """The quantity ``target`` names, in words, for ``evaluated`` = N = n + m items."""
    if target == "population":
        return "the accuracy of the process"
    return f"the share of correct items among the {evaluated} evaluated"


# ---------------------------------------------------------------------------------------------
# laws of the labelled count, for a vector of parameters
# ---------------------------------------------------------------------------------------------
def _window(m: int, lowest: float, highest: float) -> tuple[int, int]:
    """The counts ``start..stop`` outside which every law of mean in [lowest, highest] is 0.

    Hoeffding's bound, for the binomial and the hypergeometric (sampling without replacement)
    alike: P(|Y - E Y| >= t) <= 2 exp(-2 t^2 / m), below 1e-347 at t = 20 sqrt(m), so each pmf
    value outside the window underflows to exactly 0 in double precision and dropping it leaves
    the cumulative sums unchanged; the cost is O(sqrt(m)) per law instead of O(m).
    """
    margin = math.ceil(20.0 * math.sqrt(m)) + 1
    return max(0, math.floor(lowest) - margin), min(m, math.ceil(highest) + margin)


def _binomial_pmf(m: int, theta: np.ndarray, start: int = 0, stop: int | None = None) -> np.ndarray:
    """Bin(y; m, theta) for y = start..stop (default 0..m): shape (len(theta), stop - start + 1)."""
    from scipy.special import gammaln, xlog1py, xlogy

    y = np.arange(start, (m if stop is None else stop) + 1, dtype=float)
    t = np.asarray(theta, dtype=float)[:, None]
    log = (
        gammaln(m + 1.0)
        - gammaln(y + 1.0)
        - gammaln(m - y + 1.0)
        + xlogy(y, t)
        + xlog1py(m - y, -t)
    )
    return np.exp(log)


#: Below this many items the log falling factorial is a plain difference of log-gammas.
_STIRLING_FROM = 100.0


def _log_falling(a: np.ndarray, k: np.ndarray) -> np.ndarray:
    r"""The log of a (a - 1) ... (a - k + 1) = log Gamma(a + 1) - log Gamma(b + 1), b = a - k.

    For b >= 100 by Stirling's series, with :math:`\log\Gamma(z + 1) = z \log z - z +
    \tfrac12 \log(2 \pi z) + \delta(z)` and :math:`\delta(z) = 1/(12 z) - 1/(360 z^3) +
    1/(1260 z^5) - 1/(1680 z^7)` (error below 1e-21 there), rearranged so that no term is of
    the size of a:

    .. math:: k \log a - (b + \tfrac12) \log(1 - k / a) - k + \delta(a) - \delta(b).

    The plain difference loses about eps a log(a) (1e-3 at a = 1e12, everything at 1e15); this
    form loses about eps k log(a). -inf where k > a.
    """
    from scipy.special import gammaln

    a, k = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(k, dtype=float))
    b = a - k
    safe_a, safe_b = np.maximum(a, 1.0), np.maximum(b, 1.0)

    def delta(z: np.ndarray) -> np.ndarray:
        w = 1.0 / (z * z)
        return (1.0 / 12.0 - w * (1.0 / 360.0 - w * (1.0 / 1260.0 - w / 1680.0))) / z

    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.log1p(-np.minimum(k / safe_a, 1.0))
        stirling = k * np.log(safe_a) - (b + 0.5) * ratio - k + delta(safe_a) - delta(safe_b)
        direct = gammaln(a + 1.0) - gammaln(b + 1.0)
    out = np.where(b >= _STIRLING_FROM, stirling, direct)
    return np.where(b >= 0, out, -np.inf)


def _hypergeom_pmf(
    m: int, size: int, total: np.ndarray, start: int = 0, stop: int | None = None
) -> np.ndarray:
    """Hypergeom(y; size, total, m) for y = start..stop (default 0..m; out of range: 0).

    As C(m, y) [T]_y [N - T]_{m - y} / [N]_m with [a]_k the falling factorial
    (:func:`_log_falling`), so that N = ``size`` of 1e15 or more keeps full precision.
    """
    from scipy.special import gammaln

    y = np.arange(start, (m if stop is None else stop) + 1, dtype=float)[None, :]
    t = np.asarray(total, dtype=float)[:, None]
    log_choose_m = gammaln(m + 1.0) - gammaln(y + 1.0) - gammaln(m - y + 1.0)
    log = (
        log_choose_m
        + _log_falling(t, y)
        + _log_falling(size - t, m - y)
        - _log_falling(np.array(float(size)), np.array(float(m)))
    )
    return np.exp(log)


def blaker_acceptability(x: int, pmf: np.ndarray) -> np.ndarray:
    """Blaker's acceptability p-value of each row's law (rows of ``pmf`` over y = 0..m) at x."""
    lower = np.cumsum(pmf, axis=1)
    upper = np.cumsum(pmf[:, ::-1], axis=1)[:, ::-1]
    gamma = np.minimum(lower, upper)
    at_x = gamma[:, x : x + 1]
    return np.minimum(1.0, np.sum(np.where(gamma <= at_x * (1 + _TIE), pmf, 0.0), axis=1))


# ---------------------------------------------------------------------------------------------
# the population target (binomial)
# ---------------------------------------------------------------------------------------------
def _blaker_upper(x: int, m: int, alpha: float, cp_high: float) -> float:
    r"""The upper end of Blaker's interval: the largest theta whose acceptability exceeds alpha.

    Exact, not a scan. Above x / m the observed count is in the lower tail, so the counts no
    more probable than x form the set {y <= x} and {y >= b}, b the smallest count above x with
    :math:`S_\theta(b) = P_\theta(Y \ge b) \le F_\theta(x) = P_\theta(Y \le x)`; b grows
    with theta, changing at the roots :math:`\theta_y` of :math:`S_\theta(y) = F_\theta(x)`.
    Between two roots the acceptability :math:`A = F_\theta(x) + S_\theta(b)` has derivative
    :math:`m [b_{m-1}(b - 1; \theta) - b_{m-1}(x; \theta)]`, whose sign changes at most once,
    from - to +: A falls, then rises, so it exceeds alpha only next to the piece's ends. At a
    root, :math:`A = 2 F_\theta(x) > \alpha` below the Clopper-Pearson end (where
    :math:`F = \alpha / 2`). So with b the piece holding the Clopper-Pearson end, the answer is
    the root :math:`\theta_{b-1}` or, where A just above it still exceeds alpha, the one
    crossing of alpha between it and the Clopper-Pearson end. (A 48-point scan with bisection,
    used before, stepped over accepted stretches there: at m = 400, x = 1 its upper end was
    0.013208 and the interval covered 0.9496 at theta = 0.0138.)
    """
    from scipy.optimize import brentq

    from judgestats._binomial import at_least, at_most

    def lower_tail(theta: float) -> float:
        return float(at_most(x, m, theta))

    def upper_tail(y: int, theta: float) -> float:  # P(Y >= y); 0 above m
        return float(at_least(y, m, theta))

    floor = lower_tail(cp_high)
    low, high = x + 1, m + 1  # the smallest y with upper_tail(y) <= floor (m + 1: none)
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if upper_tail(middle, cp_high) <= floor else (middle + 1, high)
    piece = low
    root = brentq(
        lambda theta: upper_tail(piece - 1, theta) - lower_tail(theta),
        x / m, cp_high, xtol=1e-15, rtol=1e-15,
    )  # fmt: skip

    def excess(theta: float) -> float:
        return lower_tail(theta) + upper_tail(piece, theta) - alpha

    if excess(root) <= 0.0:
        return float(root)
    if excess(cp_high) >= 0.0:
        return float(cp_high)
    return float(brentq(excess, root, cp_high, xtol=1e-15, rtol=1e-15))


#: Labelled items beyond which Blaker's interval is Clopper-Pearson's: the two agree to double
#: precision at 2**50 and 2**53 labels (x / m = 0.6), and from about 2**54 the tail searches
#: lose their precision (NaN tails).
BLAKER_MAX_LABELS = 2**50


def _blaker_binomial(x: int, m: int, level: float) -> tuple[float, float]:
    alpha = 1.0 - level
    cp_low, cp_high = (float(v) for v in clopper_pearson(x, m, level))
    if m > BLAKER_MAX_LABELS:
        return cp_low, cp_high
    low = 0.0 if x == 0 else 1.0 - _blaker_upper(m - x, m, alpha, 1.0 - cp_low)
    high = 1.0 if x == m else _blaker_upper(x, m, alpha, cp_high)
    return max(low, cp_low), min(high, cp_high)


# ---------------------------------------------------------------------------------------------
# the items target (hypergeometric over T)
# ---------------------------------------------------------------------------------------------
def _windowed_pmf(m: int, size: int, total: int) -> tuple[int, np.ndarray]:
    mean = m * total / size
    start, stop = _window(m, mean, mean)
    return start, _hypergeom_pmf(m, size, np.array([total]), start, stop)[0]


def _tail_at_least(x: int, m: int, size: int, total: int) -> float:
    start, pmf = _windowed_pmf(m, size, total)
    return float(pmf[max(x - start, 0) :].sum())


def _tail_at_most(x: int, m: int, size: int, total: int) -> float:
    start, pmf = _windowed_pmf(m, size, total)
    return float(pmf[: max(x - start + 1, 0)].sum())


def _integer_search(accept: Any, rejected: int, good: int) -> int:
    """Bisection between a rejected and an accepted integer; the accepted one next to the edge."""
    while abs(good - rejected) > 1:
        middle = (good + rejected) // 2
        if accept(middle):
            good = middle
        else:
            rejected = middle
    return good


def _hypergeom_cp(x: int, m: int, n: int, level: float) -> tuple[int, int]:
    half = (1.0 - level) / 2.0
    size = n + m
    low = x
    if _tail_at_least(x, m, size, x) <= half:  # x itself rejected: search upwards
        low = _integer_search(lambda t: _tail_at_least(x, m, size, t) > half, x, x + n)
    high = x + n
    if _tail_at_most(x, m, size, x + n) <= half:
        high = _integer_search(lambda t: _tail_at_most(x, m, size, t) > half, x + n, x)
    return low, high


def _hypergeom_blaker_end(x: int, m: int, n: int, alpha: float, outer: int, inner: int) -> int:
    size = n + m
    means = (m * min(outer, inner) / size, m * max(outer, inner) / size)
    start, stop = _window(m, min(means[0], x), max(means[1], x))

    def accept(totals: np.ndarray) -> np.ndarray:
        pmf = _hypergeom_pmf(m, size, totals, start, stop)
        return blaker_acceptability(x - start, pmf) > alpha

    grid = np.unique(np.round(np.linspace(outer, inner, _SCAN)).astype(np.int64))
    if outer > inner:
        grid = grid[::-1]
    accepted = accept(grid)
    first = int(np.argmax(accepted)) if accepted.any() else grid.size - 1
    if first == 0:
        return outer
    return _integer_search(
        lambda t: bool(accept(np.array([t]))[0]), int(grid[first - 1]), int(grid[first])
    )


def _hypergeom_interval(x: int, m: int, n: int, level: float, method: str) -> tuple[float, float]:
    size = n + m
    if n == 0:
        return x / m, x / m
    low, high = _hypergeom_cp(x, m, n, level)
    if method == "blaker":
        centre = min(max(round(x * size / m), low), high)
        alpha = 1.0 - level
        low = _hypergeom_blaker_end(x, m, n, alpha, low, centre) if low < centre else low
        high = _hypergeom_blaker_end(x, m, n, alpha, high, centre) if high > centre else high
    return low / size, high / size


# ---------------------------------------------------------------------------------------------
# public
# ---------------------------------------------------------------------------------------------
def _one(x: int, m: int, n: int, level: float, method: str, target: str) -> tuple[float, float]:
    if target == "items":
        return _hypergeom_interval(x, m, n, level, method)
    if method == "blaker":
        return _blaker_binomial(x, m, level)
    low, high = clopper_pearson(x, m, level)
    return float(low), float(high)


def labels_only_interval(
    m1: Any,
    m: Any,
    n: Any = 0,
    *,
    method: str = "blaker",
    target: str = "population",
    confidence_level: float = 0.95,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Exact interval of the accuracy from ``m1`` truly correct of ``m`` labelled items.

    Parameters
    ----------
    m1, m : int or array_like
        Truly correct labelled items and labelled items (m >= 1); broadcast.
    n : int or array_like, default 0
        Unlabelled items (only ``target="items"`` uses it: N = n + m items in all).
    method : {"blaker", "clopper_pearson"}
        Blaker's acceptability interval (shorter, inside Clopper-Pearson) or Clopper-Pearson.
    target : {"population", "items"}
        See the module docstring.
    confidence_level : float, default 0.95

    Returns
    -------
    estimate, low, high : ndarray
        ``m1 / m`` (population) or ``(m1 + n m1 / m) / N`` = ``m1 / m`` (items), and the ends.
        Each distinct ``(m1, m, n)`` is computed once.
    """
    from judgestats._validate import check_choice, check_counts, check_level

    level = check_level(confidence_level)
    method = check_choice(method, "method", LABELS_ONLY_METHODS)
    target = check_target(target)
    x = check_counts(m1, "m1")
    size = check_counts(m, "m", minimum=1)
    unlabelled = check_counts(n, "n")
    x, size, unlabelled = np.broadcast_arrays(x, size, unlabelled)
    if np.any(x > size):
        raise ValueError("`m1` must not exceed `m`.")
    if target == "items" and np.any(size > LABELS_ONLY_MAX):
        raise ValueError(
            f"`m` ({int(np.max(size))}) labelled items exceed {LABELS_ONLY_MAX:,}, the most "
            "the exact labels-only intervals of target='items' handle (their cost grows with "
            "m); with this many labels the labelled share m1 / m is itself exact to about "
            "1 / sqrt(m), and target='population' has no such limit."
        )
    if target == "population":
        unlabelled = np.zeros_like(unlabelled)
    keys = np.stack([a.astype(np.int64).ravel() for a in (x, size, unlabelled)], axis=1)
    unique, inverse = np.unique(keys, axis=0, return_inverse=True)
    ends = np.array([_one(int(a), int(b), int(c), level, method, target) for a, b, c in unique])
    ends = ends.reshape(-1, 2)[inverse.ravel()]
    shape = x.shape
    estimate = (x / size).astype(float)
    return estimate, ends[:, 0].reshape(shape), ends[:, 1].reshape(shape)


def labels_only_triple(
    m1: int, m: int, n: int, *, method: str, target: str, level: float
) -> tuple[float, float, float]:
    """(estimate, low, high) of one dataset, as floats."""
    estimate, low, high = labels_only_interval(
        m1, m, n, method=method, target=target, confidence_level=level
    )
    return float(estimate), float(low), float(high)
