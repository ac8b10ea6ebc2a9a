"""--by, --correction and --null: when item-level input takes the grouped (or clustered) path.

``estimate`` -> :func:`judgestats.estimate_items` (also without --by where ids repeat: clustered);
``crosscheck --by`` -> :func:`judgestats.crosscheck_items`; ``report --by`` ->
:func:`judgestats.report_items`. ``posterior`` rejects --by and --correction, and every command
but ``estimate`` rejects --null.
"""

from __future__ import annotations

import argparse

from judgestats.cli.arguments import COUNTS, UserError

__all__ = ["GROUPED_COMMANDS", "by_columns", "grouping"]

GROUPED_COMMANDS = ("estimate", "crosscheck", "report")


def by_columns(args: argparse.Namespace) -> list[str]:
    """The --by columns: repeated options and comma-separated names, in order."""
    names = [
        name.strip() for value in (getattr(args, "by", None) or []) for name in value.split(",")
    ]
    if any(not name for name in names):
        raise UserError("--by needs a column name (e.g. --by model or --by model,task)")
    return names


def grouping(args: argparse.Namespace) -> list[str] | None:
    """The --by columns where item-level input takes the grouped path ([]: maybe clustered).

    None where the ordinary path applies (no grouping, counts or --labels, conflicting inputs:
    its own checks report those); for ``estimate``, [] means "clustered if item ids repeat".
    Options that do not apply to the command are errors.
    """
    by = by_columns(args)
    given = [
        f"--{name}"
        for name in ("by", "correction", "null")
        if getattr(args, name, None) is not None
    ]
    if args.command not in GROUPED_COMMANDS:
        if given:
            raise UserError(
                f"{', '.join(given)} appl{'ies' if len(given) == 1 else 'y'} to "
                "`judgestats estimate`, `crosscheck` and `report` only, not "
                f"{args.command}: the posterior neither groups nor clusters"
            )
        return None
    if args.command != "estimate" and getattr(args, "null", None) is not None:
        raise UserError(
            f"--null applies to `judgestats estimate --by` only, not {args.command}: "
            "the cross-check tests no hypothesis"
        )
    if given and not by:
        raise UserError(
            f"{', '.join(given)} need{'s' * (len(given) == 1)} --by COLUMN (one "
            f"{'estimate' if args.command == 'estimate' else 'cross-check'} per "
            "group)"
        )
    counts = any(getattr(args, name) is not None for name in COUNTS)
    files = [name for name in ("labels", "log", "items") if getattr(args, name, None)]
    if files not in (["log"], ["items"]) or counts:
        if by and len(files) + counts == 1:
            raise UserError(
                "--by needs item-level input with the grouping column: --log FILE or --items FILE"
            )
        return None  # the ordinary path reports conflicting inputs
    if args.command != "estimate" and not by:
        return None
    return by
