"""Two models from their eval logs: the labels joined per model, the design, the paired counts.

:func:`models_from_items` takes one items frame per model (the table every reader in
:mod:`judgestats.io` returns: ``id``, ``judge``, ``human``) and, optionally, one label table that
labels one model's answers or both models' answers (a column naming the model). It decides the
calibration design the labels allow, pairs the test items by id where both logs hold the same
items, and returns the two models ready for :func:`judgestats.compare`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judgestats._validate import check_choice
from judgestats.comparison.inputs import ModelLabels
from judgestats.data import JudgeData, items_labels

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["ModelsFromItems", "models_from_items"]

_MODELS = ("a", "b")


@dataclass(frozen=True)
class ModelsFromItems:
    """Models A and B built from their items, with what was decided on the way.

    Attributes
    ----------
    a, b : ModelLabels or JudgeData
        The two models, ready for :func:`judgestats.compare`: :class:`ModelLabels` when the test
        items are paired by id, :class:`~judgestats.JudgeData` when the test sets are independent.
    calibration : {"model_specific", "shared"}
        The calibration design to pass to :func:`judgestats.compare`.
    calibration_note : str
        Why that design: as asked, or implied by which model's answers are labelled.
    paired : bool
        Whether the test items are paired by id (an item is a test item when neither model's
        answer to it is labelled).
    calibration_items : int
        Paired design: the items left out of the test set because one model's answer to them is
        labelled (0 for independent test sets).
    sources : tuple of str
        The names of the two items frames (``items.attrs["source"]``, else "model A" / "model B").
    model_names : tuple of str, optional
        With ``model_column``: the values of that column marking the label rows of A and of B.
    label_rows : tuple of int, optional
        With ``model_column``: the label rows of A, of B and of other models (ignored).
    """

    a: ModelLabels | JudgeData
    b: ModelLabels | JudgeData
    calibration: str
    calibration_note: str
    paired: bool
    calibration_items: int
    sources: tuple[str, str]
    model_names: tuple[str, str] | None = None
    label_rows: tuple[int, int, int] | None = None


def models_from_items(
    items_a: pd.DataFrame,
    items_b: pd.DataFrame,
    *,
    human: str | os.PathLike[str] | pd.DataFrame | None = None,
    on: str = "id",
    label_column: str = "human",
    model_column: str | None = None,
    name_a: str | None = None,
    name_b: str | None = None,
    positive: Any = None,
    calibration: str | None = None,
    paired: bool = True,
) -> ModelsFromItems:
    """Build models A and B for :func:`judgestats.compare` from one items frame per model.

    A human label judges one model's answer. With ``model_column`` the rows of ``human`` whose
    ``model_column`` equals a model's name label that model's items (model-specific calibration);
    without it every label joins to model A's items, and A's calibration corrects both models
    (shared calibration, implied). Labels already in the items frames count too.

    When both frames hold the same item ids, the test items are paired by id: an item is a test
    item when neither model's answer to it is labelled. With disjoint ids (or ``paired=False``)
    the test sets are independent: each model's unlabelled items.

    Parameters
    ----------
    items_a, items_b : pandas.DataFrame
        The items of model A and model B, as read by :mod:`judgestats.io` (columns ``id``,
        ``judge`` 0/1 and ``human`` 0/1 or missing); ``attrs["source"]`` names each in messages.
    human : path or pandas.DataFrame, optional
        Human labels to join on the item id (see :func:`judgestats.io.join_human`).
    on : str, default "id"
        The id column of ``human``.
    label_column : str, default "human"
        The label column of ``human``.
    model_column : str, optional
        The column of ``human`` naming the model whose answer a row labels.
    name_a, name_b : str, optional
        Each model's value in ``model_column`` (default: the items' single ``model`` value, else
        "A" / "B").
    positive : optional
        The label value(s) meaning "correct" (default: 0/1 or true/false).
    calibration : {"model_specific", "shared"}, optional
        The design; by default model-specific when model B's answers are labelled, else shared.
    paired : bool, default True
        False treats the test sets as independent even when the ids match.

    Returns
    -------
    ModelsFromItems
        The two models, the calibration design and how the test items pair.

    Raises
    ------
    TypeError
        If ``items_a`` or ``items_b`` is not a DataFrame, or ``paired`` is not a bool.
    ValueError
        If a model has no labels where the design needs them, a labelled set lacks a class, the
        label table lacks ``model_column`` or a model's rows, or paired ids differ.

    Examples
    --------
    >>> import pandas as pd
    >>> from judgestats.comparison import models_from_items
    >>> a = pd.DataFrame({"id": ["1", "2", "3", "4"], "judge": [1, 0, 1, 1],
    ...                   "human": [1.0, 0.0, None, None]})
    >>> b = a.assign(judge=[1, 1, 0, 1], human=None)
    >>> models = models_from_items(a, b)
    >>> models.calibration, models.paired, models.a.test_judge.tolist()
    ('shared', True, [1, 1])
    """
    items = {"a": _check_items(items_a, "items_a"), "b": _check_items(items_b, "items_b")}
    if calibration is not None:
        calibration = check_choice(calibration, "calibration", ("model_specific", "shared"))
    if not isinstance(paired, bool):
        raise TypeError(f"`paired` must be True or False, got {paired!r}.")
    names, rows = None, None
    if human is not None:
        items, names, rows = _join_labels(
            items, human, on, label_column, model_column, (name_a, name_b), positive
        )
    elif model_column is not None:
        raise ValueError("`model_column` names a column of the `human` label table; give `human`.")
    sources = (_source(items["a"], "a"), _source(items["b"], "b"))
    labelled = {model: bool(items[model]["human"].notna().any()) for model in _MODELS}
    if not labelled["a"]:
        raise ValueError(
            f"{sources[0]}: no labels for model A: no item has a human label "
            "(give `human`, with `model_column` if it labels both models)"
        )
    design, note = _calibration_design(calibration, labelled["b"], sources)
    a, b, pair, left_out = _models(items, sources, paired)
    return ModelsFromItems(a, b, design, note, pair, left_out, sources, names, rows)


def _check_items(items: Any, name: str) -> Any:
    import pandas as pd

    if not isinstance(items, pd.DataFrame):
        raise TypeError(
            f"`{name}` must be a pandas DataFrame of items (a reader of judgestats.io returns "
            f"one), got {type(items).__name__}."
        )
    return items


def _source(items: Any, model: str) -> str:
    return str(items.attrs.get("source", f"model {model.upper()}"))


def _model_name(given: str | None, model: str, items: Any) -> str:
    """The given name, else the items' single `model` value, else A / B."""
    if given is not None:
        return str(given)
    if "model" in items.columns:
        values = items["model"].dropna().astype(str).unique()
        if len(values) == 1:
            return str(values[0])
    return model.upper()


