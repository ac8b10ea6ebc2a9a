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
    interval of theta (:func:`judgecal.bayes.exact.exact_interval`; analysis prior ``prior``,
    default uniform with a judge better than chance). Each count is summarised by 6 (test: 4)
    equal-probability groups represented by their rounded conditional means, so one width costs
    at most 144 posterior evaluations that share 36 calibration quadratures. Needs a finite ``n``.

The data-generating values are the planning values themselves (a point-mass design prior at
p, q0, q1): a plan is as good as those guesses.
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from judgecal._validate import check_choice, check_counts, check_level, check_proportions
from judgecal.exceptions import JudgeCalWarning
from judgecal.frequentist import SMALL_CALIBRATION, _no_correction_message, lang_reiczigel_ci

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

    from judgecal.bayes.priors import Prior

__all__ = [
    "PLAN_FLAGS",
    "CalibrationPlan",
    "allocate_calibration",
    "expected_width",
    "optimal_allocation",
    "required_calibration",
]

_RULES = ("optimal", "equal", "algorithm1")
_METHODS = ("frequentist", "plugin", "bayes")
#: Groups per binomial count in the expected-width quadrature: (calibration arm, test set).
_NODES = {"frequentist": (48, 16), "bayes": (6, 4)}
_PMF_FLOOR = 1e-12
#: Splits searched exhaustively; above this the split search refines a grid.
_EXHAUSTIVE_SPLITS = 128
#: Largest total the budget search tries before declaring a width unreachable.
_MAX_TOTAL = 2**26
_EVAL_BLOCK = 1_000_000

#: Plain-language explanation of every flag a :class:`CalibrationPlan` can carry.
PLAN_FLAGS = {
    "no_pilot": "m_pilot = 0: there is no pilot information, so Algorithm 1 uses kappa = 1 "
    "(q0~ = q1~ = 1/2) and the split follows p-hat alone",
    "small_arm": "a calibration arm has fewer than 30 items; the Lang-Reiczigel interval's "
    "normal approximation is rough there, compare with method='bayes'",
    "non_monotone": "the expected width was not monotone in the budget along the search; the "
    "reported budget is the smallest that met the target among those tried",
}


