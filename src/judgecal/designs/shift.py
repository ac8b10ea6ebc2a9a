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
(:func:`judgecal.designs.ppi.ppi_counts`, lambda = 1), (iv) the delta method

.. math:: \mathrm{Var} = (a - b)^2 \frac{\hat p(1-\hat p)}{n} + \hat p^2 \frac{a(1-a)}{c_1}
          + (1-\hat p)^2 \frac{b(1-b)}{c_0}

(c1, c0: labelled items judged correct / incorrect), (v) Lang-Reiczigel (Lee et al., arXiv
2511.21140 v1, eqs. 5-7).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from judgecal._validate import check_counts, check_level, check_not_exceeding
from judgecal.data import JudgeData, require_design
from judgecal.designs.ppi import PPI_ASSUMPTION, ppi_counts
from judgecal.exceptions import JudgeCalWarning
from judgecal.frequentist import (
    lang_reiczigel_ci,
    naive_wald_ci,
    rogan_gladen,
    rogan_gladen_variance,
    z_quantile,
)

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = [
    "ASSUMPTIONS",
    "CLASS_BALANCE_ALPHA",
    "ESTIMATORS",
    "ClassBalanceTest",
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


def _counts(k: Any, n: Any, k0: Any, m0: Any, k1: Any, m1: Any) -> list[np.ndarray]:
    given = {"k": k, "n": n, "k0": k0, "m0": m0, "k1": k1, "m1": m1}
    arrays = {
        name: check_counts(value, name, minimum=1 if name in ("n", "m0", "m1") else 0)
        for name, value in given.items()
    }
    for part, whole in (("k", "n"), ("k0", "m0"), ("k1", "m1")):
        check_not_exceeding(arrays[part], arrays[whole], part, whole)
    return [np.asarray(arrays[name], dtype=np.float64) for name in given]


def shift_point_estimates(k: Any, n: Any, k0: Any, m0: Any, k1: Any, m1: Any) -> dict[str, Any]:
    """The five point estimates of Lee et al. (ICML 2026) Table 2 from counts, over arrays.

    ``k, n`` are the unlabelled test items, ``k0, m0, k1, m1`` the labelled cells (random design;
    see the module docstring). Estimates are not clipped; an undefined one (no labelled item
    judged correct or incorrect for (iv), q0 + q1 <= 1 for (v)) is NaN, without a warning.

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
        q0, q1 = k0 / m0, k1 / m1
        adjusted = np.where(q0 + q1 > 1, (p + q0 - 1) / (q0 + q1 - 1), np.nan)
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


def shift_estimators(data: JudgeData, *, confidence_level: float = 0.95) -> pd.DataFrame:
    """The five estimators of Lee et al. (ICML 2026) Table 2, their intervals and assumptions.

    Parameters
    ----------
    data : JudgeData
        Counts of the random design (``design="random"``).
    confidence_level : float, default 0.95

    Returns
    -------
    pandas.DataFrame
        Indexed by :data:`ESTIMATORS` (index name ``"estimator"``), columns ``estimate``, ``low``,
        ``high``, ``assumption``. The misclassification-adjusted row is :func:`judgecal.estimate`'s
        clipped Rogan-Gladen estimate with the Lang-Reiczigel interval; the difference row is
        PPI (not truncated, as :func:`judgecal.designs.ppi`); the other intervals are truncated to
        [0, 1]. An undefined row is NaN. ``frame.attrs`` holds ``confidence_level`` and
        ``class_balance`` (:func:`class_balance_test` as a dict, or None when it is undefined).

    Raises
    ------
    ValueError
        If ``data.design`` is not ``"random"``, or for an invalid level.

    Warns
    -----
    JudgeCalWarning
        Once, if a row is undefined or the labelled class balance is inconsistent with the test
        population's Rogan-Gladen accuracy (p < 0.05, :func:`class_balance_test`): then
        estimators (ii)-(iv) are biased and only (v) is not.
    """
    import pandas as pd

    data = require_design(data, "random", "`shift_estimators`")
    level = check_level(confidence_level)
    z = z_quantile(level)
    rows: dict[str, tuple[float, float, float]] = {
        "naive": (data.p, *naive_wald_ci(data.p, data.n, confidence_level=level)),
        "calibration_only": (
            data.m1 / data.m,
            *naive_wald_ci(data.m1 / data.m, data.m, confidence_level=level),
        ),
    }
    estimate, (low, high), _, _ = ppi_counts(
        data.k, data.n, data.k0, data.m0, data.k1, data.m1, lam=1.0, confidence_level=level
    )
    rows["difference"] = (float(estimate), float(low), float(high))
    rows["conditional_calibration"] = _conditional_interval(data, z)
    notes = []
    try:
        rows["misclassification_adjusted"] = (
            rogan_gladen(data.p, data.q0, data.q1),
            *lang_reiczigel_ci(
                data.p, data.q0, data.q1, data.n, data.m0, data.m1, confidence_level=level
            ),
        )
    except ValueError as error:  # judge no better than chance: no correction exists
        rows["misclassification_adjusted"] = (math.nan, math.nan, math.nan)
        notes.append(f"misclassification_adjusted is undefined: {error}")
    if math.isnan(rows["conditional_calibration"][0]):
        notes.append(
            "conditional_calibration is undefined: the labelled items were all judged "
            "alike, so Pr_Q(Z | Z_hat) cannot be estimated for both verdicts"
        )
    balance = _class_balance_or_none(data)
    if balance is not None and balance.p_value < CLASS_BALANCE_ALPHA:
        notes.append(str(balance))
    frame = pd.DataFrame.from_dict(rows, orient="index", columns=["estimate", "low", "high"])
    frame = frame.loc[list(ESTIMATORS)]
    frame["assumption"] = [ASSUMPTIONS[name] for name in ESTIMATORS]
    frame.index.name = "estimator"
    frame.attrs.update(
        confidence_level=level, class_balance=None if balance is None else balance.to_dict()
    )
    if notes:
        warnings.warn("; ".join(notes) + ".", JudgeCalWarning, stacklevel=2)
    return frame


# -------------------------------------------------------------------------------------------
# the diagnostic: is the labelled class balance that of the test population?
# -------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ClassBalanceTest:
    """Wald test of H0: theta_Q = theta_P (no shift in the class balance Pr(Z)).

    Attributes
    ----------
    labelled_accuracy : float
        m1 / m, the labelled items' share of truly-correct items (estimates theta_Q).
    test_accuracy : float
        The unclipped Rogan-Gladen estimate from the unlabelled items (estimates theta_P; valid
        under a class-balance shift).
    statistic : float
        z = (m1/m - theta-hat_RG) / sqrt(phi(1 - phi)/m + Var(theta-hat_RG)).
    p_value : float
        Two-sided normal p-value, erfc(|z| / sqrt 2).
    """

    labelled_accuracy: float
    test_accuracy: float
    statistic: float
    p_value: float

    def to_dict(self) -> dict[str, float]:
        """Return the four numbers as a JSON-safe dict."""
        return {
            "labelled_accuracy": self.labelled_accuracy,
            "test_accuracy": self.test_accuracy,
            "statistic": self.statistic,
            "p_value": self.p_value,
        }

    def __str__(self) -> str:
        stats = f"(z = {self.statistic:.2f}, p = {self.p_value:.3g})"
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

    Under no shift, m1 / m and the Rogan-Gladen estimate (Lee et al. (ICML 2026) eq. 5) from the
    unlabelled items both estimate theta and are uncorrelated to first order (the Rogan-Gladen
    estimate is unbiased given m0, m1), so

    .. math:: z = \frac{\hat\phi - \hat\theta_{RG}}
              {\sqrt{\hat\phi(1-\hat\phi)/m + \widehat{\mathrm{Var}}(\hat\theta_{RG})}}

    is approximately standard normal, with the delta-method variance of Lee et al. (ICML 2026)
    eq. 10.

    Raises
    ------
    ValueError
        If ``data.design`` is not ``"random"``, or the judge is no better than chance
        (q0 + q1 <= 1: no Rogan-Gladen estimate).
    """
    data = require_design(data, "random", "`class_balance_test`")
    phi = data.m1 / data.m
    theta = rogan_gladen(data.p, data.q0, data.q1, clip=False)
    variance = phi * (1 - phi) / data.m + rogan_gladen_variance(
        data.p, data.q0, data.q1, data.n, data.m0, data.m1
    )
    if variance > 0:
        statistic = (phi - theta) / math.sqrt(variance)
    else:
        statistic = 0.0 if phi == theta else math.copysign(math.inf, phi - theta)
    return ClassBalanceTest(
        labelled_accuracy=phi,
        test_accuracy=float(theta),
        statistic=float(statistic),
        p_value=math.erfc(abs(statistic) / math.sqrt(2.0)),
    )


def _class_balance_or_none(data: JudgeData) -> ClassBalanceTest | None:
    try:
        return class_balance_test(data)
    except ValueError:  # judge no better than chance: nothing to compare with
        return None
