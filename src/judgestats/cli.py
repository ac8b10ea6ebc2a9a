"""The ``judgestats`` command: a thin client of the public API.

Every user error (bad counts, an unreadable or malformed label file, an invalid level) becomes exit
code 2 and one line on stderr, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import warnings
from collections.abc import Sequence
from typing import Any, NoReturn

from judgestats.data import DESIGNS, LABEL_COLUMNS, JudgeData
from judgestats.exceptions import JudgeStatsWarning

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
    "(empty on test rows). Values may be 0/1 or true/false; other columns are ignored. With "
    "--design random every row is a 'test' row and a human label marks the labelled ones."
)
_DESIGN_HELP = (
    "how the calibration items were chosen: 'stratified' (default; m0 truly-incorrect and m1 "
    "truly-correct items picked by design) or 'random' (a random subsample of the test items was "
    "labelled). With 'random' and counts, --k/--n count the UNLABELLED test items only and "
    "--k0/--m0/--k1/--m1 the labelled items' cells; estimate adds PPI and PPI++, posterior and "
    "crosscheck use the random-design model (the labelled class count m1 also informs theta), "
    "and all three test whether m1/m fits the test set (a shift biases PPI and that posterior)."
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
    group = parser.add_argument_group("data (counts, or --labels, or --log / --items)")
    for name in _COUNTS:
        group.add_argument(f"--{name}", type=_count, metavar="INT", help=_COUNT_HELP[name])
    group.add_argument("--labels", metavar="FILE.csv", help=_LABELS_HELP)
    group.add_argument("--design", choices=DESIGNS, default="stratified", help=_DESIGN_HELP)
    _add_item_arguments(parser)


_INPUT_FORMATS = ("inspect", "promptfoo", "lm-eval", "frame")
_CORRECTIONS = ("holm", "bonferroni", "none")  # judgestats.grouped.CORRECTIONS (imported lazily)


def _accuracy(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an accuracy in [0, 1], got {text!r}") from None


def _add_item_arguments(parser: argparse.ArgumentParser) -> None:
    """--log / --items and their options: item-level verdicts read by judgestats.io."""
    group = parser.add_argument_group(
        "item-level files (judgestats.io): rows with a human label are the calibration set, the "
        "others the test set (with --design random: the labelled rows are a random subsample)"
    )
    group.add_argument(
        "--log",
        metavar="FILE",
        help="an eval log: Inspect AI (.eval or .json), "
        "promptfoo results (.json/.jsonl) or lm-evaluation-harness samples_*.jsonl",
    )
    group.add_argument(
        "--items",
        metavar="FILE",
        help="a table with one row per item (.csv, "
        ".tsv, .jsonl, .json, .parquet): see --judge-column, --human-column",
    )
    group.add_argument(
        "--input-format",
        choices=_INPUT_FORMATS,
        default=None,
        help="the kind of --log / --items file (default: --items is 'frame'; a "
        "--log is recognised by its extension and keys)",
    )
    group.add_argument(
        "--scorer",
        metavar="NAME",
        help="the judge: Inspect scorer name, "
        "promptfoo assertion type or metric (default: the model-graded one), or "
        "lm-eval metric field (required for lm-eval)",
    )
    group.add_argument(
        "--judge-column",
        default="judge",
        metavar="COL",
        help="--items: column of the judge's verdicts (default judge)",
    )
    group.add_argument(
        "--human-column",
        default=None,
        metavar="COL",
        help="--items: column of human labels, empty where unlabelled",
    )
    group.add_argument(
        "--id-column",
        default=None,
        metavar="COL",
        help="--items: column of item ids (default: 'id' if present, else the row number)",
    )
    group.add_argument(
        "--positive",
        action="append",
        default=None,
        metavar="VALUE",
        help="a verdict value meaning 'correct' (e.g. C, PASS, yes; repeat for "
        "several); without it verdicts must be 0/1 or true/false",
    )
    group.add_argument(
        "--threshold",
        type=float,
        default=None,
        metavar="X",
        help="numeric judge scores: a score >= X is 'correct'",
    )
    group.add_argument(
        "--human",
        metavar="FILE",
        help="human labels to join on the item id "
        "(.csv, .jsonl, .parquet; columns set by --on and --label-column)",
    )
    group.add_argument(
        "--on",
        default="id",
        metavar="COL",
        help="--human: the id column of the label file (default id)",
    )
    group.add_argument(
        "--label-column",
        default="human",
        metavar="COL",
        help="--human: the label column (default human); values 0/1, true/false "
        "or those of --positive",
    )
    group.add_argument(
        "--filter",
        default=None,
        metavar="NAME",
        help="lm-eval: the filter whose records to read (e.g. strict-match)",
    )
    group.add_argument(
        "--human-positive",
        action="append",
        default=None,
        metavar="VALUE",
        help="a human-label value meaning 'correct' (repeatable), for labels "
        "written as words (C/I, PASS/FAIL, ...); default: --positive for --items "
        "tables, 0/1 or true/false otherwise",
    )
    group.add_argument(
        "--provider",
        default=None,
        metavar="ID",
        help="promptfoo: the provider whose results to read (files with several)",
    )
    group.add_argument(
        "--prompt-idx",
        type=int,
        default=None,
        metavar="I",
        help="promptfoo: the prompt whose results to read (files with several)",
    )
    group.add_argument(
        "--epoch",
        type=int,
        default=None,
        metavar="N",
        help="keep only the judgments of epoch N (Inspect epochs: one row per "
        "item, for the commands that do not cluster repeated judging)",
    )
    group.add_argument(
        "--drop-unscored",
        action="store_true",
        help="leave out items without a judge verdict (unscored or errored "
        "samples, partial credit mapped to none); without it they are an error",
    )
    grouping = parser.add_argument_group(
        "groups and repeated judging (estimate, crosscheck, report with --log / --items): "
        "estimate clusters rows whose item id repeats (e.g. Inspect epochs) by id "
        "automatically; crosscheck and report need one row per item in each group (--epoch N)"
    )
    grouping.add_argument(
        "--by",
        action="append",
        default=None,
        metavar="COLUMN",
        help="one row per value of this metadata column of the items "
        "(e.g. model, task; repeat or separate by commas for several)",
    )
    grouping.add_argument(
        "--correction",
        choices=_CORRECTIONS,
        default=None,
        help="with --by: multiplicity correction across the groups (default "
        "holm: Bonferroni-simultaneous intervals, Holm-adjusted p-values; "
        "bonferroni; none: marginal)",
    )
    grouping.add_argument(
        "--null",
        type=_accuracy,
        default=None,
        metavar="THETA0",
        help="estimate --by: test H0: theta = THETA0 in every group (p-values by "
        "inverting the Lang-Reiczigel interval, adjusted by --correction)",
    )


def _add_output_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--confidence-level",
        type=_level,
        default=0.95,
        metavar="LEVEL",
        help="level of the intervals, strictly between 0 and 1 (default 0.95)",
    )
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``judgestats`` command."""
    parser = _Parser(
        prog="judgestats",
        description="Bias-corrected accuracy with honest intervals for LLM-as-a-judge "
        "evaluations (Rogan-Gladen estimate, Lang-Reiczigel interval).",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True
    estimate = commands.add_parser(
        "estimate",
        help="the fast default: Rogan-Gladen + Lang-Reiczigel",
        description="Estimate the true accuracy from counts or an item-level label file.",
        epilog="example: judgestats estimate --k 400 --n 1000 --k0 140 --m0 200 --k1 180 --m1 200",
    )
    _add_data_arguments(estimate)
    _add_output_arguments(estimate)
    estimate.add_argument(
        "--interval",
        choices=("lang_reiczigel", "guaranteed"),
        default="lang_reiczigel",
        help="interval around the Rogan-Gladen estimate: lang_reiczigel (the fast default, "
        "approximate) or guaranteed (coverage at least the level for every accuracy and judge, "
        "by construction; up to a few seconds)",
    )
    for name, help_text in (
        ("posterior", "the full posterior of theta, q0, q1 (exact integration or NUTS)"),
        ("crosscheck", "the closed form and the posterior side by side, with advice"),
    ):
        command = commands.add_parser(name, help=help_text, description=help_text.capitalize())
        _add_data_arguments(command)
        _add_output_arguments(command)
        _add_posterior_arguments(command)
        _add_prior_arguments(command)
        _add_progress_argument(command, "the sampling of --method nuts")
    demo = commands.add_parser(
        "demo",
        help="run the estimate and the cross-check on the bundled example data",
        description="The estimate and the cross-check on a bundled example evaluation.",
    )
    _add_output_arguments(demo)
    _add_posterior_arguments(demo)
    demo.add_argument(
        "--show-data",
        action="store_true",
        help="print the paths of the bundled example data files and exit",
    )
    _add_plan_command(commands)
    _add_figures_command(commands)
    _add_compare_command(commands)
    _add_report_command(commands)
    return parser


def _beta_parameter(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number greater than 0, got {text!r}"
        ) from None
    if not 0.0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"expected a finite number greater than 0, got {text!r}")
    return value


