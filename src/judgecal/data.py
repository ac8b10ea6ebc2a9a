"""The data layer: :class:`JudgeData`, the six counts every estimator in judgecal starts from.

Notation (papers/000 Sec. 2-3): a test set of ``n`` items of which ``k`` are judged "correct"
(p-hat = k / n, eq. 2); a calibration set with human labels, holding ``m0`` truly-incorrect items of
which ``k0`` are judged incorrect (specificity q0-hat = k0 / m0) and ``m1`` truly-correct items of
which ``k1`` are judged correct (sensitivity q1-hat = k1 / m1).
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from judgecal._validate import check_counts, check_not_exceeding

__all__ = ["LABEL_COLUMNS", "JudgeData"]

#: Columns of the item-level label file read by :meth:`JudgeData.from_csv`.
LABEL_COLUMNS = ("set", "judge", "human")

_TRUE_WORDS = {"1", "1.0", "true"}
_FALSE_WORDS = {"0", "0.0", "false"}
_MISSING_WORDS = {"", "na", "nan", "none", "null"}


@dataclass(frozen=True)
class JudgeData:
    """Counts from an LLM-judge evaluation with a label-stratified calibration set.

    Parameters
    ----------
    k : int
        Test items the judge called "correct".
    n : int
        Test items in all (at least 1).
    k0 : int
        Truly-incorrect calibration items the judge called "incorrect".
    m0 : int
        Truly-incorrect calibration items (at least 1).
    k1 : int
        Truly-correct calibration items the judge called "correct".
    m1 : int
        Truly-correct calibration items (at least 1).

    Raises
    ------
    TypeError
        If a count is not a real number (booleans and strings are rejected).
    ValueError
        If a count is negative, not a whole number, a total is zero, or a part exceeds its total.

    Examples
    --------
    >>> data = JudgeData(k=400, n=1000, k0=140, m0=200, k1=180, m1=200)
    >>> data.p, data.q0, data.q1
    (0.4, 0.7, 0.9)
    """

    k: int
    n: int
    k0: int
    m0: int
    k1: int
    m1: int

    def __post_init__(self) -> None:
        for part, whole in (("k", "n"), ("k0", "m0"), ("k1", "m1")):
            whole_value = _scalar_count(getattr(self, whole), whole, minimum=1)
            part_value = _scalar_count(getattr(self, part), part, minimum=0)
            check_not_exceeding(np.asarray(part_value), np.asarray(whole_value), part, whole)
            object.__setattr__(self, whole, whole_value)
            object.__setattr__(self, part, part_value)

    # -- derived quantities ------------------------------------------------------------------
    @property
    def p(self) -> float:
        """Proportion of test items judged correct, p-hat = k / n (papers/000 eq. 2)."""
        return self.k / self.n

    @property
    def q0(self) -> float:
        """Estimated specificity q0-hat = k0 / m0."""
        return self.k0 / self.m0

    @property
    def q1(self) -> float:
        """Estimated sensitivity q1-hat = k1 / m1."""
        return self.k1 / self.m1

    @property
    def youden(self) -> float:
        """Youden's J = q0-hat + q1-hat - 1; the correction exists only when J > 0."""
        return self.q0 + self.q1 - 1.0

    def to_dict(self) -> dict[str, int]:
        """Return the six counts as a JSON-safe dict."""
        return {name: getattr(self, name) for name in ("k", "n", "k0", "m0", "k1", "m1")}

    # -- constructors --------------------------------------------------------------------------
    @classmethod
    def from_labels(
        cls, test_judge: Any, calib_human: Any, calib_judge: Any
    ) -> JudgeData:
        """Count item-level 0/1 labels.

        Parameters
        ----------
        test_judge : sequence of {0, 1}
            The judge's verdict on every test item (1 = "correct").
        calib_human : sequence of {0, 1}
            The human (true) label of every calibration item.
        calib_judge : sequence of {0, 1}
            The judge's verdict on the same calibration items, in the same order.

        Lists, tuples, numpy arrays and pandas Series are accepted; booleans count as 0/1.
        Missing values (NaN, None) and any other value are rejected.

        Returns
        -------
        JudgeData

        Raises
        ------
        ValueError
            For values other than 0/1, missing values, calibration sequences of different lengths,
            an empty test set, or a calibration set without items of one true class.
        """
        test = _binary_labels(test_judge, "test_judge")
        human = _binary_labels(calib_human, "calib_human")
        judge = _binary_labels(calib_judge, "calib_judge")
        if human.size != judge.size:
            raise ValueError(
                f"`calib_human` ({human.size} items) and `calib_judge` ({judge.size} items) must "
                "have the same length: one human label and one judge label per calibration item."
            )
        return cls._from_binary(test, human, judge, source="")

    @classmethod
    def _from_binary(
        cls, test: np.ndarray, human: np.ndarray, judge: np.ndarray, *, source: str
    ) -> JudgeData:
        if test.size == 0:
            raise ValueError(f"{source}the test set is empty: `test_judge` holds no items.")
        m1 = int(human.sum())
        m0 = int(human.size - m1)
        for count, word, arm in ((m0, "incorrect (human label 0)", "q0"),
                                 (m1, "correct (human label 1)", "q1")):
            if count == 0:
                raise ValueError(
                    f"{source}the calibration set has no truly {word} items, so "
                    f"{'specificity' if arm == 'q0' else 'sensitivity'} {arm} cannot be "
                    "estimated; label at least one item of each class."
                )
        k0 = int(np.count_nonzero((human == 0) & (judge == 0)))
        k1 = int(np.count_nonzero((human == 1) & (judge == 1)))
        return cls(k=int(test.sum()), n=int(test.size), k0=k0, m0=m0, k1=k1, m1=m1)

    @classmethod
    def from_frame(
        cls, frame: Any, *, set_column: str = "set", judge_column: str = "judge",
        human_column: str = "human",
    ) -> JudgeData:
        """Count item-level labels held in a pandas DataFrame (the layout of :meth:`from_csv`).

        Rows whose ``set`` is ``"test"`` contribute their judge label to the test set; rows whose
        ``set`` is ``"calibration"`` contribute a (human, judge) pair.
        """
        missing = [c for c in (set_column, judge_column, human_column) if c not in frame.columns]
        if missing:
            raise ValueError(
                f"`frame` lacks the column(s) {', '.join(map(repr, missing))}; "
                f"it has {', '.join(map(repr, map(str, frame.columns)))}."
            )
        rows = zip(frame[set_column].tolist(), frame[judge_column].tolist(),
                   frame[human_column].tolist(), strict=True)
        return cls._from_rows(rows, source="`frame`", first_row=0, row_word="row",
                              columns=(set_column, judge_column, human_column))

    @classmethod
    def from_csv(cls, path: str | os.PathLike[str]) -> JudgeData:
        """Read item-level labels from a CSV file.

        The file has a header row and one row per item with the columns

        ``set``
            ``test`` or ``calibration``.
        ``judge``
            the judge's verdict, 1 = "correct", 0 = "incorrect".
        ``human``
            the human label (1 = correct, 0 = incorrect) for calibration rows; empty for test rows
            (a value there is ignored).

        Label values may be written 0/1, 0.0/1.0 or true/false. Other columns are ignored.

        Raises
        ------
        ValueError
            Naming the file, the row (counting the header as row 1) and the column of the first
            problem: a missing column, an unknown ``set``, a label other than 0/1.
        """
        name = os.fspath(path)
        try:
            handle = open(name, newline="", encoding="utf-8-sig")  # noqa: SIM115
        except OSError as error:
            raise ValueError(f"cannot read `{name}`: {error.strerror}.") from None
        with handle:
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
            rows = ((r[position["set"]], r[position["judge"]], r[position["human"]])
                    for r in reader)
            return cls._from_rows(rows, source=name, first_row=2, row_word="row",
                                  columns=LABEL_COLUMNS)

    @classmethod
    def _from_rows(
        cls, rows: Iterable[tuple[Any, Any, Any]], *, source: str, first_row: int,
        row_word: str, columns: Sequence[str],
    ) -> JudgeData:
        set_col, judge_col, human_col = columns
        test: list[int] = []
        human: list[int] = []
        judge: list[int] = []
        for number, (which, judge_value, human_value) in enumerate(rows, start=first_row):
            where = f"{source}, {row_word} {number}"
            kind = "" if which is None else str(which).strip().lower()
            verdict = _parse_label(judge_value)
            if verdict is None:
                raise ValueError(f"{where}: column `{judge_col}` must be 0 or 1, "
                                 f"got {_show(judge_value)}.")
            if kind == "test":
                test.append(verdict)
            elif kind == "calibration":
                truth = _parse_label(human_value)
                if truth is None:
                    raise ValueError(f"{where}: column `{human_col}` must be 0 or 1 on a "
                                     f"calibration row, got {_show(human_value)}.")
                human.append(truth)
                judge.append(verdict)
            else:
                raise ValueError(f"{where}: column `{set_col}` must be 'test' or "
                                 f"'calibration', got {_show(which)}.")
        return cls._from_binary(np.array(test, dtype=np.int8), np.array(human, dtype=np.int8),
                                np.array(judge, dtype=np.int8), source=f"{source}: ")


