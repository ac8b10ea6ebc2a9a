r"""Comparing two models judged by the same judge: theta_A - theta_B with honest diagnostics.

Follows "Bias and Uncertainty in LLM-as-a-Judge Estimation" (below: the follow-up on bias and
uncertainty); its equations were numbered only in part, so the formulas are written out here
(Delta = model A minus model B, J = q0 + q1 - 1 is Youden's index).

**Per-model estimate** (Rogan-Gladen; Lee et al., arXiv 2511.21140 v1, eq. 4):
theta_X = (p_X + q0_X - 1) / J_X.

**Calibration design** (the follow-up on bias and uncertainty Sec. 4.1, App. A.1).
*Model-specific*: each model is corrected with the (q0, q1) measured on its own labelled
responses. *Shared* ("judge-centric"): model A's calibration serves both models, so

.. math:: \hat\theta_A - \hat\theta_B = (\hat p_A - \hat p_B) / \hat J

(the follow-up on bias and uncertainty App. B: the (1 - q0) terms cancel).

**Delta-method variance** (the follow-up on bias and uncertainty App. B). Shared calibration:

.. math:: \mathrm{Var} = \frac{\mathrm{Var}(\hat p_A - \hat p_B)}{J^2}
          + \frac{(p_A - p_B)^2}{J^4}\Big(\frac{q_0(1-q_0)}{m_0} + \frac{q_1(1-q_1)}{m_1}\Big);

model-specific calibration (independent calibration sets, Lee et al. v1 App. A.1 per model):

.. math:: \mathrm{Var} = \mathrm{Var}\Big(\frac{\hat p_A}{J_A} - \frac{\hat p_B}{J_B}\Big)
          + \sum_{X\in\{A,B\}} \frac{(1-\theta_X)^2 q_{0X}(1-q_{0X})/m_{0X}
          + \theta_X^2 q_{1X}(1-q_{1X})/m_{1X}}{J_X^2}.

The test term comes from the per-item differences w_i = y_Ai/J_A - y_Bi/J_B when the verdicts are
paired (its plug-in variance over n), and from p_X(1 - p_X)/(n_X J_X^2) summed over the models
when they are not.

**Judge diagnostics** (the follow-up on bias and uncertainty Sec. 4.4, Sec. 7 items 5-6): J per
model, and the instability Delta J = J_A - J_B (with Delta q0, Delta q1), each from the model's
own calibration set with an Agresti-Caffo interval (one success and one failure added to every
calibration arm, the adjustment of Lee et al. v1 eq. 6). **Expected shared-calibration bias**
(the follow-up on bias and uncertainty App. C): with A's calibration applied to B,
theta_B-tilde tends to (theta_B J_B + q0_A - q0_B) / J_A, so the comparison is off by

.. math:: \mathrm{bias} = \frac{\theta_B\,\Delta J - \Delta q_0}{J_A}
          = \frac{\theta_B\,\Delta q_1 - (1 - \theta_B)\,\Delta q_0}{J_A}.
"""

from __future__ import annotations

import math
import os
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeGuard

import numpy as np

from judgecal._validate import as_generator, check_choice, check_level, check_positive_int
from judgecal.compare_result import Comparison, IntervalEstimate, _interval_text
from judgecal.data import JudgeData, binary_labels, read_label_csv
from judgecal.exceptions import JudgeCalWarning
from judgecal.frequentist import SMALL_CALIBRATION, lang_reiczigel_ci, z_quantile
from judgecal.results import WEAK_YOUDEN as WEAK_JUDGE_J
from judgecal.results import ConfidenceInterval

if TYPE_CHECKING:  # pragma: no cover
    from judgecal._typing import SeedLike
    from judgecal.bayes.compare_model import ComparePrior
    from judgecal.bayes.nuts import NutsCache

__all__ = [
    "CALIBRATION_DESIGNS",
    "METHODS",
    "Comparison",
    "IntervalEstimate",
    "ModelLabels",
    "compare",
    "expected_shared_bias",
]

CALIBRATION_DESIGNS = ("model_specific", "shared")
METHODS = ("delta", "bootstrap", "bayes")
#: A judge whose J interval reaches below this is flagged as weak (the follow-up on bias and
#: uncertainty Sec. 4.4).
LOW_J = WEAK_JUDGE_J


