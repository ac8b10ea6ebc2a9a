"""The result contract: every judgestats result is a :class:`Result`; intervals are one shape.

* :class:`ConfidenceInterval` -- ``(low, high)``, the one interval shape (floats, or arrays).
* :class:`IntervalResult` -- one estimate with its interval, level, method and flags: the row of
  every table (the estimate, PPI, the shift estimators, the comparison, the cross-check).
* :class:`EndpointsResult` -- a :class:`Result` whose interval is held as ``low``, ``high``
  fields (the recommendations): its ``ci``, ``width`` and :class:`IntervalResult`.
* :class:`Result` -- what every result object offers: ``flags`` (stable keys of
  :data:`FLAG_MESSAGES`; tests assert keys, never sentences), ``flag_messages``, ``to_dict()``
  (JSON-safe), ``summary()`` (a :class:`pandas.DataFrame`; nothing prints), ``plot(ax=None)``
  (returns the Axes), ``_repr_html_()`` and ``str()``.

Rounding happens only when printing (``__str__``, the CLI, the HTML); the fields hold full
precision.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from judgestats._html import fmt_percent
from judgestats._json import to_json

if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Iterator, Mapping

    import pandas as pd
    from matplotlib.axes import Axes

    from judgestats.data import JudgeData

__all__ = [
    "FLAG_MESSAGES",
    "WEAK_YOUDEN",
    "ConfidenceInterval",
    "IntervalResult",
    "Result",
    "format_report",
    "register_flags",
]


class ConfidenceInterval(NamedTuple):
    """A two-sided interval ``(low, high)``: floats, or arrays of the broadcast input shape."""

    low: Any
    high: Any


#: Plain-language explanation of every flag an :class:`Estimate` (or a
#: :class:`~judgestats.designs.prediction_powered.PPIResult`) can carry.
#: Youden's J below which a judge counts as weak (the correction divides by J); used by the
#: posterior's ``weak_judge`` flag and the comparison's judge diagnostics.
WEAK_YOUDEN = 0.2

FLAG_MESSAGES = {
    "clipped": "the Rogan-Gladen estimate fell outside [0, 1] and was clipped to the boundary",
    "zero_width": "the interval has zero width after truncation to [0, 1]",
    "small_calibration": "a calibration arm has fewer than 30 items; the interval's normal "
    "approximation is rough; the cross-check's recommended interval (judgestats.crosscheck) says "
    "what to report",
    "p_outside_judge_range": "the judged-correct rate p-hat lies outside [1 - q0-hat, q1-hat], "
    "the range the estimated judge can produce for any true accuracy",
    "one_class_labelled": "the labelled sample holds items of one true class only (m0 = 0 or "
    "m1 = 0), so the judge's error rate on the other class is not measured and closed-form "
    "variance estimates are degenerate; the posterior (judgestats.posterior), which takes that "
    "rate from its prior and learns the accuracy from the class count m1 of m, is the safer "
    "report",
    "estimate_clipped": "the point estimate fell outside [0, 1] and was clipped to the boundary",
    "interval_truncated": "the interval reached outside [0, 1] and was truncated to [0, 1]",
    "clustered": "item ids repeat (items judged several times), so every row is one judgment and "
    "the rows of one id form a cluster: the estimate uses every row, the interval the "
    "cluster-robust effective sizes (judgestats.estimate_items)",
    "missing_class": "the group has no labelled item of one true class (m0 = 0 or m1 = 0), so "
    "the judge's error rate on that class is not measured there and the group has no estimate",
    "no_test_items": "every item of the group has a human label, so no test items are left and "
    "the group has no estimate",
    "labels_only": "the judge is no better than chance on the labelled random sample (J-hat <= 0, "
    "or its Laplace-adjusted version), so no correction exists; the estimate is the labelled "
    "share m1 / m with Blaker's exact interval from the labelled items alone",
    "no_better_than_chance": "the judge is no better than chance in this group (q0 + q1 - 1 <= 0, "
    "or its Laplace-adjusted version), so no correction exists and the group has no estimate",
}


def register_flags(catalogue: Mapping[str, str]) -> Mapping[str, str]:
    """Add a module's flags to :data:`FLAG_MESSAGES` (the one catalogue); returns ``catalogue``.

    Called at import time by the module that raises the flags, so a key is defined next to the
    code that sets it. A key may be registered twice only with the same sentence.

    Raises
    ------
    ValueError
        If a key is already registered with a different sentence.
    """
    for key, message in catalogue.items():
        if FLAG_MESSAGES.setdefault(key, message) != message:
            raise ValueError(f"flag `{key}` is already registered with another message.")
    return catalogue


class Result(abc.ABC):
    """The contract of every judgestats result object.

    Subclasses (frozen dataclasses) define ``flags`` (keys of :data:`FLAG_MESSAGES`),
    :meth:`to_dict` and :meth:`summary`; :meth:`plot` and :meth:`_repr_html_` default to a
    forest plot and a table of :meth:`summary`'s ``estimate``/``low``/``high`` rows.
    """

    #: Caption of the default HTML table and plot title.
    title: ClassVar[str] = "judgestats result"
    flags: tuple[str, ...]

    @property
    def flag_messages(self) -> list[str]:
        """The flags as plain-language sentences, in the order of :attr:`flags`."""
        return [FLAG_MESSAGES[flag] for flag in self.flags]

    @abc.abstractmethod
    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict of every number, the inputs and the flags."""

    @abc.abstractmethod
    def summary(self) -> pd.DataFrame:
        """Return the result as a table (one row per estimate or quantity); never prints."""

    def plot(self, ax: Axes | None = None) -> Axes:
        """Draw each row of :meth:`summary` as a point with its interval; returns the Axes."""
        return forest_plot(self.summary(), ax=ax, title=self.title)

    def _repr_html_(self) -> str:
        """Rich display for notebooks: :meth:`summary` as a table, then the flags (escaped)."""
        from judgestats._html import result_block

        frame = self.summary()
        header = (frame.index.name or "", *map(str, frame.columns))
        rows = [(name, *(_cell(value) for value in row)) for name, row in frame.iterrows()]
        notes = [(flag, FLAG_MESSAGES[flag]) for flag in self.flags]
        return result_block(self.title, header, rows, notes)


