r"""Calibration planning: how many items to label, and how to split them between the two kinds.

A calibration set has ``m0`` truly-incorrect items (they measure the specificity q0) and ``m1``
truly-correct items (they measure the sensitivity q1). For a planned test set (judged-correct rate
``p``, size ``n``) and a guess of the judge's q0 and q1, this module answers

* how to split a budget ``m = m0 + m1``: :func:`allocate_calibration` (Algorithm 1 of Lee et al.,
  arXiv 2511.21140 v1 ("Lee et al. v1"), the paper's approximate rule) and
  :func:`optimal_allocation` (the exact optimum);
* how large a budget must be for an interval of a given width: :func:`required_calibration`;
* how wide the interval will be for a given split: :func:`expected_width`.

What "expected width" means (``method``)
----------------------------------------
``"frequentist"`` (default)
    The expectation of the width of the Lang-Reiczigel interval (Lee et al. v1 eqs. 5-7, truncated
    to [0, 1] as reported) over the sampling distribution of the data the plan will produce:
    ``k0 ~ Bin(m0, q0)``, ``k1 ~ Bin(m1, q1)`` and, for a finite ``n``, ``k ~ Bin(n, p)``.
    It is computed by enumerating the binomial supports (outcomes with probability below 1e-12
    are dropped). A support with more than 48 values (16 for the test count) is summarised by
    48 (16) runs of consecutive counts with equal probability, each represented by its
    conditional mean count: a quadrature whose relative error, measured against full enumeration
    in the tests, stays below about 5e-4 (exact when the supports are short).
    An outcome whose adjusted judge is no better than chance has no interval; it counts as
    width 1 (nothing is learnt about theta).
``"plugin"``
    The width at the planning values, as if the data came out exactly at p, q0, q1: the curves
    of Lee et al. v1 Fig. 3. Cheap, but it understates the expected width where truncation at 0 or
    1 matters (theta near the boundary).
``"bayes"``
    The expectation, over the same sampling distribution, of the width of the posterior credible
    interval of theta (:func:`judgestats.bayes.exact.exact_interval`; analysis prior ``prior``,
    default uniform with a judge better than chance). Each count is summarised by 6 (test: 4)
    equal-probability groups represented by their rounded conditional means, so one width costs
    at most 144 posterior evaluations that share 36 calibration quadratures. Needs a finite ``n``.

The data-generating values are the planning values themselves (a point-mass design prior at
p, q0, q1): a plan is as good as those guesses.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from judgestats._progress import progress_bar
from judgestats._validate import (
    check_choice,
    check_flag,
    check_level,
)
from judgestats.exceptions import JudgeStatsWarning
from judgestats.frequentist import SMALL_CALIBRATION
from judgestats.planning._inputs import (
    check_labels,
    check_n,
    check_planning_values,
    check_width,
)
from judgestats.planning._width import (
    WIDTH_METHODS,
    PlanningSetting,
    WidthModel,
    width_floor,
    width_model,
)
from judgestats.planning.algorithm1 import algorithm1_split, check_pilot_size, smoothed_pilot
from judgestats.planning.plan import CalibrationPlan

if TYPE_CHECKING:  # pragma: no cover
    from judgestats.bayes.priors import Prior

__all__ = [
    "allocate_calibration",
    "expected_width",
    "optimal_allocation",
    "required_calibration",
]

_RULES = ("optimal", "equal", "algorithm1")


#: Splits searched exhaustively; above this the split search refines a grid.
_EXHAUSTIVE_SPLITS = 128


#: Largest total the budget search tries before declaring a width unreachable.
_MAX_TOTAL = 2**26


def _checked_setting(
    p: float, q0: float, q1: float, n: float, confidence_level: float
) -> PlanningSetting:
    """The planning values, test-set size and level, each checked, as a :class:`PlanningSetting`.

    The judge must be better than chance (q0 + q1 > 1) and ``p`` in its range.
    """
    return PlanningSetting(
        *check_planning_values(p, q0, q1), check_n(n), check_level(confidence_level)
    )


def allocate_calibration(
    m: int,
    p: float,
    *,
    q0_pilot: float,
    q1_pilot: float,
    m_pilot: int,
    n: float = math.inf,
    confidence_level: float = 0.95,
) -> CalibrationPlan:
    r"""Split a calibration budget by Algorithm 1 of Lee et al. v1 (ICML 2026 version: App. A).

    1. A pilot of ``m_pilot`` items of each kind gives the smoothed accuracies
       :math:`\tilde q_j = (m_\text{pilot} \hat q_{j,\text{pilot}} + 1)/(m_\text{pilot} + 2)`.
    2. Error ratio :math:`\hat\kappa = (1 - \tilde q_0)/(1 - \tilde q_1)`.
    3. Prop. 2 (Lee et al. (ICML 2026) Prop. 5.2):
       :math:`m_1^* = \mathrm{round}(m / (1 + (1/\hat p - 1) \sqrt{\hat\kappa}))`.
    4. Pilot floor: :math:`m_1 = \min(\max(m_1^*, f), m - f)` and :math:`m_0 = m - m_1`.

    Decisions on the paper's text:

    * Step 7 of Lee et al. v1 assigns m1 twice; we read it as ``m0 = m - m1`` (as Lee et al.
      (ICML 2026) does).
    * p-hat near 0: the step-3 formula divides by p-hat. Its limit, m1* -> 0 (the whole budget to
      m0, where the variance is), is used: the formula is evaluated as
      m p s1 / (p s1 + (1 - p) s0), s_j = sqrt(1 - q~_j), which never divides by p-hat.
    * ``m_pilot = 0`` means no pilot information: step 1 then gives q0~ = q1~ = 1/2, kappa = 1,
      and the split is m1* = round(m p-hat) whatever ``q0_pilot`` and ``q1_pilot`` say (they are
      still used for the predicted width). Flagged ``no_pilot``.
    * ``2 * m_pilot > m`` is infeasible (the pilot is part of the budget): ValueError.
    * q-pilot = 1 cannot divide by zero: the smoothing keeps q~ < 1 (and kappa finite).
    * The floor is ``f = max(m_pilot, 1)``: each arm needs at least one item for its accuracy to
      be estimated at all (the paper's floor is m_pilot, which is 0 without a pilot).
    * Ties in step 3 (m1* exactly half-way) round half up, towards the larger m1.

    Parameters
    ----------
    m : int
        Total calibration budget m0 + m1 (pilot included), at least 2.
    p : float
        Judged-correct rate p-hat of the test set, in [0, 1].
    q0_pilot, q1_pilot : float
        Specificity and sensitivity observed in the pilot, in [0, 1]; also the planning values
        for the predicted width. Their sum must exceed 1 (a judge better than chance).
    m_pilot : int
        Pilot items of each kind, ``0 <= 2 * m_pilot <= m``.
    n : int, default inf
        Test-set size, used only for the predicted width.
    confidence_level : float, default 0.95
        Level of the interval whose width is predicted.

    Returns
    -------
    CalibrationPlan
        ``rule="algorithm1"``; unpacks as ``m0, m1``; ``width`` is the frequentist expected
        width at (p, q0_pilot, q1_pilot); ``kappa`` and ``m1_star`` record steps 2-3.

    Examples
    --------
    >>> m0, m1 = allocate_calibration(200, 0.3, q0_pilot=0.7, q1_pilot=0.9, m_pilot=10)
    >>> m0, m1
    (153, 47)
    """
    total = check_labels(m, "m", 2)
    # pilot estimates may place p outside [1 - q0, q1]: Algorithm 1 then clips (flagged)
    p_f, q0_f, q1_f = check_planning_values(p, q0_pilot, q1_pilot, judge_range=False)
    pilot = check_pilot_size(m_pilot, total)
    setting = PlanningSetting(p_f, q0_f, q1_f, check_n(n), check_level(confidence_level))
    m0, m1, kappa, m1_star = _algorithm1_for_plan(setting, total, pilot)
    plan = _make_plan(
        setting,
        m0,
        m1,
        "algorithm1",
        "frequentist",
        kappa=kappa,
        m1_star=m1_star,
        m_pilot=pilot,
        extra_flags=("no_pilot",) * (pilot == 0),
    )
    _warn(plan)
    return plan


def expected_width(
    m0: int,
    m1: int,
    p: float,
    q0: float,
    q1: float,
    *,
    n: float = math.inf,
    confidence_level: float = 0.95,
    method: str = "frequentist",
    kind: str = "eti",
    prior: Prior | None = None,
) -> float:
    r"""Expected width of the interval for theta that a calibration split ``(m0, m1)`` gives.

    The inverse of :func:`required_calibration`. See the module docstring for what each
    ``method`` computes: the expectation of the Lang-Reiczigel width (Lee et al. v1 eqs. 5-7) over
    the binomial sampling distribution of the counts (``"frequentist"``), the width at the
    planning values (``"plugin"``, Lee et al. v1 Fig. 3), or the expected posterior credible width
    (``"bayes"``).

    Parameters
    ----------
    m0, m1 : int
        Truly-incorrect / truly-correct calibration items, at least 1 and at most 2**53 each
        (the planning limit of :func:`optimal_allocation`'s ``m``); with ``method="bayes"``
        at most 2**44, the exact posterior's limit
        (:data:`judgestats.bayes.exact_vectorised.MAX_ARM`).
    p, q0, q1 : float
        Planning values: judged-correct rate of the test set, specificity and sensitivity;
        q0 + q1 > 1.
    n : int, default inf
        Test-set size; must be finite for ``method="bayes"``.
    confidence_level : float, default 0.95
        Level of the interval (credibility level for ``"bayes"``).
    method : {"frequentist", "plugin", "bayes"}
    kind : {"eti", "hdi"}
        Credible interval kind for ``"bayes"``.
    prior : Prior, optional
        Analysis prior for ``"bayes"`` (default uniform, judge better than chance).

    Returns
    -------
    float

    Examples
    --------
    >>> round(expected_width(200, 200, 0.4, 0.7, 0.9, n=1000, method="plugin"), 4)
    0.2064
    """
    arm0, arm1 = check_labels(m0, "m0", 1), check_labels(m1, "m1", 1)
    method = check_choice(method, "method", WIDTH_METHODS)
    if method == "bayes":
        from judgestats.bayes.exact_vectorised import check_arms

        check_arms(arm0, arm1, "plan with method='plugin' or 'frequentist' at such sizes")
    setting = _checked_setting(p, q0, q1, n, confidence_level)
    return float(width_model(setting, method, prior, kind)(arm0, arm1))


def _equal_split(total: int) -> tuple[int, int]:
    """m0 = m1 = m / 2; an odd budget gives the extra item to m0."""
    return total - total // 2, total // 2


def _best_split(total: int, model: Callable[..., np.ndarray]) -> tuple[int, float]:
    """Split minimising ``model`` over m0 = 1 .. total - 1; ties go to the split nearest m / 2.

    Exhaustive up to 128 splits; beyond, a grid of 33 splits is refined around its minimum until
    128 or fewer remain, which are then searched exhaustively (the width is unimodal in m0).
    """
    low, high = 1, total - 1
    while high - low + 1 > _EXHAUSTIVE_SPLITS:
        grid = np.unique(np.linspace(low, high, 33).round().astype(int))
        best = int(np.argmin(model(grid, total - grid)))
        low, high = int(grid[max(best - 1, 0)]), int(grid[min(best + 1, grid.size - 1)])
    m0 = np.arange(low, high + 1)
    widths = model(m0, total - m0)
    ties = np.flatnonzero(widths <= widths.min())
    best = int(ties[np.argmin(np.abs(2 * m0[ties] - total))])
    return int(m0[best]), float(widths[best])


def _rule_split(
    rule: str,
    total: int,
    setting: PlanningSetting,
    model: Callable[..., np.ndarray],
    m_pilot: int | None,
) -> tuple[int, int]:
    if rule == "equal":
        return _equal_split(total)
    if rule == "algorithm1":
        m0, m1, _, _ = _algorithm1_for_plan(setting, total, m_pilot)
        return m0, m1
    m0, _ = _best_split(total, model)
    return m0, total - m0


def _make_plan(
    setting: PlanningSetting,
    m0: int,
    m1: int,
    rule: str,
    method: str,
    *,
    width: float | None = None,
    extra_flags: tuple[str, ...] = (),
    **fields: Any,
) -> CalibrationPlan:
    if width is None:
        width = float(width_model(setting, method)(m0, m1))
    plugin = float(WidthModel(setting, "plugin")(m0, m1))
    flags = extra_flags + (("small_arm",) if min(m0, m1) < SMALL_CALIBRATION else ())
    return CalibrationPlan(
        m0=int(m0),
        m1=int(m1),
        width=width,
        plugin_width=plugin,
        rule=rule,
        method=method,
        p=setting.p,
        q0=setting.q0,
        q1=setting.q1,
        n=setting.n,
        confidence_level=setting.level,
        flags=flags,
        **fields,
    )


def _algorithm1_for_plan(
    setting: PlanningSetting, total: int, m_pilot: int | None
) -> tuple[int, int, float, int]:
    """Algorithm 1 with the planning q0, q1 as pilot proportions (``None``: a perfect pilot).

    :func:`~judgestats.planning.algorithm1.algorithm1_split` on one budget, as Python numbers.
    """
    q0_t, q1_t = (
        (setting.q0, setting.q1)
        if m_pilot is None
        else (
            float(smoothed_pilot(setting.q0 * m_pilot, m_pilot)),
            float(smoothed_pilot(setting.q1 * m_pilot, m_pilot)),
        )
    )
    m0, m1, kappa, m1_star = algorithm1_split(total, setting.p, q0_t, q1_t, max(m_pilot or 0, 1))
    return int(m0), int(m1), float(kappa), int(m1_star)


def _algorithm1_fields(setting: PlanningSetting, total: int, m_pilot: int | None) -> dict[str, Any]:
    _, _, kappa, m1_star = _algorithm1_for_plan(setting, total, m_pilot)
    return {"kappa": kappa, "m1_star": m1_star, "m_pilot": m_pilot}


def _warn(plan: CalibrationPlan) -> None:
    if plan.flags:
        warnings.warn("; ".join(plan.flag_messages) + ".", JudgeStatsWarning, stacklevel=3)


def optimal_allocation(
    m: int,
    p: float,
    q0: float,
    q1: float,
    *,
    n: float = math.inf,
    confidence_level: float = 0.95,
    method: str = "frequentist",
    m_pilot: int | None = None,
) -> CalibrationPlan:
    r"""The split of a budget ``m`` that minimises the expected Lang-Reiczigel width.

    Minimises, over the integer splits m0 + m1 = m with m0, m1 >= 1, the expected width of the
    interval of Lee et al. v1 eq. (5) (``method="frequentist"``, see the module docstring) or its
    width at the planning values (``method="plugin"``, the criterion of Prop. 2 without the
    q -> 1 approximation). The search is exhaustive for m <= 129 and beyond that a bracketed
    search (a grid of 33 splits refined around its minimum, then exhaustive over the last 128; the
    width is unimodal in m0). Ties go to the split nearest m / 2.

    The result's ``alternatives`` hold the equal split and Algorithm 1's split at the same
    budget, and ``savings`` says how much shorter the optimum is than each. Algorithm 1 uses the
    planning q0, q1 as its pilot proportions, smoothed with ``m_pilot`` pilot items per arm
    (``None``: used as they are, i.e. kappa = (1 - q0) / (1 - q1) exactly, a perfect pilot).

    Parameters
    ----------
    m : int
        Calibration budget, at least 2.
    p, q0, q1 : float
        Planning values (judged-correct rate, specificity, sensitivity); q0 + q1 > 1.
    n : int, default inf
        Test-set size.
    confidence_level : float, default 0.95
    method : {"frequentist", "plugin"}
    m_pilot : int, optional
        Pilot size per arm for the Algorithm 1 comparison.

    Returns
    -------
    CalibrationPlan
        ``rule="optimal"``; unpacks as ``m0, m1``.

    Examples
    --------
    >>> plan = optimal_allocation(400, 0.3, 0.7, 0.9, method="plugin")
    >>> plan.m0, plan.m1, plan.width < plan.alternative("equal").width
    (368, 32, True)
    """
    total = check_labels(m, "m", 2)
    method = check_choice(method, "method", ("frequentist", "plugin"))
    setting = _checked_setting(p, q0, q1, n, confidence_level)
    pilot = None if m_pilot is None else check_pilot_size(m_pilot, total)
    model = width_model(setting, method)
    m0, width = _best_split(total, model)
    alternatives = tuple(
        _make_plan(
            setting,
            *_rule_split(rule, total, setting, model, pilot),
            rule,
            method,
            **(_algorithm1_fields(setting, total, pilot) if rule == "algorithm1" else {}),
        )
        for rule in ("equal", "algorithm1")
    )
    plan = _make_plan(
        setting, m0, total - m0, "optimal", method, width=width, alternatives=alternatives
    )
    _warn(plan)
    return plan


def _search_total(
    target: float, evaluate: Callable[[int], float], start: int, unreachable: str, bar: Any = None
) -> tuple[int, tuple[tuple[int, float], ...]]:
    """Smallest total in [start, 2**26] with evaluate(total) <= target (doubling, then bisection).

    Returns the total and the (total, width) pairs tried. ``bar`` (a
    :func:`judgestats._progress.progress_bar`), if given, advances once per budget tried.
    """
    trace: dict[int, float] = {}

    def passes(total: int) -> bool:
        trace[total] = evaluate(total)
        if bar is not None:
            bar.update()
        return trace[total] <= target

    if passes(start):
        return start, tuple(trace.items())
    low, high = start, 2 * start
    while not passes(high):
        if high >= _MAX_TOTAL:
            raise ValueError(unreachable)
        low, high = high, min(2 * high, _MAX_TOTAL)
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if passes(middle) else (middle, high)
    return high, tuple(sorted(trace.items()))


def _is_monotone(trace: tuple[tuple[int, float], ...]) -> bool:
    widths = np.array([width for _, width in trace])
    return bool(np.all(np.diff(widths) <= 1e-12 * np.maximum(widths[:-1], 1e-300)))


def _check_reachable(target: float, setting: PlanningSetting) -> None:
    """Raise if the test set alone leaves an expected width of ``target`` or more."""
    floor = width_floor(setting)
    if target <= floor:
        raise ValueError(
            f"`width` ({target:g}) is unreachable with `n` = {int(setting.n)}: even unlimited "
            f"calibration leaves an expected width of {floor:.4g} from the test set alone. Ask "
            "for a wider interval or plan a larger test set."
        )


def required_calibration(
    width: float,
    p: float,
    q0: float,
    q1: float,
    *,
    n: float = math.inf,
    confidence_level: float = 0.95,
    allocation: str = "optimal",
    method: str = "frequentist",
    m_pilot: int | None = None,
    kind: str = "eti",
    prior: Prior | None = None,
    progress: bool | None = None,
) -> CalibrationPlan:
    r"""Smallest calibration budget whose expected interval is no wider than ``width``.

    For each total m the split is chosen by ``allocation`` ("optimal": the split minimising the
    frequentist expected width, or the plug-in width for ``method="plugin"``; "equal":
    m0 = ceil(m/2), m1 = floor(m/2); "algorithm1": Lee et al. v1 Algorithm 1 with the planning
    q0, q1 as pilot proportions, see :func:`optimal_allocation` for ``m_pilot``), and the expected
    width under ``method`` is evaluated (module docstring). The smallest passing total is found by
    doubling from the smallest feasible budget and bisecting; the widths seen along the search
    are checked to fall with m (flag ``non_monotone`` otherwise). For ``method="bayes"`` the
    split at each m is the frequentist one ("optimal": the frequentist optimum) and the posterior
    width is evaluated at it; 144 posterior intervals per budget tried.

    Parameters
    ----------
    width : float
        Target expected interval width, in (0, 1].
    p, q0, q1 : float
        Planning values; q0 + q1 > 1.
    n : int, default inf
        Test-set size. A finite test set leaves a width that no calibration removes; a target
        below it raises ValueError.
    confidence_level : float, default 0.95
    allocation : {"optimal", "equal", "algorithm1"}
    method : {"frequentist", "plugin", "bayes"}
    m_pilot : int, optional
        Pilot items per arm for ``allocation="algorithm1"`` (also its smallest arm).
    kind : {"eti", "hdi"}
        Credible-interval kind for ``method="bayes"``.
    prior : Prior, optional
        Analysis prior for ``method="bayes"``.
    progress : bool, optional
        ``method="bayes"`` (seconds to a minute): count the budgets tried on stderr. Default on
        when stderr is a terminal and ``CI`` is unset; the other methods take milliseconds and
        draw nothing.

    Returns
    -------
    CalibrationPlan
        With ``target_width`` and the search ``trace``.

    Raises
    ------
    TypeError
        If ``progress`` is not True, False or None.
    ValueError
        For invalid planning values, a judge no better than chance, a width outside (0, 1], a
        finite ``n`` whose test-set noise alone exceeds ``width``, or ``method="bayes"`` with an
        unlimited ``n``.

    Examples
    --------
    >>> plan = required_calibration(0.1, 0.3, 0.7, 0.9, allocation="equal", method="plugin")
    >>> plan.m0, plan.m1
    (181, 180)
    """
    target = check_width(width)
    allocation = check_choice(allocation, "allocation", _RULES)
    method = check_choice(method, "method", WIDTH_METHODS)
    progress = check_flag(progress, "progress", allow_none=True)
    setting = _checked_setting(p, q0, q1, n, confidence_level)
    pilot = None if m_pilot is None else check_pilot_size(m_pilot, None)
    model = width_model(setting, method, prior, kind)
    split_model = model if method != "bayes" else width_model(setting, "frequentist")
    _check_reachable(target, setting)

    def evaluate(total: int) -> float:
        m0, m1 = _rule_split(allocation, total, setting, split_model, pilot)
        return float(model(m0, m1))

    start = max(2, 2 * (pilot or 0)) if allocation == "algorithm1" else 2
    unreachable = (
        f"`width` ({target:g}) was not reached with up to {_MAX_TOTAL} calibration "
        "items; ask for a wider interval."
    )
    bar = progress_bar(
        None,
        progress if method == "bayes" else False,
        desc="planning (method='bayes')",
        unit=" budgets tried",
    )
    try:
        total, trace = _search_total(target, evaluate, start, unreachable, bar)
    finally:
        bar.close()
    m0, m1 = _rule_split(allocation, total, setting, split_model, pilot)
    fields = _algorithm1_fields(setting, total, pilot) if allocation == "algorithm1" else {}
    plan = _make_plan(
        setting,
        m0,
        m1,
        allocation,
        method,
        width=dict(trace)[total],
        target_width=target,
        trace=trace,
        extra_flags=() if _is_monotone(trace) else ("non_monotone",),
        **fields,
    )
    _warn(plan)
    return plan