# -------------------------------------------------------------------------------------------
# item-level input that keeps the pairing
# -------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class ModelLabels:
    """Item-level 0/1 labels of one model: the judge's verdicts and the model's calibration set.

    Pass two of these to :func:`compare` for a paired design: item ``i`` of ``a.test_judge`` and
    of ``b.test_judge`` is the same test item (so both arrays have the same length).

    Parameters
    ----------
    test_judge : sequence of {0, 1}
        The judge's verdict on this model's answer to every test item (1 = "correct").
    calib_human, calib_judge : sequence of {0, 1}, optional
        Human label and judge verdict on this model's calibration responses. Omit both for model B
        under ``calibration="shared"`` when only model A's responses were labelled.
    """

    test_judge: Any
    calib_human: Any = None
    calib_judge: Any = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "test_judge", binary_labels(self.test_judge, "test_judge"))
        if self.test_judge.size == 0:
            raise ValueError("`test_judge` holds no items: the test set is empty.")
        if (self.calib_human is None) != (self.calib_judge is None):
            raise ValueError(
                "give both `calib_human` and `calib_judge` (one human label and one "
                "judge verdict per calibration item), or neither."
            )
        if self.calib_human is None:
            return
        human = binary_labels(self.calib_human, "calib_human")
        judge = binary_labels(self.calib_judge, "calib_judge")
        if human.size != judge.size:
            raise ValueError(
                f"`calib_human` ({human.size} items) and `calib_judge` ({judge.size} items) must "
                "have the same length: one human label and one judge verdict per item."
            )
        object.__setattr__(self, "calib_human", human)
        object.__setattr__(self, "calib_judge", judge)

    @property
    def has_calibration(self) -> bool:
        """Whether this model has calibration labels of its own."""
        return self.calib_human is not None

    def calibration_counts(self, model: str = "") -> tuple[int, int, int, int] | None:
        """(k0, m0, k1, m1) of the calibration set, or None; raises if a class is missing."""
        if self.calib_human is None:
            return None
        human, judge = self.calib_human, self.calib_judge
        m1 = int(human.sum())
        m0 = int(human.size) - m1
        for count, word in ((m0, "incorrect (human label 0)"), (m1, "correct (human label 1)")):
            if count == 0:
                raise ValueError(
                    f"{model or 'the model'}: the calibration set has no truly {word} items, so "
                    "the judge's specificity and sensitivity cannot both be estimated; label at "
                    "least one item of each class."
                )
        k0 = int(np.count_nonzero((human == 0) & (judge == 0)))
        k1 = int(np.count_nonzero((human == 1) & (judge == 1)))
        return k0, m0, k1, m1

    @classmethod
    def from_csv(cls, path: str | os.PathLike[str]) -> ModelLabels:
        """Read the item-level file of :meth:`JudgeData.from_csv`, keeping the item order.

        Columns ``set`` (``test`` / ``calibration``), ``judge`` and ``human``. Test rows keep
        their order, which is what pairs them with the other model's file. A file without
        calibration rows gives a model without calibration labels.
        """
        labels = read_label_csv(path)
        if not labels.test.size:
            raise ValueError(f"{os.fspath(path)}: no test rows; the test set is empty.")
        if not labels.human.size:
            return cls(labels.test)
        return cls(labels.test, labels.human, labels.judge)


# -------------------------------------------------------------------------------------------
# normalised inputs
# -------------------------------------------------------------------------------------------
Calibration = tuple[int, int, int, int]  # (k0, m0, k1, m1)


@dataclass(frozen=True)
class _Inputs:
    """The counts of a comparison: test counts per model, paired cells, calibration sets."""

    k_a: int
    n_a: int
    k_b: int
    n_b: int
    cells: tuple[int, int, int, int] | None  # judge verdicts (1,1), (1,0), (0,1), (0,0)
    calib_a: Calibration
    calib_b: Calibration | None  # model B's own calibration, if it has one
    shared: bool

    @property
    def calib_b_used(self) -> Calibration:
        """The calibration that corrects model B."""
        return self.calib_a if self.shared else self.calib_b  # type: ignore[return-value]

    def to_dict(self) -> dict[str, Any]:
        def calib(c: Calibration | None) -> dict[str, int] | None:
            return None if c is None else dict(zip(("k0", "m0", "k1", "m1"), c, strict=True))

        return {
            "a": {"k": self.k_a, "n": self.n_a, "calibration": calib(self.calib_a)},
            "b": {"k": self.k_b, "n": self.n_b, "calibration": calib(self.calib_b)},
            "paired_cells": None
            if self.cells is None
            else dict(
                zip(("both_correct", "a_only", "b_only", "neither"), self.cells, strict=True)
            ),
        }


def _counts(data: JudgeData) -> Calibration:
    return data.k0, data.m0, data.k1, data.m1


