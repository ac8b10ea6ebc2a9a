"""Warning classes of judgestats.

Every warning judgestats issues is a :class:`JudgeStatsWarning`, so users can filter them in
one line::

    warnings.simplefilter("ignore", judgestats.JudgeStatsWarning)
"""

from __future__ import annotations

__all__ = ["JudgeStatsWarning"]


class JudgeStatsWarning(UserWarning):
    """A legal input or result that deserves the analyst's attention.

    Examples: an estimate clipped to [0, 1], a zero-width interval, a calibration arm with fewer
    than 30 items, array elements for which the judge is no better than chance.
    """
