"""The inputs of a two-model comparison: item-level labels, and the counts every method uses.

Two :class:`ModelLabels` give a paired design (the same test items judged for both models); two
:class:`~judgestats.JudgeData` give independent test sets. :func:`normalise_inputs` turns either
into :class:`CompareInputs` (test counts per model, the paired verdict cells, the calibration
counts) after the checks every method needs: both classes in each calibration set, model B's own
calibration under the model-specific design, a judge better than chance on each model.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from judgestats.data import (
    JudgeData,
    binary_labels,
    calibration_counts,
    calibration_labels,
    read_label_csv,
)

__all__ = [
    "Calibration",
    "CompareInputs",
    "ModelLabels",
    "check_better_than_chance",
    "normalise_inputs",
    "youden_of",
]

#: Calibration counts of one model: (k0, m0, k1, m1).
Calibration = tuple[int, int, int, int]


@dataclass(frozen=True, eq=False)
class ModelLabels:
    """Item-level 0/1 labels of one model: the judge's verdicts and the model's calibration set.

    Pass two of these to :func:`judgestats.compare` for a paired design: item ``i`` of
    ``a.test_judge`` and of ``b.test_judge`` is the same test item (so both arrays have the same
    length).

    Parameters
    ----------
    test_judge : sequence of {0, 1}
        The judge's verdict on this model's answer to every test item (1 = "correct").
    calib_human, calib_judge : sequence of {0, 1}, optional
        Human label and judge verdict on this model's calibration responses. Omit both for model B
        under ``calibration="shared"`` when only model A's responses were labelled.
    """

    test_judge: Any
    calib_human: Any = None
    calib_judge: Any = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "test_judge", binary_labels(self.test_judge, "test_judge"))
        if self.test_judge.size == 0:
            raise ValueError("`test_judge` holds no items: the test set is empty.")
        if (self.calib_human is None) != (self.calib_judge is None):
            raise ValueError(
                "give both `calib_human` and `calib_judge` (one human label and one "
                "judge verdict per calibration item), or neither."
            )
        if self.calib_human is None:
            return
        human, judge = calibration_labels(self.calib_human, self.calib_judge)
        object.__setattr__(self, "calib_human", human)
        object.__setattr__(self, "calib_judge", judge)

    @property
    def has_calibration(self) -> bool:
        """Whether this model has calibration labels of its own."""
        return self.calib_human is not None

    def calibration_counts(self, model: str = "") -> Calibration | None:
        """(k0, m0, k1, m1) of the calibration set, or None; raises if a class is missing.

        The counting is :func:`judgestats.data.calibration_counts` (the one used by
        :meth:`JudgeData.from_labels`).
        """
        if self.calib_human is None:
            return None
        k0, m0, k1, m1 = calibration_counts(self.calib_human, self.calib_judge)
        for count, word in ((m0, "incorrect (human label 0)"), (m1, "correct (human label 1)")):
            if count == 0:
                raise ValueError(
                    f"{model or 'the model'}: the calibration set has no truly {word} items, so "
                    "the judge's specificity and sensitivity cannot both be estimated; label at "
                    "least one item of each class."
                )
        return k0, m0, k1, m1

    @classmethod
    def from_csv(cls, path: str | os.PathLike[str]) -> ModelLabels:
        """Read the item-level file of :meth:`JudgeData.from_csv`, keeping the item order.

        Columns ``set`` (``test`` / ``calibration``), ``judge`` and ``human``. Test rows keep
        their order, which is what pairs them with the other model's file. A file without
        calibration rows gives a model without calibration labels.
        """
        labels = read_label_csv(path)
        if not labels.test.size:
            raise ValueError(f"{os.fspath(path)}: no test rows; the test set is empty.")
        if not labels.human.size:
            return cls(labels.test)
        return cls(labels.test, labels.human, labels.judge)


@dataclass(frozen=True)
class CompareInputs:
    """The counts of a comparison: test counts per model, paired cells, calibration sets."""

    k_a: int
    n_a: int
    k_b: int
    n_b: int
    cells: tuple[int, int, int, int] | None  # judge verdicts (1,1), (1,0), (0,1), (0,0)
    calib_a: Calibration
    calib_b: Calibration | None  # model B's own calibration, if it has one
    shared: bool

    @property
    def calib_b_used(self) -> Calibration:
        """The calibration that corrects model B."""
        return self.calib_a if self.shared else self.calib_b  # type: ignore[return-value]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict: per-model test counts and calibration, and the paired cells."""

        def calib(c: Calibration | None) -> dict[str, int] | None:
            return None if c is None else dict(zip(("k0", "m0", "k1", "m1"), c, strict=True))

        return {
            "a": {"k": self.k_a, "n": self.n_a, "calibration": calib(self.calib_a)},
            "b": {"k": self.k_b, "n": self.n_b, "calibration": calib(self.calib_b)},
            "paired_cells": None
            if self.cells is None
            else dict(
                zip(("both_correct", "a_only", "b_only", "neither"), self.cells, strict=True)
            ),
        }