def _normalise(a: Any, b: Any, shared: bool) -> tuple[_Inputs, list[str]]:
    notes: list[str] = []
    for value, name in ((a, "a"), (b, "b")):
        if not isinstance(value, (JudgeData, ModelLabels)):
            raise TypeError(
                f"`{name}` must be a JudgeData (counts) or a judgecal.ModelLabels "
                f"(item-level labels), got {type(value).__name__}."
            )
    cells = None
    if isinstance(a, ModelLabels) and isinstance(b, ModelLabels):
        ya, yb = a.test_judge, b.test_judge
        if ya.size != yb.size:
            raise ValueError(
                f"the paired design needs one verdict per model on the same test items, but "
                f"`a.test_judge` has {ya.size} items and `b.test_judge` has {yb.size}; pass "
                "JudgeData counts instead if the test sets are different items."
            )
        both = int(np.count_nonzero(ya & yb))
        cells = (
            both,
            int(ya.sum()) - both,
            int(yb.sum()) - both,
            int(ya.size - ya.sum() - yb.sum() + both),
        )
    test = [
        (int(x.test_judge.sum()), int(x.test_judge.size))
        if isinstance(x, ModelLabels)
        else (x.k, x.n)
        for x in (a, b)
    ]
    calib_a = a.calibration_counts("model A") if isinstance(a, ModelLabels) else _counts(a)
    if calib_a is None:
        raise ValueError(
            "model A has no calibration labels (`a.calib_human`, `a.calib_judge`); "
            "every design needs them."
        )
    calib_b = b.calibration_counts("model B") if isinstance(b, ModelLabels) else _counts(b)
    if calib_b is None and not shared:
        raise ValueError(
            "calibration='model_specific' needs model B's own calibration labels "
            "(`b.calib_human`, `b.calib_judge`); give them, or use "
            "calibration='shared' to correct both models with model A's."
        )
    if shared and isinstance(b, JudgeData) and calib_b == calib_a:
        calib_b = None
        notes.append(
            "a and b carry identical calibration counts: taken to be one shared "
            "calibration set, so model B has none of its own."
        )
    if cells is None and test[0][1] == test[1][1] and isinstance(a, JudgeData):
        notes.append(
            "the test sets are treated as independent samples; pass item-level "
            "judgecal.ModelLabels to use the pairing of the test items."
        )
    (k_a, n_a), (k_b, n_b) = test
    inputs = _Inputs(
        k_a, n_a, k_b, n_b, cells=cells, calib_a=calib_a, calib_b=calib_b, shared=shared
    )
    _check_better_than_chance(inputs)
    return inputs, notes


def _youden(calib: Calibration) -> float:
    k0, m0, k1, m1 = calib
    return k0 / m0 + k1 / m1 - 1.0


def _check_better_than_chance(inputs: _Inputs) -> None:
    for model, calib in (("A", inputs.calib_a), ("B", inputs.calib_b)):
        if calib is None or _youden(calib) > 0.0:
            continue
        k0, m0, k1, m1 = calib
        raise ValueError(
            f"the judge is no better than chance on model {model}'s calibration set: "
            f"J = q0 + q1 - 1 = {k0}/{m0} + {k1}/{m1} - 1 = {_youden(calib):.4g} <= 0, so its "
            "verdicts carry no information about that model's accuracy and no correction or "
            "comparison exists. Use a better judge, or check that the labels are not swapped."
        )


# -------------------------------------------------------------------------------------------
# the estimators on counts (vectorised over leading axes)
# -------------------------------------------------------------------------------------------
def _rogan_gladen(k: Any, n: Any, calib: Any) -> tuple[np.ndarray, np.ndarray]:
    """Unclipped Rogan-Gladen theta and J on arrays; NaN where J <= 0."""
    k0, m0, k1, m1 = calib
    q0, q1 = np.divide(k0, m0), np.divide(k1, m1)
    youden = q0 + q1 - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        theta = np.where(youden > 0, (np.divide(k, n) + q0 - 1.0) / youden, np.nan)
    return theta, youden


def _point(inputs: _Inputs) -> tuple[float, float]:
    theta_a, _ = _rogan_gladen(inputs.k_a, inputs.n_a, inputs.calib_a)
    theta_b, _ = _rogan_gladen(inputs.k_b, inputs.n_b, inputs.calib_b_used)
    return float(theta_a), float(theta_b)


def _delta_variance(inputs: _Inputs) -> float:
    """Delta-method variance of theta_A - theta_B (module docstring).

    From App. B of the follow-up on bias and uncertainty.
    """
    theta_a, theta_b = _point(inputs)
    ja, jb = _youden(inputs.calib_a), _youden(inputs.calib_b_used)
    if inputs.cells is not None:
        weights = np.array([1 / ja - 1 / jb, 1 / ja, -1 / jb, 0.0])
        freq = np.asarray(inputs.cells, dtype=float) / inputs.n_a
        mean = float(freq @ weights)
        test = (float(freq @ weights**2) - mean**2) / inputs.n_a
    else:
        pa, pb = inputs.k_a / inputs.n_a, inputs.k_b / inputs.n_b
        test = pa * (1 - pa) / (inputs.n_a * ja**2) + pb * (1 - pb) / (inputs.n_b * jb**2)
    k0, m0, k1, m1 = inputs.calib_a
    q0, q1 = k0 / m0, k1 / m1
    if inputs.shared:
        gap = inputs.k_a / inputs.n_a - inputs.k_b / inputs.n_b
        return test + gap**2 / ja**4 * (q0 * (1 - q0) / m0 + q1 * (1 - q1) / m1)
    calibration = 0.0
    for theta, (k0, m0, k1, m1) in ((theta_a, inputs.calib_a), (theta_b, inputs.calib_b_used)):
        q0, q1 = k0 / m0, k1 / m1
        calibration += (
            (1 - theta) ** 2 * q0 * (1 - q0) / m0 + theta**2 * q1 * (1 - q1) / m1
        ) / _youden((k0, m0, k1, m1)) ** 2
    return test + calibration


