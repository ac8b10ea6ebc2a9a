"""The result of a planning function: :class:`CalibrationPlan` and its flag catalogue."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from judgestats._html import fmt_percent
from judgestats._json import to_json
from judgestats.results import Result, register_flags

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd
    from matplotlib.axes import Axes

__all__ = ["PLAN_FLAGS", "CalibrationPlan"]

#: Plain-language explanation of every flag a :class:`CalibrationPlan` can carry (registered in
#: :data:`judgestats.results.FLAG_MESSAGES`).
PLAN_FLAGS = {
    "no_pilot": "m_pilot = 0: there is no pilot information, so Algorithm 1 uses kappa = 1 "
    "(q0~ = q1~ = 1/2) and the split follows p-hat alone",
    "small_arm": "a calibration arm has fewer than 30 items; the Lang-Reiczigel interval's "
    "normal approximation is rough there, compare with method='bayes'",
    "non_monotone": "the expected width was not monotone in the budget along the search; the "
    "reported budget is the smallest that met the target among those tried",
}
register_flags(PLAN_FLAGS)


@dataclass(frozen=True)
class CalibrationPlan(Result):
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

    title: ClassVar[str] = "judgestats calibration plan"

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
        return to_json(out)

    def summary(self) -> pd.DataFrame:
        """One row per rule (this plan first): m0, m1, total, width, plugin_width."""
        import pandas as pd

        frame = pd.DataFrame([plan._row() for plan in (self, *self.alternatives)])
        return frame.set_index("rule")

    def _heading(self) -> str:
        return (
            f"judgestats calibration plan ({self.rule} split, {self.method} expected width, "
            f"{fmt_percent(self.confidence_level)} interval)"
        )

    def _planning_values(self) -> str:
        n = "unlimited" if math.isinf(self.n) else f"{int(self.n)}"
        return (
            f"planning values: p = {self.p:.4f}, q0 = {self.q0:.4f}, q1 = {self.q1:.4f}, "
            f"test set n = {n}"
        )

    def _repr_html_(self) -> str:
        """Rich display: the planning values, one row per rule, the savings and the flags."""
        from judgestats._html import fmt4, result_block

        title = f"{self._heading()}: {self._planning_values()}"
        if self.target_width is not None:
            title += f"; target width {fmt4(self.target_width)}"
        rows = [
            (plan.rule, str(plan.m0), str(plan.m1), str(plan.total), fmt4(plan.width))
            for plan in (self, *self.alternatives)
        ]
        notes = [
            ("", f"{self.rule} is {100 * saving:.1f}% shorter than {rule}")
            for rule, saving in self.savings.items()
        ]
        notes += list(zip(self.flags, self.flag_messages, strict=True))
        return result_block(title, ("rule", "m0", "m1", "total", "width"), rows, notes)

    def __str__(self) -> str:
        lines = [self._heading(), f"  {self._planning_values()}"]
        if self.target_width is not None:
            lines.append(f"  target width   : {self.target_width:.4f}")
        plans = (self, *self.alternatives)
        w = max(7, *(len(str(plan.total)) for plan in plans)) + 1  # a budget of 10^12 fits
        lines.append(f"  {'rule':<12}{'m0':>{w}}{'m1':>{w}}{'total':>{w}}{'width':>10}")
        for plan in plans:
            lines.append(
                f"  {plan.rule:<12}{plan.m0:>{w}}{plan.m1:>{w}}{plan.total:>{w}}{plan.width:10.4f}"
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
        from judgestats.planning._width import PlanningSetting, WidthModel

        setting = PlanningSetting(self.p, self.q0, self.q1, self.n, self.confidence_level)
        model = WidthModel(setting, method)
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
