"""``judgestats demo``: the estimate and the cross-check on the bundled example data."""

from __future__ import annotations

import argparse
import json
from typing import Any

from judgestats.cli.arguments import add_output_arguments, add_posterior_arguments
from judgestats.cli.commands.crosscheck import crosscheck_text
from judgestats.cli.commands.estimate import estimate_text
from judgestats.cli.printing import emit, json_text
from judgestats.data import JudgeData

__all__ = ["add_command", "run"]


def add_command(commands: Any) -> None:
    """Add ``demo`` and its options."""
    demo = commands.add_parser(
        "demo",
        help="run the estimate and the cross-check on the bundled example data",
        description="The estimate and the cross-check on a bundled example evaluation.",
    )
    add_output_arguments(demo)
    add_posterior_arguments(demo)
    demo.add_argument(
        "--show-data",
        action="store_true",
        help="print the paths of the bundled example data files and exit",
    )


def run(args: argparse.Namespace) -> int:
    """Print the demo; return the exit code."""
    from judgestats.datasets import data_files, example_path

    if args.show_data:
        return emit("\n".join(str(path) for path in data_files().values()))
    data = JudgeData.from_csv(example_path())
    if args.json:
        both = {
            "estimate": json.loads(estimate_text(data, args)),
            "crosscheck": json.loads(crosscheck_text(data, args)),
        }
        return emit(json_text(both))
    return emit(
        f"Example data: {example_path()} (bundled with judgestats; "
        "`judgestats demo --show-data` lists every example file)\n"
        f"{estimate_text(data, args)}\n\n{crosscheck_text(data, args)}"
    )