def expected_shared_bias(
    theta_b: float, q0_a: float, q1_a: float, q0_b: float, q1_b: float
) -> float:
    r"""Asymptotic bias of theta_A - theta_B when A's calibration corrects B.

    From App. C of the follow-up on bias and uncertainty.

    .. math:: \mathrm{bias} = \frac{\theta_B (J_A - J_B) - (q_{0A} - q_{0B})}{J_A}
              = \frac{\theta_B \Delta q_1 - (1 - \theta_B) \Delta q_0}{J_A}
    """
    return (theta_b * (q1_a - q1_b) - (1.0 - theta_b) * (q0_a - q0_b)) / (q0_a + q1_a - 1.0)


# -------------------------------------------------------------------------------------------
# judge diagnostics (closed form, the same for every method)
# -------------------------------------------------------------------------------------------
def _adjusted(k: int, m: int) -> tuple[float, float]:
    """Agresti-Caffo adjusted proportion (k + 1) / (m + 2) and its variance."""
    q = (k + 1) / (m + 2)
    return q, q * (1 - q) / (m + 2)


def _linear_interval(
    estimate: float, terms: list[tuple[int, int, int]], z: float, bound: float, offset: float = 0.0
) -> IntervalEstimate:
    """Interval for offset + sum(sign * q) from adjusted proportions; terms are (sign, k, m)."""
    centre, variance = offset, 0.0
    for sign, k, m in terms:
        q, v = _adjusted(k, m)
        centre += sign * q
        variance += v
    half = z * math.sqrt(variance)
    low, high = max(-bound, centre - half), min(bound, centre + half)
    return IntervalEstimate(float(estimate), float(low), float(high))


@dataclass(frozen=True)
class _Diagnostics:
    youden: dict[str, IntervalEstimate | None]
    instability: IntervalEstimate | None
    delta_q0: IntervalEstimate | None
    delta_q1: IntervalEstimate | None
    expected_bias: float | None


def _diagnose(inputs: _Inputs, z: float) -> _Diagnostics:
    youden: dict[str, IntervalEstimate | None] = {}
    for model, calib in (("A", inputs.calib_a), ("B", inputs.calib_b)):
        if calib is None:
            youden[model] = None
            continue
        k0, m0, k1, m1 = calib
        youden[model] = _linear_interval(
            _youden(calib), [(1, k0, m0), (1, k1, m1)], z, 1.0, offset=-1.0
        )
    if inputs.calib_b is None:
        return _Diagnostics(youden, None, None, None, None)
    (k0a, m0a, k1a, m1a), (k0b, m0b, k1b, m1b) = inputs.calib_a, inputs.calib_b
    q0a, q1a, q0b, q1b = k0a / m0a, k1a / m1a, k0b / m0b, k1b / m1b
    instability = _linear_interval(
        (q0a + q1a) - (q0b + q1b),
        [(1, k0a, m0a), (1, k1a, m1a), (-1, k0b, m0b), (-1, k1b, m1b)],
        z,
        2.0,
    )
    delta_q0 = _linear_interval(q0a - q0b, [(1, k0a, m0a), (-1, k0b, m0b)], z, 1.0)
    delta_q1 = _linear_interval(q1a - q1b, [(1, k1a, m1a), (-1, k1b, m1b)], z, 1.0)
    theta_b, _ = _rogan_gladen(inputs.k_b, inputs.n_b, inputs.calib_b)
    bias = expected_shared_bias(float(theta_b), q0a, q1a, q0b, q1b)
    return _Diagnostics(youden, instability, delta_q0, delta_q1, float(bias))


# -------------------------------------------------------------------------------------------
# the three methods
# -------------------------------------------------------------------------------------------
@dataclass
class _MethodOutput:
    estimate: float
    ci: ConfidenceInterval
    theta_a: IntervalEstimate
    theta_b: IntervalEstimate
    intervals: dict[str, ConfidenceInterval]
    se: float | None = None
    draws: dict[str, np.ndarray] | None = None
    warnings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    prob_a_better: float | None = None
    idata: Any = None
    extras: dict[str, Any] = field(default_factory=dict)


