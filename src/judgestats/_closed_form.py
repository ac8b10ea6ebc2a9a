"""The closed-form formulas: Rogan-Gladen estimate, delta-method variance, Lang-Reiczigel and Wald.

Their public home is :mod:`judgestats.frequentist`, which re-exports every public name here (import
them from there); this module holds the formulas so that the public module stays short.

Everything here is numpy only (the normal quantile comes from :func:`scipy.special.ndtri`, which
equals ``scipy.stats.norm.ppf`` bitwise at a fraction of the import and call cost), broadcasts over
arrays, and keeps the dims and coords of ``xarray.DataArray`` inputs.

Equation numbers refer to Lee et al., "How to Correctly Report LLM-as-a-Judge Evaluations",
arXiv 2511.21140 v1 ("Lee et al. v1" below); the later version, Lee et al. (ICML 2026; arXiv
2511.21140, later version), numbers them one higher: eq. (4) here is its eq. (5), eqs. (5)-(7)
here are its (6)-(8).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from judgestats._validate import (
    check_broadcast,
    check_counts,
    check_flag,
    check_level,
    check_proportions,
    is_xarray,
    no_correction_message,
)
from judgestats.exceptions import JudgeStatsWarning
from judgestats.results import ConfidenceInterval

if TYPE_CHECKING:  # pragma: no cover
    from numpy.typing import ArrayLike

__all__ = [
    "check_interval_inputs",
    "delta_variance",
    "lang_reiczigel_at_z",
    "lang_reiczigel_ci",
    "lang_reiczigel_formula",
    "lang_reiczigel_parts",
    "naive_wald_ci",
    "normal_quantile",
    "rogan_gladen",
    "rogan_gladen_box",
    "rogan_gladen_raw",
    "rogan_gladen_variance",
    "z_quantile",
]

#: Elements per block in the vectorised interval kernel: temporaries stay in the CPU cache,
#: which makes blocked numpy several times faster than whole-array numpy on 10^6 inputs.
_BLOCK = 16_384

Number = float | np.ndarray


def z_quantile(confidence_level: float) -> float:
    """Two-sided normal quantile z = Phi^{-1}(1 - alpha/2) with alpha = 1 - confidence_level."""
    alpha = 1.0 - check_level(confidence_level)
    return normal_quantile(1.0 - alpha / 2.0)


def normal_quantile(probability: float) -> float:
    """Standard normal quantile via :func:`scipy.special.ndtri` (bitwise ``norm.ppf``).

    scipy.special is imported on first use, so ``import judgestats`` stays at numpy's cost.
    """
    from scipy.special import ndtri

    return float(ndtri(probability))


# ---------------------------------------------------------------------------------------------
# helpers: xarray dispatch, scalar detection, the "no better than chance" policy
# ---------------------------------------------------------------------------------------------
def _apply_xarray(func: Callable[..., Any], args: tuple, kwargs: dict, n_out: int) -> Any:
    """Run ``func`` through ``xarray.apply_ufunc`` so DataArray dims and coords are kept."""
    import xarray as xr

    result = xr.apply_ufunc(
        func,
        *args,
        kwargs=kwargs,
        output_core_dims=[[]] * n_out,
        join="exact",
        dataset_join="exact",
    )
    return ConfidenceInterval(*result) if n_out == 2 else result


def _warn_no_correction(count: int, total: int, smoothed: bool) -> None:
    what = "q0~ + q1~ - 1 <= 0, eq. 6" if smoothed else "q0 + q1 - 1 <= 0"
    warnings.warn(
        f"{count} of {total} elements have a judge no better than chance ({what}); "
        "their results are NaN.",
        JudgeStatsWarning,
        stacklevel=3,
    )


# ---------------------------------------------------------------------------------------------
# Rogan-Gladen point estimate, eq. (4)
# ---------------------------------------------------------------------------------------------
def rogan_gladen_raw(p: Any, q0: Any, q1: Any) -> tuple[Any, Any]:
    r"""Eq. (4) on checked numbers or arrays: ``(theta, youden)``, unclipped, NaN where J <= 0.

    .. math:: \hat\theta = (\hat p + \hat q_0 - 1) / (\hat q_0 + \hat q_1 - 1)

    The one formula behind :func:`rogan_gladen`, the two-model comparison (its bootstrap
    replicates included) and the shift estimators: no validation, no warning, broadcasting.
    """
    youden = np.asarray(q0, dtype=np.float64) + np.asarray(q1, dtype=np.float64) - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = np.where(
            youden > 0.0, (np.asarray(p, dtype=np.float64) + q0 - 1.0) / youden, np.nan
        )
    return theta, youden


def delta_variance(p: Any, q0: Any, q1: Any, theta: Any, n: Any, m0: Any, m1: Any) -> Any:
    r"""Delta-method variance of eq. (4) (Lee et al. v1 App. A.1; ICML 2026 version eq. 10).

    .. math::
        \frac{p(1-p)/n + (1-\theta)^2 q_0(1-q_0)/m_0 + \theta^2 q_1(1-q_1)/m_1}
        {(q_0 + q_1 - 1)^2}

    on checked numbers or arrays (no validation): ``n = inf`` drops the test-set term, which
    leaves the calibration term alone. The one formula behind :func:`rogan_gladen_variance`
    and the two-model comparison's delta method.
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return (
            p * (1.0 - p) / n
            + (1.0 - theta) ** 2 * q0 * (1.0 - q0) / m0
            + theta**2 * q1 * (1.0 - q1) / m1
        ) / (q0 + q1 - 1.0) ** 2


