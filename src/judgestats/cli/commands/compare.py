"""``judgestats compare``: two models judged by the same judge (theta_A - theta_B).

Models come as counts (--a/--b), label files (--labels-a/--labels-b), or eval logs and item tables
(--log-a/--log-b, --items-a/--items-b) with one label file (--human); for those,
:func:`judgestats.comparison.models_from_items` joins the labels per model, chooses the design and
pairs the test items. The command prints :func:`judgestats.compare`'s result.
"""

from __future__ import annotations

import argparse
import warnings
from typing import Any

from judgestats.cli.arguments import (
    COUNTS,
    INPUT_FORMATS,
    INT,
    LEVEL,
    UserError,
    add_output_arguments,
    add_prior_arguments,
    add_progress_argument,
    add_threshold_option,
    count_list,
)
from judgestats.cli.inputs import items_from_arguments, positive_values, progress
from judgestats.cli.printing import emit, json_text, nuts_diagnostic_lines
from judgestats.data import JudgeData
from judgestats.exceptions import JudgeStatsWarning

__all__ = ["add_command", "run"]

_EPILOG = """\
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

_ITEM_INPUTS = ("log_a", "log_b", "items_a", "items_b")
_ITEM_OPTIONS = (
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
#: The arguments of models_from_items that its messages name, and this command's options.
_OPTIONS_IN_MESSAGES = {
    "(`model_column`)": "(--model-column)",
    "give `name_a` and `name_b`": "give --name-a and --name-b",
    "`name_a`/`name_b`": "--name-a/--name-b",
    "give `human`, with `model_column` if": "give --human FILE, with --model-column COL if",
    "`calibration` 'model_specific'": "--calibration model_specific",
    "`calibration` 'shared'": "--calibration shared",
    "`paired=False`": "--unpaired",
}


# ---- the options --------------------------------------------------------------------------------
def add_command(commands: Any) -> None:
    """Add ``compare`` and its options."""
    compare = commands.add_parser(
        "compare",
        help="compare two models judged by the same judge (theta_A - theta_B)",
        description="Estimate theta_A - theta_B, the difference in true accuracy of two models "
        "judged by the same LLM judge, with judge diagnostics (Youden's J per model, the "
        "cross-model instability J_A - J_B, the expected bias of shared calibration) and the "
        "reporting checklist of Sec. 7 of 'Bias and Uncertainty in LLM-as-a-Judge Estimation'.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    data = compare.add_argument_group("data (counts or label files per model)")
    for model in ("a", "b"):
        data.add_argument(
            f"--{model}",
            type=count_list,
            metavar="K,N,K0,M0,K1,M1",
            help=f"counts of model {model.upper()}",
        )
        data.add_argument(
            f"--labels-{model}",
            metavar="FILE.csv",
            help=f"item-level labels of model {model.upper()}",
        )
    _add_item_arguments(compare)
    _add_design_arguments(compare)
    add_prior_arguments(compare, hierarchical=True)
    _add_unsupported_prior_arguments(compare)
    add_output_arguments(compare)
    add_progress_argument(compare, "the NUTS sampling of --method bayes")


def _add_design_arguments(parser: argparse.ArgumentParser) -> None:
    """--calibration, --method and the options of each method."""
    design = parser.add_argument_group("design and method")
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
        "--n-resamples", type=INT, default=4000, help="bootstrap replicates (default 4000)"
    )
    design.add_argument("--draws", type=INT, default=1000, help="NUTS draws per chain")
    design.add_argument("--tune", type=INT, default=1000, help="NUTS tuning steps per chain")
    design.add_argument("--chains", type=INT, default=4, help="NUTS chains (default 4)")
    design.add_argument(
        "--sigma-scale",
        type=LEVEL,
        default=0.5,
        help="scale of the half-normal prior of the between-model spread of "
        "logit q (bayes; default 0.5)",
    )
    design.add_argument("--seed", type=INT, default=None, help="random seed")


def _add_unsupported_prior_arguments(parser: argparse.ArgumentParser) -> None:
    """--prior-q0, --prior-q1, --no-truncation: accepted only to explain why they do not apply."""
    for name in ("q0", "q1"):
        parser.add_argument(
            f"--prior-{name}",
            nargs=2,
            metavar=("A", "B"),
            help=argparse.SUPPRESS,
            dest=f"unsupported_prior_{name}",
        )
    parser.add_argument(
        "--no-truncation",
        action="store_true",
        help=argparse.SUPPRESS,
        dest="unsupported_no_truncation",
    )


def _add_item_arguments(parser: argparse.ArgumentParser) -> None:
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
    _add_label_options(group)
    _add_reader_options(group)


def _add_label_options(group: Any) -> None:
    """--human and how its rows join: --on, --label-column, --model-column, --name-X, --unpaired."""
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


def _add_reader_options(group: Any) -> None:
    """The options of `estimate --log/--items` that compare's readers take."""
    group.add_argument(
        "--input-format",
        choices=INPUT_FORMATS,
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
    add_threshold_option(group)
    group.add_argument(
        "--filter", default=None, metavar="NAME", help="lm-eval: the filter whose records to read"
    )


# ---- the run ------------------------------------------------------------------------------------
def run(args: argparse.Namespace) -> int:
    """Print the comparison; return the exit code."""
    from judgestats.comparison import compare
    from judgestats.comparison.diagnostics import command_line_text

    prior = _prior(args)
    if any(getattr(args, name) is not None for name in _ITEM_INPUTS):
        a, b, calibration, header, sources = _from_items(args)
    else:
        given = [
            f"--{name.replace('_', '-')}"
            for name in _ITEM_OPTIONS
            if getattr(args, name) not in (None, False)
        ]
        if given:
            raise UserError(
                f"{given[0]} applies to --log-a/--log-b or --items-a/--items-b; give those files"
            )
        (a, b, calibration), header, sources = _from_counts_or_labels(args), [], None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JudgeStatsWarning)  # warnings are printed in the report
        result = compare(
            a,
            b,
            calibration=calibration,
            method=args.method,
            confidence_level=args.confidence_level,
            random_seed=args.seed,
            **_method_options(args, prior),
        )
    if args.json:
        return emit(json_text(result.to_dict() | ({"sources": sources} if sources else {})))
    lines = [*header, command_line_text(str(result))]
    if args.method == "bayes":
        lines += nuts_diagnostic_lines(result.details["convergence"])
    return emit("\n".join(lines))


