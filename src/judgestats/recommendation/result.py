"""The recommended interval: :class:`Recommendation`, the result of every recommendation rule."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from judgestats._html import fmt_percent
from judgestats._json import to_json
from judgestats.results import EndpointsResult

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["METHOD_LABELS", "Recommendation"]

#: Display names of the intervals the recommendation can pick.
METHOD_LABELS = {
    "lang_reiczigel": "Rogan-Gladen + Lang-Reiczigel",
    "bayes_eti": "posterior median + equal-tailed",
    "bayes_hdi": "posterior mode + HDI",
    "ppi_pp": "PPI++",
    "ppi_pp_wald": "PPI++ (Wald, no small-sample correction)",
    "guaranteed": "Rogan-Gladen + guaranteed",
    "labels_only_blaker": "labels only, Blaker (exact)",
    "labels_only_cp": "labels only, Clopper-Pearson (exact)",
    "labels_only_bounds": "labels only, every possible share (exact)",
    "guaranteed_judge": "guaranteed, labels and judge (exact)",
    "posterior_eti": "random-design posterior, equal-tailed",
    "posterior_hdi": "random-design posterior, HDI",
}


@dataclass(frozen=True)
class Recommendation(EndpointsResult):
    """The interval to report, and why.

    Attributes
    ----------
    estimate, low, high : float
        Point estimate and interval.
    method : str
        Key of :data:`METHOD_LABELS`.
    level : float
        Confidence (or credibility) level.
    reason : str
        One plain sentence.
    coverage : float or None
        Smallest simulated (exact for Lang-Reiczigel) coverage of ``method`` over the regime's
        cells of the coverage table; None for the guaranteed interval (covers by construction)
        and for PPI++ computed at a level other than ``level`` by the random-design rule (its
        reason states the rule's simulated coverage).
    widened : bool
        True when the guaranteed interval was widened to contain the Lang-Reiczigel interval
        (see the module docstring); the interval still covers by construction.
    flags : tuple of str
        Empty: the reason says everything (the cross-check carries the flags).
    target : {"population", "items"}
        What the interval estimates: the accuracy of the process, or the share of correct
        items among the items evaluated (random design).
    estimate_from : str or None
        Where the point estimate comes from when it is not the method's own: for the
        guaranteed interval where the Rogan-Gladen estimate does not exist (an empty arm, or
        q0-hat + q1-hat <= 1), ``"posterior median"`` or ``"midpoint"``; it names the estimate
        in :attr:`label`. None: the method's own estimate.
    """

    title: ClassVar[str] = "judgestats recommended interval"

    estimate: float
    low: float
    high: float
    method: str
    level: float
    reason: str
    coverage: float | None = None
    widened: bool = False
    flags: tuple[str, ...] = ()
    target: str = "population"
    estimate_from: str | None = None

    @property
    def label(self) -> str:
        """Display name of the method (the point estimate's source first, where it differs)."""
        name = METHOD_LABELS[self.method]
        if self.estimate_from is not None and self.method == "guaranteed":
            name = f"{self.estimate_from} + guaranteed"
        return name + (", widened" if self.widened else "")

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of every field."""
        return to_json(
            {
                "method": self.method,
                "label": self.label,
                "estimate": self.estimate,
                "low": self.low,
                "high": self.high,
                "width": self.width,
                "level": self.level,
                "coverage": self.coverage,
                "widened": self.widened,
                "reason": self.reason,
                "target": self.target,
                "estimate_from": self.estimate_from,
            }
        )

    def summary(self) -> pd.DataFrame:
        """One row, indexed by the method's label: estimate, low, high, width, level, coverage.

        ``coverage`` is NaN for the guaranteed interval (it covers by construction).
        """
        import pandas as pd

        coverage = math.nan if self.coverage is None else self.coverage
        return pd.DataFrame(
            [[self.estimate, self.low, self.high, self.width, self.level, coverage, self.method]],
            index=pd.Index([self.label], name="recommended"),
            columns=["estimate", "low", "high", "width", "level", "coverage", "method"],
        )

    def _repr_html_(self) -> str:
        """Rich display: the interval and its reason (escaped)."""
        from judgestats._html import fmt4, result_block

        row = (self.label, *(fmt4(v) for v in (self.estimate, self.low, self.high, self.width)))
        notes = [("why", self.reason)]
        if self.coverage is not None:
            notes.insert(0, ("coverage", f"at least {self.coverage:.1%} in simulations"))
        title = f"judgestats recommended interval ({fmt_percent(self.level)})"
        return result_block(title, ("method", "estimate", "low", "high", "width"), [row], notes)

    def __str__(self) -> str:
        return (
            f"recommended: {self.label} {self.estimate:.4f} ({self.low:.4f}, "
            f"{self.high:.4f}), {fmt_percent(self.level)} interval for the {self.target} target\n"
            f"  why: {self.reason}"
        )