def _lang_reiczigel(k: int, n: int, calib: Calibration, level: float) -> ConfidenceInterval:
    k0, m0, k1, m1 = calib
    try:
        return lang_reiczigel_ci(k / n, k0 / m0, k1 / m1, n, m0, m1, confidence_level=level)
    except ValueError:  # the Laplace-adjusted judge is no better than chance
        return ConfidenceInterval(float("nan"), float("nan"))


def _run_delta(inputs: _Inputs, level: float) -> _MethodOutput:
    theta_a, theta_b = _point(inputs)
    difference = theta_a - theta_b
    se = math.sqrt(_delta_variance(inputs))
    half = z_quantile(level) * se
    ci = ConfidenceInterval(max(-1.0, difference - half), min(1.0, difference + half))
    per_model = [
        IntervalEstimate(theta, *_lang_reiczigel(k, n, calib, level))
        for theta, k, n, calib in (
            (theta_a, inputs.k_a, inputs.n_a, inputs.calib_a),
            (theta_b, inputs.k_b, inputs.n_b, inputs.calib_b_used),
        )
    ]
    return _MethodOutput(
        estimate=difference,
        ci=ci,
        theta_a=per_model[0],
        theta_b=per_model[1],
        intervals={"delta": ci},
        se=se,
    )


def _bootstrap_samples(inputs: _Inputs) -> list[np.ndarray]:
    samples = (
        [np.array(inputs.cells)]
        if inputs.cells is not None
        else [
            np.array([inputs.k_a, inputs.n_a - inputs.k_a]),
            np.array([inputs.k_b, inputs.n_b - inputs.k_b]),
        ]
    )
    for calib in (inputs.calib_a,) if inputs.shared else (inputs.calib_a, inputs.calib_b):
        k0, m0, k1, m1 = calib  # type: ignore[misc]
        samples += [np.array([k0, m0 - k0]), np.array([k1, m1 - k1])]
    return samples


def _bootstrap_statistic(inputs: _Inputs) -> Any:
    """theta_A, theta_B and their difference from resampled category counts (last axis)."""
    paired, shared = inputs.cells is not None, inputs.shared

    def statistic(*counts: np.ndarray) -> np.ndarray:
        if paired:
            cells, rest = counts[0], counts[1:]
            n_a = n_b = cells.sum(axis=-1)
            k_a, k_b = cells[..., 0] + cells[..., 1], cells[..., 0] + cells[..., 2]
        else:
            (test_a, test_b), rest = counts[:2], counts[2:]
            k_a, n_a, k_b, n_b = test_a[..., 0], test_a.sum(-1), test_b[..., 0], test_b.sum(-1)
        calibs = [
            (arm0[..., 0], arm0.sum(-1), arm1[..., 0], arm1.sum(-1))
            for arm0, arm1 in zip(rest[::2], rest[1::2], strict=True)
        ]
        theta_a, _ = _rogan_gladen(k_a, n_a, calibs[0])
        theta_b, _ = _rogan_gladen(k_b, n_b, calibs[0] if shared else calibs[1])
        return np.stack([theta_a, theta_b, theta_a - theta_b], axis=-1)

    return statistic


def _run_bootstrap(
    inputs: _Inputs, level: float, n_resamples: int, interval: str, rng: np.random.Generator
) -> _MethodOutput:
    from judgecal.bootstrap import categorical_bootstrap

    result = categorical_bootstrap(
        _bootstrap_statistic(inputs),
        _bootstrap_samples(inputs),
        n_resamples=n_resamples,
        confidence_level=level,
        rng=rng,
    )
    out_warnings, notes = [], []
    kind = interval
    if interval == "bca" and not all(np.isfinite(result.bca[j]).all() for j in range(3)):
        kind = "percentile"
        notes.append(
            "the BCa interval is undefined here (every replicate fell on one side of "
            "the estimate); the percentile interval is reported instead."
        )
    if result.n_dropped:
        out_warnings.append(
            f"{result.n_dropped} of {n_resamples} bootstrap replicates had a judge no better than "
            "chance (J <= 0) and were dropped: the calibration set cannot rule out a useless "
            "judge, so the bootstrap intervals understate the uncertainty."
        )

    def clipped(interval: ConfidenceInterval, bound: tuple[float, float]) -> ConfidenceInterval:
        low, high = np.clip(interval, *bound)  # accuracies lie in [0, 1], differences in [-1, 1]
        return ConfidenceInterval(float(low), float(high))

    bounds = ((0.0, 1.0), (0.0, 1.0), (-1.0, 1.0))
    percentile = [clipped(ci, bound) for ci, bound in zip(result.percentile, bounds, strict=True)]
    bca = [clipped(ci, bound) for ci, bound in zip(result.bca, bounds, strict=True)]
    chosen = bca if kind == "bca" else percentile
    per_model = [IntervalEstimate(float(result.estimate[j]), *chosen[j]) for j in (0, 1)]
    draws = {
        name: result.replicates[:, j] for j, name in enumerate(("theta_a", "theta_b", "difference"))
    }
    return _MethodOutput(
        estimate=float(result.estimate[2]),
        ci=chosen[2],
        theta_a=per_model[0],
        theta_b=per_model[1],
        intervals={"percentile": percentile[2], "bca": bca[2]},
        draws=draws,
        warnings=out_warnings,
        notes=notes,
        extras={
            "n_resamples": n_resamples,
            "interval": kind,
            "acceleration": float(result.acceleration[2]),
            "bias_correction": float(result.bias_correction[2]),
        },
    )


