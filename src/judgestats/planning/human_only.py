r"""Judge plus calibration, or humans only? (Lee et al. (ICML 2026) Sec. 6, Prop. 6.1, Fig. 4).

Lee et al. (ICML 2026) is the later version of Lee et al., "How to Correctly Report LLM-as-a-Judge
Evaluations" (arXiv 2511.21140); Lee et al. v1 is its first arXiv version.

A budget of m human labels can (i) calibrate the judge, whose verdicts on a large test set are then
bias-corrected, or (ii) label m test items directly. The human-only estimate phi-hat = M1 / m has

.. math:: \mathrm{Var}(\hat\phi) = \theta(1 - \theta)/m.

The judge-based estimate has the delta-method variance of Lee et al. (ICML 2026) eq. (10),

.. math:: \mathrm{Var}(\hat\theta) = \frac{p(1-p)/n + (1-\theta)^2 q_0(1-q_0)/m_0
          + \theta^2 q_1(1-q_1)/m_1}{(q_0 + q_1 - 1)^2},

evaluated at the true values for two ways of drawing the m calibration items:

``"natural"``
    m random test items labelled by humans, as in Prop. 6.1 (M1 ~ Bin(m, theta)): at its expected
    split m1 = theta m, m0 = (1 - theta) m the calibration term becomes
    ((1 - theta) q0(1 - q0) + theta q1(1 - q1)) / m, the quantity behind Fig. 4.
``"optimal"``
    the m items chosen by true label in the variance-minimising proportions (Cauchy-Schwarz on
    eq. 10): m0 : m1 = (1 - theta) sqrt(q0(1 - q0)) : theta sqrt(q1(1 - q1)), which gives the
    calibration term ((1 - theta) sqrt(q0(1 - q0)) + theta sqrt(q1(1 - q1)))^2 / m.

With n -> inf both variances are proportional to 1/m, so the comparison does not depend on m
(Fig. 4's m -> inf regime map); with q0 = q1 = q and the natural split the judge wins exactly when
theta(1 - theta) >= q(1 - q) / (2q - 1)^2 (Prop. 6.1 as epsilon -> 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from judgestats._json import to_json
from judgestats._validate import as_scalar, check_counts, check_proportions, check_scalar_count
from judgestats.frequentist import rogan_gladen
from judgestats.planning._inputs import check_planning_values
from judgestats.results import FLAG_MESSAGES, Result

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = [
    "HumanOnlyComparison",
    "compare_human_only",
    "human_only_ratio",
    "plot_human_only_regime",
]

_SPLITS = ("natural", "optimal")


def _calibration_term(theta: Any, q0: Any, q1: Any, split: str) -> Any:
    """Return m times the calibration part of eq. (10)'s numerator, for the given split."""
    if split == "natural":
        return (1 - theta) * q0 * (1 - q0) + theta * q1 * (1 - q1)
    return ((1 - theta) * np.sqrt(q0 * (1 - q0)) + theta * np.sqrt(q1 * (1 - q1))) ** 2


def human_only_ratio(theta: Any, q0: Any, q1: Any, *, split: str = "natural") -> np.ndarray:
    r"""Var(judge + calibration) / Var(humans only) for m, n -> inf (Lee et al. (ICML 2026) Fig. 4).

    .. math:: \frac{c(\theta, q_0, q_1)}{(q_0 + q_1 - 1)^2\,\theta(1 - \theta)}

    with c the calibration term of the module docstring. Below 1 the judge-based estimate is
    more precise for the same number of human labels. Broadcasts over arrays; NaN where the judge
    is no better than chance (q0 + q1 <= 1) and inf where theta is 0 or 1 (humans alone then have
    no variance).
    """
    if split not in _SPLITS:
        raise ValueError(f"`split` ({split!r}) must be 'natural' or 'optimal'.")
    theta_a, q0_a, q1_a = (
        check_proportions(v, name) for v, name in ((theta, "theta"), (q0, "q0"), (q1, "q1"))
    )
    youden = q0_a + q1_a - 1.0
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = _calibration_term(theta_a, q0_a, q1_a, split) / (
            youden**2 * theta_a * (1.0 - theta_a)
        )
        ratio = np.where(youden > 0, ratio, np.nan)
    return ratio


#: Row labels of :meth:`HumanOnlyComparison.summary` (and of the plot).
_ROW_LABELS = {
    "human": "humans only, m test items",
    "natural": "judge, random calibration items",
    "optimal": "judge, items chosen by label (opt.)",
}


