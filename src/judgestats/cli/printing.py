"""Text the commands share: the NUTS and posterior checks, the random design's report.

:func:`emit` prints a command's output; a reader that left early (``judgestats ... | head``) is
not an error.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from judgestats._json import to_json
from judgestats.data import JudgeData

__all__ = [
    "check_lines",
    "emit",
    "json_text",
    "nuts_diagnostic_lines",
    "question_line",
    "with_data_notes",
    "with_question",
    "with_random_design",
]


def emit(output: str) -> int:
    """Print a command's output; return the exit code 0."""
    try:
        print(output)
    except BrokenPipeError:  # e.g. `judgestats ... | head`: the reader left; not an error
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def json_text(value: Any) -> str:
    """``--json`` output: ``value`` as strict JSON (:func:`~judgestats._json.to_json`), indented.

    Every number that does not exist (NaN) or is unbounded is ``null``, so a strict parser reads
    it (``allow_nan=False`` would raise otherwise).
    """
    return json.dumps(to_json(value), indent=2, allow_nan=False)


def nuts_diagnostic_lines(diagnostics: dict[str, Any]) -> list[str]:
    """The NUTS convergence numbers, printed for every NUTS result."""
    return [
        f"  NUTS diagnostics: max R-hat {diagnostics['r_hat']:.4f}, min ESS bulk "
        f"{diagnostics['ess_bulk']:.0f}, min ESS tail {diagnostics['ess_tail']:.0f}, "
        f"{int(diagnostics['divergences'])} divergences"
    ]


def check_lines(diagnostics: dict[str, Any]) -> list[str]:
    """The conflict and regime checks behind the posterior's flags, printed for every result."""
    d = diagnostics
    return [
        f"  checks: posterior predictive p-values k {d['p_value_k']:.3f}, k0 "
        f"{d['p_value_k0']:.3f}, k1 {d['p_value_k1']:.3f}; P(J < 0.2) {d['prob_weak']:.3f}; "
        f"P(q0 + q1 > 1 | calibration) {d['prob_better_than_chance']:.3f}"
    ]


# ---- which question an estimate answers: one epoch, or every judgment clustered by item ----------
def question_line(args: argparse.Namespace, items: Any = None) -> str | None:
    """What is estimated when items repeat or one epoch is kept (None when neither applies).

    ``items`` are the rows read (after --epoch); their ids repeat when items were judged
    several times, and the estimate is then clustered over every judgment.
    """
    epoch = getattr(args, "epoch", None)
    if epoch is not None:
        return (
            f"  question: the accuracy of epoch {epoch}'s answers alone (one judgment per "
            "item); `judgestats estimate` without --epoch answers another, the accuracy over "
            "all epochs' answers with the judgments of one item clustered: report the one "
            "your question asks about"
        )
    if items is None or not bool(items["id"].astype(str).duplicated().any()):
        return None
    if "epoch" in items.columns and items["epoch"].nunique() > 1:
        return (
            f"  question: the accuracy over all {items['epoch'].nunique()} epochs' answers "
            "(every judgment counts; the judgments of one item are clustered by id); "
            "`--epoch N` answers another, the accuracy of epoch N's answers alone: report "
            "the one your question asks about"
        )
    return (
        "  question: the accuracy over every judgment (rows whose id repeats are one item "
        "judged several times, clustered by id); keep one row per item for one judging "
        "round's accuracy"
    )


def with_question(text: str, line: str | None) -> str:
    """``text`` with ``line`` (from :func:`question_line`) after its first line."""
    if line is None:
        return text
    first, _, rest = text.partition("\n")
    return "\n".join([first, line, rest]) if rest else f"{first}\n{line}"


def with_data_notes(output: str, data: JudgeData, args: argparse.Namespace) -> str:
    """A one-dataset command's ``output`` with what its reader must know about the data.

    The question line (:func:`question_line`, text output only) and, for random-design data,
    :func:`with_random_design`.
    """
    if not args.json:
        output = with_question(output, question_line(args))
    return with_random_design(output, data, args) if data.design == "random" else output


# ---- --design random: PPI / PPI++ and the class-balance test (judgestats.designs) ----------------
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


def with_random_design(output: str, data: JudgeData, args: argparse.Namespace) -> str:
    """Add PPI / PPI++ (estimate), the model's assumption and the class-balance test."""
    report = _random_design_report(data, args)
    if args.json:
        return json_text({**json.loads(output), "random_design": report})
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
    lines.append(_class_balance_line(report["class_balance"], data))
    if args.command == "estimate":
        lines.append(
            "  which to report: the one interval the cross-check recommends for these data "
            "(by simulated coverage in this regime; it may be none of these, e.g. the labels "
            "alone): "
            f"{_crosscheck_command(args)}"
        )
    return "\n".join(lines)


#: ``estimate`` options that ``crosscheck`` does not take, and whether each has a value.
_ESTIMATE_ONLY = {"--interval": True, "--json": False}


def _crosscheck_command(args: argparse.Namespace) -> str:
    """The ``judgestats crosscheck`` command of the data of this ``estimate`` command."""
    import shlex

    words = list(getattr(args, "argv", None) or ["estimate", "..."])
    words[words.index("estimate")] = "crosscheck"
    kept: list[str] = []
    skip = False
    for word in words:
        if skip:  # the value of an option left out
            skip = False
            continue
        name, equals, _ = word.partition("=")
        if name in _ESTIMATE_ONLY:
            skip = _ESTIMATE_ONLY[name] and not equals
            continue
        kept.append(word)
    return shlex.join(["judgestats", *kept])


def _class_balance_line(balance: dict[str, Any] | None, data: JudgeData) -> str:
    """The class-balance test: a warning when the labelled share does not fit the test set."""
    from judgestats.designs.shift import class_balance_test

    if balance is None:
        return "  class balance not tested: the judge is no better than chance"
    return f"  {class_balance_test(data).brief()}"