_PRIOR_OPTIONS = ("theta", "q0", "q1")
_PRIOR_HELP = {
    "theta": "the true accuracy theta",
    "q0": "the specificity q0",
    "q1": "the sensitivity q1",
}


def _add_prior_arguments(parser: argparse.ArgumentParser, *, hierarchical: bool = False) -> None:
    group = parser.add_argument_group(
        "prior"
        + (
            " (--method bayes; q0, q1 have the hierarchical prior of --sigma-scale, "
            "so --prior-q0, --prior-q1 and --no-truncation do not apply)"
            if hierarchical
            else " (default: uniform, judge better than chance)"
        )
    )
    for name in _PRIOR_OPTIONS if not hierarchical else ("theta",):
        group.add_argument(
            f"--prior-{name}",
            nargs=2,
            type=_beta_parameter,
            metavar=("A", "B"),
            help=f"Beta(A, B) prior of {_PRIOR_HELP[name]} (default 1 1)",
        )
    if not hierarchical:
        group.add_argument(
            "--no-truncation",
            action="store_true",
            help="drop the truncation of the (q0, q1) prior to q0 + q1 > 1 "
            "(a judge better than chance)",
        )


def _prior_from_arguments(args: argparse.Namespace) -> Any:
    from judgestats.bayes.priors import Prior

    given = {
        name: tuple(getattr(args, f"prior_{name}"))
        for name in _PRIOR_OPTIONS
        if getattr(args, f"prior_{name}", None) is not None
    }
    return Prior(**given, better_than_chance=not args.no_truncation)


def _describe_prior(prior: Any) -> str:
    parts = [
        f"{name} ~ Beta({a:g}, {b:g})" for name in _PRIOR_OPTIONS for a, b in [getattr(prior, name)]
    ]
    truncation = (
        "judge better than chance (q0 + q1 > 1)" if prior.better_than_chance else "no truncation"
    )
    return f"priors {', '.join(parts)}, {truncation}"


def _nuts_diagnostic_lines(diagnostics: dict[str, Any]) -> list[str]:
    """The NUTS convergence numbers, printed for every NUTS result."""
    return [
        f"  NUTS diagnostics: max R-hat {diagnostics['r_hat']:.4f}, min ESS bulk "
        f"{diagnostics['ess_bulk']:.0f}, min ESS tail {diagnostics['ess_tail']:.0f}, "
        f"{int(diagnostics['divergences'])} divergences"
    ]


def _add_posterior_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("posterior")
    group.add_argument(
        "--method",
        choices=("exact", "nuts"),
        default="exact",
        help="exact numerical integration (default, fast) or PyMC's NUTS",
    )
    group.add_argument("--draws", type=int, default=1000, help="draws per chain (default 1000)")
    group.add_argument("--chains", type=int, default=4, help="chains (default 4)")
    group.add_argument("--seed", type=int, default=None, help="random seed for reproducible draws")


def _data_from_arguments(args: argparse.Namespace) -> JudgeData:
    given = {name: getattr(args, name) for name in _COUNTS if getattr(args, name) is not None}
    files = [f"--{name}" for name in ("labels", "log", "items") if getattr(args, name, None)]
    if len(files) + bool(given) > 1:
        inputs = files + (["the six counts"] if given else [])
        raise UserError(
            f"give either {' or '.join(inputs)}, not both"
            if len(inputs) == 2
            else f"give only one of {', '.join(inputs)}"
        )
    if args.labels is not None:
        if args.human is not None:
            raise UserError(
                "--human joins labels to the items of --log or --items; a --labels "
                "file holds its human labels itself"
            )
        return JudgeData.from_csv(args.labels, design=args.design)
    if files:
        items = _items_from_arguments(args)
        if args.items is not None and args.human is None and args.human_column is None:
            raise UserError(
                f"{args.items}: which column holds the human labels? Give "
                "--human-column COL (empty where nobody labelled the item), or "
                "join a label file with --human FILE --on COL"
            )
        return JudgeData.from_items(items, design=args.design)
    if args.human is not None:
        raise UserError("--human joins labels to the items of --log or --items; give one")
    missing = [f"--{name}" for name in _COUNTS if name not in given]
    if missing:
        raise UserError(
            f"missing {', '.join(missing)} (or give --labels FILE.csv, --log FILE or --items FILE)"
        )
    return JudgeData(**given, design=args.design)


def _items_from_arguments(args: argparse.Namespace) -> Any:
    """The items frame of --log / --items, with --human joined on the item id."""
    import judgestats.io as jio

    path = args.log if args.log is not None else args.items
    kind = args.input_format or ("frame" if args.items is not None else _log_format(path))
    positive = _positive(args.positive)
    if kind != "frame" and args.human_column is not None:
        raise UserError(
            "--human-column applies to --items tables; join labels to a log with "
            "--human FILE --on COL"
        )
    if kind == "frame":
        items = jio.read_frame(
            path,
            judge=args.judge_column,
            human=args.human_column,
            id=args.id_column,
            positive=positive,
            threshold=args.threshold,
            human_positive=_positive(getattr(args, "human_positive", None)),
        )
    elif kind == "inspect":
        options = {} if positive is None else {"positive": positive}
        items = jio.read_inspect(path, scorer=args.scorer, threshold=args.threshold, **options)
    elif kind == "promptfoo":
        items = jio.read_promptfoo(
            path,
            judge=args.scorer,
            threshold=args.threshold,
            provider=getattr(args, "provider", None),
            prompt_idx=getattr(args, "prompt_idx", None),
        )
    else:
        if args.scorer is None:
            raise UserError(
                f"{path}: an lm-evaluation-harness log needs --scorer METRIC (the "
                "metric field to read, e.g. acc or exact_match)"
            )
        items = jio.read_lm_eval(
            path,
            metric=args.scorer,
            threshold=args.threshold,
            positive=positive,
            filter=args.filter,
        )
    items = _selected_items(items, path, args)
    if args.human is not None:
        human_positive = _positive(getattr(args, "human_positive", None))
        if human_positive is None and kind == "frame":
            human_positive = positive
        try:
            items = jio.join_human(
                items, args.human, on=args.on, column=args.label_column, positive=human_positive
            )
        except ValueError as error:  # name this command's option for the label mapping
            raise UserError(
                str(error).replace(
                    "give `positive` to map other values, `threshold` for scores",
                    "give --human-positive VALUE for the value meaning 'correct'",
                )
            ) from None
    return items


