"""The items frame: the one table every reader in :mod:`judgestats.io` returns.

An *items frame* is a :class:`pandas.DataFrame` with one row per judged item (per epoch, where an
item was judged several times) and the columns

``id``
    the item id as the tool writes it, converted to ``str``;
``judge``
    the judge's verdict, pandas nullable ``Int64``: 1 = "correct", 0 = "incorrect", ``<NA>`` where
    the judge gave no verdict;
``human``
    the human label, ``Int64``: 1, 0, or ``<NA>`` where no person labelled the item;

optionally ``epoch`` (the repetition of a repeatedly judged item) and metadata columns a reader
keeps (``model``, ``task``, ...). ``frame.attrs["source"]`` names where the items came from (a
path, or a short description such as ``"data frame"``); errors quote it.

:meth:`judgestats.JudgeData.from_items` counts such a frame.

A reader given ``classes=`` (a judge with K verdicts: A / B / tie, scores 1-5, ...) instead keeps
each verdict and label as its class value (see :func:`map_classes`): ``judge`` and ``human`` are
then ``object`` columns of class values or ``<NA>``, ``frame.attrs["classes"]`` lists the declared
classes, and :meth:`judgestats.kclass.KClassData.from_items` counts the frame.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, cast

import numpy as np
import pandas as pd

from judgestats._validate import check_classes

__all__ = [
    "ITEM_COLUMNS",
    "item_ids",
    "items_frame",
    "join_human",
    "load_json",
    "declared_classes",
    "map_classes",
    "map_verdicts",
    "read_table",
    "set_options",
]

#: The columns every items frame has, in order.
ITEM_COLUMNS = ("id", "judge", "human")

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
) -> pd.arrays.IntegerArray:
    """Map verdicts or labels as a tool writes them to 0/1 (``Int64``; missing stays ``<NA>``).

    Parameters
    ----------
    values : sequence
        One verdict per item: strings, booleans, numbers; ``None``, NaN, pandas NA and empty
        strings are missing and become ``<NA>``.
    positive : scalar or sequence, optional
        The value(s) that mean "correct" (mapped to 1), e.g. ``"C"``, ``"PASS"``, ``["yes", "y"]``
        or ``True``. Strings are compared case-insensitively, ignoring surrounding spaces. Values
        mapped to 0 are ``negative`` when given; otherwise the usual partner of each positive word
        (C/I, PASS/FAIL, yes/no, y/n, true/false, correct/incorrect, 1/0); otherwise, if the
        column holds exactly one other value, that value.
    threshold : float, optional
        For numeric scores: a score ``>= threshold`` is 1, below it 0. Not with ``positive``.
    negative : scalar or sequence, optional
        The value(s) that mean "incorrect" (mapped to 0), when they cannot be inferred.
    name : str
        What the values are (a column or field name), for error messages.
    source : str
        Where the values come from (a path or ``"data frame"``), for error messages.

    Without ``positive`` and ``threshold`` the values must already be 0/1: booleans, the
    numbers 0 and 1, or the strings "0", "1", "true", "false".

    Returns
    -------
    pandas.arrays.IntegerArray
        ``Int64`` values 0, 1 or ``<NA>``, one per input value.

    Raises
    ------
    ValueError
        Naming ``name``, ``source``, the values outside the mapping (with their counts) and the
        mapping in use; if both ``positive`` and ``threshold`` are given; for a non-numeric score
        with ``threshold``.
    """
    items = _as_list(values, name, source)
    missing = [_is_missing(v) for v in items]
    if threshold is not None:
        if positive is not None or negative is not None:
            raise ValueError(
                f"`threshold` ({threshold!r}) and `positive`/`negative` "
                f"({positive!r}/{negative!r}) exclude each other: give a "
                "threshold for numeric scores or positive values for labels."
            )
        return _threshold(items, missing, threshold, name=name, source=source)
    if positive is None:
        if negative is not None:
            raise ValueError(
                f"`negative` ({negative!r}) needs `positive`: say which values mean 'correct' too."
            )
        mapping = {"1": 1, "1.0": 1, "true": 1, "0": 0, "0.0": 0, "false": 0}
        described = "0/1 or true/false (give `positive` to map other values, `threshold` for "
        described += "scores)"
    else:
        mapping = _positive_mapping(items, missing, positive, negative)
        ones = sorted(k for k, v in mapping.items() if v == 1)
        zeros = sorted(k for k, v in mapping.items() if v == 0)
        described = (
            f"{_listing(ones)} -> 1, "
            f"{_listing(zeros) if zeros else 'nothing'} -> 0 (case-insensitive)"
        )
    out, shown = _converted(items, missing, lambda value: mapping.get(_key(value)))
    if shown:
        raise ValueError(
            f"{source}: `{name}` has values outside the mapping: {shown}; "
            f"allowed: {described}, or missing."
        )
    return pd.array(out, dtype="Int64")


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
    missing = [_is_missing(v) for v in items]
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
    items: list[Any], missing: list[bool], positive: Any, negative: Any
) -> dict[str, int]:
    ones = {_key(v) for v in _as_values(positive)}
    if negative is not None:
        zeros = {_key(v) for v in _as_values(negative)}
        overlap = ones & zeros
        if overlap:
            raise ValueError(
                f"`positive` ({positive!r}) and `negative` ({negative!r}) share "
                f"the value(s) {_listing(sorted(overlap))}."
            )
    else:
        zeros = {VERDICT_PAIRS[k] for k in ones if k in VERDICT_PAIRS} - ones
        if not zeros:  # no known partner: the one other value in the column, if there is one
            others = {_key(v) for v, gone in zip(items, missing, strict=True) if not gone} - ones
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
    """Comparison key of a verdict: booleans and whole numbers as 'true'/'1', words lowercased."""
    value = _plain(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip().lower()


def _plain(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _as_values(value: Any) -> list[Any]:
    if isinstance(value, (str, bytes)) or np.ndim(value) == 0:
        return [value]
    return list(value)


def _as_list(values: Any, name: str, source: str) -> list[Any]:
    if isinstance(values, (str, bytes, Mapping)) or np.ndim(values) == 0:
        raise TypeError(
            f"{source}: `{name}` must be a sequence of verdicts, got {type(values).__name__}."
        )
    if hasattr(values, "to_numpy"):
        values = values.to_numpy(dtype=object)
    return list(values)


def _is_missing(value: Any) -> bool:
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    if isinstance(value, (float, np.floating)):
        return math.isnan(value)
    return isinstance(value, str) and not value.strip()


def _listing(values: Iterable[Any]) -> str:
    return ", ".join(repr(v) for v in values)


# ---- the frame --------------------------------------------------------------------------------
def item_ids(values: Any, *, name: str = "id", source: str) -> list[str]:
    """Item ids as strings: whole-number floats lose their ``.0`` (a CSV column with gaps)."""
    items = _as_list(values, name, source)
    out = []
    for number, value in enumerate(items):
        if _is_missing(value):
            raise ValueError(
                f"{source}: `{name}` is missing on item {number}; every item needs an id."
            )
        value = _plain(value)
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        out.append(str(value).strip() if isinstance(value, str) else str(value))
    return out


def items_frame(
    ids: Any,
    judge: Any,
    human: Any = None,
    *,
    source: str,
    extra: Mapping[str, Any] | pd.DataFrame | None = None,
    classes: list[Any] | tuple[Any, ...] | None = None,
) -> pd.DataFrame:
    """Build and validate an items frame (see the module docstring).

    Parameters
    ----------
    ids : sequence
        One id per item; converted to ``str`` (a whole-number float ``3.0`` becomes ``"3"``).
    judge : sequence of {0, 1, missing}
        The judge's verdicts, already mapped (see :func:`map_verdicts`); booleans count as 0/1.
    human : sequence of {0, 1, missing}, optional
        The human labels; all missing when not given.
    source : str
        Where the items came from, stored in ``frame.attrs["source"]`` and quoted in errors.
    extra : mapping or DataFrame, optional
        More columns (``epoch``, ``model``, ...), each one value per item.
    classes : list or tuple of str or int, optional
        For a K-class judge: the declared classes. ``judge`` and ``human`` then hold class
        values (see :func:`map_classes`) and stay ``object`` columns, and
        ``frame.attrs["classes"]`` records the classes. Without it they are 0/1 (``Int64``).

    Returns
    -------
    pandas.DataFrame
        Columns ``id``, ``judge``, ``human`` and then those of ``extra``; a fresh default index.

    Raises
    ------
    ValueError
        For no items, sequences of different lengths, a missing id, a judge or human value other
        than 0/1/missing (or, with ``classes``, outside the classes; naming ``source`` and the
        values), or an ``extra`` column that would replace ``id``, ``judge`` or ``human``.
    """
    id_list = item_ids(ids, source=source)
    if not id_list:
        raise ValueError(f"{source}: no items were found (`ids` is empty).")
    declared = None if classes is None else check_classes(classes)
    columns: dict[str, Any] = {"id": pd.array(id_list, dtype=object)}
    for name, values in (("judge", judge), ("human", human)):
        if values is None:
            values = [pd.NA] * len(id_list)
        mapped = (
            map_verdicts(values, name=name, source=source)
            if declared is None
            else map_classes(values, classes=declared, name=name, source=source)
        )
        if len(mapped) != len(id_list):
            raise ValueError(
                f"{source}: `{name}` has {len(mapped)} values for "
                f"{len(id_list)} ids; give one per item."
            )
        columns[name] = mapped
    for name, values in _extra_columns(extra).items():
        if name in ITEM_COLUMNS:
            raise ValueError(
                f"`extra` must not hold the column {name!r}: {', '.join(ITEM_COLUMNS)}"
                " are given as arguments."
            )
        values = list(values.to_numpy(dtype=object)) if hasattr(values, "to_numpy") else values
        if len(values) != len(id_list):
            raise ValueError(
                f"{source}: `extra` column {name!r} has {len(values)} values for "
                f"{len(id_list)} ids; give one per item."
            )
        columns[name] = values
    frame = pd.DataFrame(columns)
    frame.attrs["source"] = str(source)
    if declared is not None:
        frame.attrs["classes"] = list(declared)
    return frame


def _extra_columns(extra: Any) -> dict[str, Any]:
    if extra is None:
        return {}
    if isinstance(extra, pd.DataFrame):
        return {str(c): extra[c] for c in extra.columns}
    if isinstance(extra, Mapping):
        return {str(k): v for k, v in extra.items()}
    raise TypeError(
        f"`extra` must be a mapping of column name to values or a DataFrame, got "
        f"{type(extra).__name__}."
    )


# ---- files ------------------------------------------------------------------------------------
_CSV = (".csv", ".tsv")
_JSONL = (".jsonl", ".ndjson")
_PARQUET = (".parquet", ".pq")


def read_table(
    path: str | os.PathLike[str],
    *,
    string_columns: Iterable[str] = (),
    literal_columns: Iterable[str] = (),
) -> pd.DataFrame:
    """Read a CSV / TSV, JSON lines (or a JSON array of records) or Parquet file, by extension.

    ``string_columns`` are read as text where the format allows it (CSV), so that ids such as
    ``007`` keep their leading zeros. ``literal_columns`` (those the file has) are read from a
    CSV as text in which only empty cells are missing: words that pandas otherwise reads as
    missing (``"NA"``, ``"None"``, ``"null"``, ``"N/A"``, ``"nan"``, ...) stay text, as a class
    may be called that. Other formats keep the types the file records.

    Raises
    ------
    ValueError
        Naming the file: it does not exist, has an unknown extension, is empty, corrupt or
        truncated; Parquet without ``pyarrow`` installed.
    """
    name = os.fspath(path)
    suffix = Path(name).suffix.lower()
    if suffix not in (*_CSV, *_JSONL, ".json", *_PARQUET):
        raise ValueError(
            f"{name}: unknown file type {suffix or '(no extension)'!r}; expected "
            ".csv, .tsv, .jsonl, .ndjson, .json or .parquet."
        )
    if not Path(name).is_file():
        raise ValueError(f"{name}: no such file.")
    try:
        if suffix in _CSV:
            frame = pd.read_csv(
                name,
                sep="\t" if suffix == ".tsv" else ",",
                dtype=dict.fromkeys(string_columns, str),
                keep_default_na=True,
                encoding="utf-8-sig",
            )
            frame = _literal_csv_columns(frame, name, suffix, literal_columns)
        elif suffix in _PARQUET:
            frame = _read_parquet(name)
        else:
            frame = _read_json_records(name, lines=suffix in _JSONL)
    except ValueError as error:
        if str(error).startswith(name):
            raise
        raise ValueError(
            f"{name}: not a readable {suffix[1:]} table ({_first_line(error)})."
        ) from None
    except (OSError, UnicodeDecodeError, pd.errors.ParserError) as error:
        raise ValueError(
            f"{name}: not a readable {suffix[1:]} table ({_first_line(error)})."
        ) from None
    if frame.shape[1] == 0:
        raise ValueError(f"{name}: the file holds no columns.")
    return frame


def _literal_csv_columns(
    frame: pd.DataFrame, name: str, suffix: str, columns: Iterable[str]
) -> pd.DataFrame:
    """``frame`` with ``columns`` re-read from the CSV as text, only empty cells missing."""
    wanted = [c for c in dict.fromkeys(columns) if c in frame.columns]
    if not wanted:
        return frame
    literal = pd.read_csv(
        name,
        sep="\t" if suffix == ".tsv" else ",",
        usecols=wanted,
        dtype=dict.fromkeys(wanted, str),
        keep_default_na=False,
        na_values=[""],
        encoding="utf-8-sig",
    )
    for column in wanted:
        frame[column] = literal[column].to_numpy(dtype=object)
    return frame


def read_class_table(
    path: str | os.PathLike[str],
    *,
    columns: Iterable[str],
    classes: tuple[Any, ...],
    string_columns: Iterable[str] = (),
) -> pd.DataFrame:
    """Read a table whose ``columns`` hold the values of K-class verdicts or labels.

    With integer classes only, the file is read as :func:`read_table` reads it (a CSV's empty
    cells and NA words are missing; ``2.0`` later matches class ``2``). With a string class, a
    CSV's ``columns`` are read as text in which only empty cells are missing, so a class named
    ``"NA"`` or ``"None"`` stays a class and ``"1"`` stays ``"1"``. A CSV cell cannot say
    whether ``2`` was a string or an integer, so with mixed classes such as ``["yes", 2]`` the
    text is matched to a string class first, else to the integer class whose ``str()`` it is
    (``"2"`` -> ``2``). JSON and Parquet values keep their types and are matched as they are.
    """
    columns = list(columns)
    if not any(isinstance(c, str) for c in classes):
        return read_table(path, string_columns=string_columns)
    table = read_table(path, string_columns=string_columns, literal_columns=columns)
    integers = {str(c): c for c in classes if not isinstance(c, str)}
    if integers and Path(os.fspath(path)).suffix.lower() in _CSV:
        strings = {c for c in classes if isinstance(c, str)}
        for column in dict.fromkeys(c for c in columns if c in table.columns):
            table[column] = [
                integers.get(v, v) if isinstance(v, str) and v not in strings else v
                for v in table[column].to_numpy(dtype=object)
            ]
    return table


def _read_parquet(name: str) -> pd.DataFrame:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ValueError(
            f"{name}: reading Parquet needs pyarrow, which is not installed "
            "(pip install pyarrow); or save the table as CSV or JSON lines."
        ) from None
    return pd.read_parquet(name)


def _read_json_records(name: str, *, lines: bool) -> pd.DataFrame:
    records = load_json(name, lines=lines)
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise ValueError(
            f"{name}: expected JSON objects, one per item (a list of records or "
            "JSON lines), got another JSON structure."
        )
    return pd.DataFrame.from_records(records)


def load_json(path: str | os.PathLike[str], *, lines: bool | None = None) -> Any:
    """Parse a JSON document, or JSON lines into a list (``lines=None``: by the extension).

    Raises
    ------
    ValueError
        Naming the file: missing, empty, not UTF-8, or not valid JSON (with the line of the
        first problem; a truncated file ends in an incomplete object).
    """
    import json

    name = os.fspath(path)
    if lines is None:
        lines = Path(name).suffix.lower() in _JSONL
    try:
        with open(name, encoding="utf-8-sig") as handle:
            text = handle.read()
    except FileNotFoundError:
        raise ValueError(f"{name}: no such file.") from None
    except (OSError, UnicodeDecodeError) as error:
        raise ValueError(f"{name}: cannot be read as UTF-8 text ({_first_line(error)}).") from None
    if not text.strip():
        raise ValueError(f"{name}: the file is empty.")
    if not lines:
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            raise ValueError(
                f"{name}: not valid JSON ({error.msg} at line {error.lineno}); the "
                "file may be truncated."
            ) from None
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as error:
            raise ValueError(
                f"{name}: line {number} is not valid JSON ({error.msg}); the file "
                "may be truncated or not JSON lines."
            ) from None
    return records


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__


# ---- human labels joined on the item id --------------------------------------------------------
def join_human(
    items: pd.DataFrame,
    human: Any,
    *,
    on: str = "id",
    column: str = "human",
    positive: Any = None,
    negative: Any = None,
    classes: list[Any] | tuple[Any, ...] | None = None,
) -> pd.DataFrame:
    """Add human labels from a separate table to an items frame, joined on the item id.

    Parameters
    ----------
    items : pandas.DataFrame
        An items frame (from a reader in :mod:`judgestats.io`). It is not modified.
    human : path or pandas.DataFrame
        The labels: a CSV / TSV / JSON lines / JSON / Parquet file, or a DataFrame, with one row
        per labelled item, the id in column ``on`` and the label in column ``column``. Rows with
        an empty label are skipped (the item stays unlabelled).
    on : str, default "id"
        The id column of the label table; its values are compared as strings with
        ``items["id"]``.
    column : str, default "human"
        The label column of the label table.
    positive, negative : optional
        How labels map to 1/0 (see :func:`map_verdicts`); by default labels are 0/1 or
        true/false.
    classes : list or tuple of str or int, optional
        For a K-class judge: keep the labels as class values (see :func:`map_classes`).
        Default: ``items.attrs["classes"]`` when the items were read with ``classes=``, else
        labels map to 0/1. Not with ``positive`` / ``negative``. A CSV / TSV label column is
        read as :func:`judgestats.io.read_frame` reads one with ``classes`` (with a string class:
        as text, only empty cells missing; see :func:`read_class_table`).

    Returns
    -------
    pandas.DataFrame
        A copy of ``items`` whose ``human`` column holds the joined labels (every row of an id,
        every epoch, gets its label). Labels already in ``items`` are kept; a joined label that
        contradicts one is an error. With classes, ``human`` is an ``object`` column of class
        values and ``attrs["classes"]`` lists the classes.

    Raises
    ------
    ValueError
        For a missing column, an id that is not among the items, an id labelled twice in the
        table, a label outside the mapping (or the classes), a label that contradicts one
        already in ``items``; ``classes`` with ``positive`` / ``negative``, or other than
        the classes the items were read with.
    """
    if not isinstance(items, pd.DataFrame) or "id" not in items.columns:
        raise TypeError(
            "`items` must be an items frame (a DataFrame with an `id` column, as the "
            f"judgestats.io readers return), got {type(items).__name__}."
        )
    declared = _join_classes(items, classes, positive=positive, negative=negative)
    if isinstance(human, pd.DataFrame):
        table, source = human, "`human` (data frame)"
    elif isinstance(human, (str, os.PathLike)):
        source = os.fspath(human)
        table = (
            read_table(human, string_columns=[on])
            if declared is None
            else read_class_table(human, columns=[column], classes=declared, string_columns=[on])
        )
    else:
        raise TypeError(f"`human` must be a path or a DataFrame, got {type(human).__name__}.")
    missing = [c for c in (on, column) if c not in table.columns]
    if missing:
        raise ValueError(
            f"{source}: missing column(s) {_listing(missing)} (`on`={on!r}, "
            f"`column`={column!r}); the table has "
            f"{_listing(map(str, table.columns))}."
        )
    if declared is None:
        labels = map_verdicts(
            table[column], positive=positive, negative=negative, name=column, source=source
        )
    else:
        labels = map_classes(table[column], classes=declared, name=column, source=source)
    ids = item_ids(table[on], name=on, source=source)
    given = {i: v for i, v in zip(ids, labels, strict=True) if v is not pd.NA}
    _check_label_ids(ids, labels, items, source=source, on=on, column=column)
    joined = _joined_labels(items, given, source=source, classes=declared)
    out = items.copy()
    if declared is None:
        out["human"] = pd.array(joined, dtype="Int64")
        out.attrs = {**items.attrs, "human_source": source}
    else:
        out["human"] = pd.Series(joined, index=items.index, dtype=object)
        out.attrs = {**items.attrs, "human_source": source, "classes": list(declared)}
    return out


def _join_classes(
    items: pd.DataFrame, classes: Any, *, positive: Any, negative: Any
) -> tuple[Any, ...] | None:
    """The classes the joined labels are kept as (None: map them to 0/1)."""
    recorded = items.attrs.get("classes")
    if classes is None and recorded is None:
        return None
    declared = cast(  # not None: classes are given here
        tuple[Any, ...],
        declared_classes(
            list(recorded) if classes is None else classes,
            set_options(positive=positive, negative=negative),
            kept="labels",
        ),
    )
    if recorded is not None and list(recorded) != list(declared):
        raise ValueError(
            f"`classes` ({list(declared)!r}) differs from the classes the items were read "
            f"with ({list(recorded)!r}); give the same classes, or leave `classes` out."
        )
    return declared


def _joined_labels(
    items: pd.DataFrame, given: dict[str, Any], *, source: str, classes: tuple[Any, ...] | None
) -> list[Any]:
    """Each item's label: the joined one, else the one already in ``items``; check conflicts."""
    target = items.attrs.get("source", "the items")
    current = items["human"] if "human" in items.columns else pd.Series(pd.NA, index=items.index)
    if classes is None:
        given = {i: int(v) for i, v in given.items()}
    key: Callable[[Any], Any] = int if classes is None else _class_key
    joined = []
    for item, old in zip(items["id"].astype(str), current, strict=True):
        new = given.get(item, pd.NA)
        if new is not pd.NA and not _is_missing(old) and key(old) != key(new):
            shown = int(old) if classes is None else _plain(old)
            raise ValueError(
                f"{source}: the label of id {item!r} ({new!r}) contradicts the human "
                f"label {shown!r} already in {target}."
            )
        joined.append(old if new is pd.NA else new)
    return joined


def _check_label_ids(
    ids: list[str], labels: Any, items: pd.DataFrame, *, source: str, on: str, column: str
) -> None:
    seen: dict[str, int] = {}
    for item in ids:
        seen[item] = seen.get(item, 0) + 1
    repeated = [i for i, count in seen.items() if count > 1]
    if repeated:
        raise ValueError(
            f"{source}: {len(repeated)} id(s) appear more than once in column "
            f"`{on}` ({_listing(repeated[:_SHOWN])}); label each item once."
        )
    known = set(items["id"].astype(str))
    unknown = [i for i in ids if i not in known]
    if unknown:
        target = items.attrs.get("source", "the items")
        example = _listing(list(items["id"].astype(str))[:3])
        raise ValueError(
            f"{source}: {len(unknown)} of {len(ids)} labelled id(s) are not among "
            f"the {len(known)} items of {target} ({_listing(unknown[:_SHOWN])}; "
            f"item ids look like {example}); check `on` and the id column."
        )
    if not any(v is not pd.NA for v in labels):
        raise ValueError(f"{source}: column `{column}` holds no labels.")