def _scalar_count(value: Any, name: str, *, minimum: int) -> int:
    array = check_counts(value, name, minimum=minimum)
    if array.ndim != 0:
        raise TypeError(f"`{name}` must be a single count, got an array of shape {array.shape}.")
    return int(array[()])


def _show(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "an empty value"
    return repr(value if not isinstance(value, str) else value.strip())


def _parse_label(value: Any) -> int | None:
    """Return 0/1 for a label written as a number, a bool or a word; None if it is not one."""
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, float, np.integer, np.floating)):
        return int(value) if value in (0, 1) else None
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE_WORDS:
            return 1
        if word in _FALSE_WORDS:
            return 0
    return None


def _binary_labels(values: Any, name: str) -> np.ndarray:
    """Validate a 1-D sequence of 0/1 labels; return an int8 copy (the input is not modified)."""
    if isinstance(values, (str, bytes)) or np.ndim(values) == 0:
        raise TypeError(f"`{name}` must be a sequence of 0/1 labels, got {type(values).__name__}.")
    if hasattr(values, "to_numpy"):  # pandas Series / Index; nullable dtypes become objects
        values = values.to_numpy(dtype=object)
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"`{name}` must be one-dimensional, got shape {array.shape}.")
    if array.dtype.kind == "b":
        return array.astype(np.int8)
    if array.dtype.kind in "iu":
        bad = (array != 0) & (array != 1)
    elif array.dtype.kind == "f":
        bad = ~((array == 0.0) | (array == 1.0))  # NaN is bad
    else:
        parsed = [_parse_label(v) if not isinstance(v, str) else None for v in array.tolist()]
        bad = np.array([v is None for v in parsed], dtype=bool)
        if not bad.any():
            return np.array(parsed, dtype=np.int8)
    if bad.any():
        index = int(np.flatnonzero(bad)[0])
        value = array[index]
        value = value.item() if isinstance(value, np.generic) else value
        missing = value is None or (isinstance(value, float) and math.isnan(value))
        what = "a missing value (NaN/None)" if missing else repr(value)
        raise ValueError(
            f"`{name}` must hold only 0/1 labels (booleans accepted); "
            f"item {index} is {what}."
        )
    return array.astype(np.int8)