# ---------------------------------------------------------------------------------------------
# result
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class CalibrationPlan:
    """A calibration plan: the split ``(m0, m1)`` and the interval width it should give.

    Unpacks as ``m0, m1 = plan``.

    Attributes
    ----------
    m0, m1 : int
        Truly-incorrect and truly-correct calibration items to label.
    width : float
        Expected interval width under ``method`` (see the module docstring).
    plugin_width : float
        Lang-Reiczigel width at the planning values (Lee et al. v1 Fig. 3's curves).
    rule : {"optimal", "equal", "algorithm1"}
        How the split was chosen.
    method : {"frequentist", "plugin", "bayes"}
        What ``width`` measures.
    p, q0, q1 : float
        Planning values: judged-correct rate of the test set, specificity, sensitivity.
    n : float
        Test-set size (``inf``: unlimited).
    confidence_level : float
        Level of the interval.
    target_width : float or None
        The width asked for (:func:`required_calibration`).
    kappa, m1_star : float or None, int or None
        Algorithm 1's error ratio (step 4) and provisional m1 (step 6).
    m_pilot : int or None
        Pilot items per arm of Algorithm 1 (None: the planning q0, q1 used without smoothing).
    alternatives : tuple of CalibrationPlan
        The other rules at the same total (for :func:`optimal_allocation`).
    trace : tuple of (int, float)
        ``(total, width)`` pairs evaluated by the budget search.
    flags : tuple of str
        Keys of :data:`PLAN_FLAGS`.
    """

    m0: int
    m1: int
    width: float
    plugin_width: float
    rule: str
    method: str
    p: float
    q0: float
    q1: float
    n: float
    confidence_level: float
    target_width: float | None = None
    kappa: float | None = None
    m1_star: int | None = None
    m_pilot: int | None = None
    alternatives: tuple[CalibrationPlan, ...] = ()
    trace: tuple[tuple[int, float], ...] = field(default=(), repr=False)
    flags: tuple[str, ...] = ()

    def __iter__(self) -> Iterator[int]:
        yield self.m0
        yield self.m1

    @property
    def total(self) -> int:
        """Calibration items in all, m0 + m1."""
        return self.m0 + self.m1

    @property
    def flag_messages(self) -> list[str]:
        """The flags as plain-language sentences."""
        return [PLAN_FLAGS[flag] for flag in self.flags]

    def alternative(self, rule: str) -> CalibrationPlan:
        """The plan of another ``rule`` at the same total (from :attr:`alternatives`)."""
        for plan in self.alternatives:
            if plan.rule == rule:
                return plan
        known = [plan.rule for plan in self.alternatives]
        raise ValueError(f"`rule` ({rule!r}) is not among this plan's alternatives {known}.")

    @property
    def savings(self) -> dict[str, float]:
        """Relative width reduction against each alternative: 1 - width / alternative's width."""
        return {
            plan.rule: 1.0 - self.width / plan.width if plan.width > 0 else 0.0
            for plan in self.alternatives
        }

    def _row(self) -> dict[str, Any]:
        return {
            "rule": self.rule,
            "m0": self.m0,
            "m1": self.m1,
            "total": self.total,
            "width": self.width,
            "plugin_width": self.plugin_width,
        }

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict (an unlimited test set is ``"n": null``)."""
        out = {
            **self._row(),
            "method": self.method,
            "p": self.p,
            "q0": self.q0,
            "q1": self.q1,
            "n": None if math.isinf(self.n) else int(self.n),
            "confidence_level": self.confidence_level,
            "target_width": self.target_width,
            "kappa": self.kappa,
            "m1_star": self.m1_star,
            "m_pilot": self.m_pilot,
            "alternatives": [plan._row() for plan in self.alternatives],
            "savings": self.savings,
            "trace": {"total": [t for t, _ in self.trace], "width": [w for _, w in self.trace]},
            "flags": {flag: PLAN_FLAGS[flag] for flag in self.flags},
        }
        return out

    def summary(self) -> pd.DataFrame:
        """One row per rule (this plan first): m0, m1, total, width, plugin_width."""
        import pandas as pd

        frame = pd.DataFrame([plan._row() for plan in (self, *self.alternatives)])
        return frame.set_index("rule")

    def __str__(self) -> str:
        n = "unlimited" if math.isinf(self.n) else f"{int(self.n)}"
        lines = [
            f"judgecal calibration plan ({self.rule} split, {self.method} expected width, "
            f"{100 * self.confidence_level:g}% interval)",
            f"  planning values: p = {self.p:.4f}, q0 = {self.q0:.4f}, q1 = {self.q1:.4f}, "
            f"test set n = {n}",
        ]
        if self.target_width is not None:
            lines.append(f"  target width   : {self.target_width:.4f}")
        lines.append(f"  {'rule':<12}{'m0':>8}{'m1':>8}{'total':>8}{'width':>10}")
        for plan in (self, *self.alternatives):
            lines.append(
                f"  {plan.rule:<12}{plan.m0:>8}{plan.m1:>8}{plan.total:>8}{plan.width:10.4f}"
            )
        for rule, saving in self.savings.items():
            lines.append(f"  {self.rule} is {100 * saving:.1f}% shorter than {rule}")
        lines += [f"  warning: {message}" for message in self.flag_messages]
        return "\n".join(lines)

    def plot(self, ax: Axes | None = None) -> Axes:
        """Expected width against m0 for this total, with each rule's split marked."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots()
        method = "frequentist" if self.method == "bayes" else self.method
        setting = _Setting(self.p, self.q0, self.q1, self.n, self.confidence_level)
        model = _WidthModel(setting, method)
        m0 = np.arange(1, self.total)
        ax.plot(m0, model(m0, self.total - m0), color="0.3", label=f"{method} width")
        for plan in (self, *self.alternatives):
            ax.axvline(
                plan.m0,
                linestyle="--",
                label=f"{plan.rule}: m0 = {plan.m0}",
                color={"optimal": "C0", "equal": "C1", "algorithm1": "C2"}[plan.rule],
            )
        ax.set(
            xlabel="m0 (truly-incorrect calibration items)",
            ylabel="interval width",
            title=f"calibration budget m = {self.total}",
        )
        ax.legend()
        return ax


