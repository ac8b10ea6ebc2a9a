"""Text of the grouped tables: group labels, aligned columns, rounding, JSON values.

Shared by the modules of :mod:`judgestats.grouped` only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np


def aligned(header: Sequence[str], cells: Sequence[Sequence[str]]) -> list[str]:
    """A text table: the first column left-aligned, the others right-aligned, indented by 2."""
    widths = [max(len(h), *(len(line[i]) for line in cells)) for i, h in enumerate(header)]
    fmt = "  " + "  ".join(
        f"{{:<{widths[0]}}}" if i == 0 else f"{{:>{w}}}" for i, w in enumerate(widths)
    )
    return [fmt.format(*header), *(fmt.format(*line) for line in cells)]


def group_label(key: tuple[Any, ...]) -> str:
    """A group's key as printed in the tables: ``"a / b"``."""
    return " / ".join(map(str, key))


def group_name(by: tuple[str, ...], key: tuple[Any, ...]) -> str:
    """A group as named in errors and notes: ``"column = value, ..."``."""
    return ", ".join(f"{c} = {v}" for c, v in zip(by, key, strict=True))


def plain(value: Any) -> Any:
    """A group key's value as a Python scalar; a missing value (NaN) becomes None."""
    value = value.item() if isinstance(value, np.generic) else value
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def percent(level: float) -> str:
    """A level as a percentage, four significant digits (``98.33%``)."""
    return f"{100 * level:.4g}%"


def fmt(value: float) -> str:
    """A table cell: four decimals, or ``n/a`` for NaN."""
    return "n/a" if math.isnan(value) else f"{value:.4f}"


def fmt_p(value: float) -> str:
    """A p-value cell: four decimals, scientific below 1e-4, ``n/a`` for NaN."""
    if math.isnan(value):
        return "n/a"
    return f"{value:.4f}" if value >= 1e-4 else f"{value:.1e}"


def json_float(value: float) -> float | None:
    """A float for JSON: NaN becomes None."""
    value = float(value)
    return None if math.isnan(value) else value


def json_value(value: Any) -> Any:
    """A group key's value for JSON: scalars as they are, anything else as its string."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)
