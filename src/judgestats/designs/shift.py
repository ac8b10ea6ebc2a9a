r"""The five estimators of Lee et al. (ICML 2026) Table 2 and what each assumes about shift.

Test population P, calibration (labelled) population Q; Z the human label, Z-hat the judge's
verdict. Under the random calibration design (``JudgeData.design == "random"``) the data are
``k`` of ``n`` unlabelled test items judged correct (p-hat = k / n) and the labelled cells
(1, 1): k1, (1, 0): m1 - k1, (0, 1): m0 - k0, (0, 0): k0 of m = m0 + m1 items. Lee et al.
(ICML 2026; arXiv 2511.21140, later version) Sec. 8 writes each estimator of E_P[Z] = theta as

=================================  =================================  =============================
estimator                          formula (its Table 2)              assumes
=================================  =================================  =============================
(i) ``naive``                      E_P[Zh] = p-hat                    Pr_P(Z) = Pr_P(Zh)
(ii) ``calibration_only``          E_Q[Z] = m1 / m                    Pr_P(Z) = Pr_Q(Z)
(iii) ``difference`` (PPI)         E_P[Zh] + E_Q[Z - Zh]              Pr_P(Z - Zh) = Pr_Q(Z - Zh)
(iv) ``conditional_calibration``   Pr_Q(Z | Zh) E_P[Zh]               Pr_P(Z | Zh) = Pr_Q(Z | Zh)
(v) ``misclassification_adjusted`` Pr_Q(Zh | Z)^{-1} E_P[Zh] (eq. 5)  Pr_P(Zh | Z) = Pr_Q(Zh | Z)
=================================  =================================  =============================

(Zh is the judge's verdict Z-hat.)

In counts: (iii) is p-hat + ((m1 - k1) - (m0 - k0)) / m; (iv) is a p-hat + b (1 - p-hat) with
a = Pr_Q(Z = 1 | Z-hat = 1) = k1 / (k1 + m0 - k0) and b = Pr_Q(Z = 1 | Z-hat = 0) =
(m1 - k1) / (k0 + m1 - k1); (v) is the Rogan-Gladen estimate (p-hat + q0 - 1) / (q0 + q1 - 1)
(Lee et al. (ICML 2026) App. B.3). Only (v) survives a shift of the class balance Pr(Z) when
the judge's behaviour Pr(Z-hat | Z) is shared (Lee et al. (ICML 2026) eq. 12, Fig. 7).

Intervals (:func:`shift_estimators`): (i) Wald with n, (ii) Wald with m, (iii) the PPI CLT interval
(:func:`judgestats.designs.prediction_powered.ppi_counts`, lambda = 1), (iv) the delta method

.. math:: \mathrm{Var} = (a - b)^2 \frac{\hat p(1-\hat p)}{n} + \hat p^2 \frac{a(1-a)}{c_1}
          + (1-\hat p)^2 \frac{b(1-b)}{c_0}

(c1, c0: labelled items judged correct / incorrect), (v) Lang-Reiczigel (Lee et al., arXiv
2511.21140 v1, eqs. 5-7).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from judgestats._closed_form import (
    lang_reiczigel_ci,
    naive_wald_ci,
    rogan_gladen,
    rogan_gladen_raw,
    z_quantile,
)
from judgestats._html import fmt_percent
from judgestats._json import to_json
from judgestats._validate import check_level, check_six_counts
from judgestats.data import JudgeData, require_design
from judgestats.designs.prediction_powered import PPI_ASSUMPTION, ppi_counts
from judgestats.exceptions import JudgeStatsWarning
from judgestats.results import (
    FLAG_MESSAGES,
    ConfidenceInterval,
    IntervalResult,
    Result,
    forest_plot,
    register_flags,
)

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterator

    import pandas as pd
    from matplotlib.axes import Axes

__all__ = [
    "ASSUMPTIONS",
    "CLASS_BALANCE_ALPHA",
    "ESTIMATORS",
    "SHIFT_FLAGS",
    "ClassBalanceTest",
    "ShiftEstimates",
    "class_balance_test",
    "shift_estimators",
    "shift_point_estimates",
]

#: The estimators of Lee et al. (ICML 2026) Table 2, in its order (i)-(v).
ESTIMATORS = (
    "naive",
    "calibration_only",
    "difference",
    "conditional_calibration",
    "misclassification_adjusted",
)

#: What each estimator needs to be unbiased (Lee et al. (ICML 2026) Table 2, right column).
ASSUMPTIONS = {
    "naive": "Pr_P(Z) = Pr_P(Z_hat): the judge's verdicts have the true class balance "
    "(its two kinds of error cancel)",
    "calibration_only": "Pr_P(Z) = Pr_Q(Z): the labelled items have the test population's "
    "class balance",
    "difference": PPI_ASSUMPTION,
    "conditional_calibration": "Pr_P(Z | Z_hat) = Pr_Q(Z | Z_hat): a verdict means the same "
    "on test and labelled items, which fails when the class balance "
    "shifts",
    "misclassification_adjusted": "Pr_P(Z_hat | Z) = Pr_Q(Z_hat | Z): the judge's specificity "
    "and sensitivity are the same on test and labelled items; the "
    "class balance may shift (Lee et al. (ICML 2026) Sec. 8)",
}

#: Level of the class-balance test below which :func:`shift_estimators` warns.
CLASS_BALANCE_ALPHA = 0.05

#: The flags of :class:`ShiftEstimates` and :class:`ClassBalanceTest` (registered in
#: :data:`judgestats.results.FLAG_MESSAGES`).
SHIFT_FLAGS = register_flags(
    {
        "estimator_undefined": "an estimator of Lee et al. (ICML 2026) Table 2 is undefined for "
        "these data (its row is NaN): the judge is no better than chance, or the labelled items "
        "hold one true class only, for the misclassification-adjusted estimate; the labelled "
        "items were all judged alike for the conditional-calibration estimate",
        "class_balance_shift": "the labelled items' share of truly-correct items differs from "
        "the test population's Rogan-Gladen accuracy (class-balance test, p < 0.05): the "
        "calibration-only, difference (PPI) and conditional-calibration estimates are biased "
        "under such a shift; the misclassification-adjusted estimate is not, if the judge "
        "behaves alike on both",
    }
)


def _counts(k: Any, n: Any, k0: Any, m0: Any, k1: Any, m1: Any) -> list[np.ndarray]:
    """Validate the six counts as :class:`JudgeData` does for the random design; float arrays."""
    given = {"k": k, "n": n, "k0": k0, "m0": m0, "k1": k1, "m1": m1}
    checked = check_six_counts(given, labelled_minimum=1)
    return [np.asarray(value, dtype=np.float64) for value in checked.values()]


def shift_point_estimates(k: Any, n: Any, k0: Any, m0: Any, k1: Any, m1: Any) -> dict[str, Any]:
    """The five point estimates of Lee et al. (ICML 2026) Table 2 from counts, over arrays.

    ``k, n`` are the unlabelled test items, ``k0, m0, k1, m1`` the labelled cells (random design;
    see the module docstring), validated as :class:`JudgeData` validates them (``n >= 1``,
    ``m0 + m1 >= 1``; one arm may be empty). Estimates are not clipped; an undefined one (no
    labelled item judged correct or incorrect for (iv); q0 + q1 <= 1, or ``m0 = 0`` or
    ``m1 = 0``, for (v)) is NaN, without a warning. (v) is
    :func:`judgestats.frequentist.rogan_gladen_raw`.

    Returns
    -------
    dict
        Estimator name (:data:`ESTIMATORS`) -> array (or float for scalar input).
    """
    k, n, k0, m0, k1, m1 = _counts(k, n, k0, m0, k1, m1)
    m, p = m0 + m1, k / n
    judged_correct = k1 + m0 - k0
    with np.errstate(divide="ignore", invalid="ignore"):
        ppv = k1 / judged_correct
        false_omission = (m1 - k1) / (m - judged_correct)
        adjusted, _ = rogan_gladen_raw(p, k0 / m0, k1 / m1)
        out = {
            "naive": p,
            "calibration_only": m1 / m,
            "difference": p + (m1 - judged_correct) / m,
            "conditional_calibration": ppv * p + false_omission * (1 - p),
            "misclassification_adjusted": adjusted,
        }
    shape = np.broadcast_shapes(*(np.shape(value) for value in out.values()))
    return {
        name: (float(value) if not shape else np.broadcast_to(value, shape).copy())
        for name, value in out.items()
    }


def _conditional_interval(data: JudgeData, z: float) -> tuple[float, float, float]:
    """Estimate (iv) with its delta-method interval (module docstring), truncated to [0, 1]."""
    judged_correct = data.k1 + data.m0 - data.k0
    judged_incorrect = data.m - judged_correct
    if judged_correct == 0 or judged_incorrect == 0:
        return math.nan, math.nan, math.nan
    a, b, p = data.k1 / judged_correct, (data.m1 - data.k1) / judged_incorrect, data.p
    estimate = a * p + b * (1 - p)
    se = math.sqrt(
        (a - b) ** 2 * p * (1 - p) / data.n
        + p**2 * a * (1 - a) / judged_correct
        + (1 - p) ** 2 * b * (1 - b) / judged_incorrect
    )
    return estimate, max(0.0, estimate - z * se), min(1.0, estimate + z * se)


@dataclass(frozen=True, kw_only=True)
class ShiftEstimates(Result):
    """The five estimators of Lee et al. (ICML 2026) Table 2 with their intervals.

    What :func:`shift_estimators` returns. Read it like a mapping from estimator name to row:
    ``result["misclassification_adjusted"]`` is an :class:`~judgestats.results.IntervalResult`
    (``estimate, low, high = result["naive"]``), ``list(result)`` the names in the order of
    :data:`ESTIMATORS`. :meth:`summary` is the table :func:`shift_estimators` returned before it
    returned this object (one row per estimator: estimate, low, high, assumption).

    Attributes
    ----------
    rows : dict of str to IntervalResult
        Estimator name -> estimate and interval, in the order of :data:`ESTIMATORS`; an undefined
        estimator has NaN values and the flag ``estimator_undefined``.
    confidence_level : float
        The level of every interval.
    data : JudgeData
        The counts (random design) the estimates come from.
    class_balance : ClassBalanceTest or None
        :func:`class_balance_test` of the data; None when the judge is no better than chance
        (or one true class only is labelled): no Rogan-Gladen estimate to compare with.
    flags : tuple of str
        ``estimator_undefined``, ``class_balance_shift`` (keys of
        :data:`judgestats.results.FLAG_MESSAGES`).
    messages : dict of str to str
        Flag key -> the sentence for these data (with their numbers); :attr:`flag_messages`
        uses it.
    """

    title: ClassVar[str] = "judgestats shift estimators (Lee et al. (ICML 2026) Table 2)"

    rows: dict[str, IntervalResult]
    confidence_level: float
    data: JudgeData
    class_balance: ClassBalanceTest | None
    flags: tuple[str, ...] = ()
    messages: dict[str, str] = field(default_factory=dict)

    def __getitem__(self, name: str) -> IntervalResult:
        try:
            return self.rows[name]
        except KeyError:
            allowed = ", ".join(repr(key) for key in self.rows)
            raise KeyError(f"no estimator {name!r}; the estimators are {allowed}.") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self.rows)

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def assumptions(self) -> dict[str, str]:
        """Estimator name -> what it assumes about the shift (Table 2, right column)."""
        return {name: ASSUMPTIONS[name] for name in self.rows}

    @property
    def flag_messages(self) -> list[str]:
        """The flags as sentences for these data, in the order of :attr:`flags`."""
        return [self.messages.get(flag, FLAG_MESSAGES[flag]) for flag in self.flags]

    def summary(self) -> pd.DataFrame:
        """Return the table: index ``estimator``; columns estimate, low, high, assumption.

        ``frame.attrs`` holds ``confidence_level`` and ``class_balance`` (a dict or None).
        """
        import pandas as pd

        frame = pd.DataFrame(
            [[row.estimate, row.low, row.high] for row in self.rows.values()],
            index=pd.Index(list(self.rows), name="estimator"),
            columns=["estimate", "low", "high"],
        )
        frame["assumption"] = [ASSUMPTIONS[name] for name in self.rows]
        frame.attrs.update(
            confidence_level=self.confidence_level,
            class_balance=None if self.class_balance is None else self.class_balance.to_dict(),
        )
        return frame

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict: the level, the counts, each estimator, the test, flags.

        An undefined estimator's numbers are None (JSON has no NaN).
        """
        return to_json(
            {
                "confidence_level": self.confidence_level,
                "data": self.data.to_dict(),
                "estimators": {
                    name: {
                        "estimate": row.estimate,
                        "low": row.low,
                        "high": row.high,
                        "assumption": ASSUMPTIONS[name],
                        "flags": list(row.flags),
                    }
                    for name, row in self.rows.items()
                },
                "class_balance": None
                if self.class_balance is None
                else self.class_balance.to_dict(),
                "flags": dict(zip(self.flags, self.flag_messages, strict=True)),
            }
        )

    def plot(self, ax: Axes | None = None) -> Axes:
        """Forest plot of the five estimates and intervals (undefined rows: label only)."""
        ax = forest_plot(self.summary(), ax=ax, title=self.title)
        ax.set_xlabel(f"accuracy theta ({fmt_percent(self.confidence_level)} intervals)")
        return ax

    def __str__(self) -> str:
        lines = [
            f"judgestats shift estimators (Lee et al. (ICML 2026) Table 2; "
            f"{fmt_percent(self.confidence_level)} intervals)",
            f"  {'estimator':<28}{'estimate':>9}{'low':>9}{'high':>9}",
        ]
        for name, row in self.rows.items():
            lines.append(f"  {name:<28}" + "".join(f"{v:9.4f}" for v in row))
        lines += [f"  warning: {message}" for message in self.flag_messages]
        return "\n".join(lines)


