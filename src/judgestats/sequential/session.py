r"""Label until sure: which items to label next, and an interval valid whenever you stop.

:class:`LabellingSession` holds the items (ids and judge verdicts), the labels given so far, and
the seed of one random order of the items. Each batch is the next unlabelled items in that order,
so every batch is a uniform random sample of the items not yet labelled, and the labelled items,
taken in the order they arrive (batch after batch, each batch in the random order), are a
sequence of uniform draws without replacement -- what the anytime-valid interval
(:mod:`judgestats.sequential.targets`) needs. The interval after each batch is then the
sequence's interval at that time, even when a batch was labelled in parts or out of turn.
Labels that existed before the session (a random sample too) are the first batch.

The interval is a confidence *sequence*: it holds the target at every batch at once with
probability at least the level, so stopping as soon as it is narrow enough (or for any other
reason seen in the data) keeps its coverage -- unlike a fixed-size interval recomputed after
each batch (``benchmarks/sequential_coverage.py`` measures both).

With judge ``scores``, batches follow active selection instead (:mod:`judgestats.sequential.active`:
a seeded order that favours uncertain items, and an inverse-probability-weighted interval).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TYPE_CHECKING, Any

import numpy as np

from judgestats._labels import binary_labels
from judgestats._validate import (
    as_generator,
    check_level,
    check_one_dimensional,
    check_positive_int,
)
from judgestats.designs.labels_only import check_target
from judgestats.sequential.active import (
    MIN_PROBABILITY,
    ActiveDraws,
    check_scores,
    prefix_interval,
    selection_probabilities,
)
from judgestats.sequential.result import SequentialInterval
from judgestats.sequential.targets import interval_path, point_estimate

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from judgestats._typing import SeedLike

__all__ = ["LabellingSession"]


def _ids(values: Any, name: str) -> list[str]:
    """Ids as strings; a bare string (read letter by letter) or a set (no order) is refused."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"`{name}` must be a sequence of ids, got {type(values).__name__}.")
    if isinstance(values, (AbstractSet, Mapping)):
        raise TypeError(
            f"`{name}` must be an ordered sequence of ids (list, array, Series), got "
            f"{type(values).__name__}: the n-th id is paired with the n-th verdict or label."
        )
    items = np.asarray(values if hasattr(values, "ndim") else list(values), dtype=object)
    check_one_dimensional(items, name)  # rows of a 2-D array are not ids
    nested = [i for i, v in enumerate(items) if isinstance(v, (list, tuple, dict, set, np.ndarray))]
    if nested:
        raise ValueError(
            f"`{name}` must be one-dimensional, a sequence of single ids; got "
            f"{items[nested[0]]!r} at index {nested[0]}."
        )
    return [str(v) for v in items]


