"""Readers: item-level verdicts and human labels from data frames, files and eval-framework logs.

Every reader returns an *items frame* (see :mod:`judgestats.io._items`): one row per judged item
with the columns ``id`` (str), ``judge`` and ``human`` (``Int64`` 0/1, ``<NA>`` = no human
label), and ``frame.attrs["source"]``. :meth:`judgestats.JudgeData.from_items` counts it.

For a judge with K verdicts (A / B / tie, scores 1-5), :func:`read_frame`, :func:`read_inspect`
and :func:`join_human` take ``classes=``: ``judge`` and ``human`` then hold class values
(:func:`map_classes`), ``frame.attrs["classes"]`` lists them, and
:meth:`judgestats.kclass.KClassData.from_items` counts the frame.

This subpackage is imported on use (``import judgestats`` does not load it, nor pandas); the Inspect
AI and MLflow readers load only when their names are first used.
"""

from __future__ import annotations

import importlib
from typing import Any

from judgestats.io._items import (
    items_frame,
    join_human,
    load_json,
    map_classes,
    map_verdicts,
    read_table,
)
from judgestats.io.frames import read_frame
from judgestats.io.lm_eval import read_lm_eval
from judgestats.io.promptfoo import read_promptfoo

__all__ = [
    "items_frame",
    "join_human",
    "load_json",
    "map_classes",
    "map_verdicts",
    "read_frame",
    "read_inspect",
    "read_lm_eval",
    "read_mlflow",
    "read_promptfoo",
    "read_table",
]

_LAZY = {"read_inspect": "judgestats.io.inspect_ai", "read_mlflow": "judgestats.io.mlflow"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
