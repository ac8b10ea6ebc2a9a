"""The data layer: :class:`JudgeData`, the six counts every estimator in judgestats starts from.

Notation (Lee et al., "How to Correctly Report LLM-as-a-Judge Evaluations", arXiv 2511.21140 v1,
Sec. 2-3; "Lee et al. v1" below): a test set of ``n`` items of which ``k`` are judged "correct"
(p-hat = k / n, eq. 2); a calibration set with human labels, holding ``m0`` truly-incorrect items
of which ``k0`` are judged incorrect (specificity q0-hat = k0 / m0) and ``m1`` truly-correct items
of which ``k1`` are judged correct (sensitivity q1-hat = k1 / m1).

Two calibration designs (``JudgeData.design``):

``"stratified"`` (the default; the design of Lee et al. v1 and of its ICML 2026 version)
    ``m0`` truly-incorrect and ``m1`` truly-correct items are chosen by design, so the class counts
    carry no information about the accuracy theta.
``"random"``
    the labelled items are a simple random subsample of the test population. The same six numbers
    then hold the four (human z, judge z-hat) cells of the ``m = m0 + m1`` labelled items --
    (1, 1): ``k1``, (1, 0): ``m1 - k1``, (0, 1): ``m0 - k0``, (0, 0): ``k0`` -- and ``k`` of ``n``
    counts the judge's "correct" verdicts on the *unlabelled* test items only, so no item is
    counted twice. The class count ``m1`` of the labelled items is then informative,
    ``m1 ~ Bin(m, theta)``, provided the labelled items come from the test population.

Label values are read as :mod:`judgestats._labels` says (how 0/1 may be written, which values are
missing); label files and items frames as :mod:`judgestats._label_rows` says.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judgestats._label_rows import (
    LABEL_COLUMNS,
    LabelRows,
    items_labels,
    items_source,
    parse_label_rows,
    read_label_csv,
)
from judgestats._labels import binary_labels, calibration_counts, calibration_labels
from judgestats._validate import DESIGNS, SIX_COUNTS, check_design, check_six_counts

__all__ = [
    "DESIGNS",
    "LABEL_COLUMNS",
    "JudgeData",
    "LabelRows",
    "binary_labels",
    "calibration_labels",
    "calibration_counts",
    "check_design",
    "items_labels",
    "items_source",
    "read_label_csv",
    "require_design",
]


@dataclass(frozen=True)
class JudgeData:
    """Counts from an LLM-judge evaluation with a human-labelled calibration set.

    Parameters
    ----------
    k : int
        Test items the judge called "correct".
    n : int
        Test items in all (at least 1).
    k0 : int
        Truly-incorrect calibration items the judge called "incorrect".
    m0 : int
        Truly-incorrect calibration items (at least 1; may be 0 with ``design="random"``).
    k1 : int
        Truly-correct calibration items the judge called "correct".
    m1 : int
        Truly-correct calibration items (at least 1; may be 0 with ``design="random"``).
    design : {"stratified", "random"}, default "stratified"
        How the calibration items were chosen. With ``"random"`` the labelled items are a random
        subsample of the test population and ``k``, ``n`` count the *unlabelled* test items (see
        the module docstring). A random subsample may hold one true class only (``m0 = 0`` or
        ``m1 = 0``, with ``k0`` or ``k1`` then 0): it is accepted, :attr:`one_class` is True and
        :attr:`q0` or :attr:`q1` is NaN. A stratified arm must not be empty, since it would
        measure nothing; a random design needs ``m0 + m1 >= 1``.

    Raises
    ------
    TypeError
        If a count is not a real number (booleans and strings are rejected).
    ValueError
        If a count is negative, not a whole number, a total is zero (``m0`` or ``m1`` may be 0
        with ``design="random"``, but not both), or a part exceeds its total; if ``design`` is
        not one of :data:`DESIGNS`.

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
    design: str = field(default="stratified")

    def __post_init__(self) -> None:
        object.__setattr__(self, "design", check_design(self.design))
        # a random labelled subsample may miss a class; a stratified arm may not be empty
        arm_minimum = 0 if self.design == "random" else 1
        given = {name: getattr(self, name) for name in SIX_COUNTS}
        for name, value in check_six_counts(given, arm_minimum=arm_minimum, scalar=True).items():
            object.__setattr__(self, name, int(value))
        names, total = ("`m0` + `m1`", self.m0 + self.m1)  # m and, random: N = n + m in int64
        if self.design == "random":
            names, total = "`n` + `m0` + `m1`", total + self.n
        if total >= 2**63:
            raise ValueError(
                f"{names} ({total}) must be at most 2**63 - 1: the item totals are computed in "
                "numpy's 64-bit integers."
            )
        if self.m0 + self.m1 == 0:
            raise ValueError(
                "`m0` + `m1` (0) must be at least 1 with design='random': the random design "
                "needs a labelled subsample of the test items."
            )

    # -- derived quantities ------------------------------------------------------------------
    @property
    def p(self) -> float:
        """Proportion of test items judged correct, p-hat = k / n (Lee et al. v1 eq. 2)."""
        return self.k / self.n

    @property
    def q0(self) -> float:
        """Estimated specificity q0-hat = k0 / m0; NaN when ``m0`` is 0 (random design only)."""
        return self.k0 / self.m0 if self.m0 else math.nan

    @property
    def q1(self) -> float:
        """Estimated sensitivity q1-hat = k1 / m1; NaN when ``m1`` is 0 (random design only)."""
        return self.k1 / self.m1 if self.m1 else math.nan

    @property
    def youden(self) -> float:
        """Youden's J = q0-hat + q1-hat - 1; the correction exists only when J > 0.

        NaN when a labelled class is empty (:attr:`one_class`).
        """
        return self.q0 + self.q1 - 1.0

    @property
    def one_class(self) -> bool:
        """True if the labelled items hold one true class only (``m0`` or ``m1`` is 0).

        Possible only with ``design="random"``: a small random subsample of a test population
        whose accuracy is near 0 or 1 often holds no item of the rarer class. The judge's error
        rate on the missing class is then not measured: :attr:`q0` or :attr:`q1` is NaN, the
        closed form (:func:`judgestats.estimate`) is undefined, PPI flags its interval, and the
        posterior takes that rate from its prior.
        """
        return self.m0 == 0 or self.m1 == 0

    @property
    def m(self) -> int:
        """Calibration (labelled) items in all, m = m0 + m1."""
        return self.m0 + self.m1

    @property
    def cells(self) -> tuple[int, int, int, int]:
        """The four (human, judge) cells of the calibration items.

        In the order (1, 1), (1, 0), (0, 1), (0, 0) -- i.e. ``(k1, m1 - k1, m0 - k0, k0)`` -- whose
        probabilities under the random design are theta q1, theta (1 - q1), (1 - theta)(1 - q0)
        and (1 - theta) q0.
        """
        return (self.k1, self.m1 - self.k1, self.m0 - self.k0, self.k0)

    def to_dict(self) -> dict[str, Any]:
        """Return the six counts as a JSON-safe dict (plus ``"design"`` for a random design)."""
        out: dict[str, Any] = {
            name: getattr(self, name) for name in ("k", "n", "k0", "m0", "k1", "m1")
        }
        if self.design != "stratified":
            out["design"] = self.design
        return out

    def __repr__(self) -> str:
        counts = ", ".join(
            f"{name}={getattr(self, name)!r}" for name in ("k", "n", "k0", "m0", "k1", "m1")
        )
        design = "" if self.design == "stratified" else f", design={self.design!r}"
        return f"JudgeData({counts}{design})"

    def _repr_html_(self) -> str:
        """Compact HTML table for notebooks: the six counts and the rates they give."""
        from judgestats._html import fmt4, result_block

        rows = [
            ("test set: judged correct", f"{self.k} of {self.n}", fmt4(self.p)),
            ("calibration: specificity q0", f"{self.k0} of {self.m0}", fmt4(self.q0)),
            ("calibration: sensitivity q1", f"{self.k1} of {self.m1}", fmt4(self.q1)),
            ("Youden's J = q0 + q1 - 1", "", fmt4(self.youden)),
        ]
        return result_block(f"JudgeData (design {self.design})", ("", "count", "rate"), rows)

    # -- constructors --------------------------------------------------------------------------
    @classmethod
    def from_labels(
        cls,
        test_judge: Any,
        calib_human: Any,
        calib_judge: Any = None,
        *,
        design: str = "stratified",
    ) -> JudgeData:
        """Count item-level 0/1 labels.

        Parameters
        ----------
        test_judge : sequence of {0, 1}
            The judge's verdict on every test item (1 = "correct").
        calib_human : sequence of {0, 1}
            ``design="stratified"``: the human (true) label of every calibration item.
            ``design="random"``: one entry per *test* item, the human label where the item was
            labelled and a missing value (NaN, None, pandas NA) where it was not.
        calib_judge : sequence of {0, 1}, optional
            ``design="stratified"`` (required): the judge's verdict on the same calibration items,
            in the same order. ``design="random"`` (optional): one entry per test item; where an
            item is labelled it must repeat ``test_judge`` (the labelled items are test items).
        design : {"stratified", "random"}, default "stratified"
            How the calibration items were chosen (see :class:`JudgeData`).

        Lists, tuples, numpy arrays and pandas Series are accepted; booleans count as 0/1, and
        so do the strings ``"1"``, ``"1.0"``, ``"true"`` / ``"0"``, ``"0.0"``, ``"false"`` (any
        case, spaces stripped: the rule the file readers follow). Missing values (NaN, None,
        pandas NA, a blank string, ``"NA"``, ``"null"`` ...) are rejected except in
        ``calib_human`` (and ``calib_judge``) of a random design, where they mark the unlabelled
        items.

        Returns
        -------
        JudgeData
            For a random design ``k``, ``n`` count the unlabelled test items and ``k0, m0, k1,
            m1`` the labelled ones.

        Raises
        ------
        ValueError
            For values other than 0/1, missing values, calibration sequences of different lengths,
            an empty test set, a stratified calibration set without items of one true class, an
            unknown ``design``; for a random design, labels not marked on the test items
            (sequences of another length, or a judge verdict that differs from the test item's),
            no labelled or no unlabelled items. A random design's labelled items may all belong
            to one class (see :attr:`JudgeData.one_class`).
        """
        design = check_design(design)
        if design == "random":
            return cls._from_marked_labels(test_judge, calib_human, calib_judge)
        if calib_judge is None:
            raise TypeError(
                "`calib_judge` is required with design='stratified': the judge's "
                "verdict on every calibration item."
            )
        test = binary_labels(test_judge, "test_judge")
        human, judge = calibration_labels(calib_human, calib_judge)
        return cls._from_binary(test, human, judge, source="")

    @classmethod
    def _from_marked_labels(cls, test_judge: Any, calib_human: Any, calib_judge: Any) -> JudgeData:
        """Random design: human labels marked on the test items (missing = unlabelled)."""
        test = binary_labels(test_judge, "test_judge")
        human = binary_labels(calib_human, "calib_human", allow_missing=True)
        given = {"calib_human": human}
        if calib_judge is not None:
            given["calib_judge"] = binary_labels(calib_judge, "calib_judge", allow_missing=True)
        for name, values in given.items():
            if values.size != test.size:
                raise ValueError(
                    f"with design='random' the labelled items are a subset of the test items: "
                    f"`{name}` must hold one entry per test item (a missing value where the item "
                    f"is unlabelled), got {values.size} entries for {test.size} test items."
                )
        if "calib_judge" in given:
            judge = given["calib_judge"]
            differ = (human >= 0) & (judge != test)
            if differ.any():
                i = int(np.flatnonzero(differ)[0])
                shown = "missing" if judge[i] < 0 else int(judge[i])
                raise ValueError(
                    "with design='random' the labelled items are test items, so `calib_judge` "
                    f"must repeat `test_judge` on them; labelled item {i} has `calib_judge` "
                    f"{shown} but `test_judge` {int(test[i])}."
                )
        return cls._from_binary(test, human, test, source="", design="random")

    @classmethod
    def _from_binary(
        cls,
        test: np.ndarray,
        human: np.ndarray,
        judge: np.ndarray,
        *,
        source: str,
        design: str = "stratified",
    ) -> JudgeData:
        """Count labels; for a random design ``human`` marks unlabelled items with -1."""
        if test.size == 0:
            raise ValueError(f"{source}the test set is empty: `test_judge` holds no items.")
        where = "the calibration set"
        if design == "random":
            test, labelled = _split_marked(test, human, source)
            human, judge = human[labelled], judge[labelled]
            where = "the labelled subsample"
        k0, m0, k1, m1 = calibration_counts(human, judge)
        for count, word, arm in (
            (m0, "incorrect (human label 0)", "q0"),
            (m1, "correct (human label 1)", "q1"),
        ):
            if count == 0 and design != "random":  # a random subsample may miss a class
                raise ValueError(
                    f"{source}{where} has no truly {word} items, so "
                    f"{'specificity' if arm == 'q0' else 'sensitivity'} {arm} cannot be "
                    "estimated; label at least one item of each class."
                )
        return cls(k=int(test.sum()), n=int(test.size), k0=k0, m0=m0, k1=k1, m1=m1, design=design)

    @classmethod
    def from_frame(
        cls,
        frame: Any,
        *,
        judge: str | None = None,
        human: str | None = None,
        id: str | None = None,
        positive: Any = None,
        negative: Any = None,
        threshold: float | None = None,
        human_positive: Any = None,
        human_negative: Any = None,
        set_column: str = "set",
        judge_column: str = "judge",
        human_column: str = "human",
        design: str = "stratified",
    ) -> JudgeData:
        """Count item-level verdicts and labels held in a pandas DataFrame.

        Two layouts, chosen by the keywords:

        **Named verdict columns** (any of ``judge``, ``human``, ``id``, ``positive``,
        ``negative``, ``threshold``, ``human_positive``, ``human_negative`` given; ``judge`` is
        then required): one row per item, the judge's verdict in column ``judge`` mapped to 0/1
        by ``positive`` / ``negative`` (e.g. ``"C"``, ``"PASS"``, ``"model_a"`` / ``"model_b"``,
        ``2`` / ``1``) or ``threshold`` (score >= threshold is 1), the human label in column
        ``human`` (empty where nobody labelled the item), mapped by ``human_positive`` /
        ``human_negative``, else like the verdicts. Rows with a human
        label form the calibration set, the others the test set (``design="stratified"``); with
        ``design="random"`` every row is a test item and the labelled rows are the random
        labelled subsample. This is :func:`judgestats.io.read_frame` followed by
        :meth:`from_items`; see there for ``id``, the options and their errors.

        How values map (:func:`judgestats.io.map_verdicts`): ``positive`` values are 1
        ("correct"), ``negative`` values 0 ("incorrect"); numbers compare by value, so
        ``positive=2, negative=1`` maps a gold-label column read as floats (1.0, 2.0, NaN), and
        the text ``"2"`` is the number 2 too; text compares case-insensitively. Missing values
        (None, NaN, pandas NA, blank, "na", "nan", "none", "null") stay unlabelled. Errors name
        the argument: ``positive`` equal to ``negative``, a value that is neither, a column of
        three or more values without ``positive`` / ``negative``, a ``positive`` list holding a
        value and its opposite (``["C", "I"]``).

        **The set/judge/human layout of** :meth:`from_csv` (none of those keywords): rows whose
        ``set_column`` is ``"test"`` contribute their judge label to the test set; rows whose
        ``set_column`` is ``"calibration"`` contribute a (human, judge) pair. With
        ``design="random"`` every row is a ``"test"`` row and a human label marks the labelled
        ones. ``judge_column`` and ``human_column`` name the 0/1 columns.

        Examples
        --------
        >>> import pandas as pd
        >>> frame = pd.DataFrame({"verdict": ["C", "I", "C", "I", "C"],
        ...                       "human_label": ["C", "I", None, None, None]})
        >>> JudgeData.from_frame(frame, judge="verdict", human="human_label", positive="C")
        JudgeData(k=2, n=3, k0=1, m0=1, k1=1, m1=1)

        A pairwise judge's winner, and gold labels 1/2 with gaps (floats):

        >>> pairs = pd.DataFrame({"winner": ["model_a", "model_b", "model_a", "model_b"],
        ...                       "gold": [2.0, 1.0, None, None]})
        >>> JudgeData.from_frame(pairs, judge="winner", positive="model_a", negative="model_b",
        ...                      human="gold", human_positive=2, human_negative=1)
        JudgeData(k=1, n=2, k0=1, m0=1, k1=1, m1=1)
        """
        design = check_design(design)
        named = {
            "judge": judge,
            "human": human,
            "id": id,
            "positive": positive,
            "negative": negative,
            "threshold": threshold,
            "human_positive": human_positive,
            "human_negative": human_negative,
        }
        if all(value is None for value in named.values()):
            columns = (set_column, judge_column, human_column)
            return cls._from_set_layout(frame, columns, design=design)
        if judge is None:
            given = ", ".join(f"`{k}`" for k, v in named.items() if v is not None)
            raise TypeError(
                f"`judge` (the column of the judge's verdicts) is required when {given} is given."
            )
        from judgestats.io.frames import read_frame

        items = read_frame(frame, **{k: v for k, v in named.items() if k != "judge"}, judge=judge)
        return cls.from_items(items, design=design)

    @classmethod
    def _from_set_layout(cls, frame: Any, columns: tuple[str, str, str], design: str) -> JudgeData:
        """Count the set / judge / human layout of :meth:`from_csv` held in a DataFrame."""
        import pandas as pd

        from judgestats._label_rows import refuse_duplicate_columns

        if not isinstance(frame, pd.DataFrame):
            raise TypeError(f"`frame` must be a pandas DataFrame, got {type(frame).__name__}.")
        refuse_duplicate_columns(frame, "`frame`")
        missing = [c for c in columns if c not in frame.columns]
        if missing:
            raise ValueError(
                f"`frame` lacks the column(s) {', '.join(map(repr, missing))}; "
                f"it has {', '.join(map(repr, map(str, frame.columns)))}."
            )
        rows = zip(*(frame[c].tolist() for c in columns), strict=True)
        return cls._from_rows(
            rows, source="`frame`", first_row=0, row_word="row", columns=columns, design=design
        )

    @classmethod
    def from_items(cls, items: Any, *, design: str = "stratified") -> JudgeData:
        """Count an items frame, the table every reader in :mod:`judgestats.io` returns.

        Parameters
        ----------
        items : pandas.DataFrame
            One row per item with the columns ``id``, ``judge`` (0/1) and ``human`` (0/1, or
            missing where no person labelled the item); ``items.attrs["source"]`` names the
            file in error messages.
        design : {"stratified", "random"}, default "stratified"
            ``"stratified"``: the rows with a human label are the calibration set (``k0, m0``
            from human label 0, ``k1, m1`` from human label 1) and the rows without are the
            test set (``k, n``). ``"random"``: every row is a test item and the labelled rows
            are the random labelled subsample; as in :meth:`from_labels`, ``k, n`` then count
            the unlabelled items and ``k0, m0, k1, m1`` the labelled ones.

        Returns
        -------
        JudgeData

        Raises
        ------
        ValueError
            Naming the source: a missing column, an id that repeats (an item judged several
            times, e.g. Inspect epochs: :func:`judgestats.estimate_items` clusters such rows;
            for counts, select one epoch first), an item without a judge verdict, no
            labelled items, no unlabelled (test) items, a stratified calibration set without
            one of the classes.
        """
        design = check_design(design)
        source = items_source(items)
        judge, human = items_labels(items, source)
        if not (human >= 0).any():
            raise ValueError(
                f"{source}: no item has a human label, so the judge's error rates "
                "cannot be measured; label some items (join a label file on the "
                "item id)."
            )
        if design == "random":
            return cls._from_binary(judge, human, judge, source=f"{source}: ", design="random")
        labelled = human >= 0
        if labelled.all():
            raise ValueError(
                f"{source}: every item has a human label, so no test items are "
                "left for the judge; with design='stratified' the unlabelled items "
                "are the test set."
            )
        return cls._from_binary(
            judge[~labelled], human[labelled], judge[labelled], source=f"{source}: "
        )

    @classmethod
    def from_csv(cls, path: str | os.PathLike[str], *, design: str = "stratified") -> JudgeData:
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

        With ``design="random"`` the labelled items are a random subsample of the test items: every
        row is a ``test`` row, and a ``human`` label (0/1) marks a labelled one (empty =
        unlabelled); a ``calibration`` row is an error. The labelled items may all belong to
        one class (see :attr:`one_class`).

        Raises
        ------
        ValueError
            Naming the file, the row (counting the header as row 1) and the column of the first
            problem: a missing column, an unknown ``set``, a label other than 0/1.
        """
        design = check_design(design)
        labels = read_label_csv(path, design=design)
        return cls._from_label_rows(labels, source=os.fspath(path), design=design)

    @classmethod
    def _from_rows(
        cls,
        rows: Iterable[tuple[Any, Any, Any]],
        *,
        source: str,
        first_row: int,
        row_word: str,
        columns: Sequence[str],
        design: str = "stratified",
    ) -> JudgeData:
        labels = parse_label_rows(
            rows,
            source=source,
            first_row=first_row,
            row_word=row_word,
            columns=columns,
            design=design,
        )
        return cls._from_label_rows(labels, source=source, design=design)

    @classmethod
    def _from_label_rows(cls, labels: LabelRows, *, source: str, design: str) -> JudgeData:
        if design == "random":
            return cls._from_binary(
                labels.test, labels.human, labels.test, source=f"{source}: ", design="random"
            )
        return cls._from_binary(labels.test, labels.human, labels.judge, source=f"{source}: ")


def require_design(data: Any, design: str, user: str) -> JudgeData:
    """Return ``data`` if it is a :class:`JudgeData` of ``design``; raise otherwise.

    ``user`` names the estimator in the message ("`shift_estimators`"), which says which design
    it needs and why.
    """
    if not isinstance(data, JudgeData):
        raise TypeError(f"`data` must be a JudgeData, got {type(data).__name__}.")
    if data.design == design:
        return data
    if design == "random":
        raise ValueError(
            f"{user} needs design='random' (labelled items drawn at random from the test "
            f"population), but `data.design` is {data.design!r}: a stratified calibration set "
            "fixes the class balance m1 / m by design, so it says nothing about the accuracy. "
            "Use judgestats.estimate (Rogan-Gladen) or judgestats.posterior for a stratified "
            "design."
        )
    raise ValueError(f"{user} needs design={design!r}, but `data.design` is {data.design!r}.")


def _split_marked(test: np.ndarray, human: np.ndarray, source: str) -> tuple[np.ndarray, Any]:
    """Random design: return (unlabelled test verdicts, mask of labelled items)."""
    labelled = human >= 0
    if not labelled.any():
        raise ValueError(
            f"{source}no test item has a human label, but design='random' needs a "
            "labelled subsample (mark unlabelled items with a missing value)."
        )
    if labelled.all():
        raise ValueError(
            f"{source}every test item has a human label, so no unlabelled items are left for "
            "the judge (`n` would be 0); the human labels alone give the accuracy (m1 / m)."
        )
    return test[~labelled], labelled