# ---------------------------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------------------------
def _scalar(array: np.ndarray, name: str) -> float:
    if array.ndim:
        raise TypeError(f"`{name}` must be a single number, got an array of shape {array.shape}.")
    return float(array)


def _check_total(m: Any, name: str = "m", minimum: int = 2) -> int:
    total = _scalar(check_counts(m, name, minimum=minimum), name)
    return int(total)


def _check_planning_values(p: Any, q0: Any, q1: Any) -> tuple[float, float, float]:
    p_v, q0_v, q1_v = (
        _scalar(check_proportions(v, name), name) for v, name in ((p, "p"), (q0, "q0"), (q1, "q1"))
    )
    if q0_v + q1_v - 1.0 <= 0.0:
        raise ValueError(_no_correction_message(q0_v, q1_v, smoothed=False))
    return p_v, q0_v, q1_v


def _check_pilot(m_pilot: Any, total: int | None) -> int:
    pilot = int(_scalar(check_counts(m_pilot, "m_pilot"), "m_pilot"))
    if total is not None and 2 * pilot > total:
        raise ValueError(
            f"`m_pilot` ({pilot}) is too large for `m` ({total}): the pilot labels m_pilot items "
            f"of each kind, 2 * m_pilot = {2 * pilot} > m. Use m_pilot <= {total // 2}."
        )
    return pilot


# ---------------------------------------------------------------------------------------------
# Algorithm 1 (Lee et al. v1 Sec. 3; Lee et al. (ICML 2026) App. A)
# ---------------------------------------------------------------------------------------------
def _smoothed_pilot(q_pilot: float, m_pilot: int) -> float:
    """Step 3: q~ = (k + 1) / (m_pilot + 2) with k = q_pilot * m_pilot successes."""
    return (q_pilot * m_pilot + 1.0) / (m_pilot + 2.0)


def _algorithm1_split(
    m: int, p: float, q0_t: float, q1_t: float, floor: int
) -> tuple[int, int, float, int]:
    """Steps 4-7 of Algorithm 1 on smoothed (or exact) q's: returns (m0, m1, kappa, m1_star).

    Step 6, m1* = round(m / (1 + (1/p - 1) sqrt(kappa))), is evaluated in the equivalent form
    m p s1 / (p s1 + (1 - p) s0) with s_j = sqrt(1 - q_j), which is finite for p = 0 (limit:
    m1* = 0, the whole budget to m0) and for q1 = 1 (kappa = inf: m1* = 0). Only when both terms
    vanish (p = 0 and q0 = 1, or p = 1 and q1 = 1: no calibration variance at all) is the ratio
    undefined; then kappa = 1 is used (m1* = m p). Ties round half up.
    """
    s0, s1 = math.sqrt(1.0 - q0_t), math.sqrt(1.0 - q1_t)
    kappa = (1.0 - q0_t) / (1.0 - q1_t) if q1_t < 1.0 else math.inf
    numerator, denominator = p * s1, p * s1 + (1.0 - p) * s0
    share = numerator / denominator if denominator > 0.0 else p
    m1_star = math.floor(m * share + 0.5)
    m1 = min(max(m1_star, floor), m - floor)
    return m - m1, m1, kappa, m1_star


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

    Decisions on the paper's text
    -----------------------------
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
    total = _check_total(m)
    p_f, q0_f, q1_f = _check_planning_values(p, q0_pilot, q1_pilot)
    pilot = _check_pilot(m_pilot, total)
    q0_t, q1_t = _smoothed_pilot(q0_f, pilot), _smoothed_pilot(q1_f, pilot)
    m0, m1, kappa, m1_star = _algorithm1_split(total, p_f, q0_t, q1_t, max(pilot, 1))
    setting = _Setting(p_f, q0_f, q1_f, _check_n(n), check_level(confidence_level))
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


# ---------------------------------------------------------------------------------------------
# expected width
# ---------------------------------------------------------------------------------------------
def _check_n(n: Any) -> float:
    return _scalar(check_counts(n, "n", minimum=1, allow_inf=True), "n")


