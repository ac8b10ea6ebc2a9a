"""The anytime-valid interval of a labelling session at one time."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from judgestats._html import fmt_percent
from judgestats._json import to_json
from judgestats.results import Result

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["SequentialInterval"]


@dataclass(frozen=True, repr=False)
class SequentialInterval(Result):
    """The anytime-valid interval after the labels given so far.

    Attributes
    ----------
    target : {"items", "population"}
        The share of correct items among the ``n_items`` evaluated, or the accuracy of the
        process that produced them.
    confidence_level : float
        The interval holds the target at every time of the labelling at once with at least
        this probability.
    estimate : float
        The judge's rate corrected by the mean labelled error (inside the interval).
    low, high : float
    n_labelled, n_items : int
    """

    title: ClassVar[str] = "judgestats anytime-valid interval"

    target: str
    confidence_level: float
    estimate: float
    low: float
    high: float
    n_labelled: int
    n_items: int
    flags: tuple[str, ...] = ()

    @property
    def width(self) -> float:
        """``high - low``."""
        return self.high - self.low

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of every number."""
        return to_json(
            {
                "target": self.target,
                "confidence_level": self.confidence_level,
                "estimate": self.estimate,
                "low": self.low,
                "high": self.high,
                "width": self.width,
                "n_labelled": self.n_labelled,
                "n_items": self.n_items,
                "flags": {},
            }
        )

    def summary(self) -> pd.DataFrame:
        """One row: estimate, low, high, width, labelled, items (target in ``.attrs``)."""
        import pandas as pd

        frame = pd.DataFrame(
            [[self.estimate, self.low, self.high, self.width, self.n_labelled, self.n_items]],
            columns=["estimate", "low", "high", "width", "labelled", "items"],
            index=pd.Index(["anytime-valid"], name="method"),
        )
        frame.attrs["target"] = self.target
        return frame

    def __str__(self) -> str:
        from judgestats.designs.labels_only import describe_target

        what = describe_target(self.target, self.n_items).removeprefix("the ")
        return (
            f"anytime-valid {fmt_percent(self.confidence_level)} interval (target "
            f"{self.target}: {what}): {self.estimate:.4f} ({self.low:.4f}, {self.high:.4f}), "
            f"width {self.width:.4f}, {self.n_labelled} of {self.n_items} items labelled"
        )

    def __repr__(self) -> str:
        return (
            f"SequentialInterval(target={self.target!r}, "
            f"confidence_level={self.confidence_level!r}, estimate={self.estimate!r}, "
            f"low={self.low!r}, high={self.high!r}, n_labelled={self.n_labelled!r}, "
            f"n_items={self.n_items!r})"
        )