def rogan_gladen_box(
    p: tuple[Any, Any], q0: tuple[Any, Any], q1: tuple[Any, Any]
) -> tuple[np.ndarray, np.ndarray]:
    r"""The range of the Rogan-Gladen map over the box ``p x q0 x q1`` (each a (low, high)).

    The extremes of :math:`g(p, q_0, q_1) = (p + q_0 - 1)/(q_0 + q_1 - 1)` over the eight
    vertices, clipped to [0, 1] (g is monotone in each argument where the box's lowest judge is
    better than chance, :math:`q_{0-} + q_{1-} - 1 > 0`); [0, 1] where it is not. Broadcasts
    over arrays. Used for the plausible accuracies of the stratified rule and the sequential
    stratified interval.
    """
    ends = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (*p, *q0, *q1)))
    p_ends, q0_ends, q1_ends = ends[0:2], ends[2:4], ends[4:6]
    values = []
    for pv in p_ends:
        for a in q0_ends:
            for b in q1_ends:
                with np.errstate(divide="ignore", invalid="ignore"):
                    values.append((pv + a - 1.0) / (a + b - 1.0))
    stacked = np.stack(values)
    defined = q0_ends[0] + q1_ends[0] - 1.0 > 0.0
    low = np.where(defined, np.clip(stacked.min(axis=0), 0.0, 1.0), 0.0)
    high = np.where(defined, np.clip(stacked.max(axis=0), 0.0, 1.0), 1.0)
    return low, high


def rogan_gladen(p: ArrayLike, q0: ArrayLike, q1: ArrayLike, *, clip: bool = True) -> Any:
    r"""Rogan-Gladen bias-corrected accuracy (Lee et al. v1 eq. 4; Lee et al. (ICML 2026) eq. 5).

    .. math:: \hat\theta = \frac{\hat p + \hat q_0 - 1}{\hat q_0 + \hat q_1 - 1}

    Parameters
    ----------
    p : float or array_like
        Proportion of test items the judge called "correct", in [0, 1].
    q0, q1 : float or array_like
        Judge specificity and sensitivity, in [0, 1].
    clip : bool, default True
        Truncate the estimate to [0, 1] (as the paper's code does).

    Returns
    -------
    float or ndarray or xarray.DataArray
        The estimate, broadcast over the inputs.

    Raises
    ------
    TypeError
        If ``clip`` is not True or False.
    ValueError
        For proportions outside [0, 1] or not finite; for scalar inputs, when the judge is no better
        than chance (q0 + q1 - 1 <= 0). Array inputs give NaN for such elements instead and one
        :class:`~judgestats.JudgeStatsWarning` that counts them.
    """
    clip = check_flag(clip, "clip")
    if any(is_xarray(a) for a in (p, q0, q1)):
        return _apply_xarray(rogan_gladen, (p, q0, q1), {"clip": clip}, 1)
    p_a = check_proportions(p, "p")
    q0_a = check_proportions(q0, "q0")
    q1_a = check_proportions(q1, "q1")
    check_broadcast(p=p_a, q0=q0_a, q1=q1_a)
    if p_a.ndim == q0_a.ndim == q1_a.ndim == 0:
        pf, q0f, q1f = float(p_a), float(q0_a), float(q1_a)
        youden = q0f + q1f - 1.0
        if youden <= 0.0:
            raise ValueError(no_correction_message(q0f, q1f, smoothed=False))
        theta_f = (pf + q0f - 1.0) / youden
        return min(1.0, max(0.0, theta_f)) if clip else theta_f
    theta, youden = rogan_gladen_raw(p_a, q0_a, q1_a)
    theta = np.array(theta, dtype=np.float64)  # broadcast result, owned
    invalid = np.broadcast_to(youden <= 0.0, theta.shape)
    if invalid.any():
        theta[invalid] = np.nan
        _warn_no_correction(int(invalid.sum()), theta.size, smoothed=False)
    if clip:
        np.clip(theta, 0.0, 1.0, out=theta)
    return theta