def _selected_items(items: Any, path: str, args: argparse.Namespace) -> Any:
    """--epoch and --drop-unscored applied; items without a judge verdict are an error."""
    epoch = getattr(args, "epoch", None)
    if epoch is not None:
        if "epoch" not in items.columns:
            raise UserError(f"{path}: --epoch {epoch}: the items have no epoch column")
        kept = items[items["epoch"] == epoch]
        if kept.empty:
            found = ", ".join(map(str, sorted(items["epoch"].dropna().unique())))
            raise UserError(f"{path}: no item of epoch {epoch}; the epochs are {found}")
        items = kept.reset_index(drop=True)
    unscored = items["judge"].isna()
    if unscored.any():
        if not getattr(args, "drop_unscored", False):
            shown = ", ".join(repr(str(v)) for v in items["id"][unscored].head(3))
            raise UserError(
                f"{path}: {int(unscored.sum())} item(s) have no judge verdict "
                f"(e.g. ids {shown}: unscored or errored samples, or a grade "
                "mapped to none); add --drop-unscored to leave them out"
            )
        items = items[~unscored].reset_index(drop=True)
    return items


def _positive(values: list[str] | None) -> Any:
    if not values:
        return None
    return values[0] if len(values) == 1 else list(values)


def _log_format(path: str) -> str:
    """Which tool wrote an eval log: by its extension, then by its keys."""
    from pathlib import Path

    from judgestats.io import load_json
    from judgestats.io.lm_eval import is_lm_eval_sample
    from judgestats.io.promptfoo import is_promptfoo

    suffix = Path(path).suffix.lower()
    if suffix == ".eval":
        return "inspect"
    if suffix not in (".json", ".jsonl", ".ndjson"):
        raise UserError(
            f"{path}: unknown log type {suffix or '(no extension)'!r}; expected an "
            "Inspect AI .eval/.json log, promptfoo .json/.jsonl results or an "
            "lm-evaluation-harness samples_*.jsonl (or give --input-format)"
        )
    document = load_json(path)
    if (
        isinstance(document, dict)
        and "eval" in document
        and ("samples" in document or "status" in document)
    ):
        return "inspect"
    if is_promptfoo(document):
        return "promptfoo"
    if isinstance(document, list) and document and is_lm_eval_sample(document[0]):
        return "lm-eval"
    raise UserError(
        f"{path}: not a log judgestats reads (no Inspect AI `eval` and `samples`, no "
        "promptfoo `results.results`, no lm-eval `doc_id`/`metrics` records); give "
        "--input-format, or --items for a plain table"
    )


def _run_estimate(data: JudgeData, args: argparse.Namespace) -> str:
    from judgestats.frequentist import estimate

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # flags are printed in the report
        result = estimate(
            data,
            confidence_level=args.confidence_level,
            interval=getattr(args, "interval", "lang_reiczigel"),
        )
    return json.dumps(result.to_dict(), indent=2) if args.json else str(result)


def _by_columns(args: argparse.Namespace) -> list[str]:
    """The --by columns: repeated options and comma-separated names, in order."""
    names = [
        name.strip() for value in (getattr(args, "by", None) or []) for name in value.split(",")
    ]
    if any(not name for name in names):
        raise UserError("--by needs a column name (e.g. --by model or --by model,task)")
    return names


_GROUPED_COMMANDS = ("estimate", "crosscheck", "report")


def _run_estimate_items(args: argparse.Namespace) -> str | None:
    """Item-level input with --by (or, for `estimate`, repeated ids): the grouped functions.

    `estimate` -> judgestats.estimate_items (also without --by where ids repeat: clustered);
    `crosscheck --by` -> judgestats.crosscheck_items; `report --by` -> judgestats.report_items.
    Returns None where the ordinary path applies (no grouping, no repeated ids, counts or
    --labels, conflicting inputs: its own checks report those). `posterior` rejects --by and
    --correction, and every command but `estimate` rejects --null.
    """
    by = _by_columns(args)
    given = [
        f"--{name}"
        for name in ("by", "correction", "null")
        if getattr(args, name, None) is not None
    ]
    if args.command not in _GROUPED_COMMANDS:
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
    counts = any(getattr(args, name) is not None for name in _COUNTS)
    files = [name for name in ("labels", "log", "items") if getattr(args, name, None)]
    if files not in (["log"], ["items"]) or counts:
        if by and len(files) + counts == 1:
            raise UserError(
                "--by needs item-level input with the grouping column: --log FILE or --items FILE"
            )
        return None  # the ordinary path reports conflicting inputs
    if args.command != "estimate" and not by:
        return None
    target = _report_target(args) if args.command == "report" else None
    items = _items_from_arguments(args)
    if args.command == "crosscheck":
        return _format_items_crosscheck(items, by, args)
    if target is not None:  # the command is "report"
        return _write_items_report(items, by, args, *target)
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
    return _format_items_estimate(items, by, args)


def _format_items_crosscheck(items: Any, by: list[str], args: argparse.Namespace) -> str:
    from judgestats.grouped import crosscheck_items

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # flags are printed in the table
        result = crosscheck_items(
            items,
            by=by,
            design=args.design,
            confidence_level=args.confidence_level,
            correction=args.correction or "holm",
            **_posterior_options(args),
        )
    return json.dumps(result.to_dict(), indent=2) if args.json else str(result)


def _write_items_report(
    items: Any, by: list[str], args: argparse.Namespace, output: Any, kind: str
) -> str:
    from judgestats.reporting import report_items

    options = _posterior_options(args)
    options["random_seed"] = 0 if args.seed is None else args.seed
    result = report_items(
        items,
        by=by,
        design=args.design,
        prob=args.confidence_level,
        correction=args.correction or "holm",
        source=_report_source(args),
        command=_report_command_line(args),
        **options,
    )
    return _save_report(result, output, kind, args)


def _format_items_estimate(items: Any, by: list[str], args: argparse.Namespace) -> str:
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
        return json.dumps(result.to_dict(), indent=2)
    text = str(result)
    if args.design == "random" and not by:
        text += (
            "\n  random design: PPI / PPI++ and the class-balance test are not shown for "
            "repeated judging (they treat every judgment as an independent item)"
        )
    return text


def _posterior_options(args: argparse.Namespace) -> dict[str, Any]:
    options = {
        "method": args.method,
        "draws": args.draws,
        "chains": args.chains,
        "random_seed": args.seed,
    }
    if hasattr(args, "no_truncation"):  # demo has no prior options
        options["prior"] = _prior_from_arguments(args)
    if getattr(args, "no_progress", False):  # posterior, crosscheck: NUTS draws a bar by default
        options["progressbar"] = False
    return options


def _run_posterior(data: JudgeData, args: argparse.Namespace) -> str:
    from judgestats.bayes.binary_posterior import posterior

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # flags are printed in the report
        result = posterior(data, **_posterior_options(args))
    level = args.confidence_level
    if args.json:
        return json.dumps(result.to_dict(prob=level), indent=2)
    pct = f"{100 * level:g}%"
    lines = [
        f"judgestats posterior (method {result.method}, {pct} credible intervals, "
        f"{_describe_prior(result.prior)})",
        f"  {'':<8}{'mean':>9}{'median':>9}{'ETI low':>9}{'ETI high':>9}{'HDI low':>9}"
        f"{'HDI high':>9}",
    ]
    for var in ("theta", "q0", "q1", "youden"):
        eti, hdi = result.ci(level, "eti", var), result.ci(level, "hdi", var)
        values = (result.mean(var), float(result.quantile(0.5, var)), *eti, *hdi)
        lines.append(f"  {var:<8}" + "".join(f"{v:9.4f}" for v in values))
    if result.method == "nuts":
        lines += _nuts_diagnostic_lines(result.diagnostics)
    lines += _check_lines(result.diagnostics)
    lines += [
        f"  warning ({key}): {message}"
        for key, message in result.to_dict(prob=level)["flags"].items()
    ]
    return "\n".join(lines)


