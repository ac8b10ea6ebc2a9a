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
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from judgestats._validate import SIX_COUNTS, check_six_counts

__all__ = [
    "DESIGNS",
    "LABEL_COLUMNS",
    "JudgeData",
    "LabelRows",
    "binary_labels",
    "calibration_labels",
    "calibration_counts",
    "read_label_csv",
    "require_design",
]

#: The calibration designs :class:`JudgeData` records (see the module docstring).
DESIGNS = ("stratified", "random")

#: Columns of the item-level label file read by :meth:`JudgeData.from_csv`.
LABEL_COLUMNS = ("set", "judge", "human")

_TRUE_WORDS = {"1", "1.0", "true"}
_FALSE_WORDS = {"0", "0.0", "false"}
_MISSING_WORDS = {"", "na", "nan", "none", "null"}


class LabelRows(NamedTuple):
    """Item-level labels parsed from rows, in row order (int8 arrays of 0/1).

    ``test``: the judge's verdict on every test row. ``human`` and ``judge``: the human label and
    the judge's verdict on every calibration row; with ``design="random"`` ``human`` instead
    holds one entry per test row (-1 where the item is unlabelled) and ``judge`` is empty.
    """

    test: np.ndarray
    human: np.ndarray
    judge: np.ndarray


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

        Lists, tuples, numpy arrays and pandas Series are accepted; booleans count as 0/1.
        Missing values are rejected except in ``calib_human`` (and ``calib_judge``) of a random
        design, where they mark the unlabelled items.

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
        threshold: float | None = None,
        human_positive: Any = None,
        set_column: str = "set",
        judge_column: str = "judge",
        human_column: str = "human",
        design: str = "stratified",
    ) -> JudgeData:
        """Count item-level verdicts and labels held in a pandas DataFrame.

        Two layouts, chosen by the keywords:

        **Named verdict columns** (any of ``judge``, ``human``, ``id``, ``positive``,
        ``threshold``, ``human_positive`` given; ``judge`` is then required): one row per item,
        the judge's verdict in column ``judge`` mapped to 0/1 by ``positive`` (e.g. ``"C"``,
        ``"PASS"``, ``"yes"``, ``True``) or ``threshold`` (score >= threshold is 1), the human
        label in column ``human`` (empty where nobody labelled the item). Rows with a human
        label form the calibration set, the others the test set (``design="stratified"``); with
        ``design="random"`` every row is a test item and the labelled rows are the random
        labelled subsample. This is :func:`judgestats.io.read_frame` followed by
        :meth:`from_items`; see there for ``id`` and ``human_positive``.

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
        """
        design = check_design(design)
        named = {
            "judge": judge,
            "human": human,
            "id": id,
            "positive": positive,
            "threshold": threshold,
            "human_positive": human_positive,
        }
        if any(value is not None for value in named.values()):
            if judge is None:
                given = ", ".join(f"`{k}`" for k, v in named.items() if v is not None)
                raise TypeError(
                    f"`judge` (the column of the judge's verdicts) is required "
                    f"when {given} is given."
                )
            from judgestats.io.frames import read_frame

            items = read_frame(
                frame,
                judge=judge,
                human=human,
                id=id,
                positive=positive,
                threshold=threshold,
                human_positive=human_positive,
            )
            return cls.from_items(items, design=design)
        missing = [c for c in (set_column, judge_column, human_column) if c not in frame.columns]
        if missing:
            raise ValueError(
                f"`frame` lacks the column(s) {', '.join(map(repr, missing))}; "
                f"it has {', '.join(map(repr, map(str, frame.columns)))}."
            )
        rows = zip(
            frame[set_column].tolist(),
            frame[judge_column].tolist(),
            frame[human_column].tolist(),
            strict=True,
        )
        return cls._from_rows(
            rows,
            source="`frame`",
            first_row=0,
            row_word="row",
            columns=(set_column, judge_column, human_column),
            design=design,
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
        labels = _parse_rows(
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


def items_source(items: Any) -> str:
    """The source named in an items frame's errors; raise unless ``items`` is an items frame."""
    columns = getattr(items, "columns", None)
    if columns is None or not hasattr(items, "attrs"):
        raise TypeError(
            "`items` must be an items frame (a pandas DataFrame from a judgestats.io "
            f"reader), got {type(items).__name__}."
        )
    source = str(items.attrs.get("source", "`items`"))
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
    """Parse the item-level label file of :meth:`JudgeData.from_csv`, keeping the row order.

    The file layout, the accepted label values and the errors are those of
    :meth:`JudgeData.from_csv`, which counts what this returns; readers that need the items
    themselves (e.g. paired test items of two models) use it directly.

    Returns
    -------
    LabelRows
        The test verdicts and the calibration labels, in file order.
    """
    design = check_design(design)
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
        rows = ((r[position["set"]], r[position["judge"]], r[position["human"]]) for r in reader)
        return _parse_rows(
            rows, source=name, first_row=2, row_word="row", columns=LABEL_COLUMNS, design=design
        )


def _parse_rows(
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
    for number, (which, judge_value, human_value) in enumerate(rows, start=first_row):
        where = f"{source}, {row_word} {number}"
        kind = "" if which is None else str(which).strip().lower()
        verdict = _parse_label(judge_value)
        if verdict is None:
            raise ValueError(
                f"{where}: column `{judge_col}` must be 0 or 1, got {_show(judge_value)}."
            )
        if kind == "test":
            test.append(verdict)
            if design == "random":  # a human label marks a labelled item; -1: unlabelled
                truth = -1 if _is_missing(human_value) else _parse_label(human_value)
                if truth is None:
                    raise ValueError(
                        f"{where}: column `{human_col}` must be 0, 1 or empty on "
                        f"a test row, got {_show(human_value)}."
                    )
                human.append(truth)
        elif kind == "calibration" and design == "random":
            raise ValueError(
                f"{where}: column `{set_col}` is 'calibration', but with design='random' the "
                "labelled items are a subset of the test items: give them as 'test' rows "
                f"with a `{human_col}` label."
            )
        elif kind == "calibration":
            truth = _parse_label(human_value)
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
    return LabelRows(
        np.array(test, dtype=np.int8),
        np.array(human, dtype=np.int8),
        np.array(judge, dtype=np.int8),
    )


def calibration_labels(calib_human: Any, calib_judge: Any) -> tuple[np.ndarray, np.ndarray]:
    """The calibration labels as checked 0/1 arrays (:func:`binary_labels`) of the same length.

    One human label and one judge verdict per calibration item; the one reader of calibration
    label pairs (:meth:`JudgeData.from_labels`, :func:`judgestats.ppi`, ``ModelLabels``).

    Raises
    ------
    ValueError
        If a label is not 0/1 (naming the argument) or the two arrays differ in length.
    """
    human = binary_labels(calib_human, "calib_human")
    judge = binary_labels(calib_judge, "calib_judge")
    if human.size != judge.size:
        raise ValueError(
            f"`calib_human` ({human.size} items) and `calib_judge` ({judge.size} items) must "
            "have the same length: one human label and one judge verdict per calibration item."
        )
    return human, judge


def calibration_counts(human: np.ndarray, judge: np.ndarray) -> tuple[int, int, int, int]:
    """The calibration counts ``(k0, m0, k1, m1)`` of paired 0/1 label arrays (checked, same size).

    ``m1`` items have human label 1 and ``m0`` label 0; ``k0`` of the truly-incorrect and ``k1``
    of the truly-correct items got the same verdict from the judge. No class is required.
    """
    m1 = int(np.count_nonzero(human == 1))
    k0 = int(np.count_nonzero((human == 0) & (judge == 0)))
    k1 = int(np.count_nonzero((human == 1) & (judge == 1)))
    return k0, int(human.size) - m1, k1, m1


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


def check_design(design: Any) -> str:
    """Return ``design`` if it is one of :data:`DESIGNS`; raise otherwise."""
    if not isinstance(design, str):
        raise TypeError(f"`design` must be 'stratified' or 'random', got {design!r}.")
    if design not in DESIGNS:
        raise ValueError(
            f"`design` ({design!r}) must be 'stratified' (m0 and m1 chosen by design) or "
            "'random' (a random labelled subsample of the test items)."
        )
    return design


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


def _is_missing(value: Any) -> bool:
    """True for None, NaN, pandas NA/NaT and an empty or 'na'-like string."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    if isinstance(value, (float, np.floating)):
        return math.isnan(value)
    return isinstance(value, str) and value.strip().lower() in _MISSING_WORDS


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


def binary_labels(values: Any, name: str, *, allow_missing: bool = False) -> np.ndarray:
    """Validate a 1-D sequence of 0/1 labels; return an int8 copy (the input is not modified).

    Lists, tuples, numpy arrays and pandas Series are accepted; booleans count as 0/1. With
    ``allow_missing`` a missing value (NaN, None, pandas NA) becomes -1. Errors name the argument
    ``name`` and the first bad item.
    """
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
        bad = ~((array == 0.0) | (array == 1.0))  # NaN is bad ...
        if allow_missing:  # ... unless it marks an unlabelled item
            bad &= ~np.isnan(array)
            if not bad.any():
                return np.where(np.isnan(array), -1, array).astype(np.int8)
    else:
        items = array.tolist()
        parsed = [
            -1
            if allow_missing and not isinstance(v, str) and _is_missing(v)
            else (_parse_label(v) if not isinstance(v, str) else None)
            for v in items
        ]
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
            f"`{name}` must hold only 0/1 labels (booleans accepted); item {index} is {what}."
        )
    return array.astype(np.int8)
