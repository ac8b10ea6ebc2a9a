"""Former home of the cross-check, kept so that imports written before the move keep working.

The cross-check now lives in :mod:`judgestats.recommendation` (with the recommendation rules);
import it from there.
"""

from judgestats.recommendation.cross_flags import CONFLICT_FLAGS
from judgestats.recommendation.side_by_side import FLAGS, ROW_LABELS, ROWS, CrossCheck, crosscheck

__all__ = ["CONFLICT_FLAGS", "FLAGS", "ROWS", "ROW_LABELS", "CrossCheck", "crosscheck"]