def _prior(args: argparse.Namespace) -> Any:
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


def _method_options(args: argparse.Namespace, prior: Any) -> dict[str, Any]:
    """The ``bootstrap=`` / ``bayes=`` options of the chosen method (others are ignored)."""
    if args.method == "bootstrap":
        return {"bootstrap": {"n_resamples": args.n_resamples, "interval": args.interval}}
    if args.method == "bayes":
        options = {"draws": args.draws, "tune": args.tune, "chains": args.chains}
        return {"bayes": {"prior": prior, **options, "progressbar": progress(args)}}
    return {}


# ---- models from counts or label files ----------------------------------------------------------
def _model(args: argparse.Namespace, model: str, shared: bool) -> Any:
    """--X counts or --labels-X file of one model (K,N only for B under shared calibration)."""
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
    return JudgeData(**dict(zip(COUNTS, counts, strict=True)))


def _from_counts_or_labels(args: argparse.Namespace) -> tuple[Any, Any, str]:
    """Models A and B from --a/--b counts or --labels-a/--labels-b files, and the design."""
    calibration = args.calibration or "model_specific"
    shared = calibration == "shared"
    a = _model(args, "a", shared)
    b = _model(args, "b", shared)
    if isinstance(b, tuple):  # K,N only: B has no calibration of its own; A's corrects both
        if not isinstance(a, JudgeData):
            calib = a.calibration_counts("model A")
            if calib is None:
                raise UserError("model A's label file has no calibration rows")
            a = JudgeData(int(a.test_judge.sum()), a.test_judge.size, *calib)
        b = JudgeData(b[0], b[1], a.k0, a.m0, a.k1, a.m1)
    return a, b, calibration


# ---- models from eval logs or item tables (judgestats.comparison.models_from_items) ------------
def _items(args: argparse.Namespace, model: str) -> Any:
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
    return items_from_arguments(reader)


def _from_items(args: argparse.Namespace) -> tuple[Any, Any, str, list[str], dict[str, Any]]:
    """Models A and B from two items frames and one label file; the header; what was read."""
    from judgestats.comparison import models_from_items

    items = {model: _items(args, model) for model in "ab"}
    if args.human is None and args.model_column is not None:
        raise UserError("--model-column names a column of the --human label file; give it")
    try:
        models = models_from_items(
            items["a"],
            items["b"],
            human=args.human,
            on=args.on,
            label_column=args.label_column,
            model_column=args.model_column,
            name_a=args.name_a,
            name_b=args.name_b,
            positive=positive_values(args.positive) if args.items_a or args.items_b else None,
            calibration=args.calibration,
            paired=not args.unpaired,
        )
    except ValueError as error:
        message = str(error)
        for argument, option in _OPTIONS_IN_MESSAGES.items():
            message = message.replace(argument, option)
        raise UserError(message) from None
    pairing = _pairing(models, args.unpaired)
    header = [f"judgestats compare: A = {models.sources[0]}, B = {models.sources[1]}"]
    if args.human is not None:
        header.append(f"  human labels: {_labels_note(models, args)}")
    header += [
        f"  calibration: {models.calibration} ({models.calibration_note})",
        f"  test items: {pairing}",
        "",
    ]
    sources = {
        "a": models.sources[0],
        "b": models.sources[1],
        "human": args.human,
        "calibration": models.calibration_note,
        "test_items": pairing,
    }
    return models.a, models.b, models.calibration, header, sources


def _labels_note(models: Any, args: argparse.Namespace) -> str:
    """Whose labels the --human file held."""
    if models.model_names is None:
        return f"{args.human}: no --model-column, so its labels are model A's"
    (name_a, name_b), (rows_a, rows_b, other) = models.model_names, models.label_rows
    return (
        f"{args.human}: column {args.model_column!r}: {rows_a} labels of A ({name_a!r}), "
        f"{rows_b} of B ({name_b!r})" + (f", {other} rows of other models ignored" if other else "")
    )


def _pairing(models: Any, unpaired: bool) -> str:
    """How the test items pair: by id, or independent (and why)."""
    if not models.paired:
        why = "--unpaired" if unpaired else "the logs share no item ids"
        return (
            f"independent ({why}): {models.a.n} for A, {models.b.n} for B "
            "(the unlabelled items of each)"
        )
    left_out = models.calibration_items
    return f"paired by id: {models.a.test_judge.size} items unlabelled for both models" + (
        f" ({left_out} labelled item(s) are calibration, not test items)" if left_out else ""
    )
