"""Items from an lm-evaluation-harness per-sample log (``samples_<task>_<date>.jsonl``).

``lm_eval --log_samples --output_path DIR`` writes one such file per task. The layout follows
the harness's own writer (github.com/EleutherAI/lm-evaluation-harness, ``main`` at version
0.4.13.dev0, read in 2026: ``lm_eval/evaluator.py`` builds each record,
``lm_eval/loggers/evaluation_tracker.py::save_results_samples`` writes it): one JSON object per
line and per (document, filter) with the fields ``doc_id``, ``doc``, ``target`` (a string),
``arguments``, ``resps``, ``filtered_resps``, ``filter`` (e.g. ``"none"``, ``"strict-match"``),
``metrics`` (the list of metric names) and ``doc_hash`` / ``prompt_hash`` / ``target_hash``, and
then one field per metric named in ``metrics`` (``acc``, ``exact_match``, ...) holding that
document's value.
"""

from __future__ import annotations

import os
from typing import Any

import pandas as pd

from judgestats._paths import check_path
from judgestats.io._items import (
    declared_classes,
    item_ids,
    items_frame,
    map_classes,
    map_verdicts,
    set_options,
)
from judgestats.io._tables import load_json_lines

__all__ = ["read_lm_eval"]


def read_lm_eval(
    path: str | os.PathLike[str],
    *,
    metric: str,
    threshold: float | None = None,
    positive: Any = None,
    filter: str | None = None,
    classes: list[Any] | tuple[Any, ...] | None = None,
) -> pd.DataFrame:
    """Read an lm-evaluation-harness ``samples_*.jsonl`` file into an items frame.

    Parameters
    ----------
    path : path
        A per-sample log (layout in the module docstring).
    metric : str
        The metric field that is the judge's verdict per document, e.g. ``"acc"``,
        ``"exact_match"`` or a model-graded metric of a custom task. Its values must be 0/1 or
        booleans, unless ``threshold`` or ``positive`` says how to map them.
    threshold : float, optional
        For a continuous metric: a value ``>= threshold`` is "correct".
    positive : scalar or sequence, optional
        For a metric written as labels: the value(s) that mean "correct".
    filter : str, optional
        Which filter's records to keep (the ``filter`` field, e.g. ``"strict-match"``). Needed
        when the file holds several filters, since each document is logged once per filter.
    classes : list or tuple of str or int, optional
        For a metric with K values (e.g. a rubric score 1-5 of a model-graded task): the
        declared classes, e.g. ``[1, 2, 3, 4, 5]``. The metric's values are then kept as class
        values (see :func:`judgestats.io.map_classes`; a score written as ``3.0`` is the class
        ``3``) instead of 0/1, and ``attrs["classes"]`` records them, for
        :meth:`judgestats.kclass.KClassData.from_items` once labels are joined with
        :func:`judgestats.io.join_human`. Not with ``threshold`` or ``positive``.

    Returns
    -------
    pandas.DataFrame
        An items frame keyed by ``doc_id`` (as a string), with ``human`` all missing (join
        labels with :func:`judgestats.io.join_human`) and the columns ``target`` and ``filter``.
        With ``classes``, ``judge`` and ``human`` are ``object`` columns of class values.

    Raises
    ------
    ValueError
        Naming the file: not JSON lines, truncated, not an lm-eval samples file, an unknown
        ``metric`` (listing those present), several filters without ``filter``, an unknown
        ``filter``, metric values outside the mapping (or ``classes``), a ``doc_id`` that
        repeats within the filter kept (``1`` and ``1.0`` are one id) or is not text or a
        number; ``classes`` together with ``threshold`` or ``positive``.
    TypeError
        If ``metric`` is not a string, ``filter`` neither a string nor None, or ``classes``
        not a list or tuple of strings and integers.
    """
    if not isinstance(metric, str):
        raise TypeError(f"`metric` must be a str (a field name), got {type(metric).__name__}.")
    if filter is not None and not isinstance(filter, str):
        raise TypeError(f"`filter` must be a str or None, got {type(filter).__name__}.")
    declared = declared_classes(
        classes, set_options(threshold=threshold, positive=positive), kept="metric's values"
    )
    source = check_path(path)
    records, lines = load_json_lines(source)  # lines: each record's line in the file
    if not records or not all(map(is_lm_eval_sample, records)):
        raise ValueError(
            f"{source}: not an lm-evaluation-harness samples file (expected JSON "
            "lines with `doc_id`, `doc` and `metrics`, as `lm_eval --log_samples` "
            "writes to samples_<task>_<date>.jsonl)."
        )
    kept = _one_filter(records, filter, source)
    records, lines = [records[i] for i in kept], [lines[i] for i in kept]
    missing = [line for line, r in zip(lines, records, strict=True) if metric not in r]
    if missing:
        present = sorted({m for r in records for m in (r.get("metrics") or [])})
        raise ValueError(
            f"{source}: no metric {metric!r} in {len(missing)} of {len(records)} "
            f"records (first: line {missing[0]} of the file); the metrics are "
            f"{', '.join(map(repr, present)) or 'none'}."
        )
    values = [r[metric] for r in records]
    verdicts = (
        map_verdicts(values, positive=positive, threshold=threshold, name=metric, source=source)
        if declared is None
        else map_classes(values, classes=declared, name=metric, source=source)
    )
    return items_frame(
        _unique_doc_ids(records, lines, source),
        verdicts,
        source=source,
        extra={
            "target": [r.get("target") for r in records],
            "filter": [r.get("filter") for r in records],
        },
        classes=declared,
    )


def is_lm_eval_sample(record: Any) -> bool:
    """True if a parsed JSON line looks like a record of an lm-eval samples file."""
    return isinstance(record, dict) and {"doc_id", "doc", "metrics"} <= set(record)


def _unique_doc_ids(records: list[dict[str, Any]], lines: list[int], source: str) -> list[str]:
    """The records' ``doc_id`` values as item ids; ValueError naming the file for a repeat.

    The harness logs each document once per filter, so a repeated id (``1`` twice, or ``1`` and
    ``1.0``, which are one id as text) means two logs joined in one file: counted, its
    documents would weigh twice.
    """
    ids = item_ids([r["doc_id"] for r in records], name="doc_id", source=source)
    first: dict[str, int] = {}
    for number, item in enumerate(ids):
        if item in first:
            a, b = records[first[item]]["doc_id"], records[number]["doc_id"]
            written = "" if repr(a) == repr(b) else f", written {a!r} and {b!r}"
            raise ValueError(
                f"{source}: `doc_id` {item!r} occurs more than once{written} (lines "
                f"{lines[first[item]]} and {lines[number]} of the file, filter "
                f"{records[number].get('filter')!r});"
                " the harness logs each document once per filter, so the file joins several "
                "logs: keep one record per document."
            )
        first[item] = number
    return ids


def _one_filter(records: list[dict[str, Any]], wanted: str | None, source: str) -> list[int]:
    """The positions of the records to keep: those of filter ``wanted``, or all of one filter."""
    filters = list(dict.fromkeys(str(r.get("filter")) for r in records))
    if wanted is not None:
        kept = [i for i, r in enumerate(records) if str(r.get("filter")) == wanted]
        if not kept:
            raise ValueError(
                f"{source}: no records with filter {wanted!r}; the filters are "
                f"{', '.join(map(repr, filters))}."
            )
        return kept
    if len(filters) > 1:
        raise ValueError(
            f"{source}: the file logs each document once per filter "
            f"({', '.join(map(repr, filters))}); choose one with `filter`."
        )
    return list(range(len(records)))