@functools.lru_cache(maxsize=4096)
def _binomial_nodes(size: float, prob: float, groups: int) -> tuple[np.ndarray, np.ndarray]:
    """Counts and probabilities summarising Bin(size, prob) (see the module docstring).

    Outcomes with probability below 1e-12 are dropped and the rest renormalised; a support longer
    than ``groups`` is cut into ``groups`` runs of consecutive counts with equal probability, each
    represented by its conditional mean count.
    """
    from scipy.special import gammaln, xlog1py, xlogy

    if prob in (0.0, 1.0):
        return np.array([size * prob]), np.array([1.0])
    mean, sd = size * prob, math.sqrt(size * prob * (1.0 - prob))
    counts = np.arange(
        max(0.0, math.floor(mean - 12 * sd - 12)), min(size, math.ceil(mean + 12 * sd + 12)) + 1.0
    )
    log_pmf = (
        gammaln(size + 1)
        - gammaln(counts + 1)
        - gammaln(size - counts + 1)
        + xlogy(counts, prob)
        + xlog1py(size - counts, -prob)
    )
    pmf = np.exp(log_pmf)
    keep = pmf >= _PMF_FLOOR
    counts, pmf = counts[keep], pmf[keep] / pmf[keep].sum()
    if counts.size <= groups:
        return counts, pmf
    middle = np.cumsum(pmf) - pmf / 2
    group = np.minimum((middle * groups).astype(int), groups - 1)
    weight = np.bincount(group, pmf, minlength=groups)
    used = weight > 0
    centre = np.bincount(group, pmf * counts, minlength=groups)[used] / weight[used]
    return centre, weight[used]


