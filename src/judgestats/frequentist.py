"""The closed form: Rogan-Gladen estimate, Lang-Reiczigel interval, naive Wald interval.

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
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from judgestats._validate import (
    check_choice,
    check_counts,
    check_level,
    check_proportions,
    is_xarray,
    no_correction_message,
)
from judgestats.data import JudgeData
from judgestats.exceptions import JudgeStatsWarning
from judgestats.results import (
    FLAG_MESSAGES,
    ConfidenceInterval,
    IntervalResult,
    Result,
    format_report,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from numpy.typing import ArrayLike

__all__ = [
    "Estimate",
    "estimate",
    "lang_reiczigel_ci",
    "naive_wald_ci",
    "rogan_gladen",
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
    ValueError
        For proportions outside [0, 1] or not finite; for scalar inputs, when the judge is no better
        than chance (q0 + q1 - 1 <= 0). Array inputs give NaN for such elements instead and one
        :class:`~judgestats.JudgeStatsWarning` that counts them.
    """
    if any(is_xarray(a) for a in (p, q0, q1)):
        return _apply_xarray(rogan_gladen, (p, q0, q1), {"clip": clip}, 1)
    p_a = check_proportions(p, "p")
    q0_a = check_proportions(q0, "q0")
    q1_a = check_proportions(q1, "q1")
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

    Proportions in [0, 1]; ``n`` >= 1 (``inf`` allowed); ``m0``, ``m1`` >= 1.
    """
    return (
        check_proportions(p, "p"),
        check_proportions(q0, "q0"),
        check_proportions(q1, "q1"),
        check_counts(n, "n", minimum=1, allow_inf=True),
        check_counts(m0, "m0", minimum=1),
        check_counts(m1, "m1", minimum=1),
    )


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


# ---------------------------------------------------------------------------------------------
# the fast default
# ---------------------------------------------------------------------------------------------
#: Calibration arms smaller than this get the "small_calibration" flag.
SMALL_CALIBRATION = 30


def _require_both_classes(data: JudgeData) -> None:
    """Raise if a (random-design) labelled sample misses a class: Rogan-Gladen is undefined."""
    if not data.one_class:
        return
    name, word, rate = (
        ("m0", "truly-incorrect", "specificity q0")
        if data.m0 == 0
        else ("m1", "truly-correct", "sensitivity q1")
    )
    raise ValueError(
        f"the labelled sample holds no {word} item (`{name}` = 0), so the judge's {rate} cannot "
        "be estimated and the Rogan-Gladen correction is undefined; use the posterior "
        "(judgestats.posterior), which takes that rate from its prior and, with a random design, "
        "also learns the accuracy from the labelled class count m1 of m."
    )


#: The intervals :func:`estimate` can put around the Rogan-Gladen estimate.
INTERVALS = ("lang_reiczigel", "guaranteed")


def estimate(
    data: JudgeData, *, confidence_level: float = 0.95, interval: str = "lang_reiczigel"
) -> Estimate:
    """The fast default: Rogan-Gladen estimate with the Lang-Reiczigel interval.

    Computes the naive rate p-hat with its Wald interval, the Rogan-Gladen estimate (eq. 4; raw
    and truncated to [0, 1]) and the Lang-Reiczigel interval (eqs. 5-7), or on request the
    guaranteed interval (:func:`judgestats.guaranteed_ci`), and flags what deserves attention: an
    estimate clipped to [0, 1], a zero-width interval, a calibration arm with fewer than 30 items
    (Lang-Reiczigel only: the guaranteed interval needs no approximation), p-hat outside
    [1 - q0-hat, q1-hat]. Flags are also issued as one :class:`~judgestats.JudgeStatsWarning`.

    Parameters
    ----------
    data : JudgeData
        The six counts.
    confidence_level : float, default 0.95
        Level of both intervals, strictly inside (0, 1).
    interval : {"lang_reiczigel", "guaranteed"}, default "lang_reiczigel"
        ``"lang_reiczigel"``: the closed form, microseconds, approximate (it undercovers with
        small calibration arms or a weak judge). ``"guaranteed"``: coverage at least the level
        for every accuracy and judge, by construction; 0.01-2 s.

    Returns
    -------
    Estimate

    Raises
    ------
    TypeError
        If ``data`` is not a :class:`~judgestats.JudgeData`.
    ValueError
        If ``interval`` is unknown, the level is invalid or the judge is no better than chance
        (J <= 0, or its Laplace-adjusted version <= 0), in which case no correction exists
        (with ``design="random"`` the result is instead the labelled share with Blaker's exact
        interval from the labelled items alone, flagged ``labels_only``); or
        if the labelled sample of a random design holds one true class only (``m0 = 0`` or
        ``m1 = 0``, :attr:`JudgeData.one_class`), in which case q0-hat or q1-hat is undefined.

    Examples
    --------
    >>> from judgestats import JudgeData, estimate
    >>> est = estimate(JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200))
    >>> round(est.theta, 4), tuple(round(x, 4) for x in est.ci)
    (0.1667, (0.0564, 0.2627))
    """
    if not isinstance(data, JudgeData):
        raise TypeError(
            f"`data` must be a JudgeData, got {type(data).__name__}; build one with "
            "judgestats.JudgeData(k=..., n=..., k0=..., m0=..., k1=..., m1=...)."
        )
    check_choice(interval, "interval", INTERVALS)
    _require_both_classes(data)
    level = check_level(confidence_level)
    if data.design == "random" and _no_better_than_chance(data):
        return _labels_only_estimate(data, level)
    theta_raw = rogan_gladen(data.p, data.q0, data.q1, clip=False)
    theta = min(1.0, max(0.0, theta_raw))
    ci = _corrected_interval(data, level, interval)
    flags = _flags(data, theta, theta_raw, ci, interval)
    result = Estimate(
        data=data,
        confidence_level=level,
        naive=data.p,
        naive_ci=naive_wald_ci(data.p, data.n, confidence_level=level),
        theta_raw=theta_raw,
        theta=theta,
        ci=ci,
        youden=data.youden,
        flags=tuple(flags),
        method=f"rogan_gladen+{interval}",
    )
    if flags:
        warnings.warn("; ".join(result.flag_messages) + ".", JudgeStatsWarning, stacklevel=2)
    return result


def _no_better_than_chance(data: JudgeData) -> bool:
    """J-hat <= 0, or its Laplace-adjusted version (k + 1) / (m + 2) per arm <= 0."""
    adjusted = (data.k0 + 1) / (data.m0 + 2) + (data.k1 + 1) / (data.m1 + 2) - 1.0
    return data.youden <= 0.0 or adjusted <= 0.0


def _labels_only_estimate(data: JudgeData, level: float) -> Estimate:
    """Random design, judge no better than chance: the labelled share, Blaker's exact interval."""
    from judgestats.designs.labels_only import labels_only_triple

    share, low, high = labels_only_triple(
        data.m1, data.m, data.n, method="blaker", target="population", level=level
    )
    result = Estimate(
        data=data,
        confidence_level=level,
        naive=data.p,
        naive_ci=naive_wald_ci(data.p, data.n, confidence_level=level),
        theta_raw=share,
        theta=share,
        ci=ConfidenceInterval(low, high),
        youden=data.youden,
        flags=("labels_only",),
        method="labels_only_blaker",
    )
    warnings.warn(result.flag_messages[0] + ".", JudgeStatsWarning, stacklevel=3)
    return result


