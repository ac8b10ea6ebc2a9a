"""Read judge verdicts and human labels from MLflow GenAI traces.

MLflow attaches *assessments* to a trace. A feedback assessment has a ``name``, a ``value`` and a
``source`` whose ``source_type`` is ``LLM_JUDGE`` (an LLM judge), ``HUMAN`` (a person), ``CODE``
(a heuristic) or ``SOURCE_TYPE_UNSPECIFIED`` (``mlflow.entities.AssessmentSourceType``). Two
feedbacks with the same name on one trace, one from an LLM judge and one from a person, are the
judge's verdict and the human label of that item. :func:`read_mlflow` reads them from what
``mlflow.search_traces()`` returns: a DataFrame whose ``assessments`` column holds, per trace, the
assessments as dictionaries (``assessment_name``, ``source.source_type``, ``feedback.value``,
``valid``, ``overrides``), or a list of ``mlflow.entities.Trace`` objects.

This module does not import mlflow: the DataFrame is read as plain data, and Trace objects through
their attributes. ``pip install 'judgestats[mlflow]'`` installs mlflow for making the traces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import pandas as pd

from judgestats._validate import check_flag
from judgestats.io._items import (
    declared_classes,
    items_frame,
    map_classes,
    map_verdicts,
    set_options,
)
from judgestats.io._mapping import _class_key

__all__ = ["read_mlflow"]

JUDGE_SOURCE, HUMAN_SOURCE = "LLM_JUDGE", "HUMAN"
_ID_FIELDS = ("trace_id", "client_request_id")
_YES_NO = {"yes": 1, "no": 0, "unknown": None}  # mlflow.genai.judges.CategoricalRating


@dataclass(frozen=True)
class _Feedback:
    """One feedback assessment, whatever form it came in."""

    source_type: str
    source_id: str | None
    value: Any
    assessment_id: str | None
    overrides: str | None


def read_mlflow(
    traces: Any,
    *,
    name: str,
    positive: Any = None,
    negative: Any = None,
    threshold: float | None = None,
    judge_source: str | Iterable[str] = JUDGE_SOURCE,
    id_field: str = "trace_id",
    require_human: bool = True,
    classes: list[Any] | tuple[Any, ...] | None = None,
) -> pd.DataFrame:
    """Read the judge's and the people's feedback of one name from MLflow traces.

    Parameters
    ----------
    traces : pandas.DataFrame or sequence of mlflow.entities.Trace
        What ``mlflow.search_traces()`` returns: by default a DataFrame with the columns
        ``trace_id`` and ``assessments`` (one list of assessment dictionaries per trace), with
        ``return_type="list"`` a list of ``Trace`` objects.
    name : str
        The feedback's name (``Feedback.name``, ``assessment_name`` in the DataFrame), the same
        for the judge's and the people's feedback, e.g. ``"correctness"``.
    positive, negative : optional
        How feedback values map to 1/0 (see :func:`judgestats.io.map_verdicts`). By default
        booleans and 0/1 numbers map as they are, and the words of MLflow's built-in judges
        (``CategoricalRating``) as ``"yes"`` -> 1, ``"no"`` -> 0, ``"unknown"`` -> no verdict.
    threshold : float, optional
        For numeric feedback (e.g. a 1-5 rating): a value ``>= threshold`` is 1, below it 0.
    judge_source : str or iterable of str, default "LLM_JUDGE"
        The source type(s) whose feedback is the judge's verdict (add ``"CODE"`` for a heuristic
        scorer).
    id_field : {"trace_id", "client_request_id"}, default "trace_id"
        Which trace field is the item id (``client_request_id`` joins with your own request ids).
    require_human : bool, default True
        Raise if no trace has feedback from a ``HUMAN`` source. Set it to False to read the
        judge's verdicts only (for instance to join labels with :func:`judgestats.io.join_human`).
    classes : list or tuple of str or int, optional
        For feedback with K values: the declared classes, e.g. ``["yes", "partially", "no"]``
        or ratings ``[1, 2, 3, 4, 5]``. The judge's and the people's feedback values are then
        kept as class values (see :func:`judgestats.io.map_classes`: ``"yes"`` is not ``"Yes"``,
        ``4.0`` is the class ``4``; ``"unknown"`` is a value like any other, so declare it or
        it is an error) instead of 0/1, and ``attrs["classes"]`` records them, for
        :meth:`judgestats.kclass.KClassData.from_items`. Not with ``positive``, ``negative`` or
        ``threshold``.

    Returns
    -------
    pandas.DataFrame
        An items frame (:mod:`judgestats.io._items`): one row per trace with ``id``, ``judge``,
        ``human``, ``judge_source_id`` and ``human_source_id`` (who judged, who labelled);
        ``attrs["source"]`` describes the input and ``attrs["name"]`` is ``name``. With
        ``classes``, ``judge`` and ``human`` are ``object`` columns of class values.

    Raises
    ------
    TypeError
        For ``traces`` of another type; ``classes`` that are not a list or tuple of strings
        and integers; ``require_human`` not True or False.
    ValueError
        For no traces; no feedback called ``name`` (the names found are listed); no judge
        verdicts; no human labels (unless ``require_human=False``); conflicting feedback
        (two judge verdicts, or two human labels, of one trace that disagree); a value outside
        the mapping (or ``classes``); ``classes`` together with ``positive``, ``negative`` or
        ``threshold``.

    Notes
    -----
    When a person corrects a judge's feedback with ``mlflow.override_feedback``, MLflow keeps the
    judge's feedback (marked ``valid=False``) and adds the person's with ``overrides`` set to the
    judge's assessment id: the judge's verdict is the overridden feedback and the human label the
    new one. A feedback overridden by another of the same kind of source (a judge re-run, a
    person correcting themselves) is replaced by the newer one. Feedback that carries an error
    instead of a value, and expectations (ground truth), are not read. Several feedbacks of one
    kind that agree count once; if they disagree, the trace is an error (without ``classes``,
    words that differ only in case or spaces agree; with ``classes``, only equal class values).
    """
    if not isinstance(name, str) or not name:
        raise TypeError(f"`name` must be a non-empty str (the feedback name), got {name!r}.")
    declared = declared_classes(
        classes,
        set_options(positive=positive, negative=negative, threshold=threshold),
        kept="feedback values",
    )
    key = _key if declared is None else _exact_key
    require_human = check_flag(require_human, "require_human")
    if id_field not in _ID_FIELDS:
        raise ValueError(
            f"`id_field` ({id_field!r}) must be one of {', '.join(map(repr, _ID_FIELDS))}."
        )
    judges = _source_types(judge_source)
    rows, source = _rows(traces, id_field)
    found: dict[str, None] = {}
    ids, judged, labelled, judged_by, labelled_by = [], [], [], [], []
    for item, feedbacks in rows:
        found.update(dict.fromkeys(f_name for f_name, _ in feedbacks))
        chosen = [fb for f_name, fb in feedbacks if f_name == name]
        value, by = _one(chosen, judges, item, "judge verdicts", source, key)
        ids.append(item)
        judged.append(value)
        judged_by.append(by)
        value, by = _one(chosen, frozenset({HUMAN_SOURCE}), item, "human labels", source, key)
        labelled.append(value)
        labelled_by.append(by)
    _check_found(name, found, judged, labelled, judges, source, require_human)
    fields = f"{name} ({'/'.join(sorted(judges))})", f"{name} ({HUMAN_SOURCE})"
    if declared is None:
        options = dict(positive=positive, negative=negative, threshold=threshold, source=source)
        judge = _map(judged, name=fields[0], **options)
        human = _map(labelled, name=fields[1], **options)
    else:
        judge = map_classes(judged, classes=declared, name=fields[0], source=source)
        human = map_classes(labelled, classes=declared, name=fields[1], source=source)
    extra = {"judge_source_id": judged_by, "human_source_id": labelled_by}
    frame = items_frame(ids, judge, human, source=source, extra=extra, classes=declared)
    frame.attrs["name"] = name
    return frame


# ---- gathering feedback ------------------------------------------------------------------------
def _rows(traces: Any, id_field: str) -> tuple[list[tuple[str, list[tuple[str, _Feedback]]]], str]:
    """Per trace: its id and its feedback assessments as (name, feedback) pairs."""
    if isinstance(traces, pd.DataFrame):
        source = "MLflow traces (data frame)"
        missing = [c for c in (id_field, "assessments") if c not in traces.columns]
        if missing:
            raise ValueError(
                f"{source}: missing column(s) {', '.join(map(repr, missing))}; "
                "expected the DataFrame that mlflow.search_traces() returns, with "
                f"the columns {id_field!r} and 'assessments'."
            )
        pairs = zip(traces[id_field], traces["assessments"], strict=True)
        rows = [
            (item, [_from_dict(a) for a in _listed(found) if _is_feedback_dict(a)])
            for item, found in pairs
        ]
    elif isinstance(traces, Iterable) and not isinstance(traces, (str, bytes, Mapping)):
        source = "MLflow traces (list)"
        rows = [_from_trace(trace, id_field, source) for trace in traces]
    else:
        raise TypeError(
            "`traces` must be the DataFrame or the list of Trace objects that "
            f"mlflow.search_traces() returns, got {type(traces).__name__}."
        )
    if not rows:
        raise ValueError(
            f"{source}: no traces; did mlflow.search_traces() find any (check the "
            "experiment and the filter)?"
        )
    return rows, source


def _listed(assessments: Any) -> list[Any]:
    if assessments is None or (isinstance(assessments, float) and assessments != assessments):
        return []
    return list(assessments)


def _is_feedback_dict(assessment: Any) -> bool:
    return isinstance(assessment, Mapping) and isinstance(assessment.get("feedback"), Mapping)


def _from_dict(assessment: Mapping[str, Any]) -> tuple[str, _Feedback]:
    """An assessment as ``Assessment.to_dictionary()`` writes it (the DataFrame column)."""
    source = assessment.get("source") or {}
    feedback = assessment["feedback"]
    value = None if feedback.get("error") else feedback.get("value")
    return str(assessment.get("assessment_name")), _Feedback(
        source_type=str(source.get("source_type", "")).upper(),
        source_id=source.get("source_id"),
        value=value,
        assessment_id=assessment.get("assessment_id"),
        overrides=assessment.get("overrides"),
    )


def _from_trace(trace: Any, id_field: str, source: str) -> tuple[str, list[tuple[str, _Feedback]]]:
    info = getattr(trace, "info", None)
    if info is None or not hasattr(info, "assessments"):
        raise TypeError(
            f"{source}: expected mlflow.entities.Trace objects, got {type(trace).__name__}."
        )
    feedbacks = []
    for assessment in info.assessments or []:
        feedback = getattr(assessment, "feedback", None)
        if feedback is None:
            continue  # an expectation or an issue reference
        value = None if getattr(feedback, "error", None) is not None else feedback.value
        feedbacks.append(
            (
                str(assessment.name),
                _Feedback(
                    source_type=str(assessment.source.source_type).upper(),
                    source_id=assessment.source.source_id,
                    value=value,
                    assessment_id=assessment.assessment_id,
                    overrides=assessment.overrides,
                ),
            )
        )
    return getattr(info, id_field), feedbacks


def _one(
    feedbacks: list[_Feedback],
    kinds: frozenset[str],
    item: Any,
    what: str,
    source: str,
    key: Callable[[Any], Any],
) -> tuple[Any, str | None]:
    """The one value that feedback of these source types gives a trace (None if none)."""
    mine = [f for f in feedbacks if f.source_type in kinds]
    replaced = {f.overrides for f in mine if f.overrides}
    current = [f for f in mine if f.assessment_id not in replaced and f.value is not None]
    values = {key(f.value) for f in current}
    if len(values) > 1:
        shown = ", ".join(sorted(f"{f.value!r} from {f.source_id!r}" for f in current))
        raise ValueError(
            f"{source}: trace {item!r} has conflicting {what} ({shown}); resolve "
            "them in MLflow (override_feedback, or delete one) before reading."
        )
    if not current:
        return None, None
    by = sorted({str(f.source_id) for f in current if f.source_id is not None})
    return current[0].value, ", ".join(by) or None


def _key(value: Any) -> str:
    return repr(value.strip().lower() if isinstance(value, str) else value)


def _exact_key(value: Any) -> Any:
    """Agreement key with classes: the class value (``4.0`` is ``4``), else the value's repr."""
    return _class_key(value) or ("other", repr(value))