def _integer_nodes(size: float, prob: float, groups: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_binomial_nodes` rounded to whole counts (duplicates merged) for the posterior."""
    centre, weight = _binomial_nodes(size, prob, groups)
    counts, where = np.unique(np.round(centre), return_inverse=True)
    return counts, np.bincount(where.ravel(), weight)


@dataclass(frozen=True)
class _Setting:
    """Planning values shared by every width evaluation."""

    p: float
    q0: float
    q1: float
    n: float
    level: float


class _WidthModel:
    """Expected width as a function of the split, vectorised over arrays of (m0, m1)."""

    def __init__(
        self, setting: _Setting, method: str, prior: Prior | None = None, kind: str = "eti"
    ) -> None:
        self.setting, self.method, self.prior, self.kind = setting, method, prior, kind

    def __call__(self, m0: Any, m1: Any) -> np.ndarray:
        m0, m1 = np.broadcast_arrays(np.asarray(m0, float), np.asarray(m1, float))
        if self.method == "plugin":
            s = self.setting
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", JudgeCalWarning)
                low, high = lang_reiczigel_ci(
                    np.full(m0.shape, s.p), s.q0, s.q1, s.n, m0, m1, confidence_level=s.level
                )
            return np.nan_to_num(high - low, nan=1.0)
        if self.method == "bayes":
            return self._bayes(m0.ravel(), m1.ravel()).reshape(m0.shape)
        return self._frequentist(m0.ravel(), m1.ravel()).reshape(m0.shape)

    def _test_nodes(self, groups: int, integer: bool) -> tuple[np.ndarray, np.ndarray]:
        s = self.setting
        if math.isinf(s.n):
            return np.array([s.p]), np.array([1.0])
        counts, weight = (_integer_nodes if integer else _binomial_nodes)(s.n, s.p, groups)
        return counts / s.n, weight

    def _frequentist(self, m0: np.ndarray, m1: np.ndarray) -> np.ndarray:
        s = self.setting
        arm_groups, test_groups = _NODES["frequentist"]
        p_values, p_weight = self._test_nodes(test_groups, integer=False)
        out = np.zeros(m0.size)
        blocks: list[tuple[np.ndarray, ...]] = []
        pending = 0
        for i, (a, b) in enumerate(zip(m0, m1, strict=True)):
            c0, w0 = _binomial_nodes(a, s.q0, arm_groups)
            c1, w1 = _binomial_nodes(b, s.q1, arm_groups)
            grids = np.meshgrid(c0 / a, c1 / b, p_values, indexing="ij")
            weight = w0[:, None, None] * w1[None, :, None] * p_weight[None, None, :]
            blocks.append(
                (
                    grids[2].ravel(),
                    grids[0].ravel(),
                    grids[1].ravel(),
                    np.full(weight.size, a),
                    np.full(weight.size, b),
                    weight.ravel(),
                    np.full(weight.size, i),
                )
            )
            pending += weight.size
            if pending >= _EVAL_BLOCK or i == m0.size - 1:
                out += self._reduce(blocks, m0.size)
                blocks, pending = [], 0
        return out

    def _reduce(self, blocks: list[tuple[np.ndarray, ...]], size: int) -> np.ndarray:
        p, q0, q1, m0, m1, weight, index = (
            np.concatenate(parts) for parts in zip(*blocks, strict=True)
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", JudgeCalWarning)
            low, high = lang_reiczigel_ci(
                p, q0, q1, self.setting.n, m0, m1, confidence_level=self.setting.level
            )
        width = np.nan_to_num(high - low, nan=1.0)  # no interval: nothing learnt
        return np.bincount(index, weight * width, minlength=size)

    def _bayes(self, m0: np.ndarray, m1: np.ndarray) -> np.ndarray:
        from judgecal.bayes.exact import exact_interval

        s = self.setting
        arm_groups, test_groups = _NODES["bayes"]
        k_values, k_weight = self._test_nodes(test_groups, integer=True)
        columns: list[list[np.ndarray]] = [[] for _ in range(7)]
        for i, (a, b) in enumerate(zip(m0, m1, strict=True)):
            c0, w0 = _integer_nodes(a, s.q0, arm_groups)
            c1, w1 = _integer_nodes(b, s.q1, arm_groups)
            grids = np.meshgrid(c0, c1, k_values * s.n, indexing="ij")
            weight = w0[:, None, None] * w1[None, :, None] * k_weight[None, None, :]
            for column, values in zip(
                columns,
                (
                    *grids,
                    np.full(weight.shape, a),
                    np.full(weight.shape, b),
                    weight,
                    np.full(weight.shape, i),
                ),
                strict=True,
            ):
                column.append(values.ravel())
        k0, k1, k, a, b, weight, index = (np.concatenate(column) for column in columns)
        low, high = exact_interval(
            np.round(k), s.n, k0, a, k1, b, prob=s.level, kind=self.kind, prior=self.prior
        )
        return np.bincount(index.astype(int), weight * (high - low), minlength=m0.size)


def _width_model(
    setting: _Setting, method: str, prior: Prior | None = None, kind: str = "eti"
) -> _WidthModel:
    if method == "bayes" and math.isinf(setting.n):
        raise ValueError(
            "`n` (inf) must be a finite test-set size for method='bayes': the posterior is "
            "computed from counts. Give the planned number of test items."
        )
    return _WidthModel(setting, method, prior, kind)


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
        Truly-incorrect / truly-correct calibration items, at least 1 each.
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
    arm0, arm1 = _check_total(m0, "m0", 1), _check_total(m1, "m1", 1)
    method = check_choice(method, "method", _METHODS)
    setting = _Setting(
        *_check_planning_values(p, q0, q1), _check_n(n), check_level(confidence_level)
    )
    return float(_width_model(setting, method, prior, kind)(arm0, arm1))


# ---------------------------------------------------------------------------------------------
# splits
# ---------------------------------------------------------------------------------------------
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
    rule: str, total: int, setting: _Setting, model: Callable[..., np.ndarray], m_pilot: int | None
) -> tuple[int, int]:
    if rule == "equal":
        return _equal_split(total)
    if rule == "algorithm1":
        m0, m1, _, _ = _algorithm1_for_plan(setting, total, m_pilot)
        return m0, m1
    m0, _ = _best_split(total, model)
    return m0, total - m0


def _make_plan(
    setting: _Setting,
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
        width = float(_width_model(setting, method)(m0, m1))
    plugin = float(_WidthModel(setting, "plugin")(m0, m1))
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
    setting: _Setting, total: int, m_pilot: int | None
) -> tuple[int, int, float, int]:
    """Algorithm 1 with the planning q0, q1 as pilot proportions (``None``: a perfect pilot)."""
    q0_t, q1_t = (
        (setting.q0, setting.q1)
        if m_pilot is None
        else (_smoothed_pilot(setting.q0, m_pilot), _smoothed_pilot(setting.q1, m_pilot))
    )
    return _algorithm1_split(total, setting.p, q0_t, q1_t, max(m_pilot or 0, 1))


def _algorithm1_fields(setting: _Setting, total: int, m_pilot: int | None) -> dict[str, Any]:
    _, _, kappa, m1_star = _algorithm1_for_plan(setting, total, m_pilot)
    return {"kappa": kappa, "m1_star": m1_star, "m_pilot": m_pilot}


def _warn(plan: CalibrationPlan) -> None:
    if plan.flags:
        warnings.warn("; ".join(plan.flag_messages) + ".", JudgeCalWarning, stacklevel=3)


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
    total = _check_total(m)
    method = check_choice(method, "method", ("frequentist", "plugin"))
    setting = _Setting(
        *_check_planning_values(p, q0, q1), _check_n(n), check_level(confidence_level)
    )
    pilot = None if m_pilot is None else _check_pilot(m_pilot, total)
    model = _width_model(setting, method)
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


# ---------------------------------------------------------------------------------------------
# budget
# ---------------------------------------------------------------------------------------------
def _width_floor(setting: _Setting) -> float:
    """Expected width with unlimited calibration: what the test set alone leaves (0 if n = inf)."""
    if math.isinf(setting.n):
        return 0.0
    p_values, weight = _WidthModel(setting, "plugin")._test_nodes(
        _NODES["frequentist"][1], integer=False
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeCalWarning)
        low, high = lang_reiczigel_ci(
            p_values, setting.q0, setting.q1, setting.n, 1e15, 1e15, confidence_level=setting.level
        )
    return float(np.sum(weight * np.nan_to_num(high - low, nan=1.0)))


def _search_total(
    target: float, evaluate: Callable[[int], float], start: int, unreachable: str, bar: Any = None
) -> tuple[int, tuple[tuple[int, float], ...]]:
    """Smallest total in [start, 2**26] with evaluate(total) <= target (doubling, then bisection).

    Returns the total and the (total, width) pairs tried. ``bar`` (a
    :class:`judgecal._dask.ProgressBar`), if given, advances once per budget tried.
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


def _check_width(width: Any) -> float:
    value = _scalar(np.asarray(check_proportions(width, "width")), "width")
    if value <= 0.0:
        raise ValueError(
            f"`width` ({value!r}) must be greater than 0, e.g. 0.1 for an interval "
            "of total width 0.1."
        )
    return value


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
    target = _check_width(width)
    allocation = check_choice(allocation, "allocation", _RULES)
    method = check_choice(method, "method", _METHODS)
    setting = _Setting(
        *_check_planning_values(p, q0, q1), _check_n(n), check_level(confidence_level)
    )
    pilot = None if m_pilot is None else _check_pilot(m_pilot, None)
    model = _width_model(setting, method, prior, kind)
    split_model = model if method != "bayes" else _width_model(setting, "frequentist")
    floor = _width_floor(setting)
    if target <= floor:
        raise ValueError(
            f"`width` ({target:g}) is unreachable with `n` = {int(setting.n)}: even unlimited "
            f"calibration leaves an expected width of {floor:.4g} from the test set alone. Ask "
            "for a wider interval or plan a larger test set."
        )

    def evaluate(total: int) -> float:
        m0, m1 = _rule_split(allocation, total, setting, split_model, pilot)
        return float(model(m0, m1))

    start = max(2, 2 * (pilot or 0)) if allocation == "algorithm1" else 2
    unreachable = (
        f"`width` ({target:g}) was not reached with up to {_MAX_TOTAL} calibration "
        "items; ask for a wider interval."
    )
    from judgecal._dask import ProgressBar

    bar = ProgressBar(
        None,
        progress if method == "bayes" else False,
        label="planning (method='bayes')",
        unit="budgets tried",
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
