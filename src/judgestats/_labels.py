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
import numbers
from decimal import Decimal
from typing import Any, NoReturn

import numpy as np

from judgestats._validate import check_one_dimensional, refuse_masked

__all__ = [
    "FALSE_WORDS",
    "MISSING_WORDS",
    "TRUE_WORDS",
    "binary_labels",
    "calibration_counts",
    "calibration_labels",
    "is_missing",
    "parse_binary",
]

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
    if isinstance(value, (numbers.Real, Decimal)):  # Decimal: pyarrow's decimal columns
        return (1 if value == 1 else 0) if value in (0, 1) else None
    if isinstance(value, str):
        word = value.strip().lower()
        if word in TRUE_WORDS:
            return 1
        if word in FALSE_WORDS:
            return 0
    return None


def binary_labels(values: Any, name: str, *, allow_missing: bool = False) -> np.ndarray:
    """Validate a 1-D sequence of 0/1 labels; return an int8 copy (the input is not modified).

    Every item follows the module docstring's rule for a 0/1 label, as :func:`parse_binary`
    reads it: ``1``/``0``, ``1.0``/``0.0``, booleans, and the strings of :data:`TRUE_WORDS` and
    :data:`FALSE_WORDS` (``"1"``, ``"1.0"``, ``"true"`` / ``"0"``, ``"0.0"``, ``"false"``,
    case-insensitive, spaces stripped), so the file readers and this function accept the same
    labels.

    Parameters
    ----------
    values : sequence
        The labels: a list, tuple, numpy array (numeric, boolean, string or object) or pandas
        Series. A single value, a string, bytes, a masked array or a nested sequence is refused.
    name : str
        The argument's name, quoted in errors.
    allow_missing : bool, default False
        Whether a missing value (see :func:`is_missing`: NaN, None, pandas NA, a blank string,
        or a word of :data:`MISSING_WORDS` such as ``"NA"``) is accepted, as -1 (unlabelled).

    Returns
    -------
    numpy.ndarray
        ``int8`` values 0 and 1 (and -1 for the missing values allowed), one per item.

    Raises
    ------
    TypeError
        If ``values`` is a single value, a string or bytes, or a masked array.
    ValueError
        Naming ``name`` and the first bad item with its repr: a value that is not a 0/1 label
        (``2``, ``0.5``, ``"yes"``, bytes), a missing value without ``allow_missing``, or a
        nested sequence.

    Examples
    --------
    >>> binary_labels(["1", " True ", "0.0", False], "x").tolist()
    [1, 1, 0, 0]
    >>> binary_labels([1, None, "NA"], "x", allow_missing=True).tolist()
    [1, -1, -1]
    """
    refuse_masked(values, name)
    kind = type(values).__name__
    if hasattr(values, "to_numpy"):  # pandas Series / Index; nullable dtypes become objects
        values = values.to_numpy(dtype=object)
    try:
        array = np.asarray(values)
    except ValueError:  # numpy's "inhomogeneous shape": a ragged nested list
        raise ValueError(f"`{name}` must be one-dimensional, got a nested sequence.") from None
    if isinstance(values, (str, bytes)) or array.ndim == 0:
        raise TypeError(f"`{name}` must be a sequence of 0/1 labels, got {kind}.")
    check_one_dimensional(array, name)  # 2-D: not flattened, which would pair values wrongly
    if array.dtype.kind == "U" and not isinstance(values, np.ndarray):
        array = np.asarray(values, dtype=object)  # numpy wrote [0.5, "1"] as ["0.5", "1"]
    if array.dtype.kind == "b":
        return array.astype(np.int8)
    if array.dtype.kind in "iu":
        bad = (array != 0) & (array != 1)
    elif array.dtype.kind == "f":
        bad = ~((array == 0.0) | (array == 1.0))  # NaN is bad ...
        if allow_missing:  # ... unless it marks an unlabelled item
            bad &= ~np.isnan(array)
            if not bad.any():
                return np.where(np.isnan(array), -1, array).astype(np.int8)
    else:  # strings, objects (mixed cells, pandas), bytes: item by item, by the module's rule
        parsed = [
            -1 if allow_missing and is_missing(v) else parse_binary(v) for v in array.tolist()
        ]
        bad = np.array([v is None for v in parsed], dtype=bool)
        if not bad.any():
            return np.array(parsed, dtype=np.int8)
    if bad.any():
        _refuse_item(array, int(np.flatnonzero(bad)[0]), name)
    return array.astype(np.int8)


def _refuse_item(array: np.ndarray, index: int, name: str) -> NoReturn:
    """Raise the ValueError of :func:`binary_labels` for its first bad item, ``array[index]``."""
    value = array[index]
    value = value.item() if isinstance(value, np.generic) else value
    if value is None or (isinstance(value, float) and math.isnan(value)):
        what = "a missing value (NaN/None)"
    elif is_missing(value):
        what = f"a missing value ({value!r})"
    else:
        what = repr(value)
    words = " / ".join(", ".join(map(repr, sorted(w))) for w in (TRUE_WORDS, FALSE_WORDS))
    raise ValueError(
        f"`{name}` must hold only 0/1 labels (booleans and the text {words} accepted); "
        f"item {index} is {what}."
    )


def calibration_labels(calib_human: Any, calib_judge: Any) -> tuple[np.ndarray, np.ndarray]:
    """The calibration labels as checked 0/1 arrays (:func:`binary_labels`) of the same length.

    One human label and one judge verdict per calibration item; the one reader of calibration
    label pairs (:meth:`JudgeData.from_labels`, :func:`judgestats.ppi`, ``ModelLabels``).

    Raises
    ------
    ValueError
        If a label is not 0/1 (naming the argument) or the two arrays differ in length.
    """
    human = binary_labels(calib_human, "calib_human")
    judge = binary_labels(calib_judge, "calib_judge")
    if human.size != judge.size:
        raise ValueError(
            f"`calib_human` ({human.size} items) and `calib_judge` ({judge.size} items) must "
            "have the same length: one human label and one judge verdict per calibration item."
        )
    return human, judge


def calibration_counts(human: np.ndarray, judge: np.ndarray) -> tuple[int, int, int, int]:
    """The calibration counts ``(k0, m0, k1, m1)`` of paired 0/1 label arrays (checked, same size).

    ``m1`` items have human label 1 and ``m0`` label 0; ``k0`` of the truly-incorrect and ``k1``
    of the truly-correct items got the same verdict from the judge. No class is required.
    """
    m1 = int(np.count_nonzero(human == 1))
    k0 = int(np.count_nonzero((human == 0) & (judge == 0)))
    k1 = int(np.count_nonzero((human == 1) & (judge == 1)))
    return k0, int(human.size) - m1, k1, m1