def rogan_gladen_variance(
    p: ArrayLike, q0: ArrayLike, q1: ArrayLike, n: ArrayLike, m0: ArrayLike, m1: ArrayLike
) -> Any:
    r"""Delta-method variance of Rogan-Gladen (Lee et al. v1 App. A.1; ICML 2026 version eq. 10).

    .. math::
        \mathrm{Var}(\hat\theta) = \frac{\hat p(1-\hat p)/n
        + (1-\hat\theta)^2 \hat q_0(1-\hat q_0)/m_0
        + \hat\theta^2 \hat q_1(1-\hat q_1)/m_1}{(\hat q_0 + \hat q_1 - 1)^2}

    with the unclipped :math:`\hat\theta`. ``n`` may be ``numpy.inf`` (no test-set variance).
    Validation and the "no better than chance" policy are those of :func:`rogan_gladen`.
    """
    if any(is_xarray(a) for a in (p, q0, q1, n, m0, m1)):
        return _apply_xarray(rogan_gladen_variance, (p, q0, q1, n, m0, m1), {}, 1)
    p_a, q0_a, q1_a, n_a, m0_a, m1_a = check_interval_inputs(p, q0, q1, n, m0, m1)
    theta = rogan_gladen(p_a, q0_a, q1_a, clip=False)  # raises / NaN-warns for J <= 0
    variance = delta_variance(p_a, q0_a, q1_a, theta, n_a, m0_a, m1_a)
    return float(variance) if np.ndim(variance) == 0 else variance


# ---------------------------------------------------------------------------------------------
# Lang-Reiczigel interval, eqs. (5)-(7)
# ---------------------------------------------------------------------------------------------
def check_interval_inputs(
    p: ArrayLike, q0: ArrayLike, q1: ArrayLike, n: ArrayLike, m0: ArrayLike, m1: ArrayLike
) -> tuple[np.ndarray, ...]:
    """Validate the six inputs of eqs. (5)-(7); return them as arrays in the order given.

    Proportions in [0, 1]; ``n`` >= 1 (``inf`` allowed); ``m0``, ``m1`` >= 1; shapes that
    broadcast together (else a ValueError naming two arguments that do not).
    """
    values = (
        check_proportions(p, "p"),
        check_proportions(q0, "q0"),
        check_proportions(q1, "q1"),
        check_counts(n, "n", minimum=1, allow_inf=True),
        check_counts(m0, "m0", minimum=1),
        check_counts(m1, "m1", minimum=1),
    )
    check_broadcast(**dict(zip(("p", "q0", "q1", "n", "m0", "m1"), values, strict=True)))
    return values


def _smoothed_p(p: Number, n: Number, z2: Number) -> Number:
    """p~ = (n p + z^2/2) / (n + z^2) of eq. (6); p~ = p in the limit n -> inf."""
    if isinstance(n, float):
        return p if math.isinf(n) else (n * p + z2 / 2) / (n + z2)
    p_tilde = (n * p + z2 / 2) / (n + z2)
    infinite = np.isinf(n)
    if infinite.any():
        p_tilde = np.where(infinite, p, p_tilde)
    return p_tilde


def lang_reiczigel_formula(
    p: Number,
    q0: Number,
    q1: Number,
    n: Number,
    m0: Number,
    m1: Number,
    z: Number,
    sqrt: Callable[[Any], Any],
) -> tuple[Number, Number, Number]:
    """Eqs. (5)-(7) before truncation: returns (lower, upper, q0~ + q1~ - 1).

    Written once for Python floats (``sqrt=math.sqrt``) and numpy blocks (``sqrt=np.sqrt``), in
    the order of operations of the paper's reference code, so both agree with it to the last bit.
    """
    centre, se, youden_t = lang_reiczigel_parts(p, q0, q1, n, m0, m1, z, sqrt)
    return centre - z * se, centre + z * se, youden_t