@dataclass(frozen=True)
class HumanOnlyComparison(Result):
    """Variances of the judge-based and the human-only estimate for the same m human labels.

    Attributes
    ----------
    m : int
        Human labels in the budget.
    p, q0, q1 : float
        Planning values; theta is their Rogan-Gladen accuracy (truncated to [0, 1]).
    n : float
        Test-set size judged by the LLM (``inf``: unlimited).
    theta : float
    var_human : float
        theta (1 - theta) / m.
    var_judge_natural, var_judge_optimal : float
        Eq. (10) with the natural and the optimal split of the m calibration items.
    flags : tuple of str
        Keys of :data:`judgestats.results.FLAG_MESSAGES`: ``clipped`` when the planning values'
        Rogan-Gladen accuracy lies outside [0, 1] (theta is then 0 or 1, where humans alone
        have no variance).
    """

    title: ClassVar[str] = "judge + calibration vs humans only"

    m: int
    p: float
    q0: float
    q1: float
    n: float
    theta: float
    var_human: float
    var_judge_natural: float
    var_judge_optimal: float
    flags: tuple[str, ...] = ()

    @property
    def judge_better(self) -> bool:
        """The judge-based estimate has the smaller variance with randomly drawn labels."""
        return self.var_judge_natural <= self.var_human

    @property
    def judge_better_optimal(self) -> bool:
        """The same with the calibration items chosen by true label in optimal proportions."""
        return self.var_judge_optimal <= self.var_human

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict (an unlimited test set is ``"n": null``)."""
        return to_json(
            {
                "m": self.m,
                "p": self.p,
                "q0": self.q0,
                "q1": self.q1,
                "n": None if math.isinf(self.n) else int(self.n),
                "theta": self.theta,
                "var_human": self.var_human,
                "var_judge_natural": self.var_judge_natural,
                "var_judge_optimal": self.var_judge_optimal,
                "judge_better": self.judge_better,
                "judge_better_optimal": self.judge_better_optimal,
                "flags": {flag: FLAG_MESSAGES[flag] for flag in self.flags},
            }
        )

    @property
    def _variances(self) -> dict[str, float]:
        return {
            "human": self.var_human,
            "natural": self.var_judge_natural,
            "optimal": self.var_judge_optimal,
        }

    def summary(self) -> pd.DataFrame:
        """One row per way of spending the m labels: variance, sd, ratio to humans only.

        ``ratio`` is variance / :attr:`var_human` (below 1: more precise than humans only).
        """
        import pandas as pd

        variances = self._variances
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.divide(list(variances.values()), self.var_human)
        return pd.DataFrame(
            {
                "variance": list(variances.values()),
                "sd": [math.sqrt(v) for v in variances.values()],
                "ratio": ratio,
            },
            index=pd.Index([_ROW_LABELS[key] for key in variances], name="estimate"),
        )

    def plot(self, ax: Axes | None = None) -> Axes:
        """Standard deviation of each way of spending the m labels, as bars; returns the Axes."""
        import matplotlib.pyplot as plt

        if ax is None:
            _, ax = plt.subplots(figsize=(6, 2.5))
        frame = self.summary()
        positions = list(range(len(frame)))[::-1]
        colours = ["0.6", *("C0" if better else "C3" for better in self._judge_wins())]
        ax.barh(positions, frame["sd"], color=colours)
        ax.set_yticks(positions, list(frame.index))
        ax.set(
            xlabel="standard deviation of the accuracy estimate",
            title=f"m = {self.m} human labels (theta = {self.theta:.3f})",
        )
        return ax

    def _judge_wins(self) -> tuple[bool, bool]:
        return self.judge_better, self.judge_better_optimal

    def _repr_html_(self) -> str:
        """Rich display: sd and verdict of each way of spending the labels, and the flags."""
        from judgestats._html import fmt4, result_block

        verdicts = ["", *(_verdict(better) for better in self._judge_wins())]
        rows = [
            (name, fmt4(row["sd"]), fmt4(row["ratio"]), verdict)
            for (name, row), verdict in zip(self.summary().iterrows(), verdicts, strict=True)
        ]
        title = (
            f"judge + calibration vs humans only, m = {self.m} human labels "
            f"(theta = {fmt4(self.theta)}; Lee et al. (ICML 2026) Prop. 6.1)"
        )
        notes = list(zip(self.flags, self.flag_messages, strict=True))
        return result_block(title, ("", "sd", "variance ratio", "better"), rows, notes)

    def __str__(self) -> str:
        sd = {name: math.sqrt(value) for name, value in self._variances.items()}
        lines = [
            f"judge + calibration vs humans only, m = {self.m} human labels "
            f"(theta = {self.theta:.4f}; Lee et al. (ICML 2026) Prop. 6.1)",
            f"  humans only, m test items            : sd {sd['human']:.4f}",
            f"  judge, random calibration items      : sd {sd['natural']:.4f}"
            f"  -> better: {_verdict(self.judge_better)}",
            f"  judge, items chosen by label (opt.)  : sd {sd['optimal']:.4f}"
            f"  -> better: {_verdict(self.judge_better_optimal)}",
        ]
        lines += [f"  warning: {message}" for message in self.flag_messages]
        return "\n".join(lines)


def _verdict(better: bool) -> str:
    return "judge + calibration" if better else "humans only"


def compare_human_only(
    m: Any, p: Any, q0: Any, q1: Any, *, n: Any = math.inf
) -> HumanOnlyComparison:
    """Compare, for a budget of m human labels, the judge-based and the human-only estimate.

    theta is the Rogan-Gladen accuracy of the planning values (Lee et al. v1 eq. 4, truncated to
    [0, 1]); the variances are those of the module docstring (Lee et al. (ICML 2026) eq. 10 and
    Prop. 6.1).
    """
    total = check_scalar_count(m, "m", 1)
    p_f, q0_f, q1_f = check_planning_values(p, q0, q1)
    n_f = as_scalar(check_counts(n, "n", minimum=1, allow_inf=True), "n")
    theta_raw = float(rogan_gladen(p_f, q0_f, q1_f, clip=False))
    theta = min(1.0, max(0.0, theta_raw))
    test = p_f * (1 - p_f) / n_f
    youden2 = (q0_f + q1_f - 1) ** 2
    natural, optimal = (
        (test + _calibration_term(theta, q0_f, q1_f, split) / total) / youden2 for split in _SPLITS
    )
    return HumanOnlyComparison(
        total,
        p_f,
        q0_f,
        q1_f,
        n_f,
        theta,
        theta * (1 - theta) / total,
        float(natural),
        float(optimal),
        flags=("clipped",) if theta != theta_raw else (),
    )


def plot_human_only_regime(
    ax: Axes | None = None,
    *,
    q0: float | None = None,
    split: str = "natural",
    resolution: int = 201,
) -> Axes:
    """Regime map of Lee et al. (ICML 2026) Fig. 4: where judge + calibration beats humans only.

    x is theta; y is q = q0 = q1 (``q0=None``, Prop. 6.1's setting, with its closed-form boundary
    theta = 1/2 +- sqrt(1/2 - 1/(4 (2q - 1)^2)) drawn for the natural split) or q1 with q0 fixed.
    The shaded region has variance ratio <= 1 (:func:`human_only_ratio`, m, n -> inf).
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots()
    theta = np.linspace(0.0, 1.0, resolution)[1:-1]
    q = np.linspace(0.5, 1.0, resolution)[1:]
    grid_t, grid_q = np.meshgrid(theta, q)
    ratio = human_only_ratio(grid_t, grid_q if q0 is None else q0, grid_q, split=split)
    ax.contourf(
        grid_t,
        grid_q,
        np.where(ratio <= 1.0, 1.0, 0.0),
        levels=[0.5, 1.5],
        colors=["C0"],
        alpha=0.35,
    )
    ax.contour(grid_t, grid_q, ratio, levels=[1.0], colors="C0")
    if q0 is None and split == "natural":
        q_line = q[q > 0.5 + 0.5 / math.sqrt(2)]
        half = np.sqrt(0.5 - 1.0 / (4 * (2 * q_line - 1) ** 2))
        ax.plot(0.5 - half, q_line, "k--", lw=1, label="Prop. 6.1 boundary")
        ax.plot(0.5 + half, q_line, "k--", lw=1)
        ax.legend(loc="lower center")
    ax.set(
        xlabel="true accuracy theta",
        xlim=(0, 1),
        ylim=(0.5, 1),
        ylabel="q = q0 = q1" if q0 is None else f"q1 (q0 = {q0:g})",
        title=f"judge + calibration beats humans only (shaded; {split} split)",
    )
    return ax
