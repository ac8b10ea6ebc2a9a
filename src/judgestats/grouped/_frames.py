"""The items frame as arrays and counts, and the checks of the grouped functions' arguments.

Shared by the modules of :mod:`judgestats.grouped` only.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from judgestats._label_rows import ITEM_COLUMNS
from judgestats.data import JudgeData, binary_labels


def item_arrays(items: Any, source: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(cluster code per row, judge 0/1, human 0/1 or -1) of a validated items frame."""
    no_verdict = items["judge"].isna()
    if no_verdict.any():
        ids = items["id"].astype(str)
        shown = ", ".join(map(repr, list(ids[no_verdict])[:3]))
        raise ValueError(
            f"{source}: {int(no_verdict.sum())} row(s) have no judge verdict "
            f"(ids {shown}); drop them first, e.g. items.dropna(subset=['judge'])."
        )
    codes = np.unique(items["id"].astype(str).to_numpy(), return_inverse=True)[1]
    judge = binary_labels(items["judge"], "judge")
    human = binary_labels(items["human"], "human", allow_missing=True)
    return codes.reshape(-1), judge, human


def six_counts(judge: np.ndarray, human: np.ndarray) -> dict[str, int]:
    """k, n, k0, m0, k1, m1 of judge verdicts and human labels (-1: unlabelled, the test set)."""
    test = human < 0
    return {
        "k": int(judge[test].sum()),
        "n": int(test.sum()),
        "k0": int(np.count_nonzero((human == 0) & (judge == 0))),
        "m0": int(np.count_nonzero(human == 0)),
        "k1": int(np.count_nonzero((human == 1) & (judge == 1))),
        "m1": int(np.count_nonzero(human == 1)),
    }


def judge_data(counts: dict[str, int], design: str, source: str) -> JudgeData:
    """The counts as JudgeData; the errors of :meth:`JudgeData.from_items`, naming ``source``."""
    if counts["m0"] + counts["m1"] == 0:
        raise ValueError(
            f"{source}: no item has a human label, so the judge's error rates "
            "cannot be measured; label some items (join a label file on the "
            "item id)."
        )
    if counts["n"] == 0:
        raise ValueError(
            f"{source}: every row has a human label, so no test items are left "
            "for the judge; the unlabelled rows are the test set."
        )
    if design == "stratified":
        for arm, word in (("m0", "incorrect (human label 0)"), ("m1", "correct (human label 1)")):
            if counts[arm] == 0:
                raise ValueError(
                    f"{source}: the calibration set has no truly {word} items, so "
                    f"{'q0' if arm == 'm0' else 'q1'} cannot be estimated; label "
                    "at least one item of each class."
                )
    return JudgeData(**counts, design=design)


def check_by(by: Any, items: Any, source: str) -> tuple[str, ...]:
    """The `by` column(s) as a tuple, each a metadata column of ``items``, else raise."""
    columns = (by,) if isinstance(by, str) else by
    if (
        not isinstance(columns, Sequence)
        or isinstance(columns, bytes)
        or not columns
        or not all(isinstance(c, str) for c in columns)
    ):
        raise TypeError(f"`by` must be a column name or a non-empty list of them, got {by!r}.")
    available = [str(c) for c in items.columns if str(c) not in ITEM_COLUMNS]
    for column in columns:
        if column in ITEM_COLUMNS:
            raise ValueError(
                f"`by` ({column!r}) must name a metadata column, not one of "
                f"{', '.join(ITEM_COLUMNS)}; {source} has "
                f"{', '.join(map(repr, available)) or 'none'}."
            )
        if column not in items.columns:
            raise ValueError(
                f"`by` ({column!r}) is not a column of {source}; its metadata "
                f"columns are {', '.join(map(repr, available)) or 'none'}."
            )
    if len(set(columns)) != len(columns):
        raise ValueError(f"`by` ({list(columns)!r}) names a column twice.")
    for column in columns:
        _check_group_keys(items[column], column)
    return tuple(columns)


def _check_group_keys(values: Any, column: str) -> None:
    """Raise TypeError naming ``by`` for a column whose values cannot be group keys (lists)."""
    if values.dtype != object:
        return
    for value in values.tolist():
        try:
            hash(value)
        except TypeError:
            raise TypeError(
                f"`by` ({column!r}): the column holds values that cannot be group keys, e.g. "
                f"{value!r} ({type(value).__name__}); map them to text first, e.g. "
                f"items.assign(**{{{column!r}: items[{column!r}].astype(str)}})."
            ) from None


def check_null(null: Any) -> float | None:
    """The hypothesised accuracy as a float in [0, 1] (or None), else raise."""
    if null is None:
        return None
    if isinstance(null, (bool, np.bool_)) or not isinstance(null, (int, float, np.number)):
        raise TypeError(f"`null` must be an accuracy in [0, 1] or None, got {null!r}.")
    value = float(null)
    if not 0.0 <= value <= 1.0:  # also rejects NaN
        raise ValueError(f"`null` ({null!r}) must be an accuracy in [0, 1], e.g. 0.5.")
    return value