def _run_bayes(
    inputs: _Inputs, level: float, prior: Any, options: dict[str, Any], rng: np.random.Generator
) -> _MethodOutput:
    from judgecal.bayes.compare_model import sample_comparison

    fit = sample_comparison(
        cells=inputs.cells,
        test=(inputs.k_a, inputs.n_a, inputs.k_b, inputs.n_b),
        calib_a=inputs.calib_a,
        calib_b=None if inputs.shared else inputs.calib_b,
        prior=prior,
        rng=rng,
        **options,
    )
    draws = {name: fit.draws(name) for name in ("theta_a", "theta_b", "difference")}
    alpha = (1.0 - level) / 2.0

    def summarise(values: np.ndarray) -> IntervalEstimate:
        low, median, high = np.quantile(values, [alpha, 0.5, 1.0 - alpha])
        return IntervalEstimate(float(median), float(low), float(high))

    difference = summarise(draws["difference"])
    ci = ConfidenceInterval(difference.low, difference.high)
    extras = {
        "population_sd": {
            arm: summarise(fit.draws(f"sigma_{arm}"))._asdict() for arm in ("q0", "q1")
        },
        "posterior_instability": summarise(fit.draws("delta_youden"))._asdict(),
        "convergence": fit.diagnostics,
        "prior": fit.prior_dict,
    }
    return _MethodOutput(
        estimate=difference.estimate,
        ci=ci,
        theta_a=summarise(draws["theta_a"]),
        theta_b=summarise(draws["theta_b"]),
        intervals={"eti": ci},
        draws=draws,
        warnings=list(fit.warnings),
        prob_a_better=float(np.mean(draws["difference"] > 0)),
        idata=fit.idata,
        extras=extras,
    )


# -------------------------------------------------------------------------------------------
# warnings and the verdict
# -------------------------------------------------------------------------------------------
#: An instability interval reaching beyond this (but including zero) earns a note.
INSTABILITY_NOTE = 0.1


def _excludes_zero(value: IntervalEstimate | None) -> TypeGuard[IntervalEstimate]:
    return value is not None and not value.low <= 0.0 <= value.high


def _judge_warnings(
    inputs: _Inputs, diag: _Diagnostics, estimate: float, level: float
) -> tuple[list[str], list[str]]:
    found: list[str] = []
    notes: list[str] = []
    pct = f"{100 * level:g}%"
    for model, j in diag.youden.items():
        if j is not None and j.low < LOW_J:
            found.append(
                f"judge quality is low for model {model}: J = {j.estimate:.3f}, {pct} interval "
                f"({j.low:.3f}, {j.high:.3f}) reaches below {LOW_J:g}. Every corrected estimate "
                "divides by J, so it is unstable; treat the comparison with caution."
            )
    if inputs.calib_b is None:
        found.append(
            "calibration is shared, but model B has no calibration labels of its own, so whether "
            "the judge treats both models alike (the instability J_A - J_B) cannot be checked; "
            "shared calibration needs that check to be defensible (the follow-up on bias and "
            "uncertainty Sec. 7)."
        )
        return found, notes
    parts = (
        ("J_A - J_B", diag.instability),
        ("q0_A - q0_B", diag.delta_q0),
        ("q1_A - q1_B", diag.delta_q1),
    )
    unstable = [
        f"{name} = {_interval_text(value)}" for name, value in parts if _excludes_zero(value)
    ]
    bias = diag.expected_bias
    if unstable and inputs.shared:
        found.append(
            f"the judge treats the two models differently ({'; '.join(unstable)}; {pct} "
            "intervals excluding zero). Shared calibration routes this mismatch into the "
            f"comparison, amplified by 1/J (expected bias {bias:+.3f}, the follow-up on bias and "
            "uncertainty App. C): use calibration='model_specific'."
        )
    elif unstable:
        notes.append(
            f"the judge treats the two models differently ({'; '.join(unstable)}); "
            "model-specific calibration, used here, corrects each model with its own (q0, q1). "
            f"Sharing model A's calibration would have biased the comparison by about "
            f"{bias:+.3f} (the follow-up on bias and uncertainty App. C)."
        )
    elif (
        diag.instability is not None
        and max(abs(diag.instability.low), abs(diag.instability.high)) > INSTABILITY_NOTE
    ):
        notes.append(
            f"the instability J_A - J_B = {_interval_text(diag.instability)} is not "
            f"distinguishable from zero, but the data cannot rule out a difference beyond "
            f"{INSTABILITY_NOTE:g}: larger calibration sets would settle it."
        )
    if inputs.shared and bias is not None and abs(bias) >= abs(estimate) > 0.0:
        found.append(
            f"the expected shared-calibration bias ({bias:+.3f}) is as large as the estimate "
            f"itself ({estimate:+.3f}): its sign may be an artefact of sharing the calibration."
        )
    return found, notes


