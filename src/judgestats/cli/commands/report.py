"""``judgestats report``: a stand-alone HTML or Markdown report for a reviewer.

With item-level input and --by, one section per group (:func:`judgestats.report_items`).
"""

from __future__ import annotations

import argparse
from typing import Any

from judgestats.cli.arguments import (
    LEVEL,
    UserError,
    add_data_arguments,
    add_posterior_arguments,
    add_prior_arguments,
    add_target_argument,
    check_target_design,
)
from judgestats.cli.grouping import grouping
from judgestats.cli.inputs import data_from_arguments, items_from_arguments, posterior_options
from judgestats.cli.printing import emit

__all__ = ["FORMATS", "add_command", "run"]

FORMATS = ("html", "markdown")


def add_command(commands: Any) -> None:
    """Add ``report`` and its options."""
    report = commands.add_parser(
        "report",
        help="write a stand-alone HTML or Markdown report for a reviewer",
        description="Write a report of one evaluation: the inputs, the cross-check table (the "
        "closed form and the posterior side by side) with its advice, the posterior density of "
        "theta with every interval marked, the judge's quality (q0, q1, J with credible "
        "intervals), the flags, and a reproducibility block. HTML embeds its figures; Markdown "
        "writes them as PNG files next to the .md file (or embeds them with --embed-figures).",
        epilog="examples: judgestats report --k 400 --n 1000 --k0 140 --m0 200 --k1 180 --m1 200 "
        "--output report.html;  judgestats report --labels labels.csv --output appendix.md",
    )
    report.set_defaults(report_parser=report)
    add_data_arguments(report)
    output = report.add_argument_group("output")
    output.add_argument(
        "--output",
        required=True,
        metavar="FILE",
        help="the report to write (.html/.htm or .md/.markdown); its folder must "
        "exist; nothing is written on error",
    )
    output.add_argument(
        "--format",
        choices=FORMATS,
        default=None,
        help="html or markdown (default: from the extension of --output)",
    )
    output.add_argument(
        "--embed-figures",
        action="store_true",
        help="markdown: embed the figures as data URIs instead of writing "
        "<stem>_theta.png and <stem>_judge.png next to the report",
    )
    output.add_argument(
        "--confidence-level",
        type=LEVEL,
        default=0.95,
        metavar="LEVEL",
        help="level of every interval, strictly between 0 and 1 (default 0.95)",
    )
    add_target_argument(
        output,
        default="population",
        note=". What the headline interval estimates; items needs --design random",
    )
    add_posterior_arguments(report)
    add_prior_arguments(report)


def run(args: argparse.Namespace) -> int:
    """Write the report (all files or none); print what was written; return the exit code."""
    check_target_design(args)
    by = grouping(args)
    target = _target(args)
    if by is not None:
        return emit(_write_items_report(items_from_arguments(args), by, args, *target))
    from judgestats.reporting import report

    data = data_from_arguments(args)
    result = report(
        data,
        prob=args.confidence_level,
        source=_source(args),
        command=_command_line(args),
        target=args.target,
        **_options(args),
    )
    return emit(_save(result, *target, args))


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """The posterior's options; a report is reproducible, so the seed defaults to 0."""
    options = posterior_options(args)
    options["random_seed"] = 0 if args.seed is None else args.seed
    return options


def _write_items_report(
    items: Any, by: list[str], args: argparse.Namespace, output: Any, kind: str
) -> str:
    from judgestats.reporting import report_items

    result = report_items(
        items,
        by=by,
        design=args.design,
        prob=args.confidence_level,
        correction=args.correction or "holm",
        source=_source(args),
        command=_command_line(args),
        target=args.target,
        **_options(args),
    )
    return _save(result, output, kind, args)


def _command_line(args: argparse.Namespace) -> str:
    """The command that reproduces this report: every option that differs from its default."""
    import shlex

    def word(value: Any) -> str:
        if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return str(value)

    words = ["judgestats", args.command]
    for action in args.report_parser._actions:
        value = getattr(args, action.dest, None)
        if (
            not action.option_strings
            or value is None
            or value is False
            or (value == action.default)
        ):
            continue
        words.append(max(action.option_strings, key=len))
        if action.nargs != 0:
            words += [word(v) for v in (value if isinstance(value, (list, tuple)) else [value])]
    return shlex.join(words)


def _target(args: argparse.Namespace) -> tuple[Any, str]:
    """The --output path and its format, checked before anything is computed."""
    from pathlib import Path

    from judgestats._validate import check_level
    from judgestats.reporting import FORMATS as EXTENSIONS
    from judgestats.reporting.saving import check_targets

    output = Path(args.output)
    kind = args.format or EXTENSIONS.get(output.suffix.lower())
    if kind is None:
        raise UserError(
            f"cannot tell the format of {args.output} from its extension; name it "
            ".html or .md, or give --format html or --format markdown"
        )
    if not output.resolve().parent.is_dir():
        raise UserError(f"cannot write {args.output}: its folder does not exist")
    check_targets([output])  # a folder, FIFO, device or link is refused, never replaced
    check_level(args.confidence_level, "confidence_level")  # named as the other commands do
    return output, kind


def _source(args: argparse.Namespace) -> str | None:
    """The input file of a report, with the label file joined to it."""
    source = next(
        (
            getattr(args, name)
            for name in ("labels", "log", "items")
            if getattr(args, name, None) is not None
        ),
        None,
    )
    if source is not None and getattr(args, "human", None) is not None:
        source = f"{source} (human labels: {args.human})"
    return source


def _save(result: Any, output: Any, kind: str, args: argparse.Namespace) -> str:
    """Write a report (all files or none) and say what was written."""
    try:
        written = result.save(output, format=kind, embed_figures=args.embed_figures)
    except OSError as error:  # the path that blocked the write, and why; nothing was written
        where = error.filename or args.output
        raise UserError(f"cannot write {where}: {error.strerror or error}") from None
    figures = f" (figures: {', '.join(str(path) for path in written[1:])})" if written[1:] else ""
    return f"wrote the {kind} report to {written[0]}{figures}"
