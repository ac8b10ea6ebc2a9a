"""Small HTML building blocks shared by the results' ``_repr_html_`` and the report.

Standard library only (ground floor). Every piece of text goes through :func:`html.escape`;
numbers are rounded here, with the CLI's rounding (four decimals, :func:`fmt4`; levels as
percentages, :func:`fmt_percent`), and only here.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["escape", "fmt4", "fmt_percent", "notes_list", "result_block", "table"]

#: Class of the outer element of every rich display (a notebook's stylesheet can target it).
RESULT_CLASS = "judgestats-result"


def escape(text: Any) -> str:
    """``html.escape(str(text))``: the only way text enters the markup."""
    return html.escape(str(text), quote=True)


def fmt4(value: Any) -> str:
    """A number with four decimals, as the CLI prints it (``f"{value:9.4f}"`` without padding).

    Not-a-number (a quantity that does not exist, e.g. the closed form when the judge is no
    better than chance) prints as ``"n/a"``.
    """
    value = float(value)
    return "n/a" if math.isnan(value) else f"{value:.4f}"


def fmt_percent(level: Any) -> str:
    """A level (a probability) as a percentage, as every printed title writes it: ``"95%"``.

    ``f"{100 * level:g}%"``: up to six significant digits, no trailing zeros
    (0.95 -> ``"95%"``, 0.999 -> ``"99.9%"``).
    """
    return f"{100 * float(level):g}%"


def table(
    header: Sequence[str],
    rows: Iterable[Sequence[Any]],
    *,
    caption: str | None = None,
    css_class: str = "",
) -> str:
    """An HTML table: the first cell of each row is a row header, the others data cells.

    Cells are escaped; format numbers before passing them (:func:`fmt4`).
    """
    attrs = f' class="{escape(css_class)}"' if css_class else ""
    parts = [f"<table{attrs}>"]
    if caption:
        parts.append(f"<caption>{escape(caption)}</caption>")
    parts.append(
        "<thead><tr>"
        + "".join(f'<th scope="col">{escape(h)}</th>' for h in header)
        + "</tr></thead><tbody>"
    )
    for row in rows:
        first, *rest = row
        parts.append(
            f'<tr><th scope="row">{escape(first)}</th>'
            + "".join(f"<td>{escape(cell)}</td>" for cell in rest)
            + "</tr>"
        )
    parts.append("</tbody></table>")
    return "".join(parts)


def notes_list(notes: Iterable[tuple[str, str]], *, css_class: str = "notes") -> str:
    """A list of ``(label, sentence)`` notes, e.g. a flag's key and its message; '' if none."""
    items = [
        f"<li><code>{escape(label)}</code>: {escape(text)}</li>"
        if label
        else f"<li>{escape(text)}</li>"
        for label, text in notes
    ]
    return f'<ul class="{escape(css_class)}">' + "".join(items) + "</ul>" if items else ""


def result_block(
    title: str,
    header: Sequence[str],
    rows: Iterable[Sequence[Any]],
    notes: Iterable[tuple[str, str]] = (),
) -> str:
    """The rich display of one result: a captioned table, then its notes."""
    return (
        f'<div class="{RESULT_CLASS}">'
        + table(header, rows, caption=title)
        + notes_list(notes)
        + "</div>"
    )
