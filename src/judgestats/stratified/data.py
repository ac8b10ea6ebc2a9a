"""Stratified counts: the six counts of :class:`~judgestats.JudgeData` once per stratum.

A stratum is a task category (coding, writing, maths ...) in which the judge has its own
specificity and sensitivity. Stratum ``s`` holds its test counts (``k_s`` of ``n_s`` test items
judged correct) and its own calibration (``k0_s`` of ``m0_s`` truly-incorrect items judged
incorrect, ``k1_s`` of ``m1_s`` truly-correct items judged correct). The overall accuracy is
``theta = sum_s w_s theta_s`` with the test shares ``w_s = n_s / N``, ``N = sum_s n_s``, which
are known exactly (notation of Lee et al., "How to Correctly Report LLM-as-a-Judge
Evaluations", arXiv 2511.21140 v1, Sec. 2-3, with a stratum index added).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from judgestats._validate import SIX_COUNTS, as_real_array, check_six_counts, frozen_copy
from judgestats.data import JudgeData, items_labels, items_source

__all__ = ["StratifiedData"]


def _check_strata(strata: Any) -> tuple[str, ...]:
    """Stratum names: a non-empty sequence of unique, non-empty strings."""
    if isinstance(strata, (str, bytes)) or not isinstance(strata, (list, tuple)):
        raise TypeError(
            "`strata` must be a list or tuple of stratum names (strings), got "
            f"{type(strata).__name__}."
        )
    if not strata:
        raise ValueError("`strata` is empty: give at least one stratum.")
    for index, name in enumerate(strata):
        if not isinstance(name, str):
            raise TypeError(
                f"`strata` must hold strings; got {name!r} ({type(name).__name__}) at index "
                f"{index}."
            )
        if not name.strip():
            raise ValueError(f"`strata` must hold non-empty names; got {name!r} at index {index}.")
    seen: set[str] = set()
    for name in strata:
        if name in seen:
            raise ValueError(f"`strata` names the stratum {name!r} twice; names must be unique.")
        seen.add(name)
    return tuple(strata)


def _judge_data(values: list[Any]) -> JudgeData:
    """A JudgeData of the six counts in the order of ``SIX_COUNTS``."""
    k, n, k0, m0, k1, m1 = (int(value) for value in values)
    return JudgeData(k=k, n=n, k0=k0, m0=m0, k1=k1, m1=m1)


@dataclass(frozen=True, eq=False)
class StratifiedData:
    """The six counts of a judge evaluation in each of S strata (task categories).

    Parameters
    ----------
    strata : sequence of str
        Unique, non-empty stratum names, one per stratum (at least one).
    k, n : array_like of int, length S
        Per stratum: test items judged "correct", and test items in all (at least 1).
    k0, m0 : array_like of int, length S
        Per stratum: truly-incorrect calibration items judged "incorrect", and truly-incorrect
        calibration items in all (at least 1: each stratum measures its judge's specificity).
    k1, m1 : array_like of int, length S
        Per stratum: truly-correct calibration items judged "correct", and truly-correct
        calibration items in all (at least 1).

    Attributes
    ----------
    strata : tuple of str
        The stratum names, in the order given.
    k, n, k0, m0, k1, m1 : numpy.ndarray
        Read-only int64 arrays of length :attr:`size` (copies: the inputs are not touched).

    Raises
    ------
    TypeError
        If ``strata`` is not a list/tuple of strings or a count is not numeric.
    ValueError
        If ``strata`` is empty or repeats a name; if a count array is not 1-D or its length
        differs from ``len(strata)``; if a count is negative or not whole, a stratum has no test
        item (``n``), an empty calibration arm (``m0`` or ``m1``), or a part exceeds its total.
        Count errors name the argument and the stratum.

    Examples
    --------
    >>> from judgestats.stratified import StratifiedData
    >>> data = StratifiedData(
    ...     strata=("coding", "writing"),
    ...     k=[300, 200], n=[600, 400], k0=[80, 45], m0=[100, 50], k1=[90, 40], m1=[100, 50],
    ... )
    >>> data.weights.tolist()
    [0.6, 0.4]
    >>> data.pooled()
    JudgeData(k=500, n=1000, k0=125, m0=150, k1=130, m1=150)
    """

    strata: tuple[str, ...]
    k: np.ndarray
    n: np.ndarray
    k0: np.ndarray
    m0: np.ndarray
    k1: np.ndarray
    m1: np.ndarray

    def __post_init__(self) -> None:
        strata = _check_strata(self.strata)
        object.__setattr__(self, "strata", strata)
        size = len(strata)
        arrays: dict[str, np.ndarray] = {}
        for name in SIX_COUNTS:
            array = as_real_array(getattr(self, name), name)
            if array.ndim != 1:
                raise ValueError(
                    f"`{name}` must be a 1-D sequence of counts, one per stratum; got an array "
                    f"of shape {array.shape}."
                )
            if len(array) != size:
                raise ValueError(
                    f"`{name}` has {len(array)} counts but `strata` names {size} strata; give "
                    "one count per stratum."
                )
            arrays[name] = array
        for index, stratum in enumerate(strata):
            counts = {name: arrays[name][index] for name in SIX_COUNTS}
            try:
                check_six_counts(counts, arm_minimum=1, scalar=True)
            except ValueError as error:
                text = str(error).rstrip(".")
                raise ValueError(f"{text} (stratum {stratum!r}, index {index}).") from None
        for name, array in arrays.items():
            object.__setattr__(self, name, frozen_copy(array, np.int64))

    # -- identity --------------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, StratifiedData):
            return NotImplemented
        return self.strata == other.strata and all(
            np.array_equal(getattr(self, name), getattr(other, name)) for name in SIX_COUNTS
        )

    def __hash__(self) -> int:
        return hash((self.strata, *(tuple(getattr(self, name).tolist()) for name in SIX_COUNTS)))

    def __len__(self) -> int:
        return len(self.strata)

    def __repr__(self) -> str:
        counts = ", ".join(f"{name}={getattr(self, name).tolist()!r}" for name in SIX_COUNTS)
        return f"StratifiedData(strata={self.strata!r}, {counts})"

    # -- derived quantities ----------------------------------------------------------------------
    @property
    def size(self) -> int:
        """S, the number of strata."""
        return len(self.strata)

    @property
    def total(self) -> int:
        """N = sum_s n_s, the test items in all."""
        return int(self.n.sum())

    @property
    def weights(self) -> np.ndarray:
        """The test shares w_s = n_s / N (sum to 1): the weights of the overall accuracy."""
        return self.n / self.n.sum()

    @property
    def p(self) -> np.ndarray:
        """Per stratum: judged-correct rate p-hat_s = k_s / n_s."""
        return self.k / self.n

    @property
    def q0(self) -> np.ndarray:
        """Per stratum: specificity q0-hat_s = k0_s / m0_s."""
        return self.k0 / self.m0

    @property
    def q1(self) -> np.ndarray:
        """Per stratum: sensitivity q1-hat_s = k1_s / m1_s."""
        return self.k1 / self.m1

    @property
    def youden(self) -> np.ndarray:
        """Per stratum: Youden's J_s = q0-hat_s + q1-hat_s - 1."""
        return self.q0 + self.q1 - 1.0

    def stratum(self, name: str) -> JudgeData:
        """The six counts of one stratum as a :class:`~judgestats.JudgeData`.

        Raises
        ------
        KeyError
            If ``name`` is not one of :attr:`strata` (the message lists them).
        """
        if name not in self.strata:
            raise KeyError(f"`name` ({name!r}) is not a stratum; the strata are {self.strata!r}.")
        index = self.strata.index(name)
        return _judge_data([getattr(self, count)[index] for count in SIX_COUNTS])

    def pooled(self) -> JudgeData:
        """The counts summed over the strata: what one unstratified correction would use."""
        return _judge_data([getattr(self, name).sum() for name in SIX_COUNTS])

    def to_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict: ``{"strata": [...], "k": [...], ..., "m1": [...]}``."""
        out: dict[str, Any] = {"strata": list(self.strata)}
        out.update({name: getattr(self, name).tolist() for name in SIX_COUNTS})
        return out

    # -- constructors ----------------------------------------------------------------------------
    @classmethod
    def from_counts(cls, counts: Mapping[str, Any]) -> StratifiedData:
        """Build from ``{stratum name: counts}``.

        Parameters
        ----------
        counts : mapping of str to JudgeData or mapping
            Each value is a :class:`~judgestats.JudgeData` (stratified design) or a mapping with
            exactly the keys ``k, n, k0, m0, k1, m1``. The strata keep the mapping's order.

        Returns
        -------
        StratifiedData

        Raises
        ------
        TypeError
            If ``counts`` is not a mapping or a value is neither a JudgeData nor a mapping.
        ValueError
            If ``counts`` is empty, a value misses or adds a key, a JudgeData has the random
            design, or the counts are invalid (see :class:`StratifiedData`).

        Examples
        --------
        >>> from judgestats import JudgeData
        >>> data = StratifiedData.from_counts({
        ...     "coding": JudgeData(k=300, n=600, k0=80, m0=100, k1=90, m1=100),
        ...     "writing": dict(k=200, n=400, k0=45, m0=50, k1=40, m1=50),
        ... })
        >>> data.strata, data.n.tolist()
        (('coding', 'writing'), [600, 400])
        """
        if not isinstance(counts, Mapping):
            raise TypeError(
                "`counts` must be a mapping {stratum name: JudgeData or dict of the six counts}, "
                f"got {type(counts).__name__}."
            )
        if not counts:
            raise ValueError("`counts` is empty: give at least one stratum.")
        columns: dict[str, list[Any]] = {name: [] for name in SIX_COUNTS}
        for stratum, value in counts.items():
            if isinstance(value, JudgeData):
                if value.design != "stratified":
                    raise ValueError(
                        f"`counts` [{stratum!r}] has design={value.design!r}; stratified "
                        "calibration needs each stratum's arms chosen by design "
                        "(design='stratified')."
                    )
                row = value.to_dict()
            elif isinstance(value, Mapping):
                keys = set(value)
                if keys != set(SIX_COUNTS):
                    missing = sorted(set(SIX_COUNTS) - keys)
                    extra = sorted(map(str, keys - set(SIX_COUNTS)))
                    raise ValueError(
                        f"`counts` [{stratum!r}] must have exactly the keys k, n, k0, m0, k1, m1; "
                        f"missing {missing}, unexpected {extra}."
                    )
                row = dict(value)
            else:
                raise TypeError(
                    f"`counts` [{stratum!r}] must be a JudgeData or a dict of the six counts, "
                    f"got {type(value).__name__}."
                )
            for name in SIX_COUNTS:
                if isinstance(row[name], (bool, np.bool_)):
                    raise TypeError(f"`{name}` of stratum {stratum!r} must be a count, not a bool.")
                columns[name].append(row[name])
        return cls(tuple(counts), **{name: np.asarray(v) for name, v in columns.items()})

    @classmethod
    def from_items(cls, items: Any, *, by: str) -> StratifiedData:
        """Count an items frame (the table every :mod:`judgestats.io` reader returns) per stratum.

        Parameters
        ----------
        items : pandas.DataFrame
            One row per item with the columns ``id``, ``judge`` (0/1) and ``human`` (0/1, or
            missing); ``items.attrs["source"]`` names the file in error messages. Rows with a
            human label are the stratum's calibration items (``k0, m0`` from label 0, ``k1, m1``
            from label 1), rows without are its test items (``k, n``).
        by : str
            The column holding each item's stratum; its values become the stratum names
            (as strings), in order of first appearance.

        Returns
        -------
        StratifiedData

        Raises
        ------
        TypeError
            If ``items`` is not a data frame or ``by`` is not a string.
        ValueError
            If ``by`` is not a column (or is ``id``, ``judge`` or ``human``), a row has no
            stratum, ids repeat, a verdict is missing, or a stratum has no test item or an empty
            calibration arm (the message names the stratum).
        """
        if not isinstance(by, str):
            raise TypeError(f"`by` must be a column name (a string), got {by!r}.")
        source = items_source(items)
        if by in ("id", "judge", "human"):
            raise ValueError(
                f"`by` ({by!r}) must name a metadata column (the stratum), not one of 'id', "
                "'judge', 'human'."
            )
        if by not in items.columns:
            raise ValueError(
                f"`by` ({by!r}) is not a column of {source}; its columns are "
                f"{', '.join(map(repr, map(str, items.columns)))}."
            )
        column = items[by]
        if column.isna().any():
            first = int(np.flatnonzero(column.isna().to_numpy())[0])
            raise ValueError(
                f"{source}: `by` column {by!r} is missing for {int(column.isna().sum())} row(s) "
                f"(first at row {first}); every item needs a stratum."
            )
        judge, human = items_labels(items, source)
        names = column.astype(str).to_numpy()
        strata = list(dict.fromkeys(names.tolist()))
        labelled = human >= 0
        columns: dict[str, list[int]] = {name: [] for name in SIX_COUNTS}
        for stratum in strata:
            rows = names == stratum
            test = judge[rows & ~labelled]
            calib_h, calib_j = human[rows & labelled], judge[rows & labelled]
            columns["k"].append(int(test.sum()))
            columns["n"].append(int(test.size))
            columns["k0"].append(int(((calib_h == 0) & (calib_j == 0)).sum()))
            columns["m0"].append(int((calib_h == 0).sum()))
            columns["k1"].append(int(((calib_h == 1) & (calib_j == 1)).sum()))
            columns["m1"].append(int((calib_h == 1).sum()))
        return cls(tuple(strata), **{name: np.asarray(v) for name, v in columns.items()})
