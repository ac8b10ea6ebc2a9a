"""Table files read into data frames: CSV / TSV, JSON lines, JSON records, Parquet; JSON documents.

The readers of :mod:`judgestats.io` load their files here; errors name the file.
"""

from __future__ import annotations

import io
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pandas as pd

from judgestats._label_rows import read_text_file, table_suffix
from judgestats._paths import check_path
from judgestats._validate import check_flag

__all__ = ["load_json", "load_json_lines", "read_class_table", "read_table"]

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
    name = check_path(path)
    if Path(name).is_dir():
        raise ValueError(f"{name}: is a folder, not a file; give the file inside it.")
    suffix = table_suffix(name)
    if suffix not in (*_CSV, *_JSONL, ".json", *_PARQUET):
        raise ValueError(
            f"{name}: unknown file type {suffix or '(no extension)'!r}; expected "
            ".csv, .tsv, .jsonl, .ndjson, .json or .parquet (gzip-compressed: + .gz)."
        )
    if not Path(name).is_file():
        raise ValueError(f"{name}: no such file.")
    try:
        if suffix in _CSV:
            text = read_text_file(name)  # gzip read transparently; errors name the file
            frame = pd.read_csv(
                io.StringIO(text),
                sep="\t" if suffix == ".tsv" else ",",
                dtype=dict.fromkeys(string_columns, str),
                keep_default_na=True,
            )
            frame = _literal_csv_columns(frame, text, suffix, literal_columns)
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
    frame: pd.DataFrame, text: str, suffix: str, columns: Iterable[str]
) -> pd.DataFrame:
    """``frame`` with ``columns`` re-read from the CSV's text, only empty cells missing."""
    wanted = [c for c in dict.fromkeys(columns) if c in frame.columns]
    if not wanted:
        return frame
    literal = pd.read_csv(
        io.StringIO(text),
        sep="\t" if suffix == ".tsv" else ",",
        usecols=wanted,
        dtype=dict.fromkeys(wanted, str),
        keep_default_na=False,
        na_values=[""],
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
    if integers and table_suffix(os.fspath(path)) in _CSV:
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
    TypeError
        If ``path`` is not a path, or ``lines`` not True, False or None.
    ValueError
        Naming the file: missing, empty, not UTF-8, or not valid JSON (with the line of the
        first problem; a truncated file ends in an incomplete object).
    """
    name = check_path(path)
    if check_flag(lines, "lines", allow_none=True) is None:
        lines = table_suffix(name) in _JSONL
    text = read_text_file(name)  # gzip read transparently; errors name the file
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
    return _parse_lines(name, text)[0]


def load_json_lines(path: str | os.PathLike[str]) -> tuple[list[Any], list[int]]:
    """Parse JSON lines: the records and, for each, its line in the file (1-based).

    Blank lines are skipped, so a record's position in the list need not be its line.

    Raises
    ------
    TypeError, ValueError
        As :func:`load_json`.
    """
    name = check_path(path)
    text = read_text_file(name)
    if not text.strip():
        raise ValueError(f"{name}: the file is empty.")
    return _parse_lines(name, text)


def _parse_lines(name: str, text: str) -> tuple[list[Any], list[int]]:
    # Lines end at \n, \r\n or \r only: str.splitlines also splits at U+2028, U+0085 and
    # other characters that JSON text may hold unescaped (the harness writes with
    # ensure_ascii=False), which would cut a record in two and miscount the lines.
    records, numbers = [], []
    for number, line in enumerate(re.split(r"\r\n|\r|\n", text), start=1):
        if not line.strip():
            continue
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as error:
            raise ValueError(
                f"{name}: line {number} is not valid JSON ({error.msg}); the file "
                "may be truncated or not JSON lines."
            ) from None
        numbers.append(number)
    return records, numbers


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