def _check_lines(diagnostics: dict[str, Any]) -> list[str]:
    """The conflict and regime checks behind the posterior's flags, printed for every result."""
    d = diagnostics
    return [
        f"  checks: posterior predictive p-values k {d['p_value_k']:.3f}, k0 "
        f"{d['p_value_k0']:.3f}, k1 {d['p_value_k1']:.3f}; P(J < 0.2) {d['prob_weak']:.3f}; "
        f"P(q0 + q1 > 1 | calibration) {d['prob_better_than_chance']:.3f}"
    ]


def _run_crosscheck(data: JudgeData, args: argparse.Namespace) -> str:
    from judgestats.crosschecking import crosscheck

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # flags are printed in the report
        result = crosscheck(
            data, confidence_level=args.confidence_level, **_posterior_options(args)
        )
    if args.json:
        return json.dumps(result.to_dict(), indent=2)
    if result.posterior.method != "nuts":
        return str(result)
    return "\n".join([str(result), *_nuts_diagnostic_lines(result.posterior.diagnostics)])


_FIGURES = ("2", "3", "4", "shift", "human")


def _add_figures_command(commands: Any) -> None:
    figures = commands.add_parser(
        "figures",
        help="reproduce a figure of the papers as an image file",
        description="Recompute a figure of the papers: 2 (bias of the naive rate), 3 (interval "
        "length vs calibration size), 4 (coverage study, Lee et al., arXiv 2511.21140 v1 Fig. 4), "
        "shift (Lee et al. (ICML 2026) Fig. 7), human (Lee et al. (ICML 2026) Fig. 4).",
    )
    figures.add_argument("figure", choices=_FIGURES, help="which figure")
    figures.add_argument("--output", required=True, metavar="FILE.png", help="image file")
    figures.add_argument(
        "--reps",
        type=int,
        default=10_000,
        help="Monte Carlo replications (figures 4 and shift; default 10000)",
    )
    figures.add_argument(
        "--paper",
        choices=("000", "001"),
        default="000",
        help="figure 4: m0 + m1 = 500 (000: arXiv 2511.21140 v1) or 200 "
        "(001: Lee et al. (ICML 2026), its Fig. 5)",
    )
    figures.add_argument("--seed", type=int, default=0, help="random seed (default 0)")


def _run_figures(args: argparse.Namespace) -> str:
    import matplotlib

    matplotlib.use("Agg")
    from judgestats import plots

    if args.reps < 1:
        raise UserError(f"--reps ({args.reps}) must be at least 1")
    from pathlib import Path

    if not Path(args.output).resolve().parent.is_dir():
        raise UserError(f"cannot write {args.output}: its folder does not exist")
    drawn = {
        "2": lambda: plots.plot_bias().figure,
        "3": lambda: plots.plot_interval_length().figure,
        "4": lambda: plots.plot_coverage_study(args.paper, reps=args.reps, random_seed=args.seed),
        "shift": lambda: plots.plot_shift(reps=args.reps, random_seed=args.seed).figure,
        "human": lambda: plots.plot_human_regions(),
    }[args.figure]()
    try:
        drawn.savefig(args.output, dpi=120, bbox_inches="tight")
    except OSError as error:
        raise UserError(f"cannot write {args.output}: {error.strerror or error}") from None
    return f"wrote figure {args.figure} to {args.output}"


def _dispatch(args: argparse.Namespace) -> str:
    grouped_or_clustered = _run_estimate_items(args)  # estimate --by, or repeated item ids
    if grouped_or_clustered is not None:
        return grouped_or_clustered
    if args.command == "report":
        return _run_report(args)
    if args.command == "compare":
        return _run_compare(args)
    if args.command == "plan":
        return _run_plan(args)
    if args.command == "figures":
        return _run_figures(args)
    if args.command == "demo":
        from judgestats.datasets import data_files, example_path

        if args.show_data:
            return "\n".join(str(path) for path in data_files().values())
        data = JudgeData.from_csv(example_path())
        if args.json:
            return json.dumps(
                {
                    "estimate": json.loads(_run_estimate(data, args)),
                    "crosscheck": json.loads(_run_crosscheck(data, args)),
                },
                indent=2,
            )
        return (
            f"Example data: {example_path()} (bundled with judgestats; "
            "`judgestats demo --show-data` lists every example file)\n"
            f"{_run_estimate(data, args)}\n\n{_run_crosscheck(data, args)}"
        )
    data = _data_from_arguments(args)
    runner = {
        "estimate": _run_estimate,
        "posterior": _run_posterior,
        "crosscheck": _run_crosscheck,
    }[args.command]
    if data.design == "random":
        return _with_random_design(runner(data, args), data, args)
    return runner(data, args)


# ---- --design random: PPI / PPI++ and the class-balance test (judgestats.designs) ----
def _random_design_report(data: JudgeData, args: argparse.Namespace) -> dict[str, Any]:
    from judgestats.designs.prediction_powered import PPI_ASSUMPTION, ppi_from_data
    from judgestats.designs.shift import class_balance_test

    report: dict[str, Any] = {"design": "random", "assumption": PPI_ASSUMPTION}
    if args.command == "estimate":
        for key, lam in (("ppi", 1.0), ("ppi_pp", None)):
            report[key] = ppi_from_data(
                data, lam=lam, confidence_level=args.confidence_level
            ).to_dict()
    try:
        report["class_balance"] = class_balance_test(data).to_dict()
    except ValueError:  # judge no better than chance: no Rogan-Gladen estimate to compare with
        report["class_balance"] = None
    return report


def _with_random_design(output: str, data: JudgeData, args: argparse.Namespace) -> str:
    """Add PPI / PPI++ (estimate), the model's assumption and the class-balance test."""
    from judgestats.designs.shift import CLASS_BALANCE_ALPHA, class_balance_test

    report = _random_design_report(data, args)
    if args.json:
        return json.dumps({**json.loads(output), "random_design": report}, indent=2)
    lines = [
        output,
        f"random design: {data.m} labelled items drawn from the test population, "
        f"{data.n} unlabelled",
    ]
    for key in ("ppi", "ppi_pp"):
        if key in report:
            r = report[key]
            label = f"{r['method']} (lambda = {r['lam']:.2f})"
            lines.append(
                f"  {label:<34}{r['estimate']:9.4f}{r['low']:9.4f}{r['high']:9.4f}"
                f"{r['high'] - r['low']:9.4f}"
            )
    if args.command != "estimate":
        lines.append(
            "  the posterior also uses the labelled class count, m1 ~ Bin(m, theta); "
            "Rogan-Gladen + Lang-Reiczigel does not"
        )
    lines.append(
        f"  {'PPI and PPI++ assume' if 'ppi' in report else 'the posterior assumes'}"
        f": {report['assumption']}"
    )
    if report["class_balance"] is None:
        lines.append("  class balance not tested: the judge is no better than chance")
    elif report["class_balance"]["p_value"] < CLASS_BALANCE_ALPHA:
        lines.append(f"  warning: {class_balance_test(data)}")
    else:
        b = report["class_balance"]
        lines.append(
            f"  class balance: labelled m1/m = {b['labelled_accuracy']:.4f}, test "
            f"Rogan-Gladen {b['test_accuracy']:.4f} (z = {b['statistic']:.2f}, "
            f"p = {b['p_value']:.3g}): consistent with no shift"
        )
    return "\n".join(lines)


