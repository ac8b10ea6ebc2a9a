"""The options shared by several commands, and the one factory of number parsers.

A command module adds its own options; the groups that several commands share (the six counts and
the label file, the item-level readers, the level and ``--json``, the posterior, the prior, the
progress bar) are built here by small functions, one per group. :func:`number` builds every
``type=`` callable that turns an option's text into a number.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from typing import Any, Literal, NoReturn

from judgestats._validate import CORRECTIONS, DESIGNS, POSTERIOR_METHODS
from judgestats.data import LABEL_COLUMNS

__all__ = [
    "ACCURACY",
    "BETA_PARAMETER",
    "COUNT",
    "COUNTS",
    "CORRECTIONS",
    "FLOAT",
    "INPUT_FORMATS",
    "INT",
    "LEVEL",
    "PRIOR_OPTIONS",
    "Parser",
    "TARGET_HELP",
    "UserError",
    "add_data_arguments",
    "add_item_arguments",
    "add_output_arguments",
    "add_posterior_arguments",
    "add_prior_arguments",
    "add_progress_argument",
    "add_target_argument",
    "check_target_design",
    "count_list",
    "number",
]


class UserError(Exception):
    """An error caused by the command line's input: reported in one line, exit code 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are :class:`UserError` (one line, exit code 2)."""

    def error(self, message: str) -> NoReturn:
        """Raise the parse error as a :class:`UserError`."""
        raise UserError(message)


# ---- the number-parser factory ------------------------------------------------------------------
NumberKind = Literal["int", "float", "count", "probability"]
_NOUNS = {
    "int": "an integer",
    "float": "a number",
    "count": "a whole number",
    "probability": "a number",
}


def number(
    kind: NumberKind,
    *,
    low: float | None = None,
    high: float | None = None,
    closed: bool = False,
    finite: bool = False,
    check: bool = True,
    noun: str | None = None,
) -> Callable[[str], Any]:
    """An argparse ``type=`` callable: the option's text as a number, within a range.

    Parameters
    ----------
    kind : {"int", "float", "count", "probability"}
        ``"int"`` converts with :class:`int`; the others with :class:`float` (a count stays a
        float so that ``1e9`` and ``inf`` pass, and the API checks that it is whole).
        ``"probability"`` lies in (0, 1) unless ``low`` / ``high`` say otherwise.
    low, high : float, optional
        The range's ends (None: unbounded on that side).
    closed : bool, default False
        Whether the ends belong to the range ([low, high] rather than (low, high)).
    finite : bool, default False
        Whether infinity (and NaN) are refused.
    check : bool, default True
        Whether to check the range here. False describes the range in the message only, for an
        option whose range the API checks with a message naming its argument.
    noun : str, optional
        What the option holds, for the message ("an accuracy"; default from ``kind``).

    Returns
    -------
    callable
        Raises :class:`argparse.ArgumentTypeError` with a message that says what was expected;
        argparse puts the option's name in front (``argument --k: expected ...``).
    """
    if kind == "probability" and low is None and high is None:
        low, high = 0.0, 1.0
    described = _range_text(low, high, closed)
    convert: Callable[[str], Any] = int if kind == "int" else float
    what = noun or _NOUNS[kind]

    def parse(text: str) -> Any:
        try:
            value = convert(text)
        except ValueError:
            if kind in ("int", "float") and not described and noun is None:
                message = f"invalid {kind} value: {text!r}"  # argparse's own wording
                raise argparse.ArgumentTypeError(message) from None
            raise argparse.ArgumentTypeError(f"expected {what}{described}, got {text!r}") from None
        if check and not _in_range(value, low, high, closed, finite):
            finite_what = what.replace("a ", "a finite ", 1) if finite else what
            raise argparse.ArgumentTypeError(f"expected {finite_what}{described}, got {text!r}")
        return value

    parse.__name__ = kind
    return parse


def _range_text(low: float | None, high: float | None, closed: bool) -> str:
    """The range for a message: ``" in (0, 1)"``, ``" greater than 0"``, or "" for none."""
    if low is not None and high is not None:
        return f" in {'[' if closed else '('}{low:g}, {high:g}{']' if closed else ')'}"
    if low is not None:
        return f" {'at least' if closed else 'greater than'} {low:g}"
    if high is not None:
        return f" {'at most' if closed else 'less than'} {high:g}"
    return ""