def _misclassification_adjusted(
    data: JudgeData, level: float
) -> tuple[tuple[float, float, float], str | None]:
    """Row (v) -- :func:`judgestats.estimate`'s clipped Rogan-Gladen with Lang-Reiczigel -- or NaN.

    Returns the row and, for a NaN row, why it is undefined.
    """
    undefined = (math.nan, math.nan, math.nan)
    if data.one_class:
        return undefined, (
            "the labelled items hold one true class only (m0 = 0 or m1 = 0), so the judge's "
            "specificity or sensitivity is not measured"
        )
    try:
        return (
            rogan_gladen(data.p, data.q0, data.q1),
            *lang_reiczigel_ci(
                data.p, data.q0, data.q1, data.n, data.m0, data.m1, confidence_level=level
            ),
        ), None
    except ValueError as error:  # judge no better than chance: no correction exists
        return undefined, str(error).rstrip(".")


def shift_estimators(data: JudgeData, *, confidence_level: float = 0.95) -> ShiftEstimates:
    """The five estimators of Lee et al. (ICML 2026) Table 2, their intervals and assumptions.

    Returns ShiftEstimates; ``.summary()`` is the former table (this function returned a
    :class:`pandas.DataFrame` before it returned a result object).

    Parameters
    ----------
    data : JudgeData
        Counts of the random design (``design="random"``).
    confidence_level : float, default 0.95

    Returns
    -------
    ShiftEstimates
        One :class:`~judgestats.results.IntervalResult` per estimator of :data:`ESTIMATORS`
        (``result["difference"]``); ``.summary()`` is the table (index ``"estimator"``; columns
        ``estimate``, ``low``, ``high``, ``assumption``; ``attrs``: ``confidence_level``,
        ``class_balance``). The misclassification-adjusted row is :func:`judgestats.estimate`'s
        clipped Rogan-Gladen estimate with the Lang-Reiczigel interval; the difference row is
        PPI (not truncated, as :mod:`judgestats.designs.prediction_powered`); the other intervals
        are truncated to [0, 1]. An undefined row is NaN.

    Raises
    ------
    TypeError
        If ``data`` is not a :class:`JudgeData`.
    ValueError
        If ``data.design`` is not ``"random"``, or for an invalid level.

    Warns
    -----
    JudgeStatsWarning
        Once, if a row is undefined (flag ``estimator_undefined``) or the labelled class balance
        is inconsistent with the test population's Rogan-Gladen accuracy (p < 0.05,
        :func:`class_balance_test`; flag ``class_balance_shift``): then estimators (ii)-(iv) are
        biased and only (v) is not.

    Examples
    --------
    >>> import judgestats as jc
    >>> data = jc.JudgeData(k=600, n=1000, k0=70, m0=100, k1=90, m1=100, design="random")
    >>> result = jc.shift_estimators(data)
    >>> round(result["misclassification_adjusted"].estimate, 4), result.flags
    (0.5, ())
    >>> list(result.summary().columns)
    ['estimate', 'low', 'high', 'assumption']
    """
    data = require_design(data, "random", "`shift_estimators`")
    level = check_level(confidence_level)
    values: dict[str, tuple[float, float, float]] = {
        "naive": (data.p, *naive_wald_ci(data.p, data.n, confidence_level=level)),
        "calibration_only": (
            data.m1 / data.m,
            *naive_wald_ci(data.m1 / data.m, data.m, confidence_level=level),
        ),
    }
    estimate, (low, high), _, _ = ppi_counts(
        data.k, data.n, data.k0, data.m0, data.k1, data.m1, lam=1.0, confidence_level=level
    )
    values["difference"] = (float(estimate), float(low), float(high))
    values["conditional_calibration"] = _conditional_interval(data, z_quantile(level))
    values["misclassification_adjusted"], why = _misclassification_adjusted(data, level)
    undefined = [] if why is None else [f"misclassification_adjusted is undefined: {why}"]
    if math.isnan(values["conditional_calibration"][0]):
        undefined.append(
            "conditional_calibration is undefined: the labelled items were all judged alike, "
            "so Pr_Q(Z | Z_hat) cannot be estimated for both verdicts"
        )
    messages = {}
    if undefined:
        messages["estimator_undefined"] = "; ".join(undefined)
    balance = _class_balance_or_none(data)
    if balance is not None and balance.p_value < CLASS_BALANCE_ALPHA:
        messages["class_balance_shift"] = str(balance)
    rows = {
        name: IntervalResult(
            estimate=values[name][0],
            ci=ConfidenceInterval(values[name][1], values[name][2]),
            confidence_level=level,
            method=name,
            flags=("estimator_undefined",) if math.isnan(values[name][0]) else (),
        )
        for name in ESTIMATORS
    }
    result = ShiftEstimates(
        rows=rows,
        confidence_level=level,
        data=data,
        class_balance=balance,
        flags=tuple(messages),
        messages=messages,
    )
    if messages:
        warnings.warn("; ".join(messages.values()) + ".", JudgeStatsWarning, stacklevel=2)
    return result


