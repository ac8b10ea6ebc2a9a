"""``judgestats crosscheck``: the closed form and the posterior side by side, with advice.

With item-level input and --by, one cross-check per group (:func:`judgestats.crosscheck_items`).
"""

from __future__ import annotations

import argparse
import warnings
from typing import Any

from judgestats.cli.arguments import add_target_argument, check_target_design
from judgestats.cli.commands.posterior import add_posterior_command_arguments
from judgestats.cli.grouping import grouping
from judgestats.cli.inputs import data_from_arguments, items_from_arguments, posterior_options
from judgestats.cli.printing import (
    emit,
    json_text,
    nuts_diagnostic_lines,
    question_line,
    with_data_notes,
    with_question,
)
from judgestats.data import JudgeData
from judgestats.exceptions import JudgeStatsWarning

__all__ = ["add_command", "crosscheck_text", "run"]

_HELP = "the closed form and the posterior side by side, with advice"
_TARGET_NOTE = (
    ". What the recommended interval estimates; items needs --design random (the other rows "
    "estimate the accuracy theta)"
)


def add_command(commands: Any) -> None:
    """Add ``crosscheck`` and its options (those of ``posterior``)."""
    crosscheck = commands.add_parser("crosscheck", help=_HELP, description=_HELP.capitalize())
    add_posterior_command_arguments(crosscheck)
    add_target_argument(crosscheck, default="population", note=_TARGET_NOTE)


def run(args: argparse.Namespace) -> int:
    """Print the cross-check; return the exit code."""
    check_target_design(args)
    by = grouping(args)
    if by is not None:
        return emit(_items_text(items_from_arguments(args), by, args))
    data = data_from_arguments(args)
    return emit(with_data_notes(crosscheck_text(data, args), data, args))


def crosscheck_text(data: JudgeData, args: argparse.Namespace) -> str:
    """The cross-check of ``data`` as text (or JSON with --json)."""
    from judgestats.recommendation import crosscheck

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # flags are printed in the report
        result = crosscheck(
            data,
            confidence_level=args.confidence_level,
            target=getattr(args, "target", "population"),  # demo has no --target
            **posterior_options(args),
        )
    if args.json:
        return json_text(result.to_dict())
    if result.posterior is None or result.posterior.method != "nuts":
        return str(result)
    return "\n".join([str(result), *nuts_diagnostic_lines(result.posterior.diagnostics)])


def _items_text(items: Any, by: list[str], args: argparse.Namespace) -> str:
    """:func:`judgestats.crosscheck_items` as a table (or JSON)."""
    from judgestats.grouped import crosscheck_items

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # flags are printed in the table
        result = crosscheck_items(
            items,
            by=by,
            design=args.design,
            confidence_level=args.confidence_level,
            correction=args.correction or "holm",
            target=getattr(args, "target", "population"),  # demo has no --target
            **posterior_options(args),
        )
    if args.json:
        return json_text(result.to_dict())
    return with_question(str(result), question_line(args))
