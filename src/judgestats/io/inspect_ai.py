"""Read judge verdicts and human labels from Inspect AI eval logs (``.eval`` and ``.json``).

An Inspect AI log holds one :class:`inspect_ai.log.EvalSample` per item and epoch; each sample's
``scores`` maps a scorer name to a :class:`inspect_ai.scorer.Score` whose ``value`` is the judge's
verdict. When a person corrects a score (``inspect_ai.log.edit_score``, or the log viewer), Inspect
keeps the scorer's original in ``Score.history[0]`` (a ``ScoreEdit`` with ``provenance=None``),
appends the person's edit (a ``ScoreEdit`` whose ``provenance.author`` names them) and sets
``Score.value`` to the edited value. :func:`read_inspect` reads both: the original as the judge's
verdict and the edit as the human label of that item.

``inspect_ai`` is an optional dependency (``pip install -e '.[inspect]'`` in a clone,
``pip install 'judgestats[inspect]'`` from the package index), imported only when
a log is read.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from judgestats._paths import check_path
from judgestats._validate import install_hint
from judgestats.io._items import declared_classes, items_frame, map_classes, map_verdicts
from judgestats.io._mapping import _as_values

__all__ = ["read_inspect"]

#: Inspect AI's letter grades (``inspect_ai.scorer``: CORRECT, INCORRECT, PARTIAL, NOANSWER).
CORRECT, INCORRECT, PARTIAL, NOANSWER = "C", "I", "P", "N"

#: Sample fields a reader never needs; skipped when the installed Inspect AI can skip them.
_HEAVY_FIELDS = frozenset({"messages", "events", "store", "attachments", "output"})

_INSTALL_HINT = install_hint("inspect")


def read_inspect(
    path: str | os.PathLike[str],
    *,
    scorer: str | None = None,
    positive: Any = (CORRECT,),
    negative: Any = None,
    partial: int | None = 0,
    noanswer: int | None = 0,
    threshold: float | None = None,
    key: str | None = None,
    authors: str | Iterable[str] | None = None,
    classes: list[Any] | tuple[Any, ...] | None = None,
) -> pd.DataFrame:
    """Read one scorer's verdicts, and the human corrections of them, from an Inspect AI log.

    Parameters
    ----------
    path : str or path-like
        An Inspect AI eval log: the binary ``.eval`` format (Inspect's default since 0.3.46) or
        ``.json``. Read with ``inspect_ai.log.read_eval_log``.
    scorer : str, optional
        The scorer whose values are the judge's verdicts (a key of ``samples[].scores``, e.g.
        ``"model_graded_qa"``). May be left out when the log has exactly one scorer.
    positive : scalar or sequence, default ("C",)
        The value(s) that mean "correct". For Inspect's letter grades (``positive`` holds
        ``"C"``): ``"C"`` -> 1, ``"I"`` -> 0, ``"P"`` -> ``partial``, ``"N"`` -> ``noanswer``.
        For other words (e.g. ``"yes"``), the "incorrect" value is ``negative`` or is inferred
        as in :func:`judgestats.io.map_verdicts`. Booleans and 0/1 numbers map as they are.
    negative : scalar or sequence, optional
        The value(s) that mean "incorrect", when they cannot be inferred; default ``"I"`` for
        letter grades.
    partial : {0, 1, None}, default 0
        What partial credit ``"P"`` counts as: 0 (not correct: only full credit counts), 1
        (correct), or None (no verdict: the item is left out of the judge's counts).
    noanswer : {0, 1, None}, default 0
        What "no answer" ``"N"`` (a refusal or empty answer) counts as; 0 = incorrect.
    threshold : float, optional
        For numeric scores: a value ``>= threshold`` is 1, below it 0. Without it, numeric
        values must be 0 or 1.
    key : str, optional
        For a scorer whose value is a dictionary (several values per sample): the entry to read.
    authors : str or iterable of str, optional
        Count only the edits made by these people (``provenance.author``) as human labels;
        by default every edit that changed or confirmed the value counts.
    classes : list or tuple of str or int, optional
        For a scorer with K verdicts: the declared classes, e.g. ``["I", "P", "C"]`` for
        Inspect's incorrect / partial / correct grades, or rubric scores ``[1, 2, 3, 4, 5]``.
        The scorer's values and the human edits are then kept as class values (see
        :func:`judgestats.io.map_classes`; ``"C"`` is not ``"c"``) instead of 0/1, and
        ``attrs["classes"]`` records them, for :meth:`judgestats.kclass.KClassData.from_items`.
        Not with ``positive``, ``negative``, ``partial``, ``noanswer`` or ``threshold`` (leave
        them at their defaults).

    Returns
    -------
    pandas.DataFrame
        An items frame (:mod:`judgestats.io._items`): one row per sample and epoch, with ``id``
        (``str(sample.id)``), ``judge`` (the scorer's original value, ``Score.history[0].value``
        for an edited score, else ``Score.value``), ``human`` (the value of the last qualifying
        edit, ``<NA>`` where nobody edited the score), ``epoch``, ``human_author``, ``model`` and
        ``task``; ``attrs["source"]`` is the path and ``attrs["scorer"]`` the scorer read.
        With ``classes``, ``judge`` and ``human`` are ``object`` columns of class values.

    Raises
    ------
    ImportError
        If ``inspect_ai`` is not installed.
    ValueError
        Naming the file: it does not exist, is not an Inspect AI log (or is corrupt or truncated),
        holds no samples, holds no scores; ``scorer`` is unknown (the known scorers are listed) or
        is needed to choose among several; a value is outside the mapping (or ``classes``); a
        bad argument, or a 0/1 mapping argument together with ``classes``.

    Notes
    -----
    A score edit is a ``ScoreEdit`` in ``Score.history``; the first entry is the scorer's own
    value (``provenance`` is None) and later ones carry ``provenance.author``. An edit whose value
    is ``"UNCHANGED"`` (only the explanation was edited) is not a label. A score that a person
    added (its first history entry has a provenance) has no judge verdict (``<NA>``). Scores
    with a NaN value (Inspect's "unscored" sentinel) and samples without that scorer have no
    verdict either.

    Examples
    --------
    >>> from judgestats.datasets import example_inspect_path    # doctest: +SKIP
    >>> items = read_inspect(example_inspect_path(), scorer="model_graded_qa")  # doctest: +SKIP
    """
    _check_choice(partial, "partial")
    _check_choice(noanswer, "noanswer")
    declared = _declared_classes(
        classes,
        positive=positive,
        negative=negative,
        partial=partial,
        noanswer=noanswer,
        threshold=threshold,
    )
    allowed = _authors(authors)
    name = check_path(path)
    log = _read_log(name)
    samples = _samples(log, name)
    scorer = _pick_scorer(samples, scorer, name)
    judge_raw, human_raw, human_by = [], [], []
    for sample in samples:
        judged, labelled, author = _score_values(sample, scorer, allowed)
        judge_raw.append(_scalar(judged, key, scorer, name, sample))
        human_raw.append(_scalar(labelled, key, scorer, name, sample))
        human_by.append(author)
    field = f"scores.{scorer}.value" + (f"[{key!r}]" if key is not None else "")
    options = dict(
        positive=positive,
        negative=negative,
        partial=partial,
        noanswer=noanswer,
        threshold=threshold,
    )
    judge, human = _verdicts_and_labels(judge_raw, human_raw, field, name, declared, options)
    extra = {
        "epoch": [int(s.epoch) for s in samples],
        "human_author": human_by,
        "model": [log.eval.model] * len(samples),
        "task": [log.eval.task] * len(samples),
    }
    frame = items_frame(
        [s.id for s in samples], judge, human, source=name, extra=extra, classes=declared
    )
    frame.attrs["scorer"] = scorer
    return frame


def _verdicts_and_labels(
    judge_raw: list[Any],
    human_raw: list[Any],
    field: str,
    source: str,
    classes: tuple[Any, ...] | None,
    options: dict[str, Any],
) -> tuple[Any, Any]:
    """The scorer's values and the human edits, mapped to 0/1 (``options``) or kept as classes."""
    edits = f"{field} (human edit)"
    if classes is None:
        judge = _map(judge_raw, name=field, source=source, **options)
        return judge, _map(human_raw, name=edits, source=source, **options)
    judge = map_classes(judge_raw, classes=classes, name=field, source=source)
    return judge, map_classes(human_raw, classes=classes, name=edits, source=source)


def _declared_classes(classes: Any, **options: Any) -> tuple[Any, ...] | None:
    """``classes`` checked against the 0/1 options set away from their defaults."""
    defaults = {
        "positive": _as_tuple(options["positive"], "positive") == (CORRECT,),
        "negative": options["negative"] is None,
        "partial": options["partial"] == 0,
        "noanswer": options["noanswer"] == 0,
        "threshold": options["threshold"] is None,
    }
    changed = {argument: options[argument] for argument, default in defaults.items() if not default}
    return declared_classes(classes, changed, kept="scores")


# ---- reading the log ---------------------------------------------------------------------------
def _samples(log: Any, name: str) -> list[Any]:
    """The log's samples; raise naming the file when it holds none."""
    samples = list(log.samples or [])
    if not samples:
        raise ValueError(
            f"{name}: the Inspect AI log holds no samples (status "
            f"{getattr(log, 'status', '?')!r}); was it written with samples, or "
            "did the run fail before any sample finished?"
        )
    return samples


def _read_log(name: str) -> Any:
    suffix = Path(name).suffix.lower()
    if suffix not in (".eval", ".json"):
        raise ValueError(
            f"{name}: unknown file type {suffix or '(no extension)'!r} for an "
            "Inspect AI log; expected .eval or .json."
        )
    if not Path(name).is_file():
        raise ValueError(f"{name}: no such file.")
    try:
        import inspect as pyinspect

        from inspect_ai.log import read_eval_log
    except ImportError:
        raise ImportError(
            f"Reading Inspect AI logs ({name}) needs the optional dependency "
            f"inspect_ai: {_INSTALL_HINT}."
        ) from None
    options: dict[str, Any] = {}
    if "exclude_fields" in pyinspect.signature(read_eval_log).parameters:
        options["exclude_fields"] = set(_HEAVY_FIELDS)
    try:
        return read_eval_log(name, **options)
    except Exception as error:  # zip, JSON and pydantic errors all mean "not a readable log"
        raise ValueError(
            f"{name}: not a readable Inspect AI {suffix[1:]} log; it may be "
            f"corrupt, truncated or from another tool ({_first_line(error)})."
        ) from error


def _pick_scorer(samples: list[Any], scorer: str | None, name: str) -> str:
    known: dict[str, None] = {}
    for sample in samples:
        known.update(dict.fromkeys(sample.scores or {}))
    if not known:
        raise ValueError(
            f"{name}: no sample of the Inspect AI log has a score; was the log "
            "written before scoring (`--no-score`)?"
        )
    listing = ", ".join(repr(k) for k in known)
    if scorer is None:
        if len(known) == 1:
            return next(iter(known))
        raise ValueError(
            f"{name}: the log has {len(known)} scorers ({listing}); choose one with `scorer`."
        )
    if not isinstance(scorer, str):
        raise TypeError(f"`scorer` must be a str, got {type(scorer).__name__}.")
    if scorer not in known:
        raise ValueError(
            f"{name}: unknown scorer `scorer`={scorer!r}; the log's scorers are {listing}."
        )
    return scorer


def _score_values(
    sample: Any, scorer: str, allowed: frozenset[str] | None
) -> tuple[Any, Any, str | None]:
    """The judge's original value, the human's value (or None) and the human's name."""
    score = (sample.scores or {}).get(scorer)
    if score is None:
        return None, None, None
    history = list(getattr(score, "history", None) or [])
    if not history:
        return score.value, None, None
    first = history[0]
    added_by_person = first.provenance is not None
    judged = None if added_by_person else first.value
    edits = history if added_by_person else history[1:]
    labelled, author = None, None
    for edit in edits:
        if edit.provenance is None:  # a programmatic edit: no person stands behind it
            continue
        by = edit.provenance.author
        if _is_unchanged(edit.value) or (allowed is not None and by not in allowed):
            continue
        labelled, author = edit.value, by
    return judged, labelled, author


def _is_unchanged(value: Any) -> bool:
    return isinstance(value, str) and value == "UNCHANGED"


def _scalar(value: Any, key: str | None, scorer: str, name: str, sample: Any) -> Any:
    if value is None:
        return None
    if isinstance(value, Mapping):
        if key is None:
            raise ValueError(
                f"{name}: scorer {scorer!r} gives several values per sample "
                f"({', '.join(map(repr, value))}); choose one with `key`."
            )
        if key not in value:
            raise ValueError(
                f"{name}: `key`={key!r} is not among the values of scorer "
                f"{scorer!r} on sample {sample.id!r} ({', '.join(map(repr, value))})."
            )
        return value[key]
    if key is not None:
        raise ValueError(
            f"`key` ({key!r}) is only for scorers whose value is a dictionary; "
            f"scorer {scorer!r} in {name} gives {type(value).__name__} values."
        )
    if isinstance(value, (list, tuple)):
        raise ValueError(
            f"{name}: scorer {scorer!r} gives a list of values on sample "
            f"{sample.id!r}; only a single value per sample can be a verdict."
        )
    if isinstance(value, float) and math.isnan(value):
        return None  # Inspect's "unscored" sentinel
    return value


# ---- mapping values to 0/1 ---------------------------------------------------------------------
def _map(
    values: list[Any],
    *,
    name: str,
    source: str,
    positive: Any,
    negative: Any,
    partial: int | None,
    noanswer: int | None,
    threshold: float | None,
) -> Any:
    """Map raw score values to Int64 0/1/<NA> (letter grades, booleans, numbers)."""
    present = [v for v in values if v is not None]
    if threshold is not None:
        return map_verdicts(values, threshold=threshold, name=name, source=source)
    if not any(isinstance(v, str) for v in present):  # booleans and 0/1 numbers
        return map_verdicts(values, name=name, source=source)
    ones = _as_tuple(positive, "positive")
    if not any(_is_word(v, CORRECT) for v in ones):
        return map_verdicts(values, positive=positive, negative=negative, name=name, source=source)
    zeros = _as_tuple(negative, "negative") if negative is not None else (INCORRECT,)
    listed = {str(v).strip().upper() for v in ones + zeros}
    grades = {g: to for g, to in ((PARTIAL, partial), (NOANSWER, noanswer)) if g not in listed}
    values = [
        None
        if (grade := _grade(v)) is not None and grade in grades and grades[grade] is None
        else v
        for v in values
    ]
    ones += tuple(g for g, to in grades.items() if to == 1)
    zeros += tuple(g for g, to in grades.items() if to == 0)
    return map_verdicts(values, positive=ones, negative=zeros, name=name, source=source)


def _grade(value: Any) -> str | None:
    return value.strip().upper() if isinstance(value, str) else None


def _is_word(value: Any, word: str) -> bool:
    return _grade(value) == word


def _as_tuple(value: Any, option: str) -> tuple[Any, ...]:
    """``positive`` / ``negative`` as a tuple of values (the one check of :mod:`._mapping`)."""
    return tuple(_as_values(value, option))


# ---- argument checks ---------------------------------------------------------------------------
def _check_choice(value: Any, name: str) -> None:
    if value is None or (type(value) is int and value in (0, 1)):
        return
    raise ValueError(
        f"`{name}` ({value!r}) must be 0 (incorrect), 1 (correct) or None (no verdict)."
    )


def _authors(authors: str | Iterable[str] | None) -> frozenset[str] | None:
    if authors is None:
        return None
    if isinstance(authors, str):
        return frozenset({authors})
    if not isinstance(authors, Iterable):
        raise TypeError(
            f"`authors` must be a str or an iterable of str, got {type(authors).__name__}."
        )
    chosen = frozenset(authors)
    if not chosen or not all(isinstance(a, str) for a in chosen):
        raise ValueError(f"`authors` ({authors!r}) must name at least one author (str).")
    return chosen


def _first_line(error: BaseException) -> str:
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    return lines[0] if lines else type(error).__name__
