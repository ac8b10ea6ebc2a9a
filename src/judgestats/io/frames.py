"""Items from a data frame or a table file (CSV / TSV, JSON lines, JSON records, Parquet)."""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from judgestats._label_rows import refuse_duplicate_columns
from judgestats.io._items import (
    ITEM_COLUMNS,
    declared_classes,
    items_frame,
    map_classes,
    map_verdicts,
    read_class_table,
    read_table,
    set_options,
)

__all__ = ["read_frame"]


def read_frame(
    frame_or_path: pd.DataFrame | str | os.PathLike[str],
    *,
    judge: str,
    human: str | None = None,
    id: str | None = None,
    positive: Any = None,
    negative: Any = None,
    threshold: float | None = None,
    human_positive: Any = None,
    human_negative: Any = None,
    classes: list[Any] | tuple[Any, ...] | None = None,
) -> pd.DataFrame:
    """Read item-level verdicts from a DataFrame or a table file into an items frame.

    Parameters
    ----------
    frame_or_path : pandas.DataFrame or path
        One row per item (per epoch, with an ``epoch`` column). A path is read by its extension:
        ``.csv``, ``.tsv``, ``.jsonl`` / ``.ndjson`` (JSON lines), ``.json`` (an array of
        records), ``.parquet`` (needs ``pyarrow``). A DataFrame is not modified.
    judge : str
        The column of the judge's verdicts.
    human : str, optional
        The column of the human labels, empty where nobody labelled the item. Without it every
        item is unlabelled (join labels later with :func:`judgestats.io.join_human`).
    id : str, optional
        The column of item ids. Default: a column named ``id`` if there is one, else the row
        number (0, 1, ...).
    positive : scalar or sequence, optional
        The verdict value(s) meaning "correct" (mapped to 1), e.g. ``"C"``, ``"PASS"``,
        ``"model_a"``, ``2``, ``True``; a list gives several spellings of "correct"
        (``["yes", "y"]``). See :func:`judgestats.io.map_verdicts` for how values are compared
        (numbers by value: ``2`` matches ``2.0`` and ``"2"``) and how the "incorrect" values are
        found when ``negative`` is not given. Without ``positive`` and ``threshold`` the
        verdicts must be 0/1 or true/false.
    negative : scalar or sequence, optional
        The verdict value(s) meaning "incorrect" (mapped to 0), e.g. ``"model_b"`` or ``1``;
        needs ``positive``. Required where they cannot be inferred (no known partner of
        ``positive`` and more than one other value in the column).
    threshold : float, optional
        For a numeric judge score: a score ``>= threshold`` is "correct".
    human_positive, human_negative : scalar or sequence, optional
        The human label value(s) meaning "correct" and "incorrect". Default: ``positive`` and
        ``negative``, falling back to 0/1 or true/false labels when the human column is written
        that way.
    classes : list or tuple of str or int, optional
        For a judge with K verdicts (A / B / tie, scores 1-5, ...): the declared classes. The
        judge and human columns are then kept as class values (see
        :func:`judgestats.io.map_classes`: strings match strings, whole numbers match integers,
        so a score column read from CSV as ``2.0`` gives class ``2``), and
        ``attrs["classes"]`` records them; :meth:`judgestats.kclass.KClassData.from_items`
        counts the result. Not with ``positive``, ``negative``, ``threshold``,
        ``human_positive`` or ``human_negative``.

        From a CSV / TSV file, with at least one string class, the judge and human columns are
        read as text in which only empty cells are missing: ``"1"`` stays ``"1"``, and a class
        named ``"NA"``, ``"None"``, ``"null"``, ``"N/A"`` or ``"nan"`` stays a class (any such
        word that is not a class is then an error, not a missing value). A CSV cell cannot
        tell the string ``"2"`` from the integer ``2``: with mixed classes such as
        ``["yes", 2]`` a cell's text is matched to a string class first, else to the integer
        class whose ``str()`` it is (``"2"`` gives ``2``, but ``"2.0"`` matches nothing, so
        leave no gaps that turn such a column into floats). With integer classes only, a
        CSV's columns are read as numbers (empty cells and NA words are missing). JSON,
        Parquet and DataFrame values keep their types and are matched as they are.

    Returns
    -------
    pandas.DataFrame
        An items frame: ``id``, ``judge``, ``human`` (``Int64``; with ``classes``, ``object``
        columns of class values) and the frame's other columns (metadata such as ``model`` or
        ``epoch``); ``attrs["source"]`` is the path, or ``"data frame"``.

    Raises
    ------
    ValueError
        Naming the file: it cannot be read (missing, corrupt, truncated, Parquet without
        pyarrow), a column name occurs twice, a named column is missing, ``judge``, ``human``
        and ``id`` not naming three different columns, verdicts or labels outside the mapping
        (or outside ``classes``), no rows; ``positive`` equal to ``negative``; a value that is
        neither (and not missing); a column with three or more values and no ``positive`` /
        ``negative``; ``classes`` together with a 0/1 option.
    TypeError
        If ``classes`` is not a list or tuple of strings and integers; ``positive`` or
        ``negative`` a mapping or a nested list.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"verdict": ["PASS", "FAIL", "PASS"], "human": [1, None, 0]})
    >>> read_frame(frame, judge="verdict", human="human", positive="PASS")[["id", "judge", "human"]]
      id  judge  human
    0  0      1      1
    1  1      0   <NA>
    2  2      1      0

    A pairwise judge's A / B / tie verdicts kept as classes, and counted:

    >>> pairs = pd.DataFrame({"verdict": ["A", "tie", "B", "A", "B", "tie"],
    ...                       "human": ["A", "B", "tie", None, None, None]})
    >>> items = read_frame(pairs, judge="verdict", human="human", classes=["A", "B", "tie"])
    >>> items[["id", "judge", "human"]]
      id judge human
    0  0     A     A
    1  1   tie     B
    2  2     B   tie
    3  3     A  <NA>
    4  4     B  <NA>
    5  5   tie  <NA>
    >>> from judgestats.kclass import KClassData
    >>> data = KClassData.from_items(items)
    >>> data.classes, data.test.tolist(), data.confusion.tolist()
    (('A', 'B', 'tie'), [1, 1, 1], [[1, 0, 0], [0, 0, 1], [0, 1, 0]])
    """
    options = {
        "positive": positive,
        "negative": negative,
        "threshold": threshold,
        "human_positive": human_positive,
        "human_negative": human_negative,
    }
    declared = declared_classes(classes, set_options(**options))
    table, source = _load_table(frame_or_path, judge=judge, human=human, id=id, classes=declared)
    id_column = id if id is not None else ("id" if "id" in table.columns else None)
    ids = table[id_column] if id_column is not None else range(len(table))
    if declared is not None:
        verdicts = map_classes(table[judge], classes=declared, name=judge, source=source)
        labels = (
            None
            if human is None
            else map_classes(table[human], classes=declared, name=human, source=source)
        )
    else:
        verdicts = map_verdicts(
            table[judge],
            positive=positive,
            negative=negative,
            threshold=threshold,
            name=judge,
            source=source,
        )
        labels = None if human is None else _human_labels(table[human], options, human, source)
    used = {judge, human, id_column}
    extra = {
        str(c): table[c] for c in table.columns if c not in used and str(c) not in ITEM_COLUMNS
    }
    return items_frame(ids, verdicts, labels, source=source, extra=extra, classes=declared)