def _in_range(
    value: float, low: float | None, high: float | None, closed: bool, finite: bool
) -> bool:
    """Whether ``value`` lies in the range (NaN never does)."""
    if math.isnan(value) or (finite and math.isinf(value)):
        return False
    if low is not None and (value < low if closed else value <= low):
        return False
    return high is None or (value <= high if closed else value < high)


#: Counts as typed (whole numbers, ``inf`` for an unlimited test set; the API checks them).
COUNT = number("count", check=False)
#: A level or another number in (0, 1); the API checks the range and names its argument.
LEVEL = number("probability", check=False)
#: A true accuracy, in [0, 1] (the API checks the range).
ACCURACY = number("probability", closed=True, check=False, noun="an accuracy")
#: A parameter of a Beta prior: finite and greater than 0.
BETA_PARAMETER = number("float", low=0.0, finite=True)
INT = number("int")
FLOAT = number("float")


def count_list(text: str) -> tuple[float, ...]:
    """``K,N,K0,M0,K1,M1`` (or ``K,N``) as numbers: the counts of one model of ``compare``."""
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


# ---- data: the six counts, a label file, the design ---------------------------------------------
COUNTS = ("k", "n", "k0", "m0", "k1", "m1")
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
INPUT_FORMATS = ("inspect", "promptfoo", "lm-eval", "frame")


def add_data_arguments(parser: argparse.ArgumentParser) -> None:
    """The six counts, --labels, --design, then the options of :func:`add_item_arguments`."""
    group = parser.add_argument_group("data (counts, or --labels, or --log / --items)")
    for name in COUNTS:
        group.add_argument(f"--{name}", type=COUNT, metavar="INT", help=_COUNT_HELP[name])
    group.add_argument("--labels", metavar="FILE.csv", help=_LABELS_HELP)
    group.add_argument("--design", choices=DESIGNS, default="stratified", help=_DESIGN_HELP)
    add_item_arguments(parser)


# ---- item-level files: --log / --items and the options of their readers --------------------------
def add_item_arguments(parser: argparse.ArgumentParser) -> None:
    """--log / --items and their options: item-level verdicts read by judgestats.io."""
    group = parser.add_argument_group(
        "item-level files (judgestats.io): rows with a human label are the calibration set, the "
        "others the test set (with --design random: the labelled rows are a random subsample)"
    )
    _add_item_files(group)
    _add_verdict_options(group)
    _add_label_join_options(group)
    _add_record_options(group)
    _add_grouping_arguments(parser)


def _add_item_files(group: Any) -> None:
    """--log, --items, --input-format, --scorer."""
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
        choices=INPUT_FORMATS,
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


def _add_verdict_options(group: Any) -> None:
    """The columns of an --items table and how verdicts map to 0/1."""
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
        "--negative",
        action="append",
        default=None,
        metavar="VALUE",
        help="a verdict value meaning 'incorrect' (repeatable), where it is not the usual "
        "partner of --positive (C/I, PASS/FAIL, yes/no, 1/0) or the column's one other value: "
        "e.g. --positive 1 --negative 2 for pairwise winners coded 1/2 (--items tables, "
        "Inspect logs)",
    )
    add_threshold_option(group)


def add_threshold_option(group: Any) -> None:
    """--threshold: numeric judge scores read as verdicts (a score >= X is 'correct')."""
    group.add_argument(
        "--threshold",
        type=FLOAT,
        default=None,
        metavar="X",
        help="numeric judge scores: a score >= X is 'correct'",
    )


def _add_label_join_options(group: Any) -> None:
    """--human and how its labels join (--on, --label-column); --filter sits among them."""
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
        "--human-negative",
        action="append",
        default=None,
        metavar="VALUE",
        help="a human-label value meaning 'incorrect' (repeatable), beside --human-positive "
        "(e.g. --human-positive 1 --human-negative 2); default: --negative for --items tables",
    )