def lang_reiczigel_parts(
    p: Number,
    q0: Number,
    q1: Number,
    n: Number,
    m0: Number,
    m1: Number,
    z: Number,
    sqrt: Callable[[Any], Any],
) -> tuple[Number, Number, Number]:
    """Eqs. (5)-(7)'s pieces: returns (centre theta~ + d-theta~, se~, q0~ + q1~ - 1).

    The interval of :func:`lang_reiczigel_formula` is ``centre -/+ z se~``; the stratified
    estimator (:mod:`judgestats.stratified`) sums the centres and variances over strata.
    """
    z2 = z**2
    p_t = _smoothed_p(p, n, z2)
    q0_t = (m0 * q0 + 1) / (m0 + 2)
    q1_t = (m1 * q1 + 1) / (m1 + 2)
    n_t, m0_t, m1_t = n + z2, m0 + 2, m1 + 2
    youden_t = q0_t + q1_t - 1
    theta_t = (p_t + q0_t - 1) / youden_t
    d_theta = (
        2 * z2 * (-(1 - theta_t) * q0_t * (1 - q0_t) / m0_t + theta_t * q1_t * (1 - q1_t) / m1_t)
    )
    se = (
        sqrt(
            p_t * (1 - p_t) / n_t
            + (1 - theta_t) ** 2 * q0_t * (1 - q0_t) / m0_t
            + theta_t**2 * q1_t * (1 - q1_t) / m1_t
        )
        / youden_t
    )
    centre = theta_t + d_theta
    return centre, se, youden_t