def _load_table(
    frame_or_path: Any, *, judge: str, human: str | None, id: str | None, classes: Any
) -> tuple[pd.DataFrame, str]:
    """The table and its source name; check that the named columns exist and rows are given."""
    if isinstance(frame_or_path, pd.DataFrame):
        table, source = frame_or_path, "data frame"
    elif isinstance(frame_or_path, (str, os.PathLike)):
        source = os.fspath(frame_or_path)
        text = [id or "id"]
        if classes is None:
            table = read_table(frame_or_path, string_columns=text)
        else:
            table = read_class_table(
                frame_or_path,
                columns=[c for c in (judge, human) if c is not None],
                classes=classes,
                string_columns=text,
            )
    else:
        raise TypeError(
            "`frame_or_path` must be a pandas DataFrame or a path, got "
            f"{type(frame_or_path).__name__}."
        )
    _check_named_columns(table, source, {"judge": judge, "human": human, "id": id})
    if len(table) == 0:
        raise ValueError(f"{source}: the table has no rows.")
    return table, source


def _check_named_columns(table: pd.DataFrame, source: str, named: dict[str, Any]) -> None:
    """Column names must be unique; each named column must exist and serve one argument only."""
    refuse_duplicate_columns(table, source)
    seen: dict[Any, str] = {}
    for argument, column in named.items():
        if column is None:
            continue
        if column not in table.columns:
            present = ", ".join(map(repr, map(str, table.columns)))
            raise ValueError(
                f"{source}: no column {column!r} (`{argument}`); "
                + (f"the columns are {present}." if present else "the table has no columns.")
            )
        if column in seen:
            raise ValueError(
                f"`{seen[column]}` and `{argument}` both name the column {column!r}; the "
                "judge's verdicts, the human labels and the item ids need columns of their own."
            )
        seen[column] = argument


def _human_labels(values: Any, options: dict[str, Any], name: str, source: str) -> Any:
    """Human labels mapped by ``human_positive`` / ``human_negative``, else by the verdicts'.

    With neither ``human_positive`` nor ``positive`` (or with ``threshold``: scores are not
    labels) the labels must be 0/1; mapped by the verdicts' ``positive`` / ``negative``, labels
    written 0/1 beside verdicts written "C"/"I" are accepted too.
    """
    if options["human_positive"] is not None or options["human_negative"] is not None:
        return map_verdicts(
            values,
            positive=options["human_positive"],
            negative=options["human_negative"],
            name=name,
            source=source,
            option="human_",
        )
    if options["positive"] is None or options["threshold"] is not None:
        return map_verdicts(values, name=name, source=source)
    try:
        return map_verdicts(
            values,
            positive=options["positive"],
            negative=options["negative"],
            name=name,
            source=source,
        )
    except ValueError as error:
        try:  # labels written 0/1 beside verdicts written "C"/"I"
            return map_verdicts(values, name=name, source=source)
        except ValueError:
            raise error from None