# ---- judgestats plan: calibration planning (judgestats.planning) -------------
_PLAN_RULES = ("equal", "algorithm1", "optimal")


def _add_plan_command(commands: Any) -> None:
    plan = commands.add_parser(
        "plan",
        help="how many calibration items to label, and of which kind",
        description="Plan the calibration set from guesses of p (judged-correct rate of the test "
        "set), q0 and q1: the budget an expected interval width needs (--width), or the split "
        "and expected width of a budget (--m), under the equal split, Algorithm 1 of the paper "
        "and the exact optimum; and whether the same human labels would do better on the test "
        "set directly.",
        epilog="examples: judgestats plan --p 0.3 --q0 0.7 --q1 0.9 --width 0.1;  "
        "judgestats plan --p 0.3 --q0 0.7 --q1 0.9 --m 200",
    )
    values = plan.add_argument_group("planning values")
    values.add_argument(
        "--p", type=_level, required=True, help="expected judged-correct rate of the test set"
    )
    values.add_argument("--q0", type=_level, required=True, help="guess of the specificity")
    values.add_argument("--q1", type=_level, required=True, help="guess of the sensitivity")
    values.add_argument(
        "--n",
        type=_count,
        default=math.inf,
        metavar="INT",
        help="planned test-set size (default: unlimited)",
    )
    target = plan.add_mutually_exclusive_group(required=True)
    target.add_argument("--width", type=_level, help="target expected interval width")
    target.add_argument("--m", type=_count, metavar="INT", help="calibration budget m0 + m1")
    plan.add_argument(
        "--m-pilot",
        type=_count,
        default=None,
        metavar="INT",
        help="pilot items per arm for Algorithm 1 (default: q0, q1 taken as known)",
    )
    plan.add_argument(
        "--bayes",
        action="store_true",
        help="also the expected posterior credible width (needs --n; slower)",
    )
    _add_output_arguments(plan)
    _add_progress_argument(plan, "the budget search of --bayes --width")


def _plan_rows(args: argparse.Namespace) -> tuple[dict[str, Any], dict[str, float]]:
    """The plans under each rule, and their expected posterior widths (--bayes with --m)."""
    from judgestats.planning import expected_width, optimal_allocation, required_calibration

    common = {"n": args.n, "confidence_level": args.confidence_level, "m_pilot": args.m_pilot}
    values = (args.p, args.q0, args.q1)
    if args.width is not None:
        plans = {
            rule: required_calibration(args.width, *values, allocation=rule, **common)
            for rule in _PLAN_RULES
        }
        if args.bayes:
            plans["optimal, bayes"] = required_calibration(
                args.width, *values, method="bayes", progress=_progress(args), **common
            )
        return plans, {}
    best = optimal_allocation(args.m, *values, **common)
    plans = {rule: best.alternative(rule) for rule in _PLAN_RULES[:2]} | {"optimal": best}
    if not args.bayes:
        return plans, {}
    del common["m_pilot"]
    return plans, {
        name: expected_width(plan.m0, plan.m1, *values, method="bayes", **common)
        for name, plan in plans.items()
    }


def _run_plan(args: argparse.Namespace) -> str:
    from judgestats.planning import compare_human_only

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # flags are printed in the report
        plans, bayes = _plan_rows(args)
        budget = plans["optimal"].total
        human = compare_human_only(budget, args.p, args.q0, args.q1, n=args.n)
    if args.json:
        return json.dumps(
            {
                "target_width": args.width,
                "m": None if args.width is not None else budget,
                "plans": {
                    name: plan.to_dict() | {"bayes_width": bayes.get(name)}
                    for name, plan in plans.items()
                },
                "human_only": human.to_dict(),
            },
            indent=2,
        )
    first = plans["optimal"]
    n = "unlimited" if math.isinf(args.n) else f"{int(args.n)}"
    head = (
        f"target expected width {args.width:.4f}: smallest budget under each rule"
        if args.width is not None
        else f"budget m = {budget}: split under each rule"
    )
    lines = [
        f"judgestats plan: p = {first.p:.4f}, q0 = {first.q0:.4f}, q1 = {first.q1:.4f}, "
        f"test set n = {n}, {100 * first.confidence_level:g}% interval",
        f"  {head}",
        f"  {'rule':<16}{'m0':>8}{'m1':>8}{'total':>8}{'width':>9}{'plug-in':>9}"
        + (f"{'bayes':>9}" if bayes else ""),
    ]
    for name, plan in plans.items():
        lines.append(
            f"  {name:<16}{plan.m0:>8}{plan.m1:>8}{plan.total:>8}{plan.width:9.4f}"
            f"{plan.plugin_width:9.4f}" + (f"{bayes[name]:9.4f}" if bayes else "")
        )
    lines.append(
        "  width: expected over the sampling distribution of the counts; plug-in: at "
        "the planning values (arXiv 2511.21140 v1 Fig. 3); bayes: expected credible width"
    )
    flags = dict.fromkeys(message for plan in plans.values() for message in plan.flag_messages)
    lines += ["", str(human)] + [f"  warning: {message}" for message in flags]
    return "\n".join(lines)


# ---- judgestats compare: two models judged by the same judge (judgestats.compare) ----------------
_COMPARE_EPILOG = """\
inputs, for each model either counts or an item-level label file:
  --a K,N,K0,M0,K1,M1    counts of model A: k of n test items judged correct; k0 of m0
                         truly-incorrect and k1 of m1 truly-correct calibration items judged
                         right (its own calibration set)
  --b K,N,K0,M0,K1,M1    the same for model B; with --calibration shared, --b K,N (no
                         calibration of its own) is allowed, but then the instability
                         J_A - J_B cannot be checked
  --labels-a/--labels-b  CSV files with the columns set, judge, human (as for `estimate
                         --labels`). When both models come as files, their test rows are PAIRED
                         BY ORDER: the i-th test row of each file is the same test item. Each
                         file's calibration rows are that model's own labelled responses; a
                         file without calibration rows is allowed for B with --calibration
                         shared.
  --log-a/--log-b        eval logs (Inspect AI .eval/.json, promptfoo, lm-eval samples), or
  --items-a/--items-b    item tables, one per model, read with the same options as `estimate
                         --log/--items` (--scorer, --positive, --threshold, --input-format,
                         --judge-column, --human-column, --id-column). --human FILE joins human
                         labels on the item id (--on, --label-column). A human label judges ONE
                         model's answer, so:
                           with --model-column COL, the rows whose COL equals a model's name
                           (--name-a/--name-b; default: the log's `model` value, else A/B)
                           label that model's items: model-specific calibration;
                           without it, the labels join to model A's items only, and A's
                           calibration corrects both models: --calibration shared (implied;
                           --calibration model_specific is then an error).
                         Labels already in a log (edited Inspect scores) count too. When both
                         logs hold the same item ids, the test items are PAIRED BY ID: an item
                         is a test item when neither model's answer to it is labelled; with
                         disjoint ids (or --unpaired) the test sets are independent.
examples:
  judgestats compare --a 700,1000,170,200,180,200 --b 600,1000,168,200,182,200
  judgestats compare --labels-a a.csv --labels-b b.csv --method bootstrap --seed 1
  judgestats compare --a 700,1000,170,200,180,200 --b 600,1000 --calibration shared
  judgestats compare --log-a a.eval --log-b b.eval --human labels.csv --on id \
      --model-column model"""


def _count_list(text: str) -> tuple[float, ...]:
    try:
        values = tuple(float(part) for part in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated counts K,N,K0,M0,K1,M1 (or K,N), got {text!r}"
        ) from None
    if len(values) not in (2, 6):
        raise argparse.ArgumentTypeError(
            f"expected 6 counts K,N,K0,M0,K1,M1 (or 2, K,N), got {len(values)} in {text!r}"
        )
    return values