def _join_labels(
    items: dict[str, Any],
    human: Any,
    on: str,
    label_column: str,
    model_column: str | None,
    given: tuple[str | None, str | None],
    positive: Any,
) -> tuple[dict[str, Any], tuple[str, str] | None, tuple[int, int, int] | None]:
    """Join ``human`` to the items: by ``model_column`` per model, or to model A only."""
    import judgestats.io as jio

    options = {"on": on, "column": label_column, "positive": positive}
    if model_column is None:
        return {"a": jio.join_human(items["a"], human, **options), "b": items["b"]}, None, None
    source, table = _label_table(human, on, model_column)
    if model_column not in table.columns:
        raise ValueError(
            f"{source}: no column {model_column!r} (`model_column`); the table has "
            f"{', '.join(map(str, table.columns))}"
        )
    names = (
        _model_name(given[0], "a", items["a"]),
        _model_name(given[1], "b", items["b"]),
    )
    if names[0] == names[1]:
        raise ValueError(
            f"{source}: both models are named {names[0]!r}; give `name_a` and "
            f"`name_b`, the values of column {model_column!r} that mark each model's rows"
        )
    values = table[model_column].astype(str)
    joined = {
        model: _join_model(items[model], (table, values, source), model, name, options)
        for model, name in zip(_MODELS, names, strict=True)
    }
    counts = [int((values == name).sum()) for name in names]
    rows = (counts[0], counts[1], len(values) - sum(counts))
    return joined, names, rows


def _label_table(human: Any, on: str, model_column: str) -> tuple[str, Any]:
    """The label table (read with the id and model columns as text) and its name."""
    import pandas as pd

    from judgestats.io import read_table

    if isinstance(human, pd.DataFrame):
        return str(human.attrs.get("source", "`human`")), human
    return os.fspath(human), read_table(human, string_columns=[on, model_column])


