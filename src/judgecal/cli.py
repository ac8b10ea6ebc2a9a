"""The ``judgecal`` command: a thin client of the public API.

Every user error (bad counts, an unreadable or malformed label file, an invalid level) becomes exit
code 2 and one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Sequence
from typing import Any, NoReturn

from judgecal.data import LABEL_COLUMNS, JudgeData
from judgecal.exceptions import JudgeCalWarning

__all__ = ["main"]

_COUNTS = ("k", "n", "k0", "m0", "k1", "m1")
_COUNT_HELP = {
    "k": "test items the judge called correct",
    "n": "test items in all",
    "k0": "truly-incorrect calibration items the judge called incorrect",
    "m0": "truly-incorrect calibration items",
    "k1": "truly-correct calibration items the judge called correct",
    "m1": "truly-correct calibration items",
}
_LABELS_HELP = (
    "item-level CSV with a header row and the columns "
    f"{', '.join(LABEL_COLUMNS)}: `set` is 'test' or 'calibration', `judge` is the judge's "
    "verdict (1 = correct, 0 = incorrect), `human` is the human label on calibration rows "
    "(empty on test rows). Values may be 0/1 or true/false; other columns are ignored."
)


class UserError(Exception):
    """An error caused by the command line's input: reported in one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UserError(message)


def _count(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None


def _level(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number in (0, 1), got {text!r}") from None


def _add_data_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("data (counts, or --labels)")
    for name in _COUNTS:
        group.add_argument(f"--{name}", type=_count, metavar="INT", help=_COUNT_HELP[name])
    group.add_argument("--labels", metavar="FILE.csv", help=_LABELS_HELP)


def _add_output_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--confidence-level", type=_level, default=0.95, metavar="LEVEL",
                        help="level of the intervals, strictly between 0 and 1 (default 0.95)")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``judgecal`` command."""
    parser = _Parser(
        prog="judgecal",
        description="Bias-corrected accuracy with honest intervals for LLM-as-a-judge "
        "evaluations (Rogan-Gladen estimate, Lang-Reiczigel interval).",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    estimate = commands.add_parser(
        "estimate", help="the fast default: Rogan-Gladen + Lang-Reiczigel",
        description="Estimate the true accuracy from counts or an item-level label file.",
        epilog="example: judgecal estimate --k 400 --n 1000 --k0 140 --m0 200 --k1 180 --m1 200",
    )
    _add_data_arguments(estimate)
    _add_output_arguments(estimate)
    for name, help_text in (
        ("posterior", "the full posterior of theta, q0, q1 (exact integration or NUTS)"),
        ("crosscheck", "the closed form and the posterior side by side, with advice"),
    ):
        command = commands.add_parser(name, help=help_text, description=help_text.capitalize())
        _add_data_arguments(command)
        _add_output_arguments(command)
        _add_posterior_arguments(command)
    demo = commands.add_parser(
        "demo", help="run the estimate and the cross-check on the bundled example data",
        description="The estimate and the cross-check on a bundled example evaluation.")
    _add_output_arguments(demo)
    _add_posterior_arguments(demo)
    return parser


def _add_posterior_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("posterior")
    group.add_argument("--method", choices=("exact", "nuts"), default="exact",
                       help="exact numerical integration (default, fast) or PyMC's NUTS")
    group.add_argument("--draws", type=int, default=1000, help="draws per chain (default 1000)")
    group.add_argument("--chains", type=int, default=4, help="chains (default 4)")
    group.add_argument("--seed", type=int, default=None, help="random seed for reproducible draws")


def _data_from_arguments(args: argparse.Namespace) -> JudgeData:
    given = {name: getattr(args, name) for name in _COUNTS if getattr(args, name) is not None}
    if args.labels is not None:
        if given:
            raise UserError("give either --labels or the six counts, not both")
        return JudgeData.from_csv(args.labels)
    missing = [f"--{name}" for name in _COUNTS if name not in given]
    if missing:
        raise UserError(f"missing {', '.join(missing)} (or give --labels FILE.csv)")
    return JudgeData(**given)


def _run_estimate(data: JudgeData, args: argparse.Namespace) -> str:
    from judgecal.frequentist import estimate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeCalWarning)  # flags are printed in the report
        result = estimate(data, confidence_level=args.confidence_level)
    return json.dumps(result.to_dict(), indent=2) if args.json else str(result)


def _posterior_options(args: argparse.Namespace) -> dict[str, Any]:
    return {"method": args.method, "draws": args.draws, "chains": args.chains,
            "random_seed": args.seed}


def _run_posterior(data: JudgeData, args: argparse.Namespace) -> str:
    from judgecal.bayes.posterior import posterior

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeCalWarning)  # flags are printed in the report
        result = posterior(data, **_posterior_options(args))
    level = args.confidence_level
    if args.json:
        return json.dumps(result.to_dict(prob=level), indent=2)
    pct = f"{100 * level:g}%"
    lines = [f"judgecal posterior (method {result.method}, {pct} credible intervals, uniform "
             "priors, judge better than chance)",
             f"  {'':<8}{'mean':>9}{'median':>9}{'ETI low':>9}{'ETI high':>9}{'HDI low':>9}"
             f"{'HDI high':>9}"]
    for var in ("theta", "q0", "q1", "youden"):
        eti, hdi = result.ci(level, "eti", var), result.ci(level, "hdi", var)
        values = (result.mean(var), float(result.quantile(0.5, var)), *eti, *hdi)
        lines.append(f"  {var:<8}" + "".join(f"{v:9.4f}" for v in values))
    lines += [f"  warning: {message}" for message in result.to_dict(prob=level)["flags"].values()]
    return "\n".join(lines)


def _run_crosscheck(data: JudgeData, args: argparse.Namespace) -> str:
    from judgecal.crosscheck import crosscheck

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeCalWarning)  # flags are printed in the report
        result = crosscheck(data, confidence_level=args.confidence_level,
                            **_posterior_options(args))
    return json.dumps(result.to_dict(), indent=2) if args.json else str(result)


def _dispatch(args: argparse.Namespace) -> str:
    if args.command == "demo":
        from judgecal.datasets import example_path

        data = JudgeData.from_csv(example_path())
        if args.json:
            return json.dumps({"estimate": json.loads(_run_estimate(data, args)),
                               "crosscheck": json.loads(_run_crosscheck(data, args))}, indent=2)
        return (f"Example data: {example_path().name} (bundled with judgecal)\n"
                f"{_run_estimate(data, args)}\n\n{_run_crosscheck(data, args)}")
    data = _data_from_arguments(args)
    runner = {"estimate": _run_estimate, "posterior": _run_posterior,
              "crosscheck": _run_crosscheck}[args.command]
    return runner(data, args)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (0 success, 2 user error)."""
    try:
        args = build_parser().parse_args(argv)
        output = _dispatch(args)
    except (UserError, ValueError, TypeError) as error:
        print(f"judgecal: error: {_one_line(error)}", file=sys.stderr)
        return 2
    except SystemExit as exit_:  # --help and --version exit through argparse
        return int(exit_.code or 0)
    print(output)
    return 0


def _one_line(error: Any) -> str:
    return " ".join(str(error).split())


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
