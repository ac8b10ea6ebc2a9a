"""The base of the grouped tables: one row per group, one correction across the groups.

:class:`GroupedTable` holds what :class:`~judgestats.GroupedEstimates` and
:class:`~judgestats.GroupedCrossChecks` share -- the grouping columns, the rows, the family-wise
and per-group levels, the correction and its statement, the union of the rows' flags -- and the
one path through which both print (``str``), display (``_repr_html_``) and convert
(``summary``, ``to_dict``): the counts of each group first, then the columns a subclass adds
through its hooks.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from judgestats._json import to_json
from judgestats.grouped._format import aligned, group_label
from judgestats.grouped.multiplicity import interval_statement
from judgestats.results import Result

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["GroupedTable"]


class _Row(Protocol):
    """What the base needs of a row: the group key, the counts and the flags with sentences."""

    @property
    def key(self) -> tuple[Any, ...]: ...

    @property
    def counts(self) -> dict[str, int]: ...

    @property
    def flags(self) -> tuple[str, ...]: ...

    @property
    def messages(self) -> Mapping[str, str]: ...


RowT = TypeVar("RowT", bound=_Row)


@dataclass(frozen=True)
class GroupedTable(Result, Generic[RowT]):
    """One result per group, with a multiplicity correction across the groups.

    Subclasses add their own fields after these (and ``flags``, set from the rows) and fill in
    the hooks: :meth:`_columns` and :meth:`_cells` (the table after the counts),
    :meth:`_summary_record` and :meth:`_group_dict` (a row's entries after the group and its
    counts), :meth:`_dict_head` (the top of :meth:`to_dict`), :meth:`_heading` and
    :meth:`_html_title` (the table's title), and optionally :meth:`_before_table`,
    :meth:`_after_table` and :meth:`_html_notes`.

    Attributes
    ----------
    by : tuple of str
        The grouping column(s).
    rows : tuple
        One per group, in sorted group order.
    confidence_level : float
        The family-wise level asked for (1 - alpha).
    interval_level : float
        The level of each group's interval: ``1 - alpha / G`` for "holm" and "bonferroni",
        ``confidence_level`` for "none".
    correction : str
        "holm", "bonferroni" or "none".
    """

    #: The word before each group's flag in the printed table.
    note_word: ClassVar[str] = "note"

    by: tuple[str, ...]
    rows: tuple[RowT, ...]
    confidence_level: float
    interval_level: float
    correction: str

    def __post_init__(self) -> None:
        flags = tuple(dict.fromkeys(flag for row in self.rows for flag in row.flags))
        object.__setattr__(self, "flags", flags)

    @property
    def alpha(self) -> float:
        """The family-wise error rate, 1 - confidence_level."""
        return 1.0 - self.confidence_level

    @property
    def statement(self) -> str:
        """The correction in words, as printed under the table."""
        return interval_statement(self.correction, self.interval_level, len(self.rows))

    # -- the shared path --------------------------------------------------------------------
    def table_cells(self) -> tuple[list[str], list[list[str]]]:
        """Header and cells of the printed table: the group, its counts, then the results."""
        header = [" / ".join(self.by), "k/n", "k0/m0", "k1/m1", *self._columns()]
        cells = []
        for row in self.rows:
            c = row.counts
            counts = [f"{c['k']}/{c['n']}", f"{c['k0']}/{c['m0']}", f"{c['k1']}/{c['m1']}"]
            cells.append([group_label(row.key), *counts, *self._cells(row, header)])
        return header, cells

    def _notes(self) -> list[tuple[str, str]]:
        """(``group: flag``, sentence) for every flag of every group, in table order."""
        return [
            (f"{group_label(row.key)}: {flag}", message)
            for row in self.rows
            for flag, message in row.messages.items()
        ]

    def summary(self) -> pd.DataFrame:
        """A DataFrame with one row per group (index: the group key(s))."""
        import pandas as pd

        records = [
            dict(zip(self.by, row.key, strict=True)) | dict(row.counts) | self._summary_record(row)
            for row in self.rows
        ]
        return pd.DataFrame.from_records(records).set_index(list(self.by))

    def to_dict(self) -> dict[str, Any]:
        """Strict-JSON dict: the correction, its statement, and one entry per group.

        Through :func:`~judgestats._json.to_json`: a number that does not exist (NaN) or is
        unbounded is None, a group key that is not a plain value is its string.
        """
        groups = [
            {
                "group": dict(zip(self.by, row.key, strict=True)),
                **row.counts,
                **self._group_dict(row),
            }
            for row in self.rows
        ]
        return to_json({**self._dict_head(), "groups": groups})

    def __str__(self) -> str:
        lines = [self._heading(), *self._before_table(), *aligned(*self.table_cells())]
        lines += [f"  {line}" for line in self._after_table()]
        lines += [f"  {self.note_word} ({label}): {message}" for label, message in self._notes()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """Rich display: the printed table and every group's flags (escaped)."""
        from judgestats._html import result_block

        header, cells = self.table_cells()
        return result_block(self._html_title(), header, cells, self._html_notes())

    # -- the hooks --------------------------------------------------------------------------
    @abc.abstractmethod
    def _columns(self) -> list[str]:
        """The table's columns after the group and its counts."""

    @abc.abstractmethod
    def _cells(self, row: RowT, header: list[str]) -> list[str]:
        """One row's cells in :meth:`_columns` (``header`` is the whole header)."""

    @abc.abstractmethod
    def _summary_record(self, row: RowT) -> dict[str, Any]:
        """One row of :meth:`summary` after the group and its counts (flags last)."""

    @abc.abstractmethod
    def _group_dict(self, row: RowT) -> dict[str, Any]:
        """One entry of :meth:`to_dict`'s ``groups`` after the group and its counts."""

    @abc.abstractmethod
    def _dict_head(self) -> dict[str, Any]:
        """The entries of :meth:`to_dict` before ``groups``."""

    @abc.abstractmethod
    def _heading(self) -> str:
        """The printed table's first line."""

    @abc.abstractmethod
    def _html_title(self) -> str:
        """The caption of the rich display."""

    def _before_table(self) -> list[str]:
        """Printed lines between the heading and the table."""
        return []

    def _after_table(self) -> list[str]:
        """Printed lines under the table (indented by two), before the notes."""
        return [self.statement]

    def _html_notes(self) -> list[tuple[str, str]]:
        """The (label, text) notes of the rich display."""
        return self._notes()
