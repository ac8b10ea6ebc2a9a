"""``judgestats next``: the next items to label, and an interval valid whenever you stop.

A thin client of :class:`judgestats.sequential.LabellingSession`: the items of --items / --log,
the labels so far (--human FILE, or --human-column), --seed for the session's random order,
and --score-column for active selection by the judge's scores.
"""

from __future__ import annotations

import argparse
from typing import Any

from judgestats.cli.arguments import (
    INT,
    UserError,
    _add_item_files,
    _add_label_join_options,
    _add_record_options,
    _add_verdict_options,
    add_output_arguments,
    add_target_argument,
    number,
)
from judgestats.cli.inputs import items_from_arguments
from judgestats.cli.printing import emit, json_text

__all__ = ["add_command", "next_text", "run"]


#: --width: a number in (0, 1).
WIDTH = number("float", low=0.0, high=1.0, noun="a width")


def add_command(commands: Any) -> None:
    """Add ``next`` and its options."""
    parser = commands.add_parser(
        "next",
        help="label until sure: the next items to label and an anytime-valid interval",
        description="Print the ids of the next batch of items to label (a uniform random sample "
        "of the unlabelled items, in the order fixed by --seed), the anytime-valid interval "
        "after the labels so far, and whether it is as narrow as --width. The interval holds "
        "at every batch at once, so you may stop as soon as it is narrow enough. Keep --seed "
        "the same for the whole labelling, and label the items it lists.",
    )
    group = parser.add_argument_group(
        "items and the labels so far (judgestats.io): --items or --log, and --human or "
        "--human-column"
    )
    _add_item_files(group)
    _add_verdict_options(group)
    _add_label_join_options(group)
    _add_record_options(group)
    session = parser.add_argument_group("labelling")
    session.add_argument(
        "--batch", type=INT, default=20, metavar="INT", help="batch size (default 20)"
    )
    session.add_argument(
        "--width",
        type=WIDTH,
        default=0.05,
        metavar="W",
        help="the interval width at which you may stop, in (0, 1) (default 0.05)",
    )
    add_target_argument(session, default="items")
    session.add_argument(
        "--score-column",
        default=None,
        metavar="NAME",
        help="a column of judge scores in [0, 1] (its probability that the item is correct): "
        "the batches favour the items the judge is least certain about, with an "
        "inverse-probability-weighted anytime-valid interval (target items only)",
    )
    session.add_argument(
        "--seed", type=INT, default=0, help="seed of the labelling order (default 0; keep it)"
    )
    session.add_argument(
        "--report",
        default=None,
        metavar="FILE",
        help="also write the labelling report to FILE (.html, or .md with its figure as a PNG "
        "file next to it): the interval now and its path over the labels so far; written only "
        "when everything succeeds",
    )
    add_output_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Print the next batch and the interval; return the exit code."""
    if args.log is None and args.items is None:
        raise UserError("give the judged items: --items FILE or --log FILE")
    if args.log is not None and args.items is not None:
        raise UserError("give either --items or --log, not both")
    if args.batch < 1:
        raise UserError(f"--batch ({args.batch}) must be at least 1")
    if args.human is not None and _no_labels_yet(args):
        args.human = None  # a label file started with its header only: nothing labelled yet
    return emit(next_text(items_from_arguments(args), args))


def _no_labels_yet(args: argparse.Namespace) -> bool:
    """Whether the --human file holds no label yet (only a header, or empty label cells)."""
    from judgestats.io import read_table

    table = read_table(args.human, string_columns=[args.on])
    if args.label_column not in table.columns:
        return False  # the join names the missing column
    return bool(table[args.label_column].isna().all())


def next_text(items: Any, args: argparse.Namespace) -> str:
    """The next batch, the interval and the stopping verdict, as text (or JSON)."""
    from judgestats.sequential import LabellingSession

    column = getattr(args, "score_column", None)
    if column is not None and args.target != "items":
        raise UserError("--score-column (active selection) supports --target items only")
    try:
        session = LabellingSession.from_items(items, random_seed=args.seed, score_column=column)
    except (TypeError, ValueError) as error:
        if column is None:
            raise
        raise UserError(f"--score-column {column}: {error}") from error
    result = session.interval(target=args.target, confidence_level=args.confidence_level)
    reached = result.width <= args.width
    done = session.n_labelled == session.n_items
    batch = [] if reached or done else session.next_batch(int(args.batch))
    written = _write_report(session, args) if args.report is not None else None
    if args.json:
        return json_text(
            {
                "next": batch,
                "interval": result.to_dict(),
                "width": args.width,
                "reached": reached,
                "report": written,
            }
        )
    if reached:
        verdict = f"reached: width {result.width:.4f} <= {args.width:g}; you may stop"
    elif done:
        verdict = f"every item is labelled; width {result.width:.4f} is the narrowest there is"
    else:
        verdict = f"not reached: width {result.width:.4f} > {args.width:g}; label the batch"
    lines = [str(result), f"target width {args.width:g}: {verdict}"]
    if written is not None:
        lines.append(f"wrote the labelling report to {written}")
    if batch:
        how = f", active by {column}" if column is not None else ""
        lines += [
            f"next {len(batch)} items to label ({session.n_labelled} of {session.n_items} "
            f"labelled, seed {args.seed}{how}):",
            *batch,
        ]
    return "\n".join(lines)


def _write_report(session: Any, args: argparse.Namespace) -> str:
    """Write the labelling report of --report (all files or none); return the document's path."""
    import shlex

    from judgestats.cli.commands.report import _source
    from judgestats.reporting import labelling_report

    if session.n_labelled == 0:
        raise UserError(f"--report {args.report}: no label yet, so no interval path to report")
    words = ["judgestats", "next"]
    for option in ("items", "log", "human", "human_column", "score_column", "target", "seed"):
        value = getattr(args, option, None)
        if value is not None:
            words += ["--" + option.replace("_", "-"), str(value)]
    words += ["--width", f"{args.width:g}", "--report", str(args.report)]
    document = labelling_report(
        session,
        target=args.target,
        confidence_level=args.confidence_level,
        width=args.width,
        source=_source(args),
        command=shlex.join(words),
    )
    try:
        paths = document.save(args.report)
    except OSError as error:  # the path that blocked the write; nothing was written
        where = error.filename or args.report
        raise UserError(f"cannot write {where}: {error.strerror or error}") from None
    return str(paths[0])
