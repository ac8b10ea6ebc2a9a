"""Item-level label rows: the set / judge / human layout of a label file, and items frames.

:meth:`judgestats.JudgeData.from_csv` and the set/judge/human layout of ``from_frame`` read rows
here (:func:`read_label_csv`, :func:`parse_label_rows`); :meth:`judgestats.JudgeData.from_items`
and the stratified and K-class data read an items frame of :mod:`judgestats.io` here
(:func:`items_source`, :func:`items_labels`). Missing values and 0/1 spellings follow
:mod:`judgestats._labels`.
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import os
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np

from judgestats._labels import binary_labels, is_missing, parse_binary
from judgestats._paths import check_path
from judgestats._validate import check_design

__all__ = [
    "ITEM_COLUMNS",
    "LABEL_COLUMNS",
    "LabelRows",
    "items_labels",
    "items_source",
    "parse_label_rows",
    "read_label_csv",
    "read_text_file",
    "refuse_duplicate_columns",
    "table_suffix",
]

_GZIP_MAGIC = b"\x1f\x8b"


def table_suffix(name: str) -> str:
    """The lower-case extension that names a file's format, ``.gz`` looked through."""
    suffixes = [s.lower() for s in os.path.basename(name).split(".")[1:]]
    if suffixes and suffixes[-1] == "gz":
        suffixes.pop()
    return f".{suffixes[-1]}" if suffixes else ""


def read_text_file(name: str) -> str:
    """The text of a UTF-8 file (a byte-order mark dropped), gzip-compressed or not.

    Raises
    ------
    ValueError
        Naming the file: it does not exist, is a folder, cannot be read, is a damaged gzip
        file, or is not UTF-8 (with the offending byte and how to convert it).
    """
    if os.path.isdir(name):
        raise ValueError(f"{name}: is a folder, not a file; give the file inside it.")
    try:
        with open(name, "rb") as handle:
            raw = handle.read()
    except FileNotFoundError:
        raise ValueError(f"{name}: no such file.") from None
    except OSError as error:
        raise ValueError(f"{name}: cannot be read ({error.strerror}).") from None
    if raw[:2] == _GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as error:
            raise ValueError(f"{name}: a damaged gzip file ({error}).") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        byte = raw[error.start : error.start + 1].hex()
        raise ValueError(
            f"{name}: not UTF-8 text (byte 0x{byte} at position {error.start} is not valid "
            "UTF-8; the file is probably Latin-1 / Windows-1252). judgestats reads UTF-8: "
            f"convert it, e.g. iconv -f latin1 -t utf-8 {name} > utf8.csv."
        ) from None


#: Columns of the item-level label file read by :meth:`judgestats.JudgeData.from_csv`.
LABEL_COLUMNS = ("set", "judge", "human")

#: The columns every items frame of :mod:`judgestats.io` has, in order.
ITEM_COLUMNS = ("id", "judge", "human")


class LabelRows(NamedTuple):
    """Item-level labels parsed from rows, in row order (int8 arrays of 0/1).

    ``test``: the judge's verdict on every test row. ``human`` and ``judge``: the human label and
    the judge's verdict on every calibration row; with ``design="random"`` ``human`` instead
    holds one entry per test row (-1 where the item is unlabelled) and ``judge`` is empty.
    """

    test: np.ndarray
    human: np.ndarray
    judge: np.ndarray


def refuse_duplicate_columns(table: Any, source: str) -> None:
    """Raise ValueError naming the first column name that occurs more than once.

    ``frame[name]`` of such a name is a frame, not a column: its values would be read as
    pairs (a confusing mapping error, or a metadata column of arrays).
    """
    duplicated = table.columns[table.columns.duplicated()]
    if len(duplicated):
        name = duplicated[0]
        raise ValueError(
            f"{source}: the column name {str(name)!r} occurs "
            f"{int((table.columns == name).sum())} times; give the columns distinct names."
        )


def items_source(items: Any) -> str:
    """The source named in an items frame's errors; raise unless ``items`` is an items frame."""
    columns = getattr(items, "columns", None)
    if columns is None or not hasattr(items, "attrs"):
        raise TypeError(
            "`items` must be an items frame (a pandas DataFrame from a judgestats.io "
            f"reader), got {type(items).__name__}."
        )
    source = str(items.attrs.get("source", "`items`"))
    refuse_duplicate_columns(items, source)
    missing = [c for c in ("id", "judge", "human") if c not in columns]
    if missing:
        raise ValueError(
            f"{source}: the items frame lacks the column(s) "
            f"{', '.join(map(repr, missing))}; it has "
            f"{', '.join(map(repr, map(str, columns)))}."
        )
    if len(items) == 0:
        raise ValueError(f"{source}: the items frame holds no items.")
    return source


def items_labels(items: Any, source: str) -> tuple[np.ndarray, np.ndarray]:
    """(judge 0/1, human 0/1 or -1) of an items frame; raise for repeated ids, missing verdicts."""
    ids = items["id"].astype(str)
    repeated = ids[ids.duplicated(keep=False)]
    if len(repeated):
        shown = ", ".join(map(repr, list(dict.fromkeys(repeated))[:3]))
        epochs = (
            " (an `epoch` column: the items were judged several times)"
            if "epoch" in items.columns
            else ""
        )
        raise ValueError(
            f"{source}: {repeated.nunique()} item id(s) occur more than once, e.g. {shown}"
            f"{epochs}. Counting each repetition as an item would overstate the evidence: "
            "judgestats.estimate_items(items) (and `judgestats estimate`) clusters the rows by "
            "item "
            "id; the posterior does not cluster, so for it select one row per item, e.g. "
            "items[items['epoch'] == 1] or items.drop_duplicates('id')."
        )
    no_verdict = items["judge"].isna()
    if no_verdict.any():
        shown = ", ".join(map(repr, list(ids[no_verdict])[:3]))
        raise ValueError(
            f"{source}: {int(no_verdict.sum())} item(s) have no judge verdict "
            f"(ids {shown}); drop them first, e.g. "
            "items.dropna(subset=['judge'])."
        )
    judge = binary_labels(items["judge"], "judge")
    human = binary_labels(items["human"], "human", allow_missing=True)
    return judge, human


