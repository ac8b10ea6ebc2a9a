"""What counts as a missing label, and how a 0/1 label may be written: the one home of both rules.

Every reader of item-level labels (:meth:`judgestats.JudgeData.from_labels` and ``from_csv``, the
readers of :mod:`judgestats.io`, :class:`judgestats.kclass.KClassData`) asks this module.

**Missing values.** Always missing: ``None``, a float NaN (Python or numpy), pandas' ``NA`` and
``NaT``, numpy's ``NaT``, and a blank string (empty or spaces only). A string that is one of
:data:`MISSING_WORDS` (``"na"``, ``"nan"``, ``"none"``, ``"null"``, compared case-insensitively
after stripping spaces; the words R, pandas and JSON write for "no value") is missing too where
the values are 0/1 labels or verdicts, which such a word can never be. Where a value is a class
of a K-class judge (or a verdict value named explicitly, e.g. ``positive="none"``), it is kept as
written: a class may be called ``"NA"``, so only the blank string is missing there
(``words=False``).

**0/1 labels.** A label is 1 when written ``1``, ``1.0``, ``True`` or as one of the strings of
:data:`TRUE_WORDS`, and 0 for ``0``, ``0.0``, ``False`` or one of :data:`FALSE_WORDS` (strings
compared case-insensitively after stripping spaces).

Ground floor: numpy only (pandas' missing markers are recognised without importing pandas).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["FALSE_WORDS", "MISSING_WORDS", "TRUE_WORDS", "is_missing", "parse_binary"]

#: Strings that mean "no value" where the values are 0/1 labels (besides the blank string).
MISSING_WORDS = frozenset({"", "na", "nan", "none", "null"})

#: Strings that are the 0/1 label 1 ("correct").
TRUE_WORDS = frozenset({"1", "1.0", "true"})

#: Strings that are the 0/1 label 0 ("incorrect").
FALSE_WORDS = frozenset({"0", "0.0", "false"})


def is_missing(value: Any, *, words: bool = True) -> bool:
    """Whether ``value`` is a missing label (see the module docstring for the rule).

    Parameters
    ----------
    value : object
        One label or verdict as given.
    words : bool, default True
        Whether the strings of :data:`MISSING_WORDS` count as missing (0/1 labels). With
        ``False`` (class values, kept as written) only a blank string is missing.

    Examples
    --------
    >>> is_missing(float("nan")), is_missing(" NA "), is_missing("NA", words=False)
    (True, True, False)
    >>> is_missing(""), is_missing(" ", words=False), is_missing(0)
    (True, True, False)
    """
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    if isinstance(value, (float, np.floating)):
        return math.isnan(value)
    if isinstance(value, (np.datetime64, np.timedelta64)):
        return bool(np.isnat(value))
    if isinstance(value, str):
        word = value.strip().lower()
        return not word or (words and word in MISSING_WORDS)
    return False


def parse_binary(value: Any) -> int | None:
    """A 0/1 label written as a number, a bool or a word, as 0 or 1; None if it is not one.

    Examples
    --------
    >>> parse_binary(" True "), parse_binary(0.0), parse_binary("1.0"), parse_binary(2)
    (1, 0, 1, None)
    """
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return int(value) if value in (0, 1) else None
    if isinstance(value, str):
        word = value.strip().lower()
        if word in TRUE_WORDS:
            return 1
        if word in FALSE_WORDS:
            return 0
    return None