class LabellingSession:
    """The state of a sequential labelling: the items, the labels so far, one random order.

    Parameters
    ----------
    ids : sequence
        The items' ids (compared as strings; unique).
    verdicts : sequence of 0/1
        The judge's verdict on each item (1 = judged correct).
    labels : mapping of id to 0/1, optional
        Human labels already given (a random sample of the items).
    random_seed : int or numpy.random.Generator, optional
        Fixes the random order of the items that batches follow. Keep it the same for the whole
        labelling: the interval's validity at stopping needs one order throughout. None draws a
        fresh one (see :attr:`random_seed`).
    scores : sequence of float in [0, 1], optional
        The judge's probability that each item is correct. Given, the batches favour the items
        the judge is least certain about (active selection, :mod:`judgestats.sequential.active`)
        and the interval is the inverse-probability-weighted one (``target="items"`` only).
    min_probability : float, default 0.6
        The floor of the active selection weights, relative to the most uncertain item's 1
        (ignored without ``scores``).

    Examples
    --------
    >>> session = LabellingSession(["a", "b", "c", "d"], [1, 1, 0, 1], random_seed=3)
    >>> batch = session.next_batch(2)
    >>> len(batch)
    2
    """

    def __init__(
        self,
        ids: Sequence[Any],
        verdicts: Sequence[Any],
        *,
        labels: Mapping[Any, Any] | None = None,
        random_seed: SeedLike = None,
        scores: Sequence[Any] | None = None,
        min_probability: float = MIN_PROBABILITY,
    ) -> None:
        self._ids = _ids(ids, "ids")
        self._verdicts = binary_labels(verdicts, "verdicts")
        if self._verdicts.size != len(self._ids):
            raise ValueError(
                f"`verdicts` ({self._verdicts.size} values) must give one verdict per id "
                f"({len(self._ids)} ids)."
            )
        if not self._ids:
            raise ValueError("`ids` must hold at least one item.")
        self._index = {item: i for i, item in enumerate(self._ids)}
        if len(self._index) != len(self._ids):
            repeated = next(i for i, item in enumerate(self._ids) if self._index[item] != i)
            raise ValueError(
                f"`ids` must be unique; {self._ids[repeated]!r} appears more than once."
            )
        if random_seed is None:
            random_seed = int(np.random.SeedSequence().generate_state(1)[0])
        self.random_seed = random_seed
        generator = as_generator(random_seed)
        permutation = generator.permutation(len(self._ids))
        self._rank = np.empty(len(self._ids), dtype=np.int64)
        self._rank[permutation] = np.arange(len(self._ids))
        self._labels = np.full(len(self._ids), -1, dtype=np.int8)
        self._batches: list[np.ndarray] = []
        self._draws: ActiveDraws | None = None
        if scores is not None:
            self._scores = check_scores(scores, len(self._ids))
            probs = selection_probabilities(self._scores, min_probability)
            self._draws = ActiveDraws(probs, generator)
        if labels is not None:
            if not isinstance(labels, Mapping):
                raise TypeError(
                    f"`labels` must be a mapping of id to 0/1, got {type(labels).__name__}."
                )
            if labels:
                self.add_labels(list(labels.keys()), list(labels.values()))

    @classmethod
    def from_items(
        cls,
        items: pd.DataFrame,
        *,
        random_seed: SeedLike = None,
        score_column: str | None = None,
        min_probability: float = MIN_PROBABILITY,
    ) -> LabellingSession:
        """A session from an items frame of :mod:`judgestats.io` (``id``, ``judge``, ``human``).

        Rows with a human label are the labels already given. ``score_column`` names a column
        of judge scores in [0, 1] for active selection (see ``scores``).
        """
        import pandas as pd

        if not isinstance(items, pd.DataFrame) or not {"id", "judge"} <= set(items.columns):
            raise TypeError(
                "`items` must be an items frame (a DataFrame with `id` and `judge` columns, "
                f"as the judgestats.io readers return), got {type(items).__name__}."
            )
        if items["judge"].isna().any():
            raise ValueError("`items`: every item needs a judge verdict (`judge` has gaps).")
        scores = None
        if score_column is not None:
            if score_column not in items.columns:
                raise ValueError(
                    f"`score_column`: {score_column!r} is not a column of the items "
                    f"({', '.join(map(str, items.columns))})."
                )
            scores = pd.to_numeric(items[score_column], errors="coerce").to_numpy(float)
            if np.isnan(scores).any() and not items[score_column].isna().any():
                raise TypeError(f"`score_column` {score_column!r} must hold numbers.")
        human = items["human"] if "human" in items.columns else pd.Series(pd.NA, index=items.index)
        given = {str(i): int(v) for i, v in zip(items["id"], human, strict=True) if not pd.isna(v)}
        return cls(
            list(items["id"]),
            items["judge"].astype(int).to_numpy(),
            labels=given,
            random_seed=random_seed,
            scores=scores,
            min_probability=min_probability,
        )

    # ---- the state ------------------------------------------------------------------------
    @property
    def ids(self) -> list[str]:
        """The items' ids."""
        return list(self._ids)

    @property
    def labels(self) -> dict[str, int]:
        """The labels given so far, by id, in the order they were given."""
        return {self._ids[i]: int(self._labels[i]) for batch in self._batches for i in batch}

    @property
    def n_items(self) -> int:
        """N, the number of items."""
        return len(self._ids)

    @property
    def active(self) -> bool:
        """Whether batches follow active selection (the session was given ``scores``)."""
        return self._draws is not None

    @property
    def n_labelled(self) -> int:
        """The number of labelled items."""
        return int((self._labels >= 0).sum())

    # ---- what to label next ---------------------------------------------------------------
    def next_batch(self, size: int) -> list[str]:
        """The ids to label next: the next ``size`` unlabelled items in the session's order.

        A uniform random sample of the unlabelled items (all of them when fewer remain); with
        ``scores``, the next unlabelled items of the active selection order.

        Raises
        ------
        ValueError
            For a ``size`` below 1, or when every item is labelled.
        """
        size = check_positive_int(size, "size")
        unlabelled = np.flatnonzero(self._labels < 0)
        if unlabelled.size == 0:
            raise ValueError(f"every one of the {self.n_items} items is labelled already.")
        if self._draws is not None:
            return [self._ids[i] for i in self._draws.next_items(self._labels >= 0, size)]
        chosen = unlabelled[np.argsort(self._rank[unlabelled], kind="stable")[:size]]
        return [self._ids[i] for i in chosen]

    def add_labels(self, ids: Sequence[Any], labels: Sequence[Any]) -> None:
        """Record human labels (1 = correct) of the given items, as one batch.

        A label equal to one already given is accepted and ignored.

        Raises
        ------
        ValueError
            For an id that is not among the items or repeats, a label other than 0/1, a label
            that contradicts one already given, or lengths that differ.
        TypeError
            For ``ids`` that is not a sequence, ``labels`` that is a single value or a masked
            array (words such as "yes" are not 0/1 labels: ValueError, as elsewhere).
        """
        names = _ids(ids, "ids")
        values = binary_labels(labels, "labels")
        if values.size != len(names):
            raise ValueError(
                f"`labels` ({values.size} values) must give one label per id ({len(names)} ids)."
            )
        positions = self._positions(names)
        old = self._labels[positions]
        conflict = (old >= 0) & (old != values)
        if conflict.any():
            where = int(np.flatnonzero(conflict)[0])
            raise ValueError(
                f"`labels`: id {names[where]!r} is labelled {int(values[where])} here but "
                f"{int(old[where])} before; an item has one true label."
            )
        new = positions[old < 0]
        if new.size:
            self._labels[new] = values[old < 0]
            self._batches.append(new)

    def _positions(self, names: list[str]) -> np.ndarray:
        unknown = [item for item in names if item not in self._index]
        if unknown:
            raise ValueError(
                f"`ids`: {len(unknown)} id(s) are not among the {self.n_items} items "
                f"({', '.join(map(repr, unknown[:5]))}; ids look like "
                f"{', '.join(map(repr, self._ids[:3]))})."
            )
        if len(set(names)) != len(names):
            raise ValueError("`ids` must not repeat an id within one call.")
        return np.array([self._index[item] for item in names], dtype=np.int64)

    # ---- the interval ---------------------------------------------------------------------
    def _arrival(self) -> np.ndarray:
        """The labelled positions in the order they arrived (each batch in the random order).

        Batch after batch, each batch sorted by the session's random order. The confidence
        sequence runs over this one sequence, so the interval after each batch continues the
        one shown after the batch before (the looks are its prefixes); ranking all labels
        instead would put labels given late (say, the skipped half of a batch) before labels
        already used, and the intervals shown would come from different sequences.
        """
        if not self._batches:
            return np.empty(0, dtype=np.int64)
        return np.concatenate(
            [batch[np.argsort(self._rank[batch], kind="stable")] for batch in self._batches]
        )

    def interval(
        self, *, target: str = "items", confidence_level: float = 0.95
    ) -> SequentialInterval:
        """The anytime-valid interval now (running intersection over the labelled items).

        See :mod:`judgestats.sequential.targets` for the two targets' equations.
        """
        target = check_target(target)
        level = check_level(confidence_level)
        return self._interval_at(self._arrival(), target, level)

    def _interval_at(self, order: np.ndarray, target: str, level: float) -> SequentialInterval:
        if self._draws is not None:
            return self._active_interval_at(self._draws, order, target, level)
        truth = self._labels[order].astype(float)
        estimate = point_estimate(self._verdicts, order, truth, target)
        if order.size == 0:
            low, high = 0.0, 1.0
        else:
            lows, highs = interval_path(
                self._verdicts, order, truth, target=target, alpha=1.0 - level
            )
            low, high = float(lows[-1]), float(highs[-1])
        return self._result(target, level, estimate, (low, high), order.size)

    def _active_interval_at(
        self, active: ActiveDraws, order: np.ndarray, target: str, level: float
    ) -> SequentialInterval:
        """The inverse-probability-weighted interval (module :mod:`~.active`), items only.

        The estimate is the mean increment, the IPW estimate of the items' share.
        """
        if target != "items":
            raise ValueError(
                f"`target` ({target!r}): active selection (`scores`) estimates the items "
                "target only; use target='items'."
            )
        known = float(self._labels[order].sum())
        low, high = known / self.n_items, (known + self.n_items - order.size) / self.n_items
        _, estimate, cs_low, cs_high = prefix_interval(
            self._scores, active.probs, active.order, self._labels, 1.0 - level
        )
        if cs_low <= high and cs_high >= low:  # else: the level's rare miss
            low, high = max(low, cs_low), min(high, cs_high)
        return self._result(target, level, estimate, (low, high), order.size)

    def _result(
        self, target: str, level: float, estimate: float, ends: tuple[float, float], labelled: int
    ) -> SequentialInterval:
        """The interval at this time, its estimate clipped into it."""
        low, high = ends
        return SequentialInterval(
            target=target,
            confidence_level=level,
            estimate=min(max(estimate, low), high),
            low=low,
            high=high,
            n_labelled=int(labelled),
            n_items=self.n_items,
        )

    def reached(
        self, width: float, *, target: str = "items", confidence_level: float = 0.95
    ) -> bool:
        """Whether the interval now is at most ``width`` wide (``0 < width <= 1``)."""
        width = check_width(width)
        result = self.interval(target=target, confidence_level=confidence_level)
        return result.width <= width

    def path(
        self, *, target: str = "items", confidence_level: float = 0.95, by: str = "batch"
    ) -> pd.DataFrame:
        """The interval after each batch (or each label), as a table.

        Columns ``batch``, ``labelled``, ``estimate``, ``low``, ``high``, ``width``. With
        ``by="batch"``, one row per :meth:`add_labels` call that added labels (the labels given
        at construction are the first). With ``by="label"`` (random batches only), one row per
        labelled item in the order the labels arrived (batch after batch, each batch in the
        session's random order): row t is the interval from the first t labelled items, and
        the row that ends a batch is that batch's row of ``by="batch"``. A labelling that
        followed :meth:`next_batch` gets the same path when its labels are read back in one
        piece (as ``judgestats next`` does); ``batch`` is the batch that gave the t-th item.
        """
        import pandas as pd

        target = check_target(target)
        level = check_level(confidence_level)
        if by not in ("batch", "label"):
            raise ValueError(f"`by` ({by!r}) must be 'batch' or 'label'.")
        if by == "label":
            return self._label_path(target, level)
        rows = []
        order = self._arrival()
        ends = np.cumsum([batch.size for batch in self._batches])
        for number, end in enumerate(ends.tolist(), start=1):
            result = self._interval_at(order[:end], target, level)
            rows.append(
                (number, result.n_labelled, result.estimate, result.low, result.high, result.width)
            )
        frame = pd.DataFrame(
            rows, columns=["batch", "labelled", "estimate", "low", "high", "width"]
        )
        frame.attrs["target"] = target
        return frame

    def _label_path(self, target: str, level: float) -> pd.DataFrame:
        """:meth:`path` with ``by="label"``: one pass of the confidence sequence."""
        import pandas as pd

        if self._draws is not None:
            raise ValueError(
                "`by`: the path by label needs random batches; with active selection "
                "(`scores`) use by='batch'."
            )
        order = self._arrival()
        truth = self._labels[order].astype(float)
        batch_of = np.zeros(self.n_items, dtype=np.int64)
        for number, batch in enumerate(self._batches, start=1):
            batch_of[batch] = number
        lows, highs = interval_path(self._verdicts, order, truth, target=target, alpha=1 - level)
        rows = []
        for t in range(1, order.size + 1):
            low, high = float(lows[t - 1]), float(highs[t - 1])
            estimate = point_estimate(self._verdicts, order[:t], truth[:t], target)
            estimate = min(max(estimate, low), high)
            rows.append((int(batch_of[order[t - 1]]), t, estimate, low, high, high - low))
        frame = pd.DataFrame(
            rows, columns=["batch", "labelled", "estimate", "low", "high", "width"]
        )
        frame.attrs["target"] = target
        return frame

    def __repr__(self) -> str:
        return (
            f"LabellingSession(n_items={self.n_items}, n_labelled={self.n_labelled}, "
            f"random_seed={self.random_seed!r})"
        )


def check_width(width: Any) -> float:
    """A target width in (0, 1]."""
    if isinstance(width, bool) or not isinstance(width, (int, float, np.integer, np.floating)):
        raise TypeError(f"`width` must be a number, got {type(width).__name__}.")
    if not 0.0 < float(width) <= 1.0:
        raise ValueError(f"`width` ({width!r}) must lie in (0, 1].")
    return float(width)
