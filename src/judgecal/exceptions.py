"""Warning classes of judgecal.

Every warning judgecal issues is a :class:`JudgeCalWarning`, so users can filter them in one line::

    warnings.simplefilter("ignore", judgecal.JudgeCalWarning)
"""

from __future__ import annotations

__all__ = ["JudgeCalWarning"]


class JudgeCalWarning(UserWarning):
    """A legal input or result that deserves the analyst's attention.

    Examples: an estimate clipped to [0, 1], a zero-width interval, a calibration arm with fewer
    than 30 items, array elements for which the judge is no better than chance.
    """