def _add_compare_command(commands: Any) -> None:
    compare = commands.add_parser(
        "compare",
        help="compare two models judged by the same judge (theta_A - theta_B)",
        description="Estimate theta_A - theta_B, the difference in true accuracy of two models "
        "judged by the same LLM judge, with judge diagnostics (Youden's J per model, the "
        "cross-model instability J_A - J_B, the expected bias of shared calibration) and the "
        "reporting checklist of Sec. 7 of 'Bias and Uncertainty in LLM-as-a-Judge Estimation'.",
        epilog=_COMPARE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    data = compare.add_argument_group("data (counts or label files per model)")
    for model in ("a", "b"):
        data.add_argument(
            f"--{model}",
            type=_count_list,
            metavar="K,N,K0,M0,K1,M1",
            help=f"counts of model {model.upper()}",
        )
        data.add_argument(
            f"--labels-{model}",
            metavar="FILE.csv",
            help=f"item-level labels of model {model.upper()}",
        )
    _add_compare_item_arguments(compare)
    design = compare.add_argument_group("design and method")
    design.add_argument(
        "--calibration",
        choices=("model_specific", "shared"),
        default=None,
        help="correct each model with its own calibration (default) or both "
        "with model A's (implied for logs whose labels are model A's only)",
    )
    design.add_argument(
        "--method",
        choices=("delta", "bootstrap", "bayes"),
        default="delta",
        help="delta method (default), bootstrap, or hierarchical posterior",
    )
    design.add_argument(
        "--interval",
        choices=("bca", "percentile"),
        default="bca",
        help="bootstrap interval reported (default bca)",
    )
    design.add_argument(
        "--n-resamples", type=int, default=4000, help="bootstrap replicates (default 4000)"
    )
    design.add_argument("--draws", type=int, default=1000, help="NUTS draws per chain")
    design.add_argument("--tune", type=int, default=1000, help="NUTS tuning steps per chain")
    design.add_argument("--chains", type=int, default=4, help="NUTS chains (default 4)")
    design.add_argument(
        "--sigma-scale",
        type=_level,
        default=0.5,
        help="scale of the half-normal prior of the between-model spread of "
        "logit q (bayes; default 0.5)",
    )
    design.add_argument("--seed", type=int, default=None, help="random seed")
    _add_prior_arguments(compare, hierarchical=True)
    for name in ("q0", "q1"):  # accepted only to explain why they do not apply (exit 2)
        compare.add_argument(
            f"--prior-{name}",
            nargs=2,
            metavar=("A", "B"),
            help=argparse.SUPPRESS,
            dest=f"unsupported_prior_{name}",
        )
    compare.add_argument(
        "--no-truncation",
        action="store_true",
        help=argparse.SUPPRESS,
        dest="unsupported_no_truncation",
    )
    _add_output_arguments(compare)
    _add_progress_argument(compare, "the NUTS sampling of --method bayes")


def _add_progress_argument(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--no-progress",
        action="store_true",
        help=f"no progress bar on stderr for {what} (by default one is drawn "
        "when stderr is a terminal and CI is unset)",
    )


def _progress(args: argparse.Namespace) -> bool | None:
    """``progress=`` for the API: False with --no-progress, else None (on for a terminal)."""
    return False if getattr(args, "no_progress", False) else None


def _add_compare_item_arguments(parser: argparse.ArgumentParser) -> None:
    """--log-a/--log-b, --items-a/--items-b, one --human file, and the reader options."""
    group = parser.add_argument_group(
        "eval logs or item tables per model (judgestats.io; see the notes below)"
    )
    for model in ("a", "b"):
        group.add_argument(
            f"--log-{model}",
            metavar="FILE",
            help=f"eval log of model {model.upper()} (Inspect AI .eval/.json, promptfoo, lm-eval)",
        )
        group.add_argument(
            f"--items-{model}",
            metavar="FILE",
            help=f"item table of model {model.upper()} (.csv, .jsonl, .parquet)",
        )
    group.add_argument("--human", metavar="FILE", help="human labels joined on the item id")
    group.add_argument(
        "--on", default="id", metavar="COL", help="--human: the id column (default id)"
    )
    group.add_argument(
        "--label-column",
        default="human",
        metavar="COL",
        help="--human: the label column (default human)",
    )
    group.add_argument(
        "--model-column",
        default=None,
        metavar="COL",
        help="--human: the column naming the model whose answer a row labels; "
        "without it every label is model A's (shared calibration)",
    )
    for model in ("a", "b"):
        group.add_argument(
            f"--name-{model}",
            default=None,
            metavar="NAME",
            help=f"model {model.upper()}'s value in --model-column (default: "
            f"the log's model, else {model.upper()})",
        )
    group.add_argument(
        "--unpaired",
        action="store_true",
        help="treat the test sets as independent even when the ids match",
    )
    group.add_argument(
        "--input-format",
        choices=_INPUT_FORMATS,
        default=None,
        help="the kind of the logs / tables (default: from the extension)",
    )
    group.add_argument("--scorer", metavar="NAME", help="the judge's scorer, assertion or metric")
    group.add_argument(
        "--judge-column",
        default="judge",
        metavar="COL",
        help="tables: column of the judge's verdicts (default judge)",
    )
    group.add_argument(
        "--human-column",
        default=None,
        metavar="COL",
        help="tables: column of human labels, empty where unlabelled",
    )
    group.add_argument(
        "--id-column",
        default=None,
        metavar="COL",
        help="tables: column of item ids (default 'id' if present)",
    )
    group.add_argument(
        "--positive",
        action="append",
        default=None,
        metavar="VALUE",
        help="a verdict value meaning 'correct' (repeat for several)",
    )
    group.add_argument(
        "--threshold",
        type=float,
        default=None,
        metavar="X",
        help="numeric judge scores: a score >= X is 'correct'",
    )
    group.add_argument(
        "--filter", default=None, metavar="NAME", help="lm-eval: the filter whose records to read"
    )


def _compare_model(args: argparse.Namespace, model: str, shared: bool) -> Any:
    from judgestats.comparison import ModelLabels

    counts, path = getattr(args, model), getattr(args, f"labels_{model}")
    name = f"--{model}"
    if (counts is None) == (path is None):
        raise UserError(f"give exactly one of {name} K,N,K0,M0,K1,M1 and --labels-{model} FILE.csv")
    if path is not None:
        return ModelLabels.from_csv(path)
    if len(counts) == 2:
        if model == "a" or not shared:
            raise UserError(
                f"{name} needs six counts K,N,K0,M0,K1,M1; only model B under "
                "--calibration shared may omit its calibration counts"
            )
        return counts
    return JudgeData(**dict(zip(_COUNTS, counts, strict=True)))


def _compare_prior(args: argparse.Namespace) -> Any:
    """The prior of the comparison model; prior options that it has no use for are errors."""
    from judgestats.bayes.compare_model import ComparePrior

    for option in ("prior_q0", "prior_q1", "no_truncation"):
        if getattr(args, f"unsupported_{option}"):
            raise UserError(
                f"--{option.replace('_', '-')} does not apply to compare: the comparison "
                "model's (q0, q1) prior is hierarchical and not truncated (set its spread with "
                "--sigma-scale)"
            )
    if args.prior_theta is not None and args.method != "bayes":
        raise UserError(f"--prior-theta applies to --method bayes only, not --method {args.method}")
    theta = (1.0, 1.0) if args.prior_theta is None else tuple(args.prior_theta)
    return ComparePrior(theta=theta, sigma_scale=args.sigma_scale)


def _compare_counts_or_labels(args: argparse.Namespace) -> tuple[Any, Any, str]:
    """Models A and B from --a/--b counts or --labels-a/--labels-b files, and the design."""
    calibration = args.calibration or "model_specific"
    shared = calibration == "shared"
    a = _compare_model(args, "a", shared)
    b = _compare_model(args, "b", shared)
    if isinstance(b, tuple):  # K,N only: B has no calibration of its own; A's corrects both
        if not isinstance(a, JudgeData):
            calib = a.calibration_counts("model A")
            if calib is None:
                raise UserError("model A's label file has no calibration rows")
            a = JudgeData(int(a.test_judge.sum()), a.test_judge.size, *calib)
        b = JudgeData(b[0], b[1], a.k0, a.m0, a.k1, a.m1)
    return a, b, calibration


def _compare_method_options(args: argparse.Namespace, prior: Any) -> dict[str, Any]:
    """The ``bootstrap=`` / ``bayes=`` options of the chosen method (others are ignored)."""
    if args.method == "bootstrap":
        return {"bootstrap": {"n_resamples": args.n_resamples, "interval": args.interval}}
    if args.method == "bayes":
        options = {"draws": args.draws, "tune": args.tune, "chains": args.chains}
        return {"bayes": {"prior": prior, **options, "progressbar": _progress(args)}}
    return {}


def _run_compare(args: argparse.Namespace) -> str:
    from judgestats.comparison import compare

    prior = _compare_prior(args)
    if any(getattr(args, name) is not None for name in _COMPARE_ITEM_INPUTS):
        a, b, calibration, header, sources = _compare_from_items(args)
    else:
        given = [
            f"--{name.replace('_', '-')}"
            for name in _COMPARE_ITEM_OPTIONS
            if getattr(args, name) not in (None, False)
        ]
        if given:
            raise UserError(
                f"{given[0]} applies to --log-a/--log-b or --items-a/--items-b; give those files"
            )
        (a, b, calibration), header, sources = _compare_counts_or_labels(args), [], None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # warnings are printed in the report
        result = compare(
            a,
            b,
            calibration=calibration,
            method=args.method,
            confidence_level=args.confidence_level,
            random_seed=args.seed,
            **_compare_method_options(args, prior),
        )
    if args.json:
        return json.dumps(result.to_dict() | ({"sources": sources} if sources else {}), indent=2)
    lines = [*header, str(result)]
    if args.method == "bayes":
        lines += _nuts_diagnostic_lines(result.details["convergence"])
    return "\n".join(lines)


# ---- judgestats compare on eval logs / item tables: two items frames and one label file ---------
_COMPARE_ITEM_INPUTS = ("log_a", "log_b", "items_a", "items_b")
_COMPARE_ITEM_OPTIONS = (
    "human",
    "model_column",
    "name_a",
    "name_b",
    "unpaired",
    "input_format",
    "scorer",
    "human_column",
    "id_column",
    "positive",
    "threshold",
    "filter",
)


def _compare_items(args: argparse.Namespace, model: str) -> Any:
    """The items frame of --log-X / --items-X, read with the reader options of `estimate`."""
    log, items = getattr(args, f"log_{model}"), getattr(args, f"items_{model}")
    if (log is None) == (items is None):
        raise UserError(
            f"give one of --log-{model} FILE and --items-{model} FILE (model "
            f"{model.upper()}), and for model A and B alike either files or counts"
        )
    for option in ("labels", ""):
        if getattr(args, f"{option}_{model}" if option else model) is not None:
            raise UserError(
                f"give either --{option + '-' if option else ''}{model} or "
                f"--log-{model}/--items-{model}, not both"
            )
    reader = argparse.Namespace(**{**vars(args), "log": log, "items": items, "human": None})
    return _items_from_arguments(reader)


def _model_name(args: argparse.Namespace, model: str, items: Any) -> str:
    """--name-X, else the log's single `model` value, else A / B."""
    given = getattr(args, f"name_{model}")
    if given is not None:
        return str(given)
    if "model" in items.columns:
        values = items["model"].dropna().astype(str).unique()
        if len(values) == 1:
            return str(values[0])
    return model.upper()


def _join_compare_labels(args: argparse.Namespace, items: dict[str, Any]) -> dict[str, Any]:
    """Join --human to the items: by --model-column per model, or to model A only."""
    import judgestats.io as jio
    from judgestats.io import read_table

    path = args.human
    positive = _positive(args.positive) if args.items_a or args.items_b else None
    options = {"on": args.on, "column": args.label_column, "positive": positive}
    if args.model_column is None:
        return {
            "a": jio.join_human(items["a"], path, **options),
            "b": items["b"],
            "note": f"{path}: no --model-column, so its labels are model A's",
        }
    table = read_table(path, string_columns=[args.on, args.model_column])
    column = args.model_column
    if column not in table.columns:
        raise UserError(
            f"{path}: no column {column!r} (--model-column); the table has "
            f"{', '.join(map(str, table.columns))}"
        )
    names = {model: _model_name(args, model, items[model]) for model in "ab"}
    if names["a"] == names["b"]:
        raise UserError(
            f"{path}: both models are named {names['a']!r}; give --name-a and "
            f"--name-b, the values of column {column!r} that mark each model's rows"
        )
    values = table[column].astype(str)
    joined: dict[str, Any] = {}
    for model, name in names.items():
        rows = table[values == name].reset_index(drop=True)
        if rows.empty:
            found = ", ".join(repr(v) for v in dict.fromkeys(values)) or "nothing"
            raise UserError(
                f"{path}: no labels for model {model.upper()} ({name!r}) in column "
                f"{column!r}, which holds {found}; name the models with "
                "--name-a/--name-b"
            )
        try:
            joined[model] = jio.join_human(items[model], rows, **options)
        except ValueError as error:
            raise UserError(
                str(error).replace(
                    "`human` (data frame)", f"{path} (the rows of model {model.upper()}, {name!r})"
                )
            ) from None
    counts = {model: int((values == name).sum()) for model, name in names.items()}
    other = len(values) - sum(counts.values())
    joined["note"] = (
        f"{path}: column {column!r}: {counts['a']} labels of A ({names['a']!r}), "
        f"{counts['b']} of B ({names['b']!r})"
        + (f", {other} rows of other models ignored" if other else "")
    )
    return joined


def _compare_from_items(args: argparse.Namespace) -> tuple[Any, Any, str, list[str], dict]:
    """Models A and B from two items frames and one label file; the design; what was read."""
    items = {model: _compare_items(args, model) for model in "ab"}
    if args.human is not None:
        items = _join_compare_labels(args, items)
    elif args.model_column is not None:
        raise UserError("--model-column names a column of the --human label file; give it")
    sources = {model: items[model].attrs.get("source", f"model {model.upper()}") for model in "ab"}
    labelled = {model: bool(items[model]["human"].notna().any()) for model in "ab"}
    if not labelled["a"]:
        raise UserError(
            f"{sources['a']}: no labels for model A: no item has a human label "
            "(give --human FILE, with --model-column COL if it labels both models)"
        )
    calibration, design_note = _compare_calibration(args.calibration, labelled["b"], sources)
    a, b, pairing = _compare_models(items, sources, calibration, args.unpaired)
    header = [f"judgestats compare: A = {sources['a']}, B = {sources['b']}"]
    if "note" in items:
        header.append(f"  human labels: {items['note']}")
    header += [f"  calibration: {calibration} ({design_note})", f"  test items: {pairing}", ""]
    return (
        a,
        b,
        calibration,
        header,
        {
            "a": sources["a"],
            "b": sources["b"],
            "human": args.human,
            "calibration": design_note,
            "test_items": pairing,
        },
    )


def _compare_calibration(
    given: str | None, b_labelled: bool, sources: dict[str, str]
) -> tuple[str, str]:
    """The calibration design, and why: given, or implied by whether B has labels."""
    if given == "model_specific" and not b_labelled:
        raise UserError(
            f"{sources['b']}: no labels for model B, so --calibration "
            "model_specific cannot correct it; label B's answers (--model-column) "
            "or use --calibration shared"
        )
    if given == "shared":
        return given, "as asked: model A's labels correct both models" + (
            "; B's labels serve the diagnostics" if b_labelled else ""
        )
    if given is None and not b_labelled:
        return "shared", (
            "implied: only model A's answers are labelled, so A's calibration corrects both models"
        )
    return "model_specific", "each model corrected by the labels of its own answers"


def _labelled_arrays(frame: Any, source: str) -> tuple[list[str], Any, Any]:
    """Ids, judge (0/1) and human (0/1, -1 unlabelled) of an items frame (errors name it)."""
    from judgestats.data import items_labels

    judge, human = items_labels(frame, source)
    return list(frame["id"].astype(str)), judge, human


def _compare_models(
    items: dict[str, Any], sources: dict[str, str], calibration: str, unpaired: bool
) -> tuple[Any, Any, str]:
    """ModelLabels (paired by id) or JudgeData (independent) for A and B, and how they pair."""
    from judgestats.comparison import ModelLabels

    arrays = {model: _labelled_arrays(items[model], sources[model]) for model in "ab"}
    for model, (_, _, human) in arrays.items():
        if (human >= 0).any():
            _calibration_classes(human, sources[model], model)
    ids = {model: arrays[model][0] for model in "ab"}
    common = set(ids["a"]) & set(ids["b"])
    if unpaired or not common:
        a = JudgeData.from_items(items["a"])
        b = (
            JudgeData.from_items(items["b"])
            if (arrays["b"][2] >= 0).any()
            else _unlabelled_counts(arrays["b"][1], a)
        )
        why = "--unpaired" if unpaired else "the logs share no item ids"
        return (
            a,
            b,
            (f"independent ({why}): {a.n} for A, {b.n} for B (the unlabelled items of each)"),
        )
    if set(ids["a"]) != set(ids["b"]):
        raise UserError(
            f"{sources['b']}: {len(common)} of its {len(ids['b'])} item ids are "
            f"also in {sources['a']} ({len(ids['a'])} items) but the id sets differ; "
            "paired test items need the same ids in both (or give --unpaired for "
            "independent test sets)"
        )
    position = {item: i for i, item in enumerate(ids["b"])}
    order_b = [position[item] for item in ids["a"]]
    judge_a, human_a = arrays["a"][1], arrays["a"][2]
    judge_b, human_b = arrays["b"][1][order_b], arrays["b"][2][order_b]
    test = (human_a < 0) & (human_b < 0)
    if not test.any():
        raise UserError(
            f"{sources['a']}: every item is labelled for model A or B, so no test items are left"
        )
    models = []
    for judge, human in ((judge_a, human_a), (judge_b, human_b)):
        calib = human >= 0
        models.append(
            ModelLabels(judge[test], human[calib], judge[calib])
            if calib.any()
            else ModelLabels(judge[test])
        )
    left_out = int((~test).sum())
    return (
        models[0],
        models[1],
        (
            f"paired by id: {int(test.sum())} items unlabelled for both models"
            + (
                f" ({left_out} labelled item(s) are calibration, not test items)"
                if left_out
                else ""
            )
        ),
    )


def _calibration_classes(human: Any, source: str, model: str) -> None:
    for value, word in ((0, "incorrect (label 0)"), (1, "correct (label 1)")):
        if not (human == value).any():
            raise UserError(
                f"{source}: model {model.upper()}'s labelled answers hold no truly "
                f"{word} item, so the judge's error rates cannot both be measured"
            )


def _unlabelled_counts(judge: Any, a: JudgeData) -> JudgeData:
    """Model B's test counts (no labels of its own) with model A's calibration."""
    return JudgeData(int(judge.sum()), int(judge.size), a.k0, a.m0, a.k1, a.m1)


# ---- judgestats report: the HTML / Markdown report (judgestats.report) ---------------------------
_REPORT_FORMATS = ("html", "markdown")


def _add_report_command(commands: Any) -> None:
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
    _add_data_arguments(report)
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
        choices=_REPORT_FORMATS,
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
        type=_level,
        default=0.95,
        metavar="LEVEL",
        help="level of every interval, strictly between 0 and 1 (default 0.95)",
    )
    _add_posterior_arguments(report)
    _add_prior_arguments(report)