# -------------------------------------------------------------------------------------------
# the diagnostic: is the labelled class balance that of the test population?
# -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ClassBalanceTest(Result):
    """Exact test of H0: theta_Q = theta_P (no shift in the class balance Pr(Z)).

    Attributes
    ----------
    labelled_accuracy : float
        m1 / m, the labelled items' share of truly-correct items (estimates theta_Q).
    test_accuracy : float
        The unclipped Rogan-Gladen estimate from the unlabelled items (estimates theta_P; valid
        under a class-balance shift).
    statistic : float
        J/m - k/n, the labelled items' judged-correct share minus the unlabelled items'; its
        sign is that of m1/m - theta-hat_RG (:func:`class_balance_test`).
    p_value : float
        Fisher's exact two-sided p-value of J given J + k (hypergeometric).
    flags : tuple of str
        ``("class_balance_shift",)`` when ``p_value`` < :data:`CLASS_BALANCE_ALPHA`.
    """

    title: ClassVar[str] = "judgestats class-balance test (labelled vs test accuracy)"

    labelled_accuracy: float
    test_accuracy: float
    statistic: float
    p_value: float
    flags: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """Return the four numbers and the flags as a JSON-safe dict."""
        return to_json(
            {
                "labelled_accuracy": self.labelled_accuracy,
                "test_accuracy": self.test_accuracy,
                "statistic": self.statistic,
                "p_value": self.p_value,
                "flags": {flag: FLAG_MESSAGES[flag] for flag in self.flags},
            }
        )

    def summary(self) -> pd.DataFrame:
        """Return a one-row table: labelled_accuracy, test_accuracy, statistic, p_value."""
        import pandas as pd

        return pd.DataFrame(
            [[self.labelled_accuracy, self.test_accuracy, self.statistic, self.p_value]],
            index=pd.Index(["class_balance"], name="test"),
            columns=["labelled_accuracy", "test_accuracy", "statistic", "p_value"],
        )

    def plot(self, ax: Axes | None = None) -> Axes:
        """The two accuracy estimates side by side, z and p in the title; returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(5, 2.2))
        labels = ["labelled m1/m", "test (Rogan-Gladen)"]
        values = [self.labelled_accuracy, self.test_accuracy]
        ax.plot(values, [1, 0], "o", color="black")
        ax.set_yticks([1, 0], labels)
        ax.set_ylim(-0.6, 1.6)
        ax.set_xlabel("accuracy")
        ax.set_title(
            f"class balance: verdict shares differ by {self.statistic:+.3f}, p = {self.p_value:.3g}"
        )
        return ax

    def brief(self) -> str:
        """The one line printouts and reports show (the CLI's wording).

        Short where the test does not reject; else ``warning:`` and :meth:`__str__`'s text.
        """
        if self.p_value < CLASS_BALANCE_ALPHA:
            return f"warning: {self}"
        return (
            f"class balance: labelled m1/m = {self.labelled_accuracy:.4f}, test Rogan-Gladen "
            f"{self.test_accuracy:.4f} (exact p = {self.p_value:.3g}): consistent with no shift"
        )

    def __str__(self) -> str:
        stats = (
            f"(judged-correct shares differ by {self.statistic:+.4f}, exact p = {self.p_value:.3g})"
        )
        if self.p_value >= CLASS_BALANCE_ALPHA:
            return (
                f"the labelled items' accuracy m1/m = {self.labelled_accuracy:.4f} is "
                f"consistent with the test population's Rogan-Gladen estimate "
                f"{self.test_accuracy:.4f} {stats} (which does not prove there is no shift)"
            )
        return (
            f"the labelled items' accuracy m1/m = {self.labelled_accuracy:.4f} differs from "
            f"the test population's Rogan-Gladen estimate {self.test_accuracy:.4f} {stats}: "
            "the labelled items may not be a random sample of the test population, and then "
            "the calibration-only, difference (PPI, PPI++) and conditional-calibration "
            "estimates and the random-design posterior are biased; the misclassification-"
            "adjusted (Rogan-Gladen) estimate is not, if the judge behaves alike on both"
        )


def class_balance_test(data: JudgeData) -> ClassBalanceTest:
    r"""Test whether the labelled class balance is consistent with the test population's accuracy.

    With the calibration's rates :math:`\hat q_0 = k_0/m_0`, :math:`\hat q_1 = k_1/m_1`, the
    labelled items' judged-correct share is
    :math:`J/m = \hat\phi \hat q_1 + (1 - \hat\phi)(1 - \hat q_0)`, where
    :math:`\hat\phi = m_1/m` and :math:`J = k_1 + m_0 - k_0`, and the Rogan-Gladen estimate
    (Lee et al. (ICML 2026) eq. 5) inverts the same map at the unlabelled items' share
    :math:`k/n`, so

    .. math:: \hat\phi - \hat\theta_{RG} = \frac{J/m - k/n}{\hat q_0 + \hat q_1 - 1}:

    the labelled share of correct items and the test set's estimate differ exactly when the
    verdict shares do. Under H0 (the labelled items are a random sample of all the items, the
    judge behaving alike on them) :math:`J` given :math:`J + k` is hypergeometric, and the
    p-value is Fisher's exact two-sided one (:mod:`judgestats.designs._verdict_share_test`): a
    random sample is flagged at level alpha with probability at most alpha, whatever the
    accuracy and the judge (where J's standard deviation exceeds 10,000, hundreds of millions of
    labelled items, its tails are normal). (The normal approximation with the estimated variances
    used before flagged random samples up to 15 times too often at 0.001 where the accuracy is
    extreme; ``python benchmarks/class_balance_size.py``.)

    Raises
    ------
    ValueError
        If ``data.design`` is not ``"random"``, the labelled items hold one true class only, or
        the judge is no better than chance (q0 + q1 <= 1): no Rogan-Gladen estimate.
    """
    from judgestats.designs._verdict_share_test import verdict_share_p_value

    data = require_design(data, "random", "`class_balance_test`")
    if data.one_class:
        raise ValueError(
            f"`class_balance_test` needs labelled items of both true classes, but `m0` = "
            f"{data.m0} and `m1` = {data.m1}: with one class only the judge's specificity or "
            "sensitivity is not measured, so there is no Rogan-Gladen estimate to compare with."
        )
    judged = data.k1 + data.m0 - data.k0  # labelled items the judge called correct
    p_value = verdict_share_p_value(judged, data.m, data.k, data.n)
    return ClassBalanceTest(
        labelled_accuracy=data.m1 / data.m,
        test_accuracy=float(rogan_gladen(data.p, data.q0, data.q1, clip=False)),
        statistic=judged / data.m - data.p,
        p_value=p_value,
        flags=("class_balance_shift",) if p_value < CLASS_BALANCE_ALPHA else (),
    )


def _class_balance_or_none(data: JudgeData) -> ClassBalanceTest | None:
    try:
        return class_balance_test(data)
    except ValueError:  # judge no better than chance: nothing to compare with
        return None
