"""K-class counts: a judge with K verdicts (A / B / tie, rubric scores 1-5 ...).

The test set gives the judge's verdict on every test item: ``test[j]`` items judged class j.
The calibration set gives, for every labelled item, the true class and the judge's verdict: the
K x K confusion count matrix ``confusion[i, j]`` of items of true class i judged j (rows = true
class). With K = 2 and the classes ordered (incorrect, correct) these are the six counts of
:class:`~judgestats.JudgeData`: ``test = (n - k, k)`` and
``confusion = ((k0, m0 - k0), (m1 - k1, k1))``.

As for the binary judge, the calibration is either stratified by true class (each row a fixed
number of items chosen from that class) or a random subsample of the test population (the row
totals then also carry information on the class shares, and a class may be absent from it).
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

import numpy as np

from judgestats._labels import is_missing
from judgestats._validate import (
    as_real_array,
    check_classes,
    check_counts,
    check_one_dimensional,
    frozen_copy,
    refuse_masked,
)
from judgestats.data import JudgeData, check_design, items_source

__all__ = ["BINARY_CLASSES", "KClassData", "class_position"]

#: The class names of a :class:`~judgestats.JudgeData` seen as K = 2 classes, in its order.
BINARY_CLASSES = ("incorrect", "correct")


def _frozen_counts(value: Any, name: str, shape: tuple[int, ...]) -> np.ndarray:
    """Whole non-negative counts of the given shape as a read-only int64 copy."""
    array = as_real_array(value, name)
    if array.shape != shape:
        raise ValueError(
            f"`{name}` must have shape {shape} (one count per class"
            f"{' pair' if len(shape) == 2 else ''}), got shape {array.shape}."
        )
    return frozen_copy(check_counts(array, name), np.int64)


@dataclass(frozen=True, eq=False)
class KClassData:
    """Counts of a K-class judge evaluation with a human-labelled calibration set.

    Parameters
    ----------
    classes : sequence of str or int
        The K >= 2 class names, in the order of the counts (e.g. ``("A", "B", "tie")`` or
        ``(1, 2, 3, 4, 5)``).
    test : array_like of int, shape (K,)
        Test items the judge put in each class (at least one test item in all).
    confusion : array_like of int, shape (K, K)
        Calibration items by true class (rows) and judged class (columns).
    design : {"stratified", "random"}, default "stratified"
        ``"stratified"``: each row is a sample from its true class, so every row needs at
        least one item. ``"random"``: the calibration items are a random subsample of the test
        population (``test`` then counts the unlabelled items); a class may be absent from it,
        but not every class.

    Raises
    ------
    TypeError
        If ``classes`` is not a list or tuple of strings or integers, or a count is not a
        number.
    ValueError
        For fewer than two or repeated classes, counts of the wrong shape, negative or
        non-whole counts, no test item, an empty calibration row with the stratified design
        (the message names the class), an empty calibration set.

    Examples
    --------
    >>> data = KClassData(("A", "B", "tie"), test=[420, 380, 200],
    ...                   confusion=[[50, 4, 6], [5, 48, 7], [6, 5, 29]])
    >>> data.n, data.m.tolist()
    (1000, [60, 60, 40])
    >>> data.p.tolist()
    [0.42, 0.38, 0.2]
    """

    classes: tuple[Any, ...]
    test: np.ndarray
    confusion: np.ndarray
    design: str = "stratified"

    def __post_init__(self) -> None:
        classes = check_classes(self.classes)
        size = len(classes)
        object.__setattr__(self, "classes", classes)
        object.__setattr__(self, "design", check_design(self.design))
        test = _frozen_counts(self.test, "test", (size,))
        confusion = _frozen_counts(self.confusion, "confusion", (size, size))
        if test.sum() == 0:
            raise ValueError("`test` holds no item: at least one test item is needed.")
        rows = confusion.sum(axis=1)
        if self.design == "stratified" and (rows == 0).any():
            empty = [classes[i] for i in np.flatnonzero(rows == 0)]
            raise ValueError(
                f"`confusion` has no calibration item of true class {empty[0]!r} (row "
                f"{int(np.flatnonzero(rows == 0)[0])} sums to 0): with design='stratified' "
                "every true class needs labelled items, or the judge's verdicts on it are not "
                "measured."
            )
        if rows.sum() == 0:
            raise ValueError("`confusion` holds no calibration item: label some items.")
        object.__setattr__(self, "test", test)
        object.__setattr__(self, "confusion", confusion)

    # -- derived quantities -------------------------------------------------------------------
    @property
    def size(self) -> int:
        """K, the number of classes."""
        return len(self.classes)

    @property
    def n(self) -> int:
        """Test items in all."""
        return int(self.test.sum())

    @property
    def m(self) -> np.ndarray:
        """Calibration items of each true class (the row sums of :attr:`confusion`)."""
        return self.confusion.sum(axis=1)

    @property
    def p(self) -> np.ndarray:
        """The judged shares p-hat = test / n."""
        return self.test / self.n

    @property
    def rates(self) -> np.ndarray:
        """C-hat: each row of :attr:`confusion` divided by its total (NaN for an empty row)."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.confusion / self.m[:, None]

    @property
    def empty_classes(self) -> tuple[Any, ...]:
        """True classes without a calibration item (possible with ``design="random"`` only)."""
        return tuple(self.classes[i] for i in np.flatnonzero(self.m == 0))

    def index(self, name: Any) -> int:
        """The position of a class (ValueError naming the classes for an unknown name)."""
        return class_position(self.classes, name, "name")

    def to_judge_data(self) -> JudgeData:
        """The K = 2 counts as a :class:`~judgestats.JudgeData` (class 0 = incorrect, 1 = correct).

        Raises
        ------
        ValueError
            If K is not 2.
        """
        if self.size != 2:
            raise ValueError(
                f"only K = 2 classes are a JudgeData; these counts have K = {self.size}."
            )
        (c00, c01), (c10, c11) = self.confusion.tolist()
        return JudgeData(
            k=int(self.test[1]),
            n=self.n,
            k0=c00,
            m0=c00 + c01,
            k1=c11,
            m1=c10 + c11,
            design=self.design,
        )

    @classmethod
    def from_judge_data(cls, data: JudgeData, classes: Any = BINARY_CLASSES) -> KClassData:
        """The six binary counts as K = 2 classes ordered (incorrect, correct)."""
        if not isinstance(data, JudgeData):
            raise TypeError(f"`data` must be a JudgeData, got {type(data).__name__}.")
        return cls(
            tuple(classes),
            test=np.array([data.n - data.k, data.k]),
            confusion=np.array([[data.k0, data.m0 - data.k0], [data.m1 - data.k1, data.k1]]),
            design=data.design,
        )

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict: classes, test counts, confusion counts, design."""
        return {
            "classes": list(self.classes),
            "test": self.test.tolist(),
            "confusion": self.confusion.tolist(),
            "design": self.design,
        }

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, KClassData):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    def __hash__(self) -> int:
        return hash(repr(self))

    def __repr__(self) -> str:
        design = "" if self.design == "stratified" else f", design={self.design!r}"
        return (
            f"KClassData(classes={self.classes!r}, test={self.test.tolist()!r}, "
            f"confusion={self.confusion.tolist()!r}{design})"
        )

    def _repr_html_(self) -> str:
        """HTML table for notebooks: the confusion counts, the row totals and the test counts."""
        from judgestats._html import result_block

        header = ("true \\ judged", *map(str, self.classes), "total")
        rows = [
            (str(name), *map(str, row), str(total))
            for name, row, total in zip(
                self.classes, self.confusion.tolist(), self.m.tolist(), strict=True
            )
        ]
        rows.append(("test set (judged)", *map(str, self.test.tolist()), str(self.n)))
        return result_block(f"KClassData (K = {self.size}, design {self.design})", header, rows)

    # -- constructors ---------------------------------------------------------------------------
    @classmethod
    def from_labels(
        cls,
        test_judge: Any,
        calib_human: Any,
        calib_judge: Any,
        *,
        classes: Any = None,
        design: str = "stratified",
    ) -> KClassData:
        """Count item-level class labels.

        Parameters
        ----------
        test_judge : sequence
            The judge's class on every test item.
        calib_human, calib_judge : sequence
            The true (human) class and the judge's class on every calibration item, in the same
            order.
        classes : sequence of str or int, optional
            The declared classes, in the order wanted. Default: every value that occurs, sorted.
            Declare them when a class may be absent from the data.
        design : {"stratified", "random"}, default "stratified"
            How the calibration items were chosen (see :class:`KClassData`).

        Lists, tuples, numpy arrays and pandas Series are accepted.

        Raises
        ------
        ValueError
            For a missing value, a value not in ``classes`` (the message names the argument,
            the values and the declared set), calibration sequences of different lengths,
            an empty test set, and what :class:`KClassData` rejects.

        Examples
        --------
        >>> data = KClassData.from_labels(["A", "tie", "B", "A"], ["A", "B", "tie"],
        ...                               ["A", "B", "A"], classes=["A", "B", "tie"])
        >>> data.test.tolist(), data.confusion.tolist()
        ([2, 1, 1], [[1, 0, 0], [0, 1, 0], [1, 0, 0]])
        """
        given = {
            "test_judge": _label_list(test_judge, "test_judge"),
            "calib_human": _label_list(calib_human, "calib_human"),
            "calib_judge": _label_list(calib_judge, "calib_judge"),
        }
        if len(given["calib_human"]) != len(given["calib_judge"]):
            raise ValueError(
                f"`calib_human` ({len(given['calib_human'])} labels) and `calib_judge` "
                f"({len(given['calib_judge'])} verdicts) must describe the same calibration "
                "items, in the same order."
            )
        if not given["test_judge"]:
            raise ValueError("`test_judge` is empty: at least one test item is needed.")
        if classes is None:
            classes = _inferred_classes(given)
        classes = check_classes(classes)
        codes = {name: _class_codes(values, name, classes) for name, values in given.items()}
        size = len(classes)
        test = np.bincount(codes["test_judge"], minlength=size)
        confusion = np.zeros((size, size), dtype=np.int64)
        np.add.at(confusion, (codes["calib_human"], codes["calib_judge"]), 1)
        return cls(classes, test=test, confusion=confusion, design=design)

    @classmethod
    def from_items(
        cls, items: Any, *, classes: Any = None, design: str = "stratified"
    ) -> KClassData:
        """Count an items frame whose ``judge`` and ``human`` columns hold class names.

        Parameters
        ----------
        items : pandas.DataFrame
            One row per item with the columns ``id``, ``judge`` (the judge's class) and
            ``human`` (the true class, missing where nobody labelled the item), as the
            :mod:`judgestats.io` readers return with ``classes=``; ``items.attrs["source"]``
            names the file in error messages.
        classes : sequence of str or int, optional
            The declared classes (default: ``items.attrs["classes"]``, which the readers
            record when given ``classes=``, else the values that occur, sorted).
        design : {"stratified", "random"}, default "stratified"
            ``"stratified"``: the labelled rows are the calibration set and the unlabelled
            rows the test set. ``"random"``: the labelled rows are a random subsample of the
            test items; ``test`` counts the unlabelled rows.

        Raises
        ------
        ValueError
            Naming the source: a missing column, a repeated id, an item without a verdict, a
            value not in ``classes``, no labelled or no unlabelled item.
        """
        source = items_source(items)
        classes = items.attrs.get("classes") if classes is None else classes
        ids = items["id"].astype(str)
        if ids.duplicated().any():
            shown = ", ".join(map(repr, list(dict.fromkeys(ids[ids.duplicated(keep=False)]))[:3]))
            raise ValueError(
                f"{source}: item ids occur more than once, e.g. {shown}; keep one row per item "
                "(e.g. items.drop_duplicates('id')) before counting."
            )
        judge = items["judge"]
        if judge.isna().any():
            raise ValueError(
                f"{source}: {int(judge.isna().sum())} item(s) have no judge verdict; drop them "
                "first, e.g. items.dropna(subset=['judge'])."
            )
        labelled = items["human"].notna().to_numpy()
        if not labelled.any():
            raise ValueError(
                f"{source}: no item has a human label, so the judge's confusion matrix "
                "cannot be measured; label some items."
            )
        if labelled.all():
            raise ValueError(
                f"{source}: every item has a human label, so no test items are left; the "
                "unlabelled items are the test set."
            )
        try:
            return cls.from_labels(
                _plain_values(judge[~labelled]),
                _plain_values(items["human"][labelled]),
                _plain_values(judge[labelled]),
                classes=classes,
                design=design,
            )
        except ValueError as error:
            raise ValueError(f"{source}: {error}") from None


def _plain_values(series: Any) -> list[Any]:
    """A column's values as Python scalars (numpy and pandas integers become int)."""
    return [int(v) if isinstance(v, numbers.Integral) else v for v in series.tolist()]


def _label_list(values: Any, name: str) -> list[Any]:
    """A sequence of labels as a list of strings, integers and booleans; raise for the rest.

    Whole-number floats (``2.0``, a numeric column with gaps) become integers, numpy scalars
    Python ones; booleans stay booleans, so that they match no class (as in
    :func:`class_position`). A missing value (None, NaN, NaT, ``pandas.NA``), a scalar, a
    string, an unordered container (a set) or a label that is neither a string nor an integer
    raises naming ``name``.
    """
    refuse_masked(values, name)
    if isinstance(values, (AbstractSet, Mapping)):
        raise TypeError(
            f"`{name}` must be an ordered sequence of class labels (list, array, Series), got "
            f"{type(values).__name__}: labels need an order, to pair each calibration label "
            "with the judge's verdict on the same item."
        )
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise TypeError(
            f"`{name}` must be a sequence of class labels (list, array, Series), got "
            f"{type(values).__name__}."
        )
    array = check_one_dimensional(np.asarray(values, dtype=object), name)
    return [_label(value, name, index) for index, value in enumerate(array.tolist())]


def _label(value: Any, name: str, index: int) -> Any:
    """One label as ``str``, ``int`` or ``bool`` (see :func:`_label_list`)."""
    if is_missing(value, words=False):  # a class may be named 'NA': kept as written
        raise ValueError(f"`{name}` has a missing value at position {index}.")
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (str, bool)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    raise TypeError(
        f"`{name}` labels must be strings or integers; got {value!r} "
        f"({type(value).__name__}) at position {index}."
    )


def _inferred_classes(given: dict[str, list[Any]]) -> tuple[Any, ...]:
    """Every value that occurs, sorted (TypeError when they cannot be ordered or are booleans)."""
    for name, labels in given.items():
        flags = [isinstance(v, bool) for v in labels]
        if any(flags):
            index = flags.index(True)
            raise TypeError(
                f"`{name}` holds a boolean ({labels[index]!r} at position {index}), which is "
                "not a class name: map the labels to strings or integers first."
            )
    values = set().union(*(set(v) for v in given.values()))
    try:
        return tuple(sorted(values))
    except TypeError:
        raise TypeError(
            "the labels mix types that cannot be ordered ("
            f"{sorted({type(v).__name__ for v in values})}); declare the order with `classes`."
        ) from None


def _class_codes(values: list[Any], name: str, classes: tuple[Any, ...]) -> np.ndarray:
    """Each label's position in ``classes``; raise naming ``name`` for labels outside it."""
    lookup = {(type(c) is str, c): i for i, c in enumerate(classes)}
    codes = np.empty(len(values), dtype=np.int64)
    unknown: dict[Any, int] = {}
    for index, value in enumerate(values):
        key = (isinstance(value, str), value)
        if isinstance(value, (bool, np.bool_)) or key not in lookup:
            unknown[value] = unknown.get(value, 0) + 1
            continue
        codes[index] = lookup[key]
    if unknown:
        shown = ", ".join(f"{v!r} ({count}x)" for v, count in list(unknown.items())[:5])
        raise ValueError(
            f"`{name}` holds values that are not among the declared classes: {shown}; the "
            f"classes are {list(classes)!r}."
        )
    return codes


def class_position(classes: tuple[Any, ...], name: Any, argument: str) -> int:
    """The position of the class ``name`` in ``classes``; ValueError naming ``argument`` if none.

    Strings match strings and integers match integers (``1`` is not ``"1"``); booleans never
    match.
    """
    return int(_class_codes([name], argument, classes)[0])
