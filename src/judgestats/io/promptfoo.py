"""Items from a promptfoo results file (``promptfoo eval --output results.json`` or ``.jsonl``).

The layout follows promptfoo's own types and output writer (promptfoo 0.121, ``main`` branch
of github.com/promptfoo/promptfoo read in 2026: ``src/types/index.ts`` -- ``OutputFile``,
``EvaluateSummaryV3``, ``EvaluateResult``, ``GradingResult``; ``src/util/output.ts`` -- the JSON
and JSONL writers; ``src/providers/constants.ts`` -- ``HUMAN_ASSERTION_TYPE = "human"``):

* ``.json``: an ``OutputFile`` object ``{"evalId", "results": {"version", "timestamp",
  "results": [EvaluateResult, ...], "prompts", "stats"}, "config", "shareableUrl",
  "metadata"}``;
* ``.jsonl``: one ``EvaluateResult`` per line.

An ``EvaluateResult`` holds ``testIdx``, ``promptIdx``, ``provider`` (``{"id", "label"}``),
``vars``, ``success`` and ``gradingResult``: a ``GradingResult`` ``{"pass", "score", "reason",
"componentResults": [GradingResult, ...]}``, one component per assertion, each with its
``assertion`` (``{"type", "metric", ...}``). A rating given in promptfoo's web viewer is stored
as one more component whose assertion type is ``"human"`` (the last one counts), and it
overrides ``success`` and ``gradingResult.pass`` -- so the judge's verdict is read from the
judge's own component, never from ``success``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pandas as pd

from judgestats._paths import check_path
from judgestats.io._items import (
    declared_classes,
    items_frame,
    load_json,
    map_classes,
    map_verdicts,
    set_options,
)

__all__ = ["JUDGE_ASSERTION_TYPES", "read_promptfoo"]

#: promptfoo's model-graded assertion types: the default judge is the one of these in a row.
JUDGE_ASSERTION_TYPES = (
    "llm-rubric",
    "model-graded-closedqa",
    "model-graded-factuality",
    "factuality",
    "g-eval",
    "search-rubric",
)

_HUMAN = "human"


def read_promptfoo(
    path: str | os.PathLike[str],
    *,
    judge: str | None = None,
    threshold: float | None = None,
    id: str = "testIdx",
    provider: str | None = None,
    prompt_idx: int | None = None,
    classes: list[Any] | tuple[Any, ...] | None = None,
) -> pd.DataFrame:
    """Read a promptfoo results file (JSON or JSONL) into an items frame.

    Parameters
    ----------
    path : path
        ``promptfoo eval --output results.json`` (or ``results.jsonl``); the layout is in the
        module docstring.
    judge : str, optional
        Which assertion is the LLM judge: an assertion type (``"llm-rubric"``) or a metric
        name (the assertion's ``metric``). Default: the one component per row whose assertion
        type is model-graded (:data:`JUDGE_ASSERTION_TYPES`); an error if a row has several.
    threshold : float, optional
        Use the judge component's ``score`` (>= threshold is "correct") instead of its
        ``pass``.
    id : str, default "testIdx"
        The item id: ``"testIdx"`` (the test case's index in the suite), ``"id"`` (the result's
        own id, unique per result) or ``"vars.NAME"`` (the test variable ``NAME``, e.g. a
        question id you put in the test file).
    provider : str, optional
        Keep the results of this provider only (its ``id`` or ``label``).
    prompt_idx : int, optional
        Keep the results of this prompt only (``promptIdx``).
    classes : list or tuple of str or int, optional
        For a judge with K verdicts (e.g. an ``llm-rubric`` asked for a score 1-5): the
        declared classes, e.g. ``[1, 2, 3, 4, 5]``. The judge component's ``score`` (its named
        score) and the last ``"human"`` component's ``score`` are then kept as class values
        (see :func:`judgestats.io.map_classes`; ``3.0`` is the class ``3``) instead of 0/1, and
        ``attrs["classes"]`` records them, for :meth:`judgestats.kclass.KClassData.from_items`.
        A rating given in the viewer as a bare thumbs up / down stores the score 1 / 0, so set
        the score itself when rating (or join the labels with :func:`judgestats.io.join_human`).
        Not with ``threshold``.

    Returns
    -------
    pandas.DataFrame
        An items frame: ``id``, ``judge`` (the judge component's ``pass``), ``human`` (the last
        ``"human"`` component's ``pass``, ``<NA>`` where nobody rated the row), ``provider``,
        ``prompt_idx``. Rows without a judge component (a provider error) have ``judge``
        ``<NA>``. With ``classes``, ``judge`` and ``human`` are ``object`` columns of the
        components' scores as class values.

    Raises
    ------
    ValueError
        Naming the file: not JSON, truncated, not a promptfoo results file, no results, no
        component matching ``judge`` (listing the assertion types and metrics present), several
        candidate judges, several providers or prompts where ids would repeat, an unknown
        ``id`` field; a score outside ``classes``; ``classes`` together with ``threshold``.
    TypeError
        If ``classes`` is not a list or tuple of strings and integers.
    """
    declared = declared_classes(classes, set_options(threshold=threshold), kept="judge's scores")
    source = check_path(path)
    results = _results(load_json(source), source)
    results = _select(results, provider=provider, prompt_idx=prompt_idx, source=source)
    scored = declared is not None
    rows = [
        _judge_and_human(r, judge=judge, threshold=threshold, source=source, row=i, scored=scored)
        for i, r in enumerate(results)
    ]
    ids = [_item_id(r, id, source=source, row=i) for i, r in enumerate(results)]
    verdicts = [v for v, _ in rows]
    labels = [h for _, h in rows]
    if declared is not None:
        judged = map_classes(verdicts, classes=declared, name="judge score", source=source)
        labels = map_classes(labels, classes=declared, name="human score", source=source)
    elif threshold is not None:
        judged = map_verdicts(verdicts, threshold=threshold, name="judge score", source=source)
    else:
        judged = verdicts
    return items_frame(
        ids,
        judged,
        labels,
        source=source,
        extra={
            "provider": [_provider_name(r) for r in results],
            "prompt_idx": [r.get("promptIdx") for r in results],
        },
        classes=declared,
    )


def is_promptfoo(document: Any) -> bool:
    """True if a parsed JSON document (or list of JSON lines) looks like promptfoo output."""
    if isinstance(document, dict):
        inner = document.get("results")
        return isinstance(inner, dict) and isinstance(inner.get("results"), list)
    if isinstance(document, list) and document and isinstance(document[0], dict):
        return {"testIdx", "promptIdx"} <= set(document[0]) and (
            "gradingResult" in document[0] or "success" in document[0]
        )
    return False


def _results(document: Any, source: str) -> list[dict[str, Any]]:
    if not is_promptfoo(document):
        raise ValueError(
            f"{source}: not a promptfoo results file (expected an object with "
            "`results.results[]`, as `promptfoo eval --output results.json` "
            "writes, or JSON lines with `testIdx` and `gradingResult`)."
        )
    results = document["results"]["results"] if isinstance(document, dict) else document
    if not results:
        raise ValueError(f"{source}: the promptfoo file holds no results.")
    if not all(isinstance(r, dict) for r in results):
        raise ValueError(f"{source}: every promptfoo result must be a JSON object.")
    return results


def _select(
    results: list[dict[str, Any]], *, provider: str | None, prompt_idx: int | None, source: str
) -> list[dict[str, Any]]:
    if provider is not None:
        results = [r for r in results if provider in _provider_names(r)]
    if prompt_idx is not None:
        results = [r for r in results if r.get("promptIdx") == prompt_idx]
    if not results:
        raise ValueError(
            f"{source}: no results for provider={provider!r}, prompt_idx={prompt_idx!r}."
        )
    combos = sorted({(_provider_name(r), r.get("promptIdx")) for r in results}, key=str)
    if len(combos) > 1:
        shown = "; ".join(f"provider {p!r}, prompt {i}" for p, i in combos[:6])
        raise ValueError(
            f"{source}: the file holds {len(combos)} provider/prompt combinations "
            f"({shown}); the same test would count once per combination, so "
            "choose one with `provider` and `prompt_idx`."
        )
    return results


def _provider_names(result: dict[str, Any]) -> set[str]:
    provider = result.get("provider")
    if isinstance(provider, dict):
        return {str(v) for k, v in provider.items() if k in ("id", "label") and v}
    return {str(provider)} if provider else set()


def _provider_name(result: dict[str, Any]) -> str | None:
    provider = result.get("provider")
    if isinstance(provider, dict):
        return provider.get("label") or provider.get("id")
    return provider


def _components(grading: Any) -> Iterator[dict[str, Any]]:
    """Every component of a GradingResult, depth first (assert-sets nest components)."""
    if not isinstance(grading, dict):
        return
    for component in grading.get("componentResults") or []:
        if isinstance(component, dict):
            yield component
            yield from _components(component)


def _assertion(component: dict[str, Any]) -> dict[str, Any]:
    assertion = component.get("assertion")
    return assertion if isinstance(assertion, dict) else {}


def _judge_and_human(
    result: dict[str, Any],
    *,
    judge: str | None,
    threshold: float | None,
    source: str,
    row: int,
    scored: bool = False,
) -> tuple[Any, Any]:
    """The judge's verdict and the person's rating of one row (their scores when ``scored``)."""
    components = list(_components(result.get("gradingResult")))
    humans = [c for c in components if _assertion(c).get("type") == _HUMAN]
    if scored:
        human = humans[-1].get("score") if humans else None
    else:
        human = bool(humans[-1].get("pass")) if humans else None
    if len(humans) == len(components):  # no grading (an errored row), perhaps rated by a
        return None, human  # person afterwards: no judge verdict
    if judge is None:
        matches = [c for c in components if _assertion(c).get("type") in JUDGE_ASSERTION_TYPES]
        wanted = f"model-graded assertion (types {', '.join(JUDGE_ASSERTION_TYPES)})"
    else:
        matches = [
            c
            for c in components
            if judge in (_assertion(c).get("type"), _assertion(c).get("metric"))
        ]
        wanted = f"assertion of type or metric {judge!r}"
    if not matches:
        present = sorted(
            {
                f"{a.get('type')}" + (f" (metric {a['metric']!r})" if a.get("metric") else "")
                for a in map(_assertion, components)
            }
            - {_HUMAN, "None"}
        )
        raise ValueError(
            f"{source}: result {row} has no {wanted}; its assertions are "
            f"{', '.join(present) or 'none'}. Choose the judge with `judge` "
            "(--scorer), by assertion type or metric name."
        )
    if len(matches) > 1:
        kinds = ", ".join(
            sorted({str(_assertion(c).get("metric") or _assertion(c).get("type")) for c in matches})
        )
        raise ValueError(
            f"{source}: result {row} has {len(matches)} candidate judge "
            f"assertions ({kinds}); choose one with `judge` (--scorer), by "
            "metric name."
        )
    if threshold is not None or scored:
        return matches[0].get("score"), human
    verdict = matches[0].get("pass")
    if not isinstance(verdict, bool):
        raise ValueError(
            f"{source}: result {row}: the judge component's `pass` must be true "
            f"or false, got {verdict!r}."
        )
    return verdict, human


def _item_id(result: dict[str, Any], field: str, *, source: str, row: int) -> Any:
    if field.startswith("vars."):
        name = field[5:]
        vars_ = result.get("vars") or (result.get("testCase") or {}).get("vars") or {}
        if name not in vars_:
            raise ValueError(
                f"{source}: result {row} has no test variable {name!r} (`id`="
                f"{field!r}); its variables are {', '.join(map(repr, vars_))}."
            )
        return vars_[name]
    if field not in ("testIdx", "id"):
        raise ValueError(f"`id` ({field!r}) must be 'testIdx', 'id' or 'vars.NAME'.")
    if result.get(field) is None:
        raise ValueError(f"{source}: result {row} has no `{field}`.")
    return result[field]