def _cell(value: Any) -> str:
    """A table cell: numbers with four decimals (:func:`judgestats._html.fmt4`), text as is."""
    from judgestats._html import fmt4

    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return fmt4(value)
    return str(value)


def forest_plot(frame: pd.DataFrame, *, ax: Axes | None = None, title: str = "") -> Axes:
    """Rows of ``frame`` with ``estimate``, ``low``, ``high`` columns as points with intervals.

    The first row is drawn at the top; rows without an interval (NaN) show only their label.
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6, 0.5 + 0.45 * max(len(frame), 1)))
    positions = list(range(len(frame)))[::-1]
    for y, (_, row) in zip(positions, frame.iterrows(), strict=True):
        ax.plot([row["low"], row["high"]], [y, y], color="tab:blue", lw=2.5)
        ax.plot([row["estimate"]], [y], "o", color="black", ms=5)
    ax.set_yticks(positions, [str(name) for name in frame.index])
    ax.set_ylim(-0.7, len(frame) - 0.3)
    ax.set_xlabel("estimate and interval")
    if title:
        ax.set_title(title)
    return ax


@dataclass(frozen=True)
class IntervalResult(Result):
    """One estimate with its interval: the row of every judgestats table.

    Unpacks as ``estimate, low, high = result``.

    Attributes
    ----------
    estimate : float
        The point estimate.
    ci : ConfidenceInterval
        The interval ``(low, high)`` (credible interval for a posterior row).
    confidence_level : float
        Its level.
    method : str
        Which estimator and interval, e.g. ``"rogan_gladen+lang_reiczigel"``.
    flags : tuple of str
        Keys of :data:`FLAG_MESSAGES` that apply.
    """

    estimate: float
    ci: ConfidenceInterval
    confidence_level: float
    method: str
    flags: tuple[str, ...] = ()

    title: ClassVar[str] = "judgestats interval"

    @property
    def low(self) -> float:
        """Lower end of the interval."""
        return self.ci.low

    @property
    def high(self) -> float:
        """Upper end of the interval."""
        return self.ci.high

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.ci.high - self.ci.low

    def __iter__(self) -> Iterator[float]:
        return iter((self.estimate, self.ci.low, self.ci.high))

    def contains(self, value: float) -> bool:
        """Whether ``low <= value <= high``."""
        return bool(self.ci.low <= value <= self.ci.high)

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict: method, level, estimate, low, high and the flags."""
        return to_json(
            {
                "method": self.method,
                "confidence_level": self.confidence_level,
                "estimate": self.estimate,
                "low": self.ci.low,
                "high": self.ci.high,
                "flags": {flag: FLAG_MESSAGES[flag] for flag in self.flags},
            }
        )

    def summary(self) -> pd.DataFrame:
        """Return a one-row table indexed by ``method``: estimate, low, high, width."""
        import pandas as pd

        frame = pd.DataFrame(
            [[self.estimate, self.ci.low, self.ci.high, self.width]],
            index=pd.Index([self.method], name="method"),
            columns=["estimate", "low", "high", "width"],
        )
        return frame

    def __str__(self) -> str:
        text = (
            f"{self.method}: {self.estimate:.4f} ({fmt_percent(self.confidence_level)} interval "
            f"{self.ci.low:.4f} to {self.ci.high:.4f})"
        )
        return "\n".join([text, *(f"  warning: {m}" for m in self.flag_messages)])


class EndpointsResult(Result):
    """A result that holds its interval as its ends: ``estimate``, ``low``, ``high`` fields.

    Subclasses (frozen dataclasses) define the fields ``estimate``, ``low``, ``high``,
    ``method``, ``level`` and ``flags``; this class derives :attr:`ci`, :attr:`width` and
    :attr:`interval` from them.
    """

    estimate: float
    low: float
    high: float
    method: str
    level: float

    @property
    def ci(self) -> ConfidenceInterval:
        """``(low, high)``."""
        return ConfidenceInterval(self.low, self.high)

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.high - self.low

    @property
    def interval(self) -> IntervalResult:
        """The estimate and interval as an :class:`IntervalResult`."""
        return IntervalResult(self.estimate, self.ci, self.level, self.method, self.flags)


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