def _report_command_line(args: argparse.Namespace) -> str:
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


def _report_target(args: argparse.Namespace) -> tuple[Any, str]:
    """The --output path and its format, checked before anything is computed."""
    from pathlib import Path

    from judgestats._validate import check_level
    from judgestats.reporting import FORMATS

    output = Path(args.output)
    kind = args.format or FORMATS.get(output.suffix.lower())
    if kind is None:
        raise UserError(
            f"cannot tell the format of {args.output} from its extension; name it "
            ".html or .md, or give --format html or --format markdown"
        )
    if not output.resolve().parent.is_dir():
        raise UserError(f"cannot write {args.output}: its folder does not exist")
    if output.is_dir():
        raise UserError(f"cannot write {args.output}: it is a folder")
    check_level(args.confidence_level, "confidence_level")  # named as the other commands do
    return output, kind


def _report_source(args: argparse.Namespace) -> str | None:
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


def _run_report(args: argparse.Namespace) -> str:
    from judgestats.reporting import report

    output, kind = _report_target(args)
    data = _data_from_arguments(args)
    options = _posterior_options(args)
    options["random_seed"] = 0 if args.seed is None else args.seed
    result = report(
        data,
        prob=args.confidence_level,
        source=_report_source(args),
        command=_report_command_line(args),
        **options,
    )
    return _save_report(result, output, kind, args)


