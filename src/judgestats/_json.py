"""Strict JSON values: the one conversion every ``to_dict()`` and the CLI's ``--json`` use.

DESIGN.md's result contract: ``json.dumps(result.to_dict(), allow_nan=False)`` works, and a
number that does not exist (NaN) or is unbounded (+inf, -inf) becomes ``null``. Ground floor:
numpy only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["json_number", "to_json"]


def json_number(value: Any) -> float | None:
    """A real number as a float, or None where it is missing or not finite (nan, +inf, -inf).

    Examples
    --------
    >>> json_number(np.float64(0.25)), json_number(float("inf")), json_number(None)
    (0.25, None, None)
    """
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def to_json(value: Any) -> Any:
    """``value`` as strict JSON data, recursively.

    Mappings become dicts with ``str`` keys; lists, tuples and numpy arrays become lists; numpy
    scalars become Python numbers; every non-finite float (nan, +inf, -inf) and a missing marker
    (pandas ``NA`` / ``NaT``) becomes None. Booleans, integers, strings and None are kept; any
    other object is written as its ``str()``.

    Examples
    --------
    >>> to_json({"x": np.array([0.5, np.nan]), 1: (np.int64(3), -np.inf, True)})
    {'x': [0.5, None], '1': [3, None, True]}
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.generic):
        value = value.item()
        if isinstance(value, (bool, str)):
            return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return json_number(value)
    if isinstance(value, Mapping):
        return {str(key): to_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [
            to_json(item) for item in (value.tolist() if isinstance(value, np.ndarray) else value)
        ]
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    return str(value)
