"""What the parsed options mean for the API: the data, the items of a log, the prior, the options.

Every function reads an :class:`argparse.Namespace` and calls a public reader or constructor
(:class:`~judgestats.JudgeData`, :mod:`judgestats.io`, :class:`~judgestats.Prior`); a conflict
between options is a :class:`~judgestats.cli.arguments.UserError`.
"""

from __future__ import annotations

import argparse
from typing import Any

from judgestats.cli.arguments import COUNTS, PRIOR_OPTIONS, UserError
from judgestats.data import JudgeData

__all__ = [
    "data_from_arguments",
    "items_from_arguments",
    "log_format",
    "positive_values",
    "posterior_options",
    "prior_from_arguments",
    "progress",
]


def data_from_arguments(args: argparse.Namespace) -> JudgeData:
    """The data of --k ... --m1, --labels, or --log / --items (with --human joined)."""
    given = {name: getattr(args, name) for name in COUNTS if getattr(args, name) is not None}
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
        items = items_from_arguments(args)
        if args.items is not None and args.human is None and args.human_column is None:
            raise UserError(
                f"{args.items}: which column holds the human labels? Give "
                "--human-column COL (empty where nobody labelled the item), or "
                "join a label file with --human FILE --on COL"
            )
        return JudgeData.from_items(items, design=args.design)
    if args.human is not None:
        raise UserError("--human joins labels to the items of --log or --items; give one")
    missing = [f"--{name}" for name in COUNTS if name not in given]
    if missing:
        raise UserError(
            f"missing {', '.join(missing)} (or give --labels FILE.csv, --log FILE or --items FILE)"
        )
    return JudgeData(**given, design=args.design)


def items_from_arguments(args: argparse.Namespace) -> Any:
    """The items frame of --log / --items, with --human joined on the item id."""
    path = args.log if args.log is not None else args.items
    kind = args.input_format or ("frame" if args.items is not None else log_format(path))
    if kind != "frame" and args.human_column is not None:
        raise UserError(
            "--human-column applies to --items tables; join labels to a log with "
            "--human FILE --on COL"
        )
    items = _selected_items(_read_items(path, kind, args), path, args)
    if args.human is not None:
        items = _join_human(items, kind, args)
    return items


def _read_items(path: str, kind: str, args: argparse.Namespace) -> Any:
    """The rows of one file, read by the reader of its kind."""
    import judgestats.io as jio

    positive = positive_values(args.positive)
    negative = positive_values(getattr(args, "negative", None))
    if kind == "frame":
        return jio.read_frame(
            path,
            judge=args.judge_column,
            human=args.human_column,
            id=args.id_column,
            positive=positive,
            negative=negative,
            threshold=args.threshold,
            human_positive=positive_values(getattr(args, "human_positive", None)),
            human_negative=positive_values(getattr(args, "human_negative", None)),
        )
    if kind == "inspect":
        options = {} if positive is None else {"positive": positive}
        return jio.read_inspect(
            path, scorer=args.scorer, threshold=args.threshold, negative=negative, **options
        )
    if negative is not None:
        raise UserError(
            f"--negative applies to --items tables and Inspect logs, not to {kind} logs; "
            "give --positive or --threshold"
        )
    if kind == "promptfoo":
        return jio.read_promptfoo(
            path,
            judge=args.scorer,
            threshold=args.threshold,
            provider=getattr(args, "provider", None),
            prompt_idx=getattr(args, "prompt_idx", None),
        )
    if args.scorer is None:
        raise UserError(
            f"{path}: an lm-evaluation-harness log needs --scorer METRIC (the "
            "metric field to read, e.g. acc or exact_match)"
        )
    return jio.read_lm_eval(
        path, metric=args.scorer, threshold=args.threshold, positive=positive, filter=args.filter
    )


def _join_human(items: Any, kind: str, args: argparse.Namespace) -> Any:
    """--human joined to the items on --on (its values mapped by --human-positive)."""
    import judgestats.io as jio

    human_positive = positive_values(getattr(args, "human_positive", None))
    human_negative = positive_values(getattr(args, "human_negative", None))
    if human_positive is None and human_negative is None and kind == "frame":
        human_positive = positive_values(args.positive)
        human_negative = positive_values(getattr(args, "negative", None))
    try:
        return jio.join_human(
            items,
            args.human,
            on=args.on,
            column=args.label_column,
            positive=human_positive,
            negative=human_negative,
        )
    except ValueError as error:  # name this command's option for the label mapping
        raise UserError(
            str(error).replace(
                "give `positive` to map other values, `threshold` for scores",
                "give --human-positive VALUE for the value meaning 'correct'",
            )
        ) from None


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


def positive_values(values: list[str] | None) -> Any:
    """A repeated option's values for ``positive=`` / ``negative=``: None, one value, or a list."""
    if not values:
        return None
    return values[0] if len(values) == 1 else list(values)


def log_format(path: str) -> str:
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


def prior_from_arguments(args: argparse.Namespace) -> Any:
    """The :class:`~judgestats.Prior` of --prior-theta/-q0/-q1 and --no-truncation."""
    from judgestats.bayes.priors import Prior

    given = {
        name: tuple(getattr(args, f"prior_{name}"))
        for name in PRIOR_OPTIONS
        if getattr(args, f"prior_{name}", None) is not None
    }
    return Prior(**given, better_than_chance=not args.no_truncation)


def posterior_options(args: argparse.Namespace) -> dict[str, Any]:
    """The keywords of :func:`judgestats.posterior` from the posterior and prior options."""
    options = {
        "method": args.method,
        "draws": args.draws,
        "chains": args.chains,
        "random_seed": args.seed,
    }
    if hasattr(args, "no_truncation"):  # demo has no prior options
        options["prior"] = prior_from_arguments(args)
    if getattr(args, "no_progress", False):  # posterior, crosscheck: NUTS draws a bar by default
        options["progressbar"] = False
    return options


def progress(args: argparse.Namespace) -> bool | None:
    """``progress=`` for the API: False with --no-progress, else None (on for a terminal)."""
    return False if getattr(args, "no_progress", False) else None
