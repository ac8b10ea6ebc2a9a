"""The ``judgestats`` command: a thin client of the public API.

One module per command in :mod:`judgestats.cli.commands` (each adds its options and has
``run(args) -> int``); the options several commands share, and the number parsers, in
:mod:`judgestats.cli.arguments`. Every user error (bad counts, an unreadable or malformed label
file, an invalid level) becomes exit code 2 and one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from judgestats._version import __version__
from judgestats.cli.arguments import Parser as _Parser
from judgestats.cli.arguments import UserError as _UserError
from judgestats.cli.commands import COMMANDS as _COMMANDS
from judgestats.cli.examples import HelpFormatter as _HelpFormatter
from judgestats.cli.examples import epilog as _epilog

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``judgestats`` command."""
    parser = _Parser(
        prog="judgestats",
        description="Bias-corrected accuracy with honest intervals for LLM-as-a-judge "
        "evaluations (Rogan-Gladen estimate, Lang-Reiczigel interval). "
        "`judgestats COMMAND --help` describes a command's options and ends with examples.",
        epilog=_epilog("estimate"),
        formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"judgestats {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    for command in _COMMANDS.values():
        command.add_command(commands)
    for name, subparser in commands.choices.items():
        subparser.epilog = _epilog(name)
        subparser.formatter_class = _HelpFormatter
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (0 success, 2 user error)."""
    args = None
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv:  # a bare `judgestats`: the help, not "the following arguments are required"
        print(build_parser().format_help(), end="")
        return 2
    try:
        args = build_parser().parse_args(argv)
        args.argv = argv  # what was typed: a command may print the command to run next
        return int(_COMMANDS[args.command].run(args))
    except (_UserError, ValueError, TypeError, ImportError) as error:
        # ImportError: an optional extra a reader needs is missing (its message says which)
        print(f"judgestats: error: {_with_options(_one_line(error), args)}", file=sys.stderr)
        return 2
    except SystemExit as exit_:  # --help and --version exit through argparse
        return int(exit_.code or 0)


def _one_line(error: Any) -> str:
    return " ".join(str(error).split())


#: Reader arguments that error messages name as in Python, and this command's option for each.
_READER_OPTIONS = {
    "positive": "--positive",
    "negative": "--negative",
    "threshold": "--threshold",
    "scorer": "--scorer",
    "filter": "--filter",
    "provider": "--provider",
    "prompt_idx": "--prompt-idx",
    "human_positive": "--human-positive",
    "human_negative": "--human-negative",
    "n_resamples": "--n-resamples",
    "random_seed": "--seed",
}


def _with_options(message: str, args: argparse.Namespace | None) -> str:
    """Name the command's option next to a Python argument name in a reader's message."""
    for name, option in _READER_OPTIONS.items():
        if args is not None and hasattr(args, option.lstrip("-").replace("-", "_")):
            message = message.replace(f"`{name}`", f"`{name}` ({option})")
    return message


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