def read_label_csv(path: str | os.PathLike[str], *, design: str = "stratified") -> LabelRows:
    """Parse the item-level label file of ``JudgeData.from_csv``, keeping the row order.

    The file layout, the accepted label values and the errors are those of
    :meth:`judgestats.JudgeData.from_csv`, which counts what this returns; readers that need the
    items themselves (e.g. paired test items of two models) use it directly.

    Returns
    -------
    LabelRows
        The test verdicts and the calibration labels, in file order.
    """
    design = check_design(design)
    name = check_path(path)
    with io.StringIO(read_text_file(name), newline="") as handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        stripped = [h.strip() for h in header]
        missing = [c for c in LABEL_COLUMNS if c not in stripped]
        if missing:
            raise ValueError(
                f"{name}: missing column(s) {', '.join(map(repr, missing))}; expected a "
                f"header with {', '.join(LABEL_COLUMNS)}, got "
                f"{', '.join(map(repr, stripped)) or 'none'}."
            )
        position = {c: header[stripped.index(c)] for c in LABEL_COLUMNS}
        rows = (
            _label_fields(r, position, name, number, len(header))
            for number, r in enumerate(reader, start=2)
        )
        return parse_label_rows(
            rows, source=name, first_row=2, row_word="row", columns=LABEL_COLUMNS, design=design
        )


def _label_fields(
    row: dict[Any, Any], position: dict[str, str], name: str, number: int, width: int
) -> tuple[Any, Any, Any]:
    """The set, judge and human fields of a csv row; a row longer than the header is refused.

    ``csv.DictReader`` files the surplus fields under the key None and would drop them silently,
    though they mean the row's columns are not those of the header (often an unquoted comma).
    Empty surplus fields (trailing commas) are harmless and pass.
    """
    extra = row.get(None) or []
    if any(str(value).strip() for value in extra):
        raise ValueError(
            f"{name}, row {number}: {width + len(extra)} fields, but the header names {width} "
            "columns; quote a value that holds a comma."
        )
    return row[position["set"]], row[position["judge"]], row[position["human"]]


def parse_label_rows(
    rows: Iterable[tuple[Any, Any, Any]],
    *,
    source: str,
    first_row: int,
    row_word: str,
    columns: Sequence[str],
    design: str = "stratified",
) -> LabelRows:
    """Validate (set, judge, human) rows; raise naming the source, row and column of a problem."""
    set_col, judge_col, human_col = columns
    test: list[int] = []
    human: list[int] = []
    judge: list[int] = []
    labelled_tests: list[int] = []  # stratified: a human label on a test row would be lost
    for number, (which, judge_value, human_value) in enumerate(rows, start=first_row):
        where = f"{source}, {row_word} {number}"
        kind = "" if which is None else str(which).strip().lower()
        verdict = parse_binary(judge_value)
        if verdict is None:
            raise ValueError(
                f"{where}: column `{judge_col}` must be 0 or 1, got {_show(judge_value)}."
            )
        if kind == "test":
            test.append(verdict)
            if design == "random":  # a human label marks a labelled item; -1: unlabelled
                truth = -1 if is_missing(human_value) else parse_binary(human_value)
                if truth is None:
                    raise ValueError(
                        f"{where}: column `{human_col}` must be 0, 1 or empty on "
                        f"a test row, got {_show(human_value)}."
                    )
                human.append(truth)
            elif not is_missing(human_value):
                labelled_tests.append(number)
        elif kind == "calibration" and design == "random":
            raise ValueError(
                f"{where}: column `{set_col}` is 'calibration', but with design='random' the "
                "labelled items are a subset of the test items: give them as 'test' rows "
                f"with a `{human_col}` label."
            )
        elif kind == "calibration":
            truth = parse_binary(human_value)
            if truth is None:
                raise ValueError(
                    f"{where}: column `{human_col}` must be 0 or 1 on a "
                    f"calibration row, got {_show(human_value)}."
                )
            human.append(truth)
            judge.append(verdict)
        else:
            raise ValueError(
                f"{where}: column `{set_col}` must be 'test' or 'calibration', got {_show(which)}."
            )
    if labelled_tests:
        _refuse_labelled_tests(labelled_tests, source, row_word, set_col, human_col)
    return LabelRows(
        np.array(test, dtype=np.int8),
        np.array(human, dtype=np.int8),
        np.array(judge, dtype=np.int8),
    )


def _refuse_labelled_tests(
    numbers: list[int], source: str, row_word: str, set_col: str, human_col: str
) -> None:
    """Raise for 'test' rows that carry a human label under the stratified design."""
    shown = ", ".join(map(str, numbers[:5])) + (", ..." if len(numbers) > 5 else "")
    raise ValueError(
        f"{source}: {len(numbers)} 'test' {row_word}(s) carry a `{human_col}` label "
        f"({row_word}s {shown}), which the stratified design would ignore: mark labelled "
        f"calibration items `{set_col}` = 'calibration', leave `{human_col}` empty on test "
        "rows, or use design='random' (--design random) if the labelled items are a random "
        "subset of the test items."
    )


def _show(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "an empty value"
    return repr(value if not isinstance(value, str) else value.strip())