def _corrected_interval(data: JudgeData, level: float, interval: str) -> ConfidenceInterval:
    """The interval around the Rogan-Gladen estimate: Lang-Reiczigel or guaranteed."""
    if interval == "guaranteed":
        from judgestats.guaranteed import guaranteed_ci

        return guaranteed_ci(
            data.k, data.n, data.k0, data.m0, data.k1, data.m1, confidence_level=level
        )
    return lang_reiczigel_ci(
        data.p, data.q0, data.q1, data.n, data.m0, data.m1, confidence_level=level
    )


def _flags(
    data: JudgeData, theta: float, theta_raw: float, ci: ConfidenceInterval, interval: str
) -> list[str]:
    """The flags of a corrected estimate (keys of :data:`judgestats.results.FLAG_MESSAGES`)."""
    flags = []
    if theta != theta_raw:
        flags.append("clipped")
    if ci.high - ci.low == 0.0:
        flags.append("zero_width")
    if min(data.m0, data.m1) < SMALL_CALIBRATION and interval == "lang_reiczigel":
        flags.append("small_calibration")
    if not 1.0 - data.q0 <= data.p <= data.q1:
        flags.append("p_outside_judge_range")
    return flags


@dataclass(frozen=True)
class Estimate(Result):
    """The fast default: naive rate, Rogan-Gladen estimate and Lang-Reiczigel interval.

    Attributes
    ----------
    data : JudgeData
        The counts the estimate was computed from.
    confidence_level : float
        Level of both intervals.
    naive : float
        p-hat = k / n, the uncorrected judged-correct rate (Lee et al., arXiv 2511.21140 v1,
        eq. 2; "Lee et al. v1" below).
    naive_ci : ConfidenceInterval
        Wald interval for p-hat (ignores the judge's errors).
    theta_raw : float
        Rogan-Gladen estimate before truncation (Lee et al. v1 eq. 4); may lie outside [0, 1].
    theta : float
        Rogan-Gladen estimate truncated to [0, 1].
    ci : ConfidenceInterval
        Lang-Reiczigel interval (Lee et al. v1 eqs. 5-7), or the guaranteed interval when
        ``method`` is ``"rogan_gladen+guaranteed"``.
    youden : float
        J = q0-hat + q1-hat - 1.
    flags : tuple of str
        Keys of :data:`FLAG_MESSAGES` that apply.
    method : str
        ``"rogan_gladen+lang_reiczigel"`` or ``"rogan_gladen+guaranteed"``.
    """

    title: ClassVar[str] = "judgestats estimate"

    data: JudgeData
    confidence_level: float
    naive: float
    naive_ci: ConfidenceInterval
    theta_raw: float
    theta: float
    ci: ConfidenceInterval
    youden: float
    flags: tuple[str, ...]
    method: str = "rogan_gladen+lang_reiczigel"

    @property
    def interval_label(self) -> str:
        """The row label of the corrected estimate: the point estimate and its interval."""
        return (
            "Rogan-Gladen + guaranteed"
            if self.method.endswith("guaranteed")
            else "Rogan-Gladen + Lang-Reiczigel"
        )

    @property
    def interval(self) -> IntervalResult:
        """The corrected estimate (:attr:`theta`) with :attr:`ci`, as an :class:`IntervalResult`."""
        return IntervalResult(self.theta, self.ci, self.confidence_level, self.method, self.flags)

    @property
    def naive_interval(self) -> IntervalResult:
        """The naive rate p-hat with its Wald interval (ignores the judge's errors)."""
        return IntervalResult(self.naive, self.naive_ci, self.confidence_level, "naive+wald")

    def confidence_interval(
        self, confidence_level: float | None = None, interval: str | None = None
    ) -> IntervalResult:
        """The corrected estimate's interval at another level or of another kind.

        Recomputes from the counts already validated (scipy's ``result.proportion_ci``
        pattern): nothing is re-read, no warning is issued; the flags of the returned interval
        say what :func:`estimate` would have flagged.

        Parameters
        ----------
        confidence_level : float, optional
            Strictly inside (0, 1); default: this estimate's level.
        interval : {"lang_reiczigel", "guaranteed"}, optional
            Default: the interval of this estimate.

        Returns
        -------
        IntervalResult
            :attr:`theta` with the requested interval.

        Examples
        --------
        >>> from judgestats import JudgeData, estimate
        >>> est = estimate(JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200))
        >>> ci90 = est.confidence_interval(confidence_level=0.9)
        >>> round(ci90.low, 4), round(ci90.high, 4)
        (0.0745, 0.2478)
        """
        level = self.confidence_level if confidence_level is None else check_level(confidence_level)
        kind = self.method.split("+")[1] if interval is None else interval
        kind = check_choice(kind, "interval", INTERVALS)
        ci = _corrected_interval(self.data, level, kind)
        flags = _flags(self.data, self.theta, self.theta_raw, ci, kind)
        return IntervalResult(self.theta, ci, level, f"rogan_gladen+{kind}", tuple(flags))

    @property
    def width(self) -> float:
        """Width of the interval around the Rogan-Gladen estimate."""
        return self.ci.high - self.ci.low

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict of every number, the inputs and the flags."""
        return {
            "method": self.method,
            "confidence_level": self.confidence_level,
            "inputs": self.data.to_dict(),
            "p": self.data.p,
            "q0": self.data.q0,
            "q1": self.data.q1,
            "youden": self.youden,
            "naive": {"estimate": self.naive, "low": self.naive_ci.low, "high": self.naive_ci.high},
            "adjusted": {
                "estimate": self.theta,
                "estimate_unclipped": self.theta_raw,
                "low": self.ci.low,
                "high": self.ci.high,
            },
            "flags": {flag: FLAG_MESSAGES[flag] for flag in self.flags},
        }

    def _rows(self) -> dict[str, tuple[float, float, float, float]]:
        """Method name -> (estimate, low, high, width)."""
        return {
            "naive (p-hat, Wald)": (
                self.naive,
                *self.naive_ci,
                self.naive_ci.high - self.naive_ci.low,
            ),
            self.interval_label: (self.theta, *self.ci, self.width),
        }

    def summary(self) -> pd.DataFrame:
        """Return a table with one row per method: estimate, low, high, width."""
        import pandas as pd

        frame = pd.DataFrame.from_dict(
            self._rows(), orient="index", columns=["estimate", "low", "high", "width"]
        )
        frame.index.name = "method"
        return frame

    def _repr_html_(self) -> str:
        """Compact HTML table for notebooks: the counts, both rows and the flags (escaped)."""
        from judgestats._html import fmt4, result_block

        d = self.data
        title = (
            f"judgestats estimate ({100 * self.confidence_level:g}% intervals): k = {d.k} of "
            f"n = {d.n}, q0 = {d.k0}/{d.m0}, q1 = {d.k1}/{d.m1}, J = {fmt4(d.youden)}"
        )
        rows = [(name, *(fmt4(v) for v in row)) for name, row in self._rows().items()]
        notes = [(flag, FLAG_MESSAGES[flag]) for flag in self.flags]
        return result_block(title, ("method", "estimate", "low", "high", "width"), rows, notes)

    def __str__(self) -> str:
        title = f"judgestats estimate ({100 * self.confidence_level:g}% intervals)"
        notes = [f"warning: {message}" for message in self.flag_messages]
        return format_report(title, self.data, self._rows(), notes)
