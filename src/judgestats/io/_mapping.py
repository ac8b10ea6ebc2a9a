"""Verdicts and labels as tools write them, mapped to 0/1 or kept as the classes of a K-class judge.

**0/1 mapping** (:func:`map_verdicts`; the ``positive`` / ``negative`` / ``threshold`` options of
every reader and of :meth:`judgestats.JudgeData.from_frame`): ``positive`` values mean "correct"
(1), ``negative`` values "incorrect" (0). Values are compared by a *key*: booleans as
``true`` / ``false``; numbers by value, so ``2``, ``2.0``, ``numpy.float64(2.0)`` and the texts
``"2"``, ``" 2.0 "`` are one value (a gold-label column 1/2 with gaps, read as floats 1.0/2.0,
maps with ``positive=2, negative=1``); other text case-insensitively, ignoring surrounding spaces
(``"PASS"`` is ``" pass"``). A missing value (see :mod:`judgestats._labels`: None, NaN, pandas NA,
a blank string, "na"/"nan"/"none"/"null") stays missing, unless ``positive`` or ``negative`` names
it.

**Class values** (:func:`map_classes`): kept as written; only a blank string, None, NaN and pandas
NA are missing, since a class may be called ``"NA"``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import numpy as np
import pandas as pd

from judgestats._labels import is_missing, parse_binary
from judgestats._validate import check_classes

__all__ = [
    "VERDICT_PAIRS",
    "declared_classes",
    "map_classes",
    "map_verdicts",
    "set_options",
]

#: For a string ``positive``, its "incorrect" partner (compared case-insensitively).
VERDICT_PAIRS = {
    "c": "i",
    "i": "c",
    "pass": "fail",
    "fail": "pass",
    "passed": "failed",
    "failed": "passed",
    "yes": "no",
    "no": "yes",
    "y": "n",
    "n": "y",
    "true": "false",
    "false": "true",
    "correct": "incorrect",
    "incorrect": "correct",
    "1": "0",
    "0": "1",
}

_SHOWN = 5  # how many offending values or ids an error message lists


# ---- verdict mapping --------------------------------------------------------------------------
def map_verdicts(
    values: Any,
    *,
    positive: Any = None,
    threshold: float | None = None,
    negative: Any = None,
    name: str,
    source: str,
    option: str = "",
) -> pd.arrays.IntegerArray:
    """Map verdicts or labels as a tool writes them to 0/1 (``Int64``; missing stays ``<NA>``).

    Parameters
    ----------
    values : sequence
        One verdict per item: strings, booleans, numbers. Missing values (None, NaN, pandas NA,
        blank strings and the words "na", "nan", "none", "null"; :mod:`judgestats._labels`)
        become ``<NA>``, unless ``positive`` or ``negative`` names them.
    positive : scalar or sequence, optional
        The value(s) that mean "correct" (mapped to 1), e.g. ``"C"``, ``"PASS"``, ``2``, ``True``,
        or several spellings of "correct" such as ``["yes", "y"]``. Values are compared by key
        (see the module docstring): text case-insensitively, numbers by value (``2`` matches
        ``2.0`` and ``"2"``). Values mapped to 0 are ``negative`` when given; otherwise the
        usual partner of each positive word (C/I, PASS/FAIL, yes/no, y/n, true/false,
        correct/incorrect, 1/0); otherwise, if the column holds exactly one other value, that
        value. A list holding a word and its partner (``["C", "I"]``) is an error: it would map
        every verdict to 1.
    threshold : float, optional
        For numeric scores: a score ``>= threshold`` is 1, below it 0. Not with ``positive``.
    negative : scalar or sequence, optional
        The value(s) that mean "incorrect" (mapped to 0); needed when they cannot be inferred
        (e.g. a pairwise winner coded "model_a" / "model_b", or a column with a third value).
    name : str
        What the values are (a column or field name), for error messages.
    source : str
        Where the values come from (a path or ``"data frame"``), for error messages.
    option : str, default ""
        Prefix of the option names quoted in errors (``"human_"``: ``human_positive``).

    Without ``positive`` and ``threshold`` the values must already be 0/1 labels, read by the
    one rule of :func:`judgestats._labels.parse_binary`: booleans, the numbers 0 and 1, or the
    strings "0", "1", "0.0", "1.0", "true", "false" (case-insensitive, spaces stripped); text
    such as "1.00" or "01" is refused here as everywhere else.

    Returns
    -------
    pandas.arrays.IntegerArray
        ``Int64`` values 0, 1 or ``<NA>``, one per input value.

    Raises
    ------
    TypeError
        If ``positive`` or ``negative`` is neither a value (text, a number, a boolean) nor a
        flat list of values: a set, a mapping, a nested list.
    ValueError
        Naming ``name``, ``source`` and the option: values outside the mapping (with their
        counts) and the mapping in use; ``positive`` equal to (or sharing a value with)
        ``negative``; ``negative`` without ``positive``; several values besides ``positive``
        and no ``negative``; a column of three or more distinct values and no ``positive``;
        ``positive`` or ``negative`` with ``threshold``; a non-numeric score with ``threshold``;
        a value that is not one verdict (a list, a mapping, another object).

    Examples
    --------
    >>> winners = ["model_b", "model_a", None, "model_a"]
    >>> map_verdicts(winners, positive="model_a", negative="model_b", name="winner",
    ...              source="data frame").tolist()
    [0, 1, <NA>, 1]
    >>> map_verdicts([2.0, 1.0, float("nan"), "2"], positive=2, negative=1, name="gold",
    ...              source="data frame").tolist()
    [1, 0, <NA>, 1]
    """
    items = _as_list(values, name, source)
    _refuse_containers(items, name, source)
    if threshold is not None:
        if positive is not None or negative is not None:
            raise ValueError(
                f"`threshold` ({threshold!r}) and `{option}positive`/`{option}negative` "
                f"({positive!r}/{negative!r}) exclude each other: give a "
                "threshold for numeric scores or positive values for labels."
            )
        missing = [is_missing(v) for v in items]
        return _threshold(items, missing, threshold, name=name, source=source)
    if positive is None:
        if negative is not None:
            raise ValueError(
                f"`{option}negative` ({negative!r}) needs `{option}positive`: say which values "
                "mean 'correct' too."
            )
        mapping: dict[str, int] = {}
        convert: Callable[[Any], int | None] = parse_binary  # the one rule for a 0/1 label
        missing = [is_missing(v) for v in items]
        described = f"0/1 or true/false (give `{option}positive` to map other values"
        described += ", `threshold` for scores)" if not option else ")"
    else:
        mapping = _positive_mapping(items, positive, negative, name, source, option)
        named = {k for k in mapping if k}  # a word such as 'none' given as a value counts
        missing = [is_missing(v) and not (isinstance(v, str) and _key(v) in named) for v in items]
        ones = sorted(k for k, v in mapping.items() if v == 1)
        zeros = sorted(k for k, v in mapping.items() if v == 0)
        described = (
            f"{_listing(ones)} -> 1, "
            f"{_listing(zeros) if zeros else 'nothing'} -> 0 (case-insensitive)"
        )

        def convert(value: Any) -> int | None:
            return mapping.get(_key(value))

    out, shown = _converted(items, missing, convert)
    if shown:
        raise ValueError(
            f"{source}: `{name}` has values outside the mapping: {shown}; "
            f"allowed: {described}, or missing.{_hint(items, missing, mapping, positive, option)}"
        )
    return pd.array(out, dtype="Int64")


def _refuse_containers(items: list[Any], name: str, source: str) -> None:
    """Raise for a verdict that is a list, a mapping or another object, not one value.

    Read as the text of its ``repr``, ``[1]`` could be taken as the one value besides
    ``positive`` and mapped to 0 silently.
    """
    bad = [(i, v) for i, v in enumerate(items) if not (_is_value(v) or is_missing(v))]
    if bad:
        index, value = bad[0]
        raise ValueError(
            f"{source}: `{name}` has values outside the mapping: {value!r} (item {index}, a "
            f"{type(value).__name__}; {len(bad)} such item{'s' * (len(bad) != 1)}): a verdict "
            "is one value (text, a number or a boolean), not a container."
        )


def _hint(
    items: list[Any], missing: list[bool], mapping: Mapping[str, int], positive: Any, option: str
) -> str:
    """What to give when values fall outside the mapping (appended to the error)."""
    if positive is not None:
        if 0 in mapping.values():  # the 'incorrect' values were given or inferred
            return f" Give every value meaning 'incorrect' as `{option}negative`."
        return (
            " Which values mean 'incorrect' cannot be inferred (no usual partner of "
            f"`{option}positive` and more than one other value): give them as "
            f"`{option}negative`, or keep the values as classes (`classes=`)."
        )
    present = {_key(v) for v, gone in zip(items, missing, strict=True) if not gone}
    if len(present) < 3:
        return ""
    return (
        f" The column holds {len(present)} distinct values, but 0/1 labels have two: give "
        f"`{option}positive` and `{option}negative` (the values meaning 'correct' and "
        "'incorrect'), or keep the values as classes (`classes=`)."
    )


def _converted(
    items: list[Any], missing: list[bool], convert: Callable[[Any], Any]
) -> tuple[list[Any], str]:
    """Values converted (``<NA>`` where missing; None = cannot), and the unconvertible ones listed.

    The listing names each value with its count (at most ``_SHOWN`` of them); it is empty when
    every value converts.
    """
    out: list[Any] = []
    bad: dict[str, int] = {}
    for value, gone in zip(items, missing, strict=True):
        converted = None if gone else convert(value)
        if not gone and converted is None:
            bad[repr(_plain(value))] = bad.get(repr(_plain(value)), 0) + 1
        out.append(pd.NA if gone else converted)
    shown = ", ".join(f"{v} ({c} item{'s' * (c != 1)})" for v, c in list(bad.items())[:_SHOWN])
    more = f" and {len(bad) - _SHOWN} more" if len(bad) > _SHOWN else ""
    return out, shown + more


# ---- class values (K-class verdicts) -----------------------------------------------------------
def declared_classes(
    classes: Any, given: Mapping[str, Any], *, kept: str = "verdicts"
) -> tuple[Any, ...] | None:
    """A reader's ``classes`` checked (None when not given) against its 0/1 mapping options.

    ``given`` maps the argument name of every 0/1 option the caller set away from its default
    to its value; beside ``classes`` any of them raises a ValueError naming both (``kept`` says
    what the reader keeps as class values: "verdicts", "scores", ...).
    """
    if classes is None:
        return None
    declared = check_classes(classes)
    for argument, value in given.items():
        raise ValueError(
            f"`classes` ({list(declared)!r}) and `{argument}` ({value!r}) exclude each "
            f"other: with `classes` the {kept} are kept as class values, not mapped to 0/1."
        )
    return declared


def set_options(**options: Any) -> dict[str, Any]:
    """The options whose value is not None (for :func:`declared_classes`)."""
    return {name: value for name, value in options.items() if value is not None}


def map_classes(
    values: Any, *, classes: list[Any] | tuple[Any, ...], name: str, source: str
) -> pd.Series:
    """Keep verdicts or labels as class values of a K-class judge (missing stays ``<NA>``).

    Parameters
    ----------
    values : sequence
        One verdict per item; ``None``, NaN, pandas NA and empty strings are missing.
    classes : list or tuple of str or int
        The K >= 2 declared classes, e.g. ``["A", "B", "tie"]`` or ``[1, 2, 3, 4, 5]``.
    name : str
        What the values are (a column or field name), for error messages.
    source : str
        Where the values come from (a path or ``"data frame"``), for error messages.

    Values match the classes exactly as :class:`judgestats.kclass.KClassData` matches them:
    strings match strings (case and spaces count) and integers match integers (``1`` is not
    ``"1"``; booleans match nothing). A whole-number float such as ``2.0`` (an integer column
    with gaps, read from CSV) matches the integer class ``2``.

    Returns
    -------
    pandas.Series
        An ``object`` column (default index) holding, for each value, its declared class (so
        ``2.0`` becomes ``2``), or ``<NA>`` where the value is missing.

    Raises
    ------
    TypeError
        If ``classes`` is not a list or tuple of strings and integers.
    ValueError
        For fewer than two or repeated ``classes``; for values outside the classes, naming
        ``name``, ``source``, up to five such values with their counts, and the classes.

    Examples
    --------
    >>> list(map_classes(["A", "tie", None, "B"], classes=["A", "B", "tie"], name="verdict",
    ...                  source="data frame"))
    ['A', 'tie', <NA>, 'B']
    >>> list(map_classes([5.0, 3, float("nan")], classes=[1, 2, 3, 4, 5], name="score",
    ...                  source="data frame"))
    [5, 3, <NA>]
    """
    declared = check_classes(classes)
    lookup = {_class_key(c): c for c in declared}
    items = _as_list(values, name, source)
    missing = [is_missing(v, words=False) for v in items]  # a class may be called 'NA'
    out, shown = _converted(items, missing, lambda value: lookup.get(_class_key(value)))
    if shown:
        raise ValueError(
            f"{source}: `{name}` has values outside the declared classes: {shown}; the "
            f"classes are {list(declared)!r} (strings match strings, whole numbers match "
            "integers), or missing."
        )
    return pd.Series(out, dtype=object)


def _class_key(value: Any) -> tuple[bool, Any] | None:
    """Match key of a class value: strings as they are, integers and whole floats as int."""
    value = _plain(value)
    if isinstance(value, str):
        return (True, value)
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return (False, value)
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return (False, int(value))
    return None


def _positive_mapping(
    items: list[Any], positive: Any, negative: Any, name: str, source: str, option: str
) -> dict[str, int]:
    """Keys mapped to 1 (``positive``) and to 0 (``negative``, else inferred; see map_verdicts)."""
    ones = {_key(v) for v in _as_values(positive, f"{option}positive")}
    if negative is not None:
        zeros = {_key(v) for v in _as_values(negative, f"{option}negative")}
        overlap = ones & zeros
        if overlap:
            raise ValueError(
                f"`{option}positive` ({positive!r}) and `{option}negative` ({negative!r}) share "
                f"the value(s) {_listing(sorted(overlap))}: a value cannot mean both 'correct' "
                "and 'incorrect'."
            )
        return {**dict.fromkeys(zeros, 0), **dict.fromkeys(ones, 1)}
    both = sorted(k for k in ones if VERDICT_PAIRS.get(k) in ones)
    if both:
        raise ValueError(
            f"`{option}positive` ({positive!r}) holds both {both[0]!r} and its opposite "
            f"{VERDICT_PAIRS[both[0]]!r}: a list gives several spellings of 'correct' (e.g. "
            f"['yes', 'y']), all mapped to 1; give the values meaning 'incorrect' as "
            f"`{option}negative`."
        )
    zeros = {VERDICT_PAIRS[k] for k in ones if k in VERDICT_PAIRS}
    if not zeros:  # no known partner: the one other value in the column, if there is one
        others = {_key(v) for v in items if not is_missing(v)} - ones
        if len(others) == 1:
            zeros = others
    return {**dict.fromkeys(zeros, 0), **dict.fromkeys(ones, 1)}


def _threshold(
    items: list[Any], missing: list[bool], threshold: Any, *, name: str, source: str
) -> pd.arrays.IntegerArray:
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, (int, float, np.number))
        or not math.isfinite(threshold)
    ):
        raise ValueError(f"`threshold` must be a finite number, got {threshold!r}.")

    def convert(value: Any) -> int | None:
        number = _number(value)
        return None if number is None else int(number >= threshold)

    out, shown = _converted(items, missing, convert)
    if shown:
        raise ValueError(
            f"{source}: `{name}` must hold numeric scores with `threshold` "
            f"({threshold!r}), but has {shown}."
        )
    return pd.array(out, dtype="Int64")


def _number(value: Any) -> float | None:
    if isinstance(value, (bool, np.bool_)):
        return None
    if isinstance(value, (int, float, np.integer, np.floating)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            return None
        return number if math.isfinite(number) else None
    return None


def _key(value: Any) -> str:
    """Comparison key of a verdict (see the module docstring).

    Booleans are 'true' / 'false'; a number, or text that reads as one, is its value written
    plainly ('2' for 2, 2.0 and " 2.0 "; '0.5' for 0.5 and "0.50"); other text is lowercased
    and stripped.
    """
    value = _plain(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        text = value.strip().lower()
        try:
            number: float = float(text)
        except ValueError:
            return text
    elif isinstance(value, (int, float)):
        number = value
    else:
        return str(value).strip().lower()
    if isinstance(number, int):
        return str(number)
    if not math.isfinite(number):
        return str(value).strip().lower()
    return str(int(number)) if number.is_integer() else repr(number)


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _is_value(value: Any) -> bool:
    """Whether ``value`` is one verdict value: text, a number, a boolean or None."""
    return value is None or isinstance(value, (str, bytes, numbers.Number, np.generic))


def _as_values(value: Any, option: str) -> list[Any]:
    """``positive`` / ``negative`` as a list of values: one value, or a flat sequence of them.

    A set, a mapping or any other object is a TypeError naming ``option``: read as one value, a
    set ``{"A"}`` became the text "{'a'}", which no verdict matches.
    """
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value.item()
    if _is_value(value):
        return [value]
    if not isinstance(value, (list, tuple, np.ndarray, pd.Series, pd.Index)):
        raise TypeError(
            f"`{option}` must be a value or a list of values (text, numbers or booleans), "
            f"got {type(value).__name__} {value!r}; give several spellings of one answer "
            "as a list, e.g. ['yes', 'y']."
        )
    values = list(value)
    if not values or not all(_is_value(v) for v in values):
        raise TypeError(
            f"`{option}` ({value!r}) must be a value or a flat, non-empty list of values "
            "(several spellings of one answer, e.g. ['yes', 'y'])."
        )
    return values


def _as_list(values: Any, name: str, source: str) -> list[Any]:
    scalar = not hasattr(values, "__iter__") or getattr(values, "ndim", 1) == 0
    if isinstance(values, (str, bytes, Mapping)) or scalar:  # np.ndim fails on ragged lists
        raise TypeError(
            f"{source}: `{name}` must be a sequence of verdicts, got {type(values).__name__}."
        )
    if hasattr(values, "to_numpy"):
        values = values.to_numpy(dtype=object)
    return list(values)


def _listing(values: Iterable[Any]) -> str:
    return ", ".join(repr(v) for v in values)