def _save_report(result: Any, output: Any, kind: str, args: argparse.Namespace) -> str:
    """Write a report (all files or none) and say what was written."""
    try:
        written = result.save(output, format=kind, embed_figures=args.embed_figures)
    except OSError as error:
        raise UserError(f"cannot write {args.output}: {error.strerror or error}") from None
    figures = f" (figures: {', '.join(str(path) for path in written[1:])})" if written[1:] else ""
    return f"wrote the {kind} report to {written[0]}{figures}"


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code (0 success, 2 user error)."""
    args = None
    try:
        args = build_parser().parse_args(argv)
        output = _dispatch(args)
    except (UserError, ValueError, TypeError, ImportError) as error:
        # ImportError: an optional extra a reader needs is missing (its message says which)
        print(f"judgestats: error: {_with_options(_one_line(error), args)}", file=sys.stderr)
        return 2
    except SystemExit as exit_:  # --help and --version exit through argparse
        return int(exit_.code or 0)
    try:
        print(output)
    except BrokenPipeError:  # e.g. `judgestats ... | head`: the reader left; not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def _one_line(error: Any) -> str:
    return " ".join(str(error).split())


#: Reader arguments that error messages name as in Python, and this command's option for each.
_READER_OPTIONS = {
    "positive": "--positive",
    "threshold": "--threshold",
    "scorer": "--scorer",
    "filter": "--filter",
    "provider": "--provider",
    "prompt_idx": "--prompt-idx",
    "human_positive": "--human-positive",
}


def _with_options(message: str, args: argparse.Namespace | None) -> str:
    """Name the command's option next to a Python argument name in a reader's message."""
    for name, option in _READER_OPTIONS.items():
        if args is not None and hasattr(args, name.replace("-", "_")):
            message = message.replace(f"`{name}`", f"`{name}` ({option})")
    return message


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