def _check_found(
    name: str,
    found: Mapping[str, None],
    judged: list[Any],
    labelled: list[Any],
    judges: frozenset[str],
    source: str,
    require_human: bool,
) -> None:
    if name not in found:
        names = ", ".join(map(repr, found)) or "none"
        raise ValueError(
            f"{source}: no feedback called `name`={name!r}; the traces' feedback names are {names}."
        )
    if all(v is None for v in judged):
        raise ValueError(
            f"{source}: no feedback {name!r} from a judge (source type "
            f"{'/'.join(sorted(judges))}); set `judge_source` if the judge's "
            "feedback has another source type."
        )
    if require_human and all(v is None for v in labelled):
        raise ValueError(
            f"{source}: no feedback {name!r} from a {HUMAN_SOURCE} source, so no "
            "human labels; log them with mlflow.log_feedback(..., source="
            "AssessmentSource('HUMAN', ...)), or pass `require_human=False` and "
            "join labels from a file."
        )


# ---- values ------------------------------------------------------------------------------------
def _map(
    values: list[Any],
    *,
    name: str,
    source: str,
    positive: Any,
    negative: Any,
    threshold: float | None,
) -> Any:
    words = {v.strip().lower() for v in values if isinstance(v, str)}
    if positive is None and threshold is None and words and words <= set(_YES_NO):
        values = [_YES_NO[v.strip().lower()] if isinstance(v, str) else v for v in values]
    return map_verdicts(
        values, positive=positive, negative=negative, threshold=threshold, name=name, source=source
    )


def _source_types(judge_source: str | Iterable[str]) -> frozenset[str]:
    chosen = [judge_source] if isinstance(judge_source, str) else list(judge_source)
    kinds = frozenset(str(k).upper() for k in chosen)
    allowed = {"LLM_JUDGE", "CODE", "SOURCE_TYPE_UNSPECIFIED"}
    if not kinds or not kinds <= allowed:
        raise ValueError(
            f"`judge_source` ({judge_source!r}) must name source types among "
            f"{', '.join(sorted(allowed))} (HUMAN is the label)."
        )
    return kinds