def _join_model(
    items: Any, labels: tuple[Any, Any, str], model: str, name: str, options: dict[str, Any]
) -> Any:
    """One model's rows of the label table joined to its items (errors name the file, model)."""
    import judgestats.io as jio

    table, values, source = labels
    rows = table[values == name].reset_index(drop=True)
    if rows.empty:
        found = ", ".join(repr(v) for v in dict.fromkeys(values)) or "nothing"
        raise ValueError(
            f"{source}: no labels for model {model.upper()} ({name!r}) in column "
            f"{values.name!r}, which holds {found}; name the models with `name_a`/`name_b`"
        )
    try:
        return jio.join_human(items, rows, **options)
    except ValueError as error:
        raise ValueError(
            str(error).replace(
                "`human` (data frame)", f"{source} (the rows of model {model.upper()}, {name!r})"
            )
        ) from None


def _calibration_design(
    given: str | None, b_labelled: bool, sources: tuple[str, str]
) -> tuple[str, str]:
    """The calibration design, and why: given, or implied by whether B has labels."""
    if given == "model_specific" and not b_labelled:
        raise ValueError(
            f"{sources[1]}: no labels for model B, so `calibration` 'model_specific' cannot "
            "correct it; label B's answers (`model_column`) or use `calibration` 'shared'"
        )
    if given == "shared":
        return given, "as asked: model A's labels correct both models" + (
            "; B's labels serve the diagnostics" if b_labelled else ""
        )
    if given is None and not b_labelled:
        return "shared", (
            "implied: only model A's answers are labelled, so A's calibration corrects both models"
        )
    return "model_specific", "each model corrected by the labels of its own answers"


def _labelled_arrays(items: Any, source: str) -> tuple[list[str], Any, Any]:
    """Ids, judge (0/1) and human (0/1, -1 unlabelled) of an items frame (errors name it)."""
    judge, human = items_labels(items, source)
    return list(items["id"].astype(str)), judge, human


def _check_classes(human: Any, source: str, model: str) -> None:
    """Both classes among a model's labelled answers, else its error rates are unmeasured."""
    for value, word in ((0, "incorrect (label 0)"), (1, "correct (label 1)")):
        if not (human == value).any():
            raise ValueError(
                f"{source}: model {model.upper()}'s labelled answers hold no truly "
                f"{word} item, so the judge's error rates cannot both be measured"
            )


def _models(
    items: dict[str, Any], sources: tuple[str, str], paired: bool
) -> tuple[ModelLabels | JudgeData, ModelLabels | JudgeData, bool, int]:
    """A and B paired by id (ModelLabels) or independent (JudgeData); labelled items left out."""
    arrays = {
        model: _labelled_arrays(items[model], source)
        for model, source in zip(_MODELS, sources, strict=True)
    }
    for (model, (_, _, human)), source in zip(arrays.items(), sources, strict=True):
        if (human >= 0).any():
            _check_classes(human, source, model)
    ids = {model: arrays[model][0] for model in _MODELS}
    common = set(ids["a"]) & set(ids["b"])
    if not paired or not common:
        return (*_independent_models(items, arrays["b"][1:]), False, 0)
    if set(ids["a"]) != set(ids["b"]):
        raise ValueError(
            f"{sources[1]}: {len(common)} of its {len(ids['b'])} item ids are "
            f"also in {sources[0]} ({len(ids['a'])} items) but the id sets differ; "
            "paired test items need the same ids in both (or give `paired=False` for "
            "independent test sets)"
        )
    position = {item: i for i, item in enumerate(ids["b"])}
    order_b = [position[item] for item in ids["a"]]
    verdicts = [arrays["a"][1:], (arrays["b"][1][order_b], arrays["b"][2][order_b])]
    test = (verdicts[0][1] < 0) & (verdicts[1][1] < 0)
    if not test.any():
        raise ValueError(
            f"{sources[0]}: every item is labelled for model A or B, so no test items are left"
        )
    a, b = (_paired_model(judge, human, test) for judge, human in verdicts)
    return a, b, True, int((~test).sum())


def _independent_models(
    items: dict[str, Any], verdicts_b: tuple[Any, Any]
) -> tuple[JudgeData, JudgeData]:
    """Each model's unlabelled items as its test set; B without labels takes A's calibration."""
    a = JudgeData.from_items(items["a"])
    judge_b, human_b = verdicts_b
    if (human_b >= 0).any():
        return a, JudgeData.from_items(items["b"])
    return a, JudgeData(int(judge_b.sum()), int(judge_b.size), a.k0, a.m0, a.k1, a.m1)


def _paired_model(judge: Any, human: Any, test: Any) -> ModelLabels:
    """A model's test verdicts and, where it has any, its own calibration labels."""
    calib = human >= 0
    if not calib.any():
        return ModelLabels(judge[test])
    return ModelLabels(judge[test], human[calib], judge[calib])