def _data_warnings(inputs: _Inputs, theta: dict[str, float]) -> list[str]:
    found = []
    for model, value in theta.items():
        if not 0.0 <= value <= 1.0:
            found.append(
                f"the Rogan-Gladen estimate for model {model} ({value:.3f}) lies outside [0, 1]: "
                "its judged-correct rate is outside the range the estimated judge can produce. "
                "It is reported unclipped, so the difference stays unbiased to first order."
            )
    used = {"A": inputs.calib_a, "B": inputs.calib_b_used}
    small = sorted({m for m, (_, m0, _, m1) in used.items() if min(m0, m1) < SMALL_CALIBRATION})
    if small:
        found.append(
            f"a calibration arm used for model {' and '.join(small)} has fewer than "
            f"{SMALL_CALIBRATION} items: the normal approximations are rough; prefer "
            "method='bootstrap' or method='bayes'."
        )
    return found


def _verdict(
    estimate: float,
    ci: ConfidenceInterval,
    level: float,
    n_warnings: int,
    prob_a_better: float | None,
) -> str:
    pct = f"{100 * level:g}%"
    probability = "" if prob_a_better is None else f"; P(theta_A > theta_B) = {prob_a_better:.3f}"
    if ci.low <= 0.0 <= ci.high:
        text = (
            f"no clear difference: the {pct} interval ({ci.low:+.3f}, {ci.high:+.3f}) "
            f"includes zero{probability}."
        )
        return text + (" The diagnostics warn as well (see above)." if n_warnings else "")
    better, worse = ("A", "B") if ci.low > 0.0 else ("B", "A")
    text = (
        f"model {better} is more accurate than model {worse}: difference {estimate:+.3f}, "
        f"{pct} interval ({ci.low:+.3f}, {ci.high:+.3f}) excludes zero{probability}."
    )
    if n_warnings:
        return text + (
            f" Claim weakened: {n_warnings} diagnostic warning(s) above; report the "
            "direction as tentative, not established."
        )
    return text + " The judge diagnostics raise no warning."


def _randomness(inputs: _Inputs, method: str, details: dict[str, Any]) -> str:
    test = (
        "paired test items (both models together)"
        if inputs.cells is not None
        else "test items of each model (independently)"
    )
    calib = (
        "the one shared calibration set"
        if inputs.shared
        else "both calibration sets (independently)"
    )
    if method == "delta":
        how = (
            "paired per-item differences"
            if inputs.cells is not None
            else "independent binomial test sets"
        )
        return (
            f"delta method (the follow-up on bias and uncertainty App. B; test term from "
            f"{how}): covers sampling of the {test} and of {calib}; per-model rows use "
            "Lang-Reiczigel intervals"
        )
    if method == "bootstrap":
        return (
            f"bootstrap, {details['n_resamples']} replicates, {details['interval']} "
            f"intervals: resamples the {test}, and separately each calibration arm of "
            f"{calib}"
        )
    likelihood = "model A's calibration only" if inputs.shared else "both calibration sets"
    return (
        "posterior equal-tailed credible intervals of the hierarchical model (likelihood: "
        f"test verdicts and {likelihood}; (q0, q1) partially pooled across the models)"
    )


