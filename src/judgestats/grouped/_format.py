"""Text of the grouped tables: group labels, aligned columns, p-values.

Shared by the modules of :mod:`judgestats.grouped` only.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any


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


def fmt_p(value: float) -> str:
    """A p-value cell: four decimals, scientific below 1e-4, ``n/a`` for NaN."""
    if math.isnan(value):
        return "n/a"
    return f"{value:.4f}" if value >= 1e-4 else f"{value:.1e}"
