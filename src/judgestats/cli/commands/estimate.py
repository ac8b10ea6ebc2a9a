"""``judgestats estimate``: the fast default, Rogan-Gladen + Lang-Reiczigel.

With item-level input grouped by --by, or whose item ids repeat, the estimate is
:func:`judgestats.estimate_items` (per group, or clustered); otherwise :func:`judgestats.estimate`.
"""

from __future__ import annotations

import argparse
import warnings
from typing import Any

from judgestats.cli.arguments import UserError, add_data_arguments, add_output_arguments
from judgestats.cli.grouping import grouping
from judgestats.cli.inputs import data_from_arguments, items_from_arguments
from judgestats.cli.printing import (
    emit,
    json_text,
    question_line,
    with_data_notes,
    with_question,
)
from judgestats.data import JudgeData
from judgestats.exceptions import JudgeStatsWarning

__all__ = ["add_command", "estimate_text", "run"]


def add_command(commands: Any) -> None:
    """Add ``estimate`` and its options."""
    estimate = commands.add_parser(
        "estimate",
        help="the fast default: Rogan-Gladen + Lang-Reiczigel",
        description="Estimate the true accuracy from counts or an item-level label file.",
    )
    add_data_arguments(estimate)
    add_output_arguments(estimate)
    estimate.add_argument(
        "--interval",
        choices=("lang_reiczigel", "guaranteed"),
        default="lang_reiczigel",
        help="interval around the Rogan-Gladen estimate: lang_reiczigel (the fast default, "
        "approximate) or guaranteed (coverage at least the level for every accuracy and judge, "
        "by construction; up to a few seconds)",
    )


def run(args: argparse.Namespace) -> int:
    """Print the estimate; return the exit code."""
    grouped = _grouped_text(args)
    if grouped is not None:
        return emit(grouped)
    data = data_from_arguments(args)
    return emit(with_data_notes(estimate_text(data, args), data, args))


def estimate_text(data: JudgeData, args: argparse.Namespace) -> str:
    """The estimate of ``data`` as text (or JSON with --json)."""
    from judgestats.frequentist import estimate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # flags are printed in the report
        result = estimate(
            data,
            confidence_level=args.confidence_level,
            interval=getattr(args, "interval", "lang_reiczigel"),
        )
    return json_text(result.to_dict()) if args.json else str(result)


def _grouped_text(args: argparse.Namespace) -> str | None:
    """Per group (--by) or clustered (repeated item ids); None for the ordinary path."""
    by = grouping(args)
    if by is None:
        return None
    items = items_from_arguments(args)
    repeated = bool(items["id"].astype(str).duplicated().any())
    if not by and not repeated:
        return None
    if getattr(args, "interval", "lang_reiczigel") == "guaranteed":
        why = (
            "--by (per-group intervals)"
            if by
            else "item ids that repeat (clustered rows: the interval would need independent items)"
        )
        raise UserError(
            f"--interval guaranteed is not available with {why}; use the default "
            "Lang-Reiczigel interval, or one item per id without --by"
        )
    return _items_text(items, by, args)


def _items_text(items: Any, by: list[str], args: argparse.Namespace) -> str:
    """:func:`judgestats.estimate_items` as text (or JSON)."""
    from judgestats.grouped import estimate_items

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # flags are printed in the report
        result = estimate_items(
            items,
            by=by or None,
            design=args.design,
            confidence_level=args.confidence_level,
            correction=args.correction or "holm",
            null=args.null,
        )
    if args.json:
        return json_text(result.to_dict())
    text = with_question(str(result), question_line(args, items))
    if args.design == "random" and not by:
        text += (
            "\n  random design: PPI / PPI++ and the class-balance test are not shown for "
            "repeated judging (they treat every judgment as an independent item)"
        )
    return text