# -------------------------------------------------------------------------------------------
# the entry point
# -------------------------------------------------------------------------------------------
def compare(
    a: JudgeData | ModelLabels,
    b: JudgeData | ModelLabels,
    *,
    calibration: str = "model_specific",
    method: str = "delta",
    confidence_level: float = 0.95,
    random_seed: SeedLike = None,
    n_resamples: int = 4000,
    interval: str = "bca",
    prior: ComparePrior | None = None,
    draws: int = 1000,
    tune: int = 1000,
    chains: int = 4,
    target_accept: float = 0.9,
    compiled: NutsCache | None = None,
    progressbar: bool | None = None,
) -> Comparison:
    """Compare the true accuracies of two models judged by the same judge: theta_A - theta_B.

    Parameters
    ----------
    a, b : JudgeData or ModelLabels
        Model A and model B. Two :class:`ModelLabels` give a paired design (the same test items,
        in the same order, judged for both models); :class:`~judgecal.JudgeData` counts give
        independent test sets. With ``calibration="shared"`` the calibration of ``a`` corrects
        both models and that of ``b`` (if any) is used only for the diagnostics.
    calibration : {"model_specific", "shared"}
        Correct each model with its own calibration set, or both with model A's (the follow-up
        on bias and uncertainty Sec. 4.1; shared calibration is biased when the judge treats the
        models differently).
    method : {"delta", "bootstrap", "bayes"}
        Delta-method interval (the follow-up on bias and uncertainty App. B); bootstrap
        resampling the test items jointly (pairing kept) and every calibration arm separately;
        or the posterior of the hierarchical model of :mod:`judgecal.bayes.compare_model`.
    confidence_level : float, default 0.95
        Level of every interval (credible probability for ``"bayes"``).
    random_seed : int or numpy.random.Generator, optional
        The only source of randomness (bootstrap and bayes).
    n_resamples : int, default 4000
        Bootstrap replicates.
    interval : {"bca", "percentile"}, default "bca"
        Which bootstrap interval is ``.ci`` (both are in ``.intervals``).
    prior : ComparePrior, optional
        Prior of the hierarchical model (``"bayes"``), e.g. the scale of the half-normal prior
        on the between-model spread sigma.
    draws, tune, chains, target_accept
        NUTS settings (``"bayes"``).
    compiled : judgecal.bayes.nuts.NutsCache, optional
        A cache of compiled samplers the caller keeps to reuse compilation across comparisons
        (``"bayes"``); without one each call compiles the model.
    progressbar : bool, optional
        ``"bayes"``: draw a progress bar of the NUTS steps on stderr. Default (None): only when
        stderr is a terminal and the ``CI`` environment variable is unset. The delta method and
        the bootstrap (vectorised: 4000 replicates in milliseconds) draw none.

    Returns
    -------
    Comparison
        With the estimate, its interval, J per model, the instability J_A - J_B, the expected
        shared-calibration bias (the follow-up on bias and uncertainty App. C), plain-language
        warnings and a verdict.
        Warnings are also issued as one :class:`~judgecal.JudgeCalWarning`; they never stop the
        comparison from being reported.

    Raises
    ------
    TypeError
        If ``a`` or ``b`` is neither JudgeData nor ModelLabels.
    ValueError
        For an unknown design, method or interval, paired label arrays of different lengths, a
        calibration set without items of one class, model B without calibration labels under
        ``"model_specific"``, or a judge no better than chance (J <= 0) on either model.

    Examples
    --------
    >>> from judgecal import JudgeData, compare
    >>> a = JudgeData(k=700, n=1000, k0=170, m0=200, k1=180, m1=200)
    >>> b = JudgeData(k=600, n=1000, k0=168, m0=200, k1=182, m1=200)
    >>> result = compare(a, b)
    >>> round(result.estimate, 4), result.warnings
    (0.1467, ())
    """
    shared = check_choice(calibration, "calibration", CALIBRATION_DESIGNS) == "shared"
    method = check_choice(method, "method", METHODS)
    interval = check_choice(interval, "interval", ("bca", "percentile"))
    level = check_level(confidence_level)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    rng = as_generator(random_seed)
    inputs, notes = _normalise(a, b, shared)
    if method == "delta":
        output = _run_delta(inputs, level)
    elif method == "bootstrap":
        output = _run_bootstrap(inputs, level, n_resamples, interval, rng)
    else:
        options = {
            "draws": check_positive_int(draws, "draws"),
            "tune": check_positive_int(tune, "tune"),
            "chains": check_positive_int(chains, "chains"),
            "target_accept": check_level(target_accept, "target_accept"),
            "compiled": compiled,
            "progressbar": progressbar,
        }
        output = _run_bayes(inputs, level, prior, options, rng)
    diag = _diagnose(inputs, z_quantile(level))
    judge_warnings, judge_notes = _judge_warnings(inputs, diag, output.estimate, level)
    theta = dict(zip("AB", _point(inputs), strict=True))
    found = judge_warnings + _data_warnings(inputs, theta) + output.warnings
    result = Comparison(
        estimate=float(output.estimate),
        ci=output.ci,
        confidence_level=level,
        method=method,
        calibration="shared" if shared else "model_specific",
        paired=inputs.cells is not None,
        theta_a=output.theta_a,
        theta_b=output.theta_b,
        youden=diag.youden,
        instability=diag.instability,
        delta_q0=diag.delta_q0,
        delta_q1=diag.delta_q1,
        expected_bias=diag.expected_bias,
        warnings=tuple(found),
        notes=tuple(notes + judge_notes + output.notes),
        verdict=_verdict(output.estimate, output.ci, level, len(found), output.prob_a_better),
        intervals=output.intervals,
        inputs=inputs.to_dict(),
        se=output.se,
        prob_a_better=output.prob_a_better,
        idata=output.idata,
        details=output.extras,
        draws=output.draws,
        randomness=_randomness(inputs, method, output.extras),
    )
    if found:
        warnings.warn(" ".join(found), JudgeCalWarning, stacklevel=2)
    return result