def _add_record_options(group: Any) -> None:
    """Which records of a log to read: --provider, --prompt-idx, --epoch, --drop-unscored."""
    group.add_argument(
        "--provider",
        default=None,
        metavar="ID",
        help="promptfoo: the provider whose results to read (files with several)",
    )
    group.add_argument(
        "--prompt-idx",
        type=INT,
        default=None,
        metavar="I",
        help="promptfoo: the prompt whose results to read (files with several)",
    )
    group.add_argument(
        "--epoch",
        type=INT,
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


def _add_grouping_arguments(parser: argparse.ArgumentParser) -> None:
    """--by, --correction, --null: groups and repeated judging."""
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
        choices=CORRECTIONS,
        default=None,
        help="with --by: multiplicity correction across the groups (default "
        "holm: Bonferroni-simultaneous intervals, Holm-adjusted p-values; "
        "bonferroni; none: marginal)",
    )
    grouping.add_argument(
        "--null",
        type=ACCURACY,
        default=None,
        metavar="THETA0",
        help="estimate --by: test H0: theta = THETA0 in every group (p-values by "
        "inverting the Lang-Reiczigel interval, adjusted by --correction)",
    )


TARGET_HELP = {
    "items": "the share of correct items among those evaluated",
    "population": "the accuracy of the process that produced them",
}


def add_target_argument(parser: argparse.ArgumentParser, *, default: str, note: str = "") -> None:
    """--target {items,population}: what the interval estimates (``default`` marked)."""
    words = [f"{name}: {TARGET_HELP[name]}" for name in TARGET_HELP]
    words = [w + (" (default)" if w.startswith(default) else "") for w in words]
    parser.add_argument(
        "--target",
        choices=tuple(TARGET_HELP),
        default=default,
        help="; ".join(words) + note,
    )


def check_target_design(args: argparse.Namespace) -> None:
    """Refuse a --target that --design does not allow, in the command line's words.

    The rule is :func:`judgestats.designs.labels_only.check_target`'s (items needs the random
    design); only the message is the command line's.
    """
    from judgestats.designs.labels_only import check_target

    target = getattr(args, "target", "population")
    try:
        check_target(target, design=args.design)
    except ValueError:
        raise UserError(
            f"--target {target} needs --design random: with a stratified calibration set the "
            "labelled items are chosen by their true class, so the share of correct items "
            "among the items evaluated is not estimable; use --target population (the default)"
        ) from None


# ---- output, posterior, prior, progress ---------------------------------------------------------
def add_output_arguments(parser: argparse.ArgumentParser) -> None:
    """--confidence-level and --json."""
    parser.add_argument(
        "--confidence-level",
        type=LEVEL,
        default=0.95,
        metavar="LEVEL",
        help="level of the intervals, strictly between 0 and 1 (default 0.95)",
    )
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON")


def add_posterior_arguments(parser: argparse.ArgumentParser) -> None:
    """--method (exact or NUTS), --draws, --chains, --seed."""
    group = parser.add_argument_group("posterior")
    group.add_argument(
        "--method",
        choices=POSTERIOR_METHODS,
        default="exact",
        help="exact numerical integration (default, fast) or PyMC's NUTS",
    )
    group.add_argument("--draws", type=INT, default=1000, help="draws per chain (default 1000)")
    group.add_argument("--chains", type=INT, default=4, help="chains (default 4)")
    group.add_argument("--seed", type=INT, default=None, help="random seed for reproducible draws")


PRIOR_OPTIONS = ("theta", "q0", "q1")
_PRIOR_HELP = {
    "theta": "the true accuracy theta",
    "q0": "the specificity q0",
    "q1": "the sensitivity q1",
}


def add_prior_arguments(parser: argparse.ArgumentParser, *, hierarchical: bool = False) -> None:
    """--prior-theta/-q0/-q1 A B and --no-truncation (only --prior-theta when hierarchical)."""
    group = parser.add_argument_group(
        "prior"
        + (
            " (--method bayes; q0, q1 have the hierarchical prior of --sigma-scale, "
            "so --prior-q0, --prior-q1 and --no-truncation do not apply)"
            if hierarchical
            else " (default: uniform, judge better than chance)"
        )
    )
    for name in PRIOR_OPTIONS if not hierarchical else ("theta",):
        group.add_argument(
            f"--prior-{name}",
            nargs=2,
            type=BETA_PARAMETER,
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


def add_progress_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """--no-progress: no progress bar on stderr for ``what``."""
    parser.add_argument(
        "--no-progress",
        action="store_true",
        help=f"no progress bar on stderr for {what} (by default one is drawn "
        "when stderr is a terminal and CI is unset)",
    )