def youden_of(calib: Calibration) -> float:
    """Youden's J = k0/m0 + k1/m1 - 1 of calibration counts."""
    k0, m0, k1, m1 = calib
    return k0 / m0 + k1 / m1 - 1.0


def _counts(data: JudgeData) -> Calibration:
    return data.k0, data.m0, data.k1, data.m1


def _paired_cells(a: ModelLabels, b: ModelLabels) -> tuple[int, int, int, int]:
    """Verdict cells (both judged correct, A only, B only, neither) of paired test items."""
    ya, yb = a.test_judge, b.test_judge
    if ya.size != yb.size:
        raise ValueError(
            f"the paired design needs one verdict per model on the same test items, but "
            f"`a.test_judge` has {ya.size} items and `b.test_judge` has {yb.size}; pass "
            "JudgeData counts instead if the test sets are different items."
        )
    both = int(np.count_nonzero(ya & yb))
    return (
        both,
        int(ya.sum()) - both,
        int(yb.sum()) - both,
        int(ya.size - ya.sum() - yb.sum() + both),
    )


def _check_types(a: object, b: object) -> None:
    for value, name in ((a, "a"), (b, "b")):
        if not isinstance(value, (JudgeData, ModelLabels)):
            raise TypeError(
                f"`{name}` must be a JudgeData (counts) or a judgestats.ModelLabels "
                f"(item-level labels), got {type(value).__name__}."
            )


def normalise_inputs(
    a: JudgeData | ModelLabels, b: JudgeData | ModelLabels, shared: bool
) -> tuple[CompareInputs, list[str]]:
    """Check the two models' data and return their counts and the note keys they raise.

    Notes (keys of :data:`judgestats.comparison.diagnostics.NOTE_FLAGS`):
    ``identical_calibration_counts`` (shared design, B's counts equal A's: one set) and
    ``unpaired_test_sets`` (counts of equally large test sets: taken as independent).
    """
    _check_types(a, b)
    notes: list[str] = []
    cells = None
    if isinstance(a, ModelLabels) and isinstance(b, ModelLabels):
        cells = _paired_cells(a, b)
    test = [
        (int(x.test_judge.sum()), int(x.test_judge.size))
        if isinstance(x, ModelLabels)
        else (x.k, x.n)
        for x in (a, b)
    ]
    calib_a = a.calibration_counts("model A") if isinstance(a, ModelLabels) else _counts(a)
    if calib_a is None:
        raise ValueError(
            "model A has no calibration labels (`a.calib_human`, `a.calib_judge`); "
            "every design needs them."
        )
    calib_b = b.calibration_counts("model B") if isinstance(b, ModelLabels) else _counts(b)
    if calib_b is None and not shared:
        raise ValueError(
            "calibration='model_specific' needs model B's own calibration labels "
            "(`b.calib_human`, `b.calib_judge`); give them, or use "
            "calibration='shared' to correct both models with model A's."
        )
    if shared and isinstance(b, JudgeData) and calib_b == calib_a:
        calib_b = None
        notes.append("identical_calibration_counts")
    if cells is None and test[0][1] == test[1][1] and isinstance(a, JudgeData):
        notes.append("unpaired_test_sets")
    (k_a, n_a), (k_b, n_b) = test
    inputs = CompareInputs(
        k_a, n_a, k_b, n_b, cells=cells, calib_a=calib_a, calib_b=calib_b, shared=shared
    )
    check_better_than_chance(inputs)
    return inputs, notes


def check_better_than_chance(inputs: CompareInputs) -> None:
    """Raise ValueError if the judge is no better than chance (J <= 0) on either model."""
    for model, calib in (("A", inputs.calib_a), ("B", inputs.calib_b)):
        if calib is None or youden_of(calib) > 0.0:
            continue
        k0, m0, k1, m1 = calib
        raise ValueError(
            f"the judge is no better than chance on model {model}'s calibration set: "
            f"J = q0 + q1 - 1 = {k0}/{m0} + {k1}/{m1} - 1 = {youden_of(calib):.4g} <= 0, so its "
            "verdicts carry no information about that model's accuracy and no correction or "
            "comparison exists. Use a better judge, or check that the labels are not swapped."
        )