def _flat_operand(array: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | float:
    """A size-1 input becomes a float; others a flat float64 array of the broadcast shape."""
    if array.size == 1:
        return float(array.reshape(()))
    return np.broadcast_to(array, shape).astype(np.float64, copy=False).reshape(-1)


def _lang_reiczigel_scalar(values: tuple[np.ndarray, ...], z: float) -> ConfidenceInterval:
    p, q0, q1, n, m0, m1 = (float(v) for v in values)
    q0_t, q1_t = (m0 * q0 + 1) / (m0 + 2), (m1 * q1 + 1) / (m1 + 2)
    if q0_t + q1_t - 1 <= 0:  # checked first: the formula divides by it
        raise ValueError(no_correction_message(q0_t, q1_t, smoothed=True))
    low, high, _ = lang_reiczigel_formula(p, q0, q1, n, m0, m1, z, math.sqrt)
    return ConfidenceInterval(min(1.0, max(0.0, low)), min(1.0, max(0.0, high)))


def _lang_reiczigel_array(values: tuple[np.ndarray, ...], z: float) -> ConfidenceInterval:
    shape = np.broadcast_shapes(*(v.shape for v in values))
    flat = [_flat_operand(v, shape) for v in values]
    size = math.prod(shape)
    low = np.empty(size)
    high = np.empty(size)
    n_invalid = 0
    with np.errstate(divide="ignore", invalid="ignore"):
        for start in range(0, size, _BLOCK):
            block = slice(start, start + _BLOCK)
            p, q0, q1, n, m0, m1 = (v[block] if isinstance(v, np.ndarray) else v for v in flat)
            lo, hi, youden_t = lang_reiczigel_formula(p, q0, q1, n, m0, m1, z, np.sqrt)
            np.clip(lo, 0.0, 1.0, out=low[block])
            np.clip(hi, 0.0, 1.0, out=high[block])
            invalid = np.asarray(youden_t <= 0)
            if invalid.any():
                invalid = np.broadcast_to(invalid, low[block].shape)
                low[block][invalid] = np.nan
                high[block][invalid] = np.nan
                n_invalid += int(invalid.sum())
    if n_invalid:
        _warn_no_correction(n_invalid, size, smoothed=True)
    return ConfidenceInterval(low.reshape(shape), high.reshape(shape))


def lang_reiczigel_at_z(values: tuple[np.ndarray, ...], z: float) -> ConfidenceInterval:
    """Eqs. (5)-(7) at a given normal quantile ``z``, truncated to [0, 1].

    ``values`` are the six inputs as returned by :func:`check_interval_inputs`.
    The engine behind :func:`lang_reiczigel_ci` (which computes ``z`` from a level), for callers
    that fix ``z`` themselves (the paper's ``alpha``, Bonferroni-adjusted levels). Scalars raise
    ValueError when the adjusted judge is no better than chance; arrays give NaN there and warn.
    """
    if all(v.ndim == 0 for v in values):
        return _lang_reiczigel_scalar(values, z)
    return _lang_reiczigel_array(values, z)


def lang_reiczigel_ci(
    p: ArrayLike,
    q0: ArrayLike,
    q1: ArrayLike,
    n: ArrayLike,
    m0: ArrayLike,
    m1: ArrayLike,
    *,
    confidence_level: float = 0.95,
) -> ConfidenceInterval:
    r"""Lang-Reiczigel confidence interval for the true accuracy (Lee et al. v1 eqs. 5-7).

    .. math::
        \tilde\theta + d\tilde\theta \pm z_\alpha \frac{\sqrt{\tilde p(1-\tilde p)/\tilde n
        + (1-\tilde\theta)^2 \tilde q_0(1-\tilde q_0)/\tilde m_0
        + \tilde\theta^2 \tilde q_1(1-\tilde q_1)/\tilde m_1}}{\tilde q_0 + \tilde q_1 - 1}

    with the Laplace-adjusted quantities of eq. (6) (:math:`\tilde n = n + z^2`,
    :math:`\tilde p = (n\hat p + z^2/2)/\tilde n`, :math:`\tilde m_j = m_j + 2`,
    :math:`\tilde q_j = (m_j \hat q_j + 1)/\tilde m_j`), the smoothed estimate
    :math:`\tilde\theta` and the centre shift :math:`d\tilde\theta = 2z^2(-(1-\tilde\theta)
    \tilde q_0(1-\tilde q_0)/\tilde m_0 + \tilde\theta \tilde q_1(1-\tilde q_1)/\tilde m_1)` of
    eq. (7); both ends are truncated to [0, 1].

    Parameters
    ----------
    p, q0, q1 : float or array_like
        Judged-correct rate on the test set, judge specificity and sensitivity, in [0, 1].
    n : int or array_like
        Test-set size, at least 1; ``numpy.inf`` gives the paper's n -> infinity limit
        (p~ = p and no test-set variance).
    m0, m1 : int or array_like
        Calibration items that are truly incorrect / truly correct, at least 1 each.
    confidence_level : float, default 0.95
        Strictly between 0 and 1; z is its two-sided normal quantile.

    Returns
    -------
    ConfidenceInterval
        ``(low, high)``: floats for scalar inputs, arrays of the broadcast shape otherwise,
        DataArrays (dims and coords kept) for xarray inputs.

    Raises
    ------
    TypeError
        For non-numeric inputs.
    ValueError
        For proportions outside [0, 1], counts that are negative, zero or not whole, a level outside
        (0, 1); for scalar inputs, when the adjusted judge is no better than chance
        (q0~ + q1~ - 1 <= 0). Array inputs give NaN for such elements and one
        :class:`~judgestats.JudgeStatsWarning` that counts them.

    Notes
    -----
    Lee et al. (ICML 2026) eq. (6) centres the interval at theta-hat + d-theta~ instead of
    theta~ + d-theta~; we follow Lee et al. v1 eq. (5) and both versions' reference code
    (theta~ + d-theta~).

    Examples
    --------
    >>> low, high = lang_reiczigel_ci(0.4, 0.7, 0.9, 1000, 200, 200)
    >>> round(low, 4), round(high, 4)
    (0.0564, 0.2627)
    """
    arguments = (p, q0, q1, n, m0, m1)
    if any(is_xarray(a) for a in arguments):
        return _apply_xarray(
            lang_reiczigel_ci, arguments, {"confidence_level": confidence_level}, 2
        )
    z = z_quantile(confidence_level)
    return lang_reiczigel_at_z(check_interval_inputs(*arguments), z)


# ---------------------------------------------------------------------------------------------
# the naive interval the papers compare against
# ---------------------------------------------------------------------------------------------
def naive_wald_ci(
    p: ArrayLike, n: ArrayLike, *, confidence_level: float = 0.95
) -> ConfidenceInterval:
    r"""Wald interval for the judged-correct rate, ignoring the judge's errors.

    .. math:: \hat p \pm z_\alpha \sqrt{\hat p (1 - \hat p) / n}

    truncated to [0, 1]. This is the uncorrected interval of Lee et al. v1 Fig. 4, reported to show
    how badly it covers the true accuracy theta when the judge errs. ``n`` may be ``numpy.inf``
    (zero width).
    """
    if is_xarray(p) or is_xarray(n):
        return _apply_xarray(naive_wald_ci, (p, n), {"confidence_level": confidence_level}, 2)
    z = z_quantile(confidence_level)
    p_a = check_proportions(p, "p")
    n_a = check_counts(n, "n", minimum=1, allow_inf=True)
    half = z * np.sqrt(p_a * (1.0 - p_a) / n_a)
    low = np.clip(p_a - half, 0.0, 1.0)
    high = np.clip(p_a + half, 0.0, 1.0)
    if low.ndim == 0:
        return ConfidenceInterval(float(low), float(high))
    return ConfidenceInterval(low, high)
