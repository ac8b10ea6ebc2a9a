"""Result objects: numbers, not strings, with ``to_dict()``, ``summary()`` and a precise repr.

Rounding happens only when printing (:meth:`Estimate.__str__`, the CLI); the fields hold full
precision.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Mapping

    import pandas as pd

    from judgecal.data import JudgeData

__all__ = ["FLAG_MESSAGES", "WEAK_YOUDEN", "ConfidenceInterval", "Estimate", "format_report"]


class ConfidenceInterval(NamedTuple):
    """A two-sided interval ``(low, high)``: floats, or arrays of the broadcast input shape."""

    low: Any
    high: Any


#: Plain-language explanation of every flag an :class:`Estimate` (or a
#: :class:`~judgecal.ppi.PPIResult`) can carry.
#: Youden's J below which a judge counts as weak (the correction divides by J); used by the
#: posterior's ``weak_judge`` flag and the comparison's judge diagnostics.
WEAK_YOUDEN = 0.2

FLAG_MESSAGES = {
    "clipped": "the Rogan-Gladen estimate fell outside [0, 1] and was clipped to the boundary",
    "zero_width": "the interval has zero width after truncation to [0, 1]",
    "small_calibration": "a calibration arm has fewer than 30 items; the interval's normal "
    "approximation is rough; the cross-check's recommended interval (judgecal.crosscheck) says "
    "what to report",
    "p_outside_judge_range": "the judged-correct rate p-hat lies outside [1 - q0-hat, q1-hat], "
    "the range the estimated judge can produce for any true accuracy",
    "one_class_labelled": "the labelled sample holds items of one true class only (m0 = 0 or "
    "m1 = 0), so the judge's error rate on the other class is not measured and closed-form "
    "variance estimates are degenerate; the posterior (judgecal.posterior), which takes that "
    "rate from its prior and learns the accuracy from the class count m1 of m, is the safer "
    "report",
    "estimate_clipped": "the point estimate fell outside [0, 1] and was clipped to the boundary",
    "interval_truncated": "the interval reached outside [0, 1] and was truncated to [0, 1]",
    "clustered": "item ids repeat (items judged several times), so every row is one judgment and "
    "the rows of one id form a cluster: the estimate uses every row, the interval the "
    "cluster-robust effective sizes (judgecal.estimate_items)",
    "missing_class": "the group has no labelled item of one true class (m0 = 0 or m1 = 0), so "
    "the judge's error rate on that class is not measured there and the group has no estimate",
    "no_test_items": "every item of the group has a human label, so no test items are left and "
    "the group has no estimate",
    "no_better_than_chance": "the judge is no better than chance in this group (q0 + q1 - 1 <= 0, "
    "or its Laplace-adjusted version), so no correction exists and the group has no estimate",
}


@dataclass(frozen=True)
class Estimate:
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
    def width(self) -> float:
        """Width of the interval around the Rogan-Gladen estimate."""
        return self.ci.high - self.ci.low

    @property
    def flag_messages(self) -> list[str]:
        """The flags as plain-language sentences."""
        return [FLAG_MESSAGES[flag] for flag in self.flags]

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
        from judgecal._html import fmt4, result_block

        d = self.data
        title = (
            f"judgecal estimate ({100 * self.confidence_level:g}% intervals): k = {d.k} of "
            f"n = {d.n}, q0 = {d.k0}/{d.m0}, q1 = {d.k1}/{d.m1}, J = {fmt4(d.youden)}"
        )
        rows = [(name, *(fmt4(v) for v in row)) for name, row in self._rows().items()]
        notes = [(flag, FLAG_MESSAGES[flag]) for flag in self.flags]
        return result_block(title, ("method", "estimate", "low", "high", "width"), rows, notes)

    def __str__(self) -> str:
        title = f"judgecal estimate ({100 * self.confidence_level:g}% intervals)"
        notes = [f"warning: {message}" for message in self.flag_messages]
        return format_report(title, self.data, self._rows(), notes)


def format_report(
    title: str, data: JudgeData, rows: Mapping[str, tuple[float, ...]], notes: list[str]
) -> str:
    """Render a printed report: title, the counts, one line per method, then notes.

    ``rows`` maps a method label to (estimate, low, high, width). Numbers are rounded to four
    decimals here and only here.
    """
    d = data
    lines = [
        title,
        f"  test set      : {d.k} of {d.n} judged correct (p-hat = {d.p:.4f})",
        f"  calibration   : specificity q0 = {d.k0}/{d.m0} = {d.q0:.4f}, "
        f"sensitivity q1 = {d.k1}/{d.m1} = {d.q1:.4f}, J = {d.youden:.4f}",
        f"  {'method':<34}{'estimate':>9}{'low':>9}{'high':>9}{'width':>9}",
    ]
    for name, row in rows.items():
        lines.append(f"  {name:<34}" + "".join(f"{value:9.4f}" for value in row))
    lines += [f"  {note}" for note in notes]
    return "\n".join(lines)
