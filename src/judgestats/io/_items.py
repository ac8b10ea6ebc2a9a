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

:meth:`judgestats.JudgeData.from_items` counts such a frame. How verdicts map to 0/1 or class values
is :mod:`judgestats.io._mapping`; reading table files is :mod:`judgestats.io._tables`.

A reader given ``classes=`` (a judge with K verdicts: A / B / tie, scores 1-5, ...) instead keeps
each verdict and label as its class value (see :func:`map_classes`): ``judge`` and ``human`` are
then ``object`` columns of class values or ``<NA>``, ``frame.attrs["classes"]`` lists the declared
classes, and :meth:`judgestats.kclass.KClassData.from_items` counts the frame.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from typing import Any, cast

import pandas as pd

from judgestats._label_rows import ITEM_COLUMNS
from judgestats._labels import is_missing
from judgestats._validate import check_classes
from judgestats.io._mapping import (
    _SHOWN,
    _as_list,
    _class_key,
    _is_value,
    _listing,
    _plain,
    declared_classes,
    map_classes,
    map_verdicts,
    set_options,
)
from judgestats.io._tables import load_json, read_class_table, read_table

__all__ = [
    "ITEM_COLUMNS",
    "item_ids",
    "items_frame",
    "join_human",
    "load_json",
    "declared_classes",
    "map_classes",
    "map_verdicts",
    "read_class_table",
    "read_table",
    "set_options",
]

#: Extra columns that tell repeated judgments of one item apart (not different items): rows
#: that agree on the id and on every other extra column are one item, with one true label.
REPEAT_COLUMNS = ("epoch", "human_author", "judge_source_id", "human_source_id")


# ---- the frame --------------------------------------------------------------------------------
def item_ids(values: Any, *, name: str = "id", source: str) -> list[str]:
    """Item ids as strings: whole-number floats lose their ``.0`` (a CSV column with gaps)."""
    items = _as_list(values, name, source)
    out = []
    for number, value in enumerate(items):
        if is_missing(value, words=False):  # ids are kept as written
            raise ValueError(
                f"{source}: `{name}` is missing on item {number}; every item needs an id."
            )
        if not _is_value(value):  # str([1]) would be an id no label file could name
            raise ValueError(
                f"{source}: `{name}` of item {number} is a {type(value).__name__} "
                f"({value!r}); an id is text or a number."
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
    _check_one_truth(frame, source, declared)
    return frame


def _check_one_truth(frame: pd.DataFrame, source: str, classes: Any) -> None:
    """Raise when rows of one item carry different human labels: an item has one true label.

    An item is an id together with the extra columns that are not in :data:`REPEAT_COLUMNS`
    (``model``, ``provider``, ... tell different answers to one question apart): repeated
    judgments of an item are legitimate, contradicting human labels are not, and clustering or
    counting would use them silently.
    """
    labelled = frame[~frame["human"].isna()]
    if len(labelled) < 2 or not labelled["id"].duplicated().any():
        return
    keys = [c for c in labelled.columns if c not in ("judge", "human", *REPEAT_COLUMNS)]
    item = labelled[keys].astype(str).apply(tuple, axis=1) if len(keys) > 1 else labelled["id"]
    values = [_plain(v) if classes is not None else int(v) for v in labelled["human"]]
    seen: dict[Any, dict[Any, Any]] = {}
    for key, value in zip(item, values, strict=True):
        seen.setdefault(key, {})[_class_key(value) if classes is not None else value] = value
    conflicting = [(key, list(labels.values())) for key, labels in seen.items() if len(labels) > 1]
    if conflicting:
        shown = ", ".join(
            f"{key if isinstance(key, str) else key[0]!r} (labels {', '.join(map(repr, labels))})"
            for key, labels in conflicting[:_SHOWN]
        )
        raise ValueError(
            f"{source}: {len(conflicting)} item id(s) carry conflicting human labels: {shown}. "
            "An item has one true label; correct the labels (or the ids) before estimating."
        )


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
        if new is not pd.NA and not is_missing(old, words=False) and key(old) != key(new):
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
